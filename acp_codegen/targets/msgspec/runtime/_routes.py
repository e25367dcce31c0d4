"""Route planning for the error-guided shortcut (copied in as ``_routes.py``).

A strict error names the JSON path of a fault. `Routes` follows that path down the
walker's type plans and decides, once per (type, fault), how the fault is fixed: keep
an undeclared property aside, default a lenient field, fill a missing lenient array,
skip an array item, or read an unknown tag as its union's unknown member. The plan
depends on the data only through the JSON kind of each value on the path and the tags
it read, so `_nodes` can check a later message against it in one short walk, and
``_guided.py`` applies it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._walk import Walker
from ._walk_api import (
    _CHECKED,
    _LEAF,
    _LIST,
    _MAP,
    _MODEL,
    _TAGGED,
    _UNION,
    MISS,
    _is_array,
)

__all__ = ["Routes"]


class Routes(Walker):
    """A `Walker` that plans how to fix the fault a strict error points at."""

    def __init__(self, leaves: Any) -> None:
        super().__init__(leaves)
        self._shapes: dict[tuple[int, type[Any]], tuple[Any, Any]] = {}

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
