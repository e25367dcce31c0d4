"""Twin decoders: one msgspec pass for a message with a fault seen before
(copied in as ``_twin.py``).

When strict decoding refuses a message, the error names the spot. The general slow
path then parses the whole message into plain values and converts it again in
Python. Most refused messages in a real stream repeat one fault at one spot (an
extension property on a known update, an unknown update kind, a ``_meta`` that is
not an object), so for a spot seen twice `Twins` builds a *twin* of the root type:
the same structs, except along the path to that spot, where

- the struct that arrived with an undeclared property is the subclass declaring it
  (`_extras.declaring`), which is also what the result holds, so msgspec reads it
  like any other field;
- an open union whose tag is unknown is read as the union's unknown member;
- the items of a skip-invalid array with a bad item are read raw and decoded one by
  one; an item missing a required property of its own decodes as a relaxed class that
  defaults it to a marker (`_twin_reads.relax`), so it raises no error;
- otherwise the innermost struct property above the spot is read as raw JSON (or, when
  it is refused for its JSON kind, as a plain value) and handed to the walker
  (`Walker.field_value`), which applies exactly the leniency and openness converting
  the whole message would.

``_twin_build.py`` builds the twin. msgspec decodes the message with it in one pass,
and a short walk down the same path turns each twin struct back into its own class, so
the result is equal,
type for type, to what the general path returns. A message with a second fault
fails the twin decode and takes the general path. Twins are built only for a spot
seen twice and only for the first `KEPT` such spots per root type, so a stream of ever
new faults, or one cycling through more spots than that, costs no builds beyond those
and no memory; spots past the limit take the general path. While one twin reads refused
message after refused message, it leads: it is tried before strict decoding (`_lead`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import DecodeError
from ._convert import WALKER
from ._twin_build import _build, _Items, _Members, _Node, _Struct, _Values
from ._twin_items import items
from ._walk import MISS, Repair

__all__ = ["Twins"]

#: Twin decoders built per root type, at the most (the first spots seen twice).
KEPT = 64
#: Spots remembered as seen once, per root type; cleared when full.
SEEN = 1024


class Twins:
    """The twin decoders of one root type, keyed by the spot strict decoding refused."""

    def __init__(self, root: Any, lead: Any = None) -> None:
        self.root = root
        #: the `_lead.Lead` told of each refused message a twin reads, if any
        self.lead = lead
        #: spot -> (decoder, finishing node, the node compiled when it follows one path)
        self._built: dict[tuple[Any, ...], tuple[Callable[[Any], Any], _Node, Any] | None] = {}
        self._seen: set[tuple[Any, ...]] = set()
        #: id of an `error_at` result -> (it, its twin or None): a repeated error's twin
        #: without working out its key again
        self._by_where: dict[int, tuple[Any, Any]] = {}

    def _find(self, where: Any) -> Any:
        """The twin for `where` (None when none helps), or `MISS` for a spot seen once."""
        if where is MISS or where is None:
            return None
        segments, kind, prop = where
        key = (
            tuple(None if type(s) is int else s for s in segments),
            kind,
            prop if kind == "unknown_field" else None,
        )
        twin = self._built.get(key, MISS)
        if twin is MISS:
            if len(self._built) >= KEPT:
                # Full: none is dropped for a newcomer, or a stream that cycles through
                # more spots than that would build a twin per message.
                return None
            if key not in self._seen:
                if len(self._seen) >= SEEN:
                    self._seen.clear()
                self._seen.add(key)
                return MISS
            twin = _build(self.root, segments, kind, prop)
            if twin is not None and twin[2]:  # (one path: finished by closures built now)
                twin = (twin[0], twin[1], _compile(twin[1], 0) or _nothing)
            self._built[key] = twin
        return twin

    def __call__(self, data: bytes | str, where: Any, repairs: list[Repair] | None) -> Any:
        """`data` decoded with the twin for the spot `where` (as `error_at` reads it), or
        `MISS` when there is none yet or the message has another fault."""
        known = self._by_where.get(id(where))
        if known is not None and known[0] is where:
            twin = known[1]
        else:
            twin = self._find(where)
            if twin is MISS:
                return MISS
            if len(self._by_where) >= SEEN:
                self._by_where.clear()
            self._by_where[id(where)] = (where, twin)
        if twin is None:
            return MISS
        decode, node, along = twin
        try:
            value = decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeError):
            return MISS
        found: list[Repair] | None = None if repairs is None else []
        try:
            if along:
                along(value, found)
            else:
                value = _finish(value, node, "$", 0, found)
        except (DecodeError, msgspec.DecodeError, RecursionError, UnicodeError):
            # (raw JSON is only checked for UTF-8 once parsed; the general path reports
            # each of these, with its own wording)
            return MISS
        if found:
            assert repairs is not None
            repairs.extend(found)
        if self.lead is not None:
            self.lead.seen(twin, self.root, where)
        return value


# -- finishing --------------------------------------------------------------------------------


def _finish(value: Any, node: _Node, path: str, depth: int, repairs: list[Repair] | None) -> Any:
    """`value`, decoded with a twin, as its own types: twin structs become their own class
    and each property read raw is converted by the walker."""
    kind = type(node)
    if kind is _Members:
        assert isinstance(node, _Members)
        member = node.structs.get(type(value))
        if member is not None:
            return _struct(value, member, path, depth, repairs)
        inner = node.items if type(value) is list else node.values if type(value) is dict else None
        return value if inner is None else _finish(value, inner, path, depth, repairs)
    if kind is _Struct:
        assert isinstance(node, _Struct)
        if type(value) is node.twin:
            return _struct(value, node, path, depth, repairs)
    elif kind is _Items:
        assert isinstance(node, _Items)
        if type(value) is list:
            for i, item in enumerate(value):
                new = _finish(item, node.child, f"{path}[{i}]", depth + 1, repairs)
                if new is not item:
                    value[i] = new
    elif kind is _Values:
        assert isinstance(node, _Values)
        if type(value) is dict:
            for key, item in value.items():
                new = _finish(item, node.child, f"{path}.{key}", depth + 1, repairs)
                if new is not item:
                    value[key] = new
    return value


def _compile(node: Any, depth: int) -> Callable[[Any, list[Repair] | None], object] | None:
    """`_finish` for a twin whose path meets no array or map (`_one_path`), as closures
    made once per twin, one per struct on the path that needs work, each finishing its
    struct in place (its raw read knows its JSON path already); None for a node that
    needs none. They take the twin's value and the repairs list."""
    if type(node) is _Members:
        table = {}
        for member_cls, member_node in node.structs.items():
            step = _compile(member_node, depth)
            if step is not None:
                table[member_cls] = step
        if not table:
            return None

        def member(value: Any, repairs: list[Repair] | None) -> None:
            step = table.get(type(value))
            if step is not None:
                step(value, repairs)

        return member
    twin, cls, attr, child, raw = node.twin, node.cls, node.attr, node.child, node.raw
    extra = node.extra
    if extra is not None:
        # On one path, the struct at the spot is the one strict decoding refused for
        # holding the property, so the class declaring it is already its own.
        return None
    if attr is not None and raw is not None:
        return raw_step(node, depth)
    inner = None if attr is None or child is None else _compile(child, depth + 1)
    if inner is not None:

        def down(value: Any, repairs: list[Repair] | None) -> None:
            if type(value) is twin:
                value.__class__ = cls
                inner(getattr(value, attr), repairs)

        return down

    def swap(value: Any, repairs: list[Repair] | None) -> None:
        if type(value) is twin:
            value.__class__ = cls

    return swap


def _nothing(value: Any, repairs: list[Repair] | None) -> None:
    """The finishing of a one-path twin whose value is its own already."""


def _struct(value: Any, node: _Struct, path: str, depth: int, repairs: list[Repair] | None) -> Any:
    if node.extra is not None:
        if getattr(value, node.extra) is not UNSET:
            return value
        cls = node.cls
        return cls(**{name: getattr(value, name) for name in cls.__struct_fields__})
    attr = node.attr
    if attr is not None:
        held = getattr(value, attr)
        if node.raw is not None:
            _read_raw(value, node, f"{path}.{node.wire}", depth, repairs)
        elif node.child is not None:
            new = _finish(held, node.child, f"{path}.{node.wire}", depth + 1, repairs)
            if new is not held:
                setattr(value, attr, new)
    value.__class__ = node.cls
    return value


def raw_step(node: _Struct, depth: int) -> Callable[[Any, list[Repair] | None], bool]:
    """The finishing of a twin struct whose property `node` reads raw (or as a plain
    value): the struct becomes its own class and the property is converted as the walker
    would have (`_read_raw`). It returns whether the property held a fault (what a
    leading twin counts, see `_lead`)."""
    twin, cls, attr, where = node.twin, node.cls, node.attr, node.where
    assert attr is not None
    wrong = node.wrong if _leaves_out(node) else None

    def read(value: Any, repairs: list[Repair] | None) -> bool:
        if type(value) is not twin:
            return False
        value.__class__ = cls
        held = getattr(value, attr)
        if wrong is not None and type(held) in wrong:
            _leave_out(value, attr, held, where, repairs)
            return True
        return _read_raw(value, node, where, depth, repairs)

    return read


def _read_raw(
    value: Any, node: _Struct, where: str, depth: int, repairs: list[Repair] | None
) -> bool:
    """Convert the property of twin struct `value` that `node` reads raw, at JSON path
    `where`, as the walker would have; whether it held a fault (an item that failed, or
    a value strict decoding refuses)."""
    attr = node.attr
    held = getattr(value, attr)  # type: ignore[arg-type]
    if held is UNSET:
        return False
    if node.items is not None:  # a skip-invalid array, item by item
        if type(held) is not list:
            return False
        out, failed = items(held, node, where, depth, repairs)
        setattr(value, attr, out)  # type: ignore[arg-type]
        return failed
    if node.strict is not None:  # (known to fail, but the value may be fine after all)
        strictly = _strictly(node, held)
        if strictly is not MISS:
            setattr(value, attr, strictly)  # type: ignore[arg-type]
            return False
    # A plain value of a kind the property never takes fails however the walker reads
    # it, so its fallback applies at once. Any other value is walked: one of the right
    # kind may fail below a leniency of its own (a bad item of a skip-invalid array).
    wrong = node.wrong
    refused = node.doomed and wrong is not None and type(held) in wrong
    step = WALKER.defaulted_value if refused else WALKER.field_value
    converted = step(
        held if wrong is not None else msgspec.json.decode(held), node.raw, where, depth, repairs
    )
    setattr(value, attr, UNSET if converted is MISS else converted)  # type: ignore[arg-type]
    return True


def _leaves_out(node: _Struct) -> bool:
    """Whether a plain value of a kind its property never takes is simply left out (and
    reported) at `node`: the walker reads the property as msgspec does, and falls back
    to leaving it out."""
    field = node.raw
    return (
        node.doomed
        and node.wrong is not None
        and field is not None
        and field.lenient
        and WALKER.leaves.strict_safe(field.type)
        and WALKER._fallback(field) is UNSET
    )


def _leave_out(value: Any, attr: str, held: Any, where: str, repairs: list[Repair] | None) -> None:
    """Leave out property `attr` of struct `value`, which held the refused value `held`
    at JSON path `where`, and report it."""
    if repairs is not None:
        repairs.append(Repair(where, "defaulted", held, UNSET))
    setattr(value, attr, UNSET)


def _strictly(node: _Struct, held: Any) -> Any:
    """`held`, the value of the property `node` reads raw or plain, as strict decoding
    reads it; `MISS` where that refuses it (at once for a plain value of a kind its
    type never takes). A property strict decoding refused can still hold a good value:
    of two equal keys, the error names the earlier and the twin holds the later."""
    wrong = node.wrong
    if wrong is not None and type(held) in wrong:
        return MISS
    assert node.strict is not None
    try:
        return node.strict(held)
    except msgspec.ValidationError:
        return MISS
