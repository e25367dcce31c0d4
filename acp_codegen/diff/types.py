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
    old: ir.TypeExpr, new: ir.TypeExpr, aliases: Aliases, where: str = ""
) -> list[Finding]:
    """Findings between two type expressions; OLD's refs must already be renamed."""
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
                "now accepts null" if new_null else "no longer accepts null",
            )
        )
    if old_inner == new_inner:
        return findings
    if isinstance(old_inner, ir.Prim) and isinstance(new_inner, ir.Prim):
        if old_inner.kind == new_inner.kind:
            return findings + _prim(old_inner, new_inner, where)
    elif isinstance(old_inner, ir.LiteralOf) and isinstance(new_inner, ir.LiteralOf):
        return findings + member_changes(
            "value.literal", list(old_inner.values), list(new_inner.values), where, json.dumps
        )
    elif isinstance(old_inner, ir.UnionOf) and isinstance(new_inner, ir.UnionOf):
        return findings + member_changes(
            "value.member", list(old_inner.members), list(new_inner.members), where
        )
    elif isinstance(old_inner, ir.ListOf) and isinstance(new_inner, ir.ListOf):
        findings += _bounds(
            "item count",
            where,
            (old_inner.constraints.min_items, None),
            (new_inner.constraints.min_items, None),
        )
        return findings + compare_value(old_inner.item, new_inner.item, aliases, where + "[]")
    elif isinstance(old_inner, ir.MapOf) and isinstance(new_inner, ir.MapOf):
        return findings + compare_value(old_inner.value, new_inner.value, aliases, where + "{}")
    findings.append(
        (
            "value.type_changed",
            where,
            describe(old),
            describe(new),
            f"type changed from {describe(old)} to {describe(new)}",
        )
    )
    return findings


def member_changes(
    prefix: str,
    old: list[Any],
    new: list[Any],
    where: str = "",
    spell: Callable[[Any], str] = describe,
) -> list[Finding]:
    """``<prefix>_removed`` / ``<prefix>_added`` findings for members of two sets."""
    findings: list[Finding] = []
    for value in old:
        if value not in new:
            text = spell(value)
            findings.append((f"{prefix}_removed", where, text, None, f"{text} no longer accepted"))
    for value in new:
        if value not in old:
            text = spell(value)
            findings.append((f"{prefix}_added", where, None, text, f"{text} now accepted"))
    return findings


def _bounds(what: str, where: str, old: Bounds, new: Bounds) -> list[Finding]:
    """Compare (low, high) ranges, where None means unbounded on that side."""
    tighter: list[str] = []
    looser: list[str] = []
    for index, name in enumerate(("minimum", "maximum")):
        before, after = old[index], new[index]
        if before == after:
            continue
        sign = 1 if index == 0 else -1
        if before is None or (after is not None and sign * after > sign * before):
            tighter.append(name)
        else:
            looser.append(name)
    text = [_range(old), _range(new)]
    found: list[Finding] = []
    for kind, names, verb in (
        ("value.constraint_tightened", tighter, "tightened"),
        ("value.constraint_loosened", looser, "loosened"),
    ):
        if names:
            message = f"{what} {' and '.join(names)} {verb}: {text[0]} -> {text[1]}"
            found.append((kind, where, text[0], text[1], message))
    return found


def _range(bounds: Bounds) -> str:
    low, high = bounds
    return f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"


def _prim(old: ir.Prim, new: ir.Prim, where: str) -> list[Finding]:
    findings = _bounds("value", where, old.value_range(), new.value_range())
    min_len = [p.constraints.min_length for p in (old, new)]
    if min_len[0] != min_len[1]:
        findings += _bounds("length", where, (min_len[0], None), (min_len[1], None))
    pattern = [p.constraints.pattern for p in (old, new)]
    if pattern[0] != pattern[1]:
        if pattern[0] is None:
            kind = "value.constraint_tightened"
        elif pattern[1] is None:
            kind = "value.constraint_loosened"
        else:
            kind = "value.pattern_changed"
        message = f"pattern {pattern[0] or 'none'} -> {pattern[1] or 'none'}"
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
