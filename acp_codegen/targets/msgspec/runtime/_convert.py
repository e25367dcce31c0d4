"""The msgspec target's leaves for the shared walker, and its hooks (copied in as ``_convert.py``).

`_walk.Walker` is the slow path of every target; `MsgspecLeaves` teaches it
msgspec: structs, the `TaggedUnion` descriptor in a union's ``Annotated``
metadata, `ShapeUnion` classes, and strict conversion of a value with
``msgspec.convert``. The msgspec hooks for open enums, unknown members and
shape unions live here too; how structs hold undeclared properties is `_extras`.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import DecodeError, UnknownVariant
from ._extras import EXTRA_ATTR, EXTRAS_SEEN, _with_extras, declaring, split
from ._guided import GuidedWalker
from ._unions import ShapeUnion, TaggedUnion, find_extra, union_spec
from ._walk import MISS, Field, Leaves

__all__ = ["convert", "dec_hook", "enc_hook", "error_at"]


def dec_hook(tp: type[Any], obj: Any) -> Any:
    """msgspec decode hook for shape unions (one decoder per type, cached). Open enums
    need none: msgspec reads them natively (see `_runtime.OpenStrEnum`)."""
    decode = _HOOKS.get(tp)
    if decode is None:
        decode = _HOOKS[tp] = _hook_for(tp)
    return decode(obj)


_HOOKS: dict[type[Any], Callable[[Any], Any]] = {}


def _hook_for(tp: type[Any]) -> Callable[[Any], Any]:
    if issubclass(tp, ShapeUnion):

        def shape(obj: Any) -> Any:
            try:
                # Strict: a repair here could not be reported, so it fails the fast path
                # and the caller's slow path redoes it with reporting.
                return WALKER.convert(obj, tp, strict=True)
            except DecodeError as exc:
                raise ValueError(exc.message) from None

        return shape
    raise NotImplementedError(f"no decoder for {tp!r}")


def enc_hook(obj: Any) -> Any:
    """msgspec encode hook: unknown variants write their raw payload back."""
    if isinstance(obj, UnknownVariant):
        return obj.raw
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


def _marked(tp: Any, key: str) -> bool:
    """Whether `key` is in the metadata of `tp` or of a type it is built from."""
    if find_extra(tp, key) is not None:
        return True
    if typing.get_origin(tp) is typing.Annotated:
        return _marked(typing.get_args(tp)[0], key)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(_marked(a, key) for a in typing.get_args(tp))
    return False


_ERROR_KINDS = (
    ("unknown_field", "Object contains unknown field `"),
    ("missing_field", "Object missing required field `"),
)
_SEGMENT = re.compile(r"\.([^.\[\]`]+)|\[(\d+)\]")


def _segments(where: str) -> list[Any] | None:
    """``$.update.content[2]`` -> ``["update", "content", 2]``; None when ambiguous."""
    if not where.startswith("$"):
        return None
    if "[" not in where and "`" not in where:  # the common case: property names only
        names = where[1:].split(".")
        return names[1:] if not names[0] and all(names[1:]) else None
    out: list[Any] = []
    at = 1
    for match in _SEGMENT.finditer(where, 1):
        if match.start() != at:
            return None
        key, index = match.groups()
        out.append(key if key is not None else int(index))
        at = match.end()
    return out if at == len(where) else None


def error_at(exc: msgspec.ValidationError) -> Any:
    """Where a strict msgspec error points: (path segments, kind, property), `MISS` when
    that cannot be read (see `MsgspecLeaves.strict_error`). Read once per distinct error
    text: a stream tends to repeat its faults (the same extension property, say)."""
    text = str(exc)
    found = _ERRORS.get(text)
    if found is None:
        if len(_ERRORS) >= _ERRORS_KEPT:
            _ERRORS.clear()
        found = _ERRORS[text] = _read_error(text)
    return found


#: error text -> `error_at`; bounded, so memory stays flat whatever arrives
_ERRORS: dict[str, Any] = {}
_ERRORS_KEPT = 256


def _read_error(text: str) -> Any:
    message, found, where = text.rpartition(" - at `")
    if not found:  # an error at the top carries no path
        message, where = where, "$`"
    segments = _segments(where[:-1])
    if segments is None:
        return MISS
    for kind, prefix in _ERROR_KINDS:
        if message.startswith(prefix) and message.endswith("`"):
            return (segments, kind, message[len(prefix) : -1])
    return (segments, "bad_value", None)


class MsgspecLeaves(Leaves):
    """The walker's view of msgspec types."""

    unset = UNSET

    def __init__(self) -> None:
        self._safe: dict[int, tuple[Any, bool]] = {}
        self._placeholders: dict[int, tuple[Any, Any]] = {}

    def try_strict(self, obj: Any, tp: Any) -> Any:
        try:
            return msgspec.convert(obj, tp, dec_hook=dec_hook, strict=True)
        except msgspec.ValidationError:
            return MISS
        except RecursionError:
            raise DecodeError("value nests too deeply", "$") from None

    def strict_error(self, obj: Any, tp: Any) -> tuple[Any, Any]:
        """(value, None) when `obj` converts strictly; else (MISS, where) with `where` the
        error as (path segments, kind, property), or `MISS` when it cannot be read."""
        try:
            return msgspec.convert(obj, tp, dec_hook=dec_hook, strict=True), None
        except msgspec.ValidationError as exc:
            return MISS, error_at(exc)
        except RecursionError:
            raise DecodeError("value nests too deeply", "$") from None

    def attach(self, obj: Any, extra: dict[str, Any]) -> Any:
        """A copy of struct `obj` holding the undeclared properties `extra` as well."""
        cls, values, kept = split(obj)
        kept.update(extra)
        return self.build(cls, values, kept)

    def kept_as(self, values: dict[str, Any], cls: Any, extra: dict[str, Any]) -> Any:
        """JSON object `values` converted strictly straight into a struct of class `cls`
        holding the undeclared properties `extra`; `MISS` when it does not convert."""
        sub = declaring(cls, tuple(sorted(extra)))
        try:
            if sub is not None:
                return msgspec.convert({**values, **extra}, sub, dec_hook=dec_hook, strict=True)
            obj = msgspec.convert(values, _with_extras(cls), dec_hook=dec_hook, strict=True)
        except (msgspec.ValidationError, RecursionError):
            return MISS  # (the whole conversion reports it)
        obj.__dict__[EXTRA_ATTR] = extra
        EXTRAS_SEEN[0] = True
        return obj

    def placeholder(self, spec: TaggedUnion | type[Any]) -> Any:
        """An instance of struct `spec` (or of a struct member of tagged union `spec`),
        which strict conversion passes through as it is (its fields are not meant to be
        read); `MISS` if there is none."""
        found = self._placeholders.get(id(spec))
        if found is None or found[0] is not spec:
            members = [spec] if isinstance(spec, type) else spec.variants.values()
            member = next(
                (v for v in members if isinstance(v, type) and issubclass(v, msgspec.Struct)),
                None,
            )
            instance = MISS
            if member is not None:
                required = [f.name for f in msgspec.structs.fields(member) if f.required]
                instance = member(**dict.fromkeys(required))
            found = self._placeholders[id(spec)] = (spec, instance)
        return found[1]

    def strict_safe(self, tp: Any) -> bool:
        """No shape union below `tp`: strict conversion never calls back into the walker."""
        return self._is_safe(tp, set())

    def _is_safe(self, tp: Any, seen: set[int]) -> bool:
        cached = self._safe.get(id(tp))
        if cached is not None and cached[0] is tp:
            return cached[1]
        if id(tp) in seen:
            return True
        seen.add(id(tp))
        if isinstance(tp, type) and issubclass(tp, ShapeUnion):
            safe = False
        elif isinstance(tp, type) and issubclass(tp, msgspec.Struct):
            safe = all(self._is_safe(f.type, seen) for f in msgspec.structs.fields(tp))
        else:
            spec = union_spec(tp)
            inner = list(typing.get_args(tp))
            if spec is not None:
                inner += [*spec.variants.values(), spec.default]
            safe = all(self._is_safe(a, seen) for a in inner if not isinstance(a, msgspec.Meta))
        self._safe[id(tp)] = (tp, safe)
        return safe

    def leaf(self, obj: Any, tp: Any, path: str) -> Any:
        try:
            return msgspec.convert(obj, tp, dec_hook=dec_hook, strict=True)
        except msgspec.ValidationError as exc:
            message, _, where = str(exc).partition(" - at `$")
            raise DecodeError(message, path + where.rstrip("`")) from None

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        if not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
            return None
        out = []
        for info in msgspec.structs.fields(tp):
            meta = find_extra(info.type, "acp_on_error")
            out.append(
                Field(
                    info.name,
                    info.encode_name,
                    info.type,
                    info.required,
                    meta is not None,
                    meta.extra["acp_on_error"] if meta is not None and meta.extra else UNSET,
                    _marked(info.type, "acp_skip_invalid"),
                )
            )
        return tuple(out)

    def model_tag(self, cls: Any) -> tuple[str, str] | None:
        config = cls.__struct_config__
        return None if config.tag_field is None else (config.tag_field, config.tag)

    def keeps_extra(self, cls: Any) -> bool:
        return bool(cls.__struct_config__.forbid_unknown_fields)

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        if not extra:
            return cls(**values)
        sub = declaring(cls, tuple(sorted(extra)))
        if sub is not None:
            return sub(**values, **{attr: extra[wire] for attr, wire in sub.__acp_undeclared__})
        obj = _with_extras(cls)(**values)
        obj.__dict__[EXTRA_ATTR] = extra
        EXTRAS_SEEN[0] = True
        return obj

    def tagged(self, tp: Any) -> TaggedUnion | None:
        return union_spec(tp)

    def members(self, tp: Any) -> tuple[Any, ...] | None:
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return typing.get_args(tp)
        if isinstance(tp, type) and issubclass(tp, ShapeUnion):
            return tp.MEMBERS
        return None

    def container(self, tp: Any) -> tuple[str, Any] | None:
        origin = typing.get_origin(tp)
        if origin is list:
            return ("list", typing.get_args(tp)[0])
        if origin is dict:
            return ("map", typing.get_args(tp)[1])
        return None

    def checked(self, tp: Any) -> tuple[Any, Any] | None:
        if typing.get_origin(tp) is not typing.Annotated:
            return None
        base, *metas = typing.get_args(tp)
        constraints = [m for m in metas if isinstance(m, msgspec.Meta) and not m.extra]
        walkable = typing.get_origin(base) in (
            list,
            dict,
            typing.Union,
            types.UnionType,
            typing.Annotated,
        ) or (isinstance(base, type) and issubclass(base, msgspec.Struct | ShapeUnion))
        if not walkable:
            return None
        if not constraints:
            return (base, None)

        def check(value: Any, path: str) -> None:
            shape = list[Any] if isinstance(value, list) else dict[str, Any]
            self.leaf(value, typing.Annotated[shape, *constraints], path)

        return (base, check)


WALKER = GuidedWalker(MsgspecLeaves())


#: Convert decoded JSON into a generated type, applying open unions, undeclared
#: properties and leniency (see `Walker.convert`).
convert = WALKER.convert
