"""What the CLI says matches what happens: ``check`` with files that are not ours, diffs
``git apply`` takes from the project root, mistyped commands, no configuration, -q help."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen.cli import main

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "session_update.schema.json"
TABLE = '[tool.acp-codegen]\nschema = "s.json"\nout = "src/app/acp"\npackage = "app.acp"\n'


def invoke(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def project(root: Path) -> Path:
    shutil.copy(SCHEMA, root / "s.json")
    (root / "pyproject.toml").write_text(TABLE, encoding="utf-8")
    return root


def test_check_names_files_not_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    assert invoke(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    (root / "src/app/acp/notes.txt").write_text("mine\n", encoding="utf-8")
    result = invoke(root, "check", monkeypatch=monkeypatch)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "src/app/acp: these files are not ours: notes.txt "
        "(acp-codegen generate --force replaces them)"
    )
    refused = invoke(root, "generate", monkeypatch=monkeypatch)
    assert refused.exit_code == 2 and "notes.txt" in refused.stderr
    assert invoke(root, "generate", "--force", monkeypatch=monkeypatch).exit_code == 0
    assert invoke(root, "check", monkeypatch=monkeypatch).exit_code == 0


def test_check_diff_applies_with_git_from_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    assert invoke(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    models = root / "src/app/acp/models.py"
    fresh = models.read_text(encoding="utf-8")
    models.write_text(fresh.replace("class ", "class  ", 1), encoding="utf-8")
    (root / "src/app/acp/__init__.py").unlink()
    # from a folder below the root too: labels depend on the project, not on the cwd
    result = invoke(root / "src", "check", "--config", "../pyproject.toml", monkeypatch=monkeypatch)
    assert result.exit_code == 1
    assert "--- a/src/app/acp/models.py\n+++ b/src/app/acp/models.py\n" in result.stdout
    patch = tmp_path / "fix.diff"
    patch.write_text(result.stdout, encoding="utf-8")
    subprocess.run(["git", "apply", str(patch)], cwd=root, check=True, capture_output=True)
    assert models.read_text(encoding="utf-8") == fresh
    assert invoke(root, "check", monkeypatch=monkeypatch).exit_code == 0


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("gen", "generate"), ("chek", "check"), ("inpsect", "inspect"), ("dif", "diff")],
)
def test_mistyped_command_gets_the_nearest(typed: str, meant: str) -> None:
    result = CliRunner().invoke(main, [typed])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: No such command {typed!r}. Did you mean {meant!r}?"
    )


def test_unrelated_command_gets_no_guess() -> None:
    result = CliRunner().invoke(main, ["zzz"])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        2,
        "Error: No such command 'zzz'.",
    )


def test_no_pyproject_anywhere_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not any((f / "pyproject.toml").exists() for f in (tmp_path, *tmp_path.parents))
    result = invoke(tmp_path, "generate", monkeypatch=monkeypatch)
    assert (result.exit_code, result.stderr) == (
        2,
        (
            f"error: no pyproject.toml found from {tmp_path} upward, and no --schema given "
            "(see: acp-codegen generate --help)\n"
        ),
    )


def test_pyproject_without_table_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    result = invoke(tmp_path / "sub", "check", monkeypatch=monkeypatch)
    assert result.stderr == (
        f"error: no --schema given and no [tool.acp-codegen] table in {tmp_path / 'pyproject.toml'}"
        " (see: acp-codegen generate --help)\n"
    )


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("diff", "Print only the one-line summary (nothing with --changelog-file)."),
        ("inspect", "Print nothing but errors (a bad schema still exits 2)."),
        ("check", "Print only errors and stale notices."),
    ],
)
def test_quiet_help_says_what_it_keeps(command: str, says: str) -> None:
    shown = CliRunner().invoke(main, [command, "--help"], terminal_width=200).output
    text = " ".join(shown.split())
    assert f"-q, --quiet {says}" in text
    assert command == "check" or "stale" not in text.split("-q, --quiet")[1].split("-v,")[0]


def test_diff_quiet_prints_one_summary_line() -> None:
    fixture = REPO / "tests" / "diff_fixtures" / "enum_values"
    result = CliRunner().invoke(
        main, ["diff", "-q", str(fixture / "old.json"), str(fixture / "new.json")]
    )
    assert result.exit_code == 0 and result.stdout.count("\n") == 1 and result.stdout.strip()
