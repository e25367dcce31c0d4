"""The test suite's own promises: one line about a missing corpus, a run without
pytest-xdist, and a home-folder check that sees only what the suite itself does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests import corpus
from tests.conftest import HomeWatch

#: A corpus module and one that needs no corpus: quick, and both kinds of test.
SAMPLE = ["tests/test_diff_golden.py", "tests/test_naming.py"]


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=corpus.REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_without_the_corpus_the_skips_are_one_line(tmp_path: Path) -> None:
    run = _pytest(*SAMPLE, ACP_SHARED=str(tmp_path / "nowhere"))
    assert run.returncode == 0, run.stdout[-3000:]
    lines = run.stdout.splitlines()
    about = [line for line in lines if "need the schema corpus" in line]
    assert len(about) == 1, run.stdout[-3000:]
    assert str(tmp_path / "nowhere" / "acp-schemas") in about[0]
    assert '"Tests and the schema corpus"' in about[0]
    assert not [line for line in lines if line.startswith("SKIPPED")], run.stdout[-3000:]
    assert " passed, " in lines[-1] and " skipped" in lines[-1]


def test_the_suite_runs_without_xdist() -> None:
    run = _pytest("-p", "no:xdist", "tests/test_naming.py")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "passed" in run.stdout.splitlines()[-1]


def test_the_home_watch_sees_the_suites_writes_and_children(tmp_path: Path) -> None:
    real, allowed = tmp_path / "home", tmp_path / "home" / "allowed"
    allowed.mkdir(parents=True)
    watch = HomeWatch(real, {allowed})
    watch.on = True
    writes = os.O_WRONLY | os.O_CREAT
    watch("open", (str(real / "new.txt"), "w", writes))
    watch("open", (str(real / "read.txt"), "r", os.O_RDONLY))  # reading is fine
    watch("open", (str(allowed / "x"), "w", writes))  # so is the allowed folder
    watch("open", (str(tmp_path / "elsewhere"), "w", writes))
    watch("os.mkdir", (str(real / ".cache"), 0o777, None))
    watch("os.replace", (str(tmp_path / "a"), str(real / "b"), None, None))
    watch("shutil.copyfile", (str(real / "python3"), str(tmp_path / "venv" / "python3")))
    watch("shutil.copyfile", (str(tmp_path / "x"), str(real / "x")))
    watch("subprocess.Popen", ("git", ["git"], None, {"HOME": str(real)}))
    watch("subprocess.Popen", ("git", ["git"], None, {"HOME": str(tmp_path)}))
    assert watch.found == [
        f"open {real / 'new.txt'}",
        f"os.mkdir {real / '.cache'}",
        f"os.replace {real / 'b'}",
        f"shutil.copyfile {real / 'x'}",
        "child with the real HOME: ['git']",
    ]
    watch.on = False
    watch("open", (str(real / "later"), "w", writes))
    assert len(watch.found) == 5


def test_the_home_watch_is_told_by_the_interpreter(tmp_path: Path) -> None:
    """Installed as an audit hook, it hears a real `open` and `mkdir`."""
    real = tmp_path / "home"
    real.mkdir()
    watch = HomeWatch(real, set())
    sys.addaudithook(watch)
    watch.on = True
    try:
        (real / "file").write_text("x", encoding="utf-8")
        (real / "folder").mkdir()
    finally:
        watch.on = False
    assert watch.found == [f"open {real / 'file'}", f"os.mkdir {real / 'folder'}"]
