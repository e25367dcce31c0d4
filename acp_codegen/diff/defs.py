"""Diff stage, definitions: compare one matched pair of IR definitions.

`DefComparer` is handed the renames `diff` found and walks a pair of structs,
tagged unions, enums, aliases or shape unions, plus the two method tables,
collecting `Change`s. Members are matched by identity, never by position:
fields by wire name (then by attribute name, then as the one leftover pair of
the same type, which is a wire rename), variants by tag (then by target class,
which is a tag rename), enum values by value, methods by (method, kind). It
records facts only; `rules` says how serious each kind is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from .. import ir
from .rules import Severity, severity
from .types import (
    Aliases,
    Fate,
    canonical,
    compare_value,
    describe,
    refused,
    rename_refs,
    shape_changes,
)

K = TypeVar("K", bound=Hashable)

#: The group name of changes to the x-method/x-side table (the generated ``METHODS``).
METHODS = "METHODS"

#: What losing (False) or gaining (True) each leniency flag does to a field's values.
LENIENCY = {
    "default-on-error": {
        False: "an invalid value no longer falls back to the default; the message fails instead",
        True: "an invalid value now falls back to the default, with a repair",
    },
    "skip-invalid-items": {
        False: "an invalid item is no longer skipped; the message fails instead",
        True: "an invalid item is now skipped, with a repair",
    },
    "default-on-null": {
        False: "null no longer reads as the default; the message fails instead",
        True: "null now reads as the default, with a repair",
    },
}


@dataclass(frozen=True)
class Change:
    """One semantic difference, grouped under the definition it belongs to."""

    kind: str
    #: Python name of the definition (NEW's name when both exist), or `METHODS`.
    type: str
    #: Field wire name, variant tag, enum value or method; "" for the type itself.
    member: str
    old: str | None
    new: str | None
    message: str
    #: What the user's code touches: ``Class.attribute``, ``Enum.CONSTANT``, a variant's
    #: class; "" for the type itself and for method-table entries.
    python: str = ""

    @property
    def severity(self) -> Severity:
        return severity(self.kind)


def label(node: ir.Def, owners: dict[str, tuple[str, str]]) -> str:
    """A short description of a definition; `owners` maps variant classes to (union, tag)."""
    if isinstance(node, ir.Struct):
        if node.name in owners:
            union, tag = owners[node.name]
            return f"variant {tag!r} of {union}"
        return "struct"
    if isinstance(node, ir.TaggedUnion):
        return f"{'open' if node.open else 'closed'} tagged union on {node.tag_field!r}"
    if isinstance(node, ir.Enum):
        return f"{'open' if node.open else 'closed'} {node.base} enum"
    if isinstance(node, ir.Alias):
        return f"alias of {describe(node.target)}"
    return "untagged union"


def as_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def annotation_map(annotations: tuple[ir.Annotation, ...]) -> dict[str, str]:
    return {a.key: as_json(a.value) for a in annotations}


def pair_by(
    gone: list[K],
    came: list[K],
    old_key: Callable[[K], Hashable],
    new_key: Callable[[K], Hashable],
) -> list[tuple[K, K]]:
    """Pair members that vanished with members that appeared under the same key.

    A pair counts only when its key is unique among both leftovers; paired
    members are taken out of `gone` and `came`.
    """
    old_keys = Counter(old_key(m) for m in gone)
    new_keys = {new_key(m): m for m in came}
    new_counts = Counter(new_key(m) for m in came)
    pairs = [
        (m, new_keys[old_key(m)])
        for m in gone
        if old_keys[old_key(m)] == 1 and new_counts[old_key(m)] == 1
    ]
    for was, now in pairs:
        gone.remove(was)
        came.remove(now)
    return pairs


def field_fate(flags: tuple[str, ...]) -> Fate:
    """What a field's leniency flags make of a value inside it that no longer decodes."""

    def fate(where: str) -> str:
        if where.startswith("[]") and "skip-invalid-items" in flags:
            return "are now skipped, with a repair"
        if "default-on-error" in flags:
            return "now fall back to the field's default, with a repair"
        return refused(where)

    return fate


def catchers(module: ir.Module) -> dict[str, tuple[str, ...]]:
    """For each definition, the lenient fields of `module` that catch a value of it that
    does not decode, and what they make of it (`field_fate`): "in Update.items they are
    now skipped, with a repair"."""
    found: dict[str, list[str]] = {}
    for node in module.defs:
        if not isinstance(node, ir.Struct):
            continue
        for f in node.fields:
            expr = canonical(f.type)
            expr = expr.inner if isinstance(expr, ir.Nullable) else expr
            where, ref = ("[]", expr.item) if isinstance(expr, ir.ListOf) else ("", expr)
            fate = field_fate(f.lenient_flags)(where)
            if isinstance(ref, ir.Ref) and fate != refused(where):
                found.setdefault(ref.name, []).append(f"in {node.name}.{f.attr} they {fate}")
    return {name: tuple(sorted(set(places))) for name, places in found.items()}


class DefComparer:
    """Collects the changes between matched definitions of OLD and NEW."""

    def __init__(
        self,
        renames: dict[str, str],
        aliases: Aliases,
        docs: bool,
        caught: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.renames = renames
        self.aliases = aliases
        self.docs = docs
        #: `catchers` of NEW: where a definition's refused values are skipped or replaced.
        self.caught = caught or {}
        self.changes: list[Change] = []

    def emit(
        self,
        kind: str,
        group: str,
        member: str,
        old: object,
        new: object,
        message: str,
        python: str = "",
    ) -> None:
        self.changes.append(
            Change(
                kind,
                group,
                member,
                None if old is None else str(old),
                None if new is None else str(new),
                message,
                python,
            )
        )

    def rn(self, expr: ir.TypeExpr) -> ir.TypeExpr:
        """An OLD type expression with renamed definitions replaced by their NEW names."""
        return rename_refs(expr, self.renames)

    def rname(self, name: str | None) -> str | None:
        return None if name is None else self.renames.get(name, name)

    # -- any definition ---------------------------------------------------------------------
    def definition(self, old: ir.Def, new: ir.Def) -> None:
        if type(old) is not type(new):
            self.emit(
                "type.kind_changed",
                new.name,
                "",
                type(old).__name__,
                type(new).__name__,
                self.kind_changed(old, new),
            )
            return
        self.doc(new.name, "", old.doc, new.doc)
        if isinstance(old, ir.Struct) and isinstance(new, ir.Struct):
            self.struct(old, new)
        elif isinstance(old, ir.TaggedUnion) and isinstance(new, ir.TaggedUnion):
            self.union(old, new)
        elif isinstance(old, ir.Enum) and isinstance(new, ir.Enum):
            self.enum(old, new)
        elif isinstance(old, ir.Alias) and isinstance(new, ir.Alias):
            self.value(new.name, "", self.rn(old.target), new.target)
        elif isinstance(old, ir.ShapeUnion) and isinstance(new, ir.ShapeUnion):
            before = [canonical(self.rn(m)) for m in old.members]
            after = [canonical(m) for m in new.members]
            for kind, _, was, now, message in shape_changes(
                before, after, self.aliases, "", refused
            ):
                self.emit(kind, new.name, "", was, now, message)

    def kind_changed(self, old: ir.Def, new: ir.Def) -> str:
        """What a user does when a definition becomes another kind of thing."""
        shown = f"kind changed: {label(old, {})} -> {label(new, {})}"
        if not isinstance(new, ir.TaggedUnion):
            return f"{shown}: code that uses {new.name}'s old API must change"
        tag = new.tag_field
        members = [f"{v.target} ({v.tag!r})" for v in new.variants]
        if new.open:
            members.append(f"{new.unknown_name} (any other {tag!r})")
        first = new.variants[0].target if new.variants else new.unknown_name
        text = (
            f"{shown}: construct {first}(...) instead of {new.name}(...) and match on "
            f"{', '.join(members)}; values without {tag!r} no longer decode"
        )
        places = self.caught.get(new.name, ())
        return text + (f" ({'; '.join(places)})" if places else "")

    def doc(self, group: str, member: str, old: str, new: str, python: str = "") -> None:
        if self.docs and old.strip() != new.strip():
            self.emit("doc.changed", group, member, old, new, "description changed", python)

    def value(
        self,
        group: str,
        member: str,
        old: ir.TypeExpr,
        new: ir.TypeExpr,
        python: str = "",
        fate: Fate = refused,
    ) -> None:
        found = compare_value(old, new, self.aliases, fate=fate)
        for kind, where, before, after, message in found:
            shown = python + where if python else ""
            self.emit(kind, group, member + where, before, after, message, shown)

    def annotations(
        self,
        group: str,
        member: str,
        old: tuple[ir.Annotation, ...],
        new: tuple[ir.Annotation, ...],
        python: str = "",
    ) -> None:
        before, after = annotation_map(old), annotation_map(new)
        for key in sorted(before.keys() | after.keys()):
            was, now = before.get(key), after.get(key)
            if was == now:
                continue
            verb = "removed" if now is None else "added" if was is None else "changed"
            effect = "" if verb == "added" else ": the SessionState reducer treats it differently"
            message = f"{key} {verb}{effect}"
            self.emit(f"annotation.{verb}", group, member, was, now, message, python)

    def openness(
        self, prefix: str, group: str, was_open: bool, is_open: bool, opened: str, closed: str
    ) -> None:
        """Report a union or enum that started or stopped keeping unknown members."""
        if was_open != is_open:
            self.emit(
                f"{prefix}.opened" if is_open else f"{prefix}.closed",
                group,
                "",
                "open" if was_open else "closed",
                "open" if is_open else "closed",
                f"now open: {opened}" if is_open else f"now closed: {closed}",
            )

    # -- structs ----------------------------------------------------------------------------
    def struct(self, old: ir.Struct, new: ir.Struct) -> None:
        before = {f.wire: f for f in old.fields}
        after = {f.wire: f for f in new.fields}
        gone = [w for w in before if w not in after]
        came = [w for w in after if w not in before]
        pairs = [(before[w], after[w]) for w in before if w in after]
        for was, now in pair_by(gone, came, lambda w: before[w].attr, lambda w: after[w].attr):
            pairs.append((before[was], after[now]))
        if len(gone) == 1 and len(came) == 1:
            f_old, f_new = before[gone[0]], after[came[0]]
            if self.rn(f_old.type) == f_new.type and f_old.required == f_new.required:
                pairs.append((f_old, f_new))
                gone, came = [], []
        for wire in gone:
            state = "required" if before[wire].required else "optional"
            shown = describe(self.rn(before[wire].type))
            attr = f"{new.name}.{before[wire].attr}"
            message = f"{state} field removed: code that reads or passes {attr} breaks"
            self.emit(f"field.removed_{state}", new.name, wire, shown, None, message, attr)
        for wire in came:
            state = "required" if after[wire].required else "optional"
            shown = describe(after[wire].type)
            attr = f"{new.name}.{after[wire].attr}"
            message = f"{state} field added ({shown})"
            if after[wire].required:
                message += (
                    f": messages without {wire!r} no longer decode, and constructing "
                    f"{new.name} needs {after[wire].attr}="
                )
            self.emit(f"field.added_{state}", new.name, wire, None, shown, message, attr)
        for f_old, f_new in pairs:
            self.field(new.name, f_old, f_new)

    def field(self, group: str, old: ir.Field, new: ir.Field) -> None:
        wire = new.wire
        attr = f"{group}.{new.attr}"
        if old.wire != new.wire:
            message = (
                f"wire name renamed from {old.wire!r}; the attribute is unchanged"
                if old.attr == new.attr
                else f"renamed from {group}.{old.attr} (wire {old.wire!r}): use {attr}"
            )
            message += f"; messages that still send {old.wire!r} " + (
                "no longer decode" if new.required else f"leave {new.attr} UNSET"
            )
            self.emit("field.renamed", group, wire, old.wire, new.wire, message, attr)
        if old.required != new.required:
            now, was = ("required", "optional") if new.required else ("optional", "required")
            message = (
                f"now required: messages without {wire!r} no longer decode"
                if new.required
                else "now optional: it may be UNSET, so guard the code that reads it"
            )
            self.emit(f"field.now_{now}", group, wire, was, now, message, attr)
        fate = field_fate(new.lenient_flags)
        self.value(group, wire, self.rn(old.type), new.type, attr, fate)
        if old.default != new.default:
            shown = [None if d is ir.NO_DEFAULT else as_json(d) for d in (old.default, new.default)]
            message = f"default {shown[0] or 'none'} -> {shown[1] or 'none'}"
            self.emit("field.default_changed", group, wire, shown[0], shown[1], message, attr)
        for flag in ir.LENIENT_FLAGS:
            was_set, is_set = flag in old.lenient_flags, flag in new.lenient_flags
            if was_set != is_set:
                verb = "added" if is_set else "removed"
                self.emit(
                    f"field.lenient_{verb}",
                    group,
                    wire,
                    flag if was_set else None,
                    flag if is_set else None,
                    f"x-deserialize-{flag} {verb}: {LENIENCY[flag][is_set]}",
                    attr,
                )
        self.annotations(group, wire, old.annotations, new.annotations, attr)
        self.doc(group, wire, old.doc, new.doc, attr)

    # -- tagged unions ----------------------------------------------------------------------
    def union(self, old: ir.TaggedUnion, new: ir.TaggedUnion) -> None:
        group = new.name
        if old.tag_field != new.tag_field:
            message = (
                f"tag property changed from {old.tag_field!r} to {new.tag_field!r}: messages "
                f"tagged by {old.tag_field!r} no longer decode"
            )
            self.emit("union.tag_field_changed", group, "", old.tag_field, new.tag_field, message)
        self.openness(
            "union",
            group,
            old.open,
            new.open,
            f"unknown tags decode to {new.unknown_name}",
            "unknown tags no longer decode",
        )
        before = {v.tag: v for v in old.variants}
        after = {v.tag: v for v in new.variants}
        gone = [t for t in before if t not in after]
        came = [t for t in after if t not in before]
        pairs = [(before[t], after[t]) for t in before if t in after]
        renamed = pair_by(
            gone, came, lambda t: self.rname(before[t].target), lambda t: after[t].target
        )
        unknown = f"now decode to {new.unknown_name}" if new.open else "no longer decode"
        for was, now in renamed:
            message = f"tag renamed from {was!r}: messages tagged {was!r} {unknown}"
            self.emit("union.tag_renamed", group, now, was, now, message, after[now].target)
            pairs.append((before[was], after[now]))
        for tag in gone:
            target = self.rname(before[tag].target) or ""
            message = (
                f"variant removed: class {target} and its handler are gone, and messages "
                f"tagged {tag!r} {unknown}"
            )
            self.emit("union.variant_removed", group, tag, target, None, message, target)
        for tag in came:
            target = after[tag].target
            self.emit("union.variant_added", group, tag, None, target, "variant added", target)
        for v_old, v_new in pairs:
            self.variant(group, v_old, v_new)
        self.union_default(old, new)
        self.annotations(group, "", old.annotations, new.annotations)

    def variant(self, group: str, old: ir.Variant, new: ir.Variant) -> None:
        target = self.rname(old.target)
        if target != new.target:
            message = (
                f"now decodes to {new.target} instead of {target}: code that matches on "
                f"{target} must change"
            )
            self.emit(
                "union.variant_retargeted", group, new.tag, target, new.target, message, new.target
            )
        self.annotations(group, new.tag, old.annotations, new.annotations, new.target)
        self.doc(group, new.tag, old.doc, new.doc, new.target)

    def union_default(self, old: ir.TaggedUnion, new: ir.TaggedUnion) -> None:
        before = (self.rname(old.default_variant), old.default_tag)
        after = (new.default_variant, new.default_tag)
        if before == after:
            return
        shown = [f"{d[0]} ({d[1] or 'untitled'})" if d[0] else None for d in (before, after)]
        if before[0] is None:
            kind, message = "union.default_added", f"untagged messages now decode to {shown[1]}"
        elif after[0] is None:
            kind, message = "union.default_removed", "untagged messages no longer decode"
        else:
            kind = "union.default_changed"
            message = f"untagged messages now decode to {shown[1]}, not {shown[0]}"
        self.emit(kind, new.name, "", shown[0], shown[1], message)

    # -- enums ------------------------------------------------------------------------------
    def enum(self, old: ir.Enum, new: ir.Enum) -> None:
        group = new.name
        if old.base != new.base:
            message = (
                f"values are now {new.base}: code comparing with {old.base} values must change"
            )
            self.emit("enum.base_changed", group, "", old.base, new.base, message)
        self.openness(
            "enum",
            group,
            old.open,
            new.open,
            "unknown values are kept",
            "unknown values no longer decode",
        )
        before = {v.value: v for v in old.values}
        after = {v.value: v for v in new.values}
        gone = [v for v in before if v not in after]
        came = [v for v in after if v not in before]
        pairs = [(v, v) for v in before if v in after]
        fallback = "now decodes as an unknown value" if new.open else "no longer decodes"
        for was, now in pair_by(
            gone, came, lambda v: before[v].const_name, lambda v: after[v].const_name
        ):
            message = f"value renamed from {was!r}: {was!r} {fallback}"
            const = f"{group}.{after[now].const_name}"
            self.emit("enum.value_renamed", group, str(now), str(was), str(now), message, const)
            pairs.append((was, now))
        for value in gone:
            const = before[value].const_name
            python = f"{group}.{const}"
            message = f"value removed: code that uses {python} breaks, and {value!r} {fallback}"
            self.emit("enum.value_removed", group, str(value), const, None, message, python)
        for value in came:
            const = after[value].const_name
            python = f"{group}.{const}"
            self.emit("enum.value_added", group, str(value), None, const, "value added", python)
        for was, now in pairs:
            old_const, new_const = before[was].const_name, after[now].const_name
            python = f"{group}.{new_const}"
            if old_const != new_const:
                message = f"constant renamed from {group}.{old_const}: use {python}"
                kind = "enum.constant_renamed"
                self.emit(kind, group, str(now), old_const, new_const, message, python)
            self.doc(group, str(now), before[was].doc, after[now].doc, python)

    # -- methods ----------------------------------------------------------------------------
    def methods(self, old: tuple[ir.Method, ...], new: tuple[ir.Method, ...]) -> None:
        before = {(m.method, m.kind): m for m in old}
        after = {(m.method, m.kind): m for m in new}
        for key in sorted(before.keys() | after.keys()):
            member = f"{key[0]} ({key[1]})"
            m_old, m_new = before.get(key), after.get(key)
            if m_new is None and m_old is not None:
                target = self.rname(m_old.type_name)
                message = "method removed: METHODS no longer maps it to a type"
                self.emit("method.removed", METHODS, member, target, None, message)
            elif m_old is None and m_new is not None:
                message = f"method added ({m_new.type_name}, x-side {m_new.side or 'none'})"
                self.emit("method.added", METHODS, member, None, m_new.type_name, message)
            elif m_old is not None and m_new is not None:
                if m_old.side != m_new.side:
                    message = f"x-side changed from {m_old.side!r} to {m_new.side!r}"
                    self.emit(
                        "method.side_changed", METHODS, member, m_old.side, m_new.side, message
                    )
                target = self.rname(m_old.type_name)
                if target != m_new.type_name:
                    message = f"now carries {m_new.type_name} instead of {target}"
                    self.emit(
                        "method.type_changed", METHODS, member, target, m_new.type_name, message
                    )
