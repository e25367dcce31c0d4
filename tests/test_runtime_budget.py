"""The runtime a user vendors stays small enough to review, with no circle and no hidden state.

Each check runs on packages as `generate` assembles them, one per target:

- **lines**: the copied runtime of decoding and reducing (the target's own files and the
  shared ones) is at most `TOTAL_LINES`, and its lenient pass (`_read.py` and the module
  that tells it about the target's types) at most `SLOW_PATH_LINES`; the transcript
  tools (`_conformance.py`, the checker's rules, and `_transcript.py`, the reader and the
  two commands) have a budget of their own;
- **imports**: the package's modules import one another without a cycle, counting imports
  deferred into functions;
- **no rebinding**: no runtime module has a ``global`` statement or writes through
  ``globals()``, and decoding good and faulty payloads leaves every module's namespace as
  it was after import;
- **several versions**: a package of several protocol versions carries the same runtime
  once, and its negotiation (`_versions.py`) has a budget of its own.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acp_codegen.pipeline import Job, generate
from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn
from tests.test_import_graph import find_cycle

#: The most lines the copied runtime of one target may have, shared files included: the
#: same on every target. (It holds one wording of errors, one spelling of floats and one
#: reading of integral floats for all three; pydantic's runtime is the largest.)
TOTAL_LINES = 2600
#: The most lines its lenient pass may have.
SLOW_PATH_LINES = 1200

#: Payloads that take the strict path, and each kind of fault the lenient pass handles.
PAYLOADS = [
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "hi"},
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "hi"},
        "undeclared": [1, 2],
    },
    {"sessionUpdate": "from_the_future", "x": 1},
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "hi"},
        "_meta": 5,
    },
    {"sessionUpdate": "plan", "entries": [{"content": 3}]},
    {"sessionUpdate": "tool_call", "toolCallId": "t", "title": 7},
    [1, 2, 3],
]


@pytest.fixture(scope="module")
def package(make_package: GenerateFn, target: str) -> tuple[ModuleType, Path]:
    pkg = make_package(OWN_SCHEMA, "budget", target=target)
    return pkg, Path(pkg.__file__).parent


#: The transcript tools stand beside the decoder and the reducer, with a budget of their own.
TOOLS = ("_conformance.py", "_transcript.py")
TOOLS_LINES = 2100


def _runtime_files(folder: Path) -> list[Path]:
    """The copied runtime of decoding and reducing: every module whose name starts with an
    underscore, but the rendered provenance record and the transcript tools."""
    skip = ("__init__.py", "_provenance.py", *TOOLS)
    return sorted(p for p in folder.glob("_*.py") if p.name not in skip)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _defines_leaves(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.ClassDef)
        and any(isinstance(b, ast.Name) and b.id == "Leaves" for b in node.bases)
        for node in tree.body
    )


def test_the_runtime_fits_its_line_budget(package: tuple[ModuleType, Path], target: str) -> None:
    _, folder = package
    files = _runtime_files(folder)
    assert {"_read.py", "_base.py", "_runtime.py"} <= {p.name for p in files}
    total = sum(_lines(p) for p in files)
    slow = [p for p in files if p.name == "_read.py" or _defines_leaves(p)]
    assert len(slow) == 2, [p.name for p in slow]
    slow_lines = sum(_lines(p) for p in slow)
    counts = {p.name: _lines(p) for p in files}
    assert total <= TOTAL_LINES, (target, total, counts)
    assert slow_lines <= SLOW_PATH_LINES, (target, slow_lines, [p.name for p in slow])
    assert sum(_lines(folder / name) for name in TOOLS) <= TOOLS_LINES


def _imports(folder: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports, wherever in the file the import is."""
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found = [node.module] if node.module else [a.name for a in node.names]
                graph[path.stem].update(n for n in found if n in names and n != path.stem)
    graph.pop("__init__", None)  # the package's own __init__ runs first in any case
    for targets in graph.values():
        targets.discard("__init__")
    return graph


def test_the_assembled_package_has_no_import_circle(package: tuple[ModuleType, Path]) -> None:
    _, folder = package
    graph = _imports(folder)
    assert "_base" in graph["_read"] and "_state" in graph["_handlers"]
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_circle_finder_sees_a_deferred_import(tmp_path: Path) -> None:
    (tmp_path / "_a.py").write_text("from ._b import x\n")
    (tmp_path / "_b.py").write_text("def f():\n    from ._a import y\n")
    assert find_cycle(_imports(tmp_path)) is not None


def _rebinders(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Global):
            out.append(f"{path.name}:{node.lineno}: global {', '.join(node.names)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "globals"
        ):
            out.append(f"{path.name}:{node.lineno}: globals()")
    return out


def test_no_runtime_module_rebinds_a_global_in_its_code(package: tuple[ModuleType, Path]) -> None:
    _, folder = package
    files = list(folder.glob("*.py"))
    assert files
    assert [line for p in files for line in _rebinders(p)] == []


def test_the_rebinding_check_sees_a_global(tmp_path: Path) -> None:
    path = tmp_path / "_x.py"
    path.write_text("N = 0\ndef f():\n    global N\n    N += 1\n")
    assert _rebinders(path) == ["_x.py:3: global N"]


def _namespaces(pkg: ModuleType) -> dict[str, dict[str, int]]:
    prefix = pkg.__name__ + "."
    return {
        name: {key: id(value) for key, value in vars(module).items()}
        for name, module in sorted(sys.modules.items())
        if name.startswith(prefix) and module is not None
    }


def test_decoding_leaves_every_module_namespace_as_it_was(
    package: tuple[ModuleType, Path],
) -> None:
    pkg, _ = package
    pkg.decode_update(json.dumps(PAYLOADS[0]).encode())  # every lazy import done
    before = _namespaces(pkg)
    assert len(before) >= 5
    outcomes: list[Any] = []
    for _ in range(3):
        for payload in PAYLOADS:
            try:
                outcomes.append(type(pkg.decode_update(json.dumps(payload).encode())).__name__)
            except pkg.DecodeError:
                outcomes.append("DecodeError")
    assert "DecodeError" in outcomes and outcomes.count("AgentMessageChunk") == 9
    after = _namespaces(pkg)
    changed = {
        module: sorted(set(before[module].items()) ^ set(after[module].items()))
        for module in before
        if before[module] != after[module]
    }
    assert changed == {}


#: Negotiation and the version-reading module commands, in a package of several versions.
VERSIONS_LINES = 400


def _body(text: str) -> str:
    return text.split("\n", 2)[2]  # past the two header lines that name the schemas


def test_a_package_of_several_versions_carries_the_same_runtime_once(
    target: str, tmp_path: Path
) -> None:
    """Its runtime is the single package's, line for line under the header, so the budget
    above holds for it; negotiation adds `_versions.py`, with a budget of its own."""
    corpus.require()
    v1, v2 = corpus.newest(corpus.NEWEST["v1"]), corpus.newest(corpus.NEWEST["v2"])
    pair = ((1, v1), (2, v2))
    both = generate(Job(v2, tmp_path / "b", "pkg", target=target, versions=pair, formatter="none"))
    one = generate(Job(v1, tmp_path / "o", "pkg", target=target, formatter="none"))
    runtime = sorted(
        k for k in one if k.startswith("_") and k not in ("__init__.py", "_provenance.py")
    )
    assert [k for k in runtime if _body(both[k]) != _body(one[k])] == []
    assert not [k for k in both if "/" in k and k.rsplit("/", 1)[1] in runtime]
    assert len(both["_versions.py"].splitlines()) <= VERSIONS_LINES
