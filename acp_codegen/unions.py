"""Build-stage helper for unions and enums (``anyOf``/``oneOf``/``enum``).

Decides, for one union node, whether it is an enum of consts (open when a
fallback without ``const`` is present), a tagged union (the tag is the
property whose ``const`` the members share, or the ``discriminator``), or an
untagged union told apart by shape, and builds the matching IR definition.
Stateless: every function takes the build's `Registry` and, to build a
variant's struct or body, the `Nodes` callbacks; it never imports `build`.
`scan_nested` records in the registry, before any def is built, which variant
bodies are unions themselves and which bodies a variant class absorbs. A
union's layout is worked out once per pointer and kept in the registry.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from . import idioms, ir, naming
from .errors import join_pointer
from .registry import Layout, Nodes, Registry, annotations_of, doc_of
from .typeexprs import check_keywords, constraints, type_expr


# -- layout -----------------------------------------------------------------------------
def union_layout(
    reg: Registry, schema: dict[str, Any], pointer: str, keyword: str, members: list[Any]
) -> Layout | None:
    """The union's layout, worked out the first time its pointer is asked about."""
    if pointer not in reg.layouts:
        reg.layouts[pointer] = _layout(reg, schema, pointer, keyword, members)
    return reg.layouts[pointer]


def _layout(
    reg: Registry, schema: dict[str, Any], pointer: str, keyword: str, members: list[Any]
) -> Layout | None:
    """Split members into tagged, fallback and default; None when untagged."""
    check_keywords(reg, schema, pointer)
    counts: Counter[str] = Counter()
    for member in members:
        counts.update(
            name for name, value in idioms.tag_candidates(member).items() if isinstance(value, str)
        )
    disc = schema.get("discriminator")
    tag = disc.get("propertyName") if isinstance(disc, dict) else None
    if not isinstance(tag, str):
        if not counts:
            return None
        tag = min(counts, key=lambda name: (-counts[name], name))
    tagged: list[tuple[int, dict[str, Any], str]] = []
    fallback: dict[str, Any] | None = None
    default: tuple[int, dict[str, Any]] | None = None
    null_tag: str | None = None
    seen: dict[str, str] = {}
    for index, member in enumerate(members):
        where = join_pointer(pointer, keyword, index)
        consts = idioms.tag_candidates(member)
        if idioms.is_null_tag_variant(member, tag):
            required = member.get("required")
            if isinstance(required, list) and tag in required:
                raise reg.error(
                    f"the variant for a null {tag!r} requires {tag!r}; it must take it absent too",
                    join_pointer(where, "required"),
                )
            if null_tag is not None:
                raise reg.error(f"variants {null_tag} and {where} both take a null {tag!r}", where)
            if default is not None:
                raise reg.error(
                    f"variant {where} takes a null {tag!r} beside the untagged default variant",
                    where,
                )
            null_tag = where
            default = (index, member)
        elif tag in consts:
            value = consts[tag]
            if not isinstance(value, str):
                raise reg.error(
                    f"tag {tag!r} const must be a string, not {value!r}",
                    join_pointer(where, "properties", tag, "const"),
                )
            if value in seen:
                raise reg.error(
                    f"tag value {value!r} is used by both {seen[value]} and {where}", where
                )
            seen[value] = where
            tagged.append((index, member, value))
        elif idioms.is_open_object_fallback(member, tag) and fallback is None:
            fallback = member
        elif idioms.is_default_variant(member, tag) and default is None:
            default = (index, member)
        else:
            raise reg.error(f"variant has no const {tag!r}", where)
    return Layout(tag, tuple(tagged), fallback, default, null_tag is not None)


def body_ref(reg: Registry, member: dict[str, Any], where: str, tag: str) -> tuple[str, Any] | None:
    """The single `$defs` body of a variant, when it has no other properties."""
    props = member.get("properties", {})
    if isinstance(props, dict) and set(props) - {tag}:
        return None
    refs = [p for p in member.get("allOf", []) if isinstance(p, dict) and "$ref" in p]
    if "$ref" in member:
        refs.append(member)
    if len(refs) != 1 or len(member.get("allOf", [])) > 1:
        return None
    return reg.ref_name(refs[0]["$ref"], join_pointer(where, "$ref"))


def scan_nested(reg: Registry, names: list[str]) -> None:
    """Before building: find variants whose body is itself a union, and bodies a
    variant class absorbs (used only there and already named for the tag)."""
    for def_name in names:
        schema = reg.loaded.defs[def_name]
        parts = idioms.union_members(schema) if isinstance(schema, dict) else None
        if not parts or idioms.enum_shape(parts[1]) is not None:
            continue
        pointer = join_pointer("/$defs", def_name)
        union_name = reg.class_names[def_name]
        layout = union_layout(reg, schema, pointer, *parts)
        if layout is None:
            continue
        for index, member, value in layout.tagged:
            where = join_pointer(pointer, parts[0], index)
            body = body_ref(reg, member, where, layout.tag)
            if body is None:
                continue
            body_name, body_schema = body
            if _is_union(body_schema):
                reg.nested_into.setdefault(body_name, []).append(
                    (layout.tag, value, where, def_name)
                )
                continue
            if _variant_name(reg, value, union_name, body_name) != naming.class_name(body_name):
                continue
            if reg.ref_counts[body_name] > 1:
                # Other definitions use the body too: the variant takes its name, and the
                # body keeps its fields under another (see `naming.fields_class_name`).
                reg.rename(body_name, naming.fields_class_name(body_name), where)
            else:
                reg.absorbed.add(body_name)


def _variant_name(reg: Registry, tag_value: str, union: str, body: str | None) -> str:
    own = None if body is None else naming.class_name(body)
    name = naming.variant_class_name(tag_value, union, own)
    if name in reg.def_classes and (body is None or name != reg.class_names[body]):
        # The derived name belongs to another definition (an inline `tool_call_update`
        # variant beside a `ToolCallUpdate` def): qualify it with the union instead.
        name = naming.class_name((naming.pascal(tag_value) or "Empty") + union)
    return name


# -- named unions ---------------------------------------------------------------------------
def union_def(
    reg: Registry,
    nodes: Nodes,
    name: str,
    schema: dict[str, Any],
    pointer: str,
    parts: tuple[str, list[Any]],
) -> ir.Def:
    keyword, members = parts
    doc = doc_of(schema)
    enum = idioms.enum_shape(members)
    if enum is not None:
        node = enum_def(reg, name, doc or "", pointer, keyword, *enum)
        return fallback_range(reg, node, members, join_pointer(pointer, keyword))
    layout = union_layout(reg, schema, pointer, keyword, members)
    if layout is None and "properties" in schema:
        return nodes.struct(name, schema, pointer)
    if layout is None:
        return shape_union(reg, nodes, name, doc or "", pointer, keyword, members)
    return tagged(reg, nodes, name, schema, doc or "", pointer, keyword, layout)


def tagged(
    reg: Registry,
    nodes: Nodes,
    name: str,
    schema: dict[str, Any],
    doc: str,
    pointer: str,
    keyword: str,
    layout: Layout,
) -> ir.TaggedUnion:
    base = {k: v for k, v in schema.items() if k in ("properties", "required")}
    fixed = _fixed_fields(reg, name, pointer)
    variants: list[ir.Variant] = []
    for index, member, value in layout.tagged:
        where = join_pointer(pointer, keyword, index)
        member_doc = doc_of(member)
        body = body_ref(reg, member, where, layout.tag)
        if body is not None and _is_union(body[1]) and not base:
            target = nodes.build_def(body[0])
            variants.append(
                ir.Variant(
                    value,
                    member_doc or "",
                    where,
                    target,
                    nested=True,
                    annotations=annotations_of(member),
                    handler=naming.handler_method(value),
                )
            )
            continue
        body_name = body[0] if body else None
        cls = _variant_name(reg, value, name, body_name)
        absorbed = body_name is not None and body_name in reg.absorbed
        body_doc = reg.loaded.defs[body_name].get("description") if body_name else None
        struct_doc = (
            body_doc
            if absorbed and isinstance(body_doc, str)
            else member_doc or (body_doc if isinstance(body_doc, str) else "")
        )
        if body_name and not absorbed:
            nodes.build_def(body_name)
        reg.claim(cls, where)
        struct = nodes.struct(
            cls,
            member,
            where,
            tag=ir.Tag(layout.tag, value),
            extra=base or None,
            doc=struct_doc,
            body=None if absorbed or body_name is None else reg.class_names[body_name],
            fixed=fixed,
        )
        reg.add(struct)
        variants.append(
            ir.Variant(
                value,
                member_doc or "",
                where,
                cls,
                annotations=annotations_of(member),
                handler=naming.handler_method(value),
            )
        )
    default_name = default_tag = None
    if layout.default is not None:
        index, member = layout.default
        where = join_pointer(pointer, keyword, index)
        title = member.get("title")
        default_tag = title if isinstance(title, str) else None
        body = body_ref(reg, member, where, layout.tag)
        if body is not None and not layout.null_tag:
            default_name = nodes.build_def(body[0])
        else:
            default_name = _variant_name(reg, default_tag or "default", name, None)
            if layout.null_tag:
                # The title names the class; no tag value implies it (the tag is null or
                # absent), and the union's own tag property lends it its leniency.
                default_tag = None
                member = _null_tag_member(member, base, layout.tag)
            reg.claim(default_name, where)
            struct = nodes.struct(default_name, member, where, extra=base or None, fixed=fixed)
            reg.add(struct)
    unknown = naming.unknown_class_name(name)
    if unknown in reg.owners or unknown in reg.class_names.values():
        # A real variant or def already owns Unknown<Union> (e.g. an "unknown" state):
        # the fallback takes its own title instead ("other" -> OtherStateUpdate).
        title = (layout.fallback or {}).get("title")
        unknown = naming.class_name(
            naming.pascal(title if isinstance(title, str) else "other") + name
        )
    reserved: tuple[str, ...] = ()
    typed_fallback = False
    if layout.fallback is not None:
        reserved = idioms.reserved_tags(layout.fallback, layout.tag)
        own = layout.fallback.get("properties")
        if not base and not (isinstance(own, dict) and set(own) - {layout.tag}):
            reg.claim(unknown, pointer)
        else:
            # The union (or its fallback) declares properties beside the tag: an unknown tag
            # still carries them, so its members are read as a struct holding them and the
            # tag, not as raw JSON.
            typed_fallback = True
            where = join_pointer(pointer, keyword, _index_of(layout.fallback, schema, keyword))
            struct = nodes.struct(unknown, layout.fallback, where, extra=base, fixed=fixed)
            # The tag first, where the other members write theirs.
            first = [f for f in struct.fields if f.fixed or f.wire == layout.tag]
            rest = [f for f in struct.fields if f not in first]
            reg.add(dataclasses.replace(struct, fields=(*first, *rest)))
    table = naming.variants_table_name(name)
    reg.claim(table, pointer)
    return ir.TaggedUnion(
        name,
        doc,
        pointer,
        layout.tag,
        tuple(variants),
        open=layout.fallback is not None,
        unknown_name=unknown,
        table_name=table,
        default_variant=default_name,
        default_tag=default_tag,
        null_tag=layout.null_tag,
        typed_fallback=typed_fallback,
        reserved=reserved,
        annotations=annotations_of(schema),
    )


def _null_tag_member(member: dict[str, Any], base: dict[str, Any], tag: str) -> dict[str, Any]:
    """The null-tag member with the leniency of the union's own tag property, if any."""
    own = (base.get("properties") or {}).get(tag)
    flag = "x-deserialize-default-on-error"
    if not isinstance(own, dict) or own.get(flag) is not True:
        return member
    props = dict(member["properties"])
    props[tag] = {**props[tag], flag: True}
    return {**member, "properties": props}


def _index_of(member: dict[str, Any], schema: dict[str, Any], keyword: str) -> int:
    return next(i for i, m in enumerate(schema[keyword]) if m is member)


def _fixed_fields(reg: Registry, name: str, pointer: str) -> tuple[ir.Field, ...]:
    """Outer tags carried by the variants of a union nested in another union, and in the
    unions that one is nested in (``state_update`` > ``idle`` > ``end_turn``)."""
    def_name = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    by_field: dict[str, list[tuple[str, str]]] = {}
    pending, visited = [def_name], {def_name}
    while pending:
        for tag_field, value, where, outer in reg.nested_into.get(pending.pop(), []):
            by_field.setdefault(tag_field, []).append((value, where))
            if outer not in visited:
                visited.add(outer)
                pending.append(outer)
    return tuple(
        ir.Field(
            attr=naming.attribute(tag_field),
            wire=tag_field,
            type=ir.LiteralOf(tuple(v for v, _ in entries)),
            required=False,
            doc="",
            pointer=entries[0][1],
            fixed=tag_field,
        )
        for tag_field, entries in sorted(by_field.items())
    )


def enum_def(
    reg: Registry,
    name: str,
    doc: str,
    pointer: str,
    keyword: str,
    base: str,
    consts: list[dict[str, Any]],
    is_open: bool,
) -> ir.Enum:
    values: list[ir.EnumValue] = []
    seen: dict[str, str] = {}
    for member in consts:
        value = member["const"]
        title = member.get("title")
        label = title if base == "int" and isinstance(title, str) else str(value)
        const_name = naming.constant(label)
        if const_name in seen:
            raise reg.error(
                f"enum values {seen[const_name]!r} and {value!r} both map to "
                f"constant {const_name!r}",
                pointer,
            )
        seen[const_name] = str(value)
        member_doc = member.get("description")
        values.append(
            ir.EnumValue(value, const_name, member_doc if isinstance(member_doc, str) else "")
        )
    fmt = next((m.get("format") for m in consts if isinstance(m.get("format"), str)), None)
    return ir.Enum(
        name, doc, pointer, "int" if base == "int" else "str", tuple(values), is_open, fmt
    )


def fallback_range(reg: Registry, node: ir.Enum, members: list[Any], pointer: str) -> ir.Enum:
    """`node` with the range its open fallback gives the values it does not list: an
    integer fallback's ``format`` and bounds are enforced there; a string fallback keeps
    every string, so a keyword that would constrain it is refused."""
    for index, member in enumerate(members):
        if not node.open or "const" in member:
            continue
        where = join_pointer(pointer, index)
        fmt = member.get("format")
        kind: ir.PrimKind = "int" if node.base == "int" else "str"
        prim = ir.Prim(kind, fmt if isinstance(fmt, str) else None, constraints(reg, member, where))
        kept = (prim.constraints.multiple_of, prim.constraints.min_length,
                prim.constraints.max_length, prim.constraints.pattern)  # fmt: skip
        if any(v is not None for v in kept):
            raise reg.error(
                "an open enum keeps every value it does not list as it is, so a length, "
                "pattern or multipleOf on its fallback would never be checked",
                where,
            )
        if kind == "int":
            return dataclasses.replace(node, bounds=prim.value_range())
    return node


def closed_enum(
    reg: Registry, nodes: Nodes, name: str, schema: dict[str, Any], pointer: str
) -> ir.Def:
    values = schema["enum"]
    doc = doc_of(schema)
    if values and all(isinstance(v, str) for v in values):
        consts = [{"const": v} for v in values]
        return enum_def(
            reg, name, doc or "", join_pointer(pointer, "enum"), "enum", "str", consts, False
        )
    return ir.Alias(name, doc or "", pointer, type_expr(reg, nodes, schema, pointer, name))


def shape_union(
    reg: Registry, nodes: Nodes, name: str, doc: str, pointer: str, keyword: str, members: list[Any]
) -> ir.Def:
    exprs: list[ir.TypeExpr] = []
    titles: list[str] = []
    nullable = False
    for index, member in enumerate(members):
        where = join_pointer(pointer, keyword, index)
        if idioms.is_null_schema(member):
            nullable = True
            continue
        title = member.get("title") if isinstance(member, dict) else None
        label = title if isinstance(title, str) else str(index)
        exprs.append(type_expr(reg, nodes, member, where, name + naming.pascal(label)))
        titles.append(label)
    if nullable:
        exprs.append(ir.Prim("null"))
        titles.append("null")
    return ir.ShapeUnion(name, doc, pointer, tuple(exprs), tuple(titles))


# -- inline unions --------------------------------------------------------------------------
def inline_union(
    reg: Registry,
    nodes: Nodes,
    schema: dict[str, Any],
    pointer: str,
    context: str,
    parts: tuple[str, list[Any]],
) -> ir.TypeExpr:
    keyword, members = parts
    enum = idioms.enum_shape(members)
    if enum is not None and not enum[2]:
        return ir.LiteralOf(tuple(m["const"] for m in enum[1]))
    if enum is not None or union_layout(reg, schema, pointer, keyword, members) is not None:
        name = reg.inline_name(context, pointer)
        if name not in reg.defs:
            node = union_def(reg, nodes, name, schema, pointer, parts)
            reg.add(node)
        return ir.Ref(name)
    exprs = []
    for index, member in enumerate(members):
        exprs.append(
            type_expr(
                reg, nodes, member, join_pointer(pointer, keyword, index), context + str(index)
            )
        )
    return ir.UnionOf(tuple(exprs))


def _is_union(schema: Any) -> bool:
    """True when a def builds as a union: an object with its own properties and an
    untagged ``anyOf`` is a struct whose alternatives are merged in instead."""
    if not isinstance(schema, dict):
        return False
    parts = idioms.union_members(schema)
    if not parts or (len(parts[1]) < 2 and not any(idioms.tag_candidates(m) for m in parts[1])):
        return False
    if idioms.enum_shape(parts[1]) is not None or any(idioms.is_null_schema(m) for m in parts[1]):
        return False
    return "properties" not in schema or any(idioms.tag_candidates(m) for m in parts[1])
