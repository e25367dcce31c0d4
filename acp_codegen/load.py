"""Stage 1, load: read a schema file and check its outer shape.

Takes a path (or raw bytes) and returns a `LoadedSchema`: the parsed document,
its `$defs`, and the sha256 of the exact bytes read. Nothing is interpreted here
beyond what every later stage relies on: the file is UTF-8 JSON, the root is an
object, definitions sit under `$defs`, and `$ref`s are local `#/$defs/<Name>`
pointers that resolve. Every failure is a `SchemaError` with a JSON pointer.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SchemaError, join_pointer

#: Refuse inputs larger than this; the biggest published schema is ~0.5 MB.
MAX_SCHEMA_BYTES = 16 * 1024 * 1024
#: Refuse schemas nested deeper than this (the published ones stay under 20).
MAX_DEPTH = 64
REF_PREFIX = "#/$defs/"


@dataclass(frozen=True)
class LoadedSchema:
    """A parsed schema document and where it came from."""

    source: str
    sha256: str
    document: dict[str, Any]
    defs: dict[str, Any]

    def resolve(self, ref: object, pointer: str) -> tuple[str, Any]:
        """Return ``(name, schema)`` for a `$ref` value found at `pointer`."""
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", pointer, self.source)
        if not ref.startswith(REF_PREFIX):
            raise SchemaError(
                f"unsupported $ref {ref!r}: only local '#/$defs/<Name>' refs are understood",
                pointer,
                self.source,
            )
        name = ref[len(REF_PREFIX) :].replace("~1", "/").replace("~0", "~")
        if name not in self.defs:
            raise SchemaError(f"$ref {ref!r} resolves to nothing", pointer, self.source)
        return name, self.defs[name]


def _reject_constant(token: str) -> float:
    raise ValueError(f"non-standard JSON number {token}")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate object key {key!r}")
        out[key] = value
    return out


def parse_json(raw: bytes, source: str, what: str = "schema") -> Any:
    """Parse JSON bytes strictly and check their nesting, numbers and text.

    `what` names the input in size errors (``schema``, ``overlay``).
    """
    if len(raw) > MAX_SCHEMA_BYTES:
        raise SchemaError(
            f"{what} is {len(raw):,} bytes, over the {MAX_SCHEMA_BYTES:,}-byte limit", "", source
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"not UTF-8 text (byte {exc.start})", "", source) from None
    try:
        document = json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates
        )
    except json.JSONDecodeError as exc:
        raise SchemaError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", "", source
        ) from None
    except (ValueError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, ValueError) else "nesting too deep"
        raise SchemaError(f"not valid JSON: {message}", "", source) from None
    _check_depth(document, source)
    return document


def load_bytes(raw: bytes, source: str) -> LoadedSchema:
    """Parse and check schema bytes; `source` names the input in errors."""
    document = parse_json(raw, source)
    if not isinstance(document, dict):
        raise SchemaError(
            f"the schema root must be a JSON object, not {type(document).__name__}", "", source
        )
    defs = document.get("$defs")
    if defs is None:
        where = (
            " (found 'definitions', which is not supported)" if "definitions" in document else ""
        )
        raise SchemaError(f"the schema has no $defs{where}", "", source)
    if not isinstance(defs, dict):
        raise SchemaError("$defs must be an object", "/$defs", source)
    for name, schema in defs.items():
        if not isinstance(schema, dict | bool):
            raise SchemaError(
                "a definition must be a schema object", join_pointer("/$defs", name), source
            )
    loaded = LoadedSchema(source, hashlib.sha256(raw).hexdigest(), document, defs)
    for pointer, ref in iter_refs(document):
        loaded.resolve(ref, pointer)
    return loaded


#: The most bytes each kind of input may hold. A regular file over its limit is refused
#: by its size before it is read; a pipe or a device is read one byte past it at most.
#: Generated packages are read back at the schema's limit: no file in one comes near it.
READ_LIMITS = {
    "schema": MAX_SCHEMA_BYTES,
    "overlay": MAX_SCHEMA_BYTES,
    "changelog": MAX_SCHEMA_BYTES,
    "generated file": MAX_SCHEMA_BYTES,
    "config": 1024 * 1024,
    "template": 1024 * 1024,
}


def read_capped(
    path: Path | str, what: str = "schema", *, dir_fd: int | None = None, follow: bool = True
) -> bytes:
    """The bytes of `path`, refusing more than ``READ_LIMITS[what]``: every input the CLI
    reads comes through here.

    `dir_fd` and ``follow=False`` open a name inside an already opened directory the way
    ``check`` reads a package on disk: a symlink there is not followed, and a FIFO planted
    there reads as empty instead of waiting for a writer. Every failure is a one-line
    `SchemaError` naming the file.
    """
    limit = READ_LIMITS[what]
    source = str(path)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except IsADirectoryError:
        raise SchemaError(f"is a directory, not a {what} file", "", source) from None
    except OSError as exc:
        raise SchemaError(f"cannot read {what}: {exc.strerror}", "", source) from None
    except ValueError:  # a NUL in the name
        raise SchemaError(f"cannot read {what}: the path holds a NUL", "", source) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise SchemaError(f"is a directory, not a {what} file", "", source)
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise SchemaError(
                f"{what} is {info.st_size:,} bytes, over the {limit:,}-byte limit", "", source
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise SchemaError(f"cannot read {what}: {exc.strerror}", "", source) from None
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise SchemaError(f"{what} is over the {limit:,}-byte limit", "", source)
    return raw


def load_path(path: Path) -> LoadedSchema:
    """Read a schema file; a missing, unreadable or oversized input is a `SchemaError`."""
    return load_bytes(read_capped(path), str(path))


def _check_depth(document: Any, source: str) -> None:
    """Refuse arrays and objects nested more than `MAX_DEPTH` deep (``[[1]]`` nests 2), text
    that UTF-8 cannot carry, and numbers that overflow a 64-bit float."""
    stack: list[tuple[Any, int, str]] = [(document, 1, "")]  # (node, its depth, pointer)
    while stack:
        node, depth, pointer = stack.pop()
        if depth > MAX_DEPTH and isinstance(node, dict | list):
            raise SchemaError(f"schema nests deeper than {MAX_DEPTH} levels", pointer, source)
        if isinstance(node, dict):
            for key, value in node.items():
                _check_text(key, pointer, source)
                stack.append((value, depth + 1, join_pointer(pointer, key)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1, join_pointer(pointer, i)) for i, v in enumerate(node))
        elif isinstance(node, str):
            _check_text(node, pointer, source)
        elif isinstance(node, float) and not math.isfinite(node):
            # JSON has no infinity: only a literal too large for a double (1e400) gets here.
            raise SchemaError("number is too large for a 64-bit float", pointer, source)


def _check_text(text: str, pointer: str, source: str) -> None:
    # JSON may spell a lone surrogate as an escape; no UTF-8 payload or file can hold one,
    # and msgspec cannot even define a field with such a name.
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise SchemaError(
            f"text holds a lone surrogate \\u{code:04x}, which UTF-8 cannot carry", pointer, source
        ) from None


_SCHEMA_MAPS = ("properties", "$defs")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")
_SCHEMA_SINGLE = ("items", "not", "additionalProperties", "unevaluatedProperties")


def iter_refs(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(pointer, ref)`` for every `$ref` in schema positions.

    Walks only keywords that hold subschemas, so a property that happens to be
    named ``$ref`` or ``properties`` is never mistaken for a keyword.
    """
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        yield join_pointer(pointer, "$ref"), node["$ref"]
    for key in _SCHEMA_MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from iter_refs(sub, join_pointer(pointer, key, name))
    for key in _SCHEMA_LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from iter_refs(sub, join_pointer(pointer, key, index))
    for key in _SCHEMA_SINGLE:
        if key in node:
            yield from iter_refs(node[key], join_pointer(pointer, key))


def is_finite_number(value: object) -> bool:
    """True for JSON numbers (bool excluded) that are finite."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
