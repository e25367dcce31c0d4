"""Golden files: small schemas under tests/golden/<case>/ and their expected output trees.

A mismatch prints a unified diff and the command that refreshes the expected tree:
``ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "schema.json").is_file())
UPDATE = "ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py"


def golden_job(case: str) -> Job:
    return Job(GOLDEN / case / "schema.json", GOLDEN / case / "expected" / "pkg", "pkg",
               command=f"acp-codegen generate --schema tests/golden/{case}/schema.json "
                       f"--out tests/golden/{case}/expected/pkg --package pkg")


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str) -> None:
    job = golden_job(case)
    files = generate(job)
    if os.environ.get("ACP_UPDATE_GOLDEN"):
        emit.write_tree(job.out, files)
    diff = emit.diff_tree(job.out, files)
    assert not diff, f"golden output for {case!r} changed:\n{diff}\nUpdate with: {UPDATE}"


def test_every_case_has_an_expected_tree() -> None:
    assert len(CASES) >= 3
    for case in CASES:
        assert (GOLDEN / case / "expected" / "pkg" / "models.py").is_file(), case
