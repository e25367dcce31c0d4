"""The transcript tools read a 200 MB recording in 512 MB of address space, on every target.

The checker and the replay run in a child process under ``RLIMIT_AS``; each must finish
and report what it reports on a three-turn file of the same pattern, scaled by the number
of turns. The recording is written once, by bench's `write_recording`.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench.recordings import write_recording
from tests.conftest import OWN_SCHEMA, GenerateFn

LIMIT = 512 * 2**20
SIZE = 200_000_000


@pytest.fixture(scope="module")
def package(make_package: GenerateFn, target: str) -> ModuleType:
    return make_package(OWN_SCHEMA, "long_recordings", target=target)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    folder = tmp_path_factory.mktemp("recordings")
    big, small = folder / "big.jsonl", folder / "small.jsonl"
    turns = write_recording(big, SIZE)[0]
    small_turns = write_recording(small, 1)[0]  # one whole turn
    return {"big": (big, turns), "small": (small, small_turns)}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _run(
    package: ModuleType, tool: str, path: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", f"{package.__name__}.{tool}", *flags, str(path)],
        capture_output=True,
        text=True,
        cwd=Path(package.__file__).parent.parent,
        preexec_fn=_limited,
        timeout=600,
        check=False,
    )


def _findings(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    assert done.returncode in (0, 1), done.stderr
    return [(v["rule"], v["level"]) for v in json.loads(done.stdout)["violations"]]


def test_the_checker_reads_200_mb_in_512_mb(
    package: ModuleType, recordings: dict[str, tuple[Path, int]]
) -> None:
    (big, turns), (small, one) = recordings["big"], recordings["small"]
    assert big.stat().st_size >= SIZE and one == 1
    per_turn = _findings(_run(package, "conformance", small, "--format", "json"))
    assert per_turn == [("stop.custom", "MUST")]
    found = _findings(_run(package, "conformance", big, "--format", "json"))
    assert Counter(found) == Counter({rule: n * turns for rule, n in Counter(per_turn).items()})


def test_the_replay_reads_200_mb_in_512_mb(
    package: ModuleType, recordings: dict[str, tuple[Path, int]]
) -> None:
    (big, turns), (small, _) = recordings["big"], recordings["small"]

    def state(path: Path) -> dict[str, Any]:
        done = _run(package, "state", path, "--json")
        assert done.returncode == 0, done.stderr
        skipped = 2 * (turns if path == big else 1)  # each turn's prompt and its answer
        assert done.stderr.endswith(f"skipped {skipped} message(s) that are not updates\n")
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    one, many = state(small), state(big)
    assert (many["state"], many["stop_reason"]) == (one["state"], one["stop_reason"])
    assert Counter(e["kind"] for e in many["timeline"]) == Counter(
        {kind: n * turns for kind, n in Counter(e["kind"] for e in one["timeline"]).items()}
    )
