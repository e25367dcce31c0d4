"""Diff stage, rules: the one table that classifies every kind of schema change.

`diff` finds changes and tags each with a kind from `RULES`; nothing else
decides how serious a change is. The point of view is a consumer of the
generated bindings who decodes what a peer sends:

- **breaking**: a message that decoded before no longer decodes, or a name the
  consumer's code uses (a class, an attribute, an enum constant, a handler)
  disappears or changes its Python type;
- **additive**: something new is accepted or offered, and nothing that worked
  before stops working;
- **cosmetic**: only documentation or metadata that decoding ignores changed.

Each rule also names its mirror (the kind the same change has when OLD and NEW
are swapped) and the Keep-a-Changelog section it is listed under. The README's
rule table is generated from `RULES` by `rules_markdown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["breaking", "additive", "cosmetic"]
Section = Literal["Added", "Changed", "Removed"]
Hits = Literal["code", "data"]
Group = Literal["code", "data", "new", "none"]

#: The upgrade note's groups (``diff --format markdown``), in order, with their headings.
GROUPS: dict[Group, str] = {
    "code": "Your code must change",
    "data": "Data you receive may now be refused, skipped or repaired",
    "new": "New, optional",
    "none": "No effect on code or data",
}

#: Severities from most to least serious; output lists them in this order.
SEVERITIES: tuple[Severity, ...] = ("breaking", "additive", "cosmetic")


@dataclass(frozen=True)
class Rule:
    severity: Severity
    mirror: str
    section: Section
    why: str
    #: Who a breaking change hits: "code" (the user's code must change) or "data" (what
    #: decoded before may now be refused, skipped or repaired); see `group`.
    hits: Hits | None = None


RULES: dict[str, Rule] = {
    # -- definitions ------------------------------------------------------------------------
    "type.added": Rule("additive", "type.removed", "Added", "a new class; nothing old changes"),
    "type.removed": Rule(
        "breaking", "type.added", "Removed", "the class disappears from the package", "code"
    ),
    "type.renamed": Rule(
        "breaking",
        "type.renamed",
        "Changed",
        "same shape under a new Python name: the wire is unchanged, imports of the old name break",
        "code",
    ),
    "type.kind_changed": Rule(
        "breaking",
        "type.kind_changed",
        "Changed",
        "e.g. a struct became a union: the class has a different API",
        "code",
    ),
    # -- fields -----------------------------------------------------------------------------
    "field.added_optional": Rule(
        "additive", "field.removed_optional", "Added", "old messages still decode (UNSET)"
    ),
    "field.added_required": Rule(
        "breaking",
        "field.removed_required",
        "Added",
        "old messages that lack the field stop decoding",
        "code",
    ),
    "field.removed_optional": Rule(
        "breaking", "field.added_optional", "Removed", "the attribute disappears", "code"
    ),
    "field.removed_required": Rule(
        "breaking", "field.added_required", "Removed", "the attribute disappears", "code"
    ),
    "field.renamed": Rule(
        "breaking",
        "field.renamed",
        "Changed",
        "the wire name changed: messages using the old name stop decoding",
        "data",
    ),
    "field.now_required": Rule(
        "breaking",
        "field.now_optional",
        "Changed",
        "messages that omit the field stop decoding",
        "data",
    ),
    "field.now_optional": Rule(
        "breaking",
        "field.now_required",
        "Changed",
        "the attribute's type gains UNSET; code that reads it unguarded breaks",
        "code",
    ),
    "field.default_changed": Rule(
        "cosmetic",
        "field.default_changed",
        "Changed",
        "decoding never fills in defaults (omitted stays UNSET); the default is "
        "documented and used only as the lenient fallback value",
    ),
    "field.lenient_added": Rule(
        "additive",
        "field.lenient_removed",
        "Changed",
        "an x-deserialize-* flag appeared: more malformed input is tolerated",
    ),
    "field.lenient_removed": Rule(
        "breaking",
        "field.lenient_added",
        "Changed",
        "an x-deserialize-* flag went away: input it tolerated stops decoding",
        "data",
    ),
    # -- value types (fields, list items, map values, alias targets) -------------------------
    "value.now_nullable": Rule(
        "breaking",
        "value.now_not_nullable",
        "Changed",
        "the attribute's type gains None; code that reads it unguarded breaks",
        "code",
    ),
    "value.now_not_nullable": Rule(
        "breaking", "value.now_nullable", "Changed", "an explicit null stops decoding", "data"
    ),
    "value.type_changed": Rule(
        "breaking",
        "value.type_changed",
        "Changed",
        "a different Python type: old values stop decoding",
        "code",
    ),
    "value.literal_added": Rule(
        "additive",
        "value.literal_removed",
        "Added",
        "one more constant is accepted",
    ),
    "value.literal_removed": Rule(
        "breaking", "value.literal_added", "Removed", "a constant stops decoding", "data"
    ),
    "value.member_added": Rule(
        "additive",
        "value.member_removed",
        "Added",
        "an untagged union accepts one more shape",
    ),
    "value.member_removed": Rule(
        "breaking",
        "value.member_added",
        "Removed",
        "values of the removed shape stop decoding",
        "data",
    ),
    "value.constraint_tightened": Rule(
        "breaking",
        "value.constraint_loosened",
        "Changed",
        "a bound, minimum length or item count got stricter (int formats count as bounds)",
        "data",
    ),
    "value.constraint_loosened": Rule(
        "additive",
        "value.constraint_tightened",
        "Changed",
        "a bound, minimum length or item count got more permissive",
    ),
    "value.constraint_shifted": Rule(
        "breaking",
        "value.constraint_shifted",
        "Changed",
        "a range moved: values on one side stop decoding, values on the other start",
        "data",
    ),
    "value.pattern_changed": Rule(
        "breaking",
        "value.pattern_changed",
        "Changed",
        "a regex changed: strings the old one accepted may be rejected",
        "data",
    ),
    "value.alias_changed": Rule(
        "cosmetic",
        "value.alias_changed",
        "Changed",
        "the same type spelled through a different alias (str -> SessionId = str)",
    ),
    "value.format_changed": Rule(
        "cosmetic",
        "value.format_changed",
        "Changed",
        "a format or contentEncoding the decoder does not check (uri, date-time, ...)",
    ),
    # -- tagged unions ----------------------------------------------------------------------
    "union.variant_added": Rule(
        "additive", "union.variant_removed", "Added", "a new tag decodes to its own class"
    ),
    "union.variant_removed": Rule(
        "breaking",
        "union.variant_added",
        "Removed",
        "its class and handler disappear; the tag no longer decodes (or lands in Unknown*)",
        "code",
    ),
    "union.tag_renamed": Rule(
        "breaking",
        "union.tag_renamed",
        "Changed",
        "the same class under a new tag value: the old value stops decoding",
        "data",
    ),
    "union.variant_retargeted": Rule(
        "breaking",
        "union.variant_retargeted",
        "Changed",
        "the tag now decodes to a different class",
        "code",
    ),
    "union.tag_field_changed": Rule(
        "breaking",
        "union.tag_field_changed",
        "Changed",
        "the discriminator property changed: nothing old decodes",
        "data",
    ),
    "union.opened": Rule(
        "additive", "union.closed", "Changed", "unknown tags now decode to Unknown*"
    ),
    "union.closed": Rule(
        "breaking", "union.opened", "Changed", "unknown tags stop decoding", "data"
    ),
    "union.default_added": Rule(
        "additive",
        "union.default_removed",
        "Added",
        "a message without the tag now decodes to the default variant",
    ),
    "union.default_removed": Rule(
        "breaking",
        "union.default_added",
        "Removed",
        "a message without the tag stops decoding",
        "data",
    ),
    "union.default_changed": Rule(
        "breaking",
        "union.default_changed",
        "Changed",
        "a message without the tag decodes to a different class",
        "data",
    ),
    # -- enums ------------------------------------------------------------------------------
    "enum.value_added": Rule(
        "additive", "enum.value_removed", "Added", "a new constant (open enums kept it already)"
    ),
    "enum.value_removed": Rule(
        "breaking",
        "enum.value_added",
        "Removed",
        "the constant disappears; in a closed enum the value stops decoding",
        "code",
    ),
    "enum.value_renamed": Rule(
        "breaking",
        "enum.value_renamed",
        "Changed",
        "the same constant under a new wire value: the old value stops decoding",
        "data",
    ),
    "enum.opened": Rule(
        "additive", "enum.closed", "Changed", "unknown values are now kept instead of rejected"
    ),
    "enum.closed": Rule(
        "breaking", "enum.opened", "Changed", "unknown values stop decoding", "data"
    ),
    "enum.base_changed": Rule(
        "breaking", "enum.base_changed", "Changed", "str values became int values or back", "code"
    ),
    "enum.constant_renamed": Rule(
        "breaking",
        "enum.constant_renamed",
        "Changed",
        "the same value under a new Python constant name",
        "code",
    ),
    # -- method table (x-method / x-side) ----------------------------------------------------
    "method.added": Rule("additive", "method.removed", "Added", "a new METHODS entry"),
    "method.removed": Rule(
        "breaking", "method.added", "Removed", "a METHODS entry disappears", "code"
    ),
    "method.side_changed": Rule(
        "breaking",
        "method.side_changed",
        "Changed",
        "a different side handles the method (x-side)",
        "code",
    ),
    "method.type_changed": Rule(
        "breaking",
        "method.type_changed",
        "Changed",
        "the method carries a different type",
        "code",
    ),
    # -- our x-acp-* annotations ------------------------------------------------------------
    "annotation.added": Rule(
        "additive",
        "annotation.removed",
        "Added",
        "new reducer semantics for a variant, field or union",
    ),
    "annotation.removed": Rule(
        "breaking",
        "annotation.added",
        "Removed",
        "reducer behaviour that relied on it goes away",
        "code",
    ),
    "annotation.changed": Rule(
        "breaking",
        "annotation.changed",
        "Changed",
        "the reducer treats the node differently",
        "code",
    ),
    # -- documentation (only with --docs) ---------------------------------------------------
    "doc.changed": Rule(
        "cosmetic", "doc.changed", "Changed", "a description changed (reported only with --docs)"
    ),
}


def severity(kind: str) -> Severity:
    """How serious a change of this kind is for a consumer of the bindings."""
    return RULES[kind].severity


def group(kind: str) -> Group:
    """The upgrade-note group of a change of this kind: what it asks of the reader."""
    rule = RULES[kind]
    if rule.hits is not None:
        return rule.hits
    return "new" if rule.severity == "additive" else "none"


def mirror(kind: str) -> str:
    """The kind the same change has when OLD and NEW are swapped."""
    return RULES[kind].mirror


def section(kind: str) -> Section:
    """The Keep-a-Changelog section a change of this kind belongs in."""
    return RULES[kind].section


def rules_markdown() -> str:
    """The rule table as Markdown, for the README."""
    lines = ["| kind | class | group | why |", "| --- | --- | --- | --- |"]
    lines += [
        f"| `{kind}` | {rule.severity} | {group(kind)} | {rule.why} |"
        for kind, rule in RULES.items()
    ]
    return "\n".join(lines) + "\n"
