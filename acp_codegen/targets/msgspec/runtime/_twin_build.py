"""Building twin decoders (copied in as ``_twin_build.py``; see ``_twin.py``).

A twin of a root type is the same type except along the path to one spot, where a
struct is the subclass that declares the undeclared property that arrived there, reads
an open union by a marker (its unknown member or a known variant, through
`_twin_hook`), reads the items of a skip-invalid array raw (or, for a leading twin, as
relaxed classes), or reads the innermost property above the spot as raw JSON (as a
plain value when it is refused for its JSON kind); see ``_twin_reads.py`` for those
two. `_build` makes the twin and the nodes that tell `_twin._finish` how to turn it
back.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
from msgspec import UnsetType

from ._convert import WALKER, dec_hook
from ._extras import declaring, subclass
from ._twin_reads import refused_kinds, relax, strict_reader
from ._unions import ShapeUnion, TaggedUnion, union_spec
from ._walk_api import _item_type


class _Struct(NamedTuple):
    """How `_finish` turns a twin struct back into its own class."""

    twin: type[Any]
    cls: type[Any]
    #: the attribute on the path below, its wire name and its node (None: the spot)
    attr: str | None = None
    wire: str | None = None
    child: Any = None
    #: the walker's view of that property when it is read raw (the node is None then)
    raw: Any = None
    #: the property read raw is known to fail below: its leniency's fallback applies
    doomed: bool = False
    #: the JSON path of the property read raw, when no array or map is above it
    where: str = ""
    #: a skip-invalid array read as raw items: the strict decoder of one item, and the
    #: route checks planned for its items' strict errors (see `_twin_items.walker_skips`)
    items: Callable[[Any], Any] | None = None
    routes: dict[Any, Any] | None = None
    #: at the spot of an undeclared property: the attribute that declares it in `twin`
    #: (a `_extras.declaring` class, kept as it is when the property arrived)
    extra: str | None = None
    #: raw items whose fault is a missing required property of the item itself: the
    #: item classes `items` reads in its place, each -> (its own class, the attribute
    #: that is `ABSENT` when the property was missing), and that fault as `walker_skips` takes it
    relaxed: dict[type[Any], tuple[type[Any], str]] | None = None
    missing: Any = None
    #: a property read as a plain JSON value rather than raw (see `_twin_reads.refused_kinds`): the
    #: types of the plain values its own type never takes
    wrong: frozenset[type[Any]] | None = None
    #: a property read raw or plain that is known to fail: its strict reader (see
    #: `strict_reader`), for the value that arrives there after all (the later of two
    #: equal keys, say)
    strict: Callable[[Any], Any] | None = None


class _Items(NamedTuple):
    """An array on the path: each item is finished by `child`."""

    child: Any


class _Values(NamedTuple):
    """A map on the path: each value is finished by `child`."""

    child: Any


class _Members(NamedTuple):
    """A union on the path: the node of each twin member, by class, and the array and map
    members' nodes, if any."""

    structs: dict[type[Any], _Struct]
    items: _Items | None
    values: _Values | None

    def parts(self) -> tuple[Any, ...]:
        """Its member nodes (what it lends to a union it is itself a member of)."""
        return (*self.structs.values(), self.items, self.values)


#: A union marker on the path: nothing to finish (the hook made the final value).
_DONE = None


class _Doomed:
    """What `_rewrite` returns for a type whose value must fail to convert, whatever it
    holds besides the fault: only a lenient property above can take it."""

    __slots__ = ()


_DOOMED = _Doomed()
_Node = _Struct | _Items | _Values | _Members | None


class _NoTwin(Exception):
    """Raised while building when the general path reads the spot faster than a twin."""


class _Route:
    """The spot one twin is built for: path segments, the error kind and its property,
    and whether items missing a property are read in the twin's one pass (`native`)."""

    __slots__ = ("kind", "native", "prop", "segments")

    def __init__(self, segments: list[Any], kind: str, prop: str | None, native: bool) -> None:
        self.segments = segments
        self.kind = kind
        self.prop = prop
        self.native = native


def _build(
    root: Any, segments: list[Any], kind: str, prop: str | None, native: bool = False
) -> tuple[Callable[[Any], Any], _Node, bool] | None:
    """The decoder and finishing node of the twin of `root` for one spot, and whether
    finishing follows one path (see `_one_path`); None when no twin can
    help (the spot is at the top, or not under any struct property).

    With `native`, a skip-invalid array whose items miss a required property is read
    as relaxed items in the twin's pass (see `_twin_reads.relax`) rather than raw:
    faster, but any other bad item then fails the whole twin, so only a leading twin is
    built so."""
    try:
        found = _rewrite(root, 0, _Route(segments, kind, prop, native))
        if found is None or isinstance(found, _Doomed):
            return None
        twin, node = found
        decode = msgspec.json.Decoder(twin, dec_hook=_twin_hook).decode
    except (_NoTwin, TypeError, ValueError, AttributeError, KeyError, RecursionError):
        # (TypeError: a type msgspec will not build a twin of): the general path reads it
        return None
    return decode, node, _one_path(node)


def _one_path(node: _Node) -> bool:
    """Whether finishing `node` meets no array or map: then it follows one path, and the
    JSON path of a property read raw is known when the twin is built (`_Struct.where`)."""
    if type(node) is _Members:
        assert isinstance(node, _Members)
        return (
            node.items is None
            and node.values is None
            and all(map(_one_path, node.structs.values()))
        )
    if type(node) is _Struct:
        assert isinstance(node, _Struct)
        return _one_path(node.child)
    return node is _DONE


def _rewrite(tp: Any, i: int, route: _Route) -> tuple[Any, _Node] | _Doomed | None:
    """The twin of type `tp`, found at `route.segments[:i]`, and its node; None when
    nothing under `tp` needs to change (the caller reads its property raw instead)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        found = _rewrite(base, i, route)
        if found is None or isinstance(found, _Doomed):
            return found
        return typing.Annotated[(found[0], *metas)], found[1]
    if origin is typing.Union or isinstance(tp, types.UnionType):
        members = typing.get_args(tp)
        found_all = [_rewrite(m, i, route) for m in members]
        # Doomed only when no other member could take the value instead.
        real = sum(m is not type(None) and m is not UnsetType for m in members)
        if real == 1 and any(isinstance(r, _Doomed) for r in found_all):
            return _DOOMED
        rewritten = [None if isinstance(r, _Doomed) else r for r in found_all]
        if all(r is None for r in rewritten):
            return None
        twins = [m if r is None else r[0] for m, r in zip(members, rewritten, strict=True)]
        structs: dict[type[Any], _Struct] = {}
        items = values = None
        for r in rewritten:
            node = None if r is None else r[1]
            # (a member that is itself a union, as in ``Annotated[A | None, ...] | Unset``,
            # lends its members to this one, or `_finish` would never reach them)
            for part in node.parts() if type(node) is _Members else (node,):
                if type(part) is _Struct:
                    structs[part.twin] = part
                elif type(part) is _Items:
                    items = part
                elif type(part) is _Values:
                    values = part
        return functools.reduce(operator.or_, twins), _Members(structs, items, values)
    last = len(route.segments)
    if origin is list:
        if i == last or type(route.segments[i]) is not int:
            return None
        found = _rewrite(typing.get_args(tp)[0], i + 1, route)
        if found is None or isinstance(found, _Doomed):  # (skipped items are the walker's to judge)
            return None
        return types.GenericAlias(list, (found[0],)), _Items(found[1])
    if origin is dict:
        if i == last or type(route.segments[i]) is not str:
            return None
        key_type, value_type = typing.get_args(tp)
        found = _rewrite(value_type, i + 1, route)
        if found is None or isinstance(found, _Doomed):
            return None
        return types.GenericAlias(dict, (key_type, found[0])), _Values(found[1])
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and not issubclass(tp, ShapeUnion):
        return _rewrite_struct(tp, i, route)
    return None


def _rewrite_struct(cls: Any, i: int, route: _Route) -> tuple[Any, _Node] | _Doomed | None:
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
        # The very class the general path builds for this property, so a struct that has
        # it needs no finishing; one without it (another item of an array on the path) is
        # built again as `cls`. Past the bounds of `declaring`, no twin.
        declared = declaring(cls, (prop,))
        if declared is None:
            raise _NoTwin
        (extra, _), *_ = declared.__acp_undeclared__
        return declared, _Struct(declared, cls, extra=extra)
    segment = route.segments[i]
    info = next((f for f in infos if f.encode_name == segment), None)
    if info is None:
        return None
    child: _Node = _DONE
    field = _walker_field(cls, info.encode_name)  # (None: a property the walker skips)
    raw_field = None
    doomed = False
    wrong = None
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
    else:
        found = _rewrite(info.type, i + 1, route)
        doomed = isinstance(found, _Doomed)
        if doomed:
            if field is None:
                return None
            if not field.lenient:
                return _DOOMED  # (a required or plain property that fails fails its struct)
            raw_field = field
            field_type = msgspec.Raw
        elif found is None:
            if field is None:
                return None
            if field.skip_invalid and i + 1 < len(route.segments):
                # A fault in (or under) one item of a skip-invalid array: its items are
                # read raw, each decoded strictly, and only a failing one walked.
                return _raw_items(cls, info, field, route.segments[: i + 1], route)
            if (
                route.kind == "bad_value"
                and i + 1 == len(route.segments)
                and WALKER.leaves.strict_safe(info.type)
            ):
                # The bad value is this property's own, and the walker reads it no
                # differently from msgspec (no shape union below): it refuses it too,
                # every time. A lenient property falls back at once; otherwise only a
                # lenient property above can take the fault (with none, no twin is built).
                if not field.lenient:
                    return _DOOMED
                doomed = True
                # Read as a plain JSON value, not raw: a value of a kind the property
                # never takes is then told by its type, with no error raised.
                wrong = refused_kinds(info.type)
            raw_field = field
            field_type = msgspec.Raw if wrong is None else Any
        else:
            assert not isinstance(found, _Doomed)
            field_type, child = found
            if field is not None and field.skip_invalid and _reads_strictly(child):
                # Inside an item of a skip-invalid array, the twin would read a property
                # raw that no leniency covers, and fail with it; reading the items raw
                # lets only that item fail (see `_raw_items`).
                return _raw_items(cls, info, field, route.segments[: i + 1], route)
    twin = subclass(cls, {info.name: field_type})
    where = _json_path(route.segments[: i + 1])
    strict = strict_reader(info.type, wrong is not None) if doomed else None
    node = _Struct(
        twin,
        cls,
        info.name,
        info.encode_name,
        child,
        raw_field,
        doomed,
        where,
        wrong=wrong,
        strict=strict,
    )
    return twin, node


def _raw_items(
    cls: Any, info: Any, field: Any, segments: list[Any], route: _Route
) -> tuple[Any, _Node]:
    """The twin of struct `cls` reading skip-invalid array property `info` (the walker's
    `field`) as a list of raw items, and its node."""
    listed = _listing_raw(info.type)
    checked = WALKER.leaves.checked(field.type)
    if listed is None or (checked is not None and checked[1] is not None):
        raise _NoTwin  # (an array with constraints of its own is checked after the skips)
    # (the item type the walker converts a failing item to)
    item = _item_type(WALKER.leaves, field.type)
    relaxed = missing = None
    if (
        route.kind == "missing_field"
        and route.prop is not None
        and len(route.segments) == len(segments) + 1
    ):
        found = relax(item, route.prop)
        if found is not None:
            item, relaxed = found
            missing = ((), route.kind, route.prop)
    native = relaxed is not None and route.native
    if native:  # (the items are read in the twin's own pass, as relaxed classes)
        listed = _listing_raw(info.type, item)
        assert listed is not None  # (the same shape `_listing_raw` took above)
    twin = subclass(cls, {info.name: listed})
    decode = None if native else msgspec.json.Decoder(item, dec_hook=dec_hook).decode
    where = _json_path(segments)
    node = _Struct(twin, cls, info.name, info.encode_name, None, field, False, where, decode, {})
    return twin, node._replace(relaxed=relaxed, missing=missing)


def _json_path(segments: list[Any]) -> str:
    """The JSON path of property names `segments` below the top."""
    return "$" + "".join(f".{s}" for s in segments)


def _reads_strictly(node: _Node) -> bool:
    """Whether finishing `node` reads raw a property that has no leniency of its own."""
    if type(node) is _Struct:
        assert isinstance(node, _Struct)
        if node.raw is not None:
            return not node.raw.lenient
        return _reads_strictly(node.child)
    if type(node) is _Members:
        assert isinstance(node, _Members)
        return any(map(_reads_strictly, node.parts()))
    if type(node) in (_Items, _Values):
        return _reads_strictly(node.child)  # type: ignore[union-attr]
    return False


def _list_of(tp: Any) -> Any:
    """The one ``list[...]`` in type `tp` (under ``Annotated`` and unions)."""
    if typing.get_origin(tp) is list:
        return tp
    if typing.get_origin(tp) is typing.Annotated:
        return _list_of(typing.get_args(tp)[0])
    lists = [a for a in typing.get_args(tp) if _list_of(a) is not None]
    return _list_of(lists[0]) if len(lists) == 1 else None


_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "pattern", "min_length", "max_length")


def _listing_raw(tp: Any, item: Any = msgspec.Raw) -> Any:
    """Type `tp` with its one ``list[X]`` read as ``list[item]`` (raw items by default);
    None when it has no single list, or a constraint msgspec would check on the list."""
    origin = typing.get_origin(tp)
    if origin is list:
        return list[item]
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        if any(getattr(m, c, None) is not None for m in metas for c in _CONSTRAINTS):
            return None
        inner = _listing_raw(base, item)
        return None if inner is None else typing.Annotated[(inner, *metas)]
    if origin is typing.Union or isinstance(tp, types.UnionType):
        members = typing.get_args(tp)
        if sum(_list_of(m) is not None for m in members) != 1:
            return None
        rewritten = [_listing_raw(m, item) if _list_of(m) is not None else m for m in members]
        if any(m is None for m in rewritten):
            return None
        return functools.reduce(operator.or_, rewritten)
    return None


def _walker_field(cls: Any, wire: str) -> Any:
    fields = WALKER.leaves.fields(cls) or ()
    return next((f for f in fields if f.wire == wire), None)


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
