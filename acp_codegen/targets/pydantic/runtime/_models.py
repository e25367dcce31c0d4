"""The models of the pydantic target: what generated classes derive from and are typed
with (copied into the package as ``_models.py``; ``_runtime.py`` re-exports what generated
code uses).

- `Model` and `OpenModel`, the strict bases of every generated class (snake_case
  attributes, camelCase aliases), the second keeping undeclared properties;
- `AnyJson`, JSON of no declared type, refused when it holds a number JSON cannot write;
- open enums, taught to pydantic as strict strings and integers;
- `UnknownVariant`: what an open union decodes an unknown tag into;
- `tagged_union`, which builds a union with a callable discriminator, so an unknown tag
  is kept while a known tag with a bad body is an error, and `shape_choice`, the marker
  of a union told apart by shape;

Omitted optional fields hold `UNSET`, pydantic-core's ``MISSING`` sentinel, which its
serializer leaves out; an explicit JSON ``null`` is ``None``. pydantic names the sentinel
``pydantic.MISSING`` from 2.14 and, before that, only in ``pydantic.experimental``, which
2.14 deprecates; pydantic-core's own name serves every release from 2.13, with no warning.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any

import pydantic
import pydantic_core
from pydantic_core import MISSING, core_schema

from . import _base

#: The value of an omitted optional field; left out when encoding.
UNSET = MISSING
UnsetType = type(MISSING)
#: A JSON ``number``: integers stay integers (and re-encode without a ``.0``).
Number: typing.TypeAlias = int | float


def finite_json(value: Any) -> Any:
    """`value`, JSON of no declared type, when every number in it is finite; else a
    `ValueError`. pydantic-core reads ``NaN``, ``Infinity`` and ``1e400`` into such a
    value as floats its serializer cannot write back (``allow_inf_nan`` covers only
    declared numbers), so the strict pass refuses them here and the slow path's
    parser reports them. One pass over the value, with no recursion."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if item - item != 0.0:  # (true for NaN and the infinities alone)
                raise ValueError("a number that is NaN or infinite cannot be written as JSON")
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return value


#: A JSON value of no declared type: anything, as long as it can be written back.
AnyJson: typing.TypeAlias = typing.Annotated[Any, pydantic.AfterValidator(finite_json)]


class Model(pydantic.BaseModel):
    """Base of every generated model.

    Strict: no ``"1"`` -> ``1`` or ``true`` -> ``1`` coercion. Python code builds
    models with snake_case keywords; the wire (`decode`, `convert`) accepts only
    the camelCase aliases, and encoding writes them.
    """

    model_config = pydantic.ConfigDict(
        strict=True,
        # A property the schema does not declare fails the strict pass, and the slow
        # path drops it (`OpenModel` keeps it instead): pydantic-core would drop it
        # unread, a NaN or a lone surrogate in it included, where every other target
        # refuses those.
        extra="forbid",
        # Infinity, NaN and numbers beyond a double cannot be written back as JSON.
        allow_inf_nan=False,
        validate_by_alias=True,
        validate_by_name=True,
        serialize_by_alias=True,
        # Field names that pydantic itself uses are renamed by the generator; the
        # ``model_`` prefix alone is fine for the schema's fields.
        protected_namespaces=(),
    )


class OpenModel(Model):
    """A `Model` that keeps the properties its schema does not declare.

    They land in pydantic's ``model_extra`` (read them with `extra_fields`) and are
    written back on encode.
    """

    model_config = pydantic.ConfigDict(extra="allow")
    # Typed, so undeclared properties are held to what `AnyJson` holds a value to.
    __pydantic_extra__: dict[str, AnyJson] = pydantic.Field(init=False)


# pydantic has read the annotation above; the class attribute it leaves would hide
# `BaseModel`'s own slot of that name, and measured 1.5x slower encoding.
del OpenModel.__pydantic_extra__


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    found = (
        getattr(obj, "__pydantic_extra__", None) if isinstance(obj, pydantic.BaseModel) else None
    )
    return dict(found) if found else {}


def rebuild(*models: type[pydantic.BaseModel]) -> None:
    """Finish building models whose annotations named types defined after them."""
    for model in models:
        model.model_rebuild()


# -- open enums ---------------------------------------------------------------------------


class _Scalar:
    """Teaches pydantic an open enum: validated as the strict string or integer it is, then
    looked up in the enum (which keeps values it does not list); written back as that."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        text = issubclass(cls, str)
        scalar = (core_schema.str_schema if text else core_schema.int_schema)(strict=True)
        written = core_schema.simple_ser_schema("str" if text else "int")

        def member(value: Any) -> Any:
            try:
                return cls(value)  # type: ignore[call-arg]
            except ValueError:  # (past the enum's range), worded as on every target
                raise ValueError(f"Invalid enum value {value!r}") from None

        return core_schema.no_info_after_validator_function(member, scalar, serialization=written)


class OpenStrEnum(_Scalar, _base.OpenStrEnum):
    """`_base.OpenStrEnum`, validated by pydantic as a strict string."""


class OpenIntEnum(_Scalar, _base.OpenIntEnum):
    """`_base.OpenIntEnum`, validated by pydantic as a strict integer."""


# -- unions ---------------------------------------------------------------------------------


class UnknownVariant(_base.UnknownVariant):
    """`_base.UnknownVariant`, read from a JSON object and written back as it came."""

    __slots__ = ()

    @classmethod
    def _from_json(cls, raw: dict[str, Any]) -> _base.UnknownVariant:
        return cls._from_raw(finite_json(raw))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        from_dict = core_schema.no_info_after_validator_function(
            cls._from_json, core_schema.dict_schema(core_schema.str_schema())
        )
        return core_schema.json_or_python_schema(
            json_schema=from_dict,
            python_schema=core_schema.union_schema(
                [core_schema.is_instance_schema(cls), from_dict]
            ),
            serialization=core_schema.plain_serializer_function_ser_schema(
                _raw_of, when_used="always"
            ),
        )


def _raw_of(value: UnknownVariant) -> dict[str, Any]:
    return value.raw


def _same(value: Any) -> Any:
    return value


class TaggedUnion(_base.TaggedUnion):
    """Descriptor of a tagged union, kept in its type's ``Annotated`` metadata: the slow
    path reads it, and it gives pydantic the union's schema."""

    __slots__ = ("_by_class", "_choices", "_default_label", "_unknown_label")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        # Each member under a label: its tag, or for the unknown and the default member
        # a label no tag has. Model instances find theirs by class.
        self._choices: dict[str, Any] = dict(self.variants)
        self._by_class: dict[type[Any], str] = {}
        for label, target in self.variants.items():
            for cls in _member_classes(target):
                self._by_class.setdefault(cls, label)
        self._unknown_label = self._add("<unknown>", self.unknown)
        self._default_label = self._add("<default>", self.default)
        if self.unknown is not None and self._unknown_label is not None:
            self._by_class[self.unknown] = self._unknown_label
        if self.default is not None and self._default_label is not None:
            self._by_class.setdefault(self.default, self._default_label)

    def _add(self, label: str, member: Any) -> str | None:
        if member is None:
            return None
        while label in self._choices:
            label = f"<{label}>"
        self._choices[label] = member
        return label

    def _route(self, value: Any) -> str | None:
        """The label of the member that reads `value`: a JSON object's tag, else the class."""
        if type(value) is not dict:
            return self._by_class.get(type(value))
        tag = value.get(self.tag_field, _ABSENT)
        if tag is _ABSENT or (self.null_tag and type(tag) is not str):
            return self._default_label
        if type(tag) is not str:  # (a list or an object here cannot even be looked up)
            return None
        return tag if tag in self.variants else self._unknown_label

    def __get_pydantic_core_schema__(
        self, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """pydantic-core's tagged union, twice over.

        Python input (model instances, dicts from user code) goes by `_route`: an unknown
        tag to the unknown member, a missing one to the default member, a known tag's
        body to its own variant alone, so a malformed known member is an error instead
        of silently matching another. JSON input goes by the wire tag, read straight from
        the parsed JSON (`_route` would need each member turned into a Python dict
        first); an unknown tag falls through to a second member that takes any object
        whose tag is a string *not* among the known ones. A union with a default or a
        typed unknown member reads JSON by `_route` too.
        """
        choices = {label: handler.generate_schema(tp) for label, tp in self._choices.items()}
        python = core_schema.tagged_union_schema(choices, discriminator=self._route)
        typed_unknown = self.unknown is not None and not issubclass(self.unknown, UnknownVariant)
        if self.default is not None or typed_unknown:
            return python
        choices = {tag: handler.generate_schema(tp) for tag, tp in self.variants.items()}
        fast: core_schema.CoreSchema = core_schema.tagged_union_schema(
            choices, discriminator=self.tag_field
        )
        if self.unknown is not None:
            unknown = core_schema.no_info_after_validator_function(
                self._unknown, core_schema.dict_schema(core_schema.str_schema())
            )
            fast = core_schema.union_schema([fast, unknown], mode="left_to_right")
        # Output goes by `_route`, which finds a model instance's member by its class.
        serialization = core_schema.plain_serializer_function_ser_schema(
            _same, return_schema=python, when_used="always"
        )
        return core_schema.json_or_python_schema(
            json_schema=fast, python_schema=python, serialization=serialization
        )

    def _unknown(self, raw: dict[str, Any]) -> _base.UnknownVariant:
        tag = raw.get(self.tag_field)
        if type(tag) is not str or tag in self.variants or self.unknown is None:
            raise pydantic_core.PydanticCustomError(
                "acp_tag", "not an unknown {name} member", {"name": self.name}
            )
        member: _base.UnknownVariant = self.unknown(tag, finite_json(raw))
        return member


class ShapeChoice:
    """Metadata of an untagged union told apart by shape (``Annotated[A | B, shape_choice]``).

    pydantic's own union takes a payload with the member that sets the most fields, and
    several members that keep undeclared properties can each take any object. Here a
    member takes the value only when it keeps nothing aside (no undeclared property of
    its own), trying the members in order; a value every member would take only with
    something kept aside fails, and the slow path reads it as it does for every target
    (the first member that takes it at all).

    pydantic-core tries each member in full, so a union whose members reach it again
    would cost time exponential in its depth: such a union is read by `read` instead
    (the lenient pass, strictly, which tries each member once per value).
    """

    __slots__ = ("read",)

    def __init__(self, read: Any = None) -> None:
        self.read = read

    def __get_pydantic_core_schema__(
        self, source: Any, handler: pydantic.GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        members = typing.get_args(source) if _is_union(source) else ()
        if len(members) < 2:
            return handler(source)
        if self.read is not None and _reaches(members, source):
            read = self.read

            def validate(value: Any) -> Any:
                if isinstance(value, pydantic.BaseModel):  # (built in Python, not decoded)
                    return value
                return read(value, source, strict=True)

            return core_schema.no_info_plain_validator_function(validate)
        whole: list[core_schema.CoreSchema | tuple[core_schema.CoreSchema, str]] = [
            core_schema.no_info_after_validator_function(_whole, handler.generate_schema(m))
            for m in members
        ]
        return core_schema.union_schema(whole, mode="left_to_right")


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def reachable(*roots: Any) -> Iterator[Any]:
    """Every type reachable from `roots`, each once: through type arguments and
    ``Annotated`` metadata, models' fields (each as ``Annotated`` with its metadata),
    tagged unions' members and a ``TypedDict``'s keys (the envelope's)."""
    seen: set[int] = set()
    pending = list(roots)
    while pending:
        tp = pending.pop()
        if tp is None or id(tp) in seen:
            continue
        seen.add(id(tp))
        yield tp
        pending += typing.get_args(tp)
        if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
            for info in tp.model_fields.values():
                meta = (info.annotation, *info.metadata)
                pending.append(typing.Annotated[meta] if info.metadata else info.annotation)
        elif isinstance(tp, TaggedUnion):
            pending += [*tp.variants.values(), tp.unknown, tp.default]
        elif isinstance(getattr(tp, "__annotations__", None), dict):
            pending += tp.__annotations__.values()


def _reaches(members: tuple[Any, ...], union: Any) -> bool:
    """Whether a type reachable from `members` is `union` again."""
    return any(tp == union for tp in reachable(*members))


def _whole(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel) and value.model_extra:
        raise pydantic_core.PydanticCustomError("acp_kept", "keeps undeclared properties")
    return value


def _member_classes(target: Any) -> list[type[Any]]:
    """The concrete classes a variant target stands for (a nested union's members)."""
    spec = TaggedUnion.of(target)
    if spec is None:
        return [target]
    out: list[type[Any]] = []
    for inner in spec.variants.values():
        out += _member_classes(inner)
    out += [c for c in (spec.default, spec.unknown) if c is not None]
    return out


def tagged_union(
    name: str,
    tag_field: str,
    variants: Mapping[str, Any],
    unknown: type[Any] | None = None,
    default: type[Any] | None = None,
    null_tag: bool = False,
) -> Any:
    """The runtime type of a tagged union: the union of its members, annotated with the
    `TaggedUnion` that reads it."""
    spec = TaggedUnion(name, tag_field, variants, unknown, default, null_tag)
    members = tuple(m for m in (*variants.values(), unknown, default) if m is not None)
    return typing.Annotated[typing.Union[members], spec]  # noqa: UP007


_ABSENT = object()


_ADAPTERS = _base.Bounded(entries=256, size=256)


def adapter(tp: Any) -> pydantic.TypeAdapter[Any]:
    """The `TypeAdapter` of a type, made once and kept; a `TypeError` for a type pydantic
    cannot validate (as every target raises for a type it does not know)."""
    found: pydantic.TypeAdapter[Any] | None = _ADAPTERS.get(tp)
    if found is None:
        try:
            found = pydantic.TypeAdapter(tp)
        except (pydantic.PydanticUserError, pydantic.PydanticSchemaGenerationError) as exc:
            raise TypeError(f"not a type this package decodes: {tp!r} ({exc})") from None
        _ADAPTERS.put(tp, found)
    return found
