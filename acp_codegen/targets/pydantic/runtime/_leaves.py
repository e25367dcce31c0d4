"""The walker's view of pydantic types: the pydantic target's slow path (copied into the
package as ``_leaves.py``).

Strict validation runs first; only when it fails does `convert` walk the decoded JSON
with the shared walker (``_walk.py``), applying the ``x-deserialize-*`` leniency flags
and reporting the variant and field at fault.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

import pydantic

from ._base import DecodeError, json_type
from ._models import (
    UNSET,
    WIRE,
    Lenient,
    ShapeChoice,
    SkipInvalid,
    TaggedUnion,
    _union_spec,
    adapter,
)
from ._walk import MISS, Field, Leaves, Walker

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
    """The walker's view of pydantic types."""

    unset: Any = UNSET

    def try_strict(self, obj: Any, tp: Any) -> Any:
        try:
            return adapter(tp).validate_python(obj, **WIRE)
        except pydantic.ValidationError:
            return MISS
        except RecursionError:
            raise DecodeError("value nests too deeply", "$") from None

    def leaf(self, obj: Any, tp: Any, path: str) -> Any:
        try:
            return adapter(tp).validate_python(obj, **WIRE)
        except pydantic.ValidationError as exc:
            message, where = _first_error(exc)
            raise DecodeError(message, path + where) from None

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

    def checked(self, tp: Any) -> tuple[Any, Any] | None:
        if typing.get_origin(tp) is not typing.Annotated:
            return None
        base, *metas = typing.get_args(tp)
        metas = [m for m in metas if not isinstance(m, Lenient | SkipInvalid | ShapeChoice)]
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

        def check(value: Any, path: str) -> None:
            shape = list[Any] if isinstance(value, list) else dict[str, Any]
            try:
                adapter(typing.Annotated[shape, *metas]).validate_python(value)
            except pydantic.ValidationError as exc:
                raise DecodeError(_first_error(exc)[0], path) from None

        return (base, check)


@functools.cache
def _field_specs(cls: type[pydantic.BaseModel]) -> tuple[Field, ...]:
    out = []
    for attr, info in cls.model_fields.items():
        meta = [m for m in info.metadata if not isinstance(m, Lenient | SkipInvalid)]
        tp: Any = typing.Annotated[info.annotation, *meta] if meta else info.annotation
        found = next((m for m in info.metadata if isinstance(m, Lenient)), None)
        out.append(
            Field(
                attr,
                info.alias or attr,
                tp,
                info.is_required(),
                found is not None,
                found.on_error if found is not None else UNSET,
                any(isinstance(m, SkipInvalid) for m in info.metadata),
            )
        )
    return tuple(out)


WALKER = Walker(PydanticLeaves())


#: Convert decoded JSON into a generated type, applying open unions, undeclared
#: properties and leniency (see `Walker.convert`).
convert = WALKER.convert
