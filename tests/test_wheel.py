"""A wheel built from this repository carries everything generation needs.

Package data that is missing from the wheel still works in an editable install, so
this builds the wheel the way a user's pip would (`pip wheel .`, build isolation, only
the package index), unpacks it with ``pip install --target`` and generates every
registered target from that installed copy, in a fresh interpreter that cannot see
the repository. The result must equal what the source tree generates.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "session_update.schema.json"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder holding only acp_codegen, installed from a freshly built wheel."""
    work = tmp_path_factory.mktemp("wheel")
    # Build from a clean copy: setuptools writes build/ and *.egg-info next to the sources,
    # and a stale build/ in the checkout could hide a file the wheel would miss.
    source = work / "source"
    skip = shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests"
    )
    shutil.copytree(REPO, source, ignore=skip)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", str(source), "--no-deps", "-w", str(work)], check=True)
    wheels = list(work.glob("acp_codegen-*.whl"))
    assert len(wheels) == 1, wheels
    site = work / "site"
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(site), str(wheels[0])], check=True
    )
    return site


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_installed_wheel_generates_every_target(
    installed: Path, target: str, tmp_path: Path
) -> None:
    out = tmp_path / "pkg"
    script = (
        "import sys, acp_codegen\n"
        f"assert acp_codegen.__file__.startswith({str(installed)!r}), acp_codegen.__file__\n"
        "from acp_codegen.cli import main\n"
        "sys.argv = ['acp-codegen'] + sys.argv[1:]\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    args = ["generate", "--schema", str(SCHEMA), "--out", str(out), "--package", "pkg"]
    args += ["--root", "PromptResponse", "--target", target]
    # -I would also drop PYTHONPATH; -P keeps the repository (the cwd) off sys.path.
    run = subprocess.run(
        [sys.executable, "-P", "-c", script, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    # Outside any project, header paths start where the command ran: tmp_path.
    job = Job(SCHEMA, out, "pkg", ("PromptResponse",), target=target, root=tmp_path)
    expected = generate(job)
    for name, text in expected.items():
        assert (out / name).read_text(encoding="utf-8") == text, name
