"""Build-stage state: the names and definitions one build has decided so far.

`build` owns one `Registry` per schema and passes it, with a `Nodes` callback
object, to the stateless helpers in `typeexprs` and `unions`. Those helpers
read and extend the registry but never import `build`: the recursion a schema
needs (a property holds an inline object, a union variant holds a struct)
goes through the `Nodes` protocol defined here, so the import graph stays a
tree. Facts computed before any definition is built (which bodies a variant
absorbs, which unions nest in others) and each union's member layout (worked
out once per schema pointer) live here too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from . import ir, naming
from .errors import SchemaError, join_pointer
from .limits import ANNOTATION_PREFIX
from .load import LoadedSchema, iter_refs

if TYPE_CHECKING:
    from .keywords import Unenforced


@dataclass(frozen=True)
class Layout:
    """How a tagged union's members divide up: ``(index, member, tag value)`` for each
    tagged member, the open fallback, and the untagged default ``(index, member)``.

    `null_tag` says the default member is the one whose tag is null or absent (its tag
    property is ``type: null`` and not required), not one that lacks the tag property."""

    tag: str
    tagged: tuple[tuple[int, dict[str, Any], str], ...] = ()
    fallback: dict[str, Any] | None = None
    default: tuple[int, dict[str, Any]] | None = None
    null_tag: bool = False


class Nodes(Protocol):
    """What the helpers may ask `build` to make: the only way back into it."""

    #: Where validation no target enforces is refused, or noted when the job allows it.
    unenforced: Unenforced

    def build_def(self, def_name: str) -> str: ...

    def struct(
        self,
        name: str,
        schema: dict[str, Any],
        pointer: str,
        tag: ir.Tag | None = None,
        extra: dict[str, Any] | None = None,
        doc: str | None = None,
        body: str | None = None,
        fixed: tuple[ir.Field, ...] = (),
    ) -> ir.Struct: ...

    def inline_union(
        self, schema: dict[str, Any], pointer: str, context: str, parts: tuple[str, list[Any]]
    ) -> ir.TypeExpr: ...


@dataclass
class Registry:
    """Python names claimed so far, the IR definitions built, and the facts about them."""

    loaded: LoadedSchema
    defs: dict[str, ir.Def] = field(default_factory=dict)
    #: Python name -> the schema pointer that owns it.
    owners: dict[str, str] = field(default_factory=dict)
    #: `$defs` names built inside a variant class instead of as classes of their own.
    absorbed: set[str] = field(default_factory=set)
    #: `$defs` names being built right now (a guard against unbounded nesting).
    in_progress: set[str] = field(default_factory=set)
    #: inner union def name -> [(outer tag field, outer tag value, pointer, outer def name)]
    nested_into: dict[str, list[tuple[str, str, str, str]]] = field(default_factory=dict)
    #: schema pointer -> its union layout (None: told apart by shape, not by a tag).
    layouts: dict[str, Layout | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        loaded = self.loaded
        self.source = loaded.source
        #: how many references the definitions being generated make to each one
        self.ref_counts: Counter[str] = Counter()
        self.class_names = _def_class_names(loaded)
        self.def_classes = frozenset(self.class_names.values())

    def count_refs(self, names: list[str]) -> None:
        """Count the references among the definitions `names` (those being generated)."""
        for name in names:
            pointer = join_pointer("/$defs", name)
            for where, ref in iter_refs(self.loaded.defs[name], pointer):
                self.ref_counts[self.loaded.resolve(ref, where)[0]] += 1

    def rename(self, def_name: str, name: str, pointer: str) -> None:
        """Give a definition another class name, which no other definition may hold."""
        owner = next((d for d, c in self.class_names.items() if c == name), None)
        if owner is not None:
            raise self.error(
                f"class name {name!r} is derived for both {join_pointer('/$defs', owner)} "
                f"and {join_pointer('/$defs', def_name)}",
                pointer,
            )
        self.class_names[def_name] = name
        self.def_classes = frozenset(self.class_names.values())

    def error(self, message: str, pointer: str) -> SchemaError:
        return SchemaError(message, pointer, self.source)

    def ref_name(self, ref: Any, pointer: str) -> tuple[str, Any]:
        """The `$defs` name a reference points at, and its schema."""
        return self.loaded.resolve(ref, pointer)

    def claim(self, name: str, pointer: str) -> None:
        """Reserve a Python name for a node, or fail naming both claimants."""
        owner = self.owners.get(name)
        if owner is not None and owner != pointer:
            raise self.error(f"name {name!r} is derived for both {owner} and {pointer}", pointer)
        self.owners[name] = pointer

    def add(self, node: ir.Def) -> None:
        self.claim(node.name, node.pointer)
        self.defs[node.name] = node

    def inline_name(self, context: str, pointer: str) -> str:
        """The class name of an inline object or union; never one a definition owns."""
        name = naming.class_name(context)
        if name in self.def_classes:
            raise self.error(
                f"inline schema would be named {name!r}, the class of a definition", pointer
            )
        existing = self.defs.get(name)
        if existing is not None and existing.pointer != pointer:
            raise self.error(
                f"name {name!r} is derived for both {existing.pointer} and {pointer}", pointer
            )
        return name


def _def_class_names(loaded: LoadedSchema) -> dict[str, str]:
    names: dict[str, str] = {}
    taken: dict[str, str] = {}
    for def_name in sorted(loaded.defs):
        py = naming.class_name(def_name)
        pointer = join_pointer("/$defs", def_name)
        if py in taken:
            raise SchemaError(
                f"definitions {taken[py]!r} and {pointer!r} both map to class {py!r}",
                pointer,
                loaded.source,
            )
        taken[py] = pointer
        names[def_name] = py
    return names


def annotations_of(schema: Any) -> tuple[ir.Annotation, ...]:
    """The ``x-acp-*`` annotations written on one schema node, sorted by key."""
    if not isinstance(schema, dict):
        return ()
    return tuple(
        ir.Annotation(k, v) for k, v in sorted(schema.items()) if k.startswith(ANNOTATION_PREFIX)
    )


def doc_of(schema: Any) -> str:
    doc = schema.get("description") if isinstance(schema, dict) else None
    return doc if isinstance(doc, str) else ""
