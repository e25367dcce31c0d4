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
(in ``_walk_api.py``, with the rest the walker shares with targets) to say how to
recognise its models and unions, how to convert a value strictly (whole, or one scalar
at a time) and how to build a model; each target does so in its runtime, with the
same dozen small methods.

Cost is linear in the input: each (JSON node, type) pair is converted at most
once per call, memoised, so untagged unions that nest inside themselves never
backtrack exponentially; nesting is capped at `MAX_DEPTH`. Every failure is a
`DecodeError` with the JSON path of the offending value.
"""

from __future__ import annotations

from typing import Any

from ._base import MAX_DEPTH, DecodeError, TaggedUnion, json_type
from ._walk_api import (
    _DROPPED,
    _KEPT,
    _LEAF,
    _LIST,
    _MAP,
    _MODEL,
    _OBJECTS,
    _TAGGED,
    _UNION,
    MISS,
    MISSING_VALUE,
    Field,
    Leaves,
    Planner,
    Repair,
    _Call,
    _is_array,
    _item_type,
)

__all__ = ["MISS", "Field", "Leaves", "Repair", "Walker"]


class Walker(Planner):
    """The slow path for one target. See the module docstring."""

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
        `hint` is where that failure was, read by `Leaves.error_at`, if the caller has it;
        a caller passing it passes a value parsed for this call alone, which the shortcut
        may change (it takes a bad array item out)."""
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

    def defaulted_value(
        self, raw: Any, field: Field, path: str, depth: int, repairs: list[Repair] | None
    ) -> Any:
        """What `field_value` gives for lenient `field` when the caller knows `raw` cannot
        convert (its strict error was at a value nothing but this leniency can take): the
        fallback and its repair, without walking to the failure first. `MISS` when the
        fallback is to leave the property out; a `DecodeError` when there is none."""
        fallback = self._fallback(field)
        if not field.lenient or fallback is MISS:
            raise DecodeError("the property has no fallback", path)
        call = _Call(repairs, False, path)
        trail: list[Any] = []
        value = self._defaulted(raw, fallback, field, path, depth, call, trail)
        if repairs is not None:
            repairs.extend(r for r in trail if type(r) is Repair)
        return MISS if value is _DROPPED else value

    def item_value(
        self, raw: Any, field: Field, path: str, depth: int, repairs: list[Repair] | None
    ) -> Any:
        """What skip-invalid array `field`, read at `depth`, holds for the item arriving as
        decoded JSON `raw` at `path` (the item's own), exactly as converting the whole
        array would make it: `MISS` when the item is skipped, which is reported. For a
        target's shortcut that converted the array's other items strictly."""
        call = _Call(repairs, False, path)
        trail: list[Any] = []
        value = self._item(raw, _item_type(self.leaves, field.type), path, depth, call, trail)
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
            converted = self._item(value, item_type, f"{path}[{i}]", depth, call, trail)
            if converted is not _DROPPED:
                out.append(converted)
        checked = self.leaves.checked(field.type)
        if checked is not None and checked[1] is not None:
            checked[1](out, path)
        return out

    def _item(
        self, value: Any, item_type: Any, where: str, depth: int, call: _Call, trail: list[Any]
    ) -> Any:
        """One item of a skip-invalid array read at `depth`: its value, or `_DROPPED` when
        it does not convert, which is reported as skipped."""
        local: list[Any] = []
        try:
            converted = self._conv(value, item_type, where, depth + 1, call, local)
        except DecodeError:
            self._repair(call, trail, where, "skipped", value, None)
            return _DROPPED
        trail.extend(local)
        return converted

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
        lossy: tuple[Any, list[Any]] | None = None
        json_kind = type(obj)
        for member in candidates:
            if json_kind not in self._kinds(member):
                continue  # (the wrong JSON kind: converting could only fail, and raise)
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
