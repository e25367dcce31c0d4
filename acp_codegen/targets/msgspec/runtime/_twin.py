"""Twin decoders: one msgspec pass for a message with a fault seen before
(copied in as ``_twin.py``).

When strict decoding refuses a message, the error names the spot. The general slow
path then parses the whole message into plain values and converts it again in
Python. Most refused messages in a real stream repeat one fault at one spot (an
extension property on a known update, an unknown update kind, a ``_meta`` that is
not an object), so for a spot seen twice `Twins` builds a *twin* of the root type:
the same structs, except along the path to that spot, where

- the struct that arrived with an undeclared property is a subclass declaring it,
  so msgspec reads it like any other field;
- an open union whose tag is unknown is read as the union's unknown member;
- otherwise the innermost struct property above the spot is read as raw JSON and
  handed to the walker (`Walker.field_value`), which applies exactly the leniency
  and openness converting the whole message would.

msgspec decodes the message with the twin in one pass, and a short walk down the
same path turns each twin struct back into its own class, so the result is equal,
type for type, to what the general path returns. A message with a second fault
fails the twin decode and takes the general path. Twins are built only for a spot
seen twice and at most `KEPT` are kept per root type, so a stream of ever new
faults costs no builds and no memory.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import DecodeError
from ._convert import WALKER, dec_hook
from ._unions import ShapeUnion, TaggedUnion, union_spec
from ._walk import MISS, Repair

__all__ = ["Twins"]

#: Twin decoders kept per root type (oldest dropped first).
KEPT = 64
#: Spots remembered as seen once, per root type; cleared when full.
SEEN = 1024


class Twins:
    """The twin decoders of one root type, keyed by the spot strict decoding refused."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._built: dict[tuple[Any, ...], tuple[Callable[[Any], Any], tuple[Any, ...]] | None] = {}
        self._seen: set[tuple[Any, ...]] = set()

    def __call__(self, data: bytes | str, where: Any, repairs: list[Repair] | None) -> Any:
        """`data` decoded with the twin for the spot `where` (as `error_at` reads it), or
        `MISS` when there is none yet or the message has another fault."""
        if where is MISS or where is None:
            return MISS
        segments, kind, prop = where
        key = (
            tuple(None if type(s) is int else s for s in segments),
            kind,
            prop if kind == "unknown_field" else None,
        )
        twin = self._built.get(key, MISS)
        if twin is MISS:
            if key not in self._seen:
                if len(self._seen) >= SEEN:
                    self._seen.clear()
                self._seen.add(key)
                return MISS
            twin = _build(self.root, segments, kind, prop)
            if len(self._built) >= KEPT:
                del self._built[next(iter(self._built))]
            self._built[key] = twin
        if twin is None:
            return MISS
        decode, node = twin
        try:
            value = decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeError):
            return MISS
        found: list[Repair] | None = None if repairs is None else []
        try:
            value = _finish(value, node, "$", 0, found)
        except (DecodeError, msgspec.DecodeError, RecursionError, UnicodeError):
            # (raw JSON is only checked for UTF-8 once parsed; the general path reports
            # each of these, with its own wording)
            return MISS
        if found:
            assert repairs is not None
            repairs.extend(found)
        return value


# -- building ---------------------------------------------------------------------------------

# A node says how `_finish` turns the twin's value at one type position back:
#   ("struct", twin class, own class, attribute, wire name, child node | None,
#    walker field read raw | None, (attribute, wire name) of a declared extra | None)
#   ("list", child) / ("map", child) / ("union", (member nodes...)) / ("done",)
_Node = tuple[Any, ...]


class _Route:
    """The spot one twin is built for: path segments, the error kind and its property."""

    __slots__ = ("kind", "prop", "segments")

    def __init__(self, segments: list[Any], kind: str, prop: str | None) -> None:
        self.segments = segments
        self.kind = kind
        self.prop = prop


def _build(
    root: Any, segments: list[Any], kind: str, prop: str | None
) -> tuple[Callable[[Any], Any], _Node] | None:
    """The decoder and finishing node of the twin of `root` for one spot; None when no
    twin can help (the spot is at the top, or not under any struct property)."""
    try:
        found = _rewrite(root, 0, _Route(segments, kind, prop))
        if found is None:
            return None
        twin, node = found
        decode = msgspec.json.Decoder(twin, dec_hook=_twin_hook).decode
    except (TypeError, ValueError):  # a type msgspec will not build a twin of: no shortcut
        return None
    return decode, node


def _rewrite(tp: Any, i: int, route: _Route) -> tuple[Any, _Node] | None:
    """The twin of type `tp`, found at `route.segments[:i]`, and its node; None when
    nothing under `tp` needs to change (the caller reads its property raw instead)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        found = _rewrite(base, i, route)
        if found is None:
            return None
        return typing.Annotated[(found[0], *metas)], found[1]
    if origin is typing.Union or isinstance(tp, types.UnionType):
        members = typing.get_args(tp)
        rewritten = [_rewrite(m, i, route) for m in members]
        if all(r is None for r in rewritten):
            return None
        twins = [m if r is None else r[0] for m, r in zip(members, rewritten, strict=True)]
        nodes = tuple(r[1] for r in rewritten if r is not None)
        return functools.reduce(operator.or_, twins), ("union", nodes)
    last = len(route.segments)
    if origin is list:
        if i == last or type(route.segments[i]) is not int:
            return None
        found = _rewrite(typing.get_args(tp)[0], i + 1, route)
        return (
            None if found is None else (types.GenericAlias(list, (found[0],)), ("list", found[1]))
        )
    if origin is dict:
        if i == last or type(route.segments[i]) is not str:
            return None
        key_type, value_type = typing.get_args(tp)
        found = _rewrite(value_type, i + 1, route)
        if found is None:
            return None
        return types.GenericAlias(dict, (key_type, found[0])), ("map", found[1])
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and not issubclass(tp, ShapeUnion):
        return _rewrite_struct(tp, i, route)
    return None


def _rewrite_struct(cls: Any, i: int, route: _Route) -> tuple[Any, _Node] | None:
    infos = msgspec.structs.fields(cls)
    if i == len(route.segments):  # the spot itself: only an undeclared property is kept here
        prop = route.prop
        if (
            route.kind != "unknown_field"
            or prop is None
            or not cls.__struct_config__.forbid_unknown_fields
            or any(f.encode_name == prop for f in infos)
        ):
            return None
        attr = _free_attr(cls)
        twin = _subclass(cls, {}, (attr, prop))
        return twin, ("struct", twin, cls, None, None, None, None, (attr, prop))
    segment = route.segments[i]
    info = next((f for f in infos if f.encode_name == segment), None)
    if info is None:
        return None
    child: _Node | None = None
    raw_field = None
    spec = union_spec(info.type)
    if (
        spec is not None
        and spec.unknown is not None
        and route.kind == "bad_value"
        and i + 2 == len(route.segments)
        and route.segments[i + 1] == spec.tag_field
        and info.required
    ):
        field_type: Any = _marker(spec)  # read by `_twin_hook`, unknown member or not
        child = ("done",)
    else:
        found = _rewrite(info.type, i + 1, route)
        if found is None:
            field_type = msgspec.Raw
            raw_field = _walker_field(cls, info.encode_name)
            if raw_field is None:
                return None
        else:
            field_type, child = found
    twin = _subclass(cls, {info.name: field_type}, None)
    return twin, ("struct", twin, cls, info.name, info.encode_name, child, raw_field, None)


def _walker_field(cls: Any, wire: str) -> Any:
    fields = WALKER.leaves.fields(cls) or ()
    return next((f for f in fields if f.wire == wire), None)


def _free_attr(cls: Any) -> str:
    taken = set(cls.__struct_fields__)
    n = 0
    while f"acp_undeclared_{n}" in taken:
        n += 1
    return f"acp_undeclared_{n}"


def _subclass(cls: Any, retyped: dict[str, Any], extra: tuple[str, str] | None) -> Any:
    """A subclass of struct `cls` with the fields in `retyped` read as another type and,
    if given, one more field holding an undeclared property (attribute, wire name)."""
    config = cls.__struct_config__
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
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
    if extra is not None:
        annotations[extra[0]] = Any
        namespace[extra[0]] = msgspec.field(name=extra[1], default=UNSET)
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


class _TakesAnything(type):
    """Metaclass of a union marker: msgspec checks that a hook's result is an instance of
    the declared type, and anything the hook returns for a marker is."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return True


def _marker(spec: TaggedUnion) -> type[Any]:
    """The stand-in type for open union `spec` in a twin (cached per union)."""
    found = _MARKERS.get(id(spec))
    if found is None or found[0] is not spec:
        marker = _TakesAnything(f"{spec.name}Marker", (), {"__slots__": (), "UNION": spec})
        found = _MARKERS[id(spec)] = (spec, marker)
    return found[1]


_MARKERS: dict[int, tuple[TaggedUnion, type[Any]]] = {}


def _twin_hook(tp: type[Any], obj: Any) -> Any:
    """The twin decoders' hook: an open union marker reads an unknown tag as the union's
    unknown member and a known one strictly (a variant that is itself a union too);
    anything else there is refused, so the message takes the general path."""
    if type(tp) is _TakesAnything:
        spec: TaggedUnion = tp.UNION
        tag = obj.get(spec.tag_field) if type(obj) is dict else None
        if type(tag) is not str:
            raise ValueError("no tag")
        variant = spec.variants.get(tag)
        if variant is None:
            assert spec.unknown is not None
            return spec.unknown(tag, obj)
        return msgspec.convert(obj, variant, dec_hook=dec_hook, strict=True)
    return dec_hook(tp, obj)


# -- finishing --------------------------------------------------------------------------------


def _finish(value: Any, node: _Node, path: str, depth: int, repairs: list[Repair] | None) -> Any:
    """`value`, decoded with a twin, as its own types: twin structs become their own class
    and each property read raw is converted by the walker."""
    kind = node[0]
    if kind == "struct":
        _, twin, cls, attr, wire, child, raw_field, extra = node
        if type(value) is not twin:
            return value
        if child is not None:
            held = getattr(value, attr)
            new = _finish(held, child, f"{path}.{wire}", depth + 1, repairs)
            if new is not held:
                setattr(value, attr, new)
        elif raw_field is not None:
            raw = getattr(value, attr)
            if raw is not UNSET:
                converted = WALKER.field_value(
                    msgspec.json.decode(raw), raw_field, f"{path}.{wire}", depth + 1, repairs
                )
                setattr(value, attr, UNSET if converted is MISS else converted)
        if extra is None:
            value.__class__ = cls
            return value
        values = {name: getattr(value, name) for name in cls.__struct_fields__}
        kept = getattr(value, extra[0])
        return WALKER.leaves.build(cls, values, None if kept is UNSET else {extra[1]: kept})
    if kind == "list":
        if type(value) is list:
            child = node[1]
            for i, item in enumerate(value):
                new = _finish(item, child, f"{path}[{i}]", depth + 1, repairs)
                if new is not item:
                    value[i] = new
        return value
    if kind == "map":
        if type(value) is dict:
            child = node[1]
            for key, item in value.items():
                new = _finish(item, child, f"{path}.{key}", depth + 1, repairs)
                if new is not item:
                    value[key] = new
        return value
    if kind == "union":
        for member in node[1]:
            if _holds(value, member):
                return _finish(value, member, path, depth, repairs)
        return value
    return value


def _holds(value: Any, node: _Node) -> bool:
    kind = node[0]
    if kind == "struct":
        return type(value) is node[1]
    if kind == "list":
        return type(value) is list
    if kind == "map":
        return type(value) is dict
    if kind == "union":
        return any(_holds(value, n) for n in node[1])
    return False
