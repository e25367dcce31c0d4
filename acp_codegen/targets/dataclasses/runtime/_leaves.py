"""How the shared walker reads the dataclasses target's types (copied in as ``_leaves.py``).

`DataclassLeaves` teaches `_walk.Walker` the generated dataclasses, their field types
and constraints; the walker is this target's whole decoder, so scalar conversions are
closures built once per type.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from ._base import DecodeError, TaggedUnion, json_type
from ._models import (
    _WIRE,
    UNSET,
    Lenient,
    Meta,
    Model,
    SkipInvalid,
    UnsetType,
    _NumberMark,
)
from ._walk import MISS, Field, Leaves, Walker


def _strip(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """(`tp` without ``Annotated``, its metadata)."""
    metas: tuple[Any, ...] = ()
    while typing.get_origin(tp) is typing.Annotated:
        metas = tp.__metadata__ + metas
        tp = tp.__origin__
    return tp, metas


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Model)


def _check_meta(value: Any, meta: Meta, path: str) -> None:
    if meta.ge is not None and value < meta.ge:
        raise DecodeError(f"Expected `{json_type(value)}` >= {meta.ge}", path)
    if meta.le is not None and value > meta.le:
        raise DecodeError(f"Expected `{json_type(value)}` <= {meta.le}", path)
    if meta.min_length is not None and len(value) < meta.min_length:
        raise DecodeError(f"Expected length >= {meta.min_length}", path)
    if meta.pattern is not None and re.search(meta.pattern, value) is None:
        raise DecodeError(f"Expected `str` matching regex {meta.pattern!r}", path)


_Conv = Callable[[Any, str], Any]


def _expect(kinds: tuple[type[Any], ...], name: str) -> _Conv:
    def conv(obj: Any, path: str) -> Any:
        if type(obj) not in kinds:
            raise DecodeError(f"Expected `{name}`, got `{json_type(obj)}`", path)
        return obj

    return conv


def _literal(values: tuple[Any, ...]) -> _Conv:
    def conv(obj: Any, path: str) -> Any:
        for value in values:
            if type(obj) is type(value) and obj == value:
                return obj
        raise DecodeError(f"Invalid value {obj!r}", path)

    return conv


def _enum(cls: type[enum.Enum]) -> _Conv:
    kind = str if issubclass(cls, str) else int

    def conv(obj: Any, path: str) -> Any:
        if type(obj) is not kind:
            raise DecodeError(f"Expected `{kind.__name__}`, got `{json_type(obj)}`", path)
        try:
            return cls(obj)
        except ValueError:
            raise DecodeError(f"Invalid enum value {obj!r}", path) from None

    return conv


def _any(obj: Any, path: str) -> Any:
    return obj


def _scalar(tp: Any) -> _Conv:
    """The converter of one scalar type, its constraints included."""
    base, metas = _strip(tp)
    if any(isinstance(m, _NumberMark) for m in metas):
        conv = _expect((int, float), "number")
    elif base is typing.Any or base is object:
        conv = _any
    elif base is type(None) or base is None:
        conv = _expect((type(None),), "null")
    elif base in (str, int, bool):
        conv = _expect((base,), base.__name__)
    elif base is float:
        conv = _expect((int, float), "float")
    elif typing.get_origin(base) is typing.Literal:
        conv = _literal(typing.get_args(base))
    elif isinstance(base, type) and issubclass(base, enum.Enum):
        conv = _enum(base)
    elif typing.get_origin(base) in (typing.Union, types.UnionType):
        members = tuple(_scalar(m) for m in typing.get_args(base))

        def conv(obj: Any, path: str) -> Any:
            for member in members:
                try:
                    return member(obj, path)
                except DecodeError:
                    continue
            raise DecodeError(f"Invalid value {obj!r}", path)
    else:
        raise TypeError(f"not a type of this package: {tp!r}")
    checks = [m for m in metas if isinstance(m, Meta)]
    if not checks:
        return conv
    inner = conv

    def checked(obj: Any, path: str) -> Any:
        value = inner(obj, path)
        for meta in checks:
            _check_meta(value, meta, path)
        return value

    return checked


def _without_unset(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        members = tuple(m for m in typing.get_args(tp) if m is not UnsetType)
        return typing.Union[members] if len(members) > 1 else members[0]  # noqa: UP007
    return tp


class DataclassLeaves(Leaves):
    """The walker's view of generated dataclasses and their field types."""

    unset: Any = UNSET

    def __init__(self) -> None:
        self._scalars: dict[int, tuple[Any, _Conv]] = {}
        self._fields: dict[type[Any], tuple[Field, ...]] = {}
        self._defaults: dict[type[Any], dict[str, Any]] = {}

    def strict_safe(self, tp: Any) -> bool:
        return False

    def try_strict(self, obj: Any, tp: Any) -> Any:
        return MISS

    def leaf(self, obj: Any, tp: Any, path: str) -> Any:
        found = self._scalars.get(id(tp))
        if found is None or found[0] is not tp:
            found = self._scalars[id(tp)] = (tp, _scalar(tp))
        return found[1](obj, path)

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        if not _is_model(tp):
            return None
        found = self._fields.get(tp)
        if found is None:
            found = self._fields[tp] = _field_specs(tp)
            self._defaults[tp] = {f.attr: UNSET for f in found if not f.required}
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
            state["__acp_extra__"] = extra
        obj.__dict__ = state
        return obj

    def tagged(self, tp: Any) -> TaggedUnion | None:
        if typing.get_origin(tp) is typing.Annotated:
            for meta in tp.__metadata__:
                if isinstance(meta, TaggedUnion):
                    return meta
        return None

    def checked(self, tp: Any) -> tuple[Any, Any] | None:
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

        def check(value: Any, path: str) -> None:
            for meta in checks:
                _check_meta(value, meta, path)

        return (base, check)


def _field_specs(cls: type[Any]) -> tuple[Field, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        tp, metas = _strip(hints[f.name])
        found = next((m for m in metas if isinstance(m, Lenient)), None)
        rest = tuple(m for m in metas if not isinstance(m, Lenient | SkipInvalid))
        required = f.default is dataclasses.MISSING
        if not required:
            tp = _without_unset(tp)
        if rest:
            tp = typing.Annotated[(tp, *rest)]
        out.append(
            Field(
                f.name,
                f.metadata.get(_WIRE, f.name),
                tp,
                required,
                found is not None,
                found.on_error if found is not None else UNSET,
                any(isinstance(m, SkipInvalid) for m in metas),
            )
        )
    return tuple(out)


#: The slow path, which is this target's whole decoder.
WALKER = Walker(DataclassLeaves())
