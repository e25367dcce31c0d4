"""The slow path of every target: one walker over decoded JSON (copied in as ``_walk.py``).

Strict decoding by the model library runs first. Only a payload it refuses comes
here, already parsed into plain JSON values, and `Walker.convert` turns it into
the generated types while applying what strict decoding cannot:

- open unions: an unknown tag becomes the union's ``Unknown*`` member;
- untagged default variants (a tagged union member chosen when the tag is absent);
- undeclared object properties, kept beside the declared fields;
- the schema's leniency flags: ``x-deserialize-default-on-error`` replaces a bad
  value by the field's fallback (an empty array for a required array), and
  ``x-deserialize-skip-invalid-items`` drops bad array items; each of these is a
  `Repair` the caller can ask for.

The walker knows nothing about any model library. A target subclasses `Leaves`
to say how to recognise its models and unions, how to convert a value strictly
(whole, or one scalar at a time) and how to build a model; msgspec and pydantic
each do so in their runtime. A target for another library (stdlib dataclasses,
say) supplies the same dozen small methods.

Cost is linear in the input: each (JSON node, type) pair is converted at most
once per call, memoised, so untagged unions that nest inside themselves never
backtrack exponentially; nesting is capped at `MAX_DEPTH`. Every failure is a
`DecodeError` with the JSON path of the offending value.
"""

from __future__ import annotations

import types
import typing
from typing import Any, NamedTuple

from ._base import MAX_DEPTH, DecodeError, TaggedUnion, json_type

__all__ = ["MISS", "Field", "Leaves", "Repair", "Walker"]

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


class Walker:
    """The slow path for one target. See the module docstring."""

    def __init__(self, leaves: Leaves) -> None:
        self.leaves = leaves
        self._plans: dict[int, tuple[Any, tuple[Any, ...]]] = {}
        self._kind_sets: dict[int, tuple[Any, frozenset[type[Any]]]] = {}

    def convert(
        self,
        obj: Any,
        tp: Any,
        path: str = "$",
        repairs: list[Repair] | None = None,
        strict: bool = False,
        tried: bool = False,
        hint: Any = None,
    ) -> Any:
        """Convert decoded JSON `obj` into `tp`.

        Each repair leniency makes is appended to `repairs` when given. With `strict`,
        a repair is an error instead (for library hooks whose caller cannot report).
        `tried` says the caller already saw strict decoding of the whole value fail;
        `hint` is where that failure was, read by `Leaves.error_at`, if the caller has it."""
        if hint is not None and not strict:
            value = self.shortcut(obj, tp, path, hint, repairs)
            if value is not MISS:
                return value
        call = _Call(repairs, strict, path, hint)
        trail: list[Any] = []
        value = self._conv(obj, tp, path, 0, call, trail, tried)
        if repairs is not None:
            repairs.extend(r for r in trail if type(r) is Repair)
        return value

    # -- hooks for a faster repair (see `_guided.GuidedWalker`) --------------------------------
    def shortcut(
        self, obj: Any, tp: Any, path: str, hint: Any, repairs: list[Repair] | None
    ) -> Any:
        """`obj` as `tp` at once, from where its strict conversion failed, or `MISS`."""
        return MISS

    def guides(self, obj: Any, plan: tuple[Any, ...], depth: int) -> bool:
        """Whether `guided` may try `obj` before the walk does."""
        return False

    def guided(self, obj: Any, tp: Any, path: str, call: _Call, trail: list[Any]) -> Any:
        """`obj` as `tp` with the repairs strict errors point at, or `MISS` to walk it."""
        return MISS

    # -- planning -------------------------------------------------------------------------------
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

    # -- conversion -----------------------------------------------------------------------------
    def _conv(
        self,
        obj: Any,
        tp: Any,
        path: str,
        depth: int,
        call: _Call,
        trail: list[Any],
        tried: bool = False,
    ) -> Any:
        """Convert one value: strictly when it fits, else by walking it."""
        plan = self._plan(tp)
        kind = plan[0]
        # The wrong JSON kind fails at once, before any strict attempt (which would raise).
        if kind == _LIST:
            if type(obj) is not list:
                raise DecodeError(f"Expected `array`, got `{json_type(obj)}`", path)
        elif kind in _OBJECTS and type(obj) is not dict:
            raise DecodeError(f"Expected `object`, got `{json_type(obj)}`", path)
        if kind != _LEAF and call.guide and not call.strict and self.guides(obj, plan, depth):
            value = self.guided(obj, tp, path, call, trail)
            if value is not MISS:
                return value
            call.guide = False
        elif plan[1] and kind != _LEAF and not tried:
            value = self.leaves.try_strict(obj, tp)
            if value is not MISS:
                return value
            tried = True
        if depth > MAX_DEPTH:
            raise DecodeError("value nests too deeply", path)
        if kind == _LEAF:
            return self.leaves.leaf(obj, tp, path)
        if kind == _MODEL:
            return self._model(obj, tp, plan, path, depth, call, trail)
        if kind == _TAGGED:
            return self._tagged(obj, plan[2], path, depth, call, trail, tried)
        if kind == _UNION:
            return self._union(obj, plan[2], path, depth, call, trail, tried)
        if kind == _LIST:
            item = plan[2]
            return [
                self._conv(v, item, f"{path}[{i}]", depth + 1, call, trail)
                for i, v in enumerate(obj)
            ]
        if kind == _MAP:
            value_type = plan[2]
            return {
                k: self._conv(v, value_type, f"{path}.{k}", depth + 1, call, trail)
                for k, v in obj.items()
            }
        # _CHECKED: walk the inner type, then check the constraints on the result.
        # Without constraints of its own, the inner type fails strictly where this one did.
        result = self._conv(obj, plan[2], path, depth, call, trail, tried and plan[3] is None)
        if plan[3] is not None:
            plan[3](result, path)
        return result

    def _model(
        self,
        obj: Any,
        cls: Any,
        plan: tuple[Any, ...],
        path: str,
        depth: int,
        call: _Call,
        trail: list[Any],
    ) -> Any:
        """Model `cls` from JSON object `obj` (`_conv` has checked it is one)."""
        _, _, fields, declared, tag, keep, _ = plan
        if tag is not None and tag[0] in obj and obj[tag[0]] != tag[1]:
            raise DecodeError(f"Invalid value {obj[tag[0]]!r}", f"{path}.{tag[0]}")
        values: dict[str, Any] = {}
        for field in fields:
            where = f"{path}.{field.wire}"
            if field.wire not in obj:
                if not field.required:
                    continue
                if field.lenient and _is_array(self.leaves, field.type):
                    # A required lenient array: a missing one reads as empty, as the
                    # official SDKs do.
                    self._repair(call, trail, where, "defaulted", MISSING_VALUE, [])
                    values[field.attr] = []
                    continue
                raise DecodeError(f"Object missing required field `{field.wire}`", path)
            value = self._field(obj[field.wire], field, where, depth, call, trail)
            if value is not _DROPPED:
                values[field.attr] = value
        extra = None
        if len(obj) > len(values) or any(k not in declared for k in obj):
            extra = {k: v for k, v in obj.items() if k not in declared} or None
            if extra is not None:
                if keep:
                    trail.append(_KEPT)
                else:
                    extra = None
        return self.leaves.build(cls, values, extra)

    def _field(
        self,
        raw: Any,
        field: Field,
        where: str,
        depth: int,
        call: _Call,
        trail: list[Any],
        tried: bool = False,
    ) -> Any:
        """The value a model holds for property `field`, present as `raw`; `_DROPPED` when
        its leniency drops it (a fallback of unset). `tried`: `raw` failed strictly."""
        if field.skip_invalid and type(raw) is list:
            return self._skip_invalid(raw, field, where, depth, call, trail)
        if field.lenient and type(raw) not in self._kinds(field.type):
            # The wrong JSON kind: converting it could only fail (and raise on the way).
            fallback = self._fallback(field)
            if fallback is not MISS:
                return self._defaulted(raw, fallback, field, where, depth, call, trail)
        try:
            return self._conv(raw, field.type, where, depth + 1, call, trail, tried)
        except DecodeError:
            if not field.lenient:
                raise
            fallback = self._fallback(field)
            if fallback is MISS:
                raise
            return self._defaulted(raw, fallback, field, where, depth, call, trail)

    def _fallback(self, field: Field) -> Any:
        """What lenient `field` falls back to on a bad value; `MISS` when it has none (a
        required field whose fallback is unset and that is not an array)."""
        fallback = field.on_error
        if fallback is self.leaves.unset and field.required:
            fallback = [] if _is_array(self.leaves, field.type) else MISS
        return fallback

    def _defaulted(
        self,
        raw: Any,
        fallback: Any,
        field: Field,
        where: str,
        depth: int,
        call: _Call,
        trail: list[Any],
    ) -> Any:
        self._repair(call, trail, where, "defaulted", raw, fallback)
        if fallback is self.leaves.unset:
            return _DROPPED
        return self._conv(fallback, field.type, where, depth + 1, call, [])

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

    def field_value(
        self, raw: Any, field: Field, path: str, depth: int, repairs: list[Repair] | None
    ) -> Any:
        """What a model holds for property `field` arriving as decoded JSON `raw` at `path`,
        exactly as converting the whole model would make it: `MISS` when leniency drops the
        property. For a target's shortcut that converted everything around it strictly and
        saw strict conversion fail inside `raw`."""
        call = _Call(repairs, False, path)
        trail: list[Any] = []
        value = self._field(raw, field, path, depth, call, trail, tried=True)
        if repairs is not None:
            repairs.extend(r for r in trail if type(r) is Repair)
        return MISS if value is _DROPPED else value

    def _skip_invalid(
        self,
        items: list[Any],
        field: Field,
        path: str,
        depth: int,
        call: _Call,
        trail: list[Any],
    ) -> Any:
        """`items` without those that do not convert, each reported."""
        item_type = _item_type(self.leaves, field.type)
        out = []
        for i, value in enumerate(items):
            where = f"{path}[{i}]"
            local: list[Any] = []
            try:
                out.append(self._conv(value, item_type, where, depth + 1, call, local))
            except DecodeError:
                self._repair(call, trail, where, "skipped", value, None)
                continue
            trail.extend(local)
        checked = self.leaves.checked(field.type)
        if checked is not None and checked[1] is not None:
            checked[1](out, path)
        return out

    def _repair(
        self, call: _Call, trail: list[Any], path: str, action: str, original: Any, new: Any
    ) -> None:
        if call.strict:
            raise DecodeError(f"value needs a lenient repair ({action})", path)
        trail.append(Repair(path, action, original, new))

    def _tagged(
        self,
        obj: Any,
        spec: TaggedUnion,
        path: str,
        depth: int,
        call: _Call,
        trail: list[Any],
        tried: bool = False,
    ) -> Any:
        """The member of tagged union `spec` that JSON object `obj` names (`_conv` has checked
        it is one)."""
        if spec.tag_field not in obj:
            if spec.default is not None:
                return self._conv(obj, spec.default, path, depth + 1, call, trail)
            raise DecodeError(f"Object missing required field `{spec.tag_field}`", path)
        tag = obj[spec.tag_field]
        if type(tag) is not str:
            raise DecodeError(f"Expected `str`, got `{json_type(tag)}`", f"{path}.{spec.tag_field}")
        target = spec.variants.get(tag)
        if target is None:
            if spec.unknown is not None:
                return spec.unknown(tag, obj)
            raise DecodeError(f"unknown {spec.name} tag {tag!r}", f"{path}.{spec.tag_field}")
        try:
            # (strict decoding of a tagged union is that of the member its tag names)
            return self._conv(obj, target, path, depth + 1, call, trail, tried)
        except DecodeError as exc:
            label = target.__name__ if isinstance(target, type) else spec.name
            raise DecodeError(f"invalid {tag!r} ({label}): {exc.message}", exc.path) from None

    def _union(
        self,
        obj: Any,
        members: tuple[Any, ...],
        path: str,
        depth: int,
        call: _Call,
        trail: list[Any],
        tried: bool = False,
    ) -> Any:
        """The first member that takes all of `obj` (no repair, no undeclared property),
        else the first that takes it at all. Memoised per (value, member)."""
        if obj is None and type(None) in members:
            return None
        candidates = [m for m in members if m is not type(None)]
        if len(candidates) == 1:  # its error is the union's; it fails strictly where it did
            return self._conv(obj, candidates[0], path, depth + 1, call, trail, tried)
        first: DecodeError | None = None
        lossy: tuple[Any, list[Any]] | None = None
        for member in candidates:
            key = (id(obj), id(member))
            found = call.memo.get(key)
            if found is None:
                local: list[Any] = []
                try:
                    found = (self._conv(obj, member, path, depth + 1, call, local), local)
                except DecodeError as exc:
                    # Kept without its traceback: that would hold this frame, and so the
                    # memo holding the error, a cycle only the garbage collector frees.
                    found = (exc.with_traceback(None), local)
                call.memo[key] = found
            value, local = found
            if isinstance(value, DecodeError):
                first = first or value
                continue
            if not local:
                trail.extend(local)
                return value
            if lossy is None:
                lossy = (value, local)
        if lossy is not None:
            trail.extend(lossy[1])
            return lossy[0]
        raise DecodeError(f"value matches none of the {len(candidates)} alternatives", path)


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
