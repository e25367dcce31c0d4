"""How to install an optional library into the environment the generator runs in.

A missing library (pydantic for ``--target pydantic``, black for ``--formatter black``)
is named with the command that fits how acp-codegen itself was installed: pipx and
``uv tool`` keep it in an environment of its own, where ``pip install`` beside the
user's project would not reach it. The requirement is the one the generator's own
extra pins (``black==26.10.1``), read from its installed metadata.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tomllib
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

__all__ = ["install_hint", "requirement"]

DIST = "acp-codegen"


def requirement(extra: str, library: str) -> str:
    """What the ``acp-codegen[extra]`` extra asks for `library` (its pin), else `library`."""
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        requires = []
    for line in requires:
        spec, _, marker = line.partition(";")
        if re.fullmatch(rf"\s*extra\s*==\s*['\"]{re.escape(extra)}['\"]\s*", marker) and (
            re.match(rf"{re.escape(library)}\b", spec.strip())
        ):
            return spec.strip().replace(" ", "")
    return library


def install_hint(
    requirement: str,
    prefix: str = sys.prefix,
    executable: str = sys.executable,
    env: Mapping[str, str] = os.environ,
) -> str:
    """The command that installs `requirement` beside the running generator."""
    venv = Path(prefix)
    spec = shlex.quote(requirement)
    if _is_pipx(venv, env.get("PIPX_HOME")):
        return f"pipx inject {shlex.quote(venv.name)} {spec}"
    receipt = venv / "uv-receipt.toml"
    if receipt.is_file() or _is_uv_tool(venv, env.get("UV_TOOL_DIR")):
        # `uv tool install` replaces the tool's environment, so it repeats what it had.
        withs = "".join(f"--with {shlex.quote(w)} " for w in _uv_withs(receipt))
        return f"uv tool install {withs}--with {spec} {_uv_source(receipt)}"
    return f"{shlex.quote(executable)} -m pip install {spec}"


def _is_pipx(venv: Path, home: str | None) -> bool:
    """pipx keeps each app in ``<pipx home>/venvs/<app>``, with a ``pipx_metadata.json``."""
    if (venv / "pipx_metadata.json").is_file():
        return True
    homes = venv.parent.parent
    return venv.parent.name == "venvs" and (homes.name == "pipx" or home == str(homes))


def _is_uv_tool(venv: Path, tools: str | None) -> bool:
    """uv keeps each tool in ``<uv data>/tools/<tool>`` (or ``$UV_TOOL_DIR/<tool>``)."""
    in_default = venv.parent.name == "tools" and venv.parent.parent.name == "uv"
    return in_default or tools == str(venv.parent)


def _receipt_requirements(receipt: Path) -> list[dict[str, object]]:
    try:
        tool = tomllib.loads(receipt.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    found = tool.get("requirements", []) if isinstance(tool, dict) else []
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def _uv_source(receipt: Path) -> str:
    """Where uv installed the generator from (acp-codegen is not on the package index)."""
    for entry in _receipt_requirements(receipt):
        if entry.get("name") == DIST:
            for key in ("directory", "editable", "path", "git", "url"):
                if isinstance(entry.get(key), str):
                    source = str(entry[key])
                    return ("--editable " if key == "editable" else "") + shlex.quote(source)
    return DIST


def _uv_withs(receipt: Path) -> list[str]:
    """The ``--with`` requirements the tool already has: reinstalling keeps them."""
    return [
        f"{entry['name']}{entry.get('specifier', '')}"
        for entry in _receipt_requirements(receipt)
        if entry.get("name") != DIST and isinstance(entry.get("name"), str)
    ]
