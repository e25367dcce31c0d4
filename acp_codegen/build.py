"""Stage 2, build: turn a loaded schema into the typed IR (`ir.Module`).

Takes a `LoadedSchema` and a root selection, returns a frozen `Module`. This is
the only stage that interprets schema idioms (through `idioms`): tagged unions
written with ``anyOf``/``oneOf`` and ``properties.<tag>.const``, open
fallbacks detected by "has no const", the two nullable spellings, untagged
default variants, ``x-deserialize-*`` flags and our ``x-acp-*`` annotations.
All names come from `naming`; two schema nodes that would get the same Python
name are a `SchemaError` naming both pointers.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from . import idioms, ir, keywords, limits, naming, unions
from .errors import SchemaError, join_pointer
from .limits import ANNOTATION_PREFIX
from .load import REF_PREFIX, LoadedSchema, iter_refs
from .registry import Registry, annotations_of, doc_of
from .typeexprs import check_keywords, type_expr

UPDATE_METHOD = "session/update"
MethodKind = Literal["request", "response", "notification"]
#: Refuse union variants whose bodies are built inside one another deeper than this (a
#: property `$ref` names its target without building it, so only variant bodies nest).
MAX_BODY_DEPTH = 64


def select_roots(loaded: LoadedSchema, roots: tuple[str, ...], take_all: bool) -> list[str]:
    """The def names to generate, before closing over references."""
    if take_all:
        return sorted(loaded.defs)
    selected = [
        name
        for name, schema in loaded.defs.items()
        if isinstance(schema, dict) and schema.get("x-method") == UPDATE_METHOD
    ]
    if not selected and not roots:
        raise SchemaError(
            f"no definition has x-method {UPDATE_METHOD!r}; name one with --root or use --all",
            "/$defs",
            loaded.source,
        )
    for name in roots:
        if name not in loaded.defs:
            raise SchemaError(
                f"--root {name!r} {_not_there(name, loaded.defs)}", "/$defs", loaded.source
            )
    return sorted(set(selected) | set(roots))


def _not_there(name: str, defs: dict[str, object]) -> str:
    """Why `name` is not a root, with the names the schema defines that come nearest."""
    if not defs:
        return "is not a definition: the schema defines none"
    lowered = {d.lower(): d for d in defs}  # `toolcall` is near `ToolCall`
    near = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=3)]
    if near:
        return f"is not a definition; did you mean {', '.join(map(repr, near))}?"
    shown = ", ".join(sorted(defs)[:5])
    more = f" and {len(defs) - 5} more (acp-codegen inspect lists them)" if len(defs) > 5 else ""
    return f"is not a definition; the schema defines {shown}{more}"


def closure(loaded: LoadedSchema, names: list[str]) -> list[str]:
    seen: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for pointer, ref in iter_refs(loaded.defs[name], join_pointer("/$defs", name)):
            stack.append(loaded.resolve(ref, pointer)[0])
    return sorted(seen)


def build(
    loaded: LoadedSchema,
    roots: tuple[str, ...] = (),
    take_all: bool = False,
    allow_unenforced: frozenset[str] = frozenset(),
) -> ir.Module:
    """Build the IR for the selected definitions and everything they reference.

    Validation no target enforces is refused (`keywords`) unless its keyword is in
    `allow_unenforced`; what was let through is listed in `ir.Module.unenforced`.
    """
    names = closure(loaded, select_roots(loaded, roots, take_all))
    limits.check(loaded.defs, names, loaded.source)
    unenforced = keywords.Unenforced(allow_unenforced, loaded.source)
    keywords.check(loaded.defs, names, unenforced)
    return Builder(loaded, unenforced).run(names)


class Builder:
    """Walks the selected defs once; implements `registry.Nodes` for the helpers.

    All state is the `Registry`; `typeexprs` and `unions` are stateless functions
    that receive it together with this object as their way to build nested nodes.
    """

    def __init__(self, loaded: LoadedSchema, unenforced: keywords.Unenforced) -> None:
        self.loaded = loaded
        self.reg = Registry(loaded)
        self.unenforced = unenforced

    # -- driver ---------------------------------------------------------------------------
    def run(self, names: list[str]) -> ir.Module:
        self.reg.count_refs(names)
        unions.scan_nested(self.reg, names)
        for name in names:
            self.build_def(name)
        defs = tuple(sorted(self.reg.defs.values(), key=lambda d: d.name))
        methods, notification = self._methods(names)
        update_union, update_field = self._update_union(notification)
        title = self.loaded.document.get("title")
        return ir.Module(
            source=self.reg.source,
            sha256=self.loaded.sha256,
            title=title if isinstance(title, str) else "",
            defs=defs,
            methods=methods,
            notification=notification,
            update_union=update_union,
            update_field=update_field,
            unenforced=tuple(sorted(set(self.unenforced.found), key=lambda f: (f[1], f[0]))),
            sides=self._sides(),
        )

    def build_def(self, def_name: str) -> str:
        """Build (once) the IR def for a `$defs` entry and return its Python name."""
        py = self.reg.class_names[def_name]
        if py in self.reg.defs or def_name in self.reg.absorbed or def_name in self.reg.in_progress:
            return py
        schema = self.loaded.defs[def_name]
        pointer = join_pointer("/$defs", def_name)
        if len(self.reg.in_progress) >= MAX_BODY_DEPTH:
            raise self.reg.error(
                f"union variants nest through their bodies deeper than {MAX_BODY_DEPTH} levels",
                pointer,
            )
        self.reg.in_progress.add(def_name)
        node = self.definition(py, schema if isinstance(schema, dict) else {}, pointer)
        self.reg.in_progress.discard(def_name)
        if node is not None and def_name not in self.reg.absorbed:
            self.reg.add(node)
        return py

    def definition(self, name: str, schema: dict[str, Any], pointer: str) -> ir.Def | None:
        """Classify one named schema node and build its IR definition."""
        check_keywords(self.reg, schema, pointer)
        doc = doc_of(schema)
        parts = idioms.union_members(schema)
        if parts and not _is_nullable_pair(parts[1]):
            return unions.union_def(self.reg, self, name, schema, pointer, parts)
        if "enum" in schema and isinstance(schema["enum"], list):
            return unions.closed_enum(self.reg, self, name, schema, pointer)
        if self._is_object(schema):
            return self.struct(name, schema, pointer)
        return ir.Alias(name, doc, pointer, type_expr(self.reg, self, schema, pointer, name))

    # -- structs --------------------------------------------------------------------------
    def _is_object(self, schema: dict[str, Any]) -> bool:
        if "properties" in schema:
            return True
        allof = schema.get("allOf")
        if isinstance(allof, list) and len(allof) > 1:
            return True
        return schema.get("type") == "object" and not isinstance(
            schema.get("additionalProperties"), dict
        )

    def object_parts(
        self,
        schema: dict[str, Any],
        pointer: str,
        skip: frozenset[str] = frozenset(),
        depth: int = 0,
    ) -> tuple[list[tuple[str, Any, str]], dict[str, str]]:
        """Collect ``(wire, schema, pointer)`` properties and required names (with the
        pointer of the first entry naming each) from an object schema, its ``allOf``
        parts and an early-era sibling ``$ref``."""
        if depth > 16:
            raise self.reg.error("allOf/$ref chain is cyclic or too deep", pointer)
        props: list[tuple[str, Any, str]] = []
        required: dict[str, str] = {}
        own = schema.get("properties", {})
        if not isinstance(own, dict):
            raise self.reg.error(
                "properties must be an object", join_pointer(pointer, "properties")
            )
        for wire, sub in own.items():
            if wire not in skip:
                props.append((wire, sub, join_pointer(pointer, "properties", wire)))
        req = schema.get("required", [])
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            raise self.reg.error(
                "required must be a list of strings", join_pointer(pointer, "required")
            )
        for index, name in enumerate(req):
            required.setdefault(name, join_pointer(pointer, "required", index))
        inherited: list[tuple[dict[str, Any], str]] = []
        if "$ref" in schema and ("properties" in schema or "allOf" in schema):
            _, target = self.reg.ref_name(schema["$ref"], join_pointer(pointer, "$ref"))
            inherited.append((target, join_pointer(pointer, "$ref")))
        allof = schema.get("allOf", [])
        if not isinstance(allof, list):
            raise self.reg.error("allOf must be a list", join_pointer(pointer, "allOf"))
        for index, part in enumerate(allof):
            part_pointer = join_pointer(pointer, "allOf", index)
            if isinstance(part, dict) and "$ref" in part:
                _, target = self.reg.ref_name(part["$ref"], join_pointer(part_pointer, "$ref"))
                inherited.append((target, part_pointer))
            elif isinstance(part, dict):
                inherited.append((part, part_pointer))
        for target, where in inherited:
            if not isinstance(target, dict):
                continue
            sub_props, sub_req = self.object_parts(target, where, skip, depth + 1)
            known = {p[0] for p in props}
            props.extend(p for p in sub_props if p[0] not in known)
            required = sub_req | required
        parts = idioms.union_members(schema)
        if parts and "properties" in schema:
            # Alternatives mixed into an object ("exactly one of these shapes") are
            # merged as optional fields, so every alternative round-trips.
            for index, alternative in enumerate(parts[1]):
                if not isinstance(alternative, dict) or idioms.is_null_schema(alternative):
                    continue
                alt_props, _ = self.object_parts(
                    alternative, join_pointer(pointer, parts[0], index), skip, depth + 1
                )
                known = {p[0] for p in props}
                props.extend(p for p in alt_props if p[0] not in known)
        return props, required

    def struct(
        self,
        name: str,
        schema: dict[str, Any],
        pointer: str,
        tag: ir.Tag | None = None,
        extra: dict[str, Any] | None = None,
        doc: str | None = None,
        body: str | None = None,
        fixed: tuple[ir.Field, ...] = (),
    ) -> ir.Struct:
        skip = frozenset({tag.field}) if tag else frozenset()
        props, required = self.object_parts(schema, pointer, skip)
        if extra:
            extra_props, extra_req = self.object_parts(extra, pointer, skip)
            known = {p[0] for p in props}
            props = [p for p in extra_props if p[0] not in known] + props
            required = extra_req | required
        declared = {p[0] for p in props} | skip | {f.wire for f in fixed}
        for wire, where in required.items():
            if wire not in declared:
                self.unenforced.meet(
                    "required", f"required names {wire!r}, which is not a declared property", where
                )
        fields = list(fixed)
        seen = {f.attr: f.pointer for f in fields}
        for wire, sub, where in props:
            field = self.field(name, wire, sub, where, wire in required)
            if field.attr in seen:
                raise self.reg.error(
                    f"properties {seen[field.attr]} and {where} both map to "
                    f"attribute {field.attr!r}",
                    where,
                )
            seen[field.attr] = where
            fields.append(field)
        return ir.Struct(
            name, doc_of(schema) if doc is None else doc, pointer, tuple(fields), tag, body
        )

    def field(self, owner: str, wire: str, sub: Any, pointer: str, required: bool) -> ir.Field:
        if not isinstance(sub, dict | bool):
            raise self.reg.error("a property must be a schema object", pointer)
        schema = sub if isinstance(sub, dict) else {}
        check_keywords(self.reg, schema, pointer)
        context = owner + naming.pascal(wire)
        expr = type_expr(self.reg, self, schema, pointer, context)
        default: Any = schema.get("default", ir.NO_DEFAULT)
        return ir.Field(
            attr=naming.attribute(wire),
            wire=wire,
            type=expr,
            required=required,
            doc=doc_of(schema),
            pointer=pointer,
            default=default,
            # On a required property only an array can fall back (to empty, as the
            # official SDKs read it); other required values stay strict.
            default_on_error=schema.get("x-deserialize-default-on-error") is True
            and (not required or _is_array(expr)),
            skip_invalid_items=schema.get("x-deserialize-skip-invalid-items") is True,
            default_on_null=self._default_on_null(schema, expr, pointer),
            annotations=annotations_of(schema),
        )

    def _default_on_null(self, schema: dict[str, Any], expr: ir.TypeExpr, pointer: str) -> bool:
        """``x-deserialize-default-on-null``: a null reads as an empty array or map, so the
        flag needs a type that has one (and that does not take null as a value itself)."""
        if schema.get("x-deserialize-default-on-null") is not True:
            return False
        if not isinstance(expr, ir.ListOf | ir.MapOf):
            raise self.reg.error(
                "x-deserialize-default-on-null needs a non-nullable array or map",
                join_pointer(pointer, "x-deserialize-default-on-null"),
            )
        return True

    def inline_union(
        self, schema: dict[str, Any], pointer: str, context: str, parts: tuple[str, list[Any]]
    ) -> ir.TypeExpr:
        return unions.inline_union(self.reg, self, schema, pointer, context, parts)

    # -- methods --------------------------------------------------------------------------
    def _methods(self, names: list[str]) -> tuple[tuple[ir.Method, ...], str | None]:
        by_method: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for def_name in names:
            schema = self.loaded.defs[def_name]
            if isinstance(schema, dict) and isinstance(schema.get("x-method"), str):
                by_method.setdefault(schema["x-method"], []).append((def_name, schema))
        methods: list[ir.Method] = []
        notification = None
        for method, entries in sorted(by_method.items()):
            for def_name, schema in entries:
                side = schema.get("x-side")
                kind = _method_kind(def_name, len(entries))
                py = self.reg.class_names[def_name]
                methods.append(ir.Method(method, side if isinstance(side, str) else "", kind, py))
                if method == UPDATE_METHOD and kind == "notification" and py in self.reg.defs:
                    notification = py
        return tuple(methods), notification

    def _sides(self) -> tuple[tuple[str, str], ...]:
        """Every method of the whole schema (generated or not) with the side that handles
        it, from ``x-side``; a method whose defs name two sides is left out."""
        sides: dict[str, set[str]] = {}
        for schema in self.loaded.defs.values():
            if isinstance(schema, dict) and isinstance(schema.get("x-method"), str):
                side = schema.get("x-side")
                if isinstance(side, str):
                    sides.setdefault(schema["x-method"], set()).add(side)
        return tuple((m, next(iter(s))) for m, s in sorted(sides.items()) if len(s) == 1)

    def _update_union(self, notification: str | None) -> tuple[str | None, str | None]:
        if notification is None:
            return None, None
        node = self.reg.defs[notification]
        if isinstance(node, ir.TaggedUnion):
            return notification, None
        if isinstance(node, ir.Struct):
            for field in node.fields:
                target = field.type
                if isinstance(target, ir.Ref) and isinstance(
                    self.reg.defs.get(target.name), ir.TaggedUnion
                ):
                    return target.name, field.attr
        return None, None


def _is_array(expr: ir.TypeExpr) -> bool:
    inner = expr.inner if isinstance(expr, ir.Nullable) else expr
    return isinstance(inner, ir.ListOf)


def _is_nullable_pair(members: list[Any]) -> bool:
    return len(members) == 2 and any(idioms.is_null_schema(m) for m in members)


def _method_kind(def_name: str, count: int) -> MethodKind:
    """Which part of a method a def is: the schema says only the method, so the def's
    last word decides (``...Response``/``...Notification``), then how many defs share it."""
    last = (naming.words(def_name) or [""])[-1]
    if last == "Response":
        return "response"
    if last == "Notification" or count == 1:
        return "notification"
    return "request"


__all__ = ["ANNOTATION_PREFIX", "build", "closure", "select_roots", "REF_PREFIX"]
