"""The corpus sweep as a test: every published schema revision generates, or fails cleanly.

Runs `tests.corpus_sweep` once over the revisions ``$ACP_SHARED/acp-schemas/MANIFEST.tsv``
lists (two worker processes, each revision read once for all its targets) and checks
the acceptance rules on every target: each v1 and v2 revision generates, imports, and
decodes and re-encodes its sample payloads. The default target takes every revision; the
pydantic and dataclasses targets take the oldest and the newest of each published line,
or every revision too with ``ACP_SWEEP_EVERY_TARGET=1`` (CI sets it). The code they write
differs from the default's by model library alone, and the descriptions that change most
between revisions are rendered by the templates every target shares. On the default
target the v0 revisions are swept too: at least 95% of them generate, and each other one
is refused with exit code 2 and one ``error at <file>#<pointer>: <construct>`` line. No
tracebacks, no hangs. Every expectation is read from the manifest, so a new row is swept,
and counted, with no edit here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache

import pytest

from tests import corpus, corpus_sweep

TARGETS = ("msgspec", "pydantic", "dataclasses")
#: The folders each target sweeps: the default target takes the early v0 drafts as well.
FOLDERS = {"msgspec": ("v0", "v1", "v2"), "pydantic": ("v1", "v2"), "dataclasses": ("v1", "v2")}


#: Every revision on every target, as CI runs it; by default only msgspec takes them all.
EVERY_TARGET = os.environ.get("ACP_SWEEP_EVERY_TARGET") == "1"


@cache
def _ends() -> frozenset[str]:
    """The oldest and the newest v1 and v2 revision of each published line."""
    ends = set()
    for line in corpus.NEWEST.values():
        for folder in ("v1", "v2"):
            found = sorted(
                (r.commit_date, r.file)
                for r in corpus.schemas()
                if r.at(line) and r.folder == folder
            )
            ends |= {found[0][1], found[-1][1]} if found else set()
    return frozenset(ends)


def _swept(file: str, target: str) -> bool:
    if file.split("/", 1)[0] not in FOLDERS[target]:
        return False
    return target == "msgspec" or EVERY_TARGET or file in _ends()


def _files(target: str) -> list[str]:
    return [r.file for r in corpus.schemas() if _swept(r.file, target)]


@pytest.fixture(scope="module")
def every_outcome() -> list[corpus_sweep.Outcome]:
    """One sweep of the whole manifest: each revision read once, for every target it needs."""
    corpus.require()
    return corpus_sweep.sweep(
        [r.file for r in corpus.schemas()],
        workers=2,
        targets=lambda file: tuple(t for t in TARGETS if _swept(file, t)),
    )


@pytest.fixture(params=TARGETS)
def swept(
    request: pytest.FixtureRequest, every_outcome: list[corpus_sweep.Outcome]
) -> tuple[str, list[corpus_sweep.Outcome]]:
    target: str = request.param
    return target, [o for o in every_outcome if o.target == target]


def test_acceptance_rules_hold(swept: tuple[str, list[corpus_sweep.Outcome]]) -> None:
    _, outcomes = swept
    problems = corpus_sweep.problems(outcomes)
    assert not problems, "\n".join(problems)


def test_every_manifest_revision_is_swept(swept: tuple[str, list[corpus_sweep.Outcome]]) -> None:
    target, outcomes = swept
    assert [o.file for o in outcomes] == _files(target)
    table = corpus_sweep.table(outcomes)
    for folder in ("v1", "v2"):
        expected = sum(1 for f in _files(target) if f.startswith(folder + "/"))
        assert expected > 0
        if target == "msgspec":  # the default target reads every revision there is
            assert expected == sum(1 for r in corpus.schemas() if r.folder == folder)
        assert table[folder]["ok"] == expected, (target, folder, dict(table[folder]))
    if "v0" in FOLDERS[target]:
        assert sum(table["v0"].values()) == sum(1 for r in corpus.schemas() if r.folder == "v0")


def test_the_newest_revisions_generate(swept: tuple[str, list[corpus_sweep.Outcome]]) -> None:
    target, outcomes = swept
    by_file = {o.file: o for o in outcomes}
    for original in corpus.NEWEST.values():
        newest = corpus.newest(original).relative_to(corpus.SCHEMAS).as_posix()
        assert by_file[newest].status == "ok", (target, by_file[newest])


def test_every_v1_and_v2_package_has_a_working_session_state(
    swept: tuple[str, list[corpus_sweep.Outcome]],
) -> None:
    """With no flags, the built-in overlays give every v1 and v2 package a reducer that
    keeps a message chunk."""
    _, outcomes = swept
    checked = [o for o in outcomes if o.folder in ("v1", "v2")]
    assert checked
    assert [(o.file, o.state) for o in checked if o.state != "ok"] == []


def test_no_crash_and_no_hang(swept: tuple[str, list[corpus_sweep.Outcome]]) -> None:
    _, outcomes = swept
    bad = [f"{o.file}: {o.status}: {o.detail}" for o in outcomes if o.status in ("crash", "hang")]
    assert bad == []


def test_generated_revisions_decoded_samples(
    swept: tuple[str, list[corpus_sweep.Outcome]],
) -> None:
    _, outcomes = swept
    for outcome in outcomes:
        if outcome.status == "ok":
            assert outcome.samples >= 10, outcome


def test_refusals_name_the_construct_and_pointer(
    swept: tuple[str, list[corpus_sweep.Outcome]],
) -> None:
    _, outcomes = swept
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
