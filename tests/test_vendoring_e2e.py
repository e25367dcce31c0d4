"""End to end, as a user vendors bindings: two pyproject jobs, generate, import, bump, check.

The vendored package is imported in a fresh virtual environment that holds only
msgspec, so anything it still needed from acp-codegen (or jinja2, click, ruff)
would fail the import.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.userproject import (
    NOTIFICATION,
    bump_schema,
    codegen,
    fresh_venv,
    make_project,
    msgspec_pin,
    run,
)

JOBS = {
    "session": {
        "schema": "schemas/acp.json",
        "out": "src/my_app/_vendor/acp",
        "package": "my_app._vendor.acp",
    },
    "full": {
        "schema": "schemas/acp_full.json",
        "out": "src/my_app/_vendor/acp_full",
        "package": "my_app._vendor.acp_full",
        "target": "msgspec",
        "roots": ["PromptResponse"],
        "all": True,
        "formatter": "ruff",
    },
}

DECODE = """
import importlib.util, sys
for absent in ("acp_codegen", "jinja2", "click", "ruff"):
    assert importlib.util.find_spec(absent) is None, absent + " is importable"
from my_app._vendor import acp, acp_full
params = acp.decode_notification(sys.argv[1].encode())
update = params.update
assert isinstance(update, acp.AgentMessageChunk), type(update)
assert update.content.text == "Hello"
unknown = acp.decode_update(b'{"sessionUpdate": "_vendor/new_kind", "x": 1}')
assert isinstance(unknown, acp.UnknownSessionUpdate) and unknown.tag == "_vendor/new_kind"
assert acp.encode(unknown) == b'{"sessionUpdate":"_vendor/new_kind","x":1}'
full = acp_full.decode_notification(sys.argv[1].encode())
print(type(full.update).__module__, params.session_id)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("user") / "my-app", JOBS)
    result = codegen("generate", cwd=root)
    assert [re.sub(r"\d+", "N", line) for line in result.stdout.splitlines()] == [
        "wrote N files to src/my_app/_vendor/acp",
        "wrote N files to src/my_app/_vendor/acp_full",
    ]
    # Two jobs: one progress line each on stderr (not a terminal, so not rewritten in place).
    assert result.stderr.splitlines() == [
        "[1/2] session: schemas/acp.json",
        "[2/2] full: schemas/acp_full.json",
    ]
    return root


@pytest.fixture(scope="module")
def msgspec_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("venv") / "env", [msgspec_pin()])


def test_vendored_tree(project: Path) -> None:
    vendored = project / "src" / "my_app" / "_vendor" / "acp"
    names = {p.name for p in vendored.iterdir()}
    assert names >= {".acp-codegen", "__init__.py", "_runtime.py", "models.py", "py.typed"}
    for path in vendored.glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("from ") and not line.startswith("from __future__"):
                module = line.split()[1]
                top = module.split(".")[0]
                assert (
                    module.startswith(".")
                    or module == "msgspec"
                    or (top in sys.stdlib_module_names)
                ), f"{path.name}: {line}"
            assert "acp_codegen" not in line or line.startswith("#"), f"{path.name}: {line}"
    header = (vendored / "models.py").read_text(encoding="utf-8").splitlines()[1]
    assert header == (
        "# Regenerate with: acp-codegen generate --schema schemas/acp.json "
        "--out src/my_app/_vendor/acp --package my_app._vendor.acp"
    )


def test_imports_with_only_msgspec(project: Path, msgspec_only: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    proc = run([str(msgspec_only), "-c", DECODE, NOTIFICATION], project, env=env)
    assert proc.stdout.split() == ["my_app._vendor.acp_full.models", "sess-1"]


def test_ruff_and_mypy_strict_in_the_user_project(project: Path) -> None:
    ruff = run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "src"], project)
    assert "All checks passed" in ruff.stdout
    mypy = run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(project / ".mypy"),
            "-p",
            "my_app",
        ],
        project,
        env={**os.environ, "MYPYPATH": str(project / "src")},
    )
    assert mypy.stdout.startswith("Success: no issues found"), mypy.stdout


def test_schema_bump_fails_check_then_regenerate_passes(project: Path) -> None:
    assert codegen("check", cwd=project).returncode == 0
    bump_schema(project / "schemas" / "acp.json", text="A notice, in the new revision.")
    stale = codegen("check", cwd=project, check=False)
    assert stale.returncode == 1, stale.stderr
    assert '+    """A notice, in the new revision."""' in stale.stdout
    assert "--- a/src/my_app/_vendor/acp/models.py" in stale.stdout  # from the project root
    assert "acp_full/" not in stale.stdout
    assert stale.stderr.splitlines()[-1] == (
        "src/my_app/_vendor/acp is out of date. Run: acp-codegen generate"
    )
    quiet = codegen("check", "--quiet", cwd=project, check=False)
    assert (quiet.returncode, quiet.stdout) == (1, "")
    codegen("generate", "--job", "session", "--quiet", cwd=project)
    fixed = codegen("check", cwd=project)
    assert fixed.stdout.splitlines() == [
        "src/my_app/_vendor/acp is up to date",
        "src/my_app/_vendor/acp_full is up to date",
    ]


def test_flags_override_the_configured_job(project: Path) -> None:
    unformatted = codegen("check", "--job", "full", "--formatter", "none", cwd=project, check=False)
    assert unformatted.returncode == 1
    assert "Run: acp-codegen generate --schema schemas/acp_full.json" in unformatted.stderr
    assert unformatted.stderr.rstrip().endswith("--all --formatter none")


def test_check_from_a_subdirectory(project: Path) -> None:
    proc = codegen("check", "--quiet", cwd=project / "src" / "my_app")
    assert (proc.stdout, proc.stderr) == ("", "")


def test_real_process_bad_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.acp-codegen.jobs.a]\nschema = "s.json"\noutdir = "x"\n', encoding="utf-8"
    )
    proc = codegen("generate", cwd=tmp_path, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: pyproject.toml: [tool.acp-codegen.jobs.a] unknown key 'outdir'; did you mean 'out'?"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]
