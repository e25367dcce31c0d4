"""How the lenient pass reads the dataclasses target's types (copied in as ``_leaves.py``).

`DataclassLeaves` tells `_read.Readers` about the generated dataclasses, their field
types and constraints. The lenient pass is this target's whole decoder, so each scalar
converter is a small closure made once per type.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from ._base import bad_length, json_type, out_of_bounds
from ._models import _WIRE, EXTRA, UNSET, Meta, Model, UnsetType, _NumberMark
from ._read import Field, Leaves, Leniency, Readers, leniency

_Convert = Callable[[Any], Any]


def _strip(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """(`tp` without ``Annotated``, its metadata)."""
    metas: tuple[Any, ...] = ()
    while typing.get_origin(tp) is typing.Annotated:
        metas = tp.__metadata__ + metas
        tp = tp.__origin__
    return tp, metas


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Model)


def check_meta(value: Any, meta: Meta) -> None:
    """Raise `ValueError` when `value` breaks a constraint of `meta`."""
    if meta.ge is not None and value < meta.ge:
        raise ValueError(out_of_bounds(value, ">=", meta.ge))
    if meta.le is not None and value > meta.le:
        raise ValueError(out_of_bounds(value, "<=", meta.le))
    if meta.gt is not None and value <= meta.gt:
        raise ValueError(out_of_bounds(value, ">", meta.gt))
    if meta.lt is not None and value >= meta.lt:
        raise ValueError(out_of_bounds(value, "<", meta.lt))
    if meta.multiple_of is not None and value % meta.multiple_of:
        raise ValueError(f"Expected `{json_type(value)}` that's a multiple of {meta.multiple_of}")
    if meta.min_length is not None and len(value) < meta.min_length:
        raise ValueError(bad_length(value, ">=", meta.min_length))
    if meta.max_length is not None and len(value) > meta.max_length:
        raise ValueError(bad_length(value, "<=", meta.max_length))
    if meta.pattern is not None and re.search(meta.pattern, value) is None:
        raise ValueError(f"Expected `str` matching regex {meta.pattern!r}")


def _expect(kinds: tuple[type[Any], ...], name: str) -> _Convert:
    def convert(obj: Any) -> Any:
        if type(obj) not in kinds:
            raise ValueError(f"Expected `{name}`, got `{json_type(obj)}`")
        return obj

    return convert


def _literal(values: tuple[Any, ...]) -> _Convert:
    def convert(obj: Any) -> Any:
        for value in values:
            if type(obj) is type(value) and obj == value:
                return obj
        raise ValueError(f"Invalid value {obj!r}")

    return convert


def _enum(cls: type[enum.Enum]) -> _Convert:
    kind = str if issubclass(cls, str) else int

    def convert(obj: Any) -> Any:
        if type(obj) is not kind:
            raise ValueError(f"Expected `{kind.__name__}`, got `{json_type(obj)}`")
        try:
            return cls(obj)
        except ValueError:
            raise ValueError(f"Invalid enum value {obj!r}") from None

    return convert


def _same(obj: Any) -> Any:
    return obj


def _scalar(tp: Any) -> _Convert:
    """The converter of one scalar type, its constraints included."""
    base, metas = _strip(tp)
    convert: _Convert
    if any(isinstance(m, _NumberMark) for m in metas):
        convert = _expect((int, float), "number")
    elif base is typing.Any or base is object:
        convert = _same
    elif base is type(None) or base is None:
        convert = _expect((type(None),), "null")
    elif base in (str, int, bool):
        convert = _expect((base,), base.__name__)
    elif base is float:
        convert = _expect((int, float), "float")
    elif typing.get_origin(base) is typing.Literal:
        convert = _literal(typing.get_args(base))
    elif isinstance(base, type) and issubclass(base, enum.Enum):
        convert = _enum(base)
    else:
        raise TypeError(f"not a type of this package: {tp!r}")
    checks = [m for m in metas if isinstance(m, Meta)]
    if not checks:
        return convert
    inner = convert

    def checked(obj: Any) -> Any:
        value = inner(obj)
        for meta in checks:
            check_meta(value, meta)
        return value

    return checked


class DataclassLeaves(Leaves):
    """What the lenient pass needs to know of generated dataclasses."""

    unset: Any = UNSET

    def __init__(self) -> None:
        self._fields: dict[type[Any], tuple[Field, ...]] = {}
        self._defaults: dict[type[Any], dict[str, Any]] = {}

    def scalar(self, tp: Any) -> _Convert:
        return _scalar(tp)

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        if not _is_model(tp):
            return None
        found = self._fields.get(tp)
        if found is None:
            found = _field_specs(tp)
            defaults = {f.attr: UNSET for f in found if not f.required}
            self._defaults[tp] = {**defaults, EXTRA: None}  # (first: another thread may
            self._fields[tp] = found  # build as soon as it sees the fields)
        return found

    def model_tag(self, cls: Any) -> tuple[str, str] | None:
        tag: tuple[str, str] | None = cls.__acp_tag__
        return tag

    def keeps_extra(self, cls: Any) -> bool:
        return bool(cls.__acp_keep__)

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        obj = object.__new__(cls)
        state = self._defaults[cls].copy()
        state.update(values)
        if extra:
            state[EXTRA] = extra
        obj.__dict__ = state
        return obj

    def checked(self, tp: Any) -> tuple[Any, Callable[[Any], None] | None] | None:
        if typing.get_origin(tp) is not typing.Annotated:
            return None
        base, metas = _strip(tp)
        walkable = typing.get_origin(base) in (
            list,
            dict,
            typing.Union,
            types.UnionType,
        ) or _is_model(base)
        if not walkable or any(isinstance(m, _NumberMark) for m in metas):
            return None
        checks = [m for m in metas if isinstance(m, Meta)]
        if not checks:
            return (base, None)

        def check(value: Any) -> None:
            for meta in checks:
                check_meta(value, meta)

        return (base, check)


def _without_unset(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        members = tuple(m for m in typing.get_args(tp) if m is not UnsetType)
        return typing.Union[members] if len(members) > 1 else members[0]  # noqa: UP007
    return tp


def _field_specs(cls: type[Any]) -> tuple[Field, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        if f.name == EXTRA:
            continue
        tp, metas = _strip(hints[f.name])
        rest = tuple(m for m in metas if not isinstance(m, Leniency))
        required = f.default is dataclasses.MISSING
        if not required:
            tp = _without_unset(tp)
        if rest:
            annotated = (tp, *rest)
            tp = typing.Annotated[annotated]
        wire = f.metadata.get(_WIRE, f.name)
        out.append(Field(f.name, wire, tp, required, *leniency(hints[f.name])))
    return tuple(out)


#: The lenient pass, which is this target's whole decoder.
READERS = Readers(DataclassLeaves())
