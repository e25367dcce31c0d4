"""Build-stage helper: the IR type of a schema in a property or item position.

Stateless: every function takes the build's `Registry` (names and definitions
so far) and, where it must recurse into a new node, the `Nodes` callbacks.
Turns a property's schema into an `ir.TypeExpr`: refs, the two nullable
spellings, inline unions (through ``nodes.inline_union``), consts and enums,
arrays, maps, inline objects (which become named structs) and scalars with
their formats and constraints (a pattern is translated by `patterns.check`). Which
keywords are read at all is `keywords`'s to say, before the build.
"""

from __future__ import annotations

from typing import Any, cast

from . import idioms, ir, limits, patterns
from .errors import join_pointer
from .registry import Nodes, Registry


def type_expr(reg: Registry, nodes: Nodes, schema: Any, pointer: str, context: str) -> ir.TypeExpr:
    """The type of a schema in a property or item position."""
    if idioms.is_any_schema(schema) or schema is True:
        return ir.Prim("any")
    if not isinstance(schema, dict):
        raise reg.error("expected a schema object", pointer)
    check_keywords(reg, schema, pointer)
    inner, nullable = idioms.nullable_split(schema)
    if nullable:
        expr = type_expr(reg, nodes, inner, pointer, context)
        return (
            expr if isinstance(expr, ir.Nullable) or expr == ir.Prim("any") else ir.Nullable(expr)
        )
    if "$ref" in schema and "properties" not in schema:
        name, _ = reg.ref_name(schema["$ref"], join_pointer(pointer, "$ref"))
        return ir.Ref(reg.class_names[name])
    allof = schema.get("allOf")
    if (
        isinstance(allof, list)
        and len(allof) == 1
        and isinstance(allof[0], dict)
        and "$ref" in allof[0]
        and "properties" not in schema
    ):
        name, _ = reg.ref_name(allof[0]["$ref"], join_pointer(pointer, "allOf", 0, "$ref"))
        return ir.Ref(reg.class_names[name])
    parts = idioms.union_members(schema)
    if parts:
        return nodes.inline_union(schema, pointer, context, parts)
    has_const, value = idioms.const_of(schema)
    if has_const:
        return _literal(reg, [value], pointer)
    if isinstance(schema.get("enum"), list):
        return _literal(reg, schema["enum"], join_pointer(pointer, "enum"))
    declared = schema.get("type")
    if isinstance(declared, list):
        return ir.UnionOf(
            tuple(type_expr(reg, nodes, {**schema, "type": t}, pointer, context) for t in declared)
        )
    if declared == "array" or "items" in schema:
        items = schema.get("items", True)
        return ir.ListOf(
            type_expr(reg, nodes, items, join_pointer(pointer, "items"), context + "Item"),
            constraints(reg, schema, pointer),
        )
    if declared == "object" or "properties" in schema or "allOf" in schema:
        extra = schema.get("additionalProperties")
        if "properties" in schema or "allOf" in schema:
            name = reg.inline_name(context, pointer)
            if name not in reg.defs:
                reg.claim(name, pointer)
                reg.add(nodes.struct(name, schema, pointer))
            return ir.Ref(name)
        if isinstance(extra, dict):
            return ir.MapOf(
                type_expr(
                    reg,
                    nodes,
                    extra,
                    join_pointer(pointer, "additionalProperties"),
                    context + "Value",
                )
            )
        required = schema.get("required")
        for index, key in enumerate(required if isinstance(required, list) else []):
            # (an object without properties keeps any key: nothing checks these)
            what = f"required names {key!r}, which is not a declared property"
            nodes.unenforced.meet("required", what, join_pointer(pointer, "required", index))
        return ir.MapOf(ir.Prim("any"))
    kind = {
        "string": "str",
        "integer": "int",
        "number": "float",
        "boolean": "bool",
        "null": "null",
    }.get(declared if isinstance(declared, str) else "")
    if kind is None:
        if declared is None:
            return ir.Prim("any")
        raise reg.error(f"unsupported type {declared!r}", join_pointer(pointer, "type"))
    fmt = schema.get("format")
    enc = schema.get("contentEncoding")
    return ir.Prim(
        cast(ir.PrimKind, kind),
        fmt if isinstance(fmt, str) else None,
        constraints(reg, schema, pointer),
        enc if isinstance(enc, str) else None,
    )


def _literal(reg: Registry, values: list[Any], pointer: str) -> ir.TypeExpr:
    if not values:
        raise reg.error("enum must not be empty", pointer)
    out: list[str | int | bool] = []
    has_null = False
    for value in values:
        if value is None:
            has_null = True
        elif isinstance(value, str | int | bool) and not isinstance(value, float):
            out.append(value)
        else:
            raise reg.error(f"unsupported constant {value!r}", pointer)
    expr = ir.LiteralOf(tuple(out))
    return ir.Nullable(expr) if has_null and out else (ir.Prim("null") if has_null else expr)


#: Validation keyword -> its `ir.Constraints` attribute.
_CONSTRAINTS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "multipleOf": "multiple_of",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "pattern": "pattern",
}


def constraints(reg: Registry, schema: dict[str, Any], pointer: str) -> ir.Constraints:
    values: dict[str, Any] = {}
    integer = "integer" in limits.declared_types(schema)
    for key, attr in _CONSTRAINTS.items():
        if key not in schema:
            continue
        value = schema[key]
        where = join_pointer(pointer, key)
        if key == "pattern":
            if not isinstance(value, str):
                raise reg.error(f"{key} has an invalid value {value!r}", where)
            values["pattern"], values["regex"] = value, patterns.check(value, where, reg.source)
            continue
        if not limits.is_number(value):
            raise reg.error(f"{key} has an invalid value {value!r}", where)
        integral = key in limits.LENGTHS or integer  # (`limits` made sure they are whole)
        values[attr] = limits.whole(value) if integral else value
    if not integer:
        values.pop("multiple_of", None)  # (refused or allowed unenforced by `keywords`)
    _one_bound_a_side(values, integer)
    return ir.Constraints(**values)


def _one_bound_a_side(values: dict[str, Any], integer: bool) -> None:
    """Keep one bound on each side: on an integer an exclusive bound becomes the inclusive
    one next to it; on a number the stricter of the two stays (the exclusive one on a tie)."""
    for inclusive, exclusive, step in (("minimum", "exclusive_minimum", 1),
                                       ("maximum", "exclusive_maximum", -1)):  # fmt: skip
        if exclusive not in values:
            continue
        if integer:
            bound = values.pop(exclusive) + step
            keep = max if step > 0 else min
            values[inclusive] = keep(values.get(inclusive, bound), bound)
        elif inclusive in values:
            inc, exc = values[inclusive], values[exclusive]
            exclusive_wins = exc >= inc if step > 0 else exc <= inc
            del values[inclusive if exclusive_wins else exclusive]


def check_keywords(reg: Registry, schema: dict[str, Any], pointer: str) -> None:
    """Refuse what this node's shape leaves ambiguous (keywords that change a value's
    shape were refused before the build, by `keywords.check`)."""
    if all(isinstance(schema.get(k), list) for k in idioms.UNION_KEYWORDS):
        # Only one union per node is read; the other would be silently ignored.
        raise reg.error(
            "unsupported construct: both anyOf and oneOf on one schema "
            "(a value matching one member of each union)",
            pointer,
        )
