"""How msgspec structs hold undeclared properties (copied in as ``_extras.py``).

A generated struct declares the properties its schema lists; msgspec cannot keep any
other. A struct that arrives with others is built as a subclass of its class that
declares them (`declaring`), so msgspec reads and writes them like any other field;
past that subclass table's bounds, as a subclass whose instances hold them in a dict
(`_with_extras`), which encoding then has to walk (`encode_value`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import UNSET

from ._base import UnknownVariant

__all__ = ["EXTRAS_SEEN", "declaring", "encode_value", "extra_fields", "split", "subclass"]

#: The attribute of a struct instance that holds its undeclared properties.
EXTRA_ATTR = "_acp_extra"
#: Set once any struct of this package holds undeclared properties in a dict (past the
#: bounds of `declaring`); until then, encoding never needs to look for them.
EXTRAS_SEEN = [False]


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    declared = getattr(type(obj), "__acp_undeclared__", None)
    if declared:
        out = {}
        for attr, wire in declared:
            value = getattr(obj, attr)
            if value is not UNSET:
                out[wire] = value
        return out
    held = getattr(obj, "__dict__", None)
    found = held.get(EXTRA_ATTR) if held else None
    return dict(found) if found else {}


def encode_value(obj: Any) -> Any:
    """`obj` as plain JSON values, undeclared properties included (see `EXTRAS_SEEN`)."""
    return _plain(obj)


def _plain(obj: Any) -> Any:
    if isinstance(obj, msgspec.Struct):
        config = obj.__struct_config__
        out: dict[str, Any] = {}
        if config.tag_field is not None:
            out[config.tag_field] = config.tag
        for attr, wire in _wire_names(type(obj)):
            value = getattr(obj, attr)
            if value is not UNSET:
                out[wire] = _plain(value)
        held = getattr(obj, "__dict__", None)
        if held:
            for key, value in (held.get(EXTRA_ATTR) or {}).items():
                out.setdefault(key, value)
        return out
    if type(obj) is list:
        return [_plain(v) for v in obj]
    if type(obj) is dict:
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, UnknownVariant):
        return obj.raw
    return obj


#: Most classes `declaring` makes, and most undeclared properties one of them declares.
KINDS_KEPT = 1024
NAMES_KEPT = 16
_DECLARING: dict[tuple[type[Any], tuple[str, ...]], type[Any] | None] = {}


def declaring(cls: type[Any], names: tuple[str, ...]) -> type[Any] | None:
    """The subclass of struct `cls` that declares the undeclared properties `names`
    (wire names, sorted), so that msgspec reads and writes them like any other field.

    Made once per class and set of names, and kept: every struct that arrives with the
    same undeclared properties is of the same class, whichever path decoded it, so
    equal payloads decode to equal values and encoding needs no Python. None past
    `KINDS_KEPT` classes or `NAMES_KEPT` names, so a stream of ever new properties costs
    bounded memory: those structs keep their properties in a dict (`_with_extras`), as
    do those with a name msgspec cannot declare.
    """
    key = (cls, names)
    if key in _DECLARING:
        return _DECLARING[key]
    if len(_DECLARING) >= KINDS_KEPT or len(names) > NAMES_KEPT:
        return None  # (the table never shrinks, so the answer for `key` never changes)
    made = None
    if not any(_UNFIT_NAME.search(wire) for wire in names):
        taken = set(cls.__struct_fields__)
        attrs: list[tuple[str, str]] = []
        n = 0
        for wire in names:
            while f"acp_undeclared_{n}" in taken:
                n += 1
            attrs.append((f"acp_undeclared_{n}", wire))
            n += 1
        made = subclass(cls, {}, tuple(attrs))
        made.__acp_undeclared__ = tuple(attrs)
    return _DECLARING.setdefault(key, made)  # (two threads: both keep the first)


#: What msgspec refuses in a field's wire name: those properties stay in a dict.
_UNFIT_NAME = re.compile(r'[\\"\x00-\x1f]')


def subclass(
    cls: Any,
    retyped: dict[str, Any],
    extras: tuple[tuple[str, str], ...] = (),
    defaults: dict[str, Any] | None = None,
    **changed: Any,
) -> Any:
    """A subclass of struct `cls` with the same name and options (but those `changed`),
    the fields in `retyped` read as another type (with another default where `defaults`
    gives one), and one more field per (attribute, wire name) in `extras` holding an
    undeclared property."""
    config = cls.__struct_config__
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "__annotations__": annotations,
    }
    for info in msgspec.structs.fields(cls):
        if info.name not in retyped:
            continue
        annotations[info.name] = retyped[info.name]
        if defaults and info.name in defaults:
            namespace[info.name] = msgspec.field(name=info.encode_name, default=defaults[info.name])
        elif info.default is not msgspec.NODEFAULT:
            namespace[info.name] = msgspec.field(name=info.encode_name, default=info.default)
        elif info.default_factory is not msgspec.NODEFAULT:
            namespace[info.name] = msgspec.field(
                name=info.encode_name, default_factory=info.default_factory
            )
        else:
            namespace[info.name] = msgspec.field(name=info.encode_name)
    for attr, wire in extras:
        annotations[attr] = Any
        namespace[attr] = msgspec.field(name=wire, default=UNSET)
    options: dict[str, Any] = {
        "kw_only": True,
        "forbid_unknown_fields": config.forbid_unknown_fields,
        "omit_defaults": config.omit_defaults,
        "gc": config.gc,
        "dict": config.dict,
        "weakref": config.weakref,
        "frozen": config.frozen,
        "eq": config.eq,
        "order": config.order,
        "array_like": config.array_like,
    }
    if config.tag_field is not None:
        options.update(tag_field=config.tag_field, tag=config.tag)
    options.update(changed)
    return type(cls.__name__, (cls,), namespace, **options)


def split(obj: Any) -> tuple[type[Any], dict[str, Any], dict[str, Any]]:
    """Struct `obj` as its generated class, its declared values by attribute and the
    undeclared properties it holds."""
    cls = type(obj)
    if getattr(cls, "__acp_undeclared__", None) or _EXTRA_CLASSES.get(cls.__mro__[1]) is cls:
        cls = cls.__mro__[1]
    values = {name: getattr(obj, name) for name in cls.__struct_fields__}
    return cls, values, extra_fields(obj)


_EXTRA_CLASSES: dict[type[Any], type[Any]] = {}


def _with_extras(cls: type[Any]) -> type[Any]:
    """The subclass of struct `cls` whose instances hold undeclared properties in a dict,
    for those `declaring` has no class for.

    Generated structs are untracked by the garbage collector (``gc=False``), which keeps
    strict decoding fast but rules out an instance dict; only such a struct is built as
    this subclass (same name, same fields, same wire form), and encoding then walks
    every value in Python (see `EXTRAS_SEEN`). Dispatch and the reducer look a class
    up, then its base.
    """
    sub = _EXTRA_CLASSES.get(cls)
    if sub is None:
        sub = _EXTRA_CLASSES[cls] = subclass(cls, {}, gc=True, dict=True)
    return sub


_WIRE: dict[type[Any], tuple[tuple[str, str], ...]] = {}


def _wire_names(cls: type[Any]) -> tuple[tuple[str, str], ...]:
    names = _WIRE.get(cls)
    if names is None:
        names = _WIRE[cls] = tuple((f.name, f.encode_name) for f in msgspec.structs.fields(cls))
    return names
