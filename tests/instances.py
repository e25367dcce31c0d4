"""Test helper: build JSON instances that an ACP schema accepts.

Used by the corpus sweep (fixed, repeatable samples) and by the schema-driven
property tests (hypothesis draws). `Instances` walks a schema node in the ACP
dialect (`$ref`, `allOf` wrappers, `anyOf`/`oneOf` unions, a `not` that
reserves tag values, nullable type lists, maps, formats and bounds) and asks a
`Chooser` for every decision, so one walker serves both uses.

It is independent of the generator on purpose: it reads the raw schema, never
the IR, so a disagreement between the two shows up as a failing decode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol

#: Keys added to open objects when a chooser asks for undeclared properties.
EXTRA_KEY = "x-fuzz-extra"
#: Bounds implied by integer formats.
INT_FORMATS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
UPDATE_METHOD = "session/update"
DOC_KEYS = frozenset({"description", "title", "default", "$schema", "$comment", "examples"})
NOTHING: Any = object()
Path = tuple[str | int, ...]


class Unsatisfiable(Exception):
    """The walker met a schema it cannot produce an instance for."""


class Chooser(Protocol):
    """Every decision `Instances` makes; `shallow` asks for the smallest choice."""

    def pick(self, n: int, shallow: bool) -> int: ...
    def include(self, shallow: bool) -> bool: ...
    def length(self, minimum: int, shallow: bool) -> int: ...
    def scalar(self, leaf: dict[str, Any]) -> Any: ...
    def any_json(self) -> Any: ...
    def other_tag(self, reserved: set[str]) -> str: ...
    def extra(self, shallow: bool) -> bool: ...


def _fixed_string(leaf: dict[str, Any]) -> str:
    fmt = leaf.get("format")
    if leaf.get("contentEncoding") == "base64" or fmt == "byte":
        return "aGVsbG8="
    pattern = leaf.get("pattern")
    if isinstance(pattern, str):
        for candidate in ("USD", "abc", "a", "A", "0", "a-1"):
            if re.search(pattern, candidate):
                return candidate
        raise Unsatisfiable(f"no fixed string matches pattern {pattern!r}")
    text = {
        "date-time": "2025-06-01T12:00:00Z",
        "uri": "https://example.com/a",
        "regex": "^[a-z]+$",
    }.get(fmt if isinstance(fmt, str) else "", "sample")
    return text.ljust(int(leaf.get("minLength", 0)), "x")


class Fixed:
    """Deterministic choices: the first union met takes `variant`, later ones take their
    first member; `full` includes every optional property, otherwise none."""

    def __init__(self, variant: int = 0, full: bool = True) -> None:
        self.variant = variant
        self.full = full
        self.first = True

    def pick(self, n: int, shallow: bool) -> int:
        if self.first and not shallow:
            self.first = False
            return self.variant % n
        return 0

    def include(self, shallow: bool) -> bool:
        return self.full and not shallow

    def length(self, minimum: int, shallow: bool) -> int:
        return max(minimum, 0 if shallow or not self.full else 1)

    def scalar(self, leaf: dict[str, Any]) -> Any:
        kind = leaf["type"]
        if kind == "string":
            return _fixed_string(leaf)
        if kind == "boolean":
            return self.full
        low, high = leaf.get("minimum"), leaf.get("maximum")
        value: float = 1 if kind == "integer" else 0.5
        if low is not None:
            value = max(value, low)
        if high is not None:
            value = min(value, high)
        return int(value) if kind == "integer" else float(value)

    def any_json(self) -> Any:
        return {"note": "sample", "items": [1, 2.5, True, None]} if self.full else None

    def other_tag(self, reserved: set[str]) -> str:
        tag = "future_kind"
        while tag in reserved:
            tag += "_x"
        return tag

    def extra(self, shallow: bool) -> bool:
        return False


class Variant(Fixed):
    """Like `Fixed`, but every union takes member `variant` when it has that many."""

    def pick(self, n: int, shallow: bool) -> int:
        return self.variant if self.variant < n and not shallow else 0


class Instances:
    """Walks one schema document; `of_def(name)` returns an instance of that def."""

    def __init__(self, document: dict[str, Any], chooser: Chooser, max_depth: int = 8) -> None:
        self.defs: dict[str, Any] = document.get("$defs", {})
        self.choose = chooser
        self.max_depth = max_depth
        #: Every property produced: (path in the instance, its schema, whether required).
        self.trace: list[tuple[Path, dict[str, Any], bool]] = []

    def of_def(self, name: str) -> Any:
        return self.value(self.defs[name], 0)

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#/$defs/"):
            raise Unsatisfiable(f"cannot follow {ref!r}")
        return self.defs[ref[len("#/$defs/") :].replace("~1", "/").replace("~0", "~")]

    def value(self, node: Any, depth: int, path: Path = ()) -> Any:
        if node is True or (isinstance(node, dict) and _is_any(node)):
            return self.choose.any_json()
        if not isinstance(node, dict):
            raise Unsatisfiable("the schema `false` has no instances")
        shallow = depth > self.max_depth
        parts: list[Any] = []
        if "$ref" in node:
            parts.append(self.value(self.resolve(node["$ref"]), depth + 1, path))
        for sub in node.get("allOf", []):
            parts.append(self.value(sub, depth + 1, path))
        for keyword in ("anyOf", "oneOf"):
            members = node.get(keyword)
            if isinstance(members, list) and members:
                index = self.choose.pick(len(members), shallow)
                parts.append(self.value(members[index], depth + 1, path))
        own = self.own(node, depth, shallow, path)
        if own is not NOTHING:
            parts.append(own)
        if not parts:
            return self.choose.any_json()
        if all(isinstance(p, dict) for p in parts):
            merged: dict[str, Any] = {}
            for part in parts:
                merged.update(part)
            return merged
        return parts[0]

    def own(self, node: dict[str, Any], depth: int, shallow: bool, path: Path) -> Any:
        """The value the node's own keywords ask for, or NOTHING when it only combines."""
        if "const" in node:
            return node["const"]
        if isinstance(node.get("enum"), list):
            return node["enum"][self.choose.pick(len(node["enum"]), shallow)]
        kind = node.get("type")
        if isinstance(kind, list):
            kind = kind[self.choose.pick(len(kind), shallow)]
        if kind is None:
            if "properties" in node or "required" in node:
                kind = "object"
            elif "items" in node:
                kind = "array"
            else:
                return NOTHING
        if kind == "object":
            return self.object(node, depth, shallow, path)
        if kind == "array":
            count = self.choose.length(int(node.get("minItems", 0)), shallow)
            items = node.get("items", True)
            return [self.value(items, depth + 1, (*path, i)) for i in range(count)]
        if kind == "null":
            return None
        if kind not in ("string", "integer", "number", "boolean"):
            raise Unsatisfiable(f"unknown type {kind!r}")
        return self.choose.scalar(_leaf(node, kind))

    def object(self, node: dict[str, Any], depth: int, shallow: bool, path: Path) -> dict[str, Any]:
        props = node.get("properties", {})
        required = set(node.get("required", []))
        reserved = _reserved_values(node.get("not"))
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name not in required and not self.choose.include(shallow):
                continue
            if name in reserved and isinstance(sub, dict) and "const" not in sub:
                out[name] = self.choose.other_tag(reserved[name])
            else:
                out[name] = self.value(sub, depth + 1, (*path, name))
            if isinstance(sub, dict):
                self.trace.append(((*path, name), sub, name in required))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not _is_any(extra):
            for index in range(self.choose.length(0, shallow)):
                out[f"key{index}"] = self.value(extra, depth + 1, (*path, f"key{index}"))
        elif props and extra is not False and self.choose.extra(shallow):
            # Only objects with declared properties: a property-less object is a map
            # or any-JSON value that keeps every key, so an extra key there is data.
            out[EXTRA_KEY] = self.choose.any_json()
        return out


def _is_any(node: dict[str, Any]) -> bool:
    return all(key in DOC_KEYS or key.startswith("x-") for key in node)


def _leaf(node: dict[str, Any], kind: str) -> dict[str, Any]:
    """The scalar part of a node, with integer formats turned into bounds."""
    leaf: dict[str, Any] = {"type": kind}
    for key in ("format", "pattern", "minLength", "minimum", "maximum", "contentEncoding"):
        if key in node:
            leaf[key] = node[key]
    bounds = INT_FORMATS.get(str(node.get("format"))) if kind == "integer" else None
    if bounds is not None:
        leaf["minimum"] = max(bounds[0], leaf.get("minimum", bounds[0]))
        leaf["maximum"] = min(bounds[1], leaf.get("maximum", bounds[1]))
        del leaf["format"]
    return leaf


def _reserved_values(negated: Any) -> dict[str, set[str]]:
    """Property -> constants a `not` forbids (the open-fallback idiom)."""
    if not isinstance(negated, dict):
        return {}
    members = negated.get("anyOf", negated.get("oneOf", [negated]))
    found: dict[str, set[str]] = {}
    for member in members if isinstance(members, list) else []:
        for name, sub in (member.get("properties") or {}).items():
            if isinstance(sub, dict) and isinstance(sub.get("const"), str):
                found.setdefault(name, set()).add(sub["const"])
    return found


def notification_def(document: dict[str, Any]) -> str | None:
    """The definition whose ``x-method`` is ``session/update`` (the params), if any."""
    names = sorted(
        name
        for name, schema in document["$defs"].items()
        if isinstance(schema, dict) and schema.get("x-method") == UPDATE_METHOD
    )
    return names[0] if names else None


def envelope(params: Any) -> dict[str, Any]:
    """A JSON-RPC ``session/update`` notification carrying `params`."""
    return {"jsonrpc": "2.0", "method": UPDATE_METHOD, "params": params}


def union_size(document: dict[str, Any], name: str) -> int:
    """How many members the def's top-level `anyOf`/`oneOf` has (1 when it has none)."""
    node = document["$defs"][name]
    if not isinstance(node, dict):
        return 1
    for keyword in ("anyOf", "oneOf"):
        if isinstance(node.get(keyword), list):
            return max(1, len(node[keyword]))
    return 1


def without_extras(value: Any) -> Any:
    """`value` with every `EXTRA_KEY` entry removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_extras(v) for k, v in value.items() if k != EXTRA_KEY}
    if isinstance(value, list):
        return [without_extras(v) for v in value]
    return value


def same_json(left: Any, right: Any) -> bool:
    """JSON equality: numbers by value, but booleans never equal numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    return type(left) is type(right) and left == right


def validator_for(document: dict[str, Any]) -> Callable[[str, Any], list[str]]:
    """``check(def_name, instance) -> [error messages]`` against the whole document."""
    from jsonschema import Draft202012Validator

    cache: dict[str, Any] = {}

    def check(name: str, instance: Any) -> list[str]:
        validator = cache.get(name)
        if validator is None:
            pointer = "#/$defs/" + name.replace("~", "~0").replace("/", "~1")
            schema = {"$defs": document["$defs"], "$ref": pointer}
            validator = cache[name] = Draft202012Validator(schema)
        return [e.message[:200] for e in validator.iter_errors(instance)]

    return check


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")
