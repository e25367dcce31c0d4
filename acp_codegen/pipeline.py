"""The whole pipeline as one call: schema path -> formatted files.

load -> build -> lower (the lowering of the target `Job.target` names, from the
registry in `targets`) -> render -> format. `emit` is left to the caller, which either
writes the files or diffs them against disk.
"""

from __future__ import annotations

import keyword
import os
from dataclasses import dataclass, replace
from pathlib import Path

from . import (
    accept,
    lock,
    naming,
    provenance,
    render,
    semantics,
    versions,
)
from .errors import UsageError, printable
from .format import FORMATTERS, LINE_LENGTH, format_sources, require
from .target import MODULES, STATE_MODULES
from .targets import TARGETS

__all__ = ["FORMATTERS", "LINE_LENGTH", "TARGETS", "Job", "generate"]


@dataclass(frozen=True)
class Job:
    """One generation job: which schema, where to, and what to include."""

    schema: Path
    out: Path
    package: str
    roots: tuple[str, ...] = ()
    take_all: bool = False
    target: str = "msgspec"
    formatter: str = "ruff"
    line_length: int = LINE_LENGTH
    #: Overlay files adding x-acp-* annotations to a schema we did not write.
    overlays: tuple[Path, ...] = ()
    #: Without `overlays`, annotate an unannotated schema with the built-in overlay
    #: its shape selects (``overlay.choose_builtin``).
    builtin_overlay: bool = True
    #: Keep the schema's own openness for every union and enum (``closed = true``) ...
    closed_all: bool = False
    #: ... or only for these unions and enums (``closed = ["Name", ...]``).
    closed: tuple[str, ...] = ()
    #: Keep undeclared properties of objects and write them back on encode.
    keep_unknown_fields: bool = True
    #: A folder of templates that replace the built-in ones of the same file name.
    templates: Path | None = None
    #: Validation keywords no target enforces that generate anyway, with a warning.
    allow_unenforced: tuple[str, ...] = ()
    #: What to tell the user to run again (in `check`'s messages); defaults to
    #: `flag_command`. File headers always record `flag_command`, so a job given by flags
    #: and the same job in a config file write the same bytes.
    command: str = ""
    #: The folder that the paths in file headers are written relative to: the config
    #: file's, for a configured job; None for a job given by flags (see `header_root`).
    root: Path | None = None
    #: One schema per protocol version, ``(version, path)`` in ascending order: the job then
    #: writes one package holding ``v<N>/`` per version beside one shared runtime, and
    #: `schema` is the newest version's (see `versions`).
    versions: tuple[tuple[int, Path], ...] = ()
    #: Set on the job of one version of a several-version job: the job it belongs to, whose
    #: command the headers record and whose package holds the runtime.
    within: Job | None = None

    def header_root(self) -> Path:
        """Where header paths start: the job's `root`, else the project `out` lies in (the
        nearest folder above it holding a pyproject.toml), else the working directory, the
        one place the recorded command can be run from without a project to anchor it."""
        if self.root is not None:
            return Path(os.path.realpath(self.root))
        real = Path(os.path.realpath(self.out))
        found = (f for f in real.parents if (f / "pyproject.toml").is_file())
        return next(found, Path(os.path.realpath(Path.cwd())))

    def regenerate_command(self) -> str:
        """The command to suggest in messages: the config's own, or `flag_command`."""
        return self.command or self.flag_command()

    def flag_command(self, root: Path | None = None) -> str:
        """The `generate` call, flags only, that makes this job's files: paths as given,
        or relative to `root` (`shown`), as file headers record them."""
        if self.within is not None:
            return self.within.flag_command(root)
        schemas = [f"{n}={shown(p, root)}" for n, p in self.versions]
        parts = [
            "acp-codegen generate",
            *(f"--schema {s}" for s in schemas or [shown(self.schema, root)]),
            f"--out {shown(self.out, root)}",
            f"--package {self.package}",
        ]
        parts += [f"--root {r}" for r in self.roots]
        parts += [f"--overlay {shown(o, root)}" for o in self.overlays]
        if not self.builtin_overlay:
            parts.append("--no-builtin-overlay")
        if self.closed_all:
            parts.append("--closed")
        parts += [f"--closed-type {name}" for name in self.closed]
        if not self.keep_unknown_fields:
            parts.append("--drop-unknown-fields")
        if self.templates is not None:
            parts.append(f"--templates {shown(self.templates, root)}")
        parts += [f"--allow-unenforced {k}" for k in self.allow_unenforced]
        if self.take_all:
            parts.append("--all")
        if self.target != "msgspec":
            parts.append(f"--target {self.target}")
        if self.formatter != "ruff":
            parts.append(f"--formatter {self.formatter}")
        if self.line_length != LINE_LENGTH:
            parts.append(f"--line-length {self.line_length}")
        return " ".join(parts)

    def annotations(self) -> accept.Annotations:
        return accept.Annotations(
            self.overlays, self.builtin_overlay, self.closed_all, self.closed, self.allow_unenforced
        )

    def options(self) -> dict[str, object]:
        """The keys that shape the output (besides the schema), for the provenance hash."""
        options: dict[str, object] = {
            "package": self.package,
            "roots": list(self.roots),
            "all": self.take_all,
            "target": self.target,
            "formatter": self.formatter,
            "line_length": self.line_length,
            "builtin_overlay": self.builtin_overlay,
            "closed": True if self.closed_all else list(self.closed),
            "keep_unknown_fields": self.keep_unknown_fields,
        }
        if self.templates is not None:
            # Which templates were replaced, by content: the folder's path is not an input.
            options["templates"] = render.override_digests(self.target, self.templates)
        if self.allow_unenforced:
            options["allow_unenforced"] = sorted(self.allow_unenforced)
        if self.within is not None:
            options["runtime"] = self.within.package  # where the shared runtime lives
        return options


def shown(path: Path, root: Path | None) -> str:
    """`path` for a header: relative to `root` when it lies inside it, else absolute (with
    `root` None, as given). Folders are resolved, so no spelling of a path changes it."""
    if root is None:
        return path.as_posix()
    real = Path(os.path.realpath(path.parent)) / path.name
    try:
        return real.relative_to(root).as_posix()
    except ValueError:
        return real.as_posix()


def package_name_problem(package: str) -> str | None:
    """Why `package` cannot be imported as written, or None when it can.

    Every part must be an identifier that is not a keyword (``class``) and that NFKC
    folding leaves unchanged (Python imports ``ｐkg`` as ``pkg``).
    """
    if not package or not all(part.isidentifier() for part in package.split(".")):
        return "is not a dotted Python package name"
    for part in package.split("."):
        if keyword.iskeyword(part):
            return f"cannot be imported: {part!r} is a Python keyword"
        if naming.folded(part) != part:
            return (
                f"cannot be imported as written: Python reads {part!r} as {naming.folded(part)!r}"
            )
    return None


def check_package_name(package: str) -> None:
    problem = package_name_problem(package)
    if problem is not None:
        raise UsageError(f"--package {package!r} {problem}")


#: What `accept` made of a schema, by what it was asked: shared by the jobs of one run.
Acceptances = dict[tuple[object, ...], accept.Accepted]


def generate(
    job: Job, notes: list[str] | None = None, seen: Acceptances | None = None
) -> dict[str, str]:
    """Run every stage but emit; returns relative path -> file text.

    One line per thing the user should know about the result (a package without
    a `SessionState`, and why) is appended to `notes`. Jobs of one run that read the
    same schema the same way (say, one per target) pass one `seen`: the schema is then
    read, checked and built once, and every such job is generated from that reading.
    """
    check_package_name(job.package)
    if job.versions:
        return _generate_versions(job, notes, seen)
    target = TARGETS.get(job.target)
    if target is None:
        raise UsageError(f"unknown target {job.target!r} (available: {', '.join(TARGETS)})")
    target.check_installed()
    if job.templates is not None:
        render.check_override(target.name, job.templates)
    require(job.formatter)
    key = (job.schema.resolve(), job.roots, job.take_all, job.annotations())
    accepted = seen.get(key) if seen is not None else None
    if accepted is None:
        accepted = accept.accept(job.schema, job.roots, job.take_all, job.annotations())
        if seen is not None:
            seen[key] = accepted
    module = accepted.module
    view = target.lower(module, job.keep_unknown_fields)
    options = job.options()
    root = job.header_root()
    record = render.Provenance(
        shown(job.schema, root),
        job.flag_command(root),
        provenance.input_sha256(accepted.document, options),
        tuple(options.items()),
        module.unenforced,
        tuple((lock.verified(job.schema) or {}).items()),
    )
    spec = accepted.spec
    if notes is not None:
        notes.extend(
            printable(
                f"warning: {job.schema}#{pointer}: {keyword} is not enforced by the generated "
                "code (--allow-unenforced)"
            )
            for keyword, pointer in module.unenforced
        )
    if spec is None and notes is not None:
        notes.append(f"{job.schema.name}: no SessionState generated: {accepted.why}")
    context = {
        "view": view,
        "package": naming.package_view(view, _state_models(spec)),
        "api": naming.API,
        "provenance": record,
        "title": module.title or "ACP bindings",
        "library_imports": view.library_imports,
        "spec": spec,
        "sides": module.sides,
        "rt": "." if job.within is None else "..",  # the runtime: this package or its parent
    }
    modules = MODULES + (STATE_MODULES if spec is not None else ())
    files = render.render(modules, context, target.name, job.templates)
    if job.within is None:
        header = render.header(record, target.name, job.templates)
        for name, source in target.runtime_files(spec is not None).items():
            files[name] = header + source.read_text(encoding="utf-8")
        files["py.typed"] = ""
    return format_sources(files, job.formatter, job.line_length)


def _generate_versions(
    job: Job, notes: list[str] | None, seen: Acceptances | None
) -> dict[str, str]:
    """A job of several versions: one job per version, assembled into one package."""
    parts: dict[int, dict[str, str]] = {}
    for version, schema in job.versions:
        folder = versions.folder(version)
        part = replace(
            job, schema=schema, versions=(), package=f"{job.package}.{folder}", within=job
        )
        found: list[str] = []
        parts[version] = generate(part, found, seen)
        if notes is not None:
            notes.extend(f"{folder}: {note}" for note in found)
    root = job.header_root()
    schemas = ", ".join(f"{versions.folder(n)}: {shown(p, root)}" for n, p in job.versions)
    record = render.Provenance(schemas, job.flag_command(root))
    target = TARGETS[job.target]
    return versions.assemble(job.package, target, parts, record, job.formatter, job.line_length)


def _state_models(spec: semantics.ReducerSpec | None) -> set[str] | None:
    """The model classes ``state.py`` names, or None when there is no reducer."""
    if spec is None:
        return None
    names = {e.cls for e in spec.entities} | {s.cls for s in spec.snapshots} | set(spec.live)
    if spec.unknown:
        names.add(spec.unknown)
    return names
