"""Command-line interface: ``acp-codegen`` (also ``python -m acp_codegen``).

``generate`` and ``check`` run the jobs of the project's ``[tool.acp-codegen]``
configuration (see `config`), with command-line flags overriding its keys; with
no configuration the flags describe a single job. Every job is generated in
memory before anything is written, so a bad job leaves all outputs untouched.

Exit codes: 0 success, 1 generated files are stale (``check``), 2 bad input.
Bad input prints one line naming what and where, never a traceback.
"""

from __future__ import annotations

import difflib
import sys
import time
from typing import Any

import click

from . import __version__, emit, ondisk
from .config import NamedJob
from .conform import conformance_command
from .console import EXIT_STALE, Console, handles_bad_input, output_options
from .diff.cli import diff_command
from .errors import UsageError, printable
from .flags import job_options, select_jobs
from .inspect import inspect_command
from .pipeline import Acceptances, generate
from .upgrade import upgrade_command

__all__ = ["job_options", "main"]


Result = tuple[NamedJob, dict[str, str], list[str]]


def _generate_all(jobs: list[NamedJob], console: Console) -> list[Result]:
    """Generate every job in memory, in order, before any of them is written.

    Each result carries the job's notes (a package without `SessionState`, and why),
    printed once the job is written or checked, so a failed run prints only its error.
    """
    results = []
    seen: Acceptances = {}
    for index, named in enumerate(jobs, 1):
        console.progress(index, len(jobs), f"{named.name}: {named.job.schema}")
        started = time.perf_counter()
        notes: list[str] = []
        try:
            files = generate(named.job, notes, seen)
        except UsageError as exc:
            if len(jobs) > 1:
                raise UsageError(f"job {named.name!r}: {exc}") from None
            raise
        console.detail(
            f"{named.name}: {named.job.schema} -> {named.job.out} "
            f"(package {named.job.package}, target {named.job.target}, "
            f"{len(files)} files, {time.perf_counter() - started:.2f}s)"
        )
        results.append((named, files, notes))
    console.done()
    return results


_CONFIG = """\b
Configuration: [tool.acp-codegen] in the nearest pyproject.toml, e.g.
  [tool.acp-codegen]
  schema = "schema/acp.json"
  out = "src/my_app/_vendor/acp"
  package = "my_app._vendor.acp"
Flags override the keys of every job they apply to.
"""
_EXIT_GENERATE = """\b
Exit codes: 0 written; 2 bad input (one line on stderr, nothing written).
With --check: 0 up to date, 1 stale."""
_EXIT_CHECK = """\b
Exit codes: 0 up to date; 1 stale or not generated yet (the diff is on stdout);
2 bad input (one line on stderr)."""
_EXIT_ALL = """\b
Exit codes: 0 success; 1 stale (check), or a change found (diff --fail-on);
2 bad input: one line on stderr, no traceback."""


class _Commands(click.Group):
    """The command group; a mistyped command gets the nearest name (``gen`` -> generate)."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            typed, names = args[0] if args else "", self.list_commands(ctx)
            near = [n for n in names if typed and n.startswith(typed)]
            near = near or difflib.get_close_matches(typed, names, n=1, cutoff=0.5)
            if len(near) != 1 or typed in names:
                raise
            raise click.UsageError(
                f"No such command {typed!r}. Did you mean {near[0]!r}?", ctx
            ) from None


@click.group(
    cls=_Commands,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=_CONFIG + "\n" + _EXIT_ALL,
)
@click.version_option(__version__, "-V", "--version", prog_name="acp-codegen")
@output_options(quiet="Print less: what each command's own --quiet keeps.")
def main() -> None:
    """Generate typed Python bindings for ACP session/update from its JSON Schema.

    \b
    Examples:
      acp-codegen generate                # run every job in pyproject.toml
      acp-codegen check                   # exit 1 with a diff if any job is stale
      acp-codegen inspect schema.json     # what the schema holds
      acp-codegen generate --schema schema.json --out src/app/acp --package app.acp
    """


@main.command("generate", epilog=_CONFIG + "\n" + _EXIT_GENERATE)
@job_options("write")
@click.option("--check", is_flag=True, help="Compare instead of writing; exit 1 when stale.")
@click.option(
    "--force",
    is_flag=True,
    help="Also delete files in the output folder that acp-codegen did not write.",
)
@output_options
@handles_bad_input
def generate_command(check: bool, force: bool, **kwargs: Any) -> None:
    """Generate packages from schemas: every configured job, or the one the flags describe.

    \b
    Examples:
      acp-codegen generate
      acp-codegen generate --job v1 --verbose
      acp-codegen generate --schema schema.json --out src/app/acp --package app.acp
      acp-codegen generate --schema schema.json --out out/acp --package acp --all
    """
    console = Console.current()
    results = _generate_all(select_jobs(kwargs), console)
    if check:
        _check(results, console)
        return
    for named, files, _notes in results:  # refuse before any job is written
        emit.check_writable(named.job.out, files, force)
    for named, files, notes in results:
        emit.write_tree(named.job.out, files, force)
        console.info(f"wrote {len(files)} files to {named.job.out}", fg="green")
        for note in notes:
            console.warn(note)


@main.command("check", epilog=_CONFIG + "\n" + _EXIT_CHECK)
@job_options("compare with")
@output_options
@handles_bad_input
def check_command(**kwargs: Any) -> None:
    """Regenerate in memory; exit 1 with a diff if any package on disk is stale.

    \b
    Examples:
      acp-codegen check
      acp-codegen check --quiet          # no diff, only the stale notice
      acp-codegen check --schema schema.json --out src/app/acp --package app.acp
    """
    console = Console.current()
    _check(_generate_all(select_jobs(kwargs), console), console)


def _check(results: list[Result], console: Console) -> None:
    stale = 0
    for named, files, _notes in results:
        job = named.job
        state = ondisk.tree_state(job.out)
        if state == "foreign":
            raise UsageError(
                f"{job.out} was not made by acp-codegen (it has files but no {ondisk.MARKER}); "
                "check compares only generated packages: point --out at one"
            )
        if state == "missing":
            stale += 1
            console.notice(f"{job.out} does not exist yet. Run: {job.regenerate_command()}")
            continue
        diff = ondisk.diff_tree(job.out, files, job.header_root())
        if not diff:
            console.info(f"{job.out} is up to date", fg="green")
            continue
        stale += 1
        console.diff(diff)
        strays = ondisk.strays(job.out, files)  # `generate` refuses these without --force
        if strays:
            shown = ", ".join(printable(f) for f in strays[:5])
            more = f" and {len(strays) - 5} more" if len(strays) > 5 else ""
            console.notice(
                f"{job.out}: these files are not ours: {shown}{more} "
                f"({job.regenerate_command()} --force replaces them)"
            )
        else:
            console.notice(f"{job.out} is out of date. Run: {job.regenerate_command()}")
    if stale:
        sys.exit(EXIT_STALE)


main.add_command(upgrade_command)
main.add_command(inspect_command)
main.add_command(diff_command)
main.add_command(conformance_command)

if __name__ == "__main__":  # pragma: no cover
    main()
