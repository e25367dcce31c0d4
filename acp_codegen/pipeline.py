"""The whole pipeline as one call: schema path -> formatted files.

load -> build -> lower (``lower_msgspec`` or ``lower_pydantic``, chosen by
`Job.target`) -> render -> format. `emit` is left to the caller, which either
writes the files or diffs them against disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import (
    build,
    ir,
    load,
    lower_msgspec,
    lower_pydantic,
    naming,
    opening,
    overlay,
    render,
    semantics,
)
from .errors import UsageError
from .format import format_sources

TEMPLATES = {
    "__init__.py": "__init__.py.j2",
    "models.py": "models.py.j2",
    "dispatch.py": "dispatch.py.j2",
    "codec.py": "codec.py.j2",
}
PUBLIC_RUNTIME = ("UNSET", "DecodeError", "UnsetType")


@dataclass(frozen=True)
class Target:
    """What differs between model libraries: the lowering, templates and runtime files."""

    lower: Callable[[ir.Module, bool], lower_msgspec.View]
    templates: dict[str, str]
    #: package file name -> hand-written source under ``acp_codegen/runtime/``
    runtime: dict[str, str]


TARGETS = {
    "msgspec": Target(
        lower_msgspec.lower,
        TEMPLATES,
        {
            name: name
            for name in (
                "_base.py",
                "_walk.py",
                "_guided.py",
                "_unions.py",
                "_convert.py",
                "_runtime.py",
            )
        },
    ),
    "pydantic": Target(
        lower_pydantic.lower,
        {
            **TEMPLATES,
            "models.py": "pydantic/models.py.j2",
            "codec.py": "pydantic/codec.py.j2",
        },
        {"_base.py": "_base.py", "_walk.py": "_walk.py", "_runtime.py": "_runtime_pydantic.py"},
    ),
}
#: ``ruff`` runs the pinned formatter; ``none`` keeps the rendered text as is.
FORMATTERS = ("ruff", "none")


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
    #: Overlay files adding x-acp-* annotations to a schema we did not write.
    overlays: tuple[Path, ...] = ()
    #: Keep the schema's own openness for every union and enum (``closed = true``) ...
    closed_all: bool = False
    #: ... or only for these unions and enums (``closed = ["Name", ...]``).
    closed: tuple[str, ...] = ()
    #: Keep undeclared properties of objects and write them back on encode.
    keep_unknown_fields: bool = True
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
        if self.closed_all:
            parts.append("--closed")
        parts += [f"--closed-type {name}" for name in self.closed]
        if not self.keep_unknown_fields:
            parts.append("--drop-unknown-fields")
        return " ".join(parts)


def check_package_name(package: str) -> None:
    if not package or not all(part.isidentifier() for part in package.split(".")):
        raise UsageError(f"--package {package!r} is not a dotted Python package name")


def build_module(job: Job) -> ir.Module:
    loaded = load.load_path(job.schema)
    for path in job.overlays:
        loaded = overlay.apply_overlay(loaded, path)
    module = build.build(loaded, job.roots, job.take_all)
    return opening.open_module(module, job.closed_all, job.closed)


def generate(job: Job) -> dict[str, str]:
    """Run every stage but emit; returns relative path -> file text."""
    check_package_name(job.package)
    target = TARGETS.get(job.target)
    if target is None:
        raise UsageError(f"unknown target {job.target!r} (available: {', '.join(TARGETS)})")
    if job.formatter not in FORMATTERS:
        raise UsageError(
            f"unknown formatter {job.formatter!r} (available: {', '.join(FORMATTERS)})"
        )
    module = build_module(job)
    view = target.lower(module, job.keep_unknown_fields)
    provenance = render.Provenance(job.schema.name, module.sha256, job.regenerate_command())
    codec_names = ["DecodeError", "Repair", "decode", "encode", "extra_fields"]
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
        "provenance": provenance,
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
    templates = dict(target.templates)
    if spec is not None:
        templates["state.py"] = "state.py.j2"
    files = render.render(templates, context)
    header = render.header(provenance)
    for name, source in target.runtime.items():
        files[name] = header + render.runtime_source(source)
    if spec is not None:
        files["_state.py"] = header + render.runtime_source("_state.py")
    files["py.typed"] = ""
    return format_sources(files) if job.formatter == "ruff" else files


def _state_imports(spec: semantics.ReducerSpec | None) -> list[str]:
    if spec is None:
        return []
    names = {e.cls for e in spec.entities} | {s.cls for s in spec.snapshots} | set(spec.live)
    if spec.unknown:
        names.add(spec.unknown)
    return sorted(names, key=naming.import_key)


def _dispatch_imports(view: lower_msgspec.View) -> set[str]:
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
