"""The dataclasses target's lowering: the spellings `lowering.Lowering` leaves open.

Models derive from the runtime's `Model` (which makes each subclass a keyword-only
dataclass); a tagged variant names its tag in its class line; an attribute whose
wire name differs is an ``_rt.field(wire=...)``; constraints are ``_rt.Meta``
metadata that the runtime checks while decoding. Untagged unions are plain
``A | B``: the walker tries members in order.
"""

from __future__ import annotations

from ... import ir
from ...lowering import BASE_TYPES, Lowering
from ...views import AliasView, FieldView, StructView, View


class DataclassesLowering(Lowering):
    """Stdlib spellings: ``typing.Annotated`` with `_rt.Meta` for every constraint."""

    def prim(self, prim: ir.Prim) -> str:
        base = "_rt.Number" if prim.kind == "float" else BASE_TYPES[prim.kind]
        if prim.kind not in ("str", "int", "float"):
            return base
        c = prim.constraints
        args: dict[str, object] = {}
        if prim.kind != "str":  # JSON Schema bounds only numbers
            low, high = prim.value_range()
            bounds = {"ge": low, "le": high, "gt": c.exclusive_minimum, "lt": c.exclusive_maximum}
            if prim.kind == "int":
                bounds["multiple_of"] = c.multiple_of
            args = {k: v for k, v in bounds.items() if v is not None}
        else:
            lengths = {"min_length": c.min_length, "max_length": c.max_length, "pattern": c.regex}
            args = {k: v for k, v in lengths.items() if v is not None}
        if not args:
            return base
        meta = ", ".join(f"{k}={v!r}" for k, v in args.items())
        return f"typing.Annotated[{base}, _rt.Meta({meta})]"

    def list_of(self, expr: ir.ListOf, skip_invalid: bool) -> str:
        # Skipping invalid items is the field's `_rt.skip_invalid` marker, not the list's.
        text = f"list[{self.expr(expr.item)}]"
        c = expr.constraints
        sizes = {"min_length": c.min_items, "max_length": c.max_items}
        meta = ", ".join(f"{k}={v!r}" for k, v in sizes.items() if v is not None)
        return f"typing.Annotated[{text}, _rt.Meta({meta})]" if meta else text

    def union_of(self, expr: ir.UnionOf, skip_invalid: bool) -> str:
        return " | ".join(self.expr(m) for m in expr.members)

    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        return AliasView(node.name, node.doc, " | ".join(self.expr(m) for m in node.members), None)

    def struct(self, node: ir.Struct) -> StructView:
        bases = "_rt.OpenModel" if self.keep_unknown_fields else "_rt.Model"
        if node.tag:
            bases += f", tag=({node.tag.field!r}, {node.tag.value!r})"
        return StructView(node.name, node.doc, bases, tuple(self.field(f) for f in node.fields))

    def field(self, field: ir.Field) -> FieldView:
        annotation = self.expr(field.type)
        metas = self.leniency_markers(field)
        if not field.required:
            annotation += " | _rt.UnsetType"
        if metas:
            annotation = f"typing.Annotated[{annotation}, {', '.join(metas)}]"
        renamed = field.attr != field.wire
        if field.required:
            default = f"_rt.field(wire={field.wire!r})" if renamed else None
        else:
            default = (
                f"_rt.field(wire={field.wire!r}, default=_rt.UNSET)" if renamed else "_rt.UNSET"
            )
        return FieldView(field.attr, annotation, default, self.field_doc(field))


def lower(module: ir.Module, keep_unknown_fields: bool = True) -> View:
    return DataclassesLowering(module, keep_unknown_fields).view()
