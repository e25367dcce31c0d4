"""Build-stage check: every JSON Schema keyword is enforced, merely describes, or is refused.

Runs over the selected definitions before any IR is built (`build.build`), on every
schema position (`limits.schema_nodes`), so a keyword is judged wherever it sits, even
where the build would not look. A keyword belongs to one of these groups
(docs/compatibility.md has the table):

- read by the build (`STRUCTURE`) or enforced by every target's generated code
  (`ENFORCED`, carried in `ir.Constraints`);
- annotations, which say nothing about which values are valid (`ANNOTATIONS`, and a
  ``format`` the generator knows, see `KNOWN_FORMATS`);
- keywords that would change a value's shape, which no target models (`SHAPE`): always
  refused;
- validation that no target enforces (`UNENFORCED`, an unknown ``format``, ``required``
  naming a property that is not declared, the schema ``false``): refused too, unless
  the job allows that keyword (``--allow-unenforced KEYWORD``), in which case each
  occurrence is listed in `Unenforced.found`, warned about and recorded in the package.

An enforced keyword must also sit where the build reads it (`placed`): on a schema whose
``type`` includes a type it constrains (`APPLIES_TO`), or, without a ``type``, on one the
build reads as that type; never beside a ``$ref``, ``allOf``, ``anyOf`` or ``oneOf``, which
the build reads alone; beside a ``const`` or ``enum`` only when every constant meets it.
And its bounds must leave some value (`empty_bounds`). Both are always refused, whatever
the job allows: such a keyword is a mistake in the schema, not validation a target lacks.

Keys outside the JSON Schema vocabulary (``x-*`` extensions, OpenAPI's ``discriminator``)
are not keywords and pass, as JSON Schema has them pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import ir, patterns
from .errors import SchemaError, join_pointer
from .limits import declared_types, is_number, schema_nodes, whole

STRUCTURE = frozenset(
    {"$schema", "$defs", "$ref", "type", "properties", "required", "items", "allOf", "anyOf",
     "oneOf", "not", "const", "enum", "additionalProperties", "unevaluatedProperties"}
)  # fmt: skip
#: Checked by the generated code of every target, on the types JSON Schema applies them to.
ENFORCED = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "minItems", "maxItems", "format"}
)  # fmt: skip
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly", "contentEncoding", "contentMediaType"}
)  # fmt: skip
#: Keywords that change the shape of a value, which no target models: always refused.
SHAPE = (
    "prefixItems", "if", "then", "else", "dependentSchemas", "patternProperties", "$dynamicRef",
    "$dynamicAnchor", "contains", "minContains", "maxContains", "propertyNames",
    "unevaluatedItems", "additionalItems", "dependencies", "contentSchema", "$id", "$anchor",
    "$recursiveRef", "$recursiveAnchor", "$vocabulary",
)  # fmt: skip
#: Validation keywords no target enforces; ``--allow-unenforced`` may let them through.
UNENFORCED = ("maxProperties", "minProperties", "uniqueItems", "dependentRequired")
#: What ``--allow-unenforced`` may name: those keywords, an unknown ``format``,
#: ``multipleOf`` on a ``number`` (the libraries round floats differently), ``required``
#: naming an undeclared property, and the schema ``false``.
ALLOWABLE = (*UNENFORCED, "format", "multipleOf", "required", "false")
#: ``format`` values the generator knows: the integer widths it enforces as bounds
#: (`ir.INT_FORMAT_BITS`) and the formats of JSON Schema 2020-12 and OpenAPI, which are
#: annotations (JSON Schema asserts no format by default).
KNOWN_FORMATS = frozenset(ir.INT_FORMAT_BITS) | frozenset(
    {"float", "double", "byte", "binary", "password", "date-time", "date", "time", "duration",
     "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference",
     "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer",
     "regex"}
)  # fmt: skip
#: The JSON types each validation keyword constrains (JSON Schema 2020-12: on a value of
#: any other type the keyword holds); an integer ``format`` constrains only integers.
APPLIES_TO = {
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
        ("integer", "number"),
    ),
    **dict.fromkeys(("minLength", "maxLength", "pattern"), ("string",)),
    **dict.fromkeys(("minItems", "maxItems", "items"), ("array",)),
    **dict.fromkeys(
        ("properties", "required", "additionalProperties", "unevaluatedProperties"), ("object",)
    ),
}
#: What the build reads on its own, passing over the validation keywords beside it (an
#: object's ``properties`` and ``required`` beside one are merged into its fields).
COMPOSITIONS = ("$ref", "allOf", "anyOf", "oneOf")


@dataclass
class Unenforced:
    """Refuses validation no target enforces, or, for a keyword the job allows, notes it."""

    allowed: frozenset[str]
    source: str
    #: ``(keyword, pointer)`` of every occurrence let through, in the order found.
    found: list[tuple[str, str]] = field(default_factory=list)

    def meet(self, keyword: str, what: str, pointer: str) -> None:
        """`what` (at `pointer`) is not enforced: refuse it unless `keyword` is allowed."""
        if keyword not in self.allowed:
            raise SchemaError(
                f"{what}, which no target enforces; pass --allow-unenforced {keyword} to "
                "generate without it",
                pointer,
                self.source,
            )
        self.found.append((keyword, pointer))


def check(defs: dict[str, Any], names: Iterable[str], unenforced: Unenforced) -> None:
    """Refuse the first shape keyword, and meet every unenforced one, under `names`."""
    for node, pointer in schema_nodes(defs, names):
        if node is False:
            unenforced.meet("false", "the schema false (no value is valid here)", pointer)
        if not isinstance(node, dict):
            continue
        for key in SHAPE:
            if key in node:
                raise SchemaError(
                    f"unsupported keyword {key!r}", join_pointer(pointer, key), unenforced.source
                )
        for key in UNENFORCED:
            if key in node and not _says_nothing(key, node[key]):
                unenforced.meet(key, f"keyword {key!r}", join_pointer(pointer, key))
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in KNOWN_FORMATS:
            where = join_pointer(pointer, "format")
            unenforced.meet("format", f"unknown format {fmt!r}", where)
        if "multipleOf" in node and "number" in declared_types(node):
            where = join_pointer(pointer, "multipleOf")
            unenforced.meet("multipleOf", "multipleOf on a number", where)
        if _map(node):  # (a struct's required names are checked as it is built)
            for index, name in enumerate(node["required"]):
                what = f"required names {name!r}, which is not a declared property"
                unenforced.meet("required", what, join_pointer(pointer, "required", index))
        placed(node, pointer, unenforced.source)
        empty_bounds(node, pointer, unenforced.source)


def _says_nothing(key: str, value: Any) -> bool:
    """Values of the unenforced keywords that every value meets anyway."""
    if key == "uniqueItems":
        return value is False
    if key == "minProperties":
        return value == 0 and not isinstance(value, bool)
    return key == "dependentRequired" and value == {}


def _map(node: dict[str, Any]) -> bool:
    """An object read as a map (its values all of one schema) that names required keys."""
    required = node.get("required")
    return (
        isinstance(required, list)
        and bool(required)
        and isinstance(node.get("additionalProperties"), dict)
        and not {"properties", "allOf", "$ref", "anyOf", "oneOf"} & set(node)
    )


def _validation(node: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """The validation keywords of a node, with the types each constrains, but for the two
    that say nothing and that the build passes over wherever they sit (``required: []``
    and ``additionalProperties: true``, or ``unevaluatedProperties``)."""
    found = [(key, types) for key, types in APPLIES_TO.items() if key in node]
    found = [
        (k, t) for k, t in found if node[k] != [] and not (t == ("object",) and node[k] is True)
    ]
    if node.get("format") in ir.INT_FORMAT_BITS:
        found.append(("format", ("integer",)))
    return found


def _name(key: str, node: dict[str, Any]) -> str:
    return f"format {node[key]!r}" if key == "format" else f"keyword {key!r}"


def _plural(types: tuple[str, ...]) -> str:
    return " and ".join(f"{t}s" for t in types)


def placed(node: dict[str, Any], pointer: str, source: str) -> None:
    """Refuse a validation keyword that the generated code would pass over: one on a type
    it does not constrain, one the build does not read, one no constant beside it meets."""
    types = declared_types(node) if isinstance(node.get("type"), str | list) else None
    composed = next((k for k in COMPOSITIONS if k in node), None)
    for key, applies in _validation(node):
        what, where = _name(key, node), join_pointer(pointer, key)
        structural = applies == ("object",)
        if types is not None and key == "format" and "number" in types:
            raise SchemaError(
                f"{what} constrains only integers, and type {node['type']!r} holds other "
                "numbers too, which the generated code would not check against it",
                where,
                source,
            )
        if types is not None and not types & set(applies):
            raise SchemaError(
                f"{what} constrains only {_plural(applies)}, and type {node['type']!r} holds "
                "none, so it would never be checked",
                where,
                source,
            )
        if composed is not None and not (structural and _fields(node)):
            raise SchemaError(
                f"{what} beside {composed!r} would never be checked: the generated code "
                f"reads the {composed} alone",
                where,
                source,
            )
        if "const" in node or "enum" in node:
            _constants_meet(node, key, what, where, source)
            continue
        if types is None and not _read_as(node, applies):
            raise SchemaError(
                f"{what} constrains only {_plural(applies)}, and this schema has no type "
                f"saying it holds them, so it would never be checked (add type {applies[0]!r})",
                where,
                source,
            )


def _read_as(node: dict[str, Any], applies: tuple[str, ...]) -> bool:
    """Whether the build reads a node without a ``type`` as one of `applies`: an array
    when it has ``items``, an object when it has fields (`_fields`)."""
    if applies == ("array",):
        return "items" in node
    return applies == ("object",) and _fields(node)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _fields(node: dict[str, Any]) -> bool:
    """Whether the build reads a node as an object with fields, whose ``required`` it
    checks: one with ``properties``, or an ``allOf`` that is more than a ``$ref`` wrapper
    (which the build reads as the definition it names)."""
    parts = node.get("allOf")
    wrapper = isinstance(parts, list) and len(parts) == 1 and "$ref" in _dict(parts[0])
    return "properties" in node or (isinstance(parts, list) and not wrapper)


def _constants_meet(node: dict[str, Any], key: str, what: str, where: str, source: str) -> None:
    """Refuse `key` when a constant of the node breaks it: the package would take that
    constant, which the schema refuses."""
    values = [node["const"]] if "const" in node else node["enum"]
    for value in values if isinstance(values, list) else []:
        if _breaks(node, key, value, where, source):
            raise SchemaError(
                f"the constant {value!r} breaks {what}, so the package would take a value "
                "the schema refuses",
                where,
                source,
            )


def _breaks(node: dict[str, Any], key: str, value: Any, where: str, source: str) -> bool:
    """Whether one constant breaks `key` (a constant of a type `key` does not constrain
    meets it)."""
    bound = node[key]
    if isinstance(value, str) and key in ("minLength", "maxLength", "pattern"):
        if key == "pattern":
            return re.search(patterns.check(bound, where, source), value) is None
        return is_number(bound) and (
            len(value) < bound if key == "minLength" else len(value) > bound
        )
    if not is_number(value) or (key != "format" and not is_number(bound)):
        return False
    if key == "format":
        low, high = ir.Prim("int", bound).value_range()
        return whole(value) is None or not low <= value <= high
    broken: dict[str, bool] = {
        "minimum": value < bound,
        "maximum": value > bound,
        "exclusiveMinimum": value <= bound,
        "exclusiveMaximum": value >= bound,
        "multipleOf": bound > 0 and value % bound != 0,
    }
    return broken[key]


def empty_bounds(node: dict[str, Any], pointer: str, source: str) -> None:
    """Refuse bounds that leave no value: a minimum length above the maximum, a lower bound
    above the upper one (an integer ``format`` counts as bounds; exclusive bounds leave
    nothing when they meet), or no multiple of ``multipleOf`` between an integer's bounds."""
    for low, high in (("minLength", "maxLength"), ("minItems", "maxItems")):
        if is_number(node.get(low)) and is_number(node.get(high)) and node[low] > node[high]:
            raise SchemaError(
                f"{low} {node[low]!r} is above {high} {node[high]!r}, so no value is valid there",
                join_pointer(pointer, low),
                source,
            )
    types = declared_types(node)
    if not types & {"integer", "number"} or "const" in node or "enum" in node:
        return
    integer = "number" not in types
    lows, highs = _bounds(node, integer)
    if not lows or not highs:
        return
    # The strictest bound of each side; on a tie the exclusive one (only numbers keep one).
    low_value, low_key = max(lows, key=lambda b: (b[0], b[1].startswith("exclusive")))
    high_value, high_key = min(highs, key=lambda b: (b[0], not b[1].startswith("exclusive")))
    touching = not integer and low_value == high_value and "exclusive" in low_key + high_key
    what = f"{_bound_text(node, low_key)} and {_bound_text(node, high_key)}"
    step = whole(node["multipleOf"]) if is_number(node.get("multipleOf")) else None
    if low_value > high_value or touching:
        gap = f"{what} leave no {'integer' if integer else 'number'} between them"
    elif integer and step and -(-low_value // step) * step > high_value:
        gap = f"{what} leave no multiple of {step} between them"
    else:
        return
    named = low_key if low_key != "format" else high_key
    raise SchemaError(gap, join_pointer(pointer, named), source)


def _bounds(node: dict[str, Any], integer: bool) -> tuple[list[tuple[Any, str]], ...]:
    """``(value, keyword)`` of each lower and each upper bound. On an integer an exclusive
    bound is the inclusive one next to it, and an integer ``format`` adds its range."""
    lows: list[tuple[Any, str]] = []
    highs: list[tuple[Any, str]] = []
    for key, side, step in (("minimum", lows, 0), ("exclusiveMinimum", lows, 1),
                            ("maximum", highs, 0), ("exclusiveMaximum", highs, -1)):  # fmt: skip
        if is_number(node.get(key)):  # (on an integer, `limits` made sure it is whole)
            value = node[key]
            side.append((whole(value) + step, key) if integer else (value, key))  # type: ignore[operator]
    if integer and node.get("format") in ir.INT_FORMAT_BITS:
        low, high = ir.Prim("int", node["format"]).value_range()
        lows.append((low, "format"))
        highs.append((high, "format"))
    return lows, highs


def _bound_text(node: dict[str, Any], key: str) -> str:
    if key == "format":
        low, high = ir.Prim("int", node["format"]).value_range()
        return f"format {node['format']!r} ({low} to {high})"
    return f"{key} {node[key]!r}"
