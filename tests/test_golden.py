"""Golden files: small schemas under tests/golden/<case>/ and their expected output trees.

Expected trees hold the generated modules only: the runtime files copied into every
package are checked once against their source (tests/test_runtime_contract.py), so a
runtime edit does not rewrite every tree. A mismatch prints a unified diff and the
command that refreshes the expected tree:
``ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_codegen import emit, ondisk
from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "schema.json").is_file())
UPDATE = "ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py"


def expected_dir(target: str) -> str:
    """``expected`` for the default msgspec target, ``expected_<target>`` for the others."""
    return "expected" if target == "msgspec" else f"expected_{target}"


def golden_job(case: str, target: str = "msgspec") -> Job:
    """The job of a case; ``closed_*`` cases keep the schema's own closed unions and enums."""
    where = expected_dir(target)
    return Job(
        GOLDEN / case / "schema.json",
        GOLDEN / case / where / "pkg",
        "pkg",
        target=target,
        closed_all=case.startswith("closed"),
    )


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str, target: str) -> None:
    job = golden_job(case, target)
    copied = TARGETS[target].runtime_files(with_state=True)
    files = {name: text for name, text in generate(job).items() if name not in copied}
    if os.environ.get("ACP_UPDATE_GOLDEN"):
        emit.write_tree(job.out, files)
    diff = ondisk.diff_tree(job.out, files)
    assert not diff, f"golden output for {case!r} changed:\n{diff}\nUpdate with: {UPDATE}"


def test_every_case_has_an_expected_tree(target: str) -> None:
    assert len(CASES) >= 3
    for case in CASES:
        assert (GOLDEN / case / expected_dir(target) / "pkg" / "models.py").is_file(), case
