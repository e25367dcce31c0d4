"""Without the corpus, every test that needs it skips with the same, actionable reason."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.userproject import REPO

WORDING = "set ACP_SHARED to the folder that contains acp-schemas/"


def skip_reasons(shared: Path, *tests: str) -> list[str]:
    env = {**os.environ, "ACP_SHARED": str(shared)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *tests],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", proc.stdout, re.MULTILINE)


def test_every_corpus_skip_names_acp_shared(tmp_path: Path) -> None:
    reasons = skip_reasons(
        tmp_path / "nowhere",
        "tests/test_diff_corpus.py",
        "tests/test_corpus.py",
        "tests/test_behaviour_core.py",
        "tests/test_session_state.py",
    )
    assert reasons
    assert all(WORDING in reason for reason in reasons), reasons


def test_pointing_at_acp_schemas_itself_is_named(tmp_path: Path) -> None:
    schemas = tmp_path / "acp-schemas"
    schemas.mkdir()
    (schemas / "MANIFEST.tsv").write_text("file\toriginal_path\tcommit_date\talso_at\n")
    reasons = skip_reasons(schemas, "tests/test_corpus.py")
    assert reasons
    assert all(WORDING in r and f"use {tmp_path}" in r for r in reasons), reasons
