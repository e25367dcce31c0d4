"""How a twin reads its spot without an error (copied in as ``_twin_reads.py``; see
``_twin_build.py``).

msgspec's error for a refused value costs about as much as decoding the whole message,
so a twin reads the value at its spot in a way that cannot fail for the fault seen
there: a property refused for its JSON kind as a plain JSON value, told by its type
(`refused_kinds`), and the items of an array that miss a required property of their
own as relaxed classes in which it defaults to `ABSENT` (`relax`). `strict_reader`
then reads such a value as strict decoding of the whole message would.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec

from ._convert import dec_hook
from ._extras import subclass

__all__ = ["ABSENT", "refused_kinds", "relax", "strict_reader"]


#: The plain value msgspec reads for each JSON kind, by the name `_kinds` gives it.
_PLAIN_OF = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def refused_kinds(tp: Any) -> frozenset[type[Any]] | None:
    """The types of the plain JSON values (as msgspec reads a value typed ``Any``) whose
    kind type `tp` never takes: a value of one of them is refused for its kind alone.
    None when a member of `tp` is one `_kinds` does not know."""
    kinds = _kinds(msgspec.inspect.type_info(tp))
    if kinds is None:
        return None
    return frozenset(plain for kind, plain in _PLAIN_OF.items() if kind not in kinds)


_MI = msgspec.inspect
#: The JSON kinds of a value of each msgspec type that holds no other type's kinds.
_SIMPLE_KINDS: dict[type[Any], set[str]] = {
    _MI.DictType: {"object"},
    _MI.TypedDictType: {"object"},
    _MI.DataclassType: {"object"},
    _MI.ListType: {"array"},
    _MI.VarTupleType: {"array"},
    _MI.TupleType: {"array"},
    _MI.StrType: {"string"},
    _MI.IntType: {"integer"},
    _MI.FloatType: {"integer", "number"},
    _MI.BoolType: {"boolean"},
    _MI.NoneType: {"null"},
}


def _kinds(info: Any) -> set[str] | None:
    """The JSON kinds a value of msgspec type `info` can have; None when not known."""
    mi = _MI
    if isinstance(info, mi.Metadata):
        return _kinds(info.type)
    if isinstance(info, mi.UnionType):
        out: set[str] = set()
        for member in info.types:
            found = _kinds(member)
            if found is None:
                return None
            out |= found
        return out
    if isinstance(info, mi.StructType):
        return {"array" if info.array_like else "object"}
    if isinstance(info, mi.LiteralType | mi.EnumType):
        values = info.values if isinstance(info, mi.LiteralType) else [m.value for m in info.cls]
        literal = {str: "string", int: "integer", type(None): "null"}
        if any(type(v) not in literal for v in values):
            return None
        return {literal[type(v)] for v in values}
    simple = _SIMPLE_KINDS.get(type(info))
    return None if simple is None else set(simple)


class _Absent:
    """The type of `ABSENT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: The default a relaxed item class gives the required property it relaxes: an item that
#: holds it arrived without that property.
ABSENT: Any = _Absent()


def relax(tp: Any, prop: str) -> tuple[Any, dict[type[Any], tuple[type[Any], str]]] | None:
    """Item type `tp` with each struct that requires property `prop` (a wire name) read
    as a subclass in which it defaults to `ABSENT`, so an item missing it decodes
    without an error; and each such subclass -> (its class, the attribute). None when
    no struct of `tp` requires `prop`, or `tp` is not a struct or a union of structs."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        found = relax(base, prop)
        return None if found is None else (typing.Annotated[(found[0], *metas)], found[1])
    if origin is typing.Union or isinstance(tp, types.UnionType):
        members = list(typing.get_args(tp))
    elif isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        members = [tp]
    else:
        return None
    table: dict[type[Any], tuple[type[Any], str]] = {}
    out = []
    for member in members:
        info = None
        if isinstance(member, type) and issubclass(member, msgspec.Struct):
            fields = msgspec.structs.fields(member)
            info = next((f for f in fields if f.encode_name == prop and f.required), None)
        if info is None:
            out.append(member)
            continue
        relaxed = subclass(member, {info.name: info.type}, defaults={info.name: ABSENT})
        table[relaxed] = (member, info.name)
        out.append(relaxed)
    if not table:
        return None
    return functools.reduce(operator.or_, out), table


def strict_reader(tp: Any, plain: bool) -> Callable[[Any], Any]:
    """What reads a property of type `tp` that a twin holds raw (or as a plain JSON value)
    as strict decoding of the whole message would; it raises msgspec's
    `ValidationError` where strict decoding would."""
    if not plain:
        return msgspec.json.Decoder(tp, dec_hook=dec_hook).decode

    def converted(held: Any) -> Any:
        return msgspec.convert(held, tp, strict=True, dec_hook=dec_hook)

    return converted
