"""The benchmark suite runs end to end in its one-round smoke mode.

Only that it works is checked, never a timing: the figures of one round on a
slice of the streams mean nothing. The peers come with the ``test`` extra (and the
``bench`` extra), so CI runs it; where one is missing the test skips, saying why.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import SECTIONS
from tests import corpus

PEERS = {
    "acp": "agent-client-protocol",
    "datamodel_code_generator": "datamodel-code-generator",
    "pydantic": "pydantic",
}


def test_smoke_mode_runs_every_figure(tmp_path: Path) -> None:
    corpus.require()
    missing = [dist for module, dist in PEERS.items() if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"bench peers not installed ({', '.join(missing)}): pip install -e '.[bench]'")
    table = tmp_path / "figures.md"
    result = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--markdown", str(table)],
        cwd=corpus.REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    for number in SECTIONS:
        heading = rf"\n== {number}[a-z]?\. "  # figure 8 has parts 8a and 8b
        assert re.search(heading, result.stdout), f"figure {number} missing:\n{result.stdout}"
    page = table.read_text(encoding="utf-8")
    assert "- date: " in page and "cpu count" in page, page[:500]
    rows = page.split("| --- | --- | --- | ---: | --- | --- |\n", 1)[1].splitlines()
    figures = {line.split("|")[1].strip().split(" ")[0] for line in rows}
    assert figures >= set(SECTIONS), figures
    for line in rows:
        figure_result, rounds = line.split("|")[3:5]
        if not figure_result.strip():  # a note
            continue
        # Every figure says how many rounds it took, and no time or ratio is negative
        # (a ratio of two measured times never is; a difference of times can be).
        assert rounds.strip().isdigit() and int(rounds) > 0, line
        assert not re.search(r"(?<![\w.])-\d", figure_result), line
    assert "pending" not in result.stdout, "a figure did not run"
