"""The msgspec target's leaves for the shared walker, and its hooks (copied in as ``_convert.py``).

`_walk.Walker` is the slow path of every target; `MsgspecLeaves` teaches it
msgspec: structs, the `TaggedUnion` descriptor in a union's ``Annotated``
metadata, `ShapeUnion` classes, and strict conversion of a value with
``msgspec.convert``. The msgspec hooks for open enums, unknown members and
shape unions live here too, and so does the encoder that writes undeclared
properties back.
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
from ._guided import GuidedWalker
from ._unions import ShapeUnion, TaggedUnion, find_extra, union_spec
from ._walk import MISS, Field, Leaves

__all__ = ["convert", "dec_hook", "enc_hook", "encode_value", "error_at", "extra_fields"]

#: The attribute of a struct instance that holds its undeclared properties.
EXTRA_ATTR = "_acp_extra"
#: Set once any struct of this package holds undeclared properties in a dict (past the
#: bounds of `declaring`); until then, encoding never needs to look for them.
EXTRAS_SEEN = [False]


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


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    declared = getattr(type(obj), "__acp_undeclared__", None)
    if declared:
        out = {wire: getattr(obj, attr) for attr, wire in declared}
        return {wire: value for wire, value in out.items() if value is not UNSET}
    held = getattr(obj, "__dict__", None)
    found = held.get(EXTRA_ATTR) if held else None
    return dict(found) if found else {}


def encode_value(obj: Any) -> Any:
    """`obj` as plain JSON values, undeclared properties included (see `EXTRAS_SEEN`)."""
    return _plain(obj)


def _plain(obj: Any) -> Any:
    if isinstance(obj, msgspec.Struct):
        config = obj.__struct_config__
        out: dict[str, Any] = {}
        if config.tag_field is not None:
            out[config.tag_field] = config.tag
        for attr, wire in _wire_names(type(obj)):
            value = getattr(obj, attr)
            if value is not UNSET:
                out[wire] = _plain(value)
        held = getattr(obj, "__dict__", None)
        if held:
            for key, value in (held.get(EXTRA_ATTR) or {}).items():
                out.setdefault(key, value)
        return out
    if type(obj) is list:
        return [_plain(v) for v in obj]
    if type(obj) is dict:
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, UnknownVariant):
        return obj.raw
    return obj


#: Most classes `declaring` makes, and most undeclared properties one of them declares.
KINDS_KEPT = 1024
NAMES_KEPT = 16
_DECLARING: dict[tuple[type[Any], tuple[str, ...]], type[Any] | None] = {}


def declaring(cls: type[Any], names: tuple[str, ...]) -> type[Any] | None:
    """The subclass of struct `cls` that declares the undeclared properties `names`
    (wire names, sorted), so that msgspec reads and writes them like any other field.

    Made once per class and set of names, and kept: every struct that arrives with the
    same undeclared properties is of the same class, whichever path decoded it, so
    equal payloads decode to equal values and encoding needs no Python. None past
    `KINDS_KEPT` classes or `NAMES_KEPT` names, so a stream of ever new properties costs
    bounded memory: those structs keep their properties in a dict (`_with_extras`), as
    do those with a name msgspec cannot declare.
    """
    key = (cls, names)
    if key in _DECLARING:
        return _DECLARING[key]
    if len(_DECLARING) >= KINDS_KEPT or len(names) > NAMES_KEPT:
        return None  # (the table never shrinks, so the answer for `key` never changes)
    made = None
    if not any(_UNFIT_NAME.search(wire) for wire in names):
        taken = set(cls.__struct_fields__)
        attrs: list[tuple[str, str]] = []
        n = 0
        for wire in names:
            while f"acp_undeclared_{n}" in taken:
                n += 1
            attrs.append((f"acp_undeclared_{n}", wire))
            n += 1
        made = subclass(cls, {}, tuple(attrs))
        made.__acp_undeclared__ = tuple(attrs)
    return _DECLARING.setdefault(key, made)  # (two threads: both keep the first)


#: What msgspec refuses in a field's wire name: those properties stay in a dict.
_UNFIT_NAME = re.compile(r'[\\"\x00-\x1f]')


def subclass(cls: Any, retyped: dict[str, Any], extras: tuple[tuple[str, str], ...] = ()) -> Any:
    """A subclass of struct `cls` with the same name and options, the fields in `retyped`
    read as another type, and one more field per (attribute, wire name) in `extras`
    holding an undeclared property."""
    config = cls.__struct_config__
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "__annotations__": annotations,
    }
    for info in msgspec.structs.fields(cls):
        if info.name not in retyped:
            continue
        annotations[info.name] = retyped[info.name]
        if info.default is not msgspec.NODEFAULT:
            namespace[info.name] = msgspec.field(name=info.encode_name, default=info.default)
        elif info.default_factory is not msgspec.NODEFAULT:
            namespace[info.name] = msgspec.field(
                name=info.encode_name, default_factory=info.default_factory
            )
        else:
            namespace[info.name] = msgspec.field(name=info.encode_name)
    for attr, wire in extras:
        annotations[attr] = Any
        namespace[attr] = msgspec.field(name=wire, default=UNSET)
    options: dict[str, Any] = {
        "kw_only": True,
        "forbid_unknown_fields": config.forbid_unknown_fields,
        "omit_defaults": config.omit_defaults,
        "gc": config.gc,
        "dict": config.dict,
        "weakref": config.weakref,
        "frozen": config.frozen,
        "eq": config.eq,
        "order": config.order,
        "array_like": config.array_like,
    }
    if config.tag_field is not None:
        options.update(tag_field=config.tag_field, tag=config.tag)
    return type(cls.__name__, (cls,), namespace, **options)


def split(obj: Any) -> tuple[type[Any], dict[str, Any], dict[str, Any]]:
    """Struct `obj` as its generated class, its declared values by attribute and the
    undeclared properties it holds."""
    cls = type(obj)
    if getattr(cls, "__acp_undeclared__", None) or _EXTRA_CLASSES.get(cls.__mro__[1]) is cls:
        cls = cls.__mro__[1]
    values = {name: getattr(obj, name) for name in cls.__struct_fields__}
    return cls, values, extra_fields(obj)


_EXTRA_CLASSES: dict[type[Any], type[Any]] = {}


def _with_extras(cls: type[Any]) -> type[Any]:
    """The subclass of struct `cls` whose instances hold undeclared properties in a dict,
    for those `declaring` has no class for.

    Generated structs are untracked by the garbage collector (``gc=False``), which keeps
    strict decoding fast but rules out an instance dict; only such a struct is built as
    this subclass (same name, same fields, same wire form), and encoding then walks
    every value in Python (see `EXTRAS_SEEN`). Dispatch and the reducer look a class
    up, then its base.
    """
    sub = _EXTRA_CLASSES.get(cls)
    if sub is None:

        def body(namespace: dict[str, Any]) -> None:
            namespace.update(
                __module__=cls.__module__, __qualname__=cls.__qualname__, __doc__=cls.__doc__
            )

        sub = types.new_class(cls.__name__, (cls,), {"gc": True, "dict": True}, body)
        _EXTRA_CLASSES[cls] = sub
    return sub


_WIRE: dict[type[Any], tuple[tuple[str, str], ...]] = {}


def _wire_names(cls: type[Any]) -> tuple[tuple[str, str], ...]:
    names = _WIRE.get(cls)
    if names is None:
        names = _WIRE[cls] = tuple((f.name, f.encode_name) for f in msgspec.structs.fields(cls))
    return names


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
