"""Atomic output: a failed run changes nothing on disk, concurrent runs never leave a mix.

Each failure case starts from a package an earlier run wrote, makes the next
run fail at one stage (a real bad schema where one exists, an injected fault
otherwise), and demands exit code 2, one error line, and the output's parent
directory byte for byte as before: no half-written package, no staging or
trash directory left behind. The concurrency cases race writers on one
directory, through `emit.write_tree` (both the atomic-exchange path and the
rename fallback) and through the real CLI.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen import emit, format, ondisk, render
from acp_codegen.cli import main
from acp_codegen.errors import SchemaError
from acp_codegen.load import READ_LIMITS
from tests.hostile_cases import base, snapshot, with_defs

Fault = Callable[[pytest.MonkeyPatch, Path], Path]


def _schema(tmp: Path, doc: dict[str, Any]) -> Path:
    path = tmp / "next.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _changed() -> dict[str, Any]:
    """A valid schema whose package differs from the one already on disk."""
    return with_defs(Extra={"type": "object", "properties": {"x": {"type": "integer"}}})


def _bad_json(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    path = tmp / "next.json"
    path.write_bytes(b'{"$defs": ')
    return path


def _bad_ref(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    return _schema(tmp, with_defs(A={"$ref": "#/$defs/Missing"}))


def _alias_cycle(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    return _schema(tmp, with_defs(A={"$ref": "#/$defs/B"}, B={"$ref": "#/$defs/A"}))


def _render_fails(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise SchemaError("injected render failure")

    mp.setattr(render, "render", broken)
    return _schema(tmp, _changed())


def _formatter_fails(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    mp.setattr(format, "ruff_binary", lambda: shutil.which("false") or "/bin/false")
    return _schema(tmp, _changed())


def _disk_full_mid_write(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    calls = {"n": 0}
    real = os.fsync

    def fsync(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    mp.setattr(emit.os, "fsync", fsync)
    return _schema(tmp, _changed())


def _exchange_fails(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    def exchange(staging: Path, out: Path) -> bool:
        raise OSError(errno.EIO, "Input/output error", str(out))

    mp.setattr(emit, "_exchange", exchange)
    return _schema(tmp, _changed())


def _fallback_rename_fails(mp: pytest.MonkeyPatch, tmp: Path) -> Path:
    """Without an exchange the old tree is moved aside; the next rename fails."""
    real = os.rename

    def rename(src: Any, dst: Any) -> None:
        if ".new-" in os.fspath(src):
            raise OSError(errno.EIO, "Input/output error", os.fspath(dst))
        real(src, dst)

    mp.setattr(emit, "_exchange", lambda staging, out: None)
    mp.setattr(emit.os, "rename", rename)
    return _schema(tmp, _changed())


FAULTS: dict[str, Fault] = {
    "load": _bad_json,
    "build": _bad_ref,
    "lower": _alias_cycle,
    "render": _render_fails,
    "format": _formatter_fails,
    "emit-write": _disk_full_mid_write,
    "emit-exchange": _exchange_fails,
    "emit-fallback-rename": _fallback_rename_fails,
}


def _args(schema: Path, out: Path) -> list[str]:
    return ["generate", "--schema", str(schema), "--out", str(out), "--package", "pkg", "--all"]


@pytest.fixture
def existing(tmp_path: Path) -> Path:
    """An output directory holding a package from an earlier, successful run."""
    schema = tmp_path / "first.json"
    schema.write_text(json.dumps(base()), encoding="utf-8")
    out = tmp_path / "out" / "pkg"
    result = CliRunner().invoke(main, _args(schema, out))
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("stage", FAULTS)
def test_failed_run_leaves_output_as_it_was(
    stage: str, existing: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = FAULTS[stage](monkeypatch, tmp_path)
    before = snapshot(existing.parent)
    result = CliRunner().invoke(main, _args(schema, existing))
    monkeypatch.undo()
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert snapshot(existing.parent) == before


def test_a_successful_run_does_replace_the_output(existing: Path, tmp_path: Path) -> None:
    """The control for the table above: without a fault the same run changes the tree."""
    before = snapshot(existing.parent)
    result = CliRunner().invoke(main, _args(_schema(tmp_path, _changed()), existing))
    assert result.exit_code == 0, result.output
    after = snapshot(existing.parent)
    assert after != before and set(after) >= set(before)
    assert "class Extra(" in (existing / "models.py").read_text(encoding="utf-8")


def test_interrupt_while_writing_leaves_output_as_it_was(
    existing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    before = snapshot(existing.parent)
    monkeypatch.setattr(emit.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        emit.write_tree(existing, {"models.py": "x = 1\n"})
    monkeypatch.undo()
    assert snapshot(existing.parent) == before


# -- concurrent writers ---------------------------------------------------------------------


def _tree(writer: int) -> dict[str, str]:
    """A tree whose every file names its writer; writers also differ in their file sets."""
    files = {f"m{i}.py": f"WRITER = {writer}\n" * 40 for i in range(12 + writer)}
    files["sub/deep.py"] = f"WRITER = {writer}\n"
    return files


def _write_many(out: str, writer: int, rounds: int, exchange: bool) -> list[str]:
    if not exchange:
        emit._exchange = lambda staging, out: None  # type: ignore[assignment]
    errors = []
    for _ in range(rounds):
        try:
            emit.write_tree(Path(out), _tree(writer))
        except Exception as exc:  # reported, and the test fails on any
            errors.append(f"{type(exc).__name__}: {exc}")
    return errors


@pytest.mark.parametrize("exchange", [True, False], ids=["atomic-exchange", "rename-fallback"])
def test_concurrent_writers_never_leave_a_mix(exchange: bool, tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    writers = 4
    with multiprocessing.get_context("spawn").Pool(writers) as pool:
        jobs = [(str(out), w, 25, exchange) for w in range(writers)]
        errors = [e for found in pool.starmap(_write_many, jobs) for e in found]
    assert errors == []
    final = ondisk.read_tree(out)
    winner = int(final["sub/deep.py"].split()[-1])
    assert final == _tree(winner)
    assert [p.name for p in tmp_path.iterdir()] == ["pkg"], "staging or trash left behind"


def test_concurrent_cli_runs_leave_one_whole_package(tmp_path: Path) -> None:
    schemas = []
    for index, doc in enumerate([base(), _changed()]):
        (tmp_path / f"s{index}").mkdir()
        schemas.append(_schema(tmp_path / f"s{index}", doc))
    out = tmp_path / "race" / "pkg"
    expected = []
    for schema in schemas:  # what each run writes when it runs alone
        assert CliRunner().invoke(main, _args(schema, out)).exit_code == 0
        expected.append(ondisk.read_tree(out))
    assert expected[0] != expected[1]
    for _ in range(3):
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "acp_codegen", *_args(schema, out)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for schema in schemas
        ]
        for run in runs:
            _, stderr = run.communicate(timeout=120)
            assert run.returncode == 0, stderr
        assert ondisk.read_tree(out) in expected
    assert [p.name for p in out.parent.iterdir()] == ["pkg"]


# -- issue 14: symlinked output, killed runs, planted symlinks, user files -------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".new-" in p.name or ".old-" in p.name)


def test_out_given_as_a_symlink_is_written_through(existing: Path, tmp_path: Path) -> None:
    """The tree replaces the link's target; the link stays a link and nothing is left beside."""
    links = tmp_path / "links"
    links.mkdir()
    link = links / "pkg"
    link.symlink_to(existing, target_is_directory=True)
    before = ondisk.read_tree(existing)
    for _ in range(2):
        result = CliRunner().invoke(main, _args(_schema(tmp_path, _changed()), link))
        assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == existing.resolve()
    assert [p.name for p in links.iterdir()] == ["pkg"]
    assert [p.name for p in existing.parent.iterdir()] == ["pkg"]
    after = ondisk.read_tree(existing)
    assert after != before and "class Extra(" in after["models.py"]
    assert ondisk.read_tree(link) == after
    check = CliRunner().invoke(main, ["check", *_args(_schema(tmp_path, _changed()), link)[1:]])
    assert check.exit_code == 0, check.output


def test_out_given_as_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real" / "pkg"
    link = tmp_path / "pkg"
    link.symlink_to(target, target_is_directory=True)
    result = CliRunner().invoke(main, _args(_schema(tmp_path, base()), link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and (target / "models.py").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["next.json", "pkg", "real"]


KILLED_RUNS = 50


def test_runs_killed_at_random_points_leave_nothing_after_the_next_run(tmp_path: Path) -> None:
    """SIGKILL 50 real CLI runs at random points (half of them once their staging folder
    exists); whatever they leave, the next run that completes removes."""
    import random
    import signal
    import time

    rng = random.Random(14)
    schemas = []
    for index, doc in enumerate([base(), _changed()]):
        (tmp_path / f"s{index}").mkdir()
        schemas.append(_schema(tmp_path / f"s{index}", doc))
    out = tmp_path / "race" / "pkg"
    command = [sys.executable, "-m", "acp_codegen"]
    started = time.perf_counter()
    first = subprocess.run([*command, *_args(schemas[0], out)], capture_output=True, check=False)
    assert first.returncode == 0, first.stderr
    duration = time.perf_counter() - started
    left_behind = 0
    for run in range(KILLED_RUNS):
        proc = subprocess.Popen(
            [*command, *_args(schemas[run % 2], out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if run % 2:
            time.sleep(rng.uniform(0, duration * 1.2))
        else:  # wait for the staging folder, then kill somewhere inside the write
            deadline = time.perf_counter() + 30
            while not _leftovers(out.parent) and proc.poll() is None:
                if time.perf_counter() > deadline:
                    break
            time.sleep(rng.uniform(0, 0.005))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        left_behind += bool(_leftovers(out.parent))
    assert left_behind, "no kill landed while a staging folder existed; the test proved nothing"
    final = subprocess.run([*command, *_args(schemas[1], out)], capture_output=True, check=False)
    assert final.returncode == 0, final.stderr
    assert _leftovers(out.parent) == []
    assert [p.name for p in out.parent.iterdir()] == ["pkg"]
    assert "class Extra(" in (out / "models.py").read_text(encoding="utf-8")


def test_a_live_writers_staging_folder_is_not_removed(tmp_path: Path) -> None:
    """Only folders whose process is gone count as stale."""
    out = tmp_path / "pkg"
    live = tmp_path / f".pkg.new-{os.getpid()}-abc"
    live.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".pkg.old-{dead.pid}-xyz"
    (stale / "tree").mkdir(parents=True)
    emit.write_tree(out, {"a.py": "A = 1\n"})
    assert live.is_dir() and not stale.exists()


@pytest.mark.parametrize("planted", ["models.py", "extra.py", "sub/leak.txt", "environ"])
def test_check_never_reads_through_a_planted_symlink(
    planted: str, existing: Path, tmp_path: Path
) -> None:
    secret = "ACP-SECRET-" + "7" * 20
    outside = tmp_path / "outside.txt"
    outside.write_text(f"token={secret}\n", encoding="utf-8")
    target = Path("/proc/self/environ") if planted == "environ" else outside
    link = existing / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    first = _schema(tmp_path, base())
    result = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "check", *_args(first, existing)[1:]],
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_TEST_SECRET": secret},
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert secret not in result.stdout + result.stderr
    assert "+++ /dev/null" in result.stdout or planted == "models.py"
    assert "not a regular file" in result.stdout
    assert link.is_symlink() and outside.read_text(encoding="utf-8").endswith(f"{secret}\n")


def test_check_does_not_block_on_a_planted_fifo(existing: Path, tmp_path: Path) -> None:
    os.mkfifo(existing / "pipe.py")
    result = CliRunner().invoke(main, ["check", *_args(_schema(tmp_path, base()), existing)[1:]])
    assert result.exit_code == 1 and "pipe.py" in result.output


@pytest.mark.parametrize("kind", ["huge", "dev-zero"])
def test_check_reads_no_file_past_the_cap(kind: str, existing: Path, tmp_path: Path) -> None:
    """A file in the package over the read limit (or a link to a device) is stale, shown
    with a placeholder: check neither reads it whole nor prints it."""
    models = existing / "models.py"
    models.unlink()
    if kind == "huge":
        with open(models, "wb") as handle:
            handle.truncate(READ_LIMITS["generated file"] + 1)
    else:
        models.symlink_to("/dev/zero")
    result = CliRunner().invoke(main, ["check", *_args(_schema(tmp_path, base()), existing)[1:]])
    assert result.exit_code == 1, result.output
    placeholder = "over the 16,777,216-byte limit" if kind == "huge" else "not a regular file"
    assert placeholder in result.stdout and len(result.stdout) < 200_000


@pytest.mark.parametrize("force", [False, True], ids=["refused", "forced"])
def test_user_files_inside_out(force: bool, existing: Path, tmp_path: Path) -> None:
    (existing / "notes.md").write_text("mine\n", encoding="utf-8")
    (existing / "extra").mkdir()
    (existing / "extra" / "helper.py").write_text("X = 1\n", encoding="utf-8")
    (existing / "link.py").symlink_to(tmp_path)
    (existing / "__pycache__").mkdir()
    (existing / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"\0")
    before = snapshot(existing.parent)
    args = _args(_schema(tmp_path, _changed()), existing)
    result = CliRunner().invoke(main, [*args, "--force"] if force else args)
    if not force:
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert lines == [
            f"error: cannot write output: {existing} holds files acp-codegen did not write "
            "(extra/helper.py, link.py, notes.md); move them out, or pass --force to delete them"
        ]
        assert snapshot(existing.parent) == before
        return
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in existing.iterdir()) == sorted(
        [".acp-codegen", *(f for f in ondisk.read_tree(existing))]
    )
    assert not (existing / "notes.md").exists() and not (existing / "extra").exists()
    assert tmp_path.is_dir(), "a symlink was deleted, never what it points at"


def test_files_an_earlier_run_wrote_are_removed_without_force(tmp_path: Path) -> None:
    """A file the previous schema generated and the new one does not is no user file."""
    out = tmp_path / "pkg"
    emit.write_tree(out, {"a.py": "A = 1\n", "old.py": "OLD = 1\n"})
    emit.write_tree(out, {"a.py": "A = 2\n"})
    assert ondisk.read_tree(out) == {"a.py": "A = 2\n"}


def test_a_marker_without_a_file_list_vouches_for_generated_headers(tmp_path: Path) -> None:
    """Packages written before the marker listed files: header-bearing files are ours."""
    out = tmp_path / "pkg"
    out.mkdir()
    (out / emit.MARKER).write_text(emit.MARKER_LINE + "\n", encoding="utf-8")
    (out / "state.py").write_text("# Generated by acp-codegen 0.1.0; do not edit.\n")
    (out / "py.typed").write_text("")
    (out / "mine.py").write_text("X = 1\n")
    assert ondisk.strays(out, {"a.py": ""}) == ["mine.py"]


def test_reading_without_fwalk_still_skips_symlinks(
    existing: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Platforms without `os.fwalk` walk by path and still never read through a link."""
    outside = tmp_path / "outside.txt"
    outside.write_text("SECRET\n", encoding="utf-8")
    (existing / "leak.py").symlink_to(outside)
    with_fwalk = ondisk.read_tree(existing)
    monkeypatch.delattr(os, "fwalk")
    assert ondisk.read_tree(existing) == with_fwalk
    assert "SECRET" not in "".join(with_fwalk.values()) and "leak.py" in with_fwalk


def test_a_tree_moved_away_mid_read_reads_as_absent(
    existing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A concurrent run can move `out` aside after the reader saw a directory and before
    `os.fwalk` opened it (seen once in CI as a FileNotFoundError escaping a run): the
    tree then reads as absent, as it would a moment later, and the run goes on."""
    real = os.fwalk

    def moved_first(top: Any, *args: Any, **kwargs: Any) -> Any:
        os.rename(top, f"{top}.aside")
        try:
            yield from real(top, *args, **kwargs)
        finally:
            os.rename(f"{top}.aside", top)

    monkeypatch.setattr(emit.os, "fwalk", moved_first)
    assert ondisk.read_tree(existing) == {}
    assert ondisk.strays(existing, {}) == []
    emit.write_tree(existing, {"models.py": "x = 1\n"})
    monkeypatch.undo()
    assert ondisk.read_tree(existing) == {"models.py": "x = 1\n"}


# -- the modes and links of every file the CLI writes ----------------------------------------


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


class _Umask:
    """Run with `mask` as the process umask, then put the old one back."""

    def __init__(self, mask: int) -> None:
        self.mask = mask

    def __enter__(self) -> None:
        self.old = os.umask(self.mask)

    def __exit__(self, *exc: object) -> None:
        os.umask(self.old)


def _changelog_run(tmp_path: Path, changelog: Path) -> Any:
    """``acp-codegen diff`` of two revisions that differ, into `changelog`."""
    old = _schema(tmp_path, base())
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_changed()), encoding="utf-8")
    args = ["diff", str(old), str(new), "--all", "--changelog-file", str(changelog)]
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o755])
def test_changelog_keeps_its_mode(mode: int, tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n", encoding="utf-8")
    changelog.chmod(mode)
    with _Umask(0o077):  # the umask is for new files: an existing one keeps what it had
        result = _changelog_run(tmp_path, changelog)
    assert result.exit_code == 0, result.output
    assert "## [Unreleased]" in changelog.read_text(encoding="utf-8")
    assert _mode(changelog) == mode


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_a_new_changelog_takes_the_umask(mask: int, tmp_path: Path) -> None:
    changelog = tmp_path / "docs" / "CHANGELOG.md"
    with _Umask(mask):
        result = _changelog_run(tmp_path, changelog)
    assert result.exit_code == 0, result.output
    assert _mode(changelog) == 0o666 & ~mask
    assert sorted(p.name for p in changelog.parent.iterdir()) == ["CHANGELOG.md"]


@pytest.mark.parametrize("dangling", [False, True], ids=["link", "dangling-link"])
def test_a_changelog_symlink_is_written_through(dangling: bool, tmp_path: Path) -> None:
    real = tmp_path / "real" / "CHANGES.md"
    real.parent.mkdir()
    if not dangling:
        real.write_text("# Changes\n", encoding="utf-8")
        real.chmod(0o640)
    link = tmp_path / "CHANGELOG.md"
    link.symlink_to(real)
    result = _changelog_run(tmp_path, link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert "## [Unreleased]" in real.read_text(encoding="utf-8")
    assert _mode(real) == (0o666 & ~_current_umask() if dangling else 0o640)
    assert sorted(p.name for p in real.parent.iterdir()) == ["CHANGES.md"]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_changelog_that_is_not_a_regular_file_is_left_alone(tmp_path: Path) -> None:
    """A link to a device (here a private copy of /dev/null) reads as empty; the entry is
    not written through it, and the device stays a device."""
    import stat

    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs privileges")
    link = tmp_path / "CHANGELOG.md"
    link.symlink_to(device)
    result = _changelog_run(tmp_path, link)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: cannot write output: {device} exists and is not a regular file\n"
    )
    assert stat.S_ISCHR(device.stat().st_mode) and link.is_symlink()


def test_generated_files_keep_their_modes(existing: Path, tmp_path: Path) -> None:
    """Files the next run rewrites keep the mode they had, and so does the folder; a file
    the run adds takes the umask's mode, like the staging folder it was written in."""
    (existing / "models.py").chmod(0o600)
    (existing / "codec.py").chmod(0o444)
    (existing / ondisk.MARKER).chmod(0o640)
    existing.chmod(0o750)
    with _Umask(0o027):
        result = CliRunner().invoke(main, _args(_schema(tmp_path, _changed()), existing))
    assert result.exit_code == 0, result.output
    assert "class Extra(" in (existing / "models.py").read_text(encoding="utf-8")
    assert _mode(existing / "models.py") == 0o600
    assert _mode(existing / "codec.py") == 0o444
    assert _mode(existing / ondisk.MARKER) == 0o640
    assert _mode(existing) == 0o750
    assert _mode(existing / "dispatch.py") == 0o644  # written by the first run, umask 022


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_a_new_package_takes_the_umask(mask: int, tmp_path: Path) -> None:
    out = tmp_path / "out" / "pkg"
    with _Umask(mask):
        result = CliRunner().invoke(main, _args(_schema(tmp_path, base()), out))
    assert result.exit_code == 0, result.output
    assert _mode(out) == 0o777 & ~mask
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files and {_mode(p) for p in files} == {0o666 & ~mask}


def test_a_file_in_the_old_tree_that_is_a_link_lends_no_mode(
    existing: Path, tmp_path: Path
) -> None:
    """The mode kept is the file's own, never that of whatever a planted link names."""
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    outside.chmod(0o777)
    (existing / "models.py").unlink()
    (existing / "models.py").symlink_to(outside)
    result = CliRunner().invoke(main, [*_args(_schema(tmp_path, _changed()), existing), "--force"])
    assert result.exit_code == 0, result.output
    models = existing / "models.py"
    assert not models.is_symlink() and _mode(models) == 0o666 & ~_current_umask()
    assert outside.read_text(encoding="utf-8") == "x = 1\n" and _mode(outside) == 0o777
