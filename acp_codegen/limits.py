"""Build-stage check: every number the generated code will hold fits what both targets hold.

Runs over the selected definitions before any IR is built, so a value that a
generated package could not import or use (a bound beyond what msgspec accepts,
a length of ``-1`` or ``1.5``, an enum value beyond int64, an annotation value
beyond 64 bits) is a `SchemaError` at its pointer instead of a package that
fails on first import or decode; so is a control character in the text of an
``x-acp-*`` annotation, which becomes names and literals of generated code (a NUL
there once made a package fail at import). Floats that overflowed to infinity are refused
earlier, by `load`, wherever they appear. The limits are the ones msgspec sets;
pydantic and the stdlib target hold every value inside them, so a schema accepted for
one target is accepted for every other.

The walk is iterative and visits only keywords that hold subschemas, like
`load.iter_refs`; data keywords (``default``, ``x-acp-*``) are checked as data.
`check_model_chains` and `check_wire_names` run later, on the IR, from `accept`: they hold
every target to what the most limited registered library can build (how deep definitions
may name one another, which characters a wire name may hold), so that whether a schema is
accepted never depends on the target.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from . import ir
from .errors import SchemaError, join_pointer
from .target import Target

#: msgspec keeps integer bounds, ``Literal`` values and enum values within int64.
INT64 = (-(2**63), 2**63 - 1)
#: The widest integer a msgspec decoder returns natively (int64 and uint64 together).
WIRE_INT = (-(2**63), 2**64 - 1)
#: Keywords whose value becomes a bound in generated code.
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
#: Keywords whose value becomes a length in generated code (``min_length``/``MinLen``).
LENGTHS = ("minLength", "minItems", "maxLength", "maxItems")
#: On an integer an exclusive bound becomes the inclusive one next to it.
_STEP = {"exclusiveMinimum": 1, "exclusiveMaximum": -1}
_MAPS = ("properties", "$defs")
_LISTS = ("anyOf", "oneOf", "allOf")
_SINGLE = ("items", "not", "additionalProperties", "unevaluatedProperties")
_DATA = ("default",)
ANNOTATION_PREFIX = "x-acp-"
#: Control characters (C0, DEL and C1): refused in annotation text and in paths.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def declared_types(node: dict[str, Any]) -> set[str]:
    """The JSON types a schema's ``type`` names (one, or a list), empty without one."""
    declared = node.get("type")
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return {declared} if isinstance(declared, str) else set()


def whole(value: int | float) -> int | None:
    """`value` as an int when it is a whole number (``2`` or ``2.0``), else None."""
    if isinstance(value, int):
        return value
    return int(value) if value.is_integer() else None


def schema_nodes(defs: dict[str, Any], names: Iterable[str]) -> Iterator[tuple[Any, str]]:
    """Every schema under the definitions `names` with its pointer (``true`` and ``false``
    too), walking only the keywords that hold subschemas, without recursion."""
    stack: list[tuple[Any, str]] = [(defs[n], join_pointer("/$defs", n)) for n in names]
    while stack:
        node, pointer = stack.pop()
        yield node, pointer
        if not isinstance(node, dict):
            continue
        for key in _MAPS:
            value = node.get(key)
            if isinstance(value, dict):
                stack.extend((s, join_pointer(pointer, key, k)) for k, s in value.items())
        for key in _LISTS:
            value = node.get(key)
            if isinstance(value, list):
                stack.extend((s, join_pointer(pointer, key, i)) for i, s in enumerate(value))
        for key in _SINGLE:
            if key in node:
                stack.append((node[key], join_pointer(pointer, key)))


def check(defs: dict[str, Any], names: list[str], source: str) -> None:
    """Refuse the first out-of-range number under the definitions `names`."""
    for node, pointer in schema_nodes(defs, names):
        if isinstance(node, dict):
            _check_node(node, pointer, source)


def _check_node(node: dict[str, Any], pointer: str, source: str) -> None:
    types = declared_types(node)
    for key in BOUNDS:
        if key in node and is_number(node[key]):
            step = _STEP.get(key, 0)
            _bound(node[key], "integer" in types, join_pointer(pointer, key), source, step)
    if "multipleOf" in node and is_number(node["multipleOf"]):
        _multiple(
            node["multipleOf"], "integer" in types, join_pointer(pointer, "multipleOf"), source
        )
    for key in LENGTHS:
        if key in node and is_number(node[key]):
            _length(node[key], join_pointer(pointer, key), source)
    if "const" in node:
        _constant(node["const"], join_pointer(pointer, "const"), source)
    enum = node.get("enum")
    if isinstance(enum, list):
        for index, value in enumerate(enum):
            _constant(value, join_pointer(pointer, "enum", index), source)
    for key, value in node.items():
        if key in _DATA or key.startswith(ANNOTATION_PREFIX):
            _data(value, join_pointer(pointer, key), source, key != "default")
            if key != "default":
                _plain_text(key, join_pointer(pointer, key), source)


def _plain_text(text: str, pointer: str, source: str) -> None:
    found = CONTROL.search(text)
    if found is not None:
        raise SchemaError(
            f"annotation text holds the control character U+{ord(found.group()):04X}, "
            "which generated code does not carry",
            pointer,
            source,
        )


def _bound(value: int | float, integer: bool, pointer: str, source: str, step: int = 0) -> None:
    """`step` is what an exclusive bound adds on an integer (``exclusiveMinimum: 0`` is
    ``minimum: 1``): the bound it becomes must fit int64 as well."""
    if integer:
        number = whole(value)
        if number is None:
            raise SchemaError(
                f"bound {value!r} on an integer must be a whole number", pointer, source
            )
        _int64(number, "bound {} on an integer", "generated code cannot check", pointer, source)
        if step:
            what = f"bound {_show(number)} on an integer, as an inclusive bound ({{}}),"
            _int64(number + step, what, "generated code cannot check", pointer, source)
        return
    if isinstance(value, int) and abs(value) > sys.float_info.max:
        raise SchemaError(f"bound {_show(value)} does not fit a 64-bit float", pointer, source)


def _multiple(value: int | float, integer: bool, pointer: str, source: str) -> None:
    if value <= 0:
        raise SchemaError(f"multipleOf {value!r} must be greater than 0", pointer, source)
    if integer:
        number = whole(value)
        if number is None:
            raise SchemaError(
                f"multipleOf {value!r} on an integer must be a whole number", pointer, source
            )
        _int64(number, "multipleOf {}", "generated code cannot check", pointer, source)


def _show(value: int) -> str:
    """A long integer shortened for an error line (``1000…000 (401 digits)``)."""
    text = str(value)
    digits = len(text.lstrip("-"))
    return text if digits <= 24 else f"{text[:5]}…{text[-3:]} ({digits} digits)"


def _length(value: int | float, pointer: str, source: str) -> None:
    number = whole(value)
    if number is None or not 0 <= number <= INT64[1]:
        raise SchemaError(
            f"length {value!r} must be a whole number from 0 to {INT64[1]}", pointer, source
        )


def _constant(value: Any, pointer: str, source: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool):
        what, why = "constant {}", "generated enums and literals cannot hold"
        _int64(value, what, why, pointer, source)


def _int64(number: int, what: str, why: str, pointer: str, source: str) -> None:
    """Refuse `number` outside int64; `what` has a ``{}`` for the number."""
    if not INT64[0] <= number <= INT64[1]:
        raise SchemaError(
            f"{what.format(_show(number))} is outside int64, which {why}", pointer, source
        )


def _data(value: Any, pointer: str, source: str, text: bool = False) -> None:
    """Refuse numbers beyond 64 bits in data, and with `text` (an annotation, whose strings
    become names, keys and literals of generated code) control characters in its strings."""
    stack = [(value, pointer)]
    while stack:
        node, where = stack.pop()
        if text and isinstance(node, str):
            _plain_text(node, where, source)
        if isinstance(node, dict):
            for key, item in node.items():
                if text:
                    _plain_text(key, join_pointer(where, key), source)
                stack.append((item, join_pointer(where, key)))
        elif isinstance(node, list):
            stack.extend((v, join_pointer(where, i)) for i, v in enumerate(node))
        elif isinstance(node, int) and not isinstance(node, bool):
            if not WIRE_INT[0] <= node <= WIRE_INT[1]:
                raise SchemaError(
                    f"number {_show(node)} is outside 64 bits, which generated code cannot carry",
                    where,
                    source,
                )


# -- what every registered library can build (on the IR, for every target) -------------------

# Model libraries build a class's decoder by recursing into every class its fields name, so
# a long enough chain of definitions exhausts Python's recursion limit in the generated
# package (measured at the default limit of 1000: pydantic fails near 70 plain levels,
# msgspec near 1000). Each target states its limit (`target.Target.max_model_chain`:
# msgspec 256, pydantic 32); a chain longer than the smallest is refused on every target;
# the published schemas reach 11.


def strictest_chain(targets: Iterable[Target]) -> Target:
    """The target whose library builds the shortest chains (the first by name on a tie)."""
    return min(targets, key=lambda t: (t.max_model_chain, t.name))


def check_wire_names(module: ir.Module, targets: Iterable[Target]) -> None:
    """Refuse a property whose wire name holds characters some target's library cannot
    hold in a field's wire name, or is a name a target keeps for itself
    (`target.Target.wire_names`), on every target."""
    rules = sorted((t.name, t.wire_names) for t in targets if t.wire_names is not None)
    for node in module.defs:
        if not isinstance(node, ir.Struct):
            continue
        for field in node.fields:
            for name, rule in rules:
                if field.wire in rule.reserved:
                    raise SchemaError(
                        f"property name {field.wire!r} is the name under which the {name} "
                        "target keeps undeclared properties, so no target accepts it",
                        field.pointer,
                        module.source,
                    )
                if rule.refuses(field.wire):
                    raise SchemaError(
                        f"property name {field.wire!r} holds {rule.what}, which the {name} "
                        "target cannot use as a wire name, so no target accepts it",
                        field.pointer,
                        module.source,
                    )


def _names(expr: ir.TypeExpr) -> list[str]:
    """The definitions a type expression names, without recursion."""
    found: list[str] = []
    stack = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, ir.Ref):
            found.append(item.name)
        elif isinstance(item, ir.ListOf | ir.Nullable):
            stack.append(item.item if isinstance(item, ir.ListOf) else item.inner)
        elif isinstance(item, ir.MapOf):
            stack.append(item.value)
        elif isinstance(item, ir.UnionOf):
            stack.extend(item.members)
    return found


def _edges(node: ir.Def) -> list[str]:
    if isinstance(node, ir.Struct):
        return [n for f in node.fields for n in _names(f.type)]
    if isinstance(node, ir.TaggedUnion):
        return [v.target for v in node.variants] + [node.default_variant or ""]
    if isinstance(node, ir.Alias):
        return _names(node.target)
    if isinstance(node, ir.ShapeUnion):
        return [n for m in node.members for n in _names(m)]
    return []


def check_model_chains(module: ir.Module, target: Target) -> None:
    """Refuse definitions that name one another more levels deep than `target` builds
    (`strictest_chain` picks the target whose limit every target is held to).

    An iterative depth-first walk; a reference back into the walk (a recursive type)
    counts as nothing, since pydantic builds those through named references.
    """
    limit = target.max_model_chain
    edges = {d.name: [n for n in _edges(d) if module.find(n)] for d in module.defs}
    depth: dict[str, int] = {}
    for root in sorted(edges):
        stack: list[tuple[str, int]] = [(root, 0)]
        walking = {root}
        while stack:
            name, index = stack[-1]
            children = edges[name]
            if index < len(children):
                stack[-1] = (name, index + 1)
                child = children[index]
                if child not in depth and child not in walking:
                    walking.add(child)
                    stack.append((child, 0))
                continue
            stack.pop()
            walking.discard(name)
            own = 0 if isinstance(module.get(name), ir.Alias) else 1  # an alias is a plain name
            depth[name] = own + max((depth.get(c, 0) for c in children), default=0)
            if depth[name] > limit:
                raise SchemaError(
                    f"definitions name one another more than {limit} levels deep from here, "
                    f"which the {target.name} target cannot build (its library recurses once "
                    "per level), so no target accepts it",
                    module.get(name).pointer,
                    module.source,
                )


def number_bounds(args: dict[str, Any]) -> tuple[float | int | None, float | int | None]:
    """The inclusive bounds of a JSON number's int branch from bounds ``ge``/``gt`` and
    ``le``/``lt`` (at most one of each pair): greater than 2.5 is at least 3."""
    low, high = args.get("ge"), args.get("le")
    if args.get("gt") is not None:
        low = math.floor(args["gt"]) + 1
    if args.get("lt") is not None:
        high = math.ceil(args["lt"]) - 1
    return low, high


def int_bounds(
    low: float | int | None, high: float | int | None
) -> tuple[int | None, int | None] | None:
    """The bounds of a JSON number's int branch, as whole numbers inside int64 (what both
    libraries can check), or None when no int64 value lies between `low` and `high`.

    A bound at or past the end of int64 says nothing the library does not check already,
    so it is left out.
    """
    lo = None if low is None else math.ceil(low)
    hi = None if high is None else math.floor(high)
    if (lo is not None and lo > INT64[1]) or (hi is not None and hi < INT64[0]):
        return None
    if lo is not None and hi is not None and lo > hi:
        return None
    return (None if lo is None or lo <= INT64[0] else lo), (
        None if hi is None or hi >= INT64[1] else hi
    )
