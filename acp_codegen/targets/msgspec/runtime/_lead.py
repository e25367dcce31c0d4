"""A leading twin: while one fault repeats, its twin decoder is tried first (copied in
as ``_lead.py``; see ``_twin.py``).

A message strict decoding refuses costs the failed pass, whose error alone costs msgspec
about as much as a whole message, before the twin's pass reads it. When one twin reads
`NEED_LEAST` refused messages in a row, `Lead` installs it as the decoder tried first.
A twin differs from its root type only along the path to its spot, where it is wider,
so it reads every message strict decoding reads, and the faulty ones as well, in one
pass. `Lead.finish` then turns the twin structs on that path back into their own
classes, converts what the wider spot holds as the walker would (so a message without
the fault comes out exactly as strict decoding gives it), and notes whether the fault
was there.

The lead steps down at the first message it cannot read, which strict decoding then
reads or refuses as usual; after `CLEAN_MOST` messages in a row without its fault; and
when the messages without it, weighed by what one costs this lead against what a fault
saves (`MARKED`), outweigh the faults by more than `SLACK`. A lead that read fewer
faults than the run of refused messages it waited for, or whose faults did not outweigh
the rest, doubles the run the next one needs, up to `NEED_MOST` (one that paid brings it
back to `NEED_LEAST`), so a stream with faults scattered among other messages, or one
that makes leads step down on purpose, pays for a few messages per lead tried, and
never for more than that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import DecodeError, UnknownVariant
from ._convert import WALKER, enc_hook
from ._extras import encode_value, subclass
from ._twin import raw_step
from ._twin_build import _build, _Members, _Struct, _twin_hook
from ._twin_items import absent_skips, settle
from ._twin_reads import ABSENT, strict_reader
from ._walk import MISS, Repair

__all__ = ["LED", "Lead"]

#: Refused messages in a row one twin must read before it leads, at first and at most.
NEED_LEAST = 2
NEED_MOST = 64
#: Messages in a row without the fault after which a lead steps down.
CLEAN_MOST = 4
#: What a message without the fault costs a lead, as a share of what one with it saves
#: (measured on the bench's messages): a twin that reads a union by its marker converts
#: every known member from plain values (more than a fault saves); one that reads the
#: union through classes declaring an undeclared property rebuilds every member that
#: arrived without it; one that reads a property raw only turns the path's structs back.
MARKED, DECLARED, RAW = 1.5, 0.75, 0.25
#: How far messages without the fault may outweigh those with it before a lead steps
#: down; a lead that met more weight of them than faults did not pay.
SLACK = 4

#: What a step of `finish` found: nothing of the fault, the fault, or a struct declaring an
#: undeclared property it did not get (which its holder rebuilds as its own class). (A
#: raw read, `_twin.raw_step`, says False or True: equal to the first two.)
_CLEAN, _HIT, _REBUILD = 0, 1, 2

_Step = Callable[[Any, list[Repair] | None], int]


class _Led:
    """The type of `LED`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LED"


#: The default of the marking property of a root read by a leading twin, so the caller's
#: one check of that property (is it absent?) tells such a root from a strict one.
LED: Any = _Led()


class Lead:
    """Which twin of one root type leads, if any, and when it steps down.

    `install` is called with the decoder to try first (None: the strict one again); a
    message that decoder refuses is the caller's to hand to strict decoding, after
    `step_down`. `mark` names the root's property whose default becomes `LED` in a
    leading twin (it must default to ``UNSET`` in the root).
    """

    def __init__(self, install: Callable[[Callable[[Any], Any] | None], None], mark: str) -> None:
        self._install = install
        self._mark = mark
        #: the twin that read the last refused message, and how many in a row it read
        self._last: Any = None
        self._streak = 0
        self._need = NEED_LEAST
        #: the leading twin's finishing, by the root class it decodes to
        self._finishing: dict[type[Any], tuple[str, _Step]] = {}
        #: id of a twin -> (it, what it leads with or None when it cannot lead, the cost of
        #: a message without its fault)
        self._made: dict[int, tuple[Any, Any, float]] = {}
        self._leading: Any = None
        self._hits = 0
        self._clean = 0
        self._cleans = 0
        self._weight = RAW

    def seen(self, twin: Any, root: Any, where: Any) -> None:
        """Note that `twin` (a `Twins` entry of root type `root`) read a refused message,
        which strict decoding refused at `where` (see `error_at`)."""
        if twin is self._last:
            self._streak += 1
        else:
            self._last, self._streak = twin, 1
        if self._streak >= self._need and self._leading is None:
            made = self._made.get(id(twin))
            if made is None or made[0] is not twin:
                made = self._made[id(twin)] = (twin, *self._make(twin, root, where))
            if made[1] is not None:
                self._leading = twin
                self._hits = self._clean = self._cleans = 0
                self._weight = made[2]
                self._install(made[1])

    def _make(self, twin: Any, root: Any, where: Any) -> tuple[Callable[[Any], Any] | None, float]:
        """The decoder `twin` leads with, or None when it cannot lead: the same twin (built
        again to read items that miss a property in its one pass, see
        `_twin_build._build`), whose root marks what it reads (`LED`);
        and what a message without the fault costs it (see `MARKED`)."""
        if not twin[2]:
            return None, RAW  # (finishing follows more than one path)
        segments, kind, prop = where
        if kind == "missing_field":  # (only then can items be relaxed: built again so)
            twin = _build(root, segments, kind, prop, native=True)
            if twin is None or not twin[2]:
                return None, RAW
        _, node, _ = twin
        if type(node) is not _Struct or node.attr is None:
            return None, RAW  # (the spot is the top)
        fields = {f.name: f for f in msgspec.structs.fields(node.twin)}
        info = fields.get(self._mark)
        if info is None or info.default is not UNSET or node.attr == self._mark:
            return None, RAW
        root = subclass(node.twin, {self._mark: info.type}, defaults={self._mark: LED})
        decode = msgspec.json.Decoder(root, dec_hook=_twin_hook).decode
        step = _step(node.child, 1)
        if step is None:
            return None, RAW
        self._finishing[root] = (node.attr, step)
        return decode, _weight(node.child)

    def step_down(self) -> None:
        """Try the strict decoder first again."""
        if self._leading is not None:
            self._install(None)
            self._leading = None
            self._streak = 0
            # (it read as many faults as it waited for, and they outweighed the rest)
            hits = self._hits
            paid = hits >= self._need and hits >= self._cleans * self._weight
            self._need = NEED_LEAST if paid else min(self._need * 2, NEED_MOST)

    def finish(self, root: Any, repairs: list[Repair] | None) -> Any:
        """Root `root`, read by a leading twin, with what its path holds turned into
        its own classes; `MISS` when converting that fails (the general path then
        reads the message)."""
        attr, step = self._finishing[type(root)]
        value = getattr(root, attr)
        # (collected apart: when converting fails, the general path reports them again)
        found: list[Repair] | None = None if repairs is None else []
        try:
            got = step(value, found)
        except (DecodeError, msgspec.DecodeError, RecursionError, UnicodeError):
            self.step_down()
            return MISS
        if got == _REBUILD:
            setattr(root, attr, _rebuilt(value))
        elif got == _HIT:
            self._hits += 1
            self._clean = 0
        else:
            self._clean += 1
            self._cleans += 1
            if self._clean >= CLEAN_MOST or self._cleans * self._weight > self._hits + SLACK:
                self.step_down()
        if found:
            assert repairs is not None
            repairs.extend(found)
        return root


def _weight(node: Any) -> float:
    """What a message without the fault costs a lead whose path is `node` (see
    `MARKED`)."""
    if type(node) is _Members:
        return max((_weight(member) for member in node.structs.values()), default=RAW)
    if type(node) is not _Struct:
        return RAW
    if node.extra is not None:
        return DECLARED
    if node.child is None and node.raw is None:
        return MARKED
    return _weight(node.child)


def _rebuilt(value: Any) -> Any:
    """Struct `value`, of a class declaring undeclared properties it did not get, as an
    instance of its own class."""
    cls: Any = type(value).__mro__[1]
    return cls(**{name: getattr(value, name) for name in cls.__struct_fields__})


def _step(node: Any, depth: int) -> _Step | None:
    """The finishing of a leading twin's value at `node`, made once per lead: it turns
    twin structs into their own class in place and returns what it found (`_CLEAN`,
    `_HIT` or `_REBUILD`); None where it cannot lead."""
    if type(node) is _Members:
        table = {}
        for member_cls, member_node in node.structs.items():
            step = _step(member_node, depth)
            if step is None:
                return None
            table[member_cls] = step

        def member(value: Any, found: list[Repair] | None) -> int:
            step = table.get(type(value))
            return _CLEAN if step is None else step(value, found)

        return member
    if type(node) is not _Struct:
        return None
    twin, cls, attr, extra = node.twin, node.cls, node.attr, node.extra
    if extra is not None:

        def declared(value: Any, found: list[Repair] | None) -> int:
            if type(value) is not twin:
                return _CLEAN
            return _HIT if getattr(value, extra) is not UNSET else _REBUILD

        return declared
    if attr is None:
        return None
    if node.raw is not None:
        return _raw(node, depth)
    if node.child is None:  # an open union read through its marker

        def marked(value: Any, found: list[Repair] | None) -> int:
            if type(value) is not twin:
                return _CLEAN
            value.__class__ = cls
            return _HIT if isinstance(getattr(value, attr), UnknownVariant) else _CLEAN

        return marked
    inner = _step(node.child, depth + 1)
    if inner is None:
        return None

    def down(value: Any, found: list[Repair] | None) -> int:
        if type(value) is not twin:
            return _CLEAN
        value.__class__ = cls
        held = getattr(value, attr)
        got = inner(held, found)
        if got == _REBUILD:
            setattr(value, attr, _rebuilt(held))
            return _CLEAN
        return got

    return down


def _raw(node: _Struct, depth: int) -> _Step:
    """The step for a property the twin reads raw or as a plain value, or for an array
    it reads as relaxed items (`_relaxed_items`). A property is read as `_twin.raw_step`
    reads it, strictly first as strict decoding of the whole message would (the fault is
    there when that fails), whatever spot the twin was built for: a value of a kind the
    property never takes is refused wherever the walker reads it as msgspec does."""
    if node.items is None and node.relaxed is not None:
        return _relaxed_items(node, depth)
    if node.items is None:
        tp = next(f.type for f in msgspec.structs.fields(node.cls) if f.name == node.attr)
        node = node._replace(
            doomed=WALKER.leaves.strict_safe(tp),
            strict=node.strict or strict_reader(tp, node.wrong is not None),
        )
    return raw_step(node, depth)  # (whether the fault was there: `_HIT` or `_CLEAN`)


def _relaxed_items(node: _Struct, depth: int) -> _Step:
    """The step for a skip-invalid array the twin read as relaxed items (see
    `_twin_reads.relax`): each is turned into its own class, and one that arrived
    without its property is skipped (or converted by the walker, where it would not
    skip it); the fault is there when an item lacked it."""
    twin, cls, attr, where, relaxed = node.twin, node.cls, node.attr, node.where, node.relaxed
    routes = node.routes
    assert attr is not None and routes is not None and relaxed is not None

    def each(value: Any, found: list[Repair] | None) -> int:
        if type(value) is not twin:
            return _CLEAN
        value.__class__ = cls
        held = getattr(value, attr)
        if type(held) is not list:
            return _CLEAN
        got = _CLEAN
        kept: list[Any] = []
        for i, item in enumerate(held):
            own = relaxed.get(type(item))
            if own is not None:
                if getattr(item, own[1]) is ABSENT:
                    got = _HIT
                    if found is not None or routes.get(type(item)) is not True:
                        _absent(kept, item, own[1], i, node, where, depth, found)
                    continue
                item.__class__ = own[0]
            kept.append(item)
        setattr(value, attr, kept)
        return got

    return each


def _absent(
    out: list[Any],
    item: Any,
    missing: str,
    i: int,
    node: _Struct,
    where: str,
    depth: int,
    found: list[Repair] | None,
) -> None:
    """Add `item`, a relaxed item that arrived without the property held in attribute
    `missing`, to `out` as the walker converts it, unless it is skipped (and reported)."""
    setattr(item, missing, UNSET)
    # (the item as it arrived: written and read back, with UNSET left out)
    value = msgspec.json.decode(msgspec.json.encode(encode_value(item), enc_hook=enc_hook))
    skips = absent_skips(node, type(item), lambda: value)
    settle(out, value, f"{where}[{i}]", skips, node, depth, found)
