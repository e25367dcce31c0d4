"""Error-guided repair: the walker's shortcut for a message with one or two faults
(copied in as ``_guided.py``).

Walking a whole message in Python costs tens of microseconds; most messages that
fail strict decoding have one fault: an undeclared property, a ``_meta`` of the
wrong type, one bad array item. `GuidedWalker` asks the target for the strict
error's JSON path, follows it down the type plans, fixes exactly that spot (keeps
the undeclared property aside, applies the innermost leniency that covers the
spot) and converts strictly again. The input is never mutated: each fix copies
the containers on the path. When the path leads somewhere the shortcut does not
handle (an untagged union, an unknown tag, no leniency covering the spot) or the
faults keep coming, it gives up and the walker walks the original value, so the
result and the reported repairs are the same either way.

A target opts in by implementing `strict_error` on its `Leaves` and `attach`.
"""

from __future__ import annotations

from typing import Any

from ._routes import _ROUTES_KEPT, Routes, _index_map, _nodes, _Route
from ._walk_api import (
    _KEPT,
    _LIST,
    _MODEL,
    MISS,
    MISSING_VALUE,
    Repair,
    _Call,
    _item_type,
)

__all__ = ["GuidedWalker"]

#: Strict attempts per value before the shortcut gives up and the walk runs.
MAX_STEPS = 4


class GuidedWalker(Routes):
    """A `Walker` that first tries to repair a value where strict errors point."""

    def __init__(self, leaves: Any) -> None:
        super().__init__(leaves)
        self._routes: dict[tuple[int, str, int], _Route] = {}

    def guides(self, obj: Any, plan: tuple[Any, ...], depth: int) -> bool:
        # Near the top only: each attempt converts the whole value, so trying it at
        # every level of a deep walk would cost more than the walk.
        return depth <= 2 and (plan[0] == _MODEL or (plan[0] == _LIST and type(obj) is list))

    def shortcut(
        self, obj: Any, tp: Any, path: str, hint: Any, repairs: list[Repair] | None
    ) -> Any:
        # A fault met before, on a route planned then: fix it and convert, in one go.
        if hint is MISS:
            return MISS
        route = self._routes.get((id(tp), path, id(hint)))
        if route is None or route.tp is not tp or route.where is not hint:
            return MISS
        return self._quick(route, obj, repairs)

    def _quick(self, route: _Route, obj: Any, repairs: list[Repair] | None) -> Any:
        """`obj` with the one fault `route` plans for fixed, or `MISS` if there are more."""
        nodes = _nodes(route, obj)
        if nodes is None:
            return MISS
        if route.action == "skip":
            return self._skip_in_place(route, obj, nodes, repairs)
        local: list[Any] = []
        extras: list[_Put] = []
        where = route.where
        work = self._act(route, obj, nodes, where[0], where[2], local, extras, None)
        if work is MISS:
            return MISS
        value, where = self.leaves.strict_error(work, route.tp)  # type: ignore[attr-defined]
        if where is not None:
            return MISS
        if extras:
            value = self._put(value, extras)
        if repairs is not None and local:
            repairs.extend(r for r in local if type(r) is Repair)
        return value

    def _skip_in_place(
        self, route: _Route, obj: Any, nodes: list[Any], repairs: list[Repair] | None
    ) -> Any:
        """`obj` without the one bad array item `route` plans to skip, converted strictly, or
        `MISS` (with the item put back) if something else is wrong too.

        The item is taken out of `obj` itself rather than out of a copy of every container
        above it: a caller that passes a `hint` passes a value it parsed for this call
        alone, and only the failure, which hands `obj` on to the walk, needs it whole."""
        at = route.at
        items, slot = nodes[at], route.where[0][at]
        if self._fine(items[slot], _item_type(self.leaves, route.field.type)):
            return MISS
        item = items.pop(slot)
        value, where = self.leaves.strict_error(obj, route.tp)  # type: ignore[attr-defined]
        if where is not None:
            items.insert(slot, item)
            return MISS
        if repairs is not None:
            repairs.append(Repair(route.paths[at + 1], "skipped", item, None))
        return value

    def guided(self, obj: Any, tp: Any, path: str, call: _Call, trail: list[Any]) -> Any:
        work, local = obj, list[Any]()
        # what to put in place once the value converts: (segments, attributes to follow
        # there, undeclared properties to keep, or None and the unknown union member that
        # replaces a placeholder)
        extras: list[_Put] = []
        index_maps: dict[int, tuple[list[Any], list[int]]] = {}
        hint = call.hint if path == call.path else None
        call.hint = None
        strict_error = self.leaves.strict_error  # type: ignore[attr-defined]
        for _ in range(MAX_STEPS):
            if hint is not None:  # the caller's strict pass already failed here
                where, hint = hint, None
            else:
                value, where = strict_error(work, tp)
                if where is None:
                    break
            if where is MISS:
                return MISS
            work = self._fix(work, tp, where, path, local, extras, index_maps)
            if work is MISS:
                return MISS
        else:
            return MISS
        if extras:
            value = self._put(value, extras)
        if local:
            trail.extend(local)
        return value

    def _put(self, value: Any, extras: list[_Put]) -> Any:
        """`value` with the undeclared properties and unknown members of `extras` in place."""
        if len(extras) > 1:  # deepest first: a copy made above holds what was set below
            extras = sorted(extras, key=lambda e: -len(e[0]))
        attach = self.leaves.attach  # type: ignore[attr-defined]
        for _, attrs, extra, unknown in extras:
            parent: Any = None
            slot: Any = None
            holder = value
            for slot in attrs:
                parent = holder
                holder = holder[slot] if type(holder) in (list, dict) else getattr(holder, slot)
            kept = unknown if extra is None else attach(holder, extra)
            if kept is not holder:
                if parent is None:
                    value = kept
                elif type(parent) in (list, dict):
                    parent[slot] = kept
                else:
                    setattr(parent, slot, kept)
        return value

    def _fix(
        self,
        work: Any,
        tp: Any,
        where: tuple[list[Any], str, str | None],
        path: str,
        local: list[Any],
        extras: list[_Put],
        index_maps: dict[int, tuple[list[Any], list[int]]],
    ) -> Any:
        """`work` with the fault at `where` fixed, or `MISS`.

        How to fix it depends on the types along the path and on the data only through
        the JSON kind of each value there and the tags read: that `_Route` is planned
        once per (type, fault) and reused while those still match."""
        key = (id(tp), path, id(where))
        route = self._routes.get(key) if not index_maps else None
        if route is None or route.tp is not tp or route.where is not where:
            route = self._route(work, tp, where, path, index_maps)
            if route is MISS:
                return MISS
            if not index_maps:  # paths of list items are the original indices
                if len(self._routes) >= _ROUTES_KEPT:
                    self._routes.clear()
                self._routes[key] = route
        nodes = _nodes(route, work)
        if nodes is None:
            return MISS
        return self._act(route, work, nodes, where[0], where[2], local, extras, index_maps)

    def _act(
        self,
        route: _Route,
        work: Any,
        nodes: list[Any],
        segments: list[Any],
        prop: str | None,
        local: list[Any],
        extras: list[_Put],
        index_maps: dict[int, tuple[list[Any], list[int]]] | None,
    ) -> Any:
        """Apply the fix `route` plans to `work`, whose values along the path are `nodes`.
        `index_maps` is None when this is the only fault (no skipped items to track)."""
        action, at = route.action, route.at
        cur = nodes[at]
        if action == "kept":
            if prop is None or prop not in cur:
                return MISS
            local.append(_KEPT)
            kept = dict(cur)
            extra = {prop: kept.pop(prop)}
            # Converted here straight into a struct that keeps the property, with a
            # placeholder for the whole conversion, unless something else is wrong inside.
            leaves: Any = self.leaves
            inside = segments[:at]
            if extras and any(e[0][:at] == inside for e in extras):  # kept or placed below
                direct = MISS
            else:
                direct = leaves.kept_as(kept, route.field, extra)
            placeholder = MISS if direct is MISS else leaves.placeholder(route.field)
            if placeholder is not MISS:
                extras.append((inside, route.attrs[:at], None, direct))
                return self._replace(work, nodes, segments, at, placeholder, index_maps)
            extras.append((inside, route.attrs[:at], extra, None))
            return self._replace(work, nodes, segments, at, kept, index_maps)
        if action == "missing":
            local.append(Repair(f"{route.paths[at]}.{prop}", "defaulted", MISSING_VALUE, []))
            return self._replace(work, nodes, segments, at, {**cur, prop: []}, index_maps)
        if action == "unknown":
            spec = route.field
            jpath = route.paths[at]
            below = (jpath + ".", jpath + "[")
            inside = segments[:at]
            if any(e[0][:at] == inside for e in extras) or any(
                type(r) is Repair and (r.path == jpath or r.path.startswith(below)) for r in local
            ):
                return MISS  # something inside was already changed; the raw payload must be whole
            extras.append((inside, route.attrs[:at], None, spec.unknown(cur[spec.tag_field], cur)))
            placeholder = self.leaves.placeholder(spec)  # type: ignore[attr-defined]
            return self._replace(work, nodes, segments, at, placeholder, index_maps)
        container, slot, field = cur, segments[at], route.field
        if action == "skip":
            if extras:
                return MISS  # (an undeclared property kept below would move with the index)
            if self._fine(container[slot], _item_type(self.leaves, field.type)):
                return MISS
            kept_items = container[:slot] + container[slot + 1 :]
            if index_maps is None:  # one fault: indices are the original ones
                item_path = route.paths[at + 1]
            else:
                original_map = _index_map(index_maps, container)
                item_path = f"{route.paths[at]}[{original_map[slot]}]"
                index_maps[id(kept_items)] = (
                    kept_items,
                    original_map[:slot] + original_map[slot + 1 :],
                )
            local.append(Repair(item_path, "skipped", container[slot], None))
            return self._replace(work, nodes, segments, at, kept_items, index_maps)
        original = container[slot]
        if self._fine(original, field.type):
            return MISS
        fallback = field.on_error
        if fallback is self.leaves.unset and field.required:
            fallback = []
        local.append(Repair(route.paths[at + 1], "defaulted", original, fallback))
        replaced = segments[: at + 1]  # undeclared properties kept below go too
        extras[:] = [e for e in extras if e[0][: at + 1] != replaced]
        if fallback is self.leaves.unset:
            fixed = dict(container)
            del fixed[slot]
        else:
            fixed = {**container, slot: fallback}
        return self._replace(work, nodes, segments, at, fixed, index_maps)

    def _fine(self, value: Any, tp: Any) -> bool:
        """Whether `value`, which a strict error names, converts strictly after all: of two
        equal keys in one object the error names the earlier, and the parsed value
        holds the later. The walk reads such a value; the shortcut gives up."""
        return self.leaves.try_strict(value, tp) is not MISS

    def _replace(
        self,
        work: Any,
        nodes: list[Any],
        segments: list[Any],
        depth: int,
        value: Any,
        index_maps: dict[int, tuple[list[Any], list[int]]] | None,
    ) -> Any:
        """`work` with `nodes[depth]` replaced by `value`, copying each container above it."""
        for i in range(depth - 1, -1, -1):
            container = nodes[i]
            if type(container) is list:
                copied: Any = list(container)
                if index_maps is not None:
                    index_maps[id(copied)] = (copied, _index_map(index_maps, container))
            else:
                copied = dict(container)
            copied[segments[i]] = value
            value = copied
        return value


#: One thing `GuidedWalker._put` puts in place (see `GuidedWalker.guided`).
_Put = tuple[list[Any], tuple[Any, ...], dict[str, Any] | None, Any]
