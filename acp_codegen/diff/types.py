"""Diff stage, values: compare two IR type expressions and describe them.

Used by `defs` for field types, list items, map values, alias targets and
the members of untagged unions. `compare_value` returns raw findings as
``(kind, where, old, new, message)`` tuples, where `where` is a suffix for the
member path (``[]`` for list items, ``{}`` for map values).

Two spellings of one Python type are not a change: a one-member union is its
member, ``X | null`` written as a union is `Nullable`, and a reference to a
plain alias (``SessionId = str``) equals its target, which is reported only as
a cosmetic respelling. Integer ``format``s count as bounds, because the msgspec
lowering enforces them as bounds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..ir import INT_FORMAT_BITS

Finding = tuple[str, str, str | None, str | None, str]
Bounds = tuple[float | None, float | None]
#: What becomes of a value that no longer decodes, given where it sits (a member-path
#: suffix such as ``[]``): a phrase completing "values like these ...".
Fate = Callable[[str], str]


def refused(where: str) -> str:
    """The fate of a refused value where nothing lenient catches it."""
    return "no longer decode"


NULL = ir.Prim("null")
ANY = ir.Prim("any")


@dataclass(frozen=True)
class Aliases:
    """Targets of the plain aliases on each side; OLD's are keyed by their NEW names."""

    old: dict[str, ir.TypeExpr] = field(default_factory=dict)
    new: dict[str, ir.TypeExpr] = field(default_factory=dict)


def rename_refs(expr: ir.TypeExpr, renames: dict[str, str]) -> ir.TypeExpr:
    """`expr` with every `Ref` to a key of `renames` pointed at its new name."""
    if not renames:
        return expr
    if isinstance(expr, ir.Ref):
        return ir.Ref(renames.get(expr.name, expr.name))
    if isinstance(expr, ir.ListOf):
        return ir.ListOf(rename_refs(expr.item, renames), expr.constraints)
    if isinstance(expr, ir.MapOf):
        return ir.MapOf(rename_refs(expr.value, renames))
    if isinstance(expr, ir.Nullable):
        return ir.Nullable(rename_refs(expr.inner, renames))
    if isinstance(expr, ir.UnionOf):
        return ir.UnionOf(tuple(rename_refs(m, renames) for m in expr.members))
    return expr


def canonical(expr: ir.TypeExpr) -> ir.TypeExpr:
    """One spelling per Python type: unwrap one-member unions, lift null out of unions."""
    if isinstance(expr, ir.ListOf):
        return ir.ListOf(canonical(expr.item), expr.constraints)
    if isinstance(expr, ir.MapOf):
        return ir.MapOf(canonical(expr.value))
    if isinstance(expr, ir.Nullable):
        inner = canonical(expr.inner)
        return inner if isinstance(inner, ir.Nullable) or inner == ANY else ir.Nullable(inner)
    if isinstance(expr, ir.UnionOf):
        members = tuple(canonical(m) for m in expr.members)
        rest = tuple(m for m in members if m != NULL)
        core = rest[0] if len(rest) == 1 else ir.UnionOf(rest)
        return canonical(ir.Nullable(core)) if len(rest) < len(members) and rest else core
    return expr


def describe(expr: ir.TypeExpr) -> str:
    """A short, stable, human spelling of a type: ``list[ContentBlock] | null``."""
    if isinstance(expr, ir.Prim):
        if expr.kind == "any":
            return "any JSON"
        return f"{expr.kind}({expr.format})" if expr.format else expr.kind
    if isinstance(expr, ir.Ref):
        return expr.name
    if isinstance(expr, ir.ListOf):
        return f"list[{describe(expr.item)}]"
    if isinstance(expr, ir.MapOf):
        return f"map[str, {describe(expr.value)}]"
    if isinstance(expr, ir.LiteralOf):
        return " | ".join(json.dumps(v) for v in expr.values)
    if isinstance(expr, ir.Nullable):
        return f"{describe(expr.inner)} | null"
    return " | ".join(describe(m) for m in expr.members)


def _split_null(expr: ir.TypeExpr) -> tuple[ir.TypeExpr, bool]:
    if isinstance(expr, ir.Nullable):
        return expr.inner, True
    return expr, expr == ANY


def _expand(expr: ir.TypeExpr, targets: dict[str, ir.TypeExpr]) -> ir.TypeExpr:
    """Follow references to plain aliases until a non-alias type is reached."""
    seen: set[str] = set()
    while isinstance(expr, ir.Ref) and expr.name in targets and expr.name not in seen:
        seen.add(expr.name)
        expr = canonical(targets[expr.name])
    return expr


def compare_value(
    old: ir.TypeExpr, new: ir.TypeExpr, aliases: Aliases, where: str = "", fate: Fate = refused
) -> list[Finding]:
    """Findings between two type expressions; OLD's refs must already be renamed. `fate`
    words what happens to values that no longer decode, in the findings' messages."""
    old, new = canonical(old), canonical(new)
    if old == new:
        return []
    old_inner, old_null = _split_null(old)
    new_inner, new_null = _split_null(new)
    if old_inner != new_inner:
        old_x, new_x = _expand(old_inner, aliases.old), _expand(new_inner, aliases.new)
        if (old_x, new_x) != (old_inner, new_inner):
            found = compare_value(
                ir.Nullable(old_x) if old_null else old_x,
                ir.Nullable(new_x) if new_null else new_x,
                aliases,
                where,
                fate,
            )
            respelled = (
                "value.alias_changed",
                where,
                describe(old),
                describe(new),
                f"respelled from {describe(old)} to {describe(new)} (same type)",
            )
            return found or [respelled]
    findings: list[Finding] = []
    if old_null != new_null:
        findings.append(
            (
                "value.now_nullable" if new_null else "value.now_not_nullable",
                where,
                describe(old),
                describe(new),
                "may now be None: guard the code that reads it"
                if new_null
                else f"null no longer accepted: null values {fate(where)}",
            )
        )
    if old_inner == new_inner:
        return findings
    if isinstance(old_inner, ir.Prim) and isinstance(new_inner, ir.Prim):
        if old_inner.kind == new_inner.kind:
            return findings + _prim(old_inner, new_inner, where, fate)
    elif isinstance(old_inner, ir.LiteralOf) and isinstance(new_inner, ir.LiteralOf):
        return findings + member_changes(
            "value.literal",
            list(old_inner.values),
            list(new_inner.values),
            where,
            json.dumps,
            fate,
        )
    elif isinstance(old_inner, ir.UnionOf) and isinstance(new_inner, ir.UnionOf):
        return findings + shape_changes(
            list(old_inner.members), list(new_inner.members), aliases, where, fate
        )
    elif isinstance(old_inner, ir.ListOf) and isinstance(new_inner, ir.ListOf):
        findings += _bounds(
            ITEMS,
            where,
            (old_inner.constraints.min_items, None),
            (new_inner.constraints.min_items, None),
            fate,
        )
        item = compare_value(old_inner.item, new_inner.item, aliases, where + "[]", fate)
        return findings + item
    elif isinstance(old_inner, ir.MapOf) and isinstance(new_inner, ir.MapOf):
        value = compare_value(old_inner.value, new_inner.value, aliases, where + "{}", fate)
        return findings + value
    findings.append(
        (
            "value.type_changed",
            where,
            describe(old),
            describe(new),
            f"type changed from {describe(old)} to {describe(new)}: code that reads it gets "
            f"the new type, and values that are not {describe(new)} {fate(where)}",
        )
    )
    return findings


def member_changes(
    prefix: str,
    old: list[Any],
    new: list[Any],
    where: str = "",
    spell: Callable[[Any], str] = describe,
    fate: Fate = refused,
) -> list[Finding]:
    """``<prefix>_removed`` / ``<prefix>_added`` findings for members of two sets."""
    findings: list[Finding] = []
    for value in old:
        if value not in new:
            text = spell(value)
            message = f"{text} no longer accepted: such values {fate(where)}"
            findings.append((f"{prefix}_removed", where, text, None, message))
    for value in new:
        if value not in old:
            text = spell(value)
            findings.append((f"{prefix}_added", where, None, text, f"{text} now accepted"))
    return findings


def shape_changes(
    old: list[ir.TypeExpr], new: list[ir.TypeExpr], aliases: Aliases, where: str, fate: Fate
) -> list[Finding]:
    """The members of two untagged unions: a member spelled alike on both sides (the same
    list with a new minimum, say) is one member that changed, compared as a value; the rest
    were removed or added."""
    gone = [m for m in old if m not in new]
    came = [m for m in new if m not in old]
    findings: list[Finding] = []
    for was in list(gone):
        alike = [now for now in came if describe(now) == describe(was)]
        if len(alike) == 1:
            gone.remove(was)
            came.remove(alike[0])
            changed = compare_value(was, alike[0], aliases, where, fate)
            findings += [(k, w, o, n, f"{describe(was)}: {m}") for k, w, o, n, m in changed]
    return findings + member_changes("value.member", gone, came, where, fate=fate)


@dataclass(frozen=True)
class Measure:
    """What a pair of bounds limits, in words: the thing measured and its unit."""

    what: str
    #: The values below and above a bound: "values below 1", "lists of fewer than 1 item".
    below: Callable[[float], str]
    above: Callable[[float], str]
    #: A range, named, given the integer format that bounds it (if any): "uint32",
    #: "uint32, at least 1", "0 to 1", "at least 1".
    name: Callable[[Bounds, str | None], str]


def number(value: float) -> str:
    """A bound as a reader writes it: ``4,294,967,295``, ``0.5``."""
    return f"{value:,}" if isinstance(value, int) or float(value).is_integer() else str(value)


#: What each integer format holds, as the IR bounds it.
INT_RANGES = {name: ir.Prim("int", name).value_range() for name in INT_FORMAT_BITS}


def range_name(bounds: Bounds, fmt: str | None = None) -> str:
    """A value range by the integer format `fmt` that bounds it (``int64``), the same
    narrowed on one side (``uint32, at least 1``), else by its ends (``0 to 1``)."""
    low, high = bounds
    fmt = fmt if fmt in INT_RANGES else None  # a float's "double" bounds nothing
    first, last = INT_RANGES.get(fmt or "", (None, None))
    if fmt is not None and (low, high) == (first, last):
        return fmt
    if fmt is not None and high == last and low is not None:
        return f"{fmt}, at least {number(low)}"
    if fmt is not None and low == first and high is not None:
        return f"{fmt}, at most {number(high)}"
    if low is not None and high is not None:
        return f"{number(low)} to {number(high)}"
    if low is not None:
        return f"at least {number(low)}"
    return "any value" if high is None else f"at most {number(high)}"


def _count(bounds: Bounds, fmt: str | None = None) -> str:
    low = bounds[0]
    return "any" if low is None or low == 0 else f"at least {number(low)}"


VALUES = Measure(
    "range",
    lambda n: f"values below {number(n)}",
    lambda n: f"values above {number(n)}",
    range_name,
)
ITEMS = Measure(
    "item count",
    lambda n: "empty lists" if n == 1 else f"lists of fewer than {number(n)} items",
    lambda n: f"lists of more than {number(n)} items",
    _count,
)
LENGTH = Measure(
    "length",
    lambda n: "empty strings" if n == 1 else f"strings shorter than {number(n)} characters",
    lambda n: f"strings longer than {number(n)} characters",
    _count,
)


def _bounds(
    measure: Measure,
    where: str,
    old: Bounds,
    new: Bounds,
    fate: Fate,
    formats: tuple[str | None, str | None] = (None, None),
) -> list[Finding]:
    """One finding for two (low, high) ranges, None meaning unbounded on that side: what
    no longer decodes and what now does. Tightened when anything is lost."""
    if old == new:
        return []
    lost: list[str] = []
    gained: list[str] = []
    (low0, high0), (low1, high1) = old, new
    if low0 != low1:
        if low1 is not None and (low0 is None or low1 > low0):
            lost.append(measure.below(low1))
        elif low0 is not None:
            gained.append(measure.below(low0))
    if high0 != high1:
        if high1 is not None and (high0 is None or high1 < high0):
            lost.append(measure.above(high1))
        elif high0 is not None:
            gained.append(measure.above(high0))
    names = [measure.name(old, formats[0]), measure.name(new, formats[1])]
    parts = [f"{' and '.join(lost)} {fate(where)}"] if lost else []
    parts += [f"{' and '.join(gained)} now decode"] if gained else []
    kind = "value.constraint_" + (("shifted" if gained else "tightened") if lost else "loosened")
    message = f"{measure.what} {names[0]} -> {names[1]}: {'; '.join(parts)}"
    return [(kind, where, names[0], names[1], message)]


def _prim(old: ir.Prim, new: ir.Prim, where: str, fate: Fate) -> list[Finding]:
    formats = (old.format, new.format)
    findings = _bounds(VALUES, where, old.value_range(), new.value_range(), fate, formats)
    min_len = [p.constraints.min_length for p in (old, new)]
    if min_len[0] != min_len[1]:
        findings += _bounds(LENGTH, where, (min_len[0], None), (min_len[1], None), fate)
    pattern = [p.constraints.pattern for p in (old, new)]
    if pattern[0] != pattern[1]:
        shown = f"pattern {pattern[0] or 'none'} -> {pattern[1] or 'none'}"
        if pattern[0] is None:
            kind, message = "value.constraint_tightened", f"{shown}: strings not matching it"
        elif pattern[1] is None:
            kind, message = "value.constraint_loosened", f"{shown}: any string now decodes"
        else:
            kind, message = "value.pattern_changed", f"{shown}: strings only the old one matches"
        if kind != "value.constraint_loosened":
            message += f" {fate(where)}"
        findings.append((kind, where, pattern[0], pattern[1], message))
    # Integer formats were compared as bounds above; other formats only document.
    as_bounds = old.kind == "int" and INT_FORMAT_BITS.keys() & {old.format, new.format}
    if not as_bounds and (old.format, old.encoding) != (new.format, new.encoding):
        before, after = _format(old), _format(new)
        findings.append(
            ("value.format_changed", where, before, after, f"format {before} -> {after}")
        )
    return findings


def _format(prim: ir.Prim) -> str:
    parts = [p for p in (prim.format, prim.encoding and f"encoding {prim.encoding}") if p]
    return ", ".join(parts) or "none"
