"""The whole pipeline as one call: schema path -> formatted files.

load -> build -> lower (the lowering of the target `Job.target` names, from the
registry in `targets`) -> render -> format. `emit` is left to the caller, which either
writes the files or diffs them against disk.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from pathlib import Path

from . import (
    build,
    limits,
    load,
    naming,
    overlay,
    provenance,
    render,
    semantics,
)
from .errors import UsageError
from .format import FORMATTERS, LINE_LENGTH, format_sources, require
from .target import MODULES, STATE_MODULE
from .targets import TARGETS
from .views import View

PUBLIC_RUNTIME = ("UNSET", "DecodeError", "UnsetType")
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
    #: The command recorded in file headers; defaults to the equivalent CLI call.
    command: str = ""

    def regenerate_command(self) -> str:
        if self.command:
            return self.command
        parts = [
            "acp-codegen generate",
            f"--schema {self.schema.as_posix()}",
            f"--out {self.out.as_posix()}",
            f"--package {self.package}",
        ]
        parts += [f"--root {r}" for r in self.roots]
        parts += [f"--overlay {o.as_posix()}" for o in self.overlays]
        if self.take_all:
            parts.append("--all")
        if self.target != "msgspec":
            parts.append(f"--target {self.target}")
        if self.formatter != "ruff":
            parts.append(f"--formatter {self.formatter}")
        if self.line_length != LINE_LENGTH:
            parts.append(f"--line-length {self.line_length}")
        return " ".join(parts)

    def options(self) -> dict[str, object]:
        """The keys that shape the output (besides the schema), for the provenance hash."""
        return {
            "package": self.package,
            "roots": list(self.roots),
            "all": self.take_all,
            "target": self.target,
            "formatter": self.formatter,
            "line_length": self.line_length,
        }


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


def load_schema(job: Job) -> load.LoadedSchema:
    """The job's schema with its overlays applied."""
    loaded = load.load_path(job.schema)
    for path in job.overlays:
        loaded = overlay.apply_overlay(loaded, path)
    return loaded


def generate(job: Job) -> dict[str, str]:
    """Run every stage but emit; returns relative path -> file text."""
    check_package_name(job.package)
    target = TARGETS.get(job.target)
    if target is None:
        raise UsageError(f"unknown target {job.target!r} (available: {', '.join(TARGETS)})")
    target.check_installed()
    require(job.formatter)
    loaded = load_schema(job)
    module = build.build(loaded, job.roots, job.take_all)
    limits.check_model_chains(module, job.target)
    view = target.lower(module)
    options = job.options()
    record = render.Provenance(
        job.schema.name,
        job.regenerate_command(),
        provenance.input_sha256(loaded.document, options),
        tuple(options.items()),
    )
    codec_names = ["DecodeError", "decode", "encode"]
    if view.update_union:
        codec_names.append("decode_update")
    if view.notification:
        codec_names.append("decode_notification")
    dispatch_names = sorted(
        [t.name for t in view.tables]
        + ["METHODS"]
        + ([view.handler, "dispatch"] if view.handler else []),
        key=naming.isort_key,
    )
    spec = semantics.reducer_spec(module)
    state_names = ["Entity", "SessionState"] if spec else []
    all_names = sorted(
        set(view.model_names)
        | set(codec_names)
        | set(dispatch_names)
        | set(PUBLIC_RUNTIME)
        | set(state_names),
        key=naming.isort_key,
    )
    imports = sorted(_dispatch_imports(view), key=naming.import_key)
    codec_names.sort(key=naming.isort_key)
    context = {
        "model_imports": sorted(view.model_names, key=naming.import_key),
        "dispatch_imports": sorted(dispatch_names, key=naming.import_key),
        "codec_imports": sorted(
            (n for n in codec_names if n != "DecodeError"), key=naming.import_key
        ),
        "codec_models": sorted(
            {n for n in (view.update_union, view.notification) if n}, key=naming.import_key
        ),
        "view": view,
        "provenance": record,
        "title": module.title or "ACP bindings",
        "codec_names": codec_names,
        "dispatch_names": dispatch_names,
        "all_names": all_names,
        "imports": imports,
        "library_imports": view.library_imports,
        "spec": spec,
        "state_names": state_names,
        "state_imports": _state_imports(spec),
    }
    modules = MODULES + ((STATE_MODULE,) if spec is not None else ())
    files = render.render(modules, context, target.name)
    header = render.header(record, target.name)
    for name, source in target.runtime_files(spec is not None).items():
        files[name] = header + source.read_text(encoding="utf-8")
    files["py.typed"] = ""
    return format_sources(files, job.formatter, job.line_length)


def _state_imports(spec: semantics.ReducerSpec | None) -> list[str]:
    if spec is None:
        return []
    names = {e.cls for e in spec.entities} | {s.cls for s in spec.snapshots} | set(spec.live)
    if spec.unknown:
        names.add(spec.unknown)
    return sorted(names, key=naming.import_key)


def _dispatch_imports(view: View) -> set[str]:
    names: set[str] = set()
    for table in view.tables:
        names.update(table.classes)
    for cls, _ in view.dispatch_rows:
        names.add(cls)
    for h in view.handlers:
        names.add(h.annotation)
    for m in view.methods:
        names.update(n for n in (m.params, m.result) if n != "None")
    if view.handler_union:
        names.add(view.handler_union)
    return names
