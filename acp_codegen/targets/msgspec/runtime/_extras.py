"""How msgspec structs hold undeclared properties (copied in as ``_extras.py``).

msgspec reads and writes only the fields a struct declares, so every struct that keeps
undeclared properties declares one more field, last: `EXTRA`, which holds them as an
`Extras` mapping (wire name -> value, in arrival order) or is ``UNSET``. An object that
arrived with undeclared properties is of its declared class, like any other, and
``==``, ``copy``, ``msgspec.structs.replace``, pickling and ``repr`` see them.

The field's type is one no JSON value decodes to (`dec_hook` refuses it), so a payload
that carries a property named like the field is read by the lenient pass, which keeps
that property as an undeclared one. `Extras` is no ``dict``, so msgspec hands one to
`enc_hook`, which raises `Flatten`: `encode` then writes the value again through
`plain`, which puts the properties beside the declared ones. A value without them is
written by msgspec alone.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import UnknownVariant

__all__ = ["EXTRA", "Extras", "Flatten", "extra_fields", "plain"]

#: The field (attribute and wire name alike) that holds a struct's undeclared properties.
EXTRA = "_acp_extra"


class Extras(Mapping[str, Any]):
    """The undeclared properties of one object: wire name -> value, in arrival order."""

    __slots__ = ("_items",)

    def __init__(self, items: Any = ()) -> None:
        self._items: dict[str, Any] = dict(items)

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Extras({self._items!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Extras, (self._items,))


class Flatten(Exception):
    """Raised by `enc_hook` at an `Extras`: the value needs `plain` to be written."""


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    found = getattr(obj, EXTRA, UNSET) if isinstance(obj, msgspec.Struct) else UNSET
    return {} if found is UNSET else dict(found)


def plain(obj: Any) -> Any:
    """`obj` as plain JSON values, undeclared properties written beside the declared ones
    (after them, in arrival order), so that msgspec writes the wire form."""
    kind = type(obj)
    if kind in _SCALARS:
        return obj
    if kind is list:
        return [plain(v) for v in obj]
    if kind is dict or kind is Extras:
        return {k: plain(v) for k, v in obj.items()}
    wires = getattr(kind, "__struct_encode_fields__", None)
    if wires is None:  # (an unknown member keeps its raw JSON; an enum writes its value)
        if isinstance(obj, UnknownVariant):
            return obj.raw
        return obj.value if isinstance(obj, enum.Enum) else obj
    config = obj.__struct_config__
    out: dict[str, Any] = {}
    if config.tag_field is not None:
        out[config.tag_field] = config.tag
    extra: Any = {}
    for wire, value in zip(wires, msgspec.structs.astuple(obj), strict=True):
        if value is UNSET:
            continue
        if wire == EXTRA:
            extra = value
        else:
            out[wire] = plain(value)
    for key, value in extra.items():
        if key in out:
            raise TypeError(f"undeclared property {key!r} has a declared property's name")
        out[key] = plain(value)
    return out


_SCALARS = frozenset((str, int, float, bool, type(None)))
