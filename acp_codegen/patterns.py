"""Build-stage check: a ``pattern`` is ECMA-262 that Python's ``re`` matches the same way
in linear time, or refused.

`ecma.translate` first rewrites the pattern for ``re`` (or refuses what it cannot carry
over); this module then checks the rewritten pattern, and `check` returns it for the
targets. Generated code tests patterns with ``re`` on every target (msgspec and the
dataclasses runtime search with it, and the pydantic target hands pydantic the compiled
pattern, so pydantic uses ``re`` as well and all three accept the same strings). ``re``
backtracks: ``^(a+)+$`` takes seconds on a 30-character value. A linear-time engine
(google-re2 has wheels) would be a second dependency of every generated package, with a
syntax and a ``$`` of its own, so instead the generator accepts only patterns that ``re``
provably matches in time linear in the value, and refuses any other with one line:

- **Deterministic.** Wherever the pattern may go two ways (the branches of ``|``, one
  more repetition or what follows it), the characters each way can begin with are
  disjoint, so ``re`` never follows a second way past one character. ``^\\w+@\\w+$``
  passes; ``^(a+)+$``, ``^a*a*$`` and ``^(a|ab)*$`` do not.
- **Anchored, or short where it can fail.** ``re.search`` tries a pattern at every
  position. One that starts with ``^`` is tried at one; any other may fail only within
  its first `UNANCHORED_WIDTH` characters: ``ab+`` passes (once a ``b`` is seen, nothing
  after can fail), ``a+b`` does not (on ``aaa...`` each position reads to the end).
- **Plain constructs.** Literals, classes, groups, ``|``, greedy and lazy repetition and
  the anchors ``^ $ \\b \\B``; no backreference, lookahead or lookbehind, and at most
  `MAX_PATTERN` characters.

The translation writes every class as its ranges of code points, so classes are
compared exactly.
"""

from __future__ import annotations

import re
import re._constants as sre  # the parser ``re`` compiles with: the constructs as ``re`` reads them
import re._parser as sre_parse
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import ecma
from .ecma import Refused
from .errors import SchemaError

#: Characters of a pattern; longer ones are refused (the published schemas' longest is 10).
MAX_PATTERN = 1000
#: How far into a value a pattern not anchored at the start may still fail.
UNANCHORED_WIDTH = 64
#: What the translation passes on that no linear-time match allows.
_REFUSED = {sre.ASSERT: "a lookahead or lookbehind", sre.ASSERT_NOT: "a lookahead or lookbehind"}


@dataclass(frozen=True)
class Chars:
    """A set of characters: sorted, disjoint ranges of code points."""

    ranges: tuple[tuple[int, int], ...] = ()

    def __or__(self, other: Chars) -> Chars:
        return Chars(ecma.union([*self.ranges, *other.ranges]))

    def meets(self, other: Chars) -> bool:
        return any(
            lo <= b_hi and b_lo <= hi for lo, hi in self.ranges for b_lo, b_hi in other.ranges
        )


NOTHING = Chars()


def check(pattern: str, pointer: str, source: str) -> str:
    """The Python ``re`` spelling of the ECMA-262 `pattern`, when ``re`` matches it as
    ECMA-262 does and in linear time; else a `SchemaError`."""
    if len(pattern) > MAX_PATTERN:
        raise SchemaError(
            f"pattern is {len(pattern):,} characters, over the {MAX_PATTERN:,}-character limit",
            pointer,
            source,
        )
    try:
        python = ecma.translate(pattern)
        items = list(sre_parse.parse(python))
        _sequence(items, NOTHING)
        if not _anchored(items):
            _short_where_it_can_fail(items)
    except ecma.Invalid as why:
        raise SchemaError(
            f"invalid pattern {pattern!r}, read as ECMA-262 with the u flag: {why}",
            pointer,
            source,
        ) from None
    except ecma.Untranslated as why:
        raise SchemaError(
            f"pattern {pattern!r} holds {why}, which generated code cannot match as ECMA-262 does",
            pointer,
            source,
        ) from None
    except (re.error, OverflowError) as why:  # (as a repetition count past re's limit)
        raise SchemaError(
            f"pattern {pattern!r} is ECMA-262 that Python's re cannot compile: {why}",
            pointer,
            source,
        ) from None
    except Refused as why:
        raise SchemaError(
            f"pattern {pattern!r} is not one that Python's re, which generated code matches "
            f"with, is sure to match in linear time: {why}",
            pointer,
            source,
        ) from None
    return python


# -- determinism ------------------------------------------------------------------------------


def _sequence(items: list[Any], follow: Chars) -> tuple[Chars, bool]:
    """Check `items` followed by characters in `follow`; return what they can begin with
    and whether they can match nothing."""
    first, nullable = NOTHING, True
    for item in reversed(items):
        item_first, item_nullable = _node(item, follow)
        follow = item_first | follow if item_nullable else item_first
        first = item_first | first if item_nullable else item_first
        nullable = nullable and item_nullable
    return first, nullable


def _node(item: tuple[Any, Any], follow: Chars) -> tuple[Chars, bool]:
    op, arg = item
    if op in _REFUSED:
        raise Refused(f"it holds {_REFUSED[op]}")
    if op == sre.AT:
        return NOTHING, True  # (an anchor only narrows: it adds no way to go)
    if op == sre.SUBPATTERN:
        return _sequence(list(arg[3]), follow)
    if op == sre.BRANCH:
        return _branch([list(b) for b in arg[1]], follow)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        return _repeat(arg, follow)
    return _chars(op, arg), False


def _branch(alternatives: list[list[Any]], follow: Chars) -> tuple[Chars, bool]:
    seen: list[Chars] = []
    first, nullable = NOTHING, False
    for alternative in alternatives:
        alt_first, alt_nullable = _sequence(alternative, follow)
        starts = alt_first | follow if alt_nullable else alt_first
        if any(starts.meets(other) for other in seen):
            raise Refused("two alternatives of | can begin with the same character")
        seen.append(starts)
        first, nullable = first | alt_first, nullable or alt_nullable
    return first, nullable


def _repeat(arg: tuple[int, int, Any], follow: Chars) -> tuple[Chars, bool]:
    low, high, body = arg[0], arg[1], list(arg[2])
    if high == 0:
        return NOTHING, True
    body_first, body_nullable = _sequence(body, NOTHING)
    if high != low:  # here it may repeat once more or stop: the two must not meet
        if body_nullable:
            raise Refused("a repetition of something that can match nothing")
        if body_first.meets(follow):
            raise Refused(
                "a repetition can go on or stop at the same character (as in a*a or (a+)+)"
            )
    _sequence(body, body_first | follow)
    return body_first, low == 0 or body_nullable


def _chars(op: Any, arg: Any) -> Chars:
    if op == sre.LITERAL:
        return Chars(((arg, arg),))
    if op == sre.NOT_LITERAL:
        return Chars(ecma.negate(((arg, arg),)))
    if op == sre.IN:
        return _class(arg)
    raise Refused(f"it holds {str(op).lower().replace('_', ' ')}, which is not supported")


def _class(items: list[tuple[Any, Any]]) -> Chars:
    negated = bool(items) and items[0][0] == sre.NEGATE
    ranges = []
    for op, arg in items[1:] if negated else items:
        if op == sre.LITERAL:
            ranges.append((arg, arg))
        elif op == sre.RANGE:
            ranges.append(arg)
        else:  # (the translation writes classes as ranges and characters only)
            raise Refused("a character class holds a construct that is not supported")
    found = ecma.union(ranges)
    return Chars(ecma.negate(found) if negated else found)


# -- where an unanchored pattern can fail ------------------------------------------------------


def _anchored(items: list[Any]) -> bool:
    if not items:
        return False
    op, arg = items[0]
    if op == sre.AT:
        return bool(arg == sre.AT_BEGINNING)
    if op == sre.SUBPATTERN:
        return _anchored(list(arg[3]))
    if op == sre.BRANCH:
        return all(_anchored(list(b)) for b in arg[1])
    return False


def _short_where_it_can_fail(items: list[Any]) -> None:
    """Refuse an unanchored pattern that may fail further than `UNANCHORED_WIDTH` in."""
    width = 0
    for index, item in enumerate(items):
        rest = items[index + 1 :]
        if all(_always_matches(r) for r in rest):
            # From here on nothing can fail once `item` has matched what it must.
            width += _width_until_it_cannot_fail(item)
            break
        width += _max_width([item])
    if width > UNANCHORED_WIDTH:
        raise Refused(
            "it is not anchored with ^ and may fail more than "
            f"{UNANCHORED_WIDTH} characters in (as a+b may on aaa...)"
        )


def _always_matches(item: tuple[Any, Any]) -> bool:
    """Whether `item` matches (maybe nothing) wherever it is tried: it can match nothing
    and holds no anchor."""
    return _sequence([item], NOTHING)[1] and not _has_anchor([item])


def _width_until_it_cannot_fail(item: tuple[Any, Any]) -> int:
    op, arg = item
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and not _has_anchor(list(arg[2])):
        return arg[0] * _max_width(list(arg[2]))  # past its minimum it stops, never fails
    return _max_width([item])


def _max_width(items: Iterable[Any]) -> int:
    sub = sre_parse.SubPattern(sre_parse.State(), list(items))
    high = sub.getwidth()[1]
    return UNANCHORED_WIDTH + 1 if high >= sre.MAXREPEAT else int(high)


def _has_anchor(items: list[Any]) -> bool:
    for op, arg in items:
        if op == sre.AT:
            return True
        if op == sre.SUBPATTERN and _has_anchor(list(arg[3])):
            return True
        if op == sre.BRANCH and any(_has_anchor(list(b)) for b in arg[1]):
            return True
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and _has_anchor(list(arg[2])):
            return True
    return False
