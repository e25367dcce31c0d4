"""``acp-codegen diff OLD NEW``: what changed between two schema revisions, and what breaks.

The command wraps `compare.diff_paths` and `format`. Exit codes: 0 when the
comparison ran (whatever it found), 1 when ``--fail-on`` is given and a change
of that class was found, 2 for bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..console import Console, handles_bad_input
from ..errors import UsageError
from . import format as diff_format
from .compare import diff_paths

#: Exit code when ``--fail-on`` finds what it was told to fail on.
EXIT_CHANGED = 1


@click.command("diff")
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DEF",
    help="Also compare this definition and what it refers to (repeatable).",
)
@click.option("--all", "take_all", is_flag=True, help="Compare every definition.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(diff_format.FORMATS),
    help="Output format (default: text).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "any"]),
    help="Exit 1 when a breaking change (or any change) is found.",
)
@click.option("--docs", is_flag=True, help="Also report changed descriptions (cosmetic).")
@click.option(
    "--changelog",
    is_flag=True,
    help="Print a Keep-a-Changelog section instead of a report.",
)
@handles_bad_input
def diff_command(
    old: Path,
    new: Path,
    roots: tuple[str, ...],
    take_all: bool,
    fmt: str | None,
    fail_on: str | None,
    docs: bool,
    changelog: bool,
) -> None:
    """Compare two schema revisions semantically and classify every change.

    Changes are compared on the IR, so reordering, re-indenting or rewording
    is not a change (descriptions count only with --docs). Each change is
    breaking, additive or cosmetic for code using the generated bindings.
    By default the session/update notification and what it refers to are
    compared; a schema without x-method falls back to every definition.

    \b
    Examples:
      acp-codegen diff old/schema.json new/schema.json
      acp-codegen diff old.json new.json --all --format markdown
      acp-codegen diff old.json new.json --fail-on breaking
      acp-codegen diff old.json new.json --changelog >> CHANGELOG.md
    """
    console = Console.current()
    if changelog and fmt is not None:
        raise UsageError("--changelog prints Markdown; it cannot be combined with --format")
    report = diff_paths(old, new, roots, take_all, docs)
    if changelog:
        console.output(diff_format.changelog(report))
    else:
        console.output(diff_format.render(report, fmt or "text"))
    failing = {"breaking": report.count("breaking"), "any": len(report.changes)}
    if fail_on is not None and failing[fail_on]:
        console.notice(
            f"{failing[fail_on]} {'breaking ' if fail_on == 'breaking' else ''}"
            f"change(s) found (--fail-on {fail_on})"
        )
        sys.exit(EXIT_CHANGED)
