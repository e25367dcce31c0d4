"""The models of the dataclasses target: the base class, field markers and `UNSET`.

Copied into the package as ``_models.py``; ``_runtime.py`` re-exports what generated
code uses. Every generated class derives from `Model`, which makes it a keyword-only
dataclass; a tagged union member names its tag in its class line.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
from collections.abc import Mapping
from typing import Any, ClassVar

from ._base import TaggedUnion

# A project whose ruff targets 3.11+ calls this block outdated (UP036); on 3.10 it is not.
if sys.version_info >= (3, 11):  # noqa: UP036, RUF100
    from typing import dataclass_transform
else:  # Python 3.10: the decorator only informs type checkers

    def dataclass_transform(**_: Any) -> Any:
        return lambda cls: cls


class UnsetType:
    """The type of `UNSET`, the value of an omitted optional field (left out when encoding)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"

    def __copy__(self) -> UnsetType:
        return self

    def __deepcopy__(self, memo: Any) -> UnsetType:
        return self


UNSET = UnsetType()


# The markers below are frozen dataclasses, not tuples: ``typing`` caches ``Annotated``
# types by equal metadata, and equal tuples of another package's markers would match.


@dataclasses.dataclass(frozen=True)
class Meta:
    """Constraints on a value, kept in its type's ``Annotated`` metadata."""

    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    lt: float | None = None
    multiple_of: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None


class _NumberMark:
    """Marks `Number`: an int or a float, never a bool."""


#: A JSON ``number``: integers stay integers (and re-encode without a ``.0``).
Number: typing.TypeAlias = typing.Annotated[int | float, _NumberMark()]

_WIRE = "acp_wire"
#: The attribute of a model that holds its undeclared properties (None when it has none).
EXTRA = "_acp_extra"


def field(*, wire: str, default: Any = dataclasses.MISSING) -> Any:
    """A dataclass field whose JSON name (`wire`) differs from its attribute."""
    return dataclasses.field(default=default, metadata={_WIRE: wire})


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Model:
    """Base of every generated class: each subclass is made a keyword-only dataclass.

    A tagged union member names its tag as ``tag=(field, value)`` in its class line;
    the tag is not an attribute, it is written first when encoding.
    """

    __acp_tag__: ClassVar[tuple[str, str] | None] = None
    #: Whether instances keep the properties their schema does not declare.
    __acp_keep__: ClassVar[bool] = False

    def __init_subclass__(cls, tag: tuple[str, str] | None = None, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.__acp_tag__ = tag
        # The undeclared properties are a field of their own (last, and left out of the
        # repr), so ``==``, ``copy``, ``dataclasses.replace`` and pickling carry them.
        cls.__annotations__ = {**inspect.get_annotations(cls), EXTRA: Any}
        setattr(cls, EXTRA, dataclasses.field(default=None, repr=False))
        dataclasses.dataclass(kw_only=True, repr=False)(cls)

    def __repr__(self) -> str:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields if f.repr]
        if getattr(self, EXTRA):  # (undeclared properties, under their wire names)
            shown.append(f"{EXTRA}={getattr(self, EXTRA)!r}")
        return f"{type(self).__qualname__}({', '.join(shown)})"


class OpenModel(Model):
    """A `Model` that keeps undeclared properties (read them with `extra_fields`)."""

    __acp_keep__ = True


def extra_fields(obj: object) -> dict[str, Any]:
    """The undeclared properties `obj` was decoded with (empty when none)."""
    found = getattr(obj, EXTRA, None) if isinstance(obj, Model) else None
    return dict(found) if found else {}


# -- unions ---------------------------------------------------------------


def tagged_union(
    name: str,
    tag_field: str,
    variants: Mapping[str, Any],
    unknown: type[Any] | None = None,
    default: type[Any] | None = None,
    null_tag: bool = False,
) -> Any:
    """The runtime type of a tagged union: its descriptor, which the walker routes by."""
    spec = TaggedUnion(name, tag_field, variants, unknown, default, null_tag)
    return typing.Annotated[Any, spec]
