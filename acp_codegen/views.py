"""The template view: what a target's lowering hands to `render`.

Plain frozen records, one per kind of generated statement, holding finished
strings (annotations, defaults, table rows). Targets build them from the IR;
templates only loop over them and substitute.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldView:
    attr: str
    annotation: str
    default: str | None
    doc: str


@dataclass(frozen=True)
class StructView:
    name: str
    doc: str
    #: What goes between the class's parentheses: its bases and class keywords.
    options: str
    fields: tuple[FieldView, ...]
    #: Lines of code in the class body after the fields (a method the library needs).
    members: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnumView:
    name: str
    doc: str
    base: str
    open: bool
    members: tuple[tuple[str, str, str], ...]  # (constant, python literal, doc)
    #: ``(least, greatest)`` of the values an open integer enum keeps beyond its members, as
    #: Python text ("" when unbounded).
    bounds: str = ""


@dataclass(frozen=True)
class UnknownView:
    name: str
    union: str
    tag_field: str


@dataclass(frozen=True)
class AliasView:
    name: str
    doc: str
    static: str
    runtime: str | None  # None when the runtime expression equals the static one


@dataclass(frozen=True)
class HandlerView:
    method: str
    tag: str
    annotation: str


@dataclass(frozen=True)
class TableView:
    name: str
    union: str
    rows: tuple[tuple[str, str], ...]  # (tag literal, class expression)
    #: Every class the rows name, for the module's imports.
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class MethodView:
    method: str
    side: str
    params: str
    result: str


@dataclass(frozen=True)
class View:
    enums: tuple[EnumView, ...]
    structs: tuple[StructView, ...]
    unknowns: tuple[UnknownView, ...]
    aliases: tuple[AliasView, ...]
    model_names: tuple[str, ...]
    tables: tuple[TableView, ...]
    handler: str | None
    handler_union: str | None
    handlers: tuple[HandlerView, ...]
    dispatch_rows: tuple[tuple[str, str], ...]  # (class name, method name)
    methods: tuple[MethodView, ...]
    notification: str | None
    update_union: str | None
    #: Attribute of the notification params that holds the update union.
    update_field: str | None = None
    #: Third-party modules the models import besides the target's own (pydantic target).
    library_imports: tuple[str, ...] = ()
    #: Whether open enums list their constants as ``typing.ClassVar`` annotations (pydantic
    #: target) rather than as enum members (msgspec target).
    enum_class_vars: bool = False
    #: Whether objects keep the properties their schema does not declare (the default).
    keeps_unknown: bool = True

    def mentions(self, prefix: str) -> bool:
        """Whether the models module spells `prefix` (``typing.``, ``_rt.``) anywhere, so
        it imports only what it uses (a schema of plain objects needs neither)."""
        texts = [e.base for e in self.enums]
        texts += ["typing.ClassVar" for e in self.enums if e.open and self.enum_class_vars]
        texts += [s.options for s in self.structs]
        for s in self.structs:
            texts += [f.annotation for f in s.fields] + [f.default or "" for f in s.fields]
            texts += s.members  # (a method such as msgspec's wide-integer check)
        texts += ["_rt.UnknownVariant typing.ClassVar" for _ in self.unknowns]
        texts += [f"typing.TypeAlias {a.static} {a.runtime or ''}" for a in self.aliases]
        return any(prefix in text for text in texts)


@dataclass(frozen=True)
class PackageView:
    """The generated package's public names and imports, by module (see `naming.package_view`).

    Tuples ending in ``_imports`` or ``_models`` and `models` are in import order; the
    others are in ``__all__`` order."""

    #: Names ``__init__`` re-exports from ``_runtime``.
    runtime: tuple[str, ...]
    #: Every model class, tables' classes and unknown members included.
    models: tuple[str, ...]
    #: ``codec.__all__``; what ``__init__`` imports from it; the models ``codec`` imports.
    codec: tuple[str, ...]
    codec_imports: tuple[str, ...]
    codec_models: tuple[str, ...]
    #: ``dispatch.__all__``, the same in import order, and the models ``dispatch`` imports.
    dispatch: tuple[str, ...]
    dispatch_imports: tuple[str, ...]
    dispatch_models: tuple[str, ...]
    #: ``state.__all__`` (empty without a reducer) and the models ``state`` imports.
    state: tuple[str, ...]
    state_models: tuple[str, ...]
    #: The package's ``__all__``.
    all: tuple[str, ...]
