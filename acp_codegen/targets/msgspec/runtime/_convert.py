"""How the lenient pass reads msgspec types, and the msgspec hooks (copied in as ``_convert.py``).

`MsgspecLeaves` tells `_read.Readers` about structs, the `TaggedUnion` descriptor in
a union's ``Annotated`` metadata, `ShapeUnion` classes and the leniency markers,
and converts scalars, and whole subtrees, strictly with ``msgspec.convert``. Where
strict decoding failed is read off msgspec's error (`error_path`), so the lenient
pass walks those nodes without offering them to ``msgspec.convert`` again.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import (
    Bounded,
    TaggedUnion,
    UnknownVariant,
    bad_length,
    json_type,
    out_of_bounds,
)
from ._extras import EXTRA, Extras, Flatten
from ._read import MISS, Field, Leaves, Readers, leniency
from ._unions import ShapeUnion, union_spec

__all__ = ["READERS", "IntRange", "dec_hook", "enc_hook", "error_path"]


def dec_hook(tp: type[Any], obj: Any) -> Any:
    """msgspec decode hook for shape unions. Strict: a repair here could not be reported,
    so it fails the fast path, and the lenient pass reads the payload with reporting."""
    if isinstance(tp, type) and issubclass(tp, ShapeUnion):
        try:
            return READERS.convert(obj, tp, strict=True)
        except ValueError as exc:
            raise ValueError(getattr(exc, "message", str(exc))) from None
    if tp is Extras:  # (a payload property named like the field: an undeclared one)
        raise ValueError(f"`{EXTRA}` is read as an undeclared property")
    raise NotImplementedError(f"no decoder for {tp!r}")


def enc_hook(obj: Any) -> Any:
    """msgspec encode hook: unknown variants write their raw payload back."""
    if isinstance(obj, UnknownVariant):
        return obj.raw
    if type(obj) is Extras:
        raise Flatten
    raise TypeError(f"cannot encode {type(obj).__name__}")


class IntRange:
    """Bounds of an integer that lie past int64, which ``msgspec.Meta`` cannot hold (the
    top of ``uint64``), in the ``Annotated`` metadata of its type. Strict decoding checks
    them in the struct's ``__post_init__``, the lenient pass at the value itself. Compared
    by identity, as `_read.Leniency` is: ``typing`` caches ``Annotated`` types by their
    metadata, and an equal marker of another package would stand in for this one."""

    __slots__ = ("high", "low")

    def __init__(self, low: int | None, high: int | None) -> None:
        self.low = low
        self.high = high

    def __repr__(self) -> str:
        return f"IntRange({self.low!r}, {self.high!r})"

    def check(self, value: Any) -> None:
        if type(value) is not int:
            return
        if self.low is not None and value < self.low:
            raise ValueError(out_of_bounds(value, ">=", self.low))
        if self.high is not None and value > self.high:
            raise ValueError(out_of_bounds(value, "<=", self.high))


#: One step of the path in a msgspec error: ``.name`` or ``[3]``.
_STEP = re.compile(r"\.([^.\[\]`]*)|\[(\d+)\]")


def error_path(exc: msgspec.ValidationError) -> list[str | int]:
    """Where a strict msgspec error points, as keys from the top (``$.update.content[2]``
    -> ``["update", "content", 2]``); what cannot be read stops the list early, which
    only means fewer nodes are walked straight away."""
    _, found, where = str(exc).rpartition(" - at `$")
    where = where[:-1]
    if not found or not where:
        return []
    if "[" not in where:  # (the common case: property names alone)
        return where[1:].split(".")  # type: ignore[return-value]
    out: list[str | int] = []
    for match in _STEP.finditer(where):
        key, index = match.groups()
        out.append(key if key is not None else int(index))
    return out


class MsgspecLeaves(Leaves):
    """What the lenient pass needs to know of msgspec types."""

    unset = UNSET

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        if not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
            return None
        out = []
        for info in msgspec.structs.fields(tp):
            if info.name == EXTRA:
                continue
            flags = leniency(info.type)
            out.append(Field(info.name, info.encode_name, info.type, info.required, *flags))
        return tuple(out)

    def model_tag(self, cls: Any) -> tuple[str, str] | None:
        config = cls.__struct_config__
        return None if config.tag_field is None else (config.tag_field, config.tag)

    def keeps_extra(self, cls: Any) -> bool:
        return bool(cls.__struct_config__.forbid_unknown_fields)

    def kept(self, cls: Any, obj: Any, names: tuple[str, ...]) -> Any:
        strict = _KEPT.get(cls)
        if strict is None:
            strict = self.strict(cls) or (lambda obj: MISS)
            _KEPT.put(cls, strict)
        undeclared = set(names)
        inner = strict({k: v for k, v in obj.items() if k not in undeclared})
        if inner is not MISS:
            msgspec.structs.force_setattr(inner, EXTRA, Extras((k, obj[k]) for k in names))
        return inner

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        if extra:
            values[EXTRA] = Extras(extra)
        return cls(**values)

    def tagged(self, tp: Any) -> TaggedUnion | None:
        return union_spec(tp)

    def members(self, tp: Any) -> tuple[Any, ...] | None:
        if isinstance(tp, type) and issubclass(tp, ShapeUnion):
            return tp.MEMBERS
        return super().members(tp)

    def checked(self, tp: Any) -> tuple[Any, Callable[[Any], None] | None] | None:
        if typing.get_origin(tp) is not typing.Annotated:
            return None
        base, *metas = typing.get_args(tp)
        if not _walkable(base):
            return None
        constraints = [m for m in metas if isinstance(m, msgspec.Meta)]
        if not constraints:
            return (base, None)

        def check(value: Any) -> None:
            for meta in constraints:
                if meta.min_length is not None and len(value) < meta.min_length:
                    raise ValueError(bad_length(value, ">=", meta.min_length))
                if meta.max_length is not None and len(value) > meta.max_length:
                    raise ValueError(bad_length(value, "<=", meta.max_length))

        return (base, check)

    def scalar(self, tp: Any) -> Callable[[Any], Any] | type[Any]:
        if tp is Any or tp is object:
            return _same
        if tp in (str, int, bool, type(None)):
            return tp  # type: ignore[no-any-return]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return _enum(tp)
        convert = _strictly(tp)
        metas = getattr(tp, "__metadata__", ())
        wide = next((m for m in metas if isinstance(m, IntRange)), None)
        if wide is None:
            return convert

        def bounded(obj: Any) -> Any:
            value = convert(obj)
            wide.check(value)
            return value

        return bounded

    def strict(self, tp: Any) -> Callable[[Any], Any] | None:
        if _hooked(tp):
            return None  # (its shape unions would be read again, each from scratch)
        decode = msgspec.json.Decoder(tp, dec_hook=dec_hook).decode

        def attempt(obj: Any) -> Any:
            # Written back as JSON and read by msgspec's own decoder: it reads the value
            # exactly as strict decoding of the message reads it, and keeps what it knows
            # of the type (``msgspec.convert`` works it out again at every call).
            try:
                return decode(_ENCODE(obj))
            except msgspec.ValidationError:
                return MISS

        return attempt


def _hooked(tp: Any) -> bool:
    """Whether strict decoding of `tp` reaches a shape union, which `dec_hook` reads with
    the lenient pass. Offering such a value to msgspec inside the lenient pass would read
    each nested shape union again from the start, at a cost that doubles with each level,
    so the lenient pass walks those types itself."""
    try:
        found = _HOOKED.get(tp)
    except TypeError:  # an unhashable type: worked out each time
        return _reaches_shape(tp, set())
    if found is None:
        found = _reaches_shape(tp, set())
        _HOOKED.put(tp, found)
    return found  # type: ignore[no-any-return]


def _reaches_shape(tp: Any, seen: set[int]) -> bool:
    if id(tp) in seen:
        return False
    seen.add(id(tp))
    if isinstance(tp, type) and issubclass(tp, ShapeUnion):
        return True
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return any(_reaches_shape(f.type, seen) for f in msgspec.structs.fields(tp))
    return any(_reaches_shape(arg, seen) for arg in typing.get_args(tp))


def _walkable(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin in (list, dict, typing.Union, types.UnionType, typing.Annotated):
        return True
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct | ShapeUnion)


def _same(obj: Any) -> Any:
    return obj


def _enum(cls: type[enum.Enum]) -> Callable[[Any], Any]:
    """An enum's member by value (as msgspec reads it: a value an open enum does not list
    becomes a member of its own, see `_base.OpenStrEnum`)."""
    kind = str if issubclass(cls, str) else int
    members = cls._value2member_map_

    def convert(obj: Any) -> Any:
        if type(obj) is not kind:
            raise ValueError(f"Expected `{kind.__name__}`, got `{json_type(obj)}`")
        found = members.get(obj)
        if found is not None:
            return found
        try:
            return cls(obj)
        except ValueError:
            raise ValueError(f"Invalid enum value {obj!r}") from None

    return convert


def _strictly(tp: Any) -> Callable[[Any], Any]:
    """A scalar read as strict decoding reads it (an enum, a constrained string...)."""
    decode = msgspec.json.Decoder(tp, dec_hook=dec_hook).decode

    def convert(obj: Any) -> Any:
        try:
            return decode(_ENCODE(obj))
        except msgspec.ValidationError as exc:
            message = str(exc).partition(" - at `")[0]
            if type(obj) is int:  # (msgspec calls an integer past 64 bits a float)
                message = message.replace("got `float`", "got `int`")
            raise ValueError(message) from None

    return convert


_ENCODE = msgspec.json.Encoder(enc_hook=enc_hook).encode
#: model class -> its strict converter (`MsgspecLeaves.strict`), for `MsgspecLeaves.kept`
_KEPT = Bounded(entries=1024, size=1024)
#: type -> whether its strict decoding reaches a shape union (`_hooked`)
_HOOKED = Bounded(entries=4096, size=4096)


#: The lenient pass for this package's types.
READERS = Readers(MsgspecLeaves())
