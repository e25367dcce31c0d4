"""How msgspec structs hold undeclared properties (copied in as ``_extras.py``).

msgspec reads and writes only the fields a struct declares, so every struct that keeps
undeclared properties declares one more field, last: `EXTRA`, which holds them as an
`Extras` mapping (wire name -> value, in arrival order) or is ``UNSET``. An object that
arrived with undeclared properties is of its declared class, like any other, and
``==``, ``copy``, ``msgspec.structs.replace``, pickling and ``repr`` see them.

The field's type is one no JSON value decodes to (`dec_hook` refuses it), so a payload
that carries a property named like the field is read by the lenient pass, which keeps
that property as an undeclared one. msgspec writes the field as a nested object under
its own name; `encode` writes it back flat (`plain`), and only when the bytes show the
field's name can the walk be needed at all.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import UnknownVariant

__all__ = ["EXTRA", "MARK", "Extras", "extra_fields", "plain"]

#: The field (attribute and wire name alike) that holds a struct's undeclared properties.
EXTRA = "_acp_extra"
#: What msgspec's bytes contain wherever it wrote an `EXTRA` field.
MARK = f'"{EXTRA}":'.encode()


class Extras(dict[str, Any]):
    """The undeclared properties of one object: wire name -> value, in arrival order."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Extras({dict.__repr__(self)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Extras, (dict(self),))


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    found = getattr(obj, EXTRA, UNSET) if isinstance(obj, msgspec.Struct) else UNSET
    return {} if found is UNSET else dict(found)


def plain(obj: Any) -> Any:
    """`obj` as plain JSON values, undeclared properties written beside the declared ones
    (after them, in arrival order), so that msgspec writes the wire form."""
    kind = type(obj)
    if kind is list:
        return [plain(v) for v in obj]
    if kind is dict or kind is Extras:
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, UnknownVariant):
        return obj.raw
    if isinstance(obj, enum.Enum):
        return obj.value
    if not isinstance(obj, msgspec.Struct):
        return obj  # (a scalar: msgspec writes it)
    config = obj.__struct_config__
    out: dict[str, Any] = {}
    if config.tag_field is not None:
        out[config.tag_field] = config.tag
    for attr, wire in zip(obj.__struct_fields__, obj.__struct_encode_fields__, strict=True):
        value = getattr(obj, attr)
        if value is UNSET:
            continue
        if attr != EXTRA:
            out[wire] = plain(value)
            continue
        for key, extra in value.items():
            if key in out:
                raise TypeError(f"undeclared property {key!r} has a declared property's name")
            out[key] = plain(extra)
    return out
