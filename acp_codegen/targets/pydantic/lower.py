"""Render preparation for the pydantic v2 target: IR -> template view.

Fills the `lowering.Lowering` hooks with pydantic spellings: models derive from
the runtime's strict `Model`, optional fields default to `UNSET` (pydantic's
``MISSING``), a field whose wire name differs from its attribute carries a
``pydantic.Field(alias=...)``, and a tagged variant carries its tag as a
``Literal`` field written first. Untagged unions are plain ``A | B``: pydantic's
smart mode tells members apart by shape, so no runtime helper is needed.
Enums, tagged unions, tables, handlers and the method table come from the
shared lowering; the runtime supplies ``_rt.tagged_union`` for them.
"""

from __future__ import annotations

from functools import cache

from ... import ir, naming
from ...limits import int_bounds
from ...lowering import BASE_TYPES, Lowering
from ...views import AliasView, FieldView, StructView, View


@cache
def model_reserved_names() -> frozenset[str]:
    """Attribute names a model field must not take: everything `pydantic.BaseModel` defines.

    Read from the installed pydantic. Attributes never start with an underscore, so what
    counts are the public names: pydantic's own ``model_*`` namespace and the deprecated
    v1 methods (``json``, ``copy``, ``schema``, ...). A release that adds a ``model_*``
    method moves a property of that name on that release only; no published ACP schema
    has a property on either list (tests/test_pydantic_target.py checks the corpus).
    """
    import pydantic

    return frozenset(name for name in dir(pydantic.BaseModel) if not name.startswith("__"))


class PydanticLowering(Lowering):
    """Pydantic field, constraint and model spellings."""

    #: Open enums are runtime classes whose constants are typed as ``ClassVar``s.
    enum_class_vars = True

    def __init__(self, module: ir.Module, keep_unknown_fields: bool = True) -> None:
        super().__init__(module, keep_unknown_fields)
        self.libraries: set[str] = set()

    def library_imports(self) -> tuple[str, ...]:
        return tuple(sorted(self.libraries))

    def use(self, library: str, text: str) -> str:
        """Note that `text` needs `library` imported, and return it."""
        self.libraries.add(library)
        return text

    def list_of(self, expr: ir.ListOf, skip_invalid: bool) -> str:
        # Skipping invalid items is the field's `_rt.skip_invalid` marker, not the list's.
        text = f"list[{self.expr(expr.item)}]"
        if expr.constraints.min_items is not None:
            size = self.use(
                "annotated_types", f"annotated_types.MinLen({expr.constraints.min_items!r})"
            )
            text = f"typing.Annotated[{text}, {size}]"
        return text

    def union_of(self, expr: ir.UnionOf, skip_invalid: bool) -> str:
        return " | ".join(self.expr(m) for m in expr.members)

    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        return AliasView(node.name, node.doc, " | ".join(self.expr(m) for m in node.members), None)

    def prim(self, prim: ir.Prim) -> str:
        # A JSON number is an int or a float, so integers re-encode as integers.
        base = "_rt.Number" if prim.kind == "float" else BASE_TYPES[prim.kind]
        if prim.kind not in ("str", "int", "float"):
            return base
        c = prim.constraints
        # JSON Schema bounds only numbers: a minimum on a string says nothing.
        low, high = prim.value_range() if prim.kind != "str" else (None, None)
        cast = float if prim.kind == "float" else (lambda v: v)
        metas = []
        if low is not None:
            metas.append(self.use("annotated_types", f"annotated_types.Ge({cast(low)!r})"))
        if high is not None:
            metas.append(self.use("annotated_types", f"annotated_types.Le({cast(high)!r})"))
        if prim.kind == "str" and c.min_length is not None:
            metas.append(self.use("annotated_types", f"annotated_types.MinLen({c.min_length!r})"))
        if prim.kind == "str" and c.pattern is not None:
            metas.append(self.use("pydantic", f"pydantic.StringConstraints(pattern={c.pattern!r})"))
        if not metas:
            return base
        if prim.kind == "float":  # a JSON number: an int or a float, each bounded
            return self.bounded_number(low, high, f"typing.Annotated[float, {', '.join(metas)}]")
        return f"typing.Annotated[{base}, {', '.join(metas)}]"

    def bounded_number(self, low: float | None, high: float | None, float_branch: str) -> str:
        """The int branch (bounds inside int64, or none at all) in front of `float_branch`."""
        ints = int_bounds(low, high)
        if ints is None:
            return float_branch
        metas = [
            self.use("annotated_types", f"annotated_types.{name}({value!r})")
            for name, value in zip(("Ge", "Le"), ints, strict=True)
            if value is not None
        ]
        int_branch = f"typing.Annotated[int, {', '.join(metas)}]" if metas else "int"
        return f"{int_branch} | {float_branch}"

    def struct(self, node: ir.Struct) -> StructView:
        attrs, tag_attr = self.attributes(node)
        fields = [self.field(f, a) for f, a in zip(node.fields, attrs, strict=True)]
        if node.tag and tag_attr:
            value = repr(node.tag.value)
            tag = FieldView(
                tag_attr,
                f"typing.Literal[{value}]",
                self.use("pydantic", f"pydantic.Field({value}, alias={node.tag.field!r})"),
                "",
            )
            fields.insert(0, tag)
        assert len({f.attr for f in fields}) == len(fields), "attributes are distinct"
        base = "_rt.OpenModel" if self.keep_unknown_fields else "_rt.Model"
        return StructView(node.name, node.doc, base, tuple(fields))

    def attributes(self, node: ir.Struct) -> tuple[list[str], str | None]:
        """The attribute of each field, then of the tag (None without one), all distinct.

        A field keeps the attribute every target gives it unless `pydantic.BaseModel`
        defines that name. A name moved off one, and the tag's attribute (which only this
        target has: a field keeps its name when the two meet), take the first of
        ``name``, ``name_``, ``name__``, ... that neither the model nor `BaseModel` holds.
        So no schema the other targets accept is refused here.
        """
        reserved = model_reserved_names()
        taken = {f.attr for f in node.fields if f.attr not in reserved}

        def free(name: str) -> str:
            while name in reserved or name in taken:
                name += "_"
            taken.add(name)
            return name

        attrs = [f.attr if f.attr not in reserved else free(f.attr) for f in node.fields]
        return attrs, free(naming.attribute(node.tag.field)) if node.tag else None

    def field(self, field: ir.Field, attr: str) -> FieldView:
        annotation = self.expr(field.type)
        metas = []
        if field.default_on_error:
            metas.append(f"_rt.lenient({self.on_error(field)})")
        if field.skip_invalid_items:
            metas.append("_rt.skip_invalid")
        if not field.required:
            annotation += " | _rt.UNSET"
        if metas:
            annotation = f"typing.Annotated[{annotation}, {', '.join(metas)}]"
        alias = f"alias={field.wire!r}" if attr != field.wire else ""
        if field.required:
            default = self.use("pydantic", f"pydantic.Field({alias})") if alias else None
        else:
            default = (
                self.use("pydantic", f"pydantic.Field(_rt.UNSET, {alias})")
                if alias
                else "_rt.UNSET"
            )
        return FieldView(attr, annotation, default, self.field_doc(field))


def lower(module: ir.Module, keep_unknown_fields: bool = True) -> View:
    return PydanticLowering(module, keep_unknown_fields).view()
