"""The whole pipeline as one call: schema path -> formatted files.

load -> build -> lower (``lower_msgspec`` or ``lower_pydantic``, chosen by
`Job.target`) -> render -> format. `emit` is left to the caller, which either
writes the files or diffs them against disk.
"""

from __future__ import annotations

import importlib
import keyword
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import (
    build,
    ir,
    limits,
    load,
    lower_msgspec,
    lower_pydantic,
    naming,
    opening,
    overlay,
    provenance,
    render,
    semantics,
)
from .errors import SchemaError, UsageError
from .format import FORMATTERS, LINE_LENGTH, format_sources, require

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
    #: A library the generator itself imports for this target, and the extra that installs it.
    requires: tuple[str, str] | None = None

    def check_installed(self, name: str) -> None:
        """Refuse, in one line, a target whose library is not installed."""
        if self.requires is None:
            return
        library, extra = self.requires
        try:
            importlib.import_module(library)
        except ImportError:
            raise UsageError(
                f"--target {name} needs {library}, which is not installed; "
                f"run: pip install 'acp-codegen[{extra}]'"
            ) from None


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
        requires=("pydantic", "pydantic"),
    ),
}
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
        if not self.builtin_overlay:
            parts.append("--no-builtin-overlay")
        if self.take_all:
            parts.append("--all")
        if self.target != "msgspec":
            parts.append(f"--target {self.target}")
        if self.formatter != "ruff":
            parts.append(f"--formatter {self.formatter}")
        if self.line_length != LINE_LENGTH:
            parts.append(f"--line-length {self.line_length}")
        if self.closed_all:
            parts.append("--closed")
        parts += [f"--closed-type {name}" for name in self.closed]
        if not self.keep_unknown_fields:
            parts.append("--drop-unknown-fields")
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
            "builtin_overlay": self.builtin_overlay,
            "closed": True if self.closed_all else list(self.closed),
            "keep_unknown_fields": self.keep_unknown_fields,
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


def annotate(job: Job, loaded: load.LoadedSchema) -> tuple[load.LoadedSchema, str, bool]:
    """The schema with the job's annotations, why a package from it might lack a reducer,
    and whether the annotations came from a built-in overlay.

    Overlays named by the job win; a schema that annotates itself is kept as is;
    otherwise the built-in overlay the schema's shape selects is applied. A built-in
    overlay that selects a schema but cannot annotate it leaves the schema plain, and
    the returned reason names the revision and the failing entry.
    """
    if job.overlays:
        for path in job.overlays:
            loaded = overlay.apply_overlay(loaded, path)
        return loaded, "the --overlay files annotate no session/update variant", False
    if overlay.is_annotated(loaded.document):
        return loaded, "the schema's own x-acp-* annotations mark no session/update variant", False
    if not job.builtin_overlay:
        why = "the schema has no x-acp-* annotations and --no-builtin-overlay is set"
        return loaded, why, False
    chosen = overlay.choose_builtin(loaded)
    if chosen is None:
        families = " nor ".join(b.family for b in overlay.builtins())
        why = (
            "the schema has no x-acp-* annotations and its shape fits neither built-in "
            f"overlay ({families}); pass --overlay FILE to add them"
        )
        return loaded, why, False
    failed = f"the built-in {chosen.family} overlay cannot annotate this revision"
    try:
        return overlay.apply_overlay(loaded, chosen.path), failed, True
    except SchemaError as exc:
        return loaded, f"{failed}: {exc}", False


def build_module(job: Job) -> tuple[ir.Module, str, object]:
    """Load, annotate and build.

    Also returns why the package might get no reducer, and the annotated document the
    module was built from (what the provenance hash covers).
    """
    plain = load.load_path(job.schema)
    loaded, why, builtin = annotate(job, plain)
    module = _build_open(job, loaded)
    if builtin:  # a built-in overlay never stops a schema from generating
        try:
            semantics.reducer_spec(module)
        except SchemaError as exc:
            return _build_open(job, plain), f"{why}: {exc}", plain.document
    if module.update_union is None:
        why = "the generated definitions hold no session/update union"
    return module, why, loaded.document


def _build_open(job: Job, loaded: load.LoadedSchema) -> ir.Module:
    module = build.build(loaded, job.roots, job.take_all)
    return opening.open_module(module, job.closed_all, job.closed)


def generate(job: Job, notes: list[str] | None = None) -> dict[str, str]:
    """Run every stage but emit; returns relative path -> file text.

    One line per thing the user should know about the result (a package without
    a `SessionState`, and why) is appended to `notes`.
    """
    check_package_name(job.package)
    target = TARGETS.get(job.target)
    if target is None:
        raise UsageError(f"unknown target {job.target!r} (available: {', '.join(TARGETS)})")
    target.check_installed(job.target)
    require(job.formatter)
    module, why, document = build_module(job)
    limits.check_model_chains(module, job.target)
    view = target.lower(module, job.keep_unknown_fields)
    options = job.options()
    record = render.Provenance(
        job.schema.name,
        job.regenerate_command(),
        provenance.input_sha256(document, options),
        tuple(options.items()),
    )
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
    if spec is None and notes is not None:
        notes.append(f"{job.schema.name}: no SessionState generated: {why}")
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
    templates = {**target.templates, "_provenance.py": "_provenance.py.j2"}
    if spec is not None:
        templates["state.py"] = "state.py.j2"
    files = render.render(templates, context)
    header = render.header(record)
    for name, source in target.runtime.items():
        files[name] = header + render.runtime_source(source)
    if spec is not None:
        for name in ("_state.py", "_handlers.py"):
            files[name] = header + render.runtime_source(name)
    files["py.typed"] = ""
    return format_sources(files, job.formatter, job.line_length)


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
