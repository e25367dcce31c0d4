"""Project configuration: ``[tool.acp-codegen]`` in pyproject.toml -> generation jobs.

Used by the CLI before the pipeline runs. A project names its jobs in one of two
ways::

    [tool.acp-codegen]                 # one job, written inline
    schema = "schema/acp.json"
    out = "src/my_app/_vendor/acp"
    package = "my_app._vendor.acp"

    [tool.acp-codegen.jobs.v1]         # or any number of named jobs
    schema = "schema/v1.json"
    out = "src/my_app/_vendor/acp_v1"

Keys of a job: ``schema`` and ``out`` (required), ``package`` (defaults to the
last part of ``out``), ``target``, ``formatter``, ``line_length``, ``roots``,
``all``, ``overlays`` (files adding ``x-acp-*`` annotations), ``builtin_overlay``
(false turns off the built-in v1/v2 overlay), ``closed`` (``true``, or a list of union
and enum names that keep the schema's own openness instead of being open),
``keep_unknown_fields`` (``false`` drops undeclared properties), ``templates`` (a
folder of templates replacing the built-in ones by file name), ``allow_unenforced``
(validation keywords no target enforces that generate anyway, with a warning), and for
``upgrade``: ``source`` (where the schema is published, see `sources`) and ``changelog``
(the file ``upgrade --write`` adds an entry to). Paths
are relative to the pyproject.toml that holds them. Command-line flags override the keys of every
selected job. Every mistake is a `UsageError` whose one line names the file,
the table and the key.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from . import sources
from .errors import SchemaError, UsageError
from .format import LINE_LENGTH, LINE_LENGTHS
from .keywords import ALLOWABLE
from .limits import CONTROL
from .load import read_capped
from .pipeline import FORMATTERS, Job, check_package_name, package_name_problem
from .sources import Source

TABLE = "tool.acp-codegen"
#: How a command names one version of the configured job of several: ``2`` or ``v2``.
_VERSION_REF = re.compile(r"v?(\d+)")
#: What ``Job`` headers record for a job that comes from the configuration unchanged.
CONFIG_COMMAND = "acp-codegen generate"
_STR_KEYS = ("schema", "out", "package", "target", "formatter", "templates")
JOB_KEYS = (
    *_STR_KEYS,
    "versions",
    "line_length",
    "roots",
    "all",
    "overlays",
    "builtin_overlay",
    "closed",
    "keep_unknown_fields",
    "allow_unenforced",
    "source",
    "changelog",
)


@dataclass(frozen=True)
class NamedJob:
    """A job with the name it is listed under (``"default"`` for an inline job), and what
    ``upgrade`` needs besides: where its schema is published and the changelog to extend."""

    name: str
    job: Job
    source: Source | None = None
    changelog: Path | None = None


@dataclass(frozen=True)
class Overrides:
    """Job keys given on the command line; ``None``/empty means "not given"."""

    schema: Path | None = None
    #: ``--schema N=PATH``: one schema per protocol version (`schema` is then the newest).
    versions: tuple[tuple[int, Path], ...] = ()
    out: Path | None = None
    package: str | None = None
    roots: tuple[str, ...] = ()
    take_all: bool = False
    target: str | None = None
    formatter: str | None = None
    overlays: tuple[Path, ...] = ()
    line_length: int | None = None
    no_builtin_overlay: bool = False
    closed_all: bool = False
    closed: tuple[str, ...] = ()
    drop_unknown_fields: bool = False
    templates: Path | None = None
    allow_unenforced: tuple[str, ...] = ()

    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class Config:
    path: Path
    jobs: tuple[NamedJob, ...]


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or one of its parents."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(path: Path | None = None, cwd: Path | None = None) -> Config | None:
    """Read the jobs from `path`, or from the nearest pyproject.toml above `cwd`.

    Returns None when no file is found, or when the nearest one has no
    ``[tool.acp-codegen]`` table and no `path` was named explicitly.
    """
    cwd = cwd or Path.cwd()
    explicit = path is not None
    path = path if path is not None else find_pyproject(cwd)
    if path is None:
        return None
    if not os.path.lexists(path):
        raise UsageError(f"config file {path} does not exist")
    try:
        document = tomllib.loads(read_capped(path, "config").decode("utf-8"))
    except SchemaError as exc:
        raise UsageError(f"{path}: {exc.message}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    table = document.get("tool", {}).get("acp-codegen")
    if table is None:
        if explicit:
            raise UsageError(f"{path}: no [{TABLE}] table")
        return None
    where = _display(path, cwd)
    if not isinstance(table, dict):
        raise UsageError(f"{where}: [{TABLE}] must be a table")
    base = _relative_base(path.parent, cwd)
    jobs = _jobs(table, where, base, path.parent)
    _check_outs(jobs, where)
    return Config(path, tuple(jobs))


def _check_outs(jobs: list[NamedJob], where: str) -> None:
    """Refuse two jobs writing to one folder, or one inside the other's: each run replaces
    its folder whole, so the second would undo the first (or delete it outright)."""
    real = [(named, Path(os.path.realpath(named.job.out))) for named in jobs]
    for index, (first, one) in enumerate(real):
        for second, two in real[index + 1 :]:
            if one == two:
                raise UsageError(
                    f"{where}: {_table(first)} and {_table(second)} have the same out folder "
                    f"({first.job.out.as_posix()}); give each job a folder of its own"
                )
            inner, outer = (first, second) if two in one.parents else (second, first)
            if one in two.parents or two in one.parents:
                raise UsageError(
                    f"{where}: the out folder of {_table(inner)} ({inner.job.out.as_posix()}) "
                    f"lies inside that of {_table(outer)} ({outer.job.out.as_posix()}); "
                    "give each job a folder of its own"
                )


def _table(named: NamedJob) -> str:
    return f"[{TABLE}.jobs.{named.name}]"


def _jobs(table: dict[str, Any], where: str, base: Path, root: Path) -> list[NamedJob]:
    """The jobs of the table; `base` is the config's folder as paths are given from the
    working directory, `root` the same folder for file headers."""
    if "jobs" not in table:
        if not table:
            raise UsageError(f"{where}: [{TABLE}] is empty; give schema and out, or jobs")
        return [_named("default", table, f"{where}: [{TABLE}]", base, root)]
    if extra := sorted(set(table) - {"jobs"}):
        raise UsageError(
            f"{where}: [{TABLE}] key {extra[0]!r} cannot sit beside 'jobs'; "
            f"move it into each [{TABLE}.jobs.<name>] table"
        )
    jobs = table["jobs"]
    if not isinstance(jobs, dict) or not jobs:
        raise UsageError(f"{where}: [{TABLE}] key 'jobs' must hold one or more named tables")
    named: list[NamedJob] = []
    for name, entry in jobs.items():
        label = f"{where}: [{TABLE}.jobs.{name}]"
        if not isinstance(entry, dict):
            raise UsageError(f"{label} must be a table of job keys")
        named.append(_named(name, entry, label, base, root))
    return named


def _named(name: str, entry: dict[str, Any], label: str, base: Path, root: Path) -> NamedJob:
    job = _job(entry, label, base, root)
    source = (
        sources.parse(entry["source"], f"{label} key 'source'", base) if "source" in entry else None
    )
    changelog = entry.get("changelog")
    if changelog is not None:
        if not isinstance(changelog, str) or not changelog:
            raise UsageError(f"{label} key 'changelog' must be a non-empty string")
        check_path(changelog, f"{label} key 'changelog'")
    return NamedJob(name, job, source, base / changelog if changelog else None)


def _job(entry: dict[str, Any], label: str, base: Path, root: Path) -> Job:
    for key in entry:
        if key not in JOB_KEYS:
            close = difflib.get_close_matches(key, JOB_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(JOB_KEYS)})"
            raise UsageError(f"{label} unknown key {key!r}{hint}")
    for key in _STR_KEYS:
        if key in entry and (not isinstance(entry[key], str) or not entry[key]):
            raise UsageError(f"{label} key {key!r} must be a non-empty string")
    versions = _versions(entry.get("versions"), label, base)
    if "schema" in entry and versions:
        raise UsageError(
            f"{label} has both 'schema' and 'versions'; a job of several protocol versions "
            "names each schema in 'versions' only"
        )
    if "source" in entry and versions:
        raise UsageError(
            f"{label} key 'source' names where one schema is published; a job with "
            "'versions' has several (upgrade each in a job of its own)"
        )
    for key in ("schema", "out"):
        if key not in entry and not (key == "schema" and versions):
            raise UsageError(f"{label} is missing the required key {key!r}")
    for key in ("schema", "out", "templates"):
        if key in entry:
            check_path(entry[key], f"{label} key {key!r}")
    roots = entry.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
        raise UsageError(f"{label} key 'roots' must be a list of definition names")
    overlays = entry.get("overlays", [])
    if not isinstance(overlays, list) or not all(isinstance(o, str) and o for o in overlays):
        raise UsageError(f"{label} key 'overlays' must be a list of file paths")
    for index, path in enumerate(overlays):
        check_path(path, f"{label} key 'overlays' entry {index}")
    take_all = entry.get("all", False)
    if not isinstance(take_all, bool):
        raise UsageError(f"{label} key 'all' must be true or false")
    builtin_overlay = entry.get("builtin_overlay", True)
    if not isinstance(builtin_overlay, bool):
        raise UsageError(f"{label} key 'builtin_overlay' must be true or false")
    closed = entry.get("closed", False)
    if not isinstance(closed, bool) and not (
        isinstance(closed, list) and all(isinstance(c, str) and c for c in closed)
    ):
        raise UsageError(f"{label} key 'closed' must be true, false or a list of type names")
    allow = entry.get("allow_unenforced", [])
    if not isinstance(allow, list) or not all(a in ALLOWABLE for a in allow):
        raise UsageError(
            f"{label} key 'allow_unenforced' must be a list of keywords ({', '.join(ALLOWABLE)})"
        )
    keep = entry.get("keep_unknown_fields", True)
    if not isinstance(keep, bool):
        raise UsageError(f"{label} key 'keep_unknown_fields' must be true or false")
    formatter = entry.get("formatter", "ruff")
    if formatter not in FORMATTERS:
        raise UsageError(
            f"{label} key 'formatter' must be one of {', '.join(FORMATTERS)}, not {formatter!r}"
        )
    line_length = entry.get("line_length", LINE_LENGTH)
    if type(line_length) is not int or line_length not in LINE_LENGTHS:
        raise UsageError(
            f"{label} key 'line_length' must be a whole number from {LINE_LENGTHS.start} "
            f"to {LINE_LENGTHS.stop - 1}, not {line_length!r}"
        )
    out = base / entry["out"]
    package = entry.get("package", out.name)
    problem = package_name_problem(package)
    if problem is not None and "package" in entry:
        raise UsageError(f"{label} key 'package' {problem}: {package!r}")
    if problem is not None:
        raise UsageError(
            f"{label} has no key 'package', and the name taken from key 'out' "
            f"({entry['out']!r} -> {package!r}) {problem}; add a package key"
        )
    return Job(
        schema=versions[-1][1] if versions else base / entry["schema"],
        versions=versions,
        out=out,
        package=package,
        roots=tuple(roots),
        take_all=take_all,
        target=entry.get("target", "msgspec"),
        formatter=formatter,
        line_length=line_length,
        overlays=tuple(base / o for o in overlays),
        builtin_overlay=builtin_overlay,
        closed_all=closed is True,
        closed=tuple(closed) if isinstance(closed, list) else (),
        keep_unknown_fields=keep,
        templates=base / entry["templates"] if "templates" in entry else None,
        command=CONFIG_COMMAND,
        root=root,
        allow_unenforced=tuple(allow),
    )


def version_number(text: str, what: str) -> int:
    """A protocol version key: a whole number from 0 to 65535, written without zeros in
    front (``ProtocolVersion`` is an unsigned 16-bit integer)."""
    if not text.isdecimal() or not text.isascii() or str(int(text)) != text or int(text) > 65535:
        raise UsageError(
            f"{what}: {text!r} is not a protocol version (a whole number from 0 to 65535)"
        )
    return int(text)


def _versions(table: Any, label: str, base: Path) -> tuple[tuple[int, Path], ...]:
    """The ``versions`` key: protocol version -> schema path, as sorted pairs."""
    if table is None:
        return ()
    if not isinstance(table, dict) or not table:
        raise UsageError(
            f"{label} key 'versions' must be a table of schemas by protocol version, "
            'say { "1" = "schema/v1.json", "2" = "schema/v2.json" }'
        )
    pairs = []
    for key, path in table.items():
        what = f"{label} key 'versions'"
        number = version_number(key, what)
        if not isinstance(path, str) or not path:
            raise UsageError(f"{what}: the schema of version {key} must be a non-empty string")
        check_path(path, f"{what} entry {key!r}")
        pairs.append((number, base / path))
    return tuple(sorted(pairs))


def parse_schemas(values: tuple[str, ...]) -> tuple[Path | None, tuple[tuple[int, Path], ...]]:
    """``--schema`` as given: one path, or ``N=PATH`` once per protocol version."""
    if not values:
        return None, ()
    numbered = [v for v in values if "=" in v and v.split("=", 1)[0].isdecimal()]
    if not numbered:
        if len(values) > 1:
            raise UsageError(
                "--schema is given more than once; for one package of several protocol "
                "versions write --schema 1=PATH --schema 2=PATH"
            )
        return Path(values[0]), ()
    if len(numbered) != len(values):
        plain = next(v for v in values if v not in numbered)
        raise UsageError(
            f"--schema {plain}: with --schema N=PATH, give every schema with its protocol version"
        )
    pairs: dict[int, Path] = {}
    for value in values:
        key, path = value.split("=", 1)
        number = version_number(key, f"--schema {value}")
        if number in pairs:
            raise UsageError(f"--schema names protocol version {number} twice")
        if not path:
            raise UsageError(f"--schema {value}: no schema path after '='")
        check_path(path, f"--schema {value}")
        pairs[number] = Path(path)
    return pairs[max(pairs)], tuple(sorted(pairs.items()))


def versions_job(name: str | None = None) -> NamedJob:
    """The configured job of several protocol versions (named `name`, or the only one)."""
    loaded = load()
    jobs = [j for j in (loaded.jobs if loaded else ()) if j.job.versions]
    if name is not None:
        jobs = [j for j in jobs if j.name == name]
    if len(jobs) > 1:
        many = ", ".join(j.name for j in jobs)
        raise UsageError(f"several jobs have versions; pick one with --job NAME ({many})")
    if not jobs:
        which = f"job {name!r} with versions" if name else "job with versions"
        where = f"in [{TABLE}] of {loaded.path}" if loaded else "(no pyproject.toml here or above)"
        raise UsageError(f"no {which} {where}")
    return jobs[0]


def named_version(ref: Path, what: str) -> int | None:
    """The protocol version that `ref` names (``2`` or ``v2``), or None when `ref` is a
    path: an existing file of that name is always the file."""
    found = _VERSION_REF.fullmatch(str(ref))
    return None if found is None or ref.exists() else version_number(found[1], what)


def version_schema(ref: Path, what: str, job: str | None = None) -> Path:
    """`ref` itself when it is a path; else the schema of the protocol version it names
    in the configured job of several versions."""
    number = named_version(ref, f"{what} {ref}")
    if number is None:
        return ref
    try:
        named = versions_job(job)
    except UsageError as exc:
        raise UsageError(f"{what} {ref}: no such file, and {exc}") from None
    schemas = dict(named.job.versions)
    if number not in schemas:
        have = ", ".join(f"v{n}" for n in schemas)
        raise UsageError(f"{what} {ref}: job {named.name!r} has {have}, not v{number}")
    return schemas[number]


def check_path(path: str, what: str) -> None:
    """Refuse a path holding a control character: a NUL cannot reach the file system at
    all, and the others only ever arrive by mistake (or to fool a terminal)."""
    found = CONTROL.search(path)
    if found is not None:
        raise UsageError(
            f"{what} holds the control character U+{ord(found.group()):04X}, "
            "which no path acp-codegen reads or writes may hold"
        )


def _check_flag_paths(flags: Overrides) -> None:
    named = [("--schema", flags.schema), ("--out", flags.out), ("--templates", flags.templates)]
    for option, path in [*named, *(("--overlay", o) for o in flags.overlays)]:
        if path is not None:
            check_path(str(path), option)


def select(config: Config | None, names: tuple[str, ...], flags: Overrides) -> list[NamedJob]:
    """The jobs to run: configured jobs (all, or those `names`) with `flags` applied.

    Without a configuration, or with ``--schema`` and no ``--job``, the flags alone
    describe one job: a schema named on the command line starts a job of its own
    rather than taking over the roots and overlays of the project's jobs.
    """
    _check_flag_paths(flags)
    if config is not None and flags.schema and not names:
        return [NamedJob("cli", job_from_flags(flags))]
    if config is None:
        if names:
            raise UsageError(f"--job needs a [{TABLE}] table in pyproject.toml; none was found")
        return [NamedJob("cli", job_from_flags(flags))]
    known = {j.name: j for j in config.jobs}
    for name in names:
        if name not in known:
            raise UsageError(
                f"--job {name!r} is not in {config.path.name} (jobs: {', '.join(known)})"
            )
    chosen = [known[n] for n in dict.fromkeys(names)] if names else list(config.jobs)
    if len(chosen) > 1 and (flags.out or flags.package):
        option = "--out" if flags.out else "--package"
        raise UsageError(
            f"{option} would apply to {len(chosen)} jobs ({', '.join(j.name for j in chosen)}); "
            "pick one with --job NAME"
        )
    return [replace(j, job=override(j.job, flags)) for j in chosen]


def override(job: Job, flags: Overrides) -> Job:
    """`job` with every key given on the command line replaced."""
    if not flags.any():
        return job
    out = flags.out or job.out
    package = flags.package or (derived_package(out) if flags.out else job.package)
    return replace(
        job,
        schema=flags.schema or job.schema,
        versions=flags.versions if flags.schema else job.versions,
        out=out,
        package=package,
        roots=flags.roots or job.roots,
        take_all=flags.take_all or job.take_all,
        target=flags.target or job.target,
        formatter=flags.formatter or job.formatter,
        line_length=flags.line_length or job.line_length,
        overlays=flags.overlays or job.overlays,
        builtin_overlay=job.builtin_overlay and not flags.no_builtin_overlay,
        closed_all=flags.closed_all or job.closed_all,
        closed=flags.closed or job.closed,
        keep_unknown_fields=job.keep_unknown_fields and not flags.drop_unknown_fields,
        templates=flags.templates or job.templates,
        allow_unenforced=flags.allow_unenforced or job.allow_unenforced,
        command="",
    )


def job_from_flags(flags: Overrides) -> Job:
    if flags.schema is None:
        found = find_pyproject(Path.cwd())
        if found is None:
            raise UsageError(
                f"no pyproject.toml found from {Path.cwd()} upward, and no --schema given "
                "(see: acp-codegen generate --help)"
            )
        raise UsageError(
            f"no --schema given and no [{TABLE}] table in {found} "
            "(see: acp-codegen generate --help)"
        )
    package = flags.package
    out = flags.out or Path("generated") / (package or "acp").rsplit(".", 1)[-1]
    package = package or derived_package(out)
    return Job(
        flags.schema,
        out,
        package,
        flags.roots,
        flags.take_all,
        versions=flags.versions,
        target=flags.target or "msgspec",
        formatter=flags.formatter or "ruff",
        line_length=flags.line_length or LINE_LENGTH,
        overlays=flags.overlays,
        builtin_overlay=not flags.no_builtin_overlay,
        closed_all=flags.closed_all,
        closed=flags.closed,
        keep_unknown_fields=not flags.drop_unknown_fields,
        templates=flags.templates,
        allow_unenforced=flags.allow_unenforced,
    )


def derived_package(out: Path) -> str:
    """The package name a job without ``--package`` takes from the last part of ``--out``."""
    try:
        check_package_name(out.name)
    except UsageError:
        raise UsageError(
            f"package name {out.name!r}, taken from --out {out.as_posix()}, is not a dotted "
            "Python name; pass --package NAME"
        ) from None
    return out.name


def _relative_base(folder: Path, cwd: Path) -> Path:
    """`folder` relative to `cwd` where it lies inside it, so messages stay short."""
    try:
        return folder.resolve().relative_to(cwd.resolve())
    except ValueError:
        return Path(os.path.relpath(folder.resolve(), cwd.resolve()))


def _display(path: Path, cwd: Path) -> str:
    return (_relative_base(path.parent, cwd) / path.name).as_posix()
