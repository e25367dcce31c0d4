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

from typing import Any, NamedTuple

from ._walk import Walker
from ._walk_api import (
    _CHECKED,
    _KEPT,
    _LEAF,
    _LIST,
    _MAP,
    _MODEL,
    _TAGGED,
    _UNION,
    MISS,
    MISSING_VALUE,
    Repair,
    _Call,
    _is_array,
)

__all__ = ["GuidedWalker"]

#: Strict attempts per value before the shortcut gives up and the walk runs.
MAX_STEPS = 4


class GuidedWalker(Walker):
    """A `Walker` that first tries to repair a value where strict errors point."""

    def __init__(self, leaves: Any) -> None:
        super().__init__(leaves)
        self._shapes: dict[tuple[int, type[Any]], tuple[Any, Any]] = {}
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

    def _route(
        self,
        work: Any,
        tp: Any,
        where: tuple[list[Any], str, str | None],
        path: str,
        index_maps: dict[int, tuple[list[Any], list[int]]],
    ) -> Any:
        """Plan the fix of the fault at `where` in `work`: a `_Route`, or `MISS`."""
        top = tp
        segments, kind, key = where
        kinds: list[type[Any]] = []
        tags: list[tuple[int, str, Any]] = []
        paths: list[str] = []
        attrs: list[Any] = []
        cover: tuple[int, str, Any] | None = None  # innermost (node index, how, field)
        cur, jpath = work, path
        plan = self._plan(tp)
        last = len(segments)
        for i in range(last + 1):
            kinds.append(type(cur))
            paths.append(jpath)
            if i == last and kind == "bad_value":
                break
            if plan[0] not in _PLAIN:
                resolved = self._resolve(cur, tp, i, tags)
                if resolved is MISS:
                    if kind == "bad_value" and i == last - 1:
                        found = _Route(
                            top, where, (*kinds,), (*tags,), (*paths,), (*attrs,), "", 0, None
                        )
                        return self._unknown_route(found, cur, tp)
                    return MISS
                tp = resolved
                plan = self._plan(tp)
            if i == last:
                break
            segment = segments[i]
            kind_here = plan[0]
            if kind_here == _MODEL:
                field = plan[6].get(segment)
                if field is None or type(cur) is not dict or segment not in cur:
                    return MISS
                if field.lenient:
                    cover = (i, "default", field)
                cur = cur[segment]
                if field.skip_invalid and type(cur) is list:
                    cover = (i + 1, "skip", field)
                jpath, tp = f"{jpath}.{segment}", field.type
                attrs.append(field.attr)
            elif kind_here == _LIST and type(cur) is list and type(segment) is int:
                if segment >= len(cur):
                    return MISS
                original = _index_map(index_maps, cur)[segment]
                jpath, cur, tp = f"{jpath}[{original}]", cur[segment], plan[2]
                attrs.append(segment)
            elif kind_here == _MAP and type(cur) is dict and segment in cur:
                jpath, cur, tp = f"{jpath}.{segment}", cur[segment], plan[2]
                attrs.append(segment)
            else:
                return MISS
            plan = self._plan(tp)
        found = _Route(top, where, (*kinds,), (*tags,), (*paths,), (*attrs,), "", 0, None)
        if kind == "unknown_field" and plan[0] == _MODEL and plan[5] and type(cur) is dict:
            return found._replace(action="kept", at=last, field=tp)
        if kind == "missing_field" and plan[0] == _MODEL:
            field = plan[6].get(key)
            if field is not None and field.lenient and _is_array(self.leaves, field.type):
                return found._replace(action="missing", at=last)
        if cover is None:
            return MISS
        at, how, field = cover
        if at >= last:
            return MISS
        if how == "default":
            if (
                field.on_error is self.leaves.unset
                and field.required
                and not _is_array(self.leaves, field.type)
            ):
                return MISS
        elif kinds[at] is not list:
            return MISS
        return found._replace(action=how, at=at, field=field)

    def _unknown_route(self, found: _Route, cur: Any, tp: Any) -> Any:
        """The route for an open union member whose tag strict conversion refused: it is
        replaced by a placeholder the target converts as is, and the union's unknown member
        takes the placeholder's place afterwards. `MISS` when that is not the fault."""
        segments = found.where[0]
        shape = self._shape(cur, tp)
        plan = self._plan(shape) if shape is not MISS else (_LEAF,)
        if plan[0] != _TAGGED or type(cur) is not dict:
            return MISS
        spec = plan[2]
        tag = cur.get(spec.tag_field)
        if spec.unknown is None or segments[-1] != spec.tag_field or type(tag) is not str:
            return MISS
        if tag in spec.variants or self.leaves.placeholder(spec) is MISS:  # type: ignore[attr-defined]
            return MISS
        at = len(segments) - 1
        tags = (*found.tags, (at, spec.tag_field, tag))
        return found._replace(tags=tags, action="unknown", at=at, field=spec)

    def _resolve(self, cur: Any, tp: Any, at: int, tags: list[tuple[int, str, Any]]) -> Any:
        """The model, list or map type `cur` takes under `tp`, through tagged unions,
        constraints and nullable unions; `MISS` where that is not one type. Each tag
        read is added to `tags` (with `at`, the index of `cur` on the path)."""
        for _ in range(16):
            # Constraints and untagged unions depend on the JSON kind of `cur` only.
            key = (id(tp), type(cur))
            known = self._shapes.get(key)
            if known is None or known[0] is not tp:
                known = self._shapes[key] = (tp, self._shape(cur, tp))
            tp = known[1]
            if tp is MISS:
                return MISS
            plan = self._plan(tp)
            if plan[0] != _TAGGED:
                return tp
            spec = plan[2]
            if type(cur) is not dict:
                return MISS
            tag = cur.get(spec.tag_field, _ABSENT)
            tags.append((at, spec.tag_field, tag))
            if tag is _ABSENT:
                tp = spec.default
            else:
                tp = spec.variants.get(tag) if type(tag) is str else None
            if tp is None:
                return MISS
        return MISS

    def _shape(self, cur: Any, tp: Any) -> Any:
        """`_resolve` up to the first tagged union (returned as is)."""
        for _ in range(16):
            plan = self._plan(tp)
            kind = plan[0]
            if kind in _PLAIN or kind == _TAGGED:
                return tp
            if kind == _CHECKED:  # the constraint itself is checked by strict conversion
                tp = plan[2]
            else:  # untagged: only when exactly one member can hold this JSON kind
                fits = [m for m in plan[2] if self._holds(cur, m)]
                if len(fits) != 1:
                    return MISS
                tp = fits[0]
        return MISS

    def _holds(self, cur: Any, tp: Any) -> bool:
        kind = self._plan(tp)[0]
        while kind == _CHECKED:
            tp = self._plan(tp)[2]
            kind = self._plan(tp)[0]
        if kind == _UNION:
            return any(self._holds(cur, m) for m in self._plan(tp)[2])
        kind = int(kind)
        if type(cur) is list:
            return kind == _LIST
        if type(cur) is dict:
            return kind in (_MODEL, _MAP, _TAGGED)
        return False

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


class _Route(NamedTuple):
    """How to fix one fault, planned by `GuidedWalker._route`."""

    tp: Any
    where: tuple[list[Any], str, str | None]
    #: JSON kind (list, dict...) of each value on the path from the top
    kinds: tuple[type[Any], ...]
    #: (index on the path, tag property, tag value) of each tag the plan read
    tags: tuple[tuple[int, str, Any], ...]
    #: JSON path of each value on the path
    paths: tuple[str, ...]
    #: the attribute (or item index, or map key) of each step of the path
    attrs: tuple[Any, ...]
    #: "kept" (undeclared property), "missing" (required lenient array), "default",
    #: "skip" (array item) or "unknown" (open union member)
    action: str
    #: the index on the path of the value the action changes
    at: int
    #: the lenient field, the tagged union of an unknown member, or the struct type that
    #: keeps an undeclared property
    field: Any


#: One thing `GuidedWalker._put` puts in place (see `GuidedWalker.guided`).
_Put = tuple[list[Any], tuple[Any, ...], dict[str, Any] | None, Any]
_ABSENT: Any = object()
#: Routes kept per walker; bounded, so memory stays flat whatever arrives.
_ROUTES_KEPT = 256
#: Plan kinds `_fix` steps through without resolving anything.
_PLAIN = (_MODEL, _LIST, _MAP, _LEAF)


def _nodes(route: _Route, work: Any) -> list[Any] | None:
    """The values along `route`'s path in `work`, or None where `work` does not match
    the JSON kinds and tags the route was planned for."""
    segments = route.where[0]
    nodes = [work]
    cur = work
    kinds = route.kinds
    for i in range(len(kinds) - 1):
        segment = segments[i]
        if type(cur) is not kinds[i]:
            return None
        if type(cur) is dict:
            if segment not in cur:
                return None
        elif segment >= len(cur):
            return None
        cur = cur[segment]
        nodes.append(cur)
    if type(cur) is not kinds[-1]:
        return None
    for i, tag_field, tag in route.tags:
        if nodes[i].get(tag_field, _ABSENT) != tag:
            return None
    return nodes


def _index_map(index_maps: dict[int, tuple[list[Any], list[int]]], items: list[Any]) -> list[int]:
    """The original index of each item of `items`, a list some items were skipped from."""
    found = index_maps.get(id(items))
    return found[1] if found is not None and found[0] is items else list(range(len(items)))
