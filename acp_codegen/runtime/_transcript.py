"""Reading recorded ACP traffic, and the two commands that read it.

Copied unchanged beside ``_conformance.py`` into every generated package that has a
reducer. A recording is JSONL: one JSON value per line, where a line ends only at ``\\n``
(a ``\\r`` before it is dropped), so the other separators Unicode knows stay inside the
strings that hold them. Lines are read one at a time, never the whole file: memory is
the longest line plus what the command keeps. Each line is one record:

- a JSON-RPC message (request, notification or response);
- ``{"direction": ..., "message": ...}``, when a recorder wrote down who sent it;
- for the replay only, a notification's ``params`` or a bare update.

Input that is not such a recording raises `TranscriptError`, which names the line; the
commands print it as one line and exit 2. The JSON a line holds must be what every
target of the package can read back: UTF-8, no NaN or infinite number, no unpaired
surrogate escape, integers of at most `MAX_DIGITS` digits and nesting of at most
``MAX_DEPTH`` levels.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict
from typing import IO, Any, NamedTuple

from ._base import (
    MAX_DEPTH,
    DecodeError,
    check_depth,
    check_text,
    finite_float,
    no_constant,
)
from ._base import json_type as _json_name

__all__ = [
    "MAX_LINE",
    "Record",
    "TranscriptError",
    "check_command",
    "envelope",
    "read",
    "replay_command",
]

#: The longest line read, in bytes, unless a command is told otherwise (``--max-line``).
MAX_LINE = 64 * 1024 * 1024
#: The most digits an integer may have (Python's own limit for turning text into an int).
MAX_DIGITS = 4300
#: Exit statuses, the same for both commands.
CLEAN, FINDINGS, UNREADABLE, EMPTY = 0, 1, 2, 3
#: What a shell reports for a command whose output pipe was closed (128 + SIGPIPE).
CLOSED_PIPE = 141

_SIZE = re.compile(r"(\d+)([kKmMgG]?)")
#: `_base.json_type`'s names, as a sentence says them
_JSON_TYPES = {"object": "an object", "array": "an array", "str": "a string", "bool": "a boolean"}


class TranscriptError(ValueError):
    """Input that is not a transcript. `index` is the message at fault (-1: none) and
    `line` its line in the file (0: not read from a file)."""

    def __init__(self, index: int, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.index = index
        self.line = line


class Record(NamedTuple):
    """One line of a recording: its number, the message, and the recorded sender."""

    line: int
    message: Any
    direction: Any


class _Refused(ValueError):
    """A value the JSON parser would take but a package cannot write back."""


def json_type(value: Any) -> str:
    """How JSON names the type of a parsed value (``an array``, ``null``, ...)."""
    if value is None:
        return "null"
    return _JSON_TYPES.get(_json_name(value), "a number")


def record(value: Any) -> tuple[Any, Any]:
    """The message a record holds and its recorded sender (None: not recorded)."""
    if isinstance(value, Mapping) and "message" in value and "jsonrpc" not in value:
        return value["message"], value.get("direction")
    return value, None


def located(exc: DecodeError, at: str) -> str:
    """A decode error's first line, its path placed where the decoded value sits (`at`)."""
    where = f" - at `{at}{exc.path[1:]}`" if exc.path else ""
    return exc.message.splitlines()[0] + where


# -- lines --------------------------------------------------------------------------------
def _integer(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise _Refused(f"an integer of {digits} digits (at most {MAX_DIGITS} are read)")
    return int(text)


def parse(raw: bytes) -> Any:
    """The JSON value of one line; `ValueError` says why there is none."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte {exc.start + 1} of the line)") from None
    try:
        check_depth(text)
    except DecodeError:
        raise ValueError(f"nests deeper than {MAX_DEPTH} levels") from None
    try:
        check_text(text)
    except DecodeError:
        raise ValueError(
            "not JSON a package can read: a string holds an unpaired surrogate"
        ) from None
    try:
        return json.loads(
            text, parse_int=_integer, parse_float=finite_float, parse_constant=no_constant
        )
    except _Refused as exc:
        raise ValueError(f"not JSON a package can read: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None


def _lines(stream: IO[bytes], cap: int) -> Iterator[tuple[int, bytes]]:
    number = 0
    while True:
        raw = stream.readline(cap + 1)
        if not raw:
            return
        number += 1
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        elif len(raw) > cap:
            raise TranscriptError(-1, f"the line is longer than {cap:,} bytes", number)
        if raw.strip():
            yield number, raw


def read(path: str, cap: int = MAX_LINE) -> Iterator[Record]:
    """Each record of the recording at `path` (``-``: standard input), as it is read."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise TranscriptError(-1, f"cannot read: {exc.strerror or exc}") from None
    try:
        for number, raw in _lines(stream, cap):
            try:
                value = parse(raw)
            except ValueError as exc:
                raise TranscriptError(-1, str(exc), number) from None
            yield Record(number, *record(value))
    except OSError as exc:
        raise TranscriptError(-1, f"cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise TranscriptError(-1, "cannot read: out of memory") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def envelope(message: Any, index: int) -> tuple[str | None, Any, Mapping[str, Any]]:
    """The method, ID and params of a JSON-RPC message (params ``{}`` when absent);
    `TranscriptError` for one that is not a request, a notification or a response."""
    if not isinstance(message, Mapping):
        raise TranscriptError(index, f"not a JSON-RPC message (an object): {json_type(message)}")
    method, ident = message.get("method"), message.get("id")
    params = message.get("params", {})
    if method is not None and not isinstance(method, str):
        raise TranscriptError(index, f"method is {json_type(method)}, not a string")
    if isinstance(ident, (bool, dict, list)):
        raise TranscriptError(
            index, f"id is {json_type(ident)}: a JSON-RPC id is a string, a number or null"
        )
    if not isinstance(params, (Mapping, list)):
        raise TranscriptError(index, f"params is {json_type(params)}, not an object or an array")
    params = params if isinstance(params, Mapping) else {}
    session = params.get("sessionId")
    if session is not None and not isinstance(session, str):
        raise TranscriptError(index, f"params.sessionId is {json_type(session)}, not a string")
    if method is None and "result" not in message and "error" not in message:
        raise TranscriptError(index, "neither a request, a notification nor a response")
    return method, ident, params


# -- the command lines --------------------------------------------------------------------
def _size(text: str) -> int:
    """``64M``, ``512k`` or a number of bytes."""
    found = _SIZE.fullmatch(text.strip())
    if found is None or int(found[1]) < 1:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say 64M, 512k or 1000)")
    return int(found[1]) << 10 * " kmg".index(found[2].lower() or " ")


class _Parser(argparse.ArgumentParser):
    """Arguments the command cannot take are one line on stderr, and status 2."""

    def error(self, message: str) -> Any:
        self.exit(UNREADABLE, f"{self.prog}: {message} (--help lists the options)\n")


def _parser(prog: str | None, description: str, epilog: str) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="the JSONL recording; - reads standard input")
    parser.add_argument(
        "--max-line",
        type=_size,
        default=MAX_LINE,
        metavar="SIZE",
        help="refuse a line longer than this [default: 64M]",
    )
    return parser


def _guarded(run: Callable[[], int], path: str) -> int:
    """Run a command: bad input is one line and status 2, a closed pipe ends quietly."""
    try:
        return run()
    except TranscriptError as exc:
        where = f"{path}:{exc.line}: " if exc.line else f"{path}: "
        message = f"message {exc.index}: " if exc.index >= 0 and exc.line else ""
        print(f"error: {where}{message}{exc}", file=sys.stderr)
        return UNREADABLE
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_PIPE


_CHECKED = """exit status:
  0  no MUST is broken (SHOULDs and notes are printed, and pass)
  1  a MUST is broken
  2  the input is not a recording: one line names the file and line
  3  the recording holds no message"""
_REPLAYED = """exit status:
  0  the updates were applied and the state printed
  2  the input is not a recording, or an update does not decode: one line names the line
  3  the recording holds no update"""


def check_command(checker: Any, argv: list[str] | None, prog: str | None) -> int:
    """``python -m <package>.conformance FILE``: check a recording, print what it breaks."""
    parser = _parser(
        prog,
        "Check a recorded ACP exchange against the rules of the v2 prompt lifecycle. Each "
        "line is a JSON-RPC message, or {direction, message}.",
        _CHECKED,
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="protocol version [default: the recording's initialize, else the package's]",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help="the recording stops mid-work: do not report work still active at its end",
    )
    args = parser.parse_args(argv)
    return _guarded(lambda: _check(checker, args), args.file)


def _check(checker: Any, args: argparse.Namespace) -> int:
    run = checker(args.protocol, complete=not args.partial)
    lines = array("L")  # message index -> line, four bytes a message
    printed: set[int] = set()
    text = args.format == "text"

    def show(found: list[Any]) -> None:
        selected = {rule.id: rule.source.capitalize() for rule in run.rules}
        for v in found:
            if id(v) not in printed and v.rule in selected:
                printed.add(id(v))
                print(
                    f"{args.file}:{lines[v.index]}: message {v.index}: {v.level} {v.rule}: "
                    f'{v.message}. {selected[v.rule]}: "{v.sentence}"'
                )

    for record in read(args.file, args.max_line):
        lines.append(record.line)
        seen = len(run.found)
        try:
            run.message(record.message, record.direction)
        except TranscriptError as exc:
            raise TranscriptError(exc.index, str(exc), record.line) from None
        if text and len(run.found) > seen:
            show(run.found[seen:])
    if not lines:
        print(f"{args.file}: no messages: nothing to check", file=sys.stderr)
        return EMPTY
    found = run.finish()
    if text:
        show(found)
        must = sum(v.level == "MUST" for v in found)
        print(
            f"{len(found)} finding(s), {must} MUST broken; protocol v{run.version}, "
            f"{len(run.rules)} rules checked",
            file=sys.stderr,
        )
    else:
        report = {
            "protocol": run.version,
            "rules": [r.id for r in run.rules],
            "violations": [{**asdict(v), "line": lines[v.index]} for v in found],
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    return FINDINGS if any(v.level == "MUST" for v in found) else CLEAN


def _update_of(record: Record, index: int) -> tuple[Any, str] | None:
    """The update a record holds and where it sits in the line (None: a JSON-RPC message
    that is not ``session/update``)."""
    message = record.message
    at = "$.message" if record.direction is not None else "$"
    if isinstance(message, Mapping) and ("jsonrpc" in message or "method" in message):
        method, _, params = envelope(message, index)
        if method != "session/update":
            return None
        at, message = at + ".params", params
    if isinstance(message, Mapping) and "update" in message and "sessionUpdate" not in message:
        at, message = at + ".update", message["update"]
    if not isinstance(message, Mapping):
        raise TranscriptError(
            index, f"not a session/update notification, its params or an update: {at}"
        )
    return message, at


def replay_command(cls: Any, argv: list[str]) -> int:
    """``python -m <package>.state [--json] FILE``: replay the updates of a recording."""
    module = cls.ENCODE.__module__.replace(".codec", ".state")  # not __main__
    parser = _parser(
        f"python -m {module}",
        "Apply the session/update notifications of a recording to a SessionState and "
        "print the state it ends in. A line is a JSON-RPC message, {direction, message}, "
        "a notification's params or a bare update; other messages are skipped.",
        _REPLAYED,
    )
    parser.add_argument("--json", action="store_true", help="print the state as JSON")
    args = parser.parse_args(argv)
    return _guarded(lambda: _replay(cls, args), args.file)


def _replay(cls: Any, args: argparse.Namespace) -> int:
    state = cls(history=False)
    applied = skipped = 0
    for index, record in enumerate(read(args.file, args.max_line)):
        try:
            found = _update_of(record, index)
            if found is None:
                skipped += 1
                continue
            update, at = found
            try:
                state.apply(cls.DECODE(json.dumps(update)))
            except DecodeError as exc:
                raise TranscriptError(index, located(exc, at)) from None
        except TranscriptError as exc:
            raise TranscriptError(exc.index, str(exc), record.line) from None
        applied += 1
    if skipped:
        print(f"{args.file}: skipped {skipped} message(s) that are not updates", file=sys.stderr)
    if not applied:
        print(f"{args.file}: no updates: nothing to replay", file=sys.stderr)
        return EMPTY
    print(json.dumps(state.to_dict(), indent=2) if args.json else repr(state))
    return CLEAN
