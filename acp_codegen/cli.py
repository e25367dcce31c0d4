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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import __version__, config, download, emit, ondisk, sources, upgrade
from .config import NamedJob, Overrides
from .conform import conformance_command
from .console import EXIT_STALE, Console, handles_bad_input, output_options
from .diff.cli import diff_command
from .errors import UsageError, printable
from .format import LINE_LENGTH, LINE_LENGTHS
from .inspect import inspect_command
from .keywords import ALLOWABLE
from .pipeline import FORMATTERS, TARGETS, Acceptances, generate

__all__ = ["job_options", "main"]


def _options(verb: str) -> list[Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """The job flags; `verb` says what happens to ``--out`` ("write" or "compare with")."""
    return [
        click.option(
            "--job",
            "job_names",
            multiple=True,
            metavar="NAME",
            help="Run only this configured job (repeatable). [default: every job]",
        ),
        click.option(
            "--config",
            "config_path",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Read jobs from this TOML file. [default: the nearest pyproject.toml]",
        ),
        click.option("--schema", type=click.Path(path_type=Path), help="JSON Schema file to read."),
        click.option(
            "--out",
            type=click.Path(path_type=Path),
            help=f"Package directory to {verb}. [default: the job's out key, else "
            "generated/<last part of --package>]",
        ),
        click.option(
            "--package",
            help="Dotted name the package is imported as. [default: the job's package key, "
            "else the last part of --out]",
        ),
        click.option(
            "--root",
            "roots",
            multiple=True,
            metavar="DEF",
            help="Also generate this definition (repeatable).",
        ),
        click.option("--all", "take_all", is_flag=True, help="Generate every definition."),
        click.option(
            "--overlay",
            "overlays",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Apply this x-acp-* annotation overlay to the schema (repeatable); "
            "replaces the built-in overlay.",
        ),
        click.option(
            "--no-builtin-overlay",
            is_flag=True,
            help="Do not annotate a published schema with the built-in v1/v2 overlay "
            "(the package then has no SessionState).",
        ),
        click.option(
            "--templates",
            type=click.Path(path_type=Path),
            metavar="DIR",
            help="Use the templates in DIR in place of the built-in ones of the same file "
            "name (models.py.j2, header.j2, ...).",
        ),
        click.option(
            "--target",
            type=click.Choice(tuple(TARGETS)),
            help="Model library of the package. [default: msgspec]",
        ),
        click.option(
            "--closed",
            "closed_all",
            is_flag=True,
            help="Keep the schema's own openness: unions and enums it closes reject unknown "
            "values. [default: every union and enum is open]",
        ),
        click.option(
            "--closed-type",
            "closed",
            multiple=True,
            metavar="NAME",
            help="Keep the schema's own openness for this union or enum only (repeatable).",
        ),
        click.option(
            "--drop-unknown-fields",
            is_flag=True,
            help="Drop undeclared object properties on decode instead of keeping them.",
        ),
        click.option(
            "--allow-unenforced",
            "allow_unenforced",
            multiple=True,
            type=click.Choice(ALLOWABLE),
            metavar="KEYWORD",
            help="Generate although the schema uses this validation keyword, which no target "
            "enforces (repeatable; each use is warned about and recorded in _provenance.py). "
            f"One of: {', '.join(ALLOWABLE)}.",
        ),
        click.option(
            "--formatter",
            type=click.Choice(FORMATTERS),
            help="Format with the pinned ruff, with the pinned black (installed beside "
            "acp-codegen: the error names the command), or not at all. [default: ruff]",
        ),
        click.option(
            "--line-length",
            type=click.IntRange(LINE_LENGTHS.start, LINE_LENGTHS.stop - 1),
            help=f"Line length the formatter keeps to. [default: {LINE_LENGTH}]",
        ),
    ]


def job_options(verb: str = "write") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(_options(verb)):
            func = option(func)
        return func

    return decorate


def _jobs(kwargs: dict[str, Any]) -> list[NamedJob]:
    flags = Overrides(
        schema=kwargs["schema"],
        out=kwargs["out"],
        package=kwargs["package"],
        roots=kwargs["roots"],
        take_all=kwargs["take_all"],
        target=kwargs["target"],
        formatter=kwargs["formatter"],
        overlays=kwargs["overlays"],
        line_length=kwargs["line_length"],
        no_builtin_overlay=kwargs["no_builtin_overlay"],
        templates=kwargs["templates"],
        closed_all=kwargs["closed_all"],
        closed=kwargs["closed"],
        drop_unknown_fields=kwargs["drop_unknown_fields"],
        allow_unenforced=kwargs["allow_unenforced"],
    )
    loaded = config.load(kwargs["config_path"])
    return config.select(loaded, kwargs["job_names"], flags)


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
    results = _generate_all(_jobs(kwargs), console)
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
    _check(_generate_all(_jobs(kwargs), console), console)


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


_EXIT_UPGRADE = """\b
Exit codes: 0 every schema is current (with --write: upgraded); 1 one is behind;
3 one is behind with breaking changes (a dry run; --check says 1); 2 bad input or a
bad source (one line on stderr, nothing written)."""
_SOURCES = """\b
Sources (the job's source key, or --source):
  npm:@agentclientprotocol/sdk#schema/v2/schema.json   a file in an npm package
  pypi:PROJECT#PATH                                    a file in a PyPI release
  git:../agent-client-protocol#schema/v2/schema.json   a file at HEAD of a checkout
  https://example.com/schema.json                      a URL
  ../agent-client-protocol/schema/v2/schema.json       a local file
Without one, the TypeScript SDK's file for the schema's protocol line is used.
"""


@main.command("upgrade", epilog=_SOURCES + "\n" + _EXIT_UPGRADE)
@click.argument("names", nargs=-1, metavar="[JOB]...")
@job_options("write")
@click.option(
    "--source",
    metavar="SOURCE",
    help="Where the schema is published (see below). [default: the job's source key, else "
    "the TypeScript SDK's npm package]",
)
@click.option(
    "--check",
    "check_only",
    is_flag=True,
    help="Only say, in one line each, whether a newer revision exists (for CI and pre-commit).",
)
@click.option(
    "--write",
    is_flag=True,
    help="Take the revision: write the schema file and its lock, regenerate the packages "
    "and add a changelog entry. [default: a dry run that writes nothing]",
)
@click.option(
    "--changelog-file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="With --write, add the entry to FILE. [default: the job's changelog key, else none]",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "markdown")),
    default="text",
    help="How the diff from the schema file is shown. [default: text]",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, 3600),
    default=download.TIMEOUT,
    metavar="SECONDS",
    help=f"Time each download may take. [default: {download.TIMEOUT:g}]",
)
@output_options(quiet="Print only errors and one line for each schema that is behind.")
@handles_bad_input
def upgrade_command(
    names: tuple[str, ...],
    source: str | None,
    check_only: bool,
    write: bool,
    changelog_file: Path | None,
    fmt: str,
    timeout: float,
    **kwargs: Any,
) -> None:
    """Fetch the newest published revision of each job's schema and show what it changes.

    A dry run by default: it writes nothing, shows the diff from the schema file the job
    reads (breaking changes first) and says by its exit code whether the file is behind.
    --write takes the revision. Only this command goes to the network.

    \b
    Examples:
      acp-codegen upgrade --check          # exit 1 when a newer revision exists
      acp-codegen upgrade                  # what the newest revision changes
      acp-codegen upgrade --write --changelog-file CHANGELOG.md
      acp-codegen upgrade v2 --source npm:@agentclientprotocol/sdk#schema/v2/schema.json
    """
    if check_only and write:
        raise UsageError("--check and --write cannot be combined")
    kwargs["job_names"] = (*kwargs["job_names"], *names)
    jobs = _jobs(kwargs)
    override = sources.parse(source, "--source", Path(".")) if source is not None else None
    if override is not None and len(jobs) > 1:
        raise UsageError(
            f"--source would apply to {len(jobs)} jobs ({', '.join(j.name for j in jobs)}); "
            "pick one by its name"
        )
    code = upgrade.run(
        jobs,
        override,
        Console.current(),
        check_only=check_only,
        write=write,
        changelog_file=changelog_file,
        fmt=fmt,
        timeout=timeout,
    )
    if code:
        sys.exit(code)


main.add_command(inspect_command)
main.add_command(diff_command)
main.add_command(conformance_command)

if __name__ == "__main__":  # pragma: no cover
    main()
