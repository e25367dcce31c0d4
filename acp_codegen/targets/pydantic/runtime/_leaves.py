"""How the lenient pass reads pydantic types (copied into the package as ``_leaves.py``).

Strict validation runs first; only when it fails does `convert` read the decoded JSON
with the shared lenient pass (``_read.py``), applying the ``x-deserialize-*`` leniency
flags and reporting the variant and field at fault.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any

import pydantic

from ._base import json_type
from ._models import (
    UNSET,
    Lenient,
    NullEmpty,
    ShapeChoice,
    SkipInvalid,
    TaggedUnion,
    _reaches,
    _union_spec,
    adapter,
)
from ._read import MISS, Field, Leaves, Readers

# -- slow path ------------------------------------------------------------------------------


def _first_error(exc: pydantic.ValidationError) -> tuple[str, str]:
    """A short message and a relative path (``.field[0]``) for a pydantic error."""
    error = exc.errors(include_url=False)[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
    kind = error["type"]
    if kind == "missing":
        *parent, name = where.rsplit(".", 1)
        return f"Object missing required field `{name}`", "".join(parent)
    if kind.endswith("_type") and kind != "model_type":
        expected = kind.removesuffix("_type").replace("string", "str").replace("dict", "object")
        return f"Expected `{expected}`, got `{json_type(error['input'])}`", where
    return str(error["msg"]), where


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


class PydanticLeaves(Leaves):
    """What the lenient pass needs to know of pydantic types."""

    unset: Any = UNSET

    def strict(self, tp: Any) -> Callable[[Any], Any] | None:
        if _chooses(tp, set()):
            return None  # (a union read member by member below: see `ShapeChoice`)
        validate = adapter(tp).validate_python

        def attempt(obj: Any) -> Any:
            try:
                return validate(obj, strict=True, by_alias=True, by_name=False)
            except pydantic.ValidationError:
                return MISS

        return attempt

    def scalar(self, tp: Any) -> Callable[[Any], Any]:
        validate = adapter(tp).validate_python

        def convert(obj: Any) -> Any:
            try:
                return validate(obj, strict=True, by_alias=True, by_name=False)
            except pydantic.ValidationError as exc:
                raise ValueError(_first_error(exc)[0]) from None

        return convert

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        return _field_specs(tp) if _is_model(tp) else None

    def keeps_extra(self, cls: Any) -> bool:
        return bool(cls.model_config.get("extra") == "allow")

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        obj = cls.model_construct(**values)
        if cls.model_config.get("extra") == "allow":
            object.__setattr__(obj, "__pydantic_extra__", extra or {})
        return obj

    def tagged(self, tp: Any) -> TaggedUnion | None:
        return _union_spec(tp)

    def checked(self, tp: Any) -> tuple[Any, Callable[[Any], None] | None] | None:
        if typing.get_origin(tp) is not typing.Annotated:
            return None
        base, *metas = typing.get_args(tp)
        markers = Lenient | SkipInvalid | NullEmpty | ShapeChoice
        metas = [m for m in metas if not isinstance(m, markers)]
        inner = _strip(base)
        walkable = typing.get_origin(inner) in (
            list,
            dict,
            typing.Union,
            types.UnionType,
        ) or _is_model(inner)
        if not walkable:
            return None
        if not metas:
            return (base, None)

        def check(value: Any) -> None:
            shape = list[Any] if isinstance(value, list) else dict[str, Any]
            try:
                adapter(typing.Annotated[(shape, *metas)]).validate_python(value)
            except pydantic.ValidationError as exc:
                raise ValueError(_first_error(exc)[0]) from None

        return (base, check)


def _chooses(tp: Any, seen: set[int]) -> bool:
    """Whether a union that reaches itself and is read by the lenient pass (see
    `ShapeChoice`) lies below `tp`: offering such a value to pydantic whole would read the
    union's members again at every level."""
    if id(tp) in seen:
        return False
    seen.add(id(tp))
    inner = list(typing.get_args(tp))
    if typing.get_origin(tp) is typing.Annotated and _recursive(inner[0], inner[1:]):
        return True
    if _is_model(tp):
        for info in tp.model_fields.values():
            if _recursive(info.annotation, info.metadata):
                return True
            inner.append(info.annotation)
    spec = _union_spec(tp)
    if spec is not None:
        inner += [*spec.variants.values(), spec.default, spec.unknown]
    return any(_chooses(each, seen) for each in inner if each is not None)


def _recursive(union: Any, metadata: Any) -> bool:
    members = typing.get_args(union)
    marked = any(isinstance(m, ShapeChoice) for m in metadata)
    return marked and len(members) > 1 and _reaches(members, union, set())


@functools.cache
def _field_specs(cls: type[pydantic.BaseModel]) -> tuple[Field, ...]:
    out = []
    for attr, info in cls.model_fields.items():
        meta = [m for m in info.metadata if not isinstance(m, Lenient | SkipInvalid | NullEmpty)]
        tp: Any = typing.Annotated[(info.annotation, *meta)] if meta else info.annotation
        found = next((m for m in info.metadata if isinstance(m, Lenient)), None)
        out.append(
            Field(
                attr,
                info.alias or attr,
                tp,
                info.is_required(),
                found.on_error if found is not None else MISS,
                any(isinstance(m, SkipInvalid) for m in info.metadata),
                any(isinstance(m, NullEmpty) for m in info.metadata),
            )
        )
    return tuple(out)


#: The lenient pass for this package's types.
READERS = Readers(PydanticLeaves())

#: Read decoded JSON as a generated type, with leniency (see `_read.Readers.convert`).
convert = READERS.convert
