"""Static checks on generated code: ``ruff check`` and ``mypy --strict`` pass on the packages
generated (with ``--all``) from the four newest published schemas, on the other targets'
packages from the newest, and on the package of the newest v1 and v2 schemas together.

Both tools run as their own processes with no project configuration (``--isolated``
for ruff, a scratch directory and cache for mypy), so the result is what a user
gets who vendors one of these packages into their own strict project.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate
from tests import corpus

KEYS = sorted(corpus.NEWEST)


@pytest.fixture(scope="module")
def packages(make_package: Callable[..., ModuleType], generated_root: Path) -> list[str]:
    corpus.require()
    names = []
    for key in KEYS:
        name = "pub_" + key.replace("-", "_")
        names.append(make_package(corpus.newest(corpus.NEWEST[key]), name, take_all=True).__name__)
    # The other targets, on the newest schema: the stdlib target's models are dataclasses
    # made by a `dataclass_transform` base, pydantic's are its own models.
    newest = corpus.newest(corpus.NEWEST[KEYS[-1]])
    for target in ("dataclasses", "pydantic"):
        pkg = make_package(newest, f"pub_static_{target}", take_all=True, target=target)
        names.append(pkg.__name__)
    # One package of the newest v1 and v2 schemas: subpackages importing a shared runtime.
    pair = ((1, corpus.newest(corpus.NEWEST["v1"])), (2, corpus.newest(corpus.NEWEST["v2"])))
    out = generated_root / "pub_two_versions"
    emit.write_tree(out, generate(Job(pair[1][1], out, out.name, versions=pair)))
    names.append(out.name)
    return names


def test_ruff_check_passes(packages: list[str], generated_root: Path) -> None:
    result = subprocess.run(
        # py310: the oldest Python generated packages support
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--target-version",
            "py310",
            *packages,
        ],
        cwd=generated_root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_passes(packages: list[str], generated_root: Path, tmp_path: Path) -> None:
    args = [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
    args += ["--cache-dir", str(tmp_path / "mypy-cache"), "--python-version", "3.10"]
    for name in packages:
        args += ["-p", name]
    result = subprocess.run(
        args, cwd=generated_root, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout
