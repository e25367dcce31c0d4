"""The generator's own modules import one another without a cycle.

Every module of `acp_codegen` is parsed (not imported) and each ``from . import``,
``from .x import`` and ``import acp_codegen.x`` edge is collected, including those
under ``if TYPE_CHECKING:`` and inside functions: a deferred import is still a
cycle a reader has to untangle. Edges to a module's own parent packages are left
out: Python imports those first whatever the module says. The graph must be acyclic.
"""

from __future__ import annotations

import ast
from pathlib import Path

import acp_codegen

ROOT = Path(acp_codegen.__file__).parent
PACKAGE = "acp_codegen"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        # The runtime files are copied into generated packages, not imported by the generator.
        if "runtime" in path.relative_to(ROOT).parts:
            continue
        found[_module_name(path)] = path
    return found


def _resolve(current: str, is_package: bool, level: int, module: str | None) -> str:
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + (module.split(".") if module else []))


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = _resolve(name, is_package, node.level, node.module)
                elif node.module and node.module.startswith(PACKAGE):
                    base = node.module
                else:
                    continue
                targets.append(base)
                targets.extend(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                targets.extend(a.name for a in node.names if a.name.startswith(PACKAGE))
            for target in targets:
                # A module's own packages are imported before it in any case.
                if target in modules and not (name + ".").startswith(target + "."):
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path of module names, or None; iterative depth-first search."""
    state: dict[str, int] = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert "acp_codegen.build" in graph and "acp_codegen.unions" in graph["acp_codegen.build"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_sees_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_diff_tool_is_one_package_the_generator_does_not_use() -> None:
    graph = import_graph()
    assert {"acp_codegen.diff.compare", "acp_codegen.diff.cli"} <= set(graph)
    users = {
        name for name, targets in graph.items() for t in targets if t.startswith(PACKAGE + ".diff")
    }
    # Only the commands read it: `diff` itself (through the CLI) and `upgrade`.
    commands = {"acp_codegen.cli", "acp_codegen.upgrade"}
    assert {u for u in users if not u.startswith(PACKAGE + ".diff")} == commands


def test_union_and_type_helpers_do_not_import_the_builder() -> None:
    graph = import_graph()
    for helper in ("acp_codegen.unions", "acp_codegen.typeexprs", "acp_codegen.registry"):
        assert "acp_codegen.build" not in graph[helper]
