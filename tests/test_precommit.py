"""The pre-commit hooks in ``.pre-commit-hooks.yaml``, run by pre-commit in a user project.

pre-commit installs hooks from a git repository at a fixed revision. The test
snapshots this checkout's working tree (what git does not ignore) into
a scratch repository, points a temporary project's ``.pre-commit-config.yaml`` at
it, and lets pre-commit build the hook environment exactly as a user's would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.userproject import (
    REPO,
    bump_schema,
    codegen,
    git_commit_all,
    git_init,
    make_project,
    run,
    snapshot_repo,
)

JOB = {
    "acp": {
        "schema": "schemas/acp.json",
        "out": "src/my_app/_vendor/acp",
        "package": "my_app._vendor.acp",
    }
}


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    # No PYTHONPATH: the hook must run from the environment pre-commit built for it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return run([sys.executable, "-m", "pre_commit", *args], cwd, env=env, check=False)


def test_manifest_is_valid(tmp_path: Path) -> None:
    proc = pre_commit(
        "validate-manifest", str(REPO / ".pre-commit-hooks.yaml"), cwd=REPO, home=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def hooked_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("precommit")
    (base / "hooks").mkdir()
    rev = snapshot_repo(base / "hooks")
    root = make_project(base / "my-app", JOB)
    codegen("generate", "--quiet", cwd=root)
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {base / 'hooks'}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        "      - id: acp-codegen-check\n"
        "      - id: acp-codegen-generate\n"
        "        stages: [manual]\n",
        encoding="utf-8",
    )
    git_init(root)
    git_commit_all(root, "vendored bindings")
    return root, base / "cache"


def test_check_hook_passes_then_fails_on_a_schema_bump(hooked_project: tuple[Path, Path]) -> None:
    root, home = hooked_project
    fresh = pre_commit("run", "--all-files", cwd=root, home=home)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert fresh.stdout.splitlines()[-1].startswith("acp-codegen check")
    assert fresh.stdout.rstrip().endswith("Passed")

    bump_schema(root / "schemas" / "acp.json", text="Changed upstream.")
    stale = pre_commit("run", "--all-files", cwd=root, home=home)
    assert stale.returncode == 1
    assert "Failed" in stale.stdout
    assert '+    """Changed upstream."""' in stale.stdout
    assert "src/my_app/_vendor/acp is out of date. Run: acp-codegen generate" in stale.stdout

    fix = pre_commit(
        "run", "--hook-stage", "manual", "acp-codegen-generate", "--all-files", cwd=root, home=home
    )
    assert fix.returncode == 1, fix.stdout  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in fix.stdout
    again = pre_commit("run", "--all-files", cwd=root, home=home)
    assert again.returncode == 0, again.stdout
    assert run(["git", "status", "--porcelain"], root).stdout.count("_vendor/acp/") >= 1
