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

from ._walk import (
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
    Walker,
    _Call,
    _is_array,
)

__all__ = ["GuidedWalker"]

#: Strict attempts per value before the shortcut gives up and the walk runs.
MAX_STEPS = 4


class GuidedWalker(Walker):
    """A `Walker` that first tries to repair a value where strict errors point."""

    def guides(self, obj: Any, plan: tuple[Any, ...], depth: int) -> bool:
        # Near the top only: each attempt converts the whole value, so trying it at
        # every level of a deep walk would cost more than the walk.
        return depth <= 2 and (plan[0] == _MODEL or (plan[0] == _LIST and type(obj) is list))

    def guided(self, obj: Any, tp: Any, path: str, call: _Call, trail: list[Any]) -> Any:
        work, local = obj, list[Any]()
        extras: list[tuple[list[Any], dict[str, Any]]] = []
        index_maps: dict[int, tuple[list[Any], list[int]]] = {}
        for _ in range(MAX_STEPS):
            value, where = self.leaves.strict_error(work, tp)  # type: ignore[attr-defined]
            if where is None:
                break
            if where is MISS:
                return MISS
            work = self._fix(work, tp, where, path, local, extras, index_maps)
            if work is MISS:
                return MISS
        else:
            return MISS
        for segments, extra in extras:
            parent: Any = None
            slot: Any = None
            holder = value
            for segment in segments:
                parent = holder
                if type(holder) in (list, dict):
                    slot = segment
                else:
                    slot = self._plan(type(holder))[6][segment].attr
                holder = holder[slot] if type(holder) in (list, dict) else getattr(holder, slot)
            kept = self.leaves.attach(holder, extra)  # type: ignore[attr-defined]
            if kept is not holder:
                if parent is None:
                    value = kept
                elif type(parent) in (list, dict):
                    parent[slot] = kept
                else:
                    setattr(parent, slot, kept)
        trail.extend(local)
        return value

    def _fix(
        self,
        work: Any,
        tp: Any,
        where: tuple[list[Any], str, str | None],
        path: str,
        local: list[Any],
        extras: list[tuple[list[Any], dict[str, Any]]],
        index_maps: dict[int, tuple[list[Any], list[int]]],
    ) -> Any:
        """`work` with the fault at `where` fixed, or `MISS`."""
        segments, kind, key = where
        route: list[tuple[Any, Any, str]] = []  # (container, key in it, JSON path of it)
        cover: list[tuple[int, str, Any]] = []  # (route index, "field"|"skip", field)
        cur, cur_tp, jpath, i = work, tp, path, 0
        plan: tuple[Any, ...] = (_LEAF,)
        while True:
            if i == len(segments) and kind == "bad_value":
                break
            cur_tp = self._resolve(cur, cur_tp)
            if cur_tp is MISS:
                return MISS
            plan = self._plan(cur_tp)
            if i == len(segments):
                break
            segment = segments[i]
            if plan[0] == _MODEL:
                field = plan[6].get(segment)
                if type(cur) is not dict or field is None or segment not in cur:
                    return MISS
                if field.lenient:
                    cover.append((len(route), "field", field))
                if field.skip_invalid and type(cur[segment]) is list:
                    cover.append((len(route) + 1, "skip", field))
                route.append((cur, segment, jpath))
                jpath, cur, cur_tp = f"{jpath}.{segment}", cur[segment], field.type
            elif plan[0] == _LIST and type(cur) is list and type(segment) is int:
                if segment >= len(cur):
                    return MISS
                route.append((cur, segment, jpath))
                original = _index_map(index_maps, cur)[segment]
                jpath, cur, cur_tp = f"{jpath}[{original}]", cur[segment], plan[2]
            elif plan[0] == _MAP and type(cur) is dict and segment in cur:
                route.append((cur, segment, jpath))
                jpath, cur, cur_tp = f"{jpath}.{segment}", cur[segment], plan[2]
            else:
                return MISS
            i += 1
        if kind == "unknown_field" and plan[0] == _MODEL and plan[5] and type(cur) is dict:
            if key is None or key not in cur:
                return MISS
            extras.append(([r[1] for r in route], {key: cur[key]}))
            local.append(_KEPT)
            kept = {k: v for k, v in cur.items() if k != key}
            return self._replace(work, route, len(route), kept, index_maps)
        if kind == "missing_field" and plan[0] == _MODEL:
            field = plan[6].get(key)
            if field is not None and field.lenient and _is_array(self.leaves, field.type):
                local.append(Repair(f"{jpath}.{key}", "defaulted", MISSING_VALUE, []))
                return self._replace(work, route, len(route), {**cur, key: []}, index_maps)
        if not cover:
            return MISS
        at, how, field = max(cover, key=lambda entry: entry[0])
        if at >= len(route):
            return MISS
        container, slot, where_path = route[at]
        if how == "skip":
            if type(container) is not list or extras:
                return MISS  # (an undeclared property kept below would move with the index)
            original_map = _index_map(index_maps, container)
            item_path = f"{where_path}[{original_map[slot]}]"
            local.append(Repair(item_path, "skipped", container[slot], None))
            kept_items = container[:slot] + container[slot + 1 :]
            index_maps[id(kept_items)] = (
                kept_items,
                original_map[:slot] + original_map[slot + 1 :],
            )
            return self._replace(work, route, at, kept_items, index_maps)
        original = container[slot]
        fallback = field.on_error
        if fallback is self.leaves.unset and field.required:
            if not _is_array(self.leaves, field.type):
                return MISS
            fallback = []
        local.append(Repair(f"{where_path}.{slot}", "defaulted", original, fallback))
        replaced = [r[1] for r in route[: at + 1]]  # undeclared properties kept below go too
        extras[:] = [e for e in extras if e[0][: len(replaced)] != replaced]
        if fallback is self.leaves.unset:
            fixed = {k: v for k, v in container.items() if k != slot}
        else:
            fixed = {**container, slot: fallback}
        return self._replace(work, route, at, fixed, index_maps)

    def _resolve(self, cur: Any, tp: Any) -> Any:
        """The model, list or map type `cur` takes under `tp`, through tagged unions,
        constraints and nullable unions; `MISS` where that is not one type."""
        for _ in range(16):
            plan = self._plan(tp)
            kind = plan[0]
            if kind in (_MODEL, _LIST, _MAP, _LEAF):
                return tp
            if kind == _CHECKED:  # the constraint itself is checked by strict conversion
                tp = plan[2]
            elif kind == _TAGGED:
                spec = plan[2]
                if type(cur) is not dict:
                    return MISS
                tag = cur.get(spec.tag_field, _ABSENT)
                if tag is _ABSENT:
                    tp = spec.default
                else:
                    tp = spec.variants.get(tag) if type(tag) is str else None
                if tp is None:
                    return MISS
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
        route: list[tuple[Any, Any, str]],
        depth: int,
        value: Any,
        index_maps: dict[int, tuple[list[Any], list[int]]],
    ) -> Any:
        """`work` with the value at `route[:depth]` replaced, copying each container above it."""
        for container, slot, _ in reversed(route[:depth]):
            if type(container) is list:
                copied: Any = list(container)
                index_maps[id(copied)] = (copied, _index_map(index_maps, container))
            else:
                copied = dict(container)
            copied[slot] = value
            value = copied
        return value


_ABSENT: Any = object()


def _index_map(index_maps: dict[int, tuple[list[Any], list[int]]], items: list[Any]) -> list[int]:
    """The original index of each item of `items`, a list some items were skipped from."""
    found = index_maps.get(id(items))
    return found[1] if found is not None and found[0] is items else list(range(len(items)))
