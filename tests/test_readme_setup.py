"""README's two set-up lines each work on their own, in a fresh shell.

Each line runs in its own ``bash -c`` with a clean environment (no virtual environment
active, no PYTHONPATH), in a scratch copy of this checkout, so the second line cannot
lean on the first one's shell. The copy's test suite is replaced by one small test, so
the second line's ``python -m pytest`` does not start this whole suite again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.test_docs import readme_sections
from tests.userproject import copy_checkout


def clean_env(home: Path) -> dict[str, str]:
    """What a new login shell has: system PATH with the base interpreter, pip's settings."""
    base_bin = Path(sys.base_prefix) / "bin"
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join((str(base_bin), "/usr/local/bin", "/usr/bin", "/bin")),
        "LANG": "C.UTF-8",
    }
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    return env


def test_each_setup_line_runs_in_a_fresh_shell(tmp_path: Path) -> None:
    head, _ = readme_sections()
    lines = [ln for ln in head[0].body.strip().splitlines() if ln.strip()]
    assert len(lines) == 2, lines
    checkout = copy_checkout(tmp_path / "acp-codegen")
    for test in (checkout / "tests").glob("test_*.py"):
        test.unlink()
    (checkout / "tests" / "test_setup_smoke.py").write_text(
        "import acp_codegen\n\n\ndef test_installed():\n"
        "    assert acp_codegen.__file__.startswith(__file__.rsplit('/tests/', 1)[0])\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    home.mkdir()
    for index, line in enumerate(lines, 1):
        proc = subprocess.run(
            ["bash", "-c", line],
            cwd=checkout,
            env=clean_env(home),
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )
        assert proc.returncode == 0, f"line {index}: {line}\n{proc.stdout}\n{proc.stderr}"
        if index == 1:
            assert (checkout / ".venv" / "bin" / "acp-codegen").is_file()
    # The second line installed into .venv (it activated it itself), not the base Python.
    venv_pytest = checkout / ".venv" / "bin" / "pytest"
    assert venv_pytest.is_file(), "line 2 did not install the test extras into .venv"
    assert "1 passed" in proc.stdout
