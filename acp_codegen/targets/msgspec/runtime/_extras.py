"""How msgspec structs hold undeclared properties (copied in as ``_extras.py``).

msgspec reads and writes only the fields a struct declares. A struct that arrived
with other properties is built as a subclass of its class that declares those too,
in the order they came (`declaring`), so msgspec writes them back by itself and
``==``, ``copy``, ``msgspec.structs.replace`` and ``repr`` all see them.

The subclasses are made when first needed and kept in a table bounded in classes and
in the length of the names they hold; when it fills, it starts again. A subclass made
again is another class object but the same in all that shows: its name, fields, repr,
equality (compared by base class and names, not by identity) and pickling (by base
class and names, so it unpickles in any process).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ._base import Bounded

__all__ = ["declaring", "extra_fields"]

#: (class, undeclared wire names in arrival order) -> its declaring subclass
_MADE = Bounded(entries=1024, size=1 << 20)


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    out = {}
    for attr, wire in getattr(type(obj), "__acp_undeclared__", ()):
        value = getattr(obj, attr)
        if value is not UNSET:
            out[wire] = value
    return out


def declaring(cls: type[Any], names: tuple[str, ...]) -> Any:
    """The subclass of struct `cls` that also declares the properties `names` (wire names,
    none of which msgspec refuses: see `_read._UNFIT_KEY`), each as ``acp_undeclared_<n>``."""
    key = (cls, names)
    made = _MADE.get(key)
    if made is None:
        made = _make(cls, names)
        _MADE.put(key, made, sum(map(len, names)) + 64 * len(names))
    return made


def _make(cls: type[Any], names: tuple[str, ...]) -> Any:
    taken = set(cls.__struct_fields__)
    attrs: list[tuple[str, str]] = []
    n = 0
    for wire in names:
        while f"acp_undeclared_{n}" in taken:
            n += 1
        attrs.append((f"acp_undeclared_{n}", wire))
        n += 1
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "__annotations__": dict.fromkeys((a for a, _ in attrs), Any),
        "__acp_undeclared__": tuple(attrs),
        "__acp_key__": (cls, names),
        "__eq__": _eq,
        "__reduce__": _reduce,
    }
    namespace.update((a, msgspec.field(name=w, default=UNSET)) for a, w in attrs)
    config = cls.__struct_config__
    options: dict[str, Any] = {
        "kw_only": True,
        "forbid_unknown_fields": config.forbid_unknown_fields,
        "gc": config.gc,
    }
    if config.tag_field is not None:
        options.update(tag_field=config.tag_field, tag=config.tag)
    return type(cls.__name__, (cls,), namespace, **options)


def _eq(self: Any, other: Any) -> Any:
    if getattr(type(other), "__acp_key__", None) != type(self).__acp_key__:
        return NotImplemented if not isinstance(other, msgspec.Struct) else False
    return msgspec.structs.astuple(self) == msgspec.structs.astuple(other)


def _reduce(self: Any) -> tuple[Any, ...]:
    cls, names = type(self).__acp_key__
    return (_rebuild, (cls, names, msgspec.structs.astuple(self)))


def _rebuild(cls: type[Any], names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    made = declaring(cls, names)
    return made(**dict(zip(made.__struct_fields__, values, strict=True)))
