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

from ... import ir, naming
from ...limits import int_bounds, number_bounds
from ...lowering import BASE_TYPES, Lowering
from ...views import AliasView, FieldView, StructView, View


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
        c = expr.constraints
        sizes = [
            self.use("annotated_types", f"annotated_types.{name}({value!r})")
            for name, value in (("MinLen", c.min_items), ("MaxLen", c.max_items))
            if value is not None
        ]
        return f"typing.Annotated[{text}, {', '.join(sizes)}]" if sizes else text

    def union_of(self, expr: ir.UnionOf, skip_invalid: bool) -> str:
        return " | ".join(self.expr(m) for m in expr.members)

    def shape_alias(self, node: ir.ShapeUnion) -> AliasView:
        # Read member by member as the slow path reads it (see `_runtime.ShapeChoice`).
        members = " | ".join(self.expr(m) for m in node.members)
        if len(node.members) > 1:
            members = f"typing.Annotated[{members}, _rt.shape_choice]"
        return AliasView(node.name, node.doc, members, None)

    def prim(self, prim: ir.Prim) -> str:
        if prim.kind == "any":  # (refuses what could not be written back: see `AnyJson`)
            return "_rt.AnyJson"
        # A JSON number is an int or a float, so integers re-encode as integers.
        base = "_rt.Number" if prim.kind == "float" else BASE_TYPES[prim.kind]
        if prim.kind not in ("str", "int", "float"):
            return base
        c = prim.constraints
        bounds: dict[str, object] = {}
        if prim.kind != "str":  # JSON Schema bounds only numbers
            low, high = prim.value_range()
            bounds = {"Ge": low, "Le": high, "Gt": c.exclusive_minimum, "Lt": c.exclusive_maximum}
        cast = float if prim.kind == "float" else (lambda v: v)
        checks = {name: cast(v) for name, v in bounds.items() if v is not None}
        if prim.kind == "int" and c.multiple_of is not None:
            checks["MultipleOf"] = c.multiple_of
        if prim.kind == "str":
            lengths = (("MinLen", c.min_length), ("MaxLen", c.max_length))
            checks.update((name, v) for name, v in lengths if v is not None)
        metas = [
            self.use("annotated_types", f"annotated_types.{k}({v!r})") for k, v in checks.items()
        ]
        if prim.kind == "str" and c.regex is not None:
            # Compiled: pydantic then matches with Python's re, as the other targets do.
            self.use("re", "")
            compiled = f"re.compile({c.regex!r})"
            metas.append(self.use("pydantic", f"pydantic.StringConstraints(pattern={compiled})"))
        if not metas:
            return base
        if prim.kind == "float":  # a JSON number: an int or a float, each bounded
            float_branch = f"typing.Annotated[float, {', '.join(metas)}]"
            return self.bounded_number(number_bounds({k.lower(): v for k, v in bounds.items()}),
                                       float_branch)  # fmt: skip
        return f"typing.Annotated[{base}, {', '.join(metas)}]"

    def bounded_number(
        self, bounds: tuple[float | int | None, float | int | None], float_branch: str
    ) -> str:
        """The int branch (bounds inside int64, or none at all) in front of `float_branch`."""
        ints = int_bounds(*bounds)
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
        # pydantic reads the annotations in the class namespace, where a field's default
        # is bound to its attribute: a field named like a class the annotations refer to
        # keeps its default inside its annotation, so nothing binds that name there.
        named = set().union(*(ir.refs(f.type) for f in node.fields))
        fields = [self.field(f, unbound=f.attr in named) for f in node.fields]
        if node.tag:
            value = repr(node.tag.value)
            tag = FieldView(
                self.tag_attribute(node),
                f"typing.Literal[{value}]",
                self.use("pydantic", f"pydantic.Field({value}, alias={node.tag.field!r})"),
                "",
            )
            fields.insert(0, tag)
        base = "_rt.OpenModel" if self.keep_unknown_fields else "_rt.Model"
        return StructView(node.name, node.doc, base, tuple(fields))

    def tag_attribute(self, node: ir.Struct) -> str:
        """The attribute of a tagged variant's tag, which only this target spells as one.

        The fields keep the attributes every target gives them (`naming.attribute`, which
        already moves names `pydantic.BaseModel` defines), and the tag takes the first of
        ``name``, ``name_``, ``name__``, ... that no field holds. So a property that meets
        the tag's attribute (``Kind`` beside a ``kind`` tag) is no reason to refuse a schema
        the other targets accept.
        """
        assert node.tag is not None
        taken = {f.attr for f in node.fields}
        name = naming.attribute(node.tag.field)
        while name in taken:
            name += "_"
        return name

    def field(self, field: ir.Field, unbound: bool = False) -> FieldView:
        annotation = self.expr(field.type)
        metas = self.leniency_markers(field)
        if not field.required:
            annotation += " | _rt.UNSET"
        alias = f"alias={field.wire!r}" if field.attr != field.wire else ""
        args = ", ".join(a for a in ("" if field.required else "_rt.UNSET", alias) if a)
        default = None if field.required else "_rt.UNSET"
        if alias or (unbound and args):
            spelled = self.use("pydantic", f"pydantic.Field({args})")
            if unbound:  # (no default in the class body: see `struct`)
                metas.append(spelled)
                default = None
            else:
                default = spelled
        if metas:
            annotation = f"typing.Annotated[{annotation}, {', '.join(metas)}]"
        return FieldView(field.attr, annotation, default, self.field_doc(field))


def lower(module: ir.Module, keep_unknown_fields: bool = True) -> View:
    return PydanticLowering(module, keep_unknown_fields).view()
