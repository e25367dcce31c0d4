"""Choosing the protocol version of a connection, for a package of several versions.

Copied unchanged into every package generated from one schema per protocol version
(``<package>/v1/``, ``<package>/v2/``, ...). The client's ``initialize`` request offers
the newest version it speaks (``params.protocolVersion``); the agent's answer
(``result.protocolVersion``) is the version both then speak: the highest the agent
supports at or below the offer, or an error response with code `UNSUPPORTED_VERSION`
when it supports none. The client then checks that it speaks the answered version.

`negotiate` reads one such exchange; `Connection` watches the messages of one
connection, in either direction, until it has seen one, then decodes with the chosen
version's codec at that codec's own speed. `choose` is the agent's side: the version to
answer an offer with. The module commands of the package (``python -m <package>.state``
and ``.conformance``) read the version from a recording with `recorded_version`.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, ClassVar

from ._base import DecodeError, no_constant

__all__ = ["UNSUPPORTED_VERSION", "Connection", "NegotiationError", "choose", "negotiate"]

#: The error code an agent answers ``initialize`` with when it supports no version at or
#: below the one offered (v2's ``ErrorCode``, "Unsupported protocol version").
UNSUPPORTED_VERSION = -32022
#: The largest version number: ``ProtocolVersion`` is an unsigned 16-bit integer.
LARGEST = 65535


class NegotiationError(ValueError):
    """An ``initialize`` exchange that leaves no version to speak, or that is malformed.

    `code` is the JSON-RPC error code an agent should answer with, when there is one.
    """

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def _parsed(message: Any, what: str) -> Mapping[str, Any]:
    if isinstance(message, bytes | bytearray | memoryview | str):
        try:
            message = json.loads(
                bytes(message) if not isinstance(message, str) else message,
                parse_constant=no_constant,
            )
        except (ValueError, RecursionError) as exc:
            raise NegotiationError(f"the {what} is not JSON: {exc}") from None
    if not isinstance(message, Mapping):
        raise NegotiationError(f"the {what} is not a JSON object")
    return message


def _version(value: Any, where: str) -> int:
    if type(value) is not int:
        shown = "missing" if value is None else f"{type(value).__name__} {value!r}"[:80]
        raise NegotiationError(f"{where} must be an integer, not {shown}")
    if not 0 <= value <= LARGEST:
        raise NegotiationError(f"{where} must be from 0 to {LARGEST}, not {value}")
    return value


def offered(request: Any) -> int:
    """The version an ``initialize`` request offers: the whole message, or its params."""
    message = _parsed(request, "initialize request")
    if "method" in message:
        if message["method"] != "initialize":
            raise NegotiationError(f"not an initialize request: method {message['method']!r}")
        params = message.get("params")
        if not isinstance(params, Mapping):
            raise NegotiationError("the initialize request has no params object")
        return _version(params.get("protocolVersion"), "params.protocolVersion")
    return _version(message.get("protocolVersion"), "protocolVersion")


def answered(response: Any) -> int:
    """The version an ``initialize`` response answers: the whole message, or its result.
    An error response is a `NegotiationError` saying so."""
    message = _parsed(response, "initialize response")
    if "error" in message:
        error = message["error"]
        code = error.get("code") if isinstance(error, Mapping) else None
        text = error.get("message") if isinstance(error, Mapping) else None
        if code == UNSUPPORTED_VERSION:
            raise NegotiationError(
                "the agent supports no protocol version at or below the one offered "
                f"(error {code})",
                code,
            )
        raise NegotiationError(f"initialize failed: error {code!r}: {text!r}"[:200], code)
    if "result" in message or "jsonrpc" in message:
        result = message.get("result")
        if not isinstance(result, Mapping):
            raise NegotiationError("the initialize response has no result object")
        return _version(result.get("protocolVersion"), "result.protocolVersion")
    return _version(message.get("protocolVersion"), "protocolVersion")


def _spoken(versions: tuple[int, ...]) -> str:
    return ", ".join(map(str, versions))


def choose(versions: tuple[int, ...], offer: int) -> int:
    """The version an agent speaking `versions` answers `offer` with: the highest at or
    below it. None is a `NegotiationError` with code `UNSUPPORTED_VERSION`."""
    offer = _version(offer, "the offered version")
    below = [v for v in versions if v <= offer]
    if not below:
        raise NegotiationError(
            f"no common protocol version: the client offers {offer} and this package "
            f"speaks {_spoken(versions)}",
            UNSUPPORTED_VERSION,
        )
    return max(below)


def negotiate(versions: tuple[int, ...], request: Any, response: Any) -> int:
    """The version an ``initialize`` exchange settles on, checked against `versions`."""
    offer, answer = offered(request), answered(response)
    if answer > offer:
        raise NegotiationError(
            f"the agent answered protocol version {answer}, above the {offer} the client offered"
        )
    if answer not in versions:
        raise NegotiationError(
            f"no common protocol version: the agent answered {answer} and this package "
            f"speaks {_spoken(versions)}"
        )
    return answer


def _key(value: Any) -> Any:
    return (type(value).__name__, value)  # 1 and "1" are different JSON-RPC IDs


class Connection:
    """One connection's messages: watches the ``initialize`` exchange, then decodes.

    Pass every message to `watch` until it returns a version (the client's request and
    the agent's answer, whichever side this program is). From then on `version` and
    `module` name the negotiated version and its package, and `decode`,
    `decode_notification`, `decode_update`, `encode`, `dispatch` and `SessionState` are
    that package's own functions and class. Before that they raise `NegotiationError`.
    The package's ``Connection`` sets `PACKAGE` and `VERSIONS`.
    """

    PACKAGE: ClassVar[str]
    VERSIONS: ClassVar[tuple[int, ...]]
    #: The functions and classes of the version's package it hands on, by name.
    DELEGATED: ClassVar[tuple[str, ...]]

    def __init__(self) -> None:
        self.version: int | None = None
        self.module: ModuleType | None = None
        self._asked: dict[Any, int] = {}  # initialize request ID -> the version it offers

    def watch(self, message: Any) -> int | None:
        """Read one message (JSON text, bytes or a parsed object); the negotiated version
        once the answer to an ``initialize`` request has passed, else None. Other
        messages are let through unread; after the answer, nothing is read."""
        if self.version is not None:
            return self.version
        message = _parsed(message, "message")
        ident = message.get("id")
        if message.get("method") == "initialize":
            if ident is None or isinstance(ident, Mapping | list | bool):
                raise NegotiationError("the initialize request has no usable id")
            self._asked[_key(ident)] = offered(message)
            return None
        if "method" in message or ident is None or isinstance(ident, Mapping | list | bool):
            return None
        offer = self._asked.get(_key(ident))
        if offer is None:
            return None
        version = negotiate(self.VERSIONS, {"protocolVersion": offer}, message)
        self._settle(version)
        return version

    def use(self, version: int) -> None:
        """Speak `version` without watching an exchange (say, a recording's known one)."""
        if version not in self.VERSIONS:
            raise NegotiationError(
                f"this package speaks {_spoken(self.VERSIONS)}, not protocol version {version}"
            )
        self._settle(version)

    def _settle(self, version: int) -> None:
        module = importlib.import_module(f"{self.PACKAGE}.v{version}")
        self.version, self.module = version, module
        for name in self.DELEGATED:
            if hasattr(module, name):
                setattr(self, name, getattr(module, name))  # no call in between: full speed

    def __getattr__(self, name: str) -> Any:
        # Reached only for what `_settle` has not set.
        if name in type(self).DELEGATED and self.module is None:
            raise NegotiationError(
                f"Connection.{name}: no protocol version yet (the answer to initialize "
                "has not been watched)"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# -- the module commands ------------------------------------------------------------------
def recorded_version(path: str) -> tuple[int | None, str]:
    """The version a recording's ``initialize`` exchange settles on (None: it holds no
    usable exchange), and what was found, for the note printed when there is none."""
    # (only packages with a reducer have the reader)
    from ._transcript import TranscriptError, read, record

    asked: dict[Any, int] = {}
    offer: int | None = None
    try:
        for line in read(path):
            message, _ = record(line.message)
            if not isinstance(message, Mapping):
                continue
            if message.get("method") == "initialize":
                params = message.get("params")
                value = params.get("protocolVersion") if isinstance(params, Mapping) else None
                if type(value) is int:
                    offer = value
                    asked[_key(message.get("id"))] = value
            elif "method" not in message and _key(message.get("id")) in asked:
                result = message.get("result")
                value = result.get("protocolVersion") if isinstance(result, Mapping) else None
                if type(value) is int:
                    return value, "answered"
                break
    except (TranscriptError, OSError, TypeError):
        pass  # the command itself reads the file again and reports the fault
    finally:
        if path == "-":
            sys.stdin.buffer.seek(0)
    return offer, "offered" if offer is not None else "none"


class _Arguments(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise ValueError(message)  # the version's own command reports it


def _arguments(argv: list[str]) -> argparse.Namespace | None:
    """The file and ``--protocol`` of either command's arguments (None: unreadable ones,
    or ``--help``: the newest version's command answers those)."""
    parser = _Arguments(add_help=False)
    parser.add_argument("file")
    parser.add_argument("--protocol", type=int)
    parser.add_argument("--max-line", default="64M")
    parser.add_argument("--format")
    for flag in ("--partial", "--json"):
        parser.add_argument(flag, action="store_true")
    try:
        args = parser.parse_args(argv)
    except ValueError:
        return None
    return None if args.file.startswith("-") and args.file != "-" else args


def run_command(
    package: str,
    versions: tuple[int, ...],
    command: str,
    argv: list[str] | None,
    run: Callable[[ModuleType, list[str]], int],
) -> int:
    """Run the module command `command` (``state`` or ``conformance``) of the version a
    recording negotiated, or of ``--protocol N``; with neither, of the newest version
    (an offer alone: the highest at or below it), saying on standard error which and why.
    Standard input is copied to a temporary file first, so that it can be read twice."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = None if {"-h", "--help"} & set(argv) else _arguments(argv)
    if args is None:
        version = versions[-1]
    elif args.protocol is not None:
        if args.protocol not in versions:
            print(
                f"{package}.{command}: --protocol must be one of {_spoken(versions)}, "
                f"not {args.protocol}",
                file=sys.stderr,
            )
            return 2
        version = args.protocol
        if command == "state":  # the replay of one version has no such option
            argv = _without(argv, "--protocol")
    else:
        if args.file == "-":
            spool = tempfile.TemporaryFile()  # noqa: SIM115 (open while the command reads)
            shutil.copyfileobj(sys.stdin.buffer, spool)
            spool.seek(0)
            sys.stdin = io.TextIOWrapper(spool)
        version = _recorded(package, versions, args.file)
    return run(importlib.import_module(f"{package}.v{version}.{command}"), argv)


def _without(argv: list[str], option: str) -> list[str]:
    """`argv` without `option` and its value."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if not skip and arg != option and not arg.startswith(option + "="):
            kept.append(arg)
        skip = arg == option and not skip
    return kept


def _recorded(package: str, versions: tuple[int, ...], path: str) -> int:
    """The version to read a recording as: the one its ``initialize`` exchange settles
    on; else, of the versions at or below its offer (all, without one), the newest that
    decodes every update it holds. Any choice but the first is said on standard error."""
    found, how = recorded_version(path)
    if how == "answered" and found in versions:
        return found
    shown = "standard input" if path == "-" else path
    if how == "answered":
        why = f"it negotiated {found}, which this package does not speak"
    elif how == "offered":
        why = f"its initialize offers {found} and is not answered"
    else:
        why = "it holds no initialize exchange"
    below = [v for v in versions if found is None or v <= found] or list(versions)
    for version in reversed(below):
        refused = _refused(f"{package}.v{version}", path)
        if refused is None:
            break
        why += f"; v{version} cannot decode the update on line {refused}"
    else:
        version = below[-1]
    print(f"{shown}: read as protocol v{version}: {why} (--protocol picks one)", file=sys.stderr)
    return version


def _refused(package: str, path: str) -> int | None:
    """The line of the first update of the recording that `package` cannot decode."""
    from ._transcript import TranscriptError, _update_of, read

    decode = importlib.import_module(f"{package}.codec").decode_update
    try:
        for index, line in enumerate(read(path)):
            found = _update_of(line, index)
            if found is not None:
                try:
                    decode(json.dumps(found[0]))
                except DecodeError:
                    return line.line
    except (TranscriptError, OSError):
        pass  # the command itself reads the file again and reports the fault
    finally:
        if path == "-":
            sys.stdin.buffer.seek(0)
    return None
