"""The intermediate representation: the contract between build and every later stage.

The build stage turns a schema into one `Module`; render, diff and inspect read
it and never change it. Every node is a frozen dataclass holding what a
consumer needs: the Python name, the wire name, the doc text and the JSON
pointer it came from. Type expressions (`TypeExpr`) are a small closed algebra
over named definitions, so no stage has to look at raw schema dicts again.

Tree::

    Module
     ├─ defs: Struct | TaggedUnion | Enum | Alias | ShapeUnion   (sorted by name)
     ├─ methods: Method                                          (x-method / x-side)
     └─ notification: the session/update params def, when present

A `TaggedUnion` lists `Variant`s; each variant points at the `Struct` that
carries its tag (or, for a variant whose body is itself a union, at that union).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]

#: Integer ``format`` -> (unsigned, bits), for the bounds a format implies (``uint32``).
INT_FORMAT_BITS = {
    f"{sign}int{bits}": (sign == "u", bits) for sign in ("", "u") for bits in (8, 16, 32, 64)
}

#: Sentinel for "the schema gives no default".
NO_DEFAULT: tuple[()] = ()


@dataclass(frozen=True)
class Constraints:
    """Validation keywords that the generated decoder enforces.

    On an integer an exclusive bound is already the inclusive one next to it
    (``exclusiveMinimum: 0`` is ``minimum: 1``); on a number at most one of the two
    bounds of a side is set, the stricter.
    """

    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    #: The schema's pattern (ECMA-262), and `regex`, what Python's re matches it with.
    pattern: str | None = None
    regex: str | None = None
    min_items: int | None = None
    max_length: int | None = None
    max_items: int | None = None
    #: Only on integers: the libraries test a float's remainder each their own way.
    multiple_of: int | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None

    def any(self) -> bool:
        return any(getattr(self, f.name) is not None for f in fields(self))


PrimKind = Literal["str", "int", "float", "bool", "any", "null"]


@dataclass(frozen=True)
class Prim:
    """A JSON scalar, or any JSON value (``kind="any"``)."""

    kind: PrimKind
    format: str | None = None
    constraints: Constraints = Constraints()
    #: contentEncoding, kept for documentation.
    encoding: str | None = None

    def value_range(self) -> tuple[int | float | None, int | float | None]:
        """The effective (minimum, maximum): the schema's bounds within what an integer
        ``format`` (``uint32``) can hold; None where there is no bound."""
        low: int | float | None = None
        high: int | float | None = None
        if self.kind == "int" and self.format in INT_FORMAT_BITS:
            unsigned, bits = INT_FORMAT_BITS[self.format]
            low = 0 if unsigned else -(2 ** (bits - 1))
            high = 2**bits - 1 if unsigned else 2 ** (bits - 1) - 1
        c = self.constraints
        if c.minimum is not None:
            low = c.minimum if low is None else max(low, c.minimum)
        if c.maximum is not None:
            high = c.maximum if high is None else min(high, c.maximum)
        return low, high


@dataclass(frozen=True)
class Ref:
    """A reference to a named definition in `Module.defs`, by its Python name."""

    name: str


@dataclass(frozen=True)
class ListOf:
    item: TypeExpr
    constraints: Constraints = Constraints()


@dataclass(frozen=True)
class MapOf:
    """A JSON object used as a map from string keys to values."""

    value: TypeExpr


@dataclass(frozen=True)
class LiteralOf:
    """An inline closed set of constants (``enum``/``const`` outside a def)."""

    values: tuple[str | int | bool, ...]


@dataclass(frozen=True)
class Nullable:
    inner: TypeExpr


@dataclass(frozen=True)
class UnionOf:
    """An inline untagged union, told apart by shape."""

    members: tuple[TypeExpr, ...]


TypeExpr = Prim | Ref | ListOf | MapOf | LiteralOf | Nullable | UnionOf


def refs(expr: TypeExpr) -> set[str]:
    """The names of the definitions a type expression refers to, at any depth."""
    if isinstance(expr, Ref):
        return {expr.name}
    if isinstance(expr, ListOf):
        return refs(expr.item)
    if isinstance(expr, MapOf):
        return refs(expr.value)
    if isinstance(expr, Nullable):
        return refs(expr.inner)
    if isinstance(expr, UnionOf):
        return set().union(*(refs(m) for m in expr.members))
    return set()


@dataclass(frozen=True)
class Annotation:
    """One of our semantic ``x-acp-*`` annotations, kept as parsed JSON."""

    key: str
    value: JsonValue


#: The ``x-deserialize-*`` flags a field can carry (each the `Field` attribute of its name).
LENIENT_FLAGS = ("default-on-error", "skip-invalid-items", "default-on-null")


@dataclass(frozen=True)
class Field:
    """One property of a struct."""

    attr: str
    wire: str
    type: TypeExpr
    required: bool
    doc: str
    pointer: str
    default: JsonValue | tuple[()] = NO_DEFAULT
    #: x-deserialize-default-on-error: a value that fails to decode becomes the default.
    default_on_error: bool = False
    #: x-deserialize-skip-invalid-items: array items that fail to decode are dropped.
    skip_invalid_items: bool = False
    #: x-deserialize-default-on-null: a null array reads as empty (other wrong kinds fail).
    default_on_null: bool = False
    #: A fixed tag of an enclosing union, carried as an ordinary optional field.
    fixed: str | None = None
    annotations: tuple[Annotation, ...] = ()

    @property
    def nullable(self) -> bool:
        return isinstance(self.type, Nullable) or self.type == Prim("any")

    @property
    def lenient_flags(self) -> tuple[str, ...]:
        """The ``x-deserialize-*`` flags this field carries, by their names after that prefix."""
        return tuple(f for f in LENIENT_FLAGS if getattr(self, f.replace("-", "_")))


@dataclass(frozen=True)
class Tag:
    field: str
    value: str


@dataclass(frozen=True)
class Struct:
    name: str
    doc: str
    pointer: str
    fields: tuple[Field, ...]
    tag: Tag | None = None
    #: The schema def this struct's fields came from, if not its own.
    body: str | None = None


@dataclass(frozen=True)
class Variant:
    """One tagged member of a union."""

    tag: str
    doc: str
    pointer: str
    #: Python name of the Struct carrying this tag, or of the nested TaggedUnion.
    target: str
    nested: bool = False
    annotations: tuple[Annotation, ...] = ()
    #: The dispatch handler method for this tag (`naming.handler_method`).
    handler: str = ""


@dataclass(frozen=True)
class TaggedUnion:
    name: str
    doc: str
    pointer: str
    tag_field: str
    variants: tuple[Variant, ...]
    #: True when an "other" fallback keeps unknown tags.
    open: bool
    unknown_name: str
    table_name: str
    #: Struct used when the tag is absent (an untagged default variant), and its implied tag.
    default_variant: str | None = None
    default_tag: str | None = None
    #: Tags the open fallback's ``not`` reserves (normally equal to `tags`).
    reserved: tuple[str, ...] = ()
    annotations: tuple[Annotation, ...] = ()
    #: The default variant is taken when the tag is null or absent (its tag property is
    #: ``type: null``), and a tag that is no string goes there too, whose own field then
    #: reads it (``stopReason`` in an idle state).
    null_tag: bool = False
    #: The open fallback is the `Struct` named `unknown_name` (the union declares properties
    #: of its own, which unknown members carry too), not an ``UnknownVariant`` of raw JSON.
    typed_fallback: bool = False

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(v.tag for v in self.variants)


@dataclass(frozen=True)
class EnumValue:
    value: str | int
    const_name: str
    doc: str


@dataclass(frozen=True)
class Enum:
    name: str
    doc: str
    pointer: str
    base: Literal["str", "int"]
    values: tuple[EnumValue, ...]
    #: Open enums keep any value; closed ones reject unknown values.
    open: bool
    format: str | None = None
    #: The least and greatest integer an open integer enum keeps beyond the values it lists
    #: (its fallback's ``format`` and bounds); None where there is no bound.
    bounds: tuple[int | float | None, int | float | None] = (None, None)


@dataclass(frozen=True)
class Alias:
    """A named scalar, list, map or any-JSON type (``MessageId = str``)."""

    name: str
    doc: str
    pointer: str
    target: TypeExpr


@dataclass(frozen=True)
class ShapeUnion:
    """A named untagged union whose members are told apart by shape."""

    name: str
    doc: str
    pointer: str
    members: tuple[TypeExpr, ...]
    titles: tuple[str, ...] = ()


Def = Struct | TaggedUnion | Enum | Alias | ShapeUnion


@dataclass(frozen=True)
class Method:
    """A JSON-RPC method from ``x-method``/``x-side``."""

    method: str
    side: str
    kind: Literal["request", "response", "notification"]
    type_name: str


@dataclass(frozen=True)
class Module:
    source: str
    sha256: str
    title: str
    defs: tuple[Def, ...]
    methods: tuple[Method, ...]
    #: Python name of the session/update notification params struct, if generated.
    notification: str | None = None
    #: Python name of the union that notification carries in ``update``.
    update_union: str | None = None
    update_field: str | None = None
    #: ``(keyword, pointer)`` of validation the job let through unenforced
    #: (``--allow-unenforced``; see `keywords`).
    unenforced: tuple[tuple[str, str], ...] = ()
    #: ``(method, side that handles it)`` for every ``x-method`` of the schema, for
    #: telling who sent a message (``conformance.py``).
    sides: tuple[tuple[str, str], ...] = ()
    _index: dict[str, Def] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update({d.name: d for d in self.defs})

    def get(self, name: str) -> Def:
        return self._index[name]

    def find(self, name: str) -> Def | None:
        """The def named `name`, or None (an ``Unknown*`` class has no def)."""
        return self._index.get(name)

    @property
    def unions(self) -> tuple[TaggedUnion, ...]:
        return tuple(d for d in self.defs if isinstance(d, TaggedUnion))
