"""Diff stage, output: render a `diff.Report` as text, Markdown, JSON or a changelog.

Every renderer is a pure function of the report, so the same two schemas give
the same bytes. The JSON layout (`JSON_FORMAT`) is a documented interface for
tools; its keys are described in the README and pinned by tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .compare import METHODS, Change, Report
from .rules import GROUPS, SEVERITIES, Severity, group, section

#: Identifies the JSON layout; bumped only when a key changes meaning or goes away.
JSON_FORMAT = "acp-codegen-diff/1"
FORMATS = ("text", "markdown", "json")
_SECTIONS = ("Added", "Changed", "Removed")


def render(report: Report, fmt: str) -> str:
    """The report in one of `FORMATS`."""
    return {"text": text, "markdown": markdown, "json": as_json}[fmt](report)


def _selection(report: Report) -> str:
    sel = report.selection
    if sel.mode == "update":
        return "the session/update notification and the types it refers to"
    if sel.mode == "roots":
        return (
            "the session/update notification (when present), "
            + ", ".join(sel.roots)
            + " and the types they refer to"
        )
    return "every definition"


def _summary(report: Report) -> str:
    counts = ", ".join(f"{report.count(level)} {level}" for level in report.shown or SEVERITIES)
    total = len(report.changes)
    only = f" (--severity {' '.join(report.shown)})" if report.shown else ""
    return f"{total} change{'' if total == 1 else 's'}{only}: {counts}"


def summary_line(report: Report) -> str:
    """The counts alone (what ``diff --quiet`` prints)."""
    return _summary(report) if report.changes else "no changes"


@dataclass(frozen=True)
class Line:
    """One line of a human-readable report: a change, or several collapsed into one."""

    severity: Severity
    #: What the line is about, for a terminal and for Markdown; "" for the type itself.
    where: str
    where_md: str
    message: str
    #: Whether `where` names a Python class member (else the type owning it must be said).
    named: bool


#: Kinds whose changes to many fields of one type collapse into one line.
_COLLAPSIBLE = ("field.lenient_added", "field.lenient_removed")


def _one(change: Change) -> Line:
    """The Python name the change touches, with the wire name beside it."""
    python, wire = change.python, change.member
    if python and wire:
        where, where_md = f"{python} ({wire})", f"`{python}` (`{wire}`)"
    else:
        where = python or wire
        where_md = f"`{where}`" if where else ""
    return Line(change.severity, where, where_md, change.message, bool(python))


def _lines(changes: list[Change]) -> list[Line]:
    """One line per change, but one line per (kind, flag) for leniency flags on 2+ fields."""
    same: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        if change.kind in _COLLAPSIBLE:
            same.setdefault((change.kind, change.message), []).append(change)
    lines, done = [], set()
    for change in changes:
        key = (change.kind, change.message)
        group = same.get(key, [])
        if len(group) < 2:
            lines.append(_one(change))
        elif key not in done:
            done.add(key)
            attrs = [c.python.rsplit(".", 1)[-1] if c.python else c.member for c in group]
            lines.append(
                Line(
                    change.severity,
                    f"{change.type}: {len(group)} fields ({', '.join(attrs)})",
                    f"`{change.type}`, {len(group)} fields ("
                    + ", ".join(f"`{a}`" for a in attrs)
                    + ")",
                    change.message,
                    True,
                )
            )
    return lines


def _groups(report: Report) -> Iterator[tuple[Severity, str, str, list[Line]]]:
    """``(severity, type, label, lines)`` in report order: by severity, the method table last."""
    current: list[Change] = []
    for change in report.changes:
        if current and (current[0].type, current[0].severity) != (change.type, change.severity):
            yield _group(report, current)
            current = []
        current.append(change)
    if current:
        yield _group(report, current)


def _group(report: Report, changes: list[Change]) -> tuple[Severity, str, str, list[Line]]:
    name = changes[0].type
    title = "x-method / x-side method table" if name == METHODS else report.labels.get(name, "")
    return changes[0].severity, name, title, _lines(changes)


def _line(line: Line) -> str:
    return f"{line.where}: {line.message}" if line.where else line.message


def text(report: Report) -> str:
    """For a terminal: a header, a summary line, then breaking, additive and cosmetic
    changes in that order, one block per type."""
    lines = [
        f"old: {report.old_path}",
        f"new: {report.new_path}",
        f"compared: {_selection(report)}",
    ]
    if report.selection.note:
        lines.append(f"note: {report.selection.note}")
    lines.append(_summary(report) if report.changes else "no changes")
    level = ""
    for severity, name, title, changes in _groups(report):
        if severity != level:
            level = severity
            lines += ["", f"{severity.upper()} ({report.count(severity)})"]
        lines += ["", f"{name}  ({title})" if title else name]
        lines += [f"  {severity:<8}  {_line(c)}" for c in changes]
    return "\n".join(lines) + "\n"


def _md_line(line: Line) -> str:
    return f"{line.where_md}: {line.message}" if line.where_md else line.message


def markdown(report: Report) -> str:
    """An upgrade note for a pull request: a heading, a count line, then one section per
    `GROUPS` entry (what the reader must do: change code, expect data to be refused,
    skipped or repaired, or nothing), each with a sub-section per type."""
    lines = [
        "## ACP schema diff",
        "",
        f"`{report.old_path}` → `{report.new_path}`",
        "",
        f"Compared {_selection(report)}.",
    ]
    if report.selection.note:
        lines += ["", f"> Note: {report.selection.note}."]
    breaking = report.count("breaking")
    lines += [""]
    if not report.changes:
        lines.append("No changes.")
    else:
        summary = _summary(report)
        lines.append(f"**{summary}**" if breaking else summary)
    for key, heading in GROUPS.items():
        entries = tuple(c for c in report.changes if group(c.kind) == key)
        if not entries:
            continue
        lines += ["", f"### {heading} ({len(entries)})"]
        for _, name, title, changes in _groups(replace(report, changes=entries)):
            lines += ["", f"#### `{name}`" + (f" — {title}" if title else ""), ""]
            lines += [f"- {_md_line(c)}" for c in changes]
    return "\n".join(lines) + "\n"


def as_json(report: Report) -> str:
    """For tools: the layout named by `JSON_FORMAT`, keys sorted, one change per entry."""
    document = {
        "format": JSON_FORMAT,
        "old": {"path": report.old_path, "sha256": report.old_sha256},
        "new": {"path": report.new_path, "sha256": report.new_sha256},
        "selection": {
            "mode": report.selection.mode,
            "roots": list(report.selection.roots),
            "note": report.selection.note or None,
        },
        "summary": {level: report.count(level) for level in SEVERITIES},
        "shown": list(report.shown or SEVERITIES),
        "types": report.labels,
        "changes": [
            {
                "severity": c.severity,
                "group": group(c.kind),
                "kind": c.kind,
                "type": c.type,
                "member": c.member or None,
                "python": c.python or None,
                "old": c.old,
                "new": c.new,
                "message": c.message,
            }
            for c in report.changes
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def changelog(report: Report) -> str:
    """A Keep-a-Changelog ``[Unreleased]`` section (Added / Changed / Removed).

    Breaking entries come first in each section and are marked as such.
    """
    lines = [
        "## [Unreleased]",
        "",
        f"Schema: `{report.old_path}` → `{report.new_path}`.",
    ]
    if not report.changes:
        return "\n".join(lines + ["", "No changes to the generated bindings."]) + "\n"
    for heading in _SECTIONS:
        entries = [c for c in report.changes if section(c.kind) == heading]
        if not entries:
            continue
        lines += ["", f"### {heading}", ""]
        for severity, name, _, changes in _groups(replace(report, changes=tuple(entries))):
            mark = "**Breaking:** " if severity == "breaking" else ""
            owner = "method table: " if name == METHODS else f"`{name}`: "
            lines += [f"- {mark}{'' if c.named else owner}{_md_line(c)}" for c in changes]
    return "\n".join(lines) + "\n"


def insert_changelog(existing: str | None, entry: str) -> str:
    """`existing` (a changelog file's text, None when there is none) with `entry` put
    under its title: before the first ``## `` section, as Keep a Changelog orders them.

    A missing file starts with a ``# Changelog`` title.
    """
    if existing is None or not existing.strip():
        return f"# Changelog\n\n{entry}"
    lines = existing.splitlines(keepends=True)
    if not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = next((i for i, ln in enumerate(lines) if ln.startswith("## ")), len(lines))
    head = "".join(lines[:at]).rstrip("\n")
    tail = "".join(lines[at:])
    return f"{head}\n\n{entry}" + (f"\n{tail}" if tail else "")
