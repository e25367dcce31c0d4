"""Diff stage: compare two IR modules semantically (``acp-codegen diff``).

Takes two `ir.Module`s, OLD and NEW, and returns the `Change`s between them.
Definitions are matched by Python name; a definition that vanished while
another with an identical shape appeared is a rename, and references to it are
followed through the rename. Each matched pair is walked by
`defs.DefComparer`, which matches members by identity, so reordering
anything or moving it to another JSON pointer is not a change, and
descriptions count only when asked (``docs=True``). How serious each kind of
change is lives in `rules` alone.

`diff_paths` adds what the CLI needs: loading both files, choosing which
definitions to compare, and a `Report` that `format` renders.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from .. import accept, build, ir, load
from ..errors import SchemaError, UsageError
from .defs import (
    METHODS,
    Change,
    DefComparer,
    annotation_map,
    as_json,
    catchers,
    label,
)
from .rules import SEVERITIES, Severity
from .types import Aliases, canonical, rename_refs
from .vendored import renames_since

__all__ = ["METHODS", "Change", "Report", "Selection", "compare", "diff_paths", "labels"]


@dataclass(frozen=True)
class Selection:
    """Which definitions were compared, and why."""

    #: "update" (the session/update notification's closure), "all" or "roots".
    mode: str
    roots: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Report:
    old_path: str
    new_path: str
    old_sha256: str
    new_sha256: str
    selection: Selection
    changes: tuple[Change, ...]
    #: A short description of every definition a change names ("struct", ...).
    labels: dict[str, str]
    #: The severities `only` kept; empty when every change is shown.
    shown: tuple[Severity, ...] = ()

    def count(self, level: Severity) -> int:
        return sum(1 for c in self.changes if c.severity == level)

    def only(self, levels: tuple[Severity, ...]) -> Report:
        """The report with just the changes of `levels` (``--severity``)."""
        if not levels:
            return self
        kept = tuple(c for c in self.changes if c.severity in levels)
        ordered = tuple(level for level in SEVERITIES if level in levels)
        return replace(self, changes=kept, shown=ordered)


def compare(old: ir.Module, new: ir.Module, docs: bool = False) -> tuple[Change, ...]:
    """Every semantic change from `old` to `new`: breaking first, then additive, then
    cosmetic; within each, by type (the method table last) and member."""
    old_defs = {d.name: d for d in old.defs}
    new_defs = {d.name: d for d in new.defs}
    renames = find_renames(
        {n: old_defs[n] for n in old_defs.keys() - new_defs.keys()},
        {n: new_defs[n] for n in new_defs.keys() - old_defs.keys()},
    )
    aliases = Aliases(
        {
            renames.get(d.name, d.name): rename_refs(d.target, renames)
            for d in old.defs
            if isinstance(d, ir.Alias)
        },
        {d.name: d.target for d in new.defs if isinstance(d, ir.Alias)},
    )
    walker = DefComparer(renames, aliases, docs, catchers(new))
    renamed_to = set(renames.values())
    for name in sorted(old_defs.keys() | new_defs.keys()):
        if name in renames:
            target = renames[name]
            walker.emit("type.renamed", target, "", name, target, f"renamed from {name}")
            walker.definition(old_defs[name], new_defs[target])
        elif name in renamed_to:
            continue
        elif name not in new_defs:
            message = f"class removed: code that imports or constructs {name} breaks"
            walker.emit("type.removed", name, "", name, None, message)
        elif name not in old_defs:
            walker.emit("type.added", name, "", None, name, "type added")
        else:
            walker.definition(old_defs[name], new_defs[name])
    walker.methods(old.methods, new.methods)
    return ordered(walker.changes)


def ordered(changes: Iterable[Change]) -> tuple[Change, ...]:
    """`changes` without repeats, breaking first, then by type and member."""
    order = {level: index for index, level in enumerate(SEVERITIES)}
    return tuple(
        sorted(
            set(changes),
            key=lambda c: (
                order[c.severity],
                c.type == METHODS,
                c.type,
                c.member,
                c.kind,
                c.old or "",
                c.new or "",
                c.message,
            ),
        )
    )


def find_renames(gone: dict[str, ir.Def], came: dict[str, ir.Def]) -> dict[str, str]:
    """Pair vanished (OLD) and new (NEW) definitions whose shapes are identical.

    A pair counts only when its shape is unique on both sides. Matching repeats
    until nothing new pairs up, because a rename can make the shapes of the
    definitions that refer to it equal as well.
    """
    renames: dict[str, str] = {}
    new_shapes = _unique({name: shape(node, {}) for name, node in came.items()})
    while True:
        old_shapes = _unique(
            {name: shape(node, renames) for name, node in gone.items() if name not in renames}
        )
        taken = set(renames.values())
        found = {
            old_name: new_shapes[key]
            for key, old_name in old_shapes.items()
            if key in new_shapes and new_shapes[key] not in taken
        }
        if not found:
            return renames
        renames.update(found)


def shape(node: ir.Def, renames: dict[str, str]) -> Hashable:
    """Everything about a definition that decoding depends on, except its names."""

    def norm(expr: ir.TypeExpr) -> ir.TypeExpr:
        return canonical(rename_refs(expr, renames))

    if isinstance(node, ir.Struct):
        return (
            "struct",
            node.tag,
            frozenset(
                (
                    f.wire,
                    norm(f.type),
                    f.required,
                    f.lenient_flags,
                    f.fixed,
                    None if f.default is ir.NO_DEFAULT else as_json(f.default),
                    frozenset(annotation_map(f.annotations).items()),
                )
                for f in node.fields
            ),
        )
    if isinstance(node, ir.TaggedUnion):
        return (
            "union",
            node.tag_field,
            node.open,
            node.default_tag,
            node.default_variant is not None,
            frozenset((v.tag, v.nested) for v in node.variants),
            frozenset(annotation_map(node.annotations).items()),
        )
    if isinstance(node, ir.Enum):
        return ("enum", node.base, node.open, frozenset(v.value for v in node.values))
    if isinstance(node, ir.Alias):
        return ("alias", norm(node.target))
    return ("shape", frozenset(norm(m) for m in node.members))


def _unique(shapes: dict[str, Hashable]) -> dict[Hashable, str]:
    """Invert name -> shape, keeping only the shapes exactly one name has."""
    seen: dict[Hashable, list[str]] = {}
    for name, key in shapes.items():
        seen.setdefault(key, []).append(name)
    return {key: names[0] for key, names in seen.items() if len(names) == 1}


def labels(old: ir.Module, new: ir.Module, changes: Iterable[Change]) -> dict[str, str]:
    """A one-line description of each definition that `changes` group under."""
    wanted = {c.type for c in changes} - {METHODS}
    out: dict[str, str] = {}
    for module in (old, new):
        owners = {v.target: (u.name, v.tag) for u in module.unions for v in u.variants}
        for node in module.defs:
            if node.name in wanted:
                out[node.name] = label(node, owners)
    return dict(sorted(out.items()))


def diff_paths(
    old_path: Path,
    new_path: Path,
    roots: tuple[str, ...] = (),
    take_all: bool = False,
    docs: bool = False,
    overlays: tuple[Path, ...] = (),
    since_package: Path | None = None,
) -> Report:
    """Load, build and compare two schema files; bad input raises `SchemaError`.

    With `since_package`, a package generated before (by any acp-codegen), the variant
    classes it names otherwise than NEW's package would are reported as renames too.

    `overlays` annotate both revisions; without them each is annotated as `generate`
    annotates it (a published schema by the built-in overlay its shape selects), so an
    annotation our own schema carries and the overlay adds is no change. Each is then
    accepted as `generate` would accept it (`accept.check`)."""
    if roots and take_all:
        raise UsageError("--root and --all cannot be combined")
    how = accept.Annotations(overlays)
    old_loaded = accept.load_annotated(old_path, how)
    new_loaded = accept.load_annotated(new_path, how)
    selection = select(old_loaded, new_loaded, roots, take_all)
    old, new = (
        build.build(loaded, roots, selection.mode == "all") for loaded in (old_loaded, new_loaded)
    )
    for module in (old, new):
        accept.check(module)
    changes = compare(old, new, docs)
    if since_package is not None:
        known = {(c.type, c.old) for c in changes if c.kind == "type.renamed"}
        extra = [c for c in renames_since(since_package, new) if (c.type, c.old) not in known]
        changes = ordered((*changes, *extra))
    return Report(
        str(old_path),
        str(new_path),
        old.sha256,
        new.sha256,
        selection,
        changes,
        labels(old, new, changes),
    )


def select(
    old: load.LoadedSchema, new: load.LoadedSchema, roots: tuple[str, ...], take_all: bool
) -> Selection:
    """The same selection for both sides.

    By default that is the session/update notification and everything it refers
    to. Early schemas have no ``x-method`` to find it by; when either side lacks
    it, every definition is compared instead, and the selection says so.
    """
    if take_all:
        return Selection("all")
    if roots:
        return Selection("roots", roots)
    lacking = [side for side, loaded in (("OLD", old), ("NEW", new)) if not _has_update(loaded)]
    if not lacking:
        return Selection("update")
    verb = "has" if len(lacking) == 1 else "have"
    return Selection(
        "all",
        note=f"{' and '.join(lacking)} {verb} no x-method {build.UPDATE_METHOD!r} "
        "definition, so every definition was compared (as with --all)",
    )


def _has_update(loaded: load.LoadedSchema) -> bool:
    try:
        build.select_roots(loaded, (), False)
    except SchemaError:
        return False
    return True
