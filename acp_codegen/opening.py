"""Opening stage: every union and enum keeps what it does not know, unless the job says not.

Runs between build and lower. The build stage records how open the schema itself
declares each union and enum (an ``other`` fallback, a v2-style open enum); `diff`
and `inspect` read that. A generated package is forward compatible by default, so
here every tagged union gets its ``Unknown<Union>`` class and every enum keeps
unknown values. A job that sets ``closed = true`` keeps the schema's own choice
everywhere; ``closed = ["Name", ...]`` keeps it for the named unions and enums.
"""

from __future__ import annotations

from dataclasses import replace

from . import ir, naming
from .errors import UsageError

__all__ = ["open_module"]


def open_module(module: ir.Module, closed_all: bool, closed: tuple[str, ...]) -> ir.Module:
    """`module` with every union and enum not named in `closed` made open."""
    openable = {d.name for d in module.defs if isinstance(d, ir.TaggedUnion | ir.Enum)}
    unknown = sorted(set(closed) - openable)
    if unknown:
        raise UsageError(
            f"closed: {unknown[0]!r} is not a tagged union or enum of the generated package"
        )
    if closed_all:
        return module
    keep = frozenset(closed)
    taken = {d.name for d in module.defs} | {u.unknown_name for u in module.unions if u.open}
    defs: list[ir.Def] = []
    for node in module.defs:
        if isinstance(node, ir.TaggedUnion) and not node.open and node.name not in keep:
            name = _free_unknown_name(node, taken)
            taken.add(name)
            node = replace(node, open=True, unknown_name=name)
        elif isinstance(node, ir.Enum) and not node.open and node.name not in keep:
            node = replace(node, open=True)
        defs.append(node)
    return replace(module, defs=tuple(defs), _index={})


def _free_unknown_name(union: ir.TaggedUnion, taken: set[str]) -> str:
    """``Unknown<Union>``, or ``Other<Union>`` (and so on) when a def already owns it."""
    name = union.unknown_name
    prefix = "Other"
    while name in taken:
        name = naming.class_name(prefix + union.name)
        prefix = "Other" + prefix
    return name
