"""``acp-codegen upgrade``: from "upstream published a revision" to a regenerated package.

`upgrade_command` is the command (`cli` adds it); `flags` selects its jobs. Jobs that
read one schema file form one `Step`: `sources.fetch` gets the newest revision of that
file from the job's source (the TypeScript SDK's npm package by default), and its bytes
are compared with the file's. A revision that differs is staged in a temporary folder,
generated in memory for every job (a dialect this acp-codegen cannot read stops here,
with nothing written), and compared with the file by `diff` (``--since-package`` the
job's package).

Without ``--write`` that is all: a dry run, exit 0 when every file is current, 1 when
one is behind, 3 when one is behind with breaking changes. ``--check`` says only
whether a file is behind (0 or 1), in one line. ``--write`` writes the schema file and
its lock (`lock`), regenerates the jobs and adds a changelog entry; a failure before
the packages are swapped in puts the schema files and locks back as they were.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import click

from . import download, emit, lock, ondisk, pipeline, sources
from .config import NamedJob
from .console import Console, handles_bad_input, output_options
from .diff import format as diff_format
from .diff.cli import read_changelog
from .diff.compare import Report, diff_paths
from .errors import SchemaError, UsageError, printable
from .flags import job_options, select_jobs
from .load import load_bytes, read_capped
from .overlay import choose_builtin

EXIT_CURRENT = 0
EXIT_BEHIND = 1
EXIT_BREAKING = 3


@dataclass
class Step:
    """One schema file, the jobs that read it, and the revision its source publishes."""

    schema: Path
    jobs: list[NamedJob]
    fetched: sources.Fetched
    #: The file's bytes now (None when it does not exist yet) and its lock.
    current: bytes | None
    locked: dict[str, str] | None
    report: Report | None = None

    @cached_property
    def digest(self) -> str | None:
        """The sha256 of the file now, None when it does not exist yet."""
        return hashlib.sha256(self.current).hexdigest() if self.current is not None else None

    @property
    def behind(self) -> bool:
        return self.digest != self.fetched.sha256

    @property
    def relock(self) -> bool:
        """Current, but the lock does not (yet) record where the bytes came from."""
        return not self.behind and self.locked != self.fetched.lock()

    def now(self) -> str:
        """The file as it is, in words, for the report's "old" line."""
        if self.digest is None:
            return f"{self.schema} (not there yet)"
        was = f", locked from {_locked(self.locked)}" if self.locked else ", no lock"
        return printable(f"{self.schema} (sha256 {self.digest[:12]}{was})")


def _locked(record: dict[str, str]) -> str:
    version = record.get("version")
    return record["source"] + (f" {version}" if version else "")


def run(
    jobs: list[NamedJob],
    override: sources.Source | None,
    console: Console,
    *,
    check_only: bool = False,
    write: bool = False,
    changelog_file: Path | None = None,
    fmt: str = "text",
    timeout: float = download.TIMEOUT,
) -> int:
    """Upgrade `jobs` (or say how far behind they are); returns the exit code."""
    steps = [_fetch(schema, group, override, timeout) for schema, group in _groups(jobs)]
    if check_only:
        return _check(steps, console)
    worst = EXIT_CURRENT
    for step in steps:
        if not step.behind:
            console.info(f"{step.schema} is current: {_published(step)}", fg="green")
            continue
        _review(step)
        breaking = step.report is not None and step.report.count("breaking") > 0
        worst = max(worst, EXIT_BREAKING if breaking else EXIT_BEHIND)
        line = f"{step.schema} is behind: {_published(step)}"
        if console.verbosity == 0:  # --quiet: the one line, not the diff
            console.notice(line)
            continue
        console.info(line, fg="yellow")
        if step.report is not None:
            console.output(diff_format.render(step.report, fmt))
    if not write:
        if worst != EXIT_CURRENT:
            console.warn(
                "dry run, nothing written; take the revision with: acp-codegen upgrade --write"
            )
        return worst
    _write([s for s in steps if s.behind or s.relock], console, changelog_file)
    return EXIT_CURRENT


def _published(step: Step) -> str:
    return f"{step.fetched.origin()} (sha256 {step.fetched.sha256[:12]})"


def _groups(jobs: list[NamedJob]) -> list[tuple[Path, list[NamedJob]]]:
    """The jobs by the schema file they read, in the order they are configured."""
    groups: dict[str, tuple[Path, list[NamedJob]]] = {}
    for named in jobs:
        key = os.path.realpath(named.job.schema)
        groups.setdefault(key, (named.job.schema, []))[1].append(named)
    return list(groups.values())


def _fetch(
    schema: Path, group: list[NamedJob], override: sources.Source | None, timeout: float
) -> Step:
    current = read_capped(schema) if os.path.lexists(schema) else None
    named = {override or j.source or _default(schema, current) for j in group}
    if len(named) > 1:
        specs = ", ".join(sorted(s.spec() for s in named))
        raise UsageError(
            f"jobs {', '.join(j.name for j in group)} read {schema} but name different "
            f"sources ({specs}); give them one"
        )
    fetched = sources.fetch(named.pop(), timeout)
    return Step(schema, group, fetched, current, lock.read(schema))


def _default(schema: Path, current: bytes | None) -> sources.Source:
    """The TypeScript SDK's file for the protocol line the schema file's shape shows."""
    if current is None:
        raise UsageError(
            f"{schema} does not exist, so its protocol line is unknown: give the job a "
            "source key (or --source)"
        )
    try:
        builtin = choose_builtin(load_bytes(current, str(schema)))
    except SchemaError as exc:
        raise UsageError(f"{exc}; give the job a source key (or --source)") from None
    return sources.default_for(schema, builtin.family if builtin is not None else None)


def _check(steps: list[Step], console: Console) -> int:
    behind = [s for s in steps if s.behind]
    for step in steps:
        if step.behind:
            console.notice(
                f"{step.schema} is behind: {_published(step)} differs from it; "
                "run: acp-codegen upgrade"
            )
        else:
            console.info(f"{step.schema} is current: {_published(step)}", fg="green")
    return EXIT_BEHIND if behind else EXIT_CURRENT


def _review(step: Step) -> None:
    """Generate the staged revision for every job (refusing what cannot be read), then
    set `step.report` to the diff from the file the jobs read now."""
    with tempfile.TemporaryDirectory(prefix="acp-codegen-upgrade-") as folder:
        staged = Path(folder) / step.schema.name
        staged.write_bytes(step.fetched.data)
        seen: pipeline.Acceptances = {}
        for named in step.jobs:
            try:
                pipeline.generate(replace(named.job, schema=staged), None, seen)
            except SchemaError as exc:
                exc.source = step.fetched.origin()
                raise UsageError(
                    f"{step.fetched.origin()} cannot be read by this acp-codegen, so nothing "
                    f"was written: {exc}"
                ) from None
        if step.current is None:
            return
        job = step.jobs[0].job
        package = job.out if ondisk.tree_state(job.out) == "ours" else None
        report = diff_paths(
            step.schema, staged, job.roots, job.take_all, False, job.overlays, package
        )
        step.report = replace(report, old_path=step.now(), new_path=_published(step))


def _write(steps: list[Step], console: Console, changelog_file: Path | None) -> None:
    """Write every schema file and lock, regenerate, then add the changelog entries."""
    entries = [e for e in (_entry(s, changelog_file) for s in steps) if e is not None]
    before = [(s.schema, s.current, s.locked) for s in steps]
    try:
        for step in steps:
            if step.behind:
                emit.write_file(step.schema, step.fetched.data)
            lock.write(step.schema, step.fetched.lock())
        results = _generate([named for step in steps for named in step.jobs])
        for named, files in results:
            emit.check_writable(named.job.out, files)
    except BaseException:
        _restore(before)
        raise
    for named, files in results:
        emit.write_tree(named.job.out, files)
        console.info(f"wrote {len(files)} files to {named.job.out}", fg="green")
    for step in steps:
        verb = "upgraded" if step.behind else "locked"
        console.info(f"{verb} {step.schema} to {_published(step)}", fg="green")
    for target, existing, entry in entries:
        emit.write_file(target, diff_format.insert_changelog(existing, entry))
        console.info(f"{'updated' if existing is not None else 'created'} {target}")


def _entry(step: Step, changelog_file: Path | None) -> tuple[Path, str | None, str] | None:
    """Where the step's changelog entry goes, that file's text now, and the entry; read
    before anything is written, so an unreadable changelog stops the upgrade."""
    target = changelog_file or next((j.changelog for j in step.jobs if j.changelog), None)
    if step.report is None or target is None:
        return None
    existing = read_changelog(target)
    return target, existing, diff_format.changelog(step.report)


def _generate(jobs: list[NamedJob]) -> list[tuple[NamedJob, dict[str, str]]]:
    seen: pipeline.Acceptances = {}
    return [(named, pipeline.generate(named.job, None, seen)) for named in jobs]


def _restore(before: list[tuple[Path, bytes | None, dict[str, str] | None]]) -> None:
    for schema, current, locked in before:
        if current is not None:
            emit.write_file(schema, current)
        else:
            schema.unlink(missing_ok=True)
        if locked is not None:
            lock.write(schema, locked)
        else:
            lock.path_for(schema).unlink(missing_ok=True)


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


@click.command("upgrade", epilog=_SOURCES + "\n" + _EXIT_UPGRADE)
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
    jobs = select_jobs(kwargs)
    override = sources.parse(source, "--source", Path(".")) if source is not None else None
    if override is not None and len(jobs) > 1:
        raise UsageError(
            f"--source would apply to {len(jobs)} jobs ({', '.join(j.name for j in jobs)}); "
            "pick one by its name"
        )
    code = run(
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
