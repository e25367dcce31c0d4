"""The corpus sweep as a test: every published schema revision generates, or fails cleanly.

Runs `tests.corpus_sweep` once over all revisions in ``$ACP_SHARED/acp-schemas``
(two worker processes) and checks the acceptance rules: every v1 and v2
revision generates, imports, and decodes and re-encodes its sample payloads; at
least 95% of v0 revisions do too, and each other one is refused with exit code 2
and one ``error at <file>#<pointer>: <construct>`` line; no tracebacks, no hangs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import corpus, corpus_sweep


@pytest.fixture(scope="module")
def outcomes() -> list[corpus_sweep.Outcome]:
    corpus.require()
    return corpus_sweep.sweep(workers=2)


def test_acceptance_rules_hold(outcomes: list[corpus_sweep.Outcome]) -> None:
    problems = corpus_sweep.problems(outcomes)
    assert not problems, "\n".join(problems)


def test_every_published_revision_is_swept(outcomes: list[corpus_sweep.Outcome]) -> None:
    assert [o.file for o in outcomes] == [r.file for r in corpus.schemas()]
    table = corpus_sweep.table(outcomes)
    assert table["v1"]["ok"] + table["v2"]["ok"] == 138
    assert sum(table["v0"].values()) == 154


def test_no_crash_and_no_hang(outcomes: list[corpus_sweep.Outcome]) -> None:
    bad = [f"{o.file}: {o.status}: {o.detail}" for o in outcomes if o.status in ("crash", "hang")]
    assert bad == []


def test_generated_revisions_decoded_samples(outcomes: list[corpus_sweep.Outcome]) -> None:
    for outcome in outcomes:
        if outcome.status == "ok":
            assert outcome.samples >= 10, outcome


def test_refusals_name_the_construct_and_pointer(outcomes: list[corpus_sweep.Outcome]) -> None:
    refused = [o for o in outcomes if o.status == "clean"]
    for outcome in refused:
        match = corpus_sweep.CLEAN_ERROR.match(outcome.detail)
        assert match is not None and match.group(1).startswith("/$defs/"), outcome.detail
        assert outcome.folder == "v0"


def test_script_prints_the_table() -> None:
    corpus.require()
    newest = corpus.newest(corpus.NEWEST["v2-unstable"]).relative_to(corpus.SCHEMAS).as_posix()
    result = subprocess.run(
        [sys.executable, "-m", "tests.corpus_sweep", "--workers", "1", "--file", newest],
        capture_output=True,
        text=True,
        cwd=corpus.REPO,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "| v2 | 1 | 1 | 0 | 0 | 0 |" in result.stdout
    assert "| folder | revisions | ok | clean error | crash | hang |" in result.stdout
