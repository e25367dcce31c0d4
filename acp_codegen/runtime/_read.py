"""The lenient pass of every target (copied in as ``_read.py``), and the JSON-RPC helpers
the targets share (`notification_params`, `is_request`).

Strict decoding by the model library comes first. A payload it refuses is parsed
into plain JSON values and read here, in one pass, by readers made from the types
the generated models declare:

- an open union's unknown tag becomes its fallback member; an absent tag (or, where
  the union takes one, a null tag) its default member;
- undeclared properties are kept beside the declared ones, where the class keeps them;
- ``x-deserialize-default-on-error`` replaces a bad value by its fallback,
  ``x-deserialize-default-on-null`` reads a null array or map as empty, and
  ``x-deserialize-skip-invalid-items`` drops a bad array item. Each of these is a
  `Repair`, which the caller can ask for.

A target says how to read its own types through a `Leaves` subclass. `Readers` makes
one reader (a closure) per type the first time the type is read, and keeps it: a
cache of what the annotations say, bounded, never consulted for a value. Where the
target has a strict converter for a whole subtree, the reader offers the subtree to
it first and walks it only when it refuses; `hint` names the nodes the caller's
strict pass already saw fail, which are walked straight away. Either way the result
is the one the walk gives. Cost is linear: a node is read once per type that meets
it, and untagged unions remember each (node, member) they tried.
"""

from __future__ import annotations

import contextlib
import enum
import json
import threading
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ._base import Bounded, DecodeError, TaggedUnion, UnknownVariant, json_type

#: What a strict converter returns for a value it does not take.
MISS: Any = object()
#: What a lenient property's reader returns when its fallback is to leave it out.
_DROP: Any = object()
#: Most readers kept; past this the table starts again (types a caller builds per call,
#: ``list[X]`` say, would otherwise grow it without end).
MAX_READERS = 4096

#: A value's place in the payload: None for the top, else (parent place, key or index).
At = tuple[Any, str | int] | None
Read = Callable[[Any, At, "_Ctx"], Any]


class _Nothing(enum.Enum):
    """The type of `NOTHING`, the same in every target's package."""

    NOTHING = "NOTHING"

    def __repr__(self) -> str:
        return "NOTHING"


#: A repair's `replacement` where nothing replaced the value (the package exports it): never
#: read as a value (``None`` is JSON's null) or as one library's unset marker.
NOTHING = _Nothing.NOTHING


class Repair(NamedTuple):
    """One change leniency made while decoding a message.

    `path` is the JSON path of the value (``$.update.entries[2]``); `action` is
    ``"defaulted"`` (the value was replaced by its fallback, `replacement`, or left out) or
    ``"skipped"`` (an array item was dropped); `original` is the value as it arrived.
    Where nothing took the value's place, `replacement` is `NOTHING`.
    """

    path: str
    action: str
    original: Any
    replacement: Any = None


class Field(NamedTuple):
    """One declared property of a model, as the readers need it."""

    attr: str
    wire: str
    type: Any
    required: bool
    #: x-deserialize-default-on-error: what a bad value becomes (the target's unset: left
    #: out); `MISS` when the property is not lenient
    on_error: Any
    #: x-deserialize-skip-invalid-items
    skip_invalid: bool
    #: x-deserialize-default-on-null: what a null reads as (the empty array or map); `MISS`
    #: when the property is not flagged
    on_null: Any


class Leniency:
    """An ``x-deserialize-*`` flag in the ``Annotated`` metadata of a field's type, put by
    the generator on the spot the flag covers (see `leniency`). Compared by identity, so
    that ``typing`` never takes one package's marker for another's."""

    __slots__ = ("flag", "value")

    def __init__(self, flag: str, value: Any = None) -> None:
        self.flag = flag
        #: what the spot reads as when the flag applies
        self.value = value

    def __repr__(self) -> str:
        return f"Leniency({self.flag!r}, {self.value!r})"


def lenient(on_error: Any) -> Leniency:
    """``x-deserialize-default-on-error``: a bad value becomes `on_error`."""
    return Leniency("default-on-error", on_error)


def null_empty(empty: list[Any] | dict[str, Any]) -> Leniency:
    """``x-deserialize-default-on-null``: a null reads as `empty`, the array or map's."""
    return Leniency("default-on-null", empty)


#: ``x-deserialize-skip-invalid-items``: the array's bad items are dropped.
skip_invalid = Leniency("skip-invalid-items")


def leniency(tp: Any, metadata: Iterable[Any] = ()) -> tuple[Any, bool, Any]:
    """(`Field.on_error`, `Field.skip_invalid`, `Field.on_null`) of a field of type `tp`:
    the markers in `metadata` (the field's own, where a library keeps them apart) and on
    `tp`, through ``Annotated`` and unions but never into a container's items."""
    found = {m.flag: m for m in metadata if isinstance(m, Leniency)}
    pending = [tp]
    while pending:
        each = pending.pop()
        origin = typing.get_origin(each)
        if origin is typing.Annotated:
            found.update((m.flag, m) for m in each.__metadata__ if isinstance(m, Leniency))
            pending.append(each.__origin__)
        elif origin in (typing.Union, types.UnionType):
            pending += typing.get_args(each)
    error, null = found.get("default-on-error"), found.get("default-on-null")
    skip = "skip-invalid-items" in found
    return (MISS if error is None else error.value, skip, MISS if null is None else null.value)


class Leaves:
    """What a target tells the readers about its types. Each method gets a type of it."""

    #: The target's marker for an omitted optional field.
    unset: Any = None

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        """The declared fields of a model class, or None when `tp` is not a model."""
        raise NotImplementedError

    def model_tag(self, cls: Any) -> tuple[str, str] | None:
        """(tag property, tag value) a tagged model carries, if any."""
        return None

    def keeps_extra(self, cls: Any) -> bool:
        """Whether instances of `cls` keep undeclared properties."""
        return False

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        """An instance of `cls` from attribute values and undeclared properties."""
        raise NotImplementedError

    def tagged(self, tp: Any) -> TaggedUnion | None:
        """The descriptor of a tagged union type, or None."""
        return TaggedUnion.of(tp)

    def members(self, tp: Any) -> tuple[Any, ...] | None:
        """The members of an untagged union type, or None (by default: a ``typing`` union)."""
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return typing.get_args(tp)
        return None

    def container(self, tp: Any) -> tuple[str, Any] | None:
        """``("list", item)`` or ``("map", value)`` for container types, else None."""
        origin = typing.get_origin(tp) or tp
        args = typing.get_args(tp)
        if origin is list:
            return ("list", args[0] if args else Any)
        if origin is dict:
            return ("map", args[1] if args else Any)
        return None

    def checked(self, tp: Any) -> tuple[Any, Callable[[Any], None] | None] | None:
        """(inner type, checker) for a constrained container, union or model type, else None.

        The checker (None when there is nothing to check) gets the value read as the
        inner type and raises `ValueError` when a constraint (``minItems``...) fails. A
        constrained scalar is a scalar: None."""
        return None

    def scalar(self, tp: Any) -> Callable[[Any], Any] | type[Any]:
        """A converter of JSON values to scalar type `tp`, raising `ValueError` (its message
        says why) for a value that does not fit; or a Python type (``str``, ``int``,
        ``bool``, ``NoneType``) whose values the JSON value must be, and is taken as."""
        raise NotImplementedError

    def strict(self, tp: Any) -> Callable[[Any], Any] | None:
        """A fast converter of a whole JSON value to `tp` that returns `MISS` whenever the
        value needs anything of this module (a repair, an unknown member, an undeclared
        property); None when the target has none for `tp`."""
        return None

    def kept(self, cls: Any, obj: Any, names: tuple[str, ...]) -> Any:
        """JSON object `obj` read strictly as model `cls` keeping its undeclared properties
        `names`, or `MISS` (as it is when the target has no such reading)."""
        return MISS


class _Fail(Exception):
    """A value that does not fit: why, and where (an `At`)."""

    def __init__(self, message: str, at: At) -> None:
        self.message = message
        self.at = at


class _Ctx:
    """What one `Readers.convert` call carries: the repairs so far, how many objects kept
    undeclared properties, the nodes strict decoding saw fail, and the unions' memo."""

    __slots__ = ("hinted", "kept", "memo", "repairs", "strict")

    def __init__(self, strict: bool, hinted: set[int]) -> None:
        self.repairs: list[tuple[At, str, Any, Any]] = []
        self.kept = 0
        self.strict = strict
        self.hinted = hinted
        self.memo: dict[tuple[int, int], tuple[Any, list[Any], int]] | None = None

    def repair(self, at: At, action: str, original: Any, replacement: Any) -> None:
        if self.strict:
            raise _Fail(f"value needs a lenient repair ({action})", at)
        self.repairs.append((at, action, original, replacement))


def render(at: At, root: str = "$") -> str:
    """A place as a JSON path: ``$.update.content[2]``; a key that is not a name is
    quoted as JSON writes it (``$.map["a.b"]``), so control characters never print raw."""
    keys: list[str | int] = []
    while at is not None:
        at, key = at
        keys.append(key)
    return root + "".join(
        f"[{k}]" if isinstance(k, int) else f".{k}" if k.isidentifier() else f"[{json.dumps(k)}]"
        for k in reversed(keys)
    )


def _hinted(obj: Any, segments: Iterable[str | int]) -> set[int]:
    """The objects and arrays on the path a strict error names, by identity."""
    found = {id(obj)}
    try:
        for key in segments:
            obj = obj[key]  # (a dict's key, or a list's index)
            found.add(id(obj))
    except (KeyError, IndexError, TypeError):
        pass
    return found


class Readers:
    """The lenient pass for one target: a reader per type, made on first use."""

    def __init__(self, leaves: Leaves) -> None:
        self.leaves = leaves
        self._made = Bounded(MAX_READERS, MAX_READERS)
        self._lock = threading.RLock()
        #: the readers being made (under the lock), shown in `_made` once all are complete
        self._round: dict[Any, tuple[Any, Read]] | None = None

    def convert(
        self,
        obj: Any,
        tp: Any,
        path: str = "$",
        repairs: list[Repair] | None = None,
        strict: bool = False,
        hint: Iterable[str | int] = (),
    ) -> Any:
        """Read decoded JSON `obj` (parsed for this call) as `tp`, at JSON path `path`.

        Each repair is appended to `repairs` when given; with `strict`, a repair is an error
        instead (for a library hook whose caller cannot report it). `hint` is the path,
        below `obj`, where the caller's strict pass failed."""
        ctx = _Ctx(strict, _hinted(obj, hint))
        try:
            value = self.reader(tp)(obj, None, ctx)
        except _Fail as exc:
            raise DecodeError(exc.message, render(exc.at, path)) from None
        except RecursionError:
            raise DecodeError("value nests too deeply", path) from None
        if repairs is not None:
            repairs.extend(Repair(render(at, path), *rest) for at, *rest in ctx.repairs)
        return value

    def reader(self, tp: Any, skip: bool = False) -> Read:
        """The reader of `tp` (`skip`: its array drops bad items)."""
        key: Any = (tp, skip)
        held = None
        try:
            found = self._made.get(key)
        except TypeError:  # an unhashable type: kept by identity, and held to keep it unique
            key, held = (id(tp), skip), tp
            found = self._made.get(key)
        if found is not None and found[0] is held:
            return found[1]  # type: ignore[no-any-return]
        with self._lock:  # one thread makes readers at a time, and shows them when whole
            outermost = self._round is None
            made_now: dict[Any, tuple[Any, Read]] = {} if self._round is None else self._round
            self._round = made_now
            if key in made_now:
                return made_now[key][1]  # (a type that reads itself: the placeholder)
            cell: list[Read] = []
            made_now[key] = (held, lambda obj, at, ctx: cell[0](obj, at, ctx))
            try:
                made = self._make(tp, skip)
                cell.append(made)
                made_now[key] = (held, made)
                if outermost:  # every reader of this round is complete: show them
                    for each, value in made_now.items():
                        self._made.put(each, value)
            finally:
                if outermost:
                    self._round = None
            return made

    # -- making readers -------------------------------------------------------------------
    def _make(self, tp: Any, skip: bool) -> Read:
        leaves = self.leaves
        spec = leaves.tagged(tp)
        checked = None if spec is not None else leaves.checked(tp)
        members = None if spec is not None or checked is not None else leaves.members(tp)
        if members is not None:
            unset = (leaves.unset, type(leaves.unset))
            real = [m for m in members if m not in unset]
            rest = [m for m in real if m is not type(None) and m is not None]
            if not rest:
                return self.reader(type(None))
            inner = self.reader(rest[0], skip) if len(rest) == 1 else self._union(rest)
            return _nullable(inner) if len(rest) < len(real) else inner
        if checked is not None:
            return _checked(self.reader(checked[0], skip), checked[1])
        container = leaves.container(tp) if spec is None else None
        fields = leaves.fields(tp) if spec is None and container is None else None
        if spec is not None:
            walk = self._tagged(spec)
        elif container is not None and container[0] == "list":
            walk = _list(self.reader(container[1]), skip)
        elif container is not None:
            walk = _map(self.reader(container[1]))
        elif fields is not None:
            walk = self._model(tp, fields)
        else:
            convert = leaves.scalar(tp)
            return _exactly(convert) if isinstance(convert, type) else _scalar(convert)
        strict = leaves.strict(tp)
        kind = list if container is not None and container[0] == "list" else dict
        return walk if strict is None else _strict_first(strict, walk, kind)

    def _model(self, cls: Any, fields: tuple[Field, ...]) -> Read:
        by_wire = {f.wire: (f.attr, self._field(f)) for f in fields}
        required = tuple(f.wire for f in fields if f.required)
        tag_field, tag_value = self.leaves.model_tag(cls) or (None, None)
        keep = self.leaves.keeps_extra(cls)
        build = self.leaves.build
        declared = frozenset([*by_wire, tag_field] if tag_field else by_wire)
        kept = self.leaves.kept

        def read(obj: Any, at: At, ctx: _Ctx) -> Any:
            if type(obj) is not dict:
                raise _Fail(f"Expected `object`, got `{json_type(obj)}`", at)
            if keep and not declared.issuperset(obj):
                # With its undeclared properties kept, the object may still read strictly,
                # at once: to the value the walk below would make of it.
                inner = kept(cls, obj, tuple(k for k in obj if k not in declared))
                if inner is not MISS:
                    ctx.kept += 1
                    return inner
            values: dict[str, Any] = {}
            extra: dict[str, Any] | None = None
            for key, value in obj.items():
                entry = by_wire.get(key)
                if entry is not None:
                    got = entry[1](value, (at, key), ctx)
                    if got is not _DROP:
                        values[entry[0]] = got
                elif key == tag_field:
                    if value != tag_value or type(value) is not str:
                        raise _Fail(f"Invalid value {value!r}", (at, key))
                elif keep:
                    extra = {} if extra is None else extra
                    extra[key] = value
            for wire in required:
                if wire not in obj:
                    raise _Fail(f"Object missing required field `{wire}`", at)
            if extra is not None:
                ctx.kept += 1
            try:
                return build(cls, values, extra)
            except (ValueError, TypeError) as exc:  # (a check of the model's own)
                raise _Fail(str(exc), at) from None

        return read

    def _field(self, field: Field) -> Read:
        read = self.reader(field.type, field.skip_invalid)
        if field.on_error is not MISS:
            read = _lenient(read, field.on_error, self.leaves.unset)
        if field.on_null is not MISS:
            read = _null_empty(read, field.on_null)
        return read

    def _tagged(self, spec: TaggedUnion) -> Read:
        readers = {tag: self.reader(target) for tag, target in spec.variants.items()}
        labels = {
            tag: target.__name__ if isinstance(target, type) else spec.name
            for tag, target in spec.variants.items()
        }
        default = None if spec.default is None else self.reader(spec.default)
        unknown = spec.unknown
        raw = unknown is not None and issubclass(unknown, UnknownVariant)
        typed = None if unknown is None or raw else self.reader(unknown)
        tag_field, null_tag, name = spec.tag_field, spec.null_tag, spec.name

        def read(obj: Any, at: At, ctx: _Ctx) -> Any:
            if type(obj) is not dict:
                raise _Fail(f"Expected `object`, got `{json_type(obj)}`", at)
            tag = obj.get(tag_field, MISS)
            if tag is MISS or (null_tag and type(tag) is not str):
                if default is None:
                    raise _Fail(f"Object missing required field `{tag_field}`", at)
                return default(obj, at, ctx)
            if type(tag) is not str:
                raise _Fail(f"Expected `str`, got `{json_type(tag)}`", (at, tag_field))
            member = readers.get(tag)
            if member is None:
                if raw:
                    return unknown(tag, obj)  # type: ignore[misc]
                if typed is not None:
                    return typed(obj, at, ctx)
                raise _Fail(f"unknown {name} tag {tag!r}", (at, tag_field))
            try:
                return member(obj, at, ctx)
            except _Fail as exc:
                exc.message = f"invalid {tag!r} ({labels[tag]}): {exc.message}"
                raise

        return read

    def _union(self, members: list[Any]) -> Read:
        """The first member that takes the whole value as it is (no repair, nothing kept
        aside, no float read as an int), else the first that takes it at all."""
        readers = [self.reader(m) for m in members]

        def read(obj: Any, at: At, ctx: _Ctx) -> Any:
            lossy: tuple[Any, list[Any], int] | None = None
            floating = type(obj) is float
            if ctx.memo is None:
                ctx.memo = {}
            for member in readers:
                key = (id(obj), id(member))
                found = ctx.memo.get(key)
                if found is None:
                    repairs, kept = len(ctx.repairs), ctx.kept
                    try:
                        value = member(obj, at, ctx)
                        found = (value, ctx.repairs[repairs:], ctx.kept - kept)
                    except _Fail:
                        found = (_DROP, [], 0)
                    del ctx.repairs[repairs:]
                    ctx.kept = kept
                    ctx.memo[key] = found
                if found[0] is _DROP:
                    continue
                if not found[1] and not found[2] and (not floating or type(found[0]) is float):
                    return found[0]
                lossy = lossy or found
            if lossy is None:
                raise _Fail(f"value matches none of the {len(readers)} alternatives", at)
            ctx.repairs.extend(lossy[1])
            ctx.kept += lossy[2]
            return lossy[0]

        return read


# -- the small readers ------------------------------------------------------------------------
def _exactly(tp: type[Any]) -> Read:
    """A scalar whose JSON value is of one Python type, taken as it is."""
    name = "null" if tp is type(None) else tp.__name__

    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        if type(obj) is not tp:
            if tp is int and _whole(obj):
                return int(obj)
            raise _Fail(f"Expected `{name}`, got `{json_type(obj)}`", at)
        return obj

    return read


def _scalar(convert: Callable[[Any], Any]) -> Read:
    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        try:
            return convert(obj)
        except ValueError as exc:
            if _whole(obj):  # (offered again as an int; else the first refusal stands)
                with contextlib.suppress(ValueError):
                    return convert(int(obj))
            raise _Fail(str(exc), at) from None

    return read


def _whole(obj: Any) -> bool:
    """Whether `obj` is an integral float (an integer, to JSON Schema) a double holds exactly."""
    return type(obj) is float and obj.is_integer() and abs(obj) < 2.0**53


def _strict_first(strict: Callable[[Any], Any], walk: Read, kind: type[Any]) -> Read:
    """`walk`, after offering a value of the right JSON kind to the strict converter, unless
    strict decoding already failed there."""

    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        if type(obj) is kind and id(obj) not in ctx.hinted:
            value = strict(obj)
            if value is not MISS:
                return value
        return walk(obj, at, ctx)

    return read


def _nullable(inner: Read) -> Read:
    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        return None if obj is None else inner(obj, at, ctx)

    return read


def _checked(inner: Read, check: Callable[[Any], None] | None) -> Read:
    if check is None:
        return inner

    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        value = inner(obj, at, ctx)
        try:
            check(value)
        except ValueError as exc:
            raise _Fail(str(exc), at) from None
        return value

    return read


def _list(item: Read, skip: bool) -> Read:
    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        if type(obj) is not list:
            raise _Fail(f"Expected `array`, got `{json_type(obj)}`", at)
        if not skip:
            return [item(value, (at, i), ctx) for i, value in enumerate(obj)]
        out = []
        for i, value in enumerate(obj):
            repairs, kept = len(ctx.repairs), ctx.kept
            try:
                out.append(item(value, (at, i), ctx))
            except _Fail:
                del ctx.repairs[repairs:]
                ctx.kept = kept
                ctx.repair((at, i), "skipped", value, NOTHING)
        return out

    return read


def _map(value_reader: Read) -> Read:
    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        if type(obj) is not dict:
            raise _Fail(f"Expected `object`, got `{json_type(obj)}`", at)
        return {key: value_reader(value, (at, key), ctx) for key, value in obj.items()}

    return read


def _lenient(inner: Read, fallback: Any, unset: Any) -> Read:
    """``x-deserialize-default-on-error``: a value that does not read becomes `fallback`."""

    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        repairs, kept = len(ctx.repairs), ctx.kept
        try:
            return inner(obj, at, ctx)
        except _Fail:
            del ctx.repairs[repairs:]
            ctx.kept = kept
        if fallback is unset:
            ctx.repair(at, "defaulted", obj, NOTHING)
            return _DROP
        ctx.repair(at, "defaulted", obj, fallback)
        if fallback == []:  # (kept, as the flag says, even where `minItems` refuses it)
            return []
        return inner(_copy(fallback), at, ctx)

    return read


def _null_empty(inner: Read, empty: Any) -> Read:
    """``x-deserialize-default-on-null``: null reads as `empty` (an array or a map)."""

    def read(obj: Any, at: At, ctx: _Ctx) -> Any:
        if obj is None:
            ctx.repair(at, "defaulted", None, _copy(empty))
            return _copy(empty)
        return inner(obj, at, ctx)

    return read


def _copy(value: Any) -> Any:
    """A fresh copy of a JSON fallback, so no two results share a list or object."""
    if type(value) is list:
        return [_copy(v) for v in value]
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    return value


def notification_params(message: Any) -> Any:
    """The ``params`` of a JSON-RPC ``session/update`` notification, as plain JSON; a
    `DecodeError` for anything else, a request (a message with an ``id``) included."""
    if type(message) is not dict:
        raise DecodeError("a notification must be a JSON object", "$")
    if "id" in message:
        raise DecodeError("a message with an `id` is a request, not a notification", "$.id")
    if message.get("jsonrpc") != "2.0":
        raise DecodeError("Expected `jsonrpc` to be '2.0'", "$.jsonrpc")
    if message.get("method") != "session/update":
        raise DecodeError("Expected `method` to be 'session/update'", "$.method")
    if "params" not in message:
        raise DecodeError("Object missing required field `params`", "$")
    return message["params"]


def is_request(message: Any) -> None:
    """Refuse a JSON-RPC message that carries an ``id``: it is a request, not a notification."""
    if isinstance(message, dict) and "id" in message:
        raise DecodeError("a message with an `id` is a request, not a notification", "$.id")
