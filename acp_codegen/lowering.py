"""Stage 3, lower: the part of IR -> template view that no model library changes.

Every target's lowering is a `Lowering` subclass. This base does the
target-neutral work once: the order type aliases are defined in, the enum and
tagged-union spellings (both call the runtime contract, see `target`), the
variant tables, the handler protocol and its dispatch rows (with the check that
no two members take one handler name), the method table, and assembling the
`View`. A target supplies only what its library spells differently: scalars
with constraints (`prim`), lists (`list_of`), untagged unions (`union_of`,
`shape_alias`) and structs with their fields (`struct`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod

from . import ir, naming
from .errors import SchemaError
from .views import (
    AliasView,
    EnumView,
    HandlerView,
    MethodView,
    StructView,
    TableView,
    UnknownView,
    View,
)

#: The Python spelling of each primitive, before any constraint is attached.
BASE_TYPES = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "any": "typing.Any",
    "null": "None",
}


class Lowering(ABC):
    """IR module -> `View`; subclasses fill in the library-specific spellings."""

    #: How generated code spells the omitted marker.
    unset = "_rt.UNSET"
    #: Whether open enums list their constants as ``typing.ClassVar`` annotations rather
    #: than as enum members (see `views.View.enum_class_vars`).
    enum_class_vars = False

    def __init__(self, module: ir.Module, keep_unknown_fields: bool = True) -> None:
        self.module = module
        #: Keep undeclared properties of objects (and write them back on encode).
        self.keep_unknown_fields = keep_unknown_fields

    # -- library-specific hooks ---------------------------------------------------------------
    @abstractmethod
    def prim(self, prim: ir.Prim) -> str:
        """A scalar with its format and constraints."""

    @abstractmethod
    def list_of(self, expr: ir.ListOf, skip_invalid: bool) -> str:
        """A list, with its item count bound and the skip-invalid-items marker."""

    @abstractmethod
    def union_of(self, expr: ir.UnionOf, skip_invalid: bool) -> str:
        """An inline union told apart by shape."""

    @abstractmethod
    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        """A named union told apart by shape."""

    @abstractmethod
    def struct(self, node: ir.Struct) -> StructView:
        """A model class with its fields."""

    def library_imports(self) -> tuple[str, ...]:
        """Modules the models import besides the target's own, found while lowering."""
        return ()

    # -- type expressions ---------------------------------------------------------------------
    def expr(self, expr: ir.TypeExpr, skip_invalid: bool = False) -> str:
        if isinstance(expr, ir.Prim):
            return self.prim(expr)
        if isinstance(expr, ir.Ref):
            return expr.name
        if isinstance(expr, ir.ListOf):
            return self.list_of(expr, skip_invalid)
        if isinstance(expr, ir.MapOf):
            return f"dict[str, {self.expr(expr.value)}]"
        if isinstance(expr, ir.LiteralOf):
            return f"typing.Literal[{', '.join(repr(v) for v in expr.values)}]"
        if isinstance(expr, ir.Nullable):
            return f"{self.expr(expr.inner, skip_invalid)} | None"
        return self.union_of(expr, skip_invalid)

    def field_doc(self, field: ir.Field) -> str:
        """A field's docstring, with the schema default (which is not applied) noted."""
        if field.default is ir.NO_DEFAULT:
            return field.doc
        note = f"Schema default: {json_text(field.default)}."
        return (field.doc + "\n\n" if field.doc else "") + note

    def on_error(self, field: ir.Field) -> str:
        """What a bad value of an ``x-deserialize-default-on-error`` field becomes: the
        schema default, else omitted (for patch fields null would mean "clear", which a
        malformed value must not do); a required (array) field falls back to empty."""
        if field.required and field.default is ir.NO_DEFAULT:
            return "[]"
        if field.default is not ir.NO_DEFAULT:
            return repr(field.default)
        return self.unset

    def empty(self, field: ir.Field) -> str:
        """What null reads as in an ``x-deserialize-default-on-null`` field: its type's
        empty value (the flag is only taken on an array or a map)."""
        return "[]" if isinstance(field.type, ir.ListOf) else "{}"

    def leniency_markers(self, field: ir.Field) -> list[str]:
        """The runtime markers of a field's leniency flags, for targets that carry them in
        the field's ``Annotated`` metadata (the walker reads them there)."""
        markers = []
        if field.default_on_error:
            markers.append(f"_rt.lenient({self.on_error(field)})")
        if field.skip_invalid_items:
            markers.append("_rt.skip_invalid")
        if field.default_on_null:
            markers.append(f"_rt.null_empty({self.empty(field)})")
        return markers

    # -- enums and tagged unions: spelled through the runtime contract --------------------------
    def enum(self, node: ir.Enum) -> EnumView:
        base = {
            ("str", True): "_rt.OpenStrEnum",
            ("int", True): "_rt.OpenIntEnum",
            ("str", False): "enum.StrEnum",
            ("int", False): "enum.IntEnum",
        }
        members = tuple((v.const_name, repr(v.value), v.doc) for v in node.values)
        return EnumView(
            node.name, node.doc, base[(node.base, node.open)], node.open, members, _bounds(node)
        )

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
        null_tag = ", null_tag=True" if node.null_tag else ""
        runtime = (
            f"_rt.tagged_union({node.name!r}, {node.tag_field!r}, "
            f"{{{', '.join(rows)}}}, "
            f"unknown={node.unknown_name if node.open else None}, "
            f"default={node.default_variant}{null_tag})"
        )
        return AliasView(node.name, node.doc, " | ".join(static) or "typing.Any", runtime)

    # -- alias order ---------------------------------------------------------------------------
    def ordered_aliases(self) -> list[ir.Def]:
        return alias_order(self.module)

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
        default_method, unknown_method = _fallback_handlers(union)
        if default_method:
            handlers.append(
                HandlerView(default_method, union.default_tag or "", union.default_variant or "")
            )
            rows.append((union.default_variant or "", default_method))
        if unknown_method:
            handlers.append(HandlerView(unknown_method, "", union.unknown_name))
            rows.append((union.unknown_name, unknown_method))
        return naming.handler_class(name), tuple(handlers), tuple(rows)

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

    # -- the whole view -----------------------------------------------------------------------
    def view(self) -> View:
        module = self.module
        enums = tuple(self.enum(d) for d in module.defs if isinstance(d, ir.Enum))
        structs = tuple(self.struct(d) for d in module.defs if isinstance(d, ir.Struct))
        unknowns = tuple(
            UnknownView(u.unknown_name, u.name, u.tag_field)
            for u in module.unions
            if u.open and not u.typed_fallback
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
            self.library_imports(),
            self.enum_class_vars,
            self.keep_unknown_fields,
        )


def check(module: ir.Module) -> None:
    """The refusals every target shares, made once before any target lowers the module:
    type aliases that need each other to be defined first, and two members of the
    update union (or a definition and its handler class) deriving one handler name."""
    alias_order(module)
    if module.update_union is not None:
        union = module.get(module.update_union)
        assert isinstance(union, ir.TaggedUnion)
        check_handlers(module, union)


def _fallback_handlers(union: ir.TaggedUnion) -> tuple[str | None, str | None]:
    """The handler methods of the untagged default variant and of unknown members."""
    default = (
        naming.handler_method(union.default_tag or "default") if union.default_variant else None
    )
    return default, naming.UNKNOWN_HANDLER if union.open else None


def check_handlers(module: ir.Module, union: ir.TaggedUnion) -> None:
    """The handler class and its methods are derived names; two owners is an error."""
    handler = naming.handler_class(union.name)
    if module.find(handler) is not None:
        raise SchemaError(
            f"definition {handler!r} takes the name of the handler class of {union.pointer}",
            union.pointer,
            module.source,
        )
    seen: dict[str, str] = {}
    entries = [(v.handler, v.pointer) for v in union.variants]
    entries += [(m, union.pointer) for m in _fallback_handlers(union) if m]
    for method, where in entries:
        if method in seen:
            raise SchemaError(
                f"members {seen[method]} and {where} both map to handler {method!r}",
                where,
                module.source,
            )
        seen[method] = where


def alias_deps(module: ir.Module, node: ir.Def) -> set[str]:
    """Names of other aliases an alias's runtime expression evaluates eagerly."""
    refs: set[str] = set()
    if isinstance(node, ir.TaggedUnion):
        refs |= {v.target for v in node.variants if v.nested}
    elif isinstance(node, ir.ShapeUnion):
        for member in node.members:
            refs |= ir.refs(member)
    elif isinstance(node, ir.Alias):
        refs |= ir.refs(node.target)
    return {r for r in refs if isinstance(module.get(r), ir.Alias | ir.TaggedUnion | ir.ShapeUnion)}


def alias_order(module: ir.Module) -> list[ir.Def]:
    """Aliases in an order where each is defined after those it evaluates."""
    pending = {
        d.name: d for d in module.defs if isinstance(d, ir.Alias | ir.TaggedUnion | ir.ShapeUnion)
    }
    deps = {name: alias_deps(module, node) for name, node in pending.items()}
    done: list[ir.Def] = []
    placed: set[str] = set()
    while pending:
        ready = sorted(n for n in pending if deps[n] <= placed)
        if not ready:
            name = min(pending)
            raise SchemaError(
                "type aliases refer to each other in a cycle", pending[name].pointer, module.source
            )
        for name in ready:
            done.append(pending.pop(name))
            placed.add(name)
    return done


def _bounds(node: ir.Enum) -> str:
    """The ``__bounds__`` of an open integer enum's class ("" when it has none), a side
    without a bound spelled as an infinite float."""
    if node.bounds == (None, None):
        return ""
    low, high = node.bounds
    low_text = 'float("-inf")' if low is None else repr(low)
    high_text = 'float("inf")' if high is None else repr(high)
    return f"({low_text}, {high_text})"


def json_text(value: object) -> str:
    """A schema value as canonical JSON text, for docstrings."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True)
