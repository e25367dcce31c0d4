"""The msgspec target's lowering: the spellings `lowering.Lowering` leaves open.

Types are written twice where Python's static and runtime views must differ:
mypy sees an open union with its ``Unknown*`` class, while msgspec sees the
native union of known variants plus a descriptor that the runtime's slow path
reads. msgspec allows one member per JSON kind in a native union (`kind`,
`native_union`); any other union becomes a runtime ``_rt.shape_union``.
"""

from __future__ import annotations

from ... import ir
from ...limits import INT64, int_bounds, number_bounds
from ...lowering import BASE_TYPES, Lowering
from ...target import WireNames
from ...views import AliasView, FieldView, StructView, View

#: Characters msgspec refuses in a renamed field's wire name (``msgspec.field(name=...)``).
#: `accept` refuses them on every target, before any lowering runs.
#: The field every struct that keeps undeclared properties declares last, which holds them
#: (`_extras.EXTRA` in the runtime): no declared property may be named so.
EXTRA = "_acp_extra"
WIRE_NAMES = WireNames(r'[\\"\x00-\x1f]', "a quote, backslash or control character", (EXTRA,))


class MsgspecLowering(Lowering):
    unset = "msgspec.UNSET"

    def library_imports(self) -> tuple[str, ...]:
        return ("msgspec",)

    def number(self, args: dict[str, object]) -> str:
        """A JSON number: an int or a finite float, so integers re-encode as integers."""
        if not args:
            return "_rt.Number"
        bound = 1.7976931348623157e308
        floats = {k: float(v) for k, v in args.items()}  # type: ignore[arg-type]
        if "gt" not in floats:
            floats.setdefault("ge", -bound)
        if "lt" not in floats:
            floats.setdefault("le", bound)
        float_meta = ", ".join(f"{k}={v!r}" for k, v in sorted(floats.items()))
        float_branch = f"typing.Annotated[float, msgspec.Meta({float_meta})]"
        ints = int_bounds(*number_bounds(args))
        if ints is None:
            return float_branch
        named = zip(("ge", "le"), ints, strict=True)
        int_meta = ", ".join(f"{k}={v!r}" for k, v in named if v is not None)
        int_branch = f"typing.Annotated[int, msgspec.Meta({int_meta})]" if int_meta else "int"
        return f"{int_branch} | {float_branch}"

    def prim(self, prim: ir.Prim) -> str:
        base = BASE_TYPES[prim.kind]
        args: dict[str, object] = {}
        c = prim.constraints
        if prim.kind in ("int", "float"):  # JSON Schema bounds only numbers
            low, high = prim.value_range()
            if low is not None:
                args["ge"] = low
            if high is not None:
                args["le"] = high
            if c.exclusive_minimum is not None:
                args["gt"] = c.exclusive_minimum
            if c.exclusive_maximum is not None:
                args["lt"] = c.exclusive_maximum
        if c.multiple_of is not None and prim.kind == "int":
            args["multiple_of"] = c.multiple_of
        if prim.kind == "str":
            if c.min_length is not None:
                args["min_length"] = c.min_length
            if c.max_length is not None:
                args["max_length"] = c.max_length
            if c.regex is not None:
                args["pattern"] = c.regex
        if prim.kind == "float":
            return self.number(args)
        # msgspec's bounds must fit int64: a wider one (uint64's top) goes in an `IntRange`,
        # which `__post_init__` (`wide`) and the lenient pass check.
        wide = {k: v for k, v in args.items() if k in ("ge", "le") and not _in_int64(v)}
        if wide:
            args = {k: v for k, v in args.items() if k not in wide}
        if not (args or wide) or prim.kind not in ("str", "int"):
            return base
        metas = []
        if args:
            meta = ", ".join(f"{k}={v!r}" for k, v in sorted(args.items()))
            metas.append(f"msgspec.Meta({meta})")
        if wide:
            low, high = prim.value_range()
            metas.append(f"_rt.IntRange({low!r}, {high!r})")
        return f"typing.Annotated[{base}, {', '.join(metas)}]"

    def list_of(self, expr: ir.ListOf, skip_invalid: bool) -> str:
        text = f"list[{self.expr(expr.item)}]"
        metas = []
        c = expr.constraints
        sizes = {"min_length": c.min_items, "max_length": c.max_items}
        size = ", ".join(f"{k}={v!r}" for k, v in sizes.items() if v is not None)
        if size:
            metas.append(f"msgspec.Meta({size})")
        if skip_invalid:
            metas.append("_rt.skip_invalid")
        return f"typing.Annotated[{text}, {', '.join(metas)}]" if metas else text

    def union_of(self, expr: ir.UnionOf, skip_invalid: bool) -> str:
        if self.native_union(expr.members):
            return " | ".join(self.expr(m, skip_invalid) for m in expr.members)
        return "typing.Any"

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

    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        static = " | ".join(self.expr(m) for m in node.members)
        if self.native_union(node.members):
            return AliasView(node.name, node.doc, static, None)
        members = ", ".join(self.expr(m) for m in node.members)
        return AliasView(node.name, node.doc, static, f"_rt.shape_union({node.name!r}, {members})")

    # -- structs ------------------------------------------------------------------------------
    def struct(self, node: ir.Struct) -> StructView:
        # gc=False: decoded JSON cannot form reference cycles, and untracked structs
        # decode faster. Keeping undeclared properties: strict decoding refuses them,
        # so the slow path runs and keeps them in the `EXTRA` field (see `_extras`).
        options = ["msgspec.Struct", "kw_only=True", "gc=False"]
        fields = tuple(self.field(f) for f in node.fields)
        if self.keep_unknown_fields:
            options += ["forbid_unknown_fields=True", "repr_omit_defaults=True"]
            extra = FieldView(
                EXTRA,
                "_rt.Extras | msgspec.UnsetType",
                "msgspec.UNSET",
                "Undeclared properties this object arrived with (`extra_fields` reads them).",
            )
            fields += (extra,)
        if node.tag:
            options += [f"tag_field={node.tag.field!r}", f"tag={node.tag.value!r}"]
        return StructView(node.name, node.doc, ", ".join(options), fields, self.wide(node))

    def wide(self, node: ir.Struct) -> tuple[str, ...]:
        """A ``__post_init__`` checking the integer bounds ``msgspec.Meta`` cannot hold (past
        int64: ``uint64`` tops out at 2**64 - 1), which msgspec calls after decoding."""
        checks = []
        for field in node.fields:
            bounds = self.wide_bounds(field.type, set())
            if bounds is not None:
                checks.append((field.attr, *bounds))
        if not checks:
            return ()
        return (
            "",
            "def __post_init__(self) -> None:",
            f"    _rt.check_ints(self, {tuple(checks)!r})",
        )

    def wide_bounds(self, expr: ir.TypeExpr, seen: set[str]) -> tuple[int, int] | None:
        """(low, high) of the integers `expr` holds (in arrays and maps too) when a bound lies
        past int64; None where there is none."""
        if isinstance(expr, ir.Prim):
            if expr.kind != "int":
                return None
            low, high = expr.value_range()
            wide = (low is not None and low < INT64[0]) or (high is not None and high > INT64[1])
            return (low, high) if wide else None  # type: ignore[return-value]
        if isinstance(expr, ir.Nullable):
            return self.wide_bounds(expr.inner, seen)
        if isinstance(expr, ir.UnionOf):  # (`type: ["integer", "string"]`: its integers)
            found = [b for b in (self.wide_bounds(m, seen) for m in expr.members) if b]
            return found[0] if found else None
        if isinstance(expr, ir.ListOf | ir.MapOf):
            return self.wide_bounds(expr.item if isinstance(expr, ir.ListOf) else expr.value, seen)
        if isinstance(expr, ir.Ref) and expr.name not in seen:
            node = self.module.get(expr.name)
            if isinstance(node, ir.Alias):
                return self.wide_bounds(node.target, seen | {expr.name})
        return None

    def field(self, field: ir.Field) -> FieldView:
        annotation = self.expr(field.type, field.skip_invalid_items)
        if field.default_on_error:
            annotation = f"typing.Annotated[{annotation}, _rt.lenient({self.on_error(field)})]"
        if field.default_on_null:
            annotation = f"typing.Annotated[{annotation}, _rt.null_empty({self.empty(field)})]"
        name_arg = f", name={field.wire!r}" if field.attr != field.wire else ""
        assert not WIRE_NAMES.refuses(field.wire), "accept refuses this wire name"
        if field.required:
            default = f"msgspec.field(name={field.wire!r})" if name_arg else None
        else:
            annotation += " | msgspec.UnsetType"
            default = (
                f"msgspec.field(default=msgspec.UNSET{name_arg})" if name_arg else "msgspec.UNSET"
            )
        return FieldView(field.attr, annotation, default, self.field_doc(field))


def _in_int64(value: object) -> bool:
    return INT64[0] <= value <= INT64[1]  # type: ignore[operator]


def lower(module: ir.Module, keep_unknown_fields: bool = True) -> View:
    return MsgspecLowering(module, keep_unknown_fields).view()
