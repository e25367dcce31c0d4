"""What the slow-path walker and each target share (copied in as ``_walk_api.py``).

- `Repair` and `MISSING_VALUE`, what the walker reports to a caller;
- `Field` and `Leaves`, how a target describes its types: a target subclasses `Leaves`
  to say how to recognise its models and unions, convert a value strictly and build a
  model (see ``_walk.py`` for the walker itself);
- the plan kinds the walker sorts types into, its per-call state, and the helpers that
  read list and scalar types through `Leaves`.
"""

from __future__ import annotations

import types
import typing
from typing import Any, NamedTuple

from ._base import TaggedUnion

#: What `Leaves.try_strict` returns when a value does not fit the type strictly.
MISS: Any = object()


class Repair(NamedTuple):
    """One change leniency made while decoding a message.

    `path` is the JSON path of the value (``$.update.entries[2]``), `action` is
    ``"defaulted"`` (the value was replaced by the field's fallback, `replacement`)
    or ``"skipped"`` (an array item was dropped), and `original` is the value as it
    arrived (`MISSING_VALUE` when the field was absent).
    """

    path: str
    action: str
    original: Any
    replacement: Any = None


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING_VALUE"


#: `Repair.original` of a required field that was absent.
MISSING_VALUE: Any = _Missing()


class Field(NamedTuple):
    """One declared property of a model, as the walker needs it."""

    attr: str
    wire: str
    type: Any
    required: bool
    #: x-deserialize-default-on-error
    lenient: bool
    #: the value a lenient field falls back to (the target's UNSET: leave it out)
    on_error: Any
    #: x-deserialize-skip-invalid-items
    skip_invalid: bool


# Plan kinds: how the walker treats a type, decided once per type.
_LEAF, _MODEL, _TAGGED, _UNION, _LIST, _MAP, _CHECKED = range(7)
#: Plan kinds whose JSON value must be an object.
_OBJECTS = (_MODEL, _TAGGED, _MAP)


class Leaves:
    """What a target supplies to the walker. Every method gets a type of that target."""

    #: The target's marker for an omitted optional field.
    unset: Any = None

    def try_strict(self, obj: Any, tp: Any) -> Any:
        """`obj` converted strictly to `tp`, or `MISS`. Must not record or repair anything."""
        raise NotImplementedError

    def strict_safe(self, tp: Any) -> bool:
        """Whether `try_strict` on `tp` is cheap and never re-enters the walker."""
        return True

    def leaf(self, obj: Any, tp: Any, path: str) -> Any:
        """`obj` converted strictly to a scalar type; a `DecodeError` naming `path` if not."""
        raise NotImplementedError

    def fields(self, tp: Any) -> tuple[Field, ...] | None:
        """The declared fields of a model class, or None when `tp` is not a model."""
        raise NotImplementedError

    def model_tag(self, cls: Any) -> tuple[str, str] | None:
        """(tag property, tag value) a tagged model carries, if any."""
        return None

    def keeps_extra(self, cls: Any) -> bool:
        """Whether instances of `cls` keep undeclared properties."""
        return False

    def build(self, cls: Any, values: dict[str, Any], extra: dict[str, Any] | None) -> Any:
        """An instance of `cls` from attribute values and undeclared properties."""
        raise NotImplementedError

    def tagged(self, tp: Any) -> TaggedUnion | None:
        """The descriptor of a tagged union type, or None."""
        raise NotImplementedError

    def members(self, tp: Any) -> tuple[Any, ...] | None:
        """The members of an untagged union type, or None (by default: a ``typing`` union)."""
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return typing.get_args(tp)
        return None

    def container(self, tp: Any) -> tuple[str, Any] | None:
        """``("list", item)`` or ``("map", value)`` for container types, else None (by
        default: ``list[...]`` and ``dict[str, ...]``)."""
        origin = typing.get_origin(tp)
        if origin is list:
            args = typing.get_args(tp)
            return ("list", args[0] if args else Any)
        if origin is dict:
            args = typing.get_args(tp)
            return ("map", args[1] if args else Any)
        return None

    def checked(self, tp: Any) -> tuple[Any, Any] | None:
        """(inner type, checker) for an annotated container, union or model type, else None.

        The checker (None when there is nothing to check) is called as
        ``checker(value, path)`` on the walked value and raises `DecodeError` when a
        constraint (``minItems``...) fails. An annotated scalar is a leaf: None."""
        return None


class Planner:
    """How the walker sorts a target's types: a plan per type (its kind and what the walk
    needs of it) and the JSON kinds a type takes, each worked out once and cached."""

    def __init__(self, leaves: Leaves) -> None:
        self.leaves = leaves
        self._plans: dict[int, tuple[Any, tuple[Any, ...]]] = {}
        self._kind_sets: dict[int, tuple[Any, frozenset[type[Any]]]] = {}

    def _plan(self, tp: Any) -> tuple[Any, ...]:
        found = self._plans.get(id(tp))
        if found is not None and found[0] is tp:
            return found[1]
        plan = self._make_plan(tp)
        self._plans[id(tp)] = (tp, plan)  # holding `tp` keeps its id unique
        return plan

    def _make_plan(self, tp: Any) -> tuple[Any, ...]:
        leaves = self.leaves
        safe = leaves.strict_safe(tp)
        spec = leaves.tagged(tp)
        if spec is not None:
            return (_TAGGED, safe, spec)
        checked = leaves.checked(tp)
        if checked is not None:
            return (_CHECKED, safe, checked[0], checked[1])
        members = leaves.members(tp)
        if members is not None:
            unset = (leaves.unset, type(leaves.unset))
            return (_UNION, safe, tuple(m for m in members if m not in unset))
        container = leaves.container(tp)
        if container is not None:
            return (_LIST if container[0] == "list" else _MAP, safe, container[1])
        fields = leaves.fields(tp)
        if fields is not None:
            declared = frozenset(f.wire for f in fields)
            tag = leaves.model_tag(tp)
            if tag is not None:
                declared |= {tag[0]}
            by_wire = {f.wire: f for f in fields}
            return (_MODEL, safe, fields, declared, tag, leaves.keeps_extra(tp), by_wire)
        return (_LEAF, safe)

    def _kinds(self, tp: Any) -> frozenset[type[Any]]:
        """The Python types of the decoded JSON values `tp` can take (all of them where
        that is not known), from its plan; cached per type."""
        found = self._kind_sets.get(id(tp))
        if found is not None and found[0] is tp:
            return found[1]
        self._kind_sets[id(tp)] = (tp, _JSON_KINDS)  # (a recursive type admits anything)
        plan = self._plan(tp)
        kind = plan[0]
        kinds: frozenset[type[Any]] = _JSON_KINDS
        if kind in _OBJECTS:
            kinds = frozenset({dict})
        elif kind == _LIST:
            kinds = frozenset({list})
        elif kind == _CHECKED:
            kinds = self._kinds(plan[2])
        elif kind == _UNION:
            kinds = frozenset().union(*(self._kinds(m) for m in plan[2]))
        elif kind == _LEAF:
            kinds = _leaf_kinds(tp)
        self._kind_sets[id(tp)] = (tp, kinds)
        return kinds


class _Call:
    """State of one `Walker.convert` call: the memo, the repairs and the strictness."""

    __slots__ = ("guide", "hint", "memo", "path", "repairs", "strict")

    def __init__(
        self, repairs: list[Repair] | None, strict: bool, path: str, hint: Any = None
    ) -> None:
        self.memo: dict[tuple[int, int], tuple[Any, list[Any]]] = {}
        self.repairs = repairs
        self.strict = strict
        #: where the value at `path` already failed strict conversion (target's form), if known
        self.path = path
        self.hint = hint
        #: False once the guided shortcut gave up: the fault it met is still below
        self.guide = True


#: Marker entries in a trail: an undeclared property was kept (not a repair).
_KEPT = "kept"
#: What `Walker._field` returns for a property its leniency drops.
_DROPPED: Any = object()


_ITEMS: dict[int, tuple[Any, Any]] = {}

#: The Python types decoded JSON values have.
_JSON_KINDS: frozenset[type[Any]] = frozenset({dict, list, str, int, float, bool, type(None)})


def _leaf_kinds(tp: Any) -> frozenset[type[Any]]:
    """The decoded JSON kinds a scalar type takes; all of them for any type not known here
    (a library's own types, hooks), so nothing is ever refused on this account."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    if tp is type(None) or tp is None:
        return frozenset({type(None)})
    if typing.get_origin(tp) is typing.Literal:
        return frozenset(type(v) for v in typing.get_args(tp))
    if not isinstance(tp, type):
        return _JSON_KINDS
    if issubclass(tp, bool):
        return frozenset({bool})
    if issubclass(tp, str):
        return frozenset({str})
    if tp is float:
        return frozenset({int, float})
    if issubclass(tp, int):
        return frozenset({int})
    return _JSON_KINDS


def _is_array(leaves: Leaves, tp: Any) -> bool:
    return _item_type(leaves, tp, None) is not None


def _item_type(leaves: Leaves, tp: Any, default: Any = Any) -> Any:
    """The item type of a (constrained, nullable) list type (cached per type)."""
    cached = _ITEMS.get(id(tp))
    if cached is None or cached[0] is not tp:
        cached = _ITEMS[id(tp)] = (tp, _find_item_type(leaves, tp))
    return default if cached[1] is _NO_ITEM else cached[1]


_NO_ITEM: Any = object()


def _find_item_type(leaves: Leaves, tp: Any) -> Any:
    default = _NO_ITEM
    for _ in range(8):
        container = leaves.container(tp)
        if container is not None:
            return container[1] if container[0] == "list" else default
        checked = leaves.checked(tp)
        if checked is not None:
            tp = checked[0]
            continue
        members = leaves.members(tp)
        if members is None:
            return default
        lists = [m for m in members if _item_type(leaves, m, None) is not None]
        if not lists:
            return default
        tp = lists[0]
    return default
