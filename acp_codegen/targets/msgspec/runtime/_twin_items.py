"""The items of a skip-invalid array a twin reads raw (copied in as ``_twin_items.py``;
see ``_twin.py``).

Each item is decoded strictly on its own (one that misses a required property of its
own as a relaxed class, see ``_twin_reads.py``), so only a failing item costs more: it
is skipped without a walk where the array's skipping is the innermost leniency over
its fault (`walker_skips`, planned once per fault as the error-guided shortcut plans its
routes), and otherwise converted by the walker.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec

from ._convert import WALKER, _read_error
from ._routes import _nodes
from ._twin_build import _Struct
from ._twin_reads import ABSENT
from ._walk import MISS, Repair

__all__ = ["absent_skips", "items", "settle", "walker_skips"]


def items(
    raws: list[Any],
    node: _Struct,
    where: str,
    depth: int,
    repairs: list[Repair] | None,
) -> tuple[list[Any], bool]:
    """The items of a skip-invalid array read raw, each decoded strictly (an item that
    misses its own property as a relaxed class, see `_twin_reads.relax`), and one
    that fails converted by the walker, which skips it if it must; and whether one
    failed. Even the item the strict error of the whole message named is decoded
    again: of two equal keys, that error names the earlier, and the twin holds the
    later."""
    decode, relaxed = node.items, node.relaxed
    assert decode is not None
    out: list[Any] = []
    failed = False
    for i, raw in enumerate(raws):
        try:
            item = decode(raw)
        except msgspec.ValidationError as exc:
            key: Any = str(exc)
        else:
            own = None if relaxed is None else relaxed.get(type(item))
            if own is None:
                out.append(item)
                continue
            if getattr(item, own[1]) is not ABSENT:
                item.__class__ = own[0]
                out.append(item)
                continue
            key = node.missing  # (it arrived without the property)
            failed = True
            if absent_skips(node, type(item), functools.partial(msgspec.json.decode, raw)):
                if repairs is not None:
                    value = msgspec.json.decode(raw)
                    repairs.append(Repair(f"{where}[{i}]", "skipped", value, None))
                continue
        failed = True
        _take(out, raw, i, key, node, where, depth, repairs)
    return out, failed


def absent_skips(node: _Struct, cls: type[Any], read: Callable[[], Any]) -> bool:
    """Whether the walker skips an item that decoded as relaxed class `cls` without its
    property (see `_twin_reads.relax`); `read` gives the item as a JSON value. Every
    such item is an object with the tags of `cls`, which is all `walker_skips` checks
    of an item whose fault is at its top, so this is planned once per class."""
    routes = node.routes
    assert routes is not None
    planned = routes.get(cls)
    if planned is None:
        planned = walker_skips(node, node.missing, read())
        if len(routes) < ROUTES_KEPT:
            routes[cls] = planned
    return bool(planned)


def _take(
    out: list[Any],
    raw: Any,
    i: int,
    key: Any,
    node: _Struct,
    where: str,
    depth: int,
    repairs: list[Repair] | None,
) -> None:
    """Add item `raw`, at index `i`, which failed strict decoding with error `key`, to
    `out` as the walker converts it, unless it is skipped (and reported)."""
    value = msgspec.json.decode(raw)
    settle(out, value, f"{where}[{i}]", walker_skips(node, key, value), node, depth, repairs)


def settle(
    out: list[Any],
    value: Any,
    path: str,
    skips: bool,
    node: _Struct,
    depth: int,
    repairs: list[Repair] | None,
) -> None:
    """Skip item `value` (a JSON value, at `path`) and report it, or add it to `out` as
    the walker converts it."""
    if skips:
        if repairs is not None:
            repairs.append(Repair(path, "skipped", value, None))
        return
    item = WALKER.item_value(value, node.raw, path, depth, repairs)
    if item is not MISS:
        out.append(item)


#: Route checks kept per skip-invalid array node (an error text may hold the
#: bad value).
ROUTES_KEPT = 64


def walker_skips(node: _Struct, key: Any, value: Any) -> bool:
    """Whether the walker would skip item `value` of `node`'s array without walking it to
    the failure: the innermost leniency over the item's fault is the array's skipping.
    `key` is the item's strict error, as text or as (segments below the item, kind,
    property). Planned as the error-guided shortcut plans its routes, once per key, and
    checked against each item (its JSON kinds and tags)."""
    routes = node.routes
    assert routes is not None and node.wire is not None
    check = routes.get(key, MISS)
    if check is MISS:
        check = None
        where = _read_error(key) if type(key) is str else (list(key[0]), key[1], key[2])
        if where is not MISS:
            segments, kind, prop = where
            at = ([node.wire, 0, *segments], kind, prop)
            found = WALKER._route({node.wire: [value]}, node.cls, at, "$", {})
            if found is not MISS and found.action == "skip" and found.at == 1:
                check = _check(found, node.wire)
        if len(routes) < ROUTES_KEPT:
            routes[key] = check
    return check is not None and check(value)


def _check(route: Any, wire: str) -> Callable[[Any], bool]:
    """Whether an item takes `route` as the item it was planned on did (the JSON kinds and
    tags along the path, as `_nodes` checks them), for items under property `wire`."""
    kinds = route.kinds[2:]
    tags = tuple((i - 2, field, tag) for i, field, tag in route.tags)
    if len(kinds) != 1 or any(i for i, _, _ in tags):  # (a fault below the item's top)

        def deep(value: Any) -> bool:
            return _nodes(route, {wire: [value]}) is not None

        return deep
    kind = kinds[0]

    def top(value: Any) -> bool:
        if type(value) is not kind:
            return False
        for _, field, tag in tags:
            if value.get(field, _ABSENT) != tag:
                return False
        return True

    return top


_ABSENT: Any = object()
