"""Schema idioms: recognise what a raw schema node *means*.

Used only by the build stage. Each function looks at one raw schema dict and
answers a question about it (is it a nullable wrapper, an open fallback, a
tagged union, an enum?) without building IR, so the idioms listed in
DIALECT.md are interpreted in exactly one place.
"""

from __future__ import annotations

from typing import Any

#: Keywords that only document a schema; a node with nothing else means any JSON.
DOC_KEYWORDS = frozenset({"description", "title", "default", "$schema", "examples", "$comment"})
UNION_KEYWORDS = ("anyOf", "oneOf")


def union_members(schema: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """Return ``(keyword, members)`` for an ``anyOf``/``oneOf`` node."""
    for keyword in UNION_KEYWORDS:
        members = schema.get(keyword)
        if isinstance(members, list):
            return keyword, members
    return None


def is_null_schema(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") == "null"
        and len([k for k in schema if k not in DOC_KEYWORDS]) == 1
    )


def is_any_schema(schema: Any) -> bool:
    """True for `true`, `{}` and schemas that carry only documentation or x- keys."""
    if schema is True:
        return True
    return isinstance(schema, dict) and all(k in DOC_KEYWORDS or k.startswith("x-") for k in schema)


def const_of(schema: Any) -> tuple[bool, Any]:
    """``(True, value)`` when the schema pins a single value with ``const``."""
    if isinstance(schema, dict) and "const" in schema:
        return True, schema["const"]
    return False, None


def tag_candidates(member: Any) -> dict[str, Any]:
    """Property names of an object member that hold a ``const``, with the constant."""
    if not isinstance(member, dict):
        return {}
    props = member.get("properties")
    if not isinstance(props, dict):
        return {}
    return {
        name: sub["const"]
        for name, sub in props.items()
        if isinstance(sub, dict) and "const" in sub
    }


def is_open_object_fallback(member: Any, tag: str) -> bool:
    """The "other" variant: the tag property is present but has no const."""
    if not isinstance(member, dict) or "const" in member:
        return False
    props = member.get("properties")
    if isinstance(props, dict) and tag in props:
        sub = props[tag]
        return isinstance(sub, dict) and "const" not in sub and "enum" not in sub
    return "not" in member


def is_null_tag_variant(member: Any, tag: str) -> bool:
    """The member taken when the tag is null or absent: its tag property is ``type: null``."""
    if not isinstance(member, dict):
        return False
    props = member.get("properties")
    return isinstance(props, dict) and is_null_schema(props.get(tag))


def reserved_tags(member: dict[str, Any], tag: str) -> tuple[str, ...]:
    """The tags an open fallback's ``not`` excludes, in schema order."""
    negated = member.get("not")
    found: list[str] = []
    if isinstance(negated, dict):
        parts = union_members(negated)
        for sub in parts[1] if parts else [negated]:
            consts = tag_candidates(sub)
            if tag in consts and isinstance(consts[tag], str):
                found.append(consts[tag])
    return tuple(found)


def is_default_variant(member: Any, tag: str) -> bool:
    """An untagged default variant: used when the tag is absent on the wire.

    Written ``{title?, allOf: [{$ref}]}`` or as an inline object without the tag;
    the title, when present, is the implied tag. A union has at most one.
    """
    if not isinstance(member, dict) or "not" in member or "const" in member:
        return False
    props = member.get("properties")
    if isinstance(props, dict) and tag in props:
        return False
    if default_variant_ref(member) is not None:
        return True
    return isinstance(props, dict)


def default_variant_ref(member: Any) -> str | None:
    """The ``$ref`` of an untagged default variant ``{title, allOf: [{$ref}]}``."""
    if not isinstance(member, dict) or "properties" in member:
        return None
    parts = member.get("allOf")
    if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict):
        ref = parts[0].get("$ref")
        return ref if isinstance(ref, str) else None
    ref = member.get("$ref")
    return ref if isinstance(ref, str) else None


def enum_shape(members: list[Any]) -> tuple[str, list[dict[str, Any]], bool] | None:
    """Recognise an enum written as a union of consts.

    Returns ``(base, const_members, open)`` where base is ``"str"`` or ``"int"``,
    or None when the members are not all scalar consts of one kind (plus at most
    one fallback of the same type with no const).
    """
    consts: list[dict[str, Any]] = []
    fallbacks = 0
    base: str | None = None
    for member in members:
        if not isinstance(member, dict):
            return None
        has, value = const_of(member)
        kind = _scalar_kind(value) if has else _declared_scalar(member)
        if kind is None or (base is not None and kind != base):
            return None
        base = kind
        if has:
            consts.append(member)
        elif "properties" in member or "not" in member or "$ref" in member:
            return None
        else:
            fallbacks += 1
    if base is None or not consts or fallbacks > 1:
        return None
    return base, consts, fallbacks == 1


def _scalar_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return "str"
    if isinstance(value, int):
        return "int"
    return None


def _declared_scalar(member: dict[str, Any]) -> str | None:
    declared = member.get("type")
    return {"string": "str", "integer": "int"}.get(declared) if isinstance(declared, str) else None


def nullable_split(schema: dict[str, Any]) -> tuple[Any, bool]:
    """Strip the two nullable idioms; returns ``(inner_schema, nullable)``.

    ``type: [T, "null"]`` becomes the same schema with ``type: T``;
    ``anyOf: [X, {type: null}]`` becomes ``X``. Other schemas pass through.
    """
    declared = schema.get("type")
    if isinstance(declared, list) and "null" in declared:
        rest = [t for t in declared if t != "null"]
        inner = dict(schema)
        if len(rest) == 1:
            inner["type"] = rest[0]
        elif rest:
            inner["type"] = rest
        else:
            return {"type": "null"}, False
        return inner, True
    parts = union_members(schema)
    if parts:
        keyword, members = parts
        non_null = [m for m in members if not is_null_schema(m)]
        if len(non_null) < len(members) and non_null:
            inner = {k: v for k, v in schema.items() if k != keyword}
            if len(non_null) == 1 and not (set(inner) - DOC_KEYWORDS):
                sub = non_null[0]
                if isinstance(sub, dict) and "description" not in sub and "description" in inner:
                    sub = {**sub, "description": inner["description"]}
                return sub, True
            inner[keyword] = non_null
            return inner, True
    return schema, False
