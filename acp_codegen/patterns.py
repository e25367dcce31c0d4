"""Build-stage check: a ``pattern`` is one Python's ``re`` matches in linear time, or refused.

Generated code tests patterns with ``re`` on every target (msgspec and the dataclasses
runtime search with it, and the pydantic target hands pydantic the compiled pattern, so
pydantic uses ``re`` as well and all three accept the same strings). ``re`` backtracks:
``^(a+)+$`` takes seconds on a 30-character value. A linear-time engine (google-re2 has
wheels) would be a second dependency of every generated package, with a syntax and a
``$`` of its own, so instead the generator accepts only patterns that ``re`` provably
matches in time linear in the value, and refuses any other with one line:

- **Deterministic.** Wherever the pattern may go two ways (the branches of ``|``, one
  more repetition or what follows it), the characters each way can begin with are
  disjoint, so ``re`` never follows a second way past one character. ``^\\w+@\\w+$``
  passes; ``^(a+)+$``, ``^a*a*$`` and ``^(a|ab)*$`` do not.
- **Anchored, or short where it can fail.** ``re.search`` tries a pattern at every
  position. One that starts with ``^`` or ``\\A`` is tried at one; any other may fail only
  within its first `UNANCHORED_WIDTH` characters: ``ab+`` passes (once a ``b`` is seen,
  nothing after can fail), ``a+b`` does not (on ``aaa...`` each position reads to the end).
- **Plain constructs.** Literals, classes, ``.``, groups, ``|``, greedy and lazy
  repetition and the anchors ``^ $ \\A \\Z \\b \\B``; no backreference, lookaround,
  conditional, atomic group, possessive repetition or inline flag, and at most
  `MAX_PATTERN` characters.

Character classes are compared exactly on ASCII; beyond it, through four disjoint parts
(digits, other word characters, white space, the rest) that ``\\d \\w \\s`` and their
negations are unions of, so ``\\w+\\s`` passes and an overlap is never missed.
"""

from __future__ import annotations

import functools
import re
import re._constants as sre  # the parser ``re`` compiles with: the constructs as ``re`` reads them
import re._parser as sre_parse
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import SchemaError

#: Characters of a pattern; longer ones are refused (the published schemas' longest is 10).
MAX_PATTERN = 1000
#: How far into a value a pattern not anchored at the start may still fail.
UNANCHORED_WIDTH = 64
_ASCII = (1 << 128) - 1
_ATOMS = frozenset({"digit", "word", "space", "other"})
#: Category -> the regex that spells it and the non-ASCII parts it covers.
_CATEGORIES = {
    sre.CATEGORY_DIGIT: (r"\d", frozenset({"digit"})),
    sre.CATEGORY_NOT_DIGIT: (r"\D", frozenset({"word", "space", "other"})),
    sre.CATEGORY_WORD: (r"\w", frozenset({"digit", "word"})),
    sre.CATEGORY_NOT_WORD: (r"\W", frozenset({"space", "other"})),
    sre.CATEGORY_SPACE: (r"\s", frozenset({"space"})),
    sre.CATEGORY_NOT_SPACE: (r"\S", frozenset({"digit", "word", "other"})),
}
_REFUSED = {
    sre.GROUPREF: "a backreference",
    sre.GROUPREF_EXISTS: "a conditional group",
    sre.ASSERT: "a lookahead or lookbehind",
    sre.ASSERT_NOT: "a lookahead or lookbehind",
    sre.ATOMIC_GROUP: "an atomic group",
    sre.POSSESSIVE_REPEAT: "a possessive repetition",
}
_ANCHORS = (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING)


@dataclass(frozen=True)
class Chars:
    """A set of characters: exact on ASCII (a bit mask) and for the non-ASCII `ranges`
    written out, and by the parts of the non-ASCII rest that `atoms` name."""

    ascii: int = 0
    ranges: tuple[tuple[int, int], ...] = ()
    atoms: frozenset[str] = frozenset()

    def __or__(self, other: Chars) -> Chars:
        return Chars(self.ascii | other.ascii, self.ranges + other.ranges, self.atoms | other.atoms)

    def meets(self, other: Chars) -> bool:
        if self.ascii & other.ascii or self.atoms & other.atoms:
            return True
        if any(lo <= b_hi and b_lo <= hi for lo, hi in self.ranges for b_lo, b_hi in other.ranges):
            return True
        return bool(_atoms_of(self.ranges) & other.atoms or _atoms_of(other.ranges) & self.atoms)


NOTHING = Chars()


class Refused(Exception):
    """Why a pattern is refused (the caller adds where)."""


def check(pattern: str, pointer: str, source: str) -> str:
    """`pattern` itself when ``re`` matches it in linear time; else a `SchemaError`."""
    if len(pattern) > MAX_PATTERN:
        raise SchemaError(
            f"pattern is {len(pattern):,} characters, over the {MAX_PATTERN:,}-character limit",
            pointer,
            source,
        )
    try:
        parsed = sre_parse.parse(pattern)
    except re.error as exc:
        raise SchemaError(f"invalid pattern: {exc}", pointer, source) from None
    try:
        if parsed.state.flags & ~re.UNICODE:
            raise Refused("an inline flag such as (?i)")
        items = list(parsed)
        _sequence(items, NOTHING)
        if not _anchored(items):
            _short_where_it_can_fail(items)
    except Refused as why:
        raise SchemaError(
            f"pattern {pattern!r} is not one that Python's re, which generated code matches "
            f"with, is sure to match in linear time: {why}",
            pointer,
            source,
        ) from None
    return pattern


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
        _group, add_flags, del_flags, body = arg
        if add_flags or del_flags:
            raise Refused("an inline flag such as (?i:...)")
        return _sequence(list(body), follow)
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
        return _literal(arg)
    if op == sre.NOT_LITERAL:
        return Chars(_ASCII & ~(1 << arg) if arg < 128 else _ASCII, (), _ATOMS)
    if op == sre.ANY:
        return Chars(_ASCII & ~(1 << ord("\n")), (), _ATOMS)
    if op == sre.IN:
        return _class(arg)
    raise Refused(f"it holds {str(op).lower().replace('_', ' ')}, which is not supported")


def _literal(code: int) -> Chars:
    return Chars(1 << code) if code < 128 else Chars(ranges=((code, code),))


def _class(items: list[tuple[Any, Any]]) -> Chars:
    negate = bool(items) and items[0][0] == sre.NEGATE
    found = NOTHING
    whole: frozenset[str] = frozenset()  # non-ASCII parts a category covers entirely
    for op, arg in items[1:] if negate else items:
        if op == sre.LITERAL:
            found |= _literal(arg)
        elif op == sre.RANGE:
            lo, hi = arg
            mask = sum(1 << c for c in range(lo, min(hi, 127) + 1))
            found |= Chars(mask, ((max(lo, 128), hi),) if hi >= 128 else ())
        elif op == sre.CATEGORY and arg in _CATEGORIES:
            atoms = _CATEGORIES[arg][1]
            found |= Chars(_category_ascii(arg), (), atoms)
            whole |= atoms
        else:
            raise Refused("a character class holds a construct that is not supported")
    if not negate:
        return found
    return Chars(_ASCII & ~found.ascii, (), _ATOMS - whole)


@functools.cache
def _category_ascii(category: Any) -> int:
    spelled = re.compile(_CATEGORIES[category][0])
    return sum(1 << c for c in range(128) if spelled.match(chr(c)))


@functools.cache
def _atoms_of(ranges: tuple[tuple[int, int], ...]) -> frozenset[str]:
    """The non-ASCII parts that characters in `ranges` fall into (all four for a range
    too long to look through)."""
    found: set[str] = set()
    for lo, hi in ranges:
        if hi - lo > 4096:
            return _ATOMS
        found.update(_atom(chr(c)) for c in range(lo, hi + 1))
    return frozenset(found)


def _atom(char: str) -> str:
    if re.match(r"\d", char):
        return "digit"
    if re.match(r"\w", char):
        return "word"
    return "space" if re.match(r"\s", char) else "other"


# -- where an unanchored pattern can fail ------------------------------------------------------


def _anchored(items: list[Any]) -> bool:
    if not items:
        return False
    op, arg = items[0]
    if op == sre.AT:
        return arg in _ANCHORS
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
