"""``acp-codegen diff OLD NEW``: what changed between two schema revisions, and what breaks.

The command wraps `compare.diff_paths` and `format`. Exit codes: 0 when the
comparison ran (whatever it found), 1 when ``--fail-on`` is given and a change
of that class was found, 2 for bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from ..config import named_version, version_schema
from ..console import Console, handles_bad_input, output_options, overlay_option
from ..emit import write_file
from ..errors import SchemaError, UsageError
from ..load import read_capped
from . import format as diff_format
from .compare import diff_paths
from .rules import SEVERITIES, Severity
from .vendored import version_folder

#: Exit code when ``--fail-on`` finds what it was told to fail on.
EXIT_CHANGED = 1

_EPILOG = """\b
Exit codes: 0 compared (whatever was found); 1 --fail-on found such a change;
2 bad input (one line on stderr, no traceback)."""


@click.command("diff", epilog=_EPILOG)
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
    help="Output format; --changelog takes text or markdown (both Markdown). [default: text]",
)
@click.option(
    "--severity",
    "severities",
    multiple=True,
    type=click.Choice(SEVERITIES),
    help="Show only changes of this class (repeatable). [default: all three]",
)
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "any"]),
    help="Exit 1 when a breaking change (or any change) is found, shown or not.",
)
@click.option("--docs", is_flag=True, help="Also report changed descriptions (cosmetic).")
@overlay_option("both revisions")
@click.option(
    "--changelog",
    is_flag=True,
    help="Print a Keep-a-Changelog [Unreleased] section instead of a report.",
)
@click.option(
    "--changelog-file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Insert that section under FILE's title (before its first ## section); "
    "creates FILE if needed.",
)
@click.option(
    "--since-package",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="A package generated before: also report the variant classes it names otherwise "
    "than NEW's package does (say, after an acp-codegen upgrade). For a package of several "
    "versions, the folder of NEW's version (DIR/v2), or DIR when NEW is given as v2.",
)
@click.option(
    "--job",
    metavar="NAME",
    help="With OLD/NEW given as 1, v2...: the configured job of several versions to read.",
)
@output_options(quiet="Print only the one-line summary (nothing with --changelog-file).")
@handles_bad_input
def diff_command(
    old: Path,
    new: Path,
    roots: tuple[str, ...],
    take_all: bool,
    fmt: str | None,
    severities: tuple[Severity, ...],
    fail_on: str | None,
    docs: bool,
    overlays: tuple[Path, ...],
    changelog: bool,
    changelog_file: Path | None,
    since_package: Path | None,
    job: str | None,
) -> None:
    """Compare two schema revisions semantically and classify every change.

    Changes are compared on the IR, so reordering, re-indenting or rewording
    is not a change (descriptions count only with --docs). Each change is
    breaking, additive or cosmetic for code using the generated bindings, and
    breaking changes are listed first. Each names the Python class and attribute
    it touches, with the wire name beside it. By default the session/update
    notification and what it refers to are compared; a schema without x-method
    falls back to every definition. --quiet prints only the summary line.

    \b
    Examples:
      acp-codegen diff old/schema.json new/schema.json
      acp-codegen diff old.json new.json --all --format markdown
      acp-codegen diff old.json new.json --severity breaking --fail-on breaking
      acp-codegen diff old.json new.json --changelog-file CHANGELOG.md
      acp-codegen diff v1 v2          # the versions of the configured job
    """
    console = Console.current()
    if since_package is not None:
        since_package = version_folder(since_package, named_version(new, f"NEW {new}"))
    old = version_schema(old, "OLD", job)
    new = version_schema(new, "NEW", job)
    if (changelog or changelog_file) and fmt == "json":
        raise UsageError("--changelog writes Markdown; it cannot be combined with --format json")
    started = time.perf_counter()
    full = diff_paths(old, new, roots, take_all, docs, overlays, since_package)
    report = full.only(severities)
    console.detail(
        f"compared {old} ({full.old_sha256[:12]}) with {new} ({full.new_sha256[:12]}) "
        f"in {time.perf_counter() - started:.2f}s"
    )
    if changelog_file is not None:
        entry = diff_format.changelog(report)
        existing = read_changelog(changelog_file)
        write_file(changelog_file, diff_format.insert_changelog(existing, entry))
        console.info(f"{'updated' if existing is not None else 'created'} {changelog_file}")
    elif console.verbosity == 0:
        console.output(diff_format.summary_line(report))
    elif changelog:
        console.output(diff_format.changelog(report))
    else:
        console.output(diff_format.render(report, fmt or "text"))
    failing = {"breaking": full.count("breaking"), "any": len(full.changes)}
    if fail_on is not None and failing[fail_on]:
        console.notice(
            f"{failing[fail_on]} {'breaking ' if fail_on == 'breaking' else ''}"
            f"change(s) found (--fail-on {fail_on})"
        )
        sys.exit(EXIT_CHANGED)


def read_changelog(path: Path) -> str | None:
    """The text of the changelog the entry goes into; None when there is none yet."""
    if not os.path.lexists(path) or (path.is_symlink() and not path.exists()):
        return None  # (a dangling link is written through: its target is created)
    try:
        return read_capped(path, "changelog").decode("utf-8")
    except SchemaError as exc:
        raise UsageError(f"cannot read the changelog file {path}: {exc.message}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"cannot read the changelog file {path}: not UTF-8 text (byte {exc.start})"
        ) from None
