"""The runtime contract: what generated code asks of its copied ``_runtime.py``.

`target.RUNTIME_CONTRACT` lists the names every target's runtime provides and the shared
templates and lowering use; `Target.runtime_extras` lists what one target's own
templates and lowering use besides. Here: every ``_rt.<name>`` the templates and
lowerings spell is listed, every listed name is used, and every target's runtime
defines them all. Golden trees hold generated modules only, so the copied runtime files
are checked once here against their source.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from acp_codegen import render
from acp_codegen.naming import RUNTIME_API
from acp_codegen.pipeline import Job, generate
from acp_codegen.target import RUNTIME_CONTRACT, Target
from acp_codegen.targets import TARGETS

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "acp_codegen"
SCHEMA = REPO / "schema" / "session_update.schema.json"
_RT = re.compile(r"_rt\.([A-Za-z_]\w*)")
_IMPORTED = re.compile(r"from \._runtime import ([\w, ]+)")


def used_names(paths: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            # Code strings only: docstrings and comments may mention helpers in prose.
            tree = ast.parse(text)
            text = "\n".join(
                node.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and not _is_docstring(tree, node)
            )
        names |= set(_RT.findall(text))
        if "package.runtime" in text:  # __init__ re-exports naming.RUNTIME_API
            names |= set(RUNTIME_API)
        for group in _IMPORTED.findall(text):
            names |= {n.strip() for n in group.split(",") if n.strip()}
    return names


def _is_docstring(tree: ast.Module, node: ast.Constant) -> bool:
    for holder in ast.walk(tree):
        if isinstance(holder, ast.Module | ast.ClassDef | ast.FunctionDef) and holder.body:
            first = holder.body[0]
            if isinstance(first, ast.Expr) and first.value is node:
                return True
    return False


def shared_sources() -> list[Path]:
    return sorted((REPO / "templates" / "common").glob("*.j2")) + [PACKAGE / "lowering.py"]


def target_sources(target: Target) -> list[Path]:
    own = sorted((REPO / "templates" / target.name).glob("*.j2"))
    return own + sorted((PACKAGE / "targets" / target.name).glob("*.py"))


def runtime_defines(target: Target) -> set[str]:
    """Top-level names the target's ``_runtime.py`` binds (defs, classes, assignments, imports)."""
    tree = ast.parse(target.runtime_dir().joinpath("_runtime.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names |= {a.asname or a.name for a in node.names}
    return names


def test_shared_code_uses_only_the_contract() -> None:
    used = used_names(shared_sources())
    assert used <= set(RUNTIME_CONTRACT), used - set(RUNTIME_CONTRACT)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_target_uses_only_the_contract_and_its_extras(name: str) -> None:
    target = TARGETS[name]
    used = used_names(target_sources(target))
    allowed = set(RUNTIME_CONTRACT) | set(target.runtime_extras)
    assert used <= allowed, used - allowed
    assert not set(target.runtime_extras) & set(RUNTIME_CONTRACT)


def test_every_listed_name_is_used() -> None:
    used = used_names(shared_sources())
    for target in TARGETS.values():
        used |= used_names(target_sources(target))
        unused = set(target.runtime_extras) - used_names(target_sources(target))
        assert not unused, (target.name, unused)
    assert set(RUNTIME_CONTRACT) <= used, set(RUNTIME_CONTRACT) - used


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_runtime_provides_the_contract(name: str) -> None:
    target = TARGETS[name]
    missing = (set(RUNTIME_CONTRACT) | set(target.runtime_extras)) - runtime_defines(target)
    assert not missing, f"{name} runtime lacks {sorted(missing)}"


def test_contract_finder_sees_names() -> None:
    assert runtime_defines(TARGETS["msgspec"]) >= {"tagged_union", "UNSET"}
    assert "Method" in used_names([REPO / "templates" / "common" / "dispatch.py.j2"])


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_copied_runtime_files_equal_their_source(name: str, tmp_path: Path) -> None:
    target = TARGETS[name]
    files = generate(Job(SCHEMA, tmp_path / "pkg", "pkg", ("PromptResponse",), target=name))
    header = files["models.py"].split('"""', 1)[0]
    runtime = target.runtime_files(with_state=True)
    assert set(runtime) <= set(files)
    for file_name, source in runtime.items():
        assert files[file_name] == header + source.read_text(encoding="utf-8"), file_name
    assert render.templates_root().is_dir()
