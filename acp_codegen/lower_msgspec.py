"""Render preparation for the msgspec target: IR -> template view.

Takes an `ir.Module` and returns a `View`: plain frozen records holding every
annotation string, default and table row the templates print, so templates
only loop and substitute. Types are written twice where Python's static and
runtime views must differ: mypy sees an open union with its ``Unknown*`` class,
while msgspec sees the native union of known variants plus a descriptor that
the runtime's slow path reads.
"""

from __future__ import annotations

import re

from . import ir, naming
from .errors import SchemaError
from .ir import INT_FORMAT_BITS
from .limits import int_bounds
from .views import (
    AliasView,
    EnumView,
    FieldView,
    HandlerView,
    MethodView,
    StructView,
    TableView,
    UnknownView,
    View,
)

#: Characters msgspec refuses in a renamed field's wire name.
_UNRENAMABLE = re.compile(r'[\\"\x00-\x1f]')


class Lowerer:
    #: How generated code spells the omitted marker.
    unset = "msgspec.UNSET"

    def __init__(self, module: ir.Module, keep_unknown_fields: bool = True) -> None:
        self.module = module
        self.keep_unknown_fields = keep_unknown_fields

    # -- type expressions ---------------------------------------------------------------------
    def expr(self, expr: ir.TypeExpr, skip_invalid: bool = False) -> str:
        if isinstance(expr, ir.Prim):
            return self.prim(expr)
        if isinstance(expr, ir.Ref):
            return expr.name
        if isinstance(expr, ir.ListOf):
            text = f"list[{self.expr(expr.item)}]"
            metas = []
            if expr.constraints.min_items is not None:
                metas.append(f"msgspec.Meta(min_length={expr.constraints.min_items!r})")
            if skip_invalid:
                metas.append("_rt.skip_invalid")
            return f"typing.Annotated[{text}, {', '.join(metas)}]" if metas else text
        if isinstance(expr, ir.MapOf):
            return f"dict[str, {self.expr(expr.value)}]"
        if isinstance(expr, ir.LiteralOf):
            return f"typing.Literal[{', '.join(repr(v) for v in expr.values)}]"
        if isinstance(expr, ir.Nullable):
            return f"{self.expr(expr.inner, skip_invalid)} | None"
        if self.native_union(expr.members):
            return " | ".join(self.expr(m, skip_invalid) for m in expr.members)
        return "typing.Any"

    def number(self, args: dict[str, object]) -> str:
        """A JSON number: an int or a finite float, so integers re-encode as integers."""
        if not args:
            return "_rt.Number"
        bound = 1.7976931348623157e308
        floats = {"ge": -bound, "le": bound} | {k: float(v) for k, v in args.items()}  # type: ignore[arg-type]
        float_meta = ", ".join(f"{k}={v!r}" for k, v in sorted(floats.items()))
        float_branch = f"typing.Annotated[float, msgspec.Meta({float_meta})]"
        ints = int_bounds(args.get("ge"), args.get("le"))  # type: ignore[arg-type]
        if ints is None:
            return float_branch
        named = zip(("ge", "le"), ints, strict=True)
        int_meta = ", ".join(f"{k}={v!r}" for k, v in named if v is not None)
        int_branch = f"typing.Annotated[int, msgspec.Meta({int_meta})]" if int_meta else "int"
        return f"{int_branch} | {float_branch}"

    def prim(self, prim: ir.Prim) -> str:
        base = {
            "str": "str",
            "int": "int",
            "float": "float",
            "bool": "bool",
            "any": "typing.Any",
            "null": "None",
        }[prim.kind]
        args: dict[str, object] = {}
        c = prim.constraints
        if prim.kind == "int" and prim.format in INT_FORMAT_BITS:
            unsigned, bits = INT_FORMAT_BITS[prim.format]
            args["ge"] = 0 if unsigned else -(2 ** (bits - 1))
            args["le"] = 2**bits - 1 if unsigned else 2 ** (bits - 1) - 1
        numeric = prim.kind in ("int", "float")  # JSON Schema bounds only numbers
        if c.minimum is not None and numeric:
            args["ge"] = max(c.minimum, args.get("ge", c.minimum))  # type: ignore[call-overload]
        if c.maximum is not None and numeric:
            args["le"] = min(c.maximum, args.get("le", c.maximum))  # type: ignore[call-overload]
        if c.min_length is not None and prim.kind == "str":
            args["min_length"] = c.min_length
        if c.pattern is not None and prim.kind == "str":
            args["pattern"] = c.pattern
        if args.get("le", 0) > 2**63 - 1:  # type: ignore[operator]
            del args["le"]  # msgspec bounds must fit int64; uint64 keeps only ge=0
        if prim.kind == "float":
            return self.number(args)
        if not args or prim.kind not in ("str", "int", "float"):
            return base
        meta = ", ".join(f"{k}={v!r}" for k, v in sorted(args.items()))
        return f"typing.Annotated[{base}, msgspec.Meta({meta})]"

    # -- msgspec union rules ------------------------------------------------------------------
    def kind(self, expr: ir.TypeExpr) -> str:
        """The msgspec union slot a type occupies."""
        if isinstance(expr, ir.Prim):
            return {"float": "float", "any": "any"}.get(expr.kind, expr.kind)
        if isinstance(expr, ir.ListOf):
            return "array"
        if isinstance(expr, ir.MapOf):
            return "object"
        if isinstance(expr, ir.LiteralOf):
            return "int" if all(isinstance(v, int) for v in expr.values) else "str"
        if isinstance(expr, ir.Nullable):
            return self.kind(expr.inner)
        if isinstance(expr, ir.UnionOf):
            return "custom"
        node = self.module.get(expr.name)
        if isinstance(node, ir.Struct):
            return "tagged" if node.tag else "object"
        if isinstance(node, ir.Enum):
            return node.base if not node.open else "custom"
        if isinstance(node, ir.Alias):
            return self.kind(node.target)
        if isinstance(node, ir.TaggedUnion):
            # The runtime makes a union of fewer than two struct variants a custom type.
            return "tagged" if sum(not v.nested for v in node.variants) > 1 else "custom"
        return "object" if self.native_union(node.members) else "custom"

    def native_union(self, members: tuple[ir.TypeExpr, ...]) -> bool:
        kinds = [self.kind(m) for m in members if m != ir.Prim("null")]
        if "any" in kinds or "custom" in kinds and len(kinds) > 1:
            return False
        if "tagged" in kinds and "object" in kinds:
            return False
        singles = [k for k in kinds if k != "tagged"]
        return len(singles) == len(set(singles))

    # -- definitions --------------------------------------------------------------------------
    def struct(self, node: ir.Struct) -> StructView:
        # gc=False: decoded JSON cannot form reference cycles, and untracked structs
        # decode faster. Keeping undeclared properties: strict decoding refuses them,
        # so the slow path runs and keeps them (in a subclass with an instance dict).
        options = ["kw_only=True", "gc=False"]
        if self.keep_unknown_fields:
            options.append("forbid_unknown_fields=True")
        if node.tag:
            options += [f"tag_field={node.tag.field!r}", f"tag={node.tag.value!r}"]
        return StructView(
            node.name, node.doc, ", ".join(options), tuple(self.field(f) for f in node.fields)
        )

    def field(self, field: ir.Field) -> FieldView:
        annotation = self.expr(field.type, field.skip_invalid_items)
        if field.default_on_error:
            annotation = f"typing.Annotated[{annotation}, _rt.lenient({self.on_error(field)})]"
        name_arg = f", name={field.wire!r}" if field.attr != field.wire else ""
        if name_arg and _UNRENAMABLE.search(field.wire):
            raise SchemaError(
                f"property name {field.wire!r} holds a quote, backslash or control character, "
                "which msgspec does not allow as a field's wire name",
                field.pointer,
                self.module.source,
            )
        if field.required:
            default = f"msgspec.field(name={field.wire!r})" if name_arg else None
        else:
            annotation += " | msgspec.UnsetType"
            default = (
                f"msgspec.field(default=msgspec.UNSET{name_arg})" if name_arg else "msgspec.UNSET"
            )
        doc = field.doc
        if field.default is not ir.NO_DEFAULT:
            doc = (doc + "\n\n" if doc else "") + f"Schema default: {_json(field.default)}."
        return FieldView(field.attr, annotation, default, doc)

    def on_error(self, field: ir.Field) -> str:
        # A bad value becomes the schema default, else counts as omitted: for patch
        # fields null would mean "clear", which a malformed value must not do. A
        # required (array) field falls back to empty.
        if field.required and field.default is ir.NO_DEFAULT:
            return "[]"
        if field.default is not ir.NO_DEFAULT:
            return repr(field.default)
        return self.unset

    def enum(self, node: ir.Enum) -> EnumView:
        base = {
            ("str", True): "_rt.OpenStrEnum",
            ("int", True): "_rt.OpenIntEnum",
            ("str", False): "enum.StrEnum",
            ("int", False): "enum.IntEnum",
        }
        members = tuple((v.const_name, repr(v.value), v.doc) for v in node.values)
        return EnumView(node.name, node.doc, base[(node.base, node.open)], node.open, members)

    def union_alias(self, node: ir.TaggedUnion) -> AliasView:
        static: list[str] = []
        rows: list[str] = []
        for variant in node.variants:
            static.append(variant.target)
            rows.append(f"{variant.tag!r}: {variant.target}")
        if node.default_variant:
            static.append(node.default_variant)
        if node.open:
            static.append(node.unknown_name)
        runtime = (
            f"_rt.tagged_union({node.name!r}, {node.tag_field!r}, "
            f"{{{', '.join(rows)}}}, "
            f"unknown={node.unknown_name if node.open else None}, "
            f"default={node.default_variant})"
        )
        return AliasView(node.name, node.doc, " | ".join(static) or "typing.Any", runtime)

    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        static = " | ".join(self.expr(m) for m in node.members)
        if self.native_union(node.members):
            return AliasView(node.name, node.doc, static, None)
        members = ", ".join(self.expr(m) for m in node.members)
        return AliasView(node.name, node.doc, static, f"_rt.shape_union({node.name!r}, {members})")

    def alias_deps(self, node: ir.Def) -> set[str]:
        """Names of other aliases an alias's runtime expression evaluates eagerly."""
        refs: set[str] = set()
        if isinstance(node, ir.TaggedUnion):
            refs |= {v.target for v in node.variants if v.nested}
        elif isinstance(node, ir.ShapeUnion):
            for member in node.members:
                refs |= _refs(member)
        elif isinstance(node, ir.Alias):
            refs |= _refs(node.target)
        return {
            r
            for r in refs
            if isinstance(self.module.get(r), ir.Alias | ir.TaggedUnion | ir.ShapeUnion)
        }

    def ordered_aliases(self) -> list[ir.Def]:
        pending = {
            d.name: d
            for d in self.module.defs
            if isinstance(d, ir.Alias | ir.TaggedUnion | ir.ShapeUnion)
        }
        deps = {name: self.alias_deps(node) for name, node in pending.items()}
        done: list[ir.Def] = []
        placed: set[str] = set()
        while pending:
            ready = sorted(n for n in pending if deps[n] <= placed)
            if not ready:
                name = min(pending)
                raise SchemaError(
                    "type aliases refer to each other in a cycle",
                    pending[name].pointer,
                    self.module.source,
                )
            for name in ready:
                done.append(pending.pop(name))
                placed.add(name)
        return done

    # -- dispatch -----------------------------------------------------------------------------
    def tables(self) -> tuple[TableView, ...]:
        out = []
        for union in self.module.unions:
            rows = []
            classes: list[str] = []
            for v in union.variants:
                members = self.members(v.target) if v.nested else [v.target]
                classes += members
                rows.append((repr(v.tag), f"({', '.join(members)},)" if v.nested else v.target))
            if union.default_variant and union.default_tag and union.default_tag not in union.tags:
                rows.append((repr(union.default_tag), union.default_variant))
                classes.append(union.default_variant)
            out.append(TableView(union.table_name, union.name, tuple(rows), tuple(classes)))
        return tuple(out)

    def members(self, union_name: str) -> list[str]:
        node = self.module.get(union_name)
        assert isinstance(node, ir.TaggedUnion)
        names = []
        for v in node.variants:
            names += self.members(v.target) if v.nested else [v.target]
        if node.default_variant:
            names.append(node.default_variant)
        if node.open:
            names.append(node.unknown_name)
        return names

    def dispatch(self) -> tuple[str | None, tuple[HandlerView, ...], tuple[tuple[str, str], ...]]:
        name = self.module.update_union
        if name is None:
            return None, (), ()
        union = self.module.get(name)
        assert isinstance(union, ir.TaggedUnion)
        handlers: list[HandlerView] = []
        rows: list[tuple[str, str]] = []
        for v in union.variants:
            handlers.append(HandlerView(v.handler, v.tag, v.target))
            for cls in self.members(v.target) if v.nested else [v.target]:
                rows.append((cls, v.handler))
        if union.default_variant:
            method = naming.handler_method(union.default_tag or "default")
            handlers.append(HandlerView(method, union.default_tag or "", union.default_variant))
            rows.append((union.default_variant, method))
        if union.open:
            handlers.append(HandlerView(naming.UNKNOWN_HANDLER, "", union.unknown_name))
            rows.append((union.unknown_name, naming.UNKNOWN_HANDLER))
        self._check_handlers(union, [h.method for h in handlers[len(union.variants) :]])
        return name + "Handler", tuple(handlers), tuple(rows)

    def _check_handlers(self, union: ir.TaggedUnion, extra: list[str]) -> None:
        """The handler class and its methods are derived names; two owners is an error.

        `extra` holds the methods of the default variant and the unknown fallback."""
        handler = union.name + "Handler"
        if self.module.find(handler) is not None:
            raise SchemaError(
                f"definition {handler!r} takes the name of the handler class of {union.pointer}",
                union.pointer,
                self.module.source,
            )
        seen: dict[str, str] = {}
        entries = [(v.handler, v.pointer) for v in union.variants]
        for method, where in entries + [(m, union.pointer) for m in extra]:
            if method in seen:
                raise SchemaError(
                    f"members {seen[method]} and {where} both map to handler {method!r}",
                    where,
                    self.module.source,
                )
            seen[method] = where

    def methods(self) -> tuple[MethodView, ...]:
        by_method: dict[str, dict[str, str]] = {}
        for m in self.module.methods:
            if self.module.find(m.type_name) is None:
                continue
            entry = by_method.setdefault(
                m.method, {"side": m.side, "params": "None", "result": "None"}
            )
            entry["result" if m.kind == "response" else "params"] = m.type_name
        return tuple(
            MethodView(k, v["side"], v["params"], v["result"]) for k, v in sorted(by_method.items())
        )

    def view(self) -> View:
        module = self.module
        enums = tuple(self.enum(d) for d in module.defs if isinstance(d, ir.Enum))
        structs = tuple(self.struct(d) for d in module.defs if isinstance(d, ir.Struct))
        unknowns = tuple(
            UnknownView(u.unknown_name, u.name, u.tag_field) for u in module.unions if u.open
        )
        aliases = []
        for node in self.ordered_aliases():
            if isinstance(node, ir.TaggedUnion):
                aliases.append(self.union_alias(node))
            elif isinstance(node, ir.ShapeUnion):
                aliases.append(self.shape_alias(node))
            elif isinstance(node, ir.Alias):
                aliases.append(AliasView(node.name, node.doc, self.expr(node.target), None))
        names = sorted(
            [d.name for d in module.defs] + [u.name for u in unknowns], key=naming.isort_key
        )
        handler, handlers, rows = self.dispatch()
        return View(
            enums,
            structs,
            unknowns,
            tuple(aliases),
            tuple(names),
            self.tables(),
            handler,
            module.update_union,
            handlers,
            rows,
            self.methods(),
            module.notification,
            module.update_union,
            module.update_field,
        )


def _refs(expr: ir.TypeExpr) -> set[str]:
    if isinstance(expr, ir.Ref):
        return {expr.name}
    if isinstance(expr, ir.ListOf):
        return _refs(expr.item)
    if isinstance(expr, ir.MapOf):
        return _refs(expr.value)
    if isinstance(expr, ir.Nullable):
        return _refs(expr.inner)
    if isinstance(expr, ir.UnionOf):
        return set().union(*(_refs(m) for m in expr.members))
    return set()


def _json(value: object) -> str:
    import json

    return json.dumps(value, sort_keys=True, ensure_ascii=True)


__all__ = ["FieldView", "Lowerer", "StructView", "View", "lower"]


def lower(module: ir.Module, keep_unknown_fields: bool = True) -> View:
    return Lowerer(module, keep_unknown_fields).view()
