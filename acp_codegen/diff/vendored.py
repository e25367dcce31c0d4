"""What a package generated before calls the variants that the new schema generates now.

A schema diff compares two schemas under one naming rule, so it cannot see that a class
came out under another name from an earlier acp-codegen. This module reads a vendored
package's ``dispatch.py`` (parsed, never imported) for its ``<UNION>_VARIANTS`` tables and
reports each variant whose class the new module names differently, as ``type.renamed``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .. import ir, naming
from ..errors import UsageError
from ..load import read_capped
from .defs import Change


def version_folder(package: Path, version: int | None) -> Path:
    """Where the ``dispatch.py`` to read is: `package` itself for a package of one version;
    for one of several (``v1/``, ``v2/``...) the folder of `version`, which must be given."""
    if (package / "dispatch.py").exists() or not package.is_dir():
        return package
    have = sorted(p.parent.name for p in package.glob("v*/dispatch.py"))
    if not have:
        return package  # (variant_names words what is missing)
    if version is None or f"v{version}" not in have:
        wanted = f" holds no v{version}/" if version is not None else " holds several versions"
        raise UsageError(
            f"--since-package: {package}{wanted} ({', '.join(have)}): "
            f"name one, as in --since-package {package / have[-1]}"
        )
    return package / f"v{version}"


def variant_names(package: Path) -> dict[str, dict[str, str]]:
    """Table name -> tag -> class name, from ``dispatch.py`` of the package at `package`."""
    source = package / "dispatch.py"
    try:
        tree = ast.parse(read_capped(source, "generated file").decode("utf-8"), str(source))
    except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise UsageError(f"--since-package: cannot read {source}: {exc}") from None
    tables: dict[str, dict[str, str]] = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            tables[target.id] = {
                key.value: item.id
                for key, item in zip(value.keys, value.values, strict=True)
                if isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and isinstance(item, ast.Name)
            }
    if not any(name.endswith("_VARIANTS") for name in tables):
        raise UsageError(f"--since-package: {source} holds no <UNION>_VARIANTS table")
    return tables


def renames_since(package: Path, new: ir.Module) -> tuple[Change, ...]:
    """A ``type.renamed`` change for each variant class of `new` that the package at
    `package` named otherwise."""
    before = variant_names(package)
    changes = []
    for union in new.unions:
        old = before.get(naming.variants_table_name(union.name), {})
        for variant in union.variants:
            was = old.get(variant.tag)
            if was is not None and was != variant.target:
                message = f"renamed from {was} (the class {package.name} has for {variant.tag!r})"
                changes.append(
                    Change("type.renamed", variant.target, "", was, variant.target, message)
                )
    return tuple(sorted(changes, key=lambda c: (c.type, c.old or "")))
