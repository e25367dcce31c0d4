"""One validation point: whether a schema is accepted, whatever the command or target.

`accept` loads a schema, annotates it (the named overlays, else the schema's own
``x-acp-*`` keys, else the built-in overlay its shape selects), builds the IR
(opening unions and enums as the job asks, `opening`),
reads the annotations into a `semantics.ReducerSpec` (the only place they are
read) and makes the refusals every target shares (`lowering.check`). ``generate``,
``check``, ``inspect`` and ``diff`` all go through it, so a schema one command
refuses is refused by all.

Nor does acceptance depend on the target: what one registered target's library cannot
build is refused here for all of them (`limits.check_model_chains` with the smallest
chain limit any target declares, `limits.check_wire_names` with every target's wire-name
restriction), and the line names the target whose library sets the limit. A lowering
refuses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import build, ir, limits, load, lowering, opening, overlay, semantics
from .errors import SchemaError
from .targets import TARGETS


@dataclass(frozen=True)
class Annotations:
    """Where a schema's ``x-acp-*`` annotations come from."""

    #: Overlay files; when given they replace the built-in overlay.
    overlays: tuple[Path, ...] = ()
    #: Without `overlays`, annotate an unannotated schema with the built-in overlay
    #: its shape selects (``overlay.choose_builtin``).
    builtin_overlay: bool = True
    #: Keep the schema's own openness for every union and enum ...
    closed_all: bool = False
    #: ... or only for these unions and enums; all others are opened (`opening`).
    closed: tuple[str, ...] = ()
    #: Validation keywords no target enforces that may pass anyway (`keywords.ALLOWABLE`).
    allow_unenforced: tuple[str, ...] = ()


@dataclass(frozen=True)
class Accepted:
    module: ir.Module
    #: The session-state reducer the annotations describe; None when there is none.
    spec: semantics.ReducerSpec | None
    #: Why the package has no reducer (meaningful when `spec` is None).
    why: str
    #: The annotated document the module was built from (what the provenance hash covers).
    document: object


def annotate(loaded: load.LoadedSchema, how: Annotations) -> tuple[load.LoadedSchema, str, bool]:
    """The schema with its annotations, why a package from it might lack a reducer,
    and whether the annotations came from a built-in overlay.

    A built-in overlay that selects a schema but cannot annotate it leaves the schema
    plain, and the returned reason names the revision and the failing entry.
    """
    if how.overlays:
        for path in how.overlays:
            loaded = overlay.apply_overlay(loaded, path)
        return loaded, "the --overlay files annotate no session/update variant", False
    if overlay.is_annotated(loaded.document):
        return loaded, "the schema's own x-acp-* annotations mark no session/update variant", False
    if not how.builtin_overlay:
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


def load_annotated(path: Path, how: Annotations) -> load.LoadedSchema:
    """A schema file with its annotations applied (for commands that compare schemas)."""
    return annotate(load.load_path(path), how)[0]


def check(module: ir.Module) -> semantics.ReducerSpec | None:
    """The checks after build, shared by every command and every target: the reducer the
    annotations describe, then the refusals every target shares, then what the most
    limited registered library cannot build."""
    spec = semantics.reducer_spec(module)
    lowering.check(module)
    limits.check_model_chains(module, limits.strictest_chain(TARGETS.values()))
    limits.check_wire_names(module, TARGETS.values())
    return spec


def accept(
    schema: Path,
    roots: tuple[str, ...] = (),
    take_all: bool = False,
    how: Annotations = Annotations(),
) -> Accepted:
    """Load, annotate, build and check a schema; any refusal is a `SchemaError`."""
    plain = load.load_path(schema)
    loaded, why, builtin = annotate(plain, how)
    module = _build_open(loaded, roots, take_all, how)
    document: object = loaded.document
    try:
        spec = check(module)
    except SchemaError as exc:
        if not builtin:
            raise
        # A built-in overlay never stops a schema from generating.
        module = _build_open(plain, roots, take_all, how)
        spec, why, document = check(module), f"{why}: {exc}", plain.document
    if module.update_union is None:
        why = "the generated definitions hold no session/update union"
    return Accepted(module, spec, why, document)


def _build_open(
    loaded: load.LoadedSchema, roots: tuple[str, ...], take_all: bool, how: Annotations
) -> ir.Module:
    module = build.build(loaded, roots, take_all, frozenset(how.allow_unenforced))
    return opening.open_module(module, how.closed_all, how.closed)
