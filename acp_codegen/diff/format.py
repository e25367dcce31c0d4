"""Diff stage, output: render a `diff.Report` as text, Markdown, JSON or a changelog.

Every renderer is a pure function of the report, so the same two schemas give
the same bytes. The JSON layout (`JSON_FORMAT`) is a documented interface for
tools; its keys are described in the README and pinned by tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from .compare import METHODS, Change, Report
from .rules import SEVERITIES, section

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
    counts = ", ".join(f"{report.count(level)} {level}" for level in SEVERITIES)
    total = len(report.changes)
    return f"{total} change{'' if total == 1 else 's'}: {counts}"


def _groups(report: Report) -> Iterator[tuple[str, str, list[Change]]]:
    """``(type, label, changes)`` in report order, the method table last."""
    current: list[Change] = []
    for change in report.changes:
        if current and current[0].type != change.type:
            yield _group(report, current)
            current = []
        current.append(change)
    if current:
        yield _group(report, current)


def _group(report: Report, changes: list[Change]) -> tuple[str, str, list[Change]]:
    name = changes[0].type
    title = "x-method / x-side method table" if name == METHODS else report.labels.get(name, "")
    return name, title, changes


def _line(change: Change) -> str:
    return f"{change.member}: {change.message}" if change.member else change.message


def text(report: Report) -> str:
    """For a terminal: a header, a summary line, then one block per type."""
    lines = [
        f"old: {report.old_path}",
        f"new: {report.new_path}",
        f"compared: {_selection(report)}",
    ]
    if report.selection.note:
        lines.append(f"note: {report.selection.note}")
    lines.append(_summary(report) if report.changes else "no changes")
    for name, title, changes in _groups(report):
        lines += ["", f"{name}  ({title})" if title else name]
        lines += [f"  {c.severity:<8}  {_line(c)}" for c in changes]
    return "\n".join(lines) + "\n"


def _md_line(change: Change) -> str:
    where = f"`{change.member}`: " if change.member else ""
    return f"{where}{change.message}"


def markdown(report: Report) -> str:
    """For a pull-request comment: a heading, a count line, one section per type."""
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
        counts = [f"{report.count(level)} {level}" for level in SEVERITIES]
        if breaking:
            counts[0] = f"**{counts[0]}**"
        lines.append(", ".join(counts))
    for name, title, changes in _groups(report):
        lines += ["", f"### `{name}`" + (f" — {title}" if title else ""), ""]
        lines += [f"- **{c.severity}** {_md_line(c)}" for c in changes]
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
        "types": report.labels,
        "changes": [
            {
                "severity": c.severity,
                "kind": c.kind,
                "type": c.type,
                "member": c.member or None,
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
    order = {level: index for index, level in enumerate(SEVERITIES)}
    for heading in _SECTIONS:
        entries = sorted(
            (c for c in report.changes if section(c.kind) == heading),
            key=lambda c: order[c.severity],
        )
        if not entries:
            continue
        lines += ["", f"### {heading}", ""]
        for c in entries:
            mark = "**Breaking:** " if c.severity == "breaking" else ""
            owner = "method table" if c.type == METHODS else f"`{c.type}`"
            lines.append(f"- {mark}{owner}: {_md_line(c)}")
    return "\n".join(lines) + "\n"
