"""Union descriptors for the msgspec target's runtime (copied in as ``_unions.py``).

A tagged union's runtime type is the native msgspec union of its struct
variants, annotated with a `TaggedUnion` descriptor the slow path reads; unions
msgspec cannot express become `ShapeUnion` subclasses decoded by a hook.
"""

from __future__ import annotations

import functools
import operator
import typing
from collections.abc import Mapping
from typing import Any, ClassVar

from ._base import TaggedUnion

__all__ = [
    "ShapeUnion",
    "TaggedUnion",
    "shape_union",
    "tagged_union",
    "union_spec",
]


class _ShapeMeta(type):
    """Lets msgspec accept what a shape union decodes to as an instance of that union.

    msgspec checks that a decode hook returns an instance of the type it asked for;
    a union's value is an instance of one of its members instead.
    """

    def __instancecheck__(cls, obj: Any) -> bool:
        if type.__instancecheck__(cls, obj):
            return True
        members: tuple[Any, ...] = cls.__dict__.get("MEMBERS", ())
        spec: TaggedUnion | None = cls.__dict__.get("UNION")
        if spec is not None:
            members = (*spec.variants.values(), spec.unknown, spec.default)
        for member in members:
            if member is None:
                continue
            if member is Any:
                return True
            if isinstance(member, type):
                if isinstance(obj, member):
                    return True
            elif union_spec(member) is not None or typing.get_origin(member) is not None:
                origin = typing.get_origin(member)
                if origin is typing.Annotated:
                    if isinstance(obj, _instance_types(member)):
                        return True
                elif isinstance(origin, type) and isinstance(obj, origin):
                    return True
        return False


def _instance_types(tp: Any) -> tuple[type, ...]:
    """Classes a value of an (Annotated) union type can be an instance of."""
    spec = union_spec(tp)
    if spec is None:
        return ()
    found: list[type] = []
    for target in (*spec.variants.values(), spec.unknown, spec.default):
        if isinstance(target, type):
            found.append(target)
        elif target is not None:
            found.extend(_instance_types(target))
    return tuple(found)


class ShapeUnion(metaclass=_ShapeMeta):
    """Base of runtime types for unions msgspec cannot tell apart by itself.

    Members are tried in schema order and the first that decodes wins.
    """

    MEMBERS: ClassVar[tuple[Any, ...]] = ()
    UNION: ClassVar[TaggedUnion | None] = None


def union_spec(tp: Any) -> TaggedUnion | None:
    """The descriptor of a tagged union type: in its metadata, or a shape union's."""
    if isinstance(tp, type) and issubclass(tp, ShapeUnion):
        return tp.UNION
    return TaggedUnion.of(tp)


def tagged_union(
    name: str,
    tag_field: str,
    variants: Mapping[str, Any],
    unknown: type[Any] | None = None,
    default: type[Any] | None = None,
    null_tag: bool = False,
) -> Any:
    """Build the runtime type of a tagged union.

    Struct variants form a native msgspec union, decoded at full speed; a variant
    whose body is itself a union, an unknown tag and a missing tag are handled by
    the slow path, which reads the descriptor from the type's metadata.
    """
    spec = TaggedUnion(name, tag_field, variants, unknown, default, null_tag)
    direct = tuple(v for v in variants.values() if isinstance(v, type))
    if len(direct) < 2:
        # msgspec checks the tag of a lone tagged struct only when it is present, so a
        # single variant would swallow tagless payloads meant for the default variant.
        return type(name, (ShapeUnion,), {"UNION": spec, "__module__": __name__})
    native: Any = functools.reduce(operator.or_, direct)
    return typing.Annotated[native, spec]


def shape_union(name: str, *members: Any) -> type[ShapeUnion]:
    """Build the runtime type of an untagged union msgspec cannot express natively."""
    return type(name, (ShapeUnion,), {"MEMBERS": members, "__module__": __name__})
