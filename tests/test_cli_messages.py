"""One test per everyday CLI message: -q/-v everywhere, help pages that list choices,
defaults and exit codes, errors that say a value was derived, ``check`` on a folder that
is missing or was not generated, and the black formatter when black is absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen import installs
from acp_codegen.cli import main
from acp_codegen.targets import TARGETS
from tests.userproject import REPO, codegen_env

SCHEMA = REPO / "schema" / "session_update.schema.json"
FIXTURE = REPO / "tests" / "diff_fixtures" / "enum_values"


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def command_line(name: str, out: Path) -> list[str]:
    return {
        "generate": ["generate", "--schema", str(SCHEMA), "--out", str(out), "--package", "p"],
        "check": ["check", "--schema", str(SCHEMA), "--out", str(out), "--package", "p"],
        "inspect": ["inspect", str(SCHEMA)],
        "diff": ["diff", str(FIXTURE / "old.json"), str(FIXTURE / "new.json")],
    }[name]


@pytest.mark.parametrize("name", ["generate", "check", "inspect", "diff"])
@pytest.mark.parametrize("flag", ["-q", "--quiet", "-v", "--verbose"])
@pytest.mark.parametrize("before", [True, False])
def test_quiet_and_verbose_on_every_subcommand(
    name: str, flag: str, before: bool, tmp_path: Path
) -> None:
    if name == "check":
        assert run(*command_line("generate", tmp_path / "p")).exit_code == 0
    args = command_line(name, tmp_path / "p")
    result = run(*([flag, *args] if before else [*args, flag]))
    assert result.exit_code == 0, result.output
    if flag in ("-q", "--quiet"):
        quiet_out = {"generate": "", "check": "", "inspect": "", "diff": "2 changes: "}
        assert result.stdout.startswith(quiet_out[name]) and len(result.stdout.splitlines()) <= 1
    else:
        assert result.stderr, f"{name} {flag} printed no details"


def test_quiet_and_verbose_together_is_one_line() -> None:
    result = run("diff", "-q", "-v", str(FIXTURE / "old.json"), str(FIXTURE / "new.json"))
    assert result.exit_code == 2
    assert result.stderr == "error: --quiet and --verbose cannot be used together\n"


def test_check_help_says_out_is_compared_not_written() -> None:
    check = run("check", "--help").stdout
    generate = run("generate", "--help").stdout
    assert "Package directory to compare with." in check
    assert "to write" not in check
    assert "Package directory to write." in generate


@pytest.mark.parametrize("name", ["generate", "check"])
def test_help_lists_choices_and_defaults(name: str) -> None:
    text = " ".join(run(name, "--help").stdout.split())
    assert f"--target [{'|'.join(TARGETS)}]" in text and "[default: msgspec]" in text
    assert "--formatter [ruff|black|none]" in text and "[default: ruff]" in text
    assert "--line-length INTEGER RANGE" in text and "[default: 100]" in text
    assert (
        "[default: the job's out key, else generated/<last part of --package>, "
        "generated/acp without one]"
    ) in text
    assert "[default: the job's package key, else the last part of --out]" in text


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        ((), "Exit codes: 0 success; 1 stale (check), or a change found (diff --fail-on); 2"),
        (("generate",), "Exit codes: 0 written; 2 bad input"),
        (("check",), "Exit codes: 0 up to date; 1 stale or not generated yet"),
        (("inspect",), "Exit codes: 0 summarised; 2 bad input"),
        (("diff",), "Exit codes: 0 compared (whatever was found); 1 --fail-on found"),
    ],
)
def test_every_help_page_lists_exit_codes(args: tuple[str, ...], codes: str) -> None:
    text = " ".join(run(*args, "--help").stdout.split())
    assert codes in text


def test_diff_help_lists_severity_choices() -> None:
    text = " ".join(run("diff", "--help").stdout.split())
    assert "--severity [breaking|additive|cosmetic]" in text
    assert "--format [text|markdown|json]" in text and "[default: text]" in text


@pytest.mark.parametrize(
    ("out", "shown"),
    [
        (".", "package name '', taken from --out ."),
        ("my-pkg", "package name 'my-pkg', taken from --out my-pkg"),
    ],
)
@pytest.mark.parametrize("name", ["generate", "check"])
def test_error_names_a_package_taken_from_out(
    name: str, out: str, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run(name, "--schema", str(SCHEMA), "--out", out)
    assert result.exit_code == 2
    assert result.stderr == f"error: {shown}, is not a dotted Python name; pass --package NAME\n"
    assert "--package '" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_config_error_names_a_package_taken_from_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.acp-codegen]\nschema = "{SCHEMA}"\nout = "vendor/my-acp"\n', encoding="utf-8"
    )
    result = run("generate")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: pyproject.toml: [tool.acp-codegen] has no key 'package', and the name taken "
        "from key 'out' ('vendor/my-acp' -> 'my-acp') is not a dotted Python package name; "
        "add a package key\n"
    )


def test_check_on_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "absent"
    result = run("check", "--schema", str(SCHEMA), "--out", str(out), "--package", "p")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"{out} does not exist yet. Run: acp-codegen generate ")
    # ... and the advice works.
    advice = result.stderr.split("Run: acp-codegen ", 1)[1].split()
    assert run(*advice).exit_code == 0
    assert run("check", "--schema", str(SCHEMA), "--out", str(out), "--package", "p").exit_code == 0


def test_check_on_a_folder_not_made_by_acp_codegen_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "code.py").write_text("x = 1\n", encoding="utf-8")
    result = run("check", "--schema", str(SCHEMA), "--out", str(out), "--package", "p")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {out} was not made by acp-codegen (it has files but no .acp-codegen); "
        "check compares only generated packages: point --out at one\n"
    )
    assert "acp-codegen generate" not in result.stderr
    assert (out / "code.py").read_text(encoding="utf-8") == "x = 1\n"


BLOCK_BLACK = "import sys; sys.modules['black'] = None; from acp_codegen.cli import main; main()"


def test_black_without_black_installed_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            BLOCK_BLACK,
            "generate",
            "--schema",
            str(SCHEMA),
            "--out",
            str(tmp_path / "p"),
            "--package",
            "p",
            "--formatter",
            "black",
        ],
        env=codegen_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    hint = installs.install_hint(installs.requirement("black", "black"))
    assert proc.stderr == (
        f"error: --formatter black needs black, which is not installed; run: {hint} "
        "(or choose --formatter ruff)\n"
    )
    assert not (tmp_path / "p").exists()


def test_inspect_quiet_prints_nothing_but_still_refuses_a_bad_schema(tmp_path: Path) -> None:
    assert run("inspect", "-q", str(SCHEMA)).stdout == ""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"$defs": []}), encoding="utf-8")
    result = run("inspect", "-q", str(bad))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("flag", "value", "code"),
    [
        ("--schema", "schema\x1b[2J.json", "U+001B"),
        ("--out", "out\npkg", "U+000A"),
        ("--overlay", "overlay\x07.json", "U+0007"),
        ("--templates", "templates\x9b", "U+009B"),
    ],
)
@pytest.mark.parametrize("name", ["generate", "check"])
def test_a_path_flag_with_a_control_character_is_one_line(
    name: str, flag: str, value: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = {"--schema": str(SCHEMA), "--out": "pkg", flag: value}
    result = run(name, *(part for pair in args.items() for part in pair), "--package", "p")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {flag} holds the control character {code}, which no path acp-codegen "
        "reads or writes may hold\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def _schema_with(tmp_path: Path, **props: object) -> Path:
    doc = json.loads(SCHEMA.read_text(encoding="utf-8"))
    doc["$defs"]["Extra"] = {"type": "object", "properties": props, "maxProperties": 4}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("target", list(TARGETS))
def test_allowing_an_unenforced_keyword_warns_on_every_generate(
    target: str, tmp_path: Path
) -> None:
    """Without the option the schema is refused; with it each generate warns (one line
    per use), _provenance.py records what is not enforced, and check agrees."""
    schema = _schema_with(tmp_path, code={"type": "string", "format": "x-code"})
    out = tmp_path / "pkg"
    args = ["--schema", str(schema), "--out", str(out), "--package", "p", "--all"]
    args += ["--target", target]
    refused = run("generate", *args)
    assert refused.exit_code == 2 and refused.stderr == (
        f"error at {schema}#/$defs/Extra/maxProperties: keyword 'maxProperties', which no "
        "target enforces; pass --allow-unenforced maxProperties to generate without it\n"
    )
    assert not out.exists()
    allow = ["--allow-unenforced", "maxProperties", "--allow-unenforced", "format"]
    warnings = [
        f"warning: {schema}#/$defs/Extra/maxProperties: maxProperties is not enforced by the "
        "generated code (--allow-unenforced)",
        f"warning: {schema}#/$defs/Extra/properties/code/format: format is not enforced by the "
        "generated code (--allow-unenforced)",
    ]
    for _ in range(2):
        result = run("generate", *args, *allow)
        assert result.exit_code == 0, result.output
        assert [line for line in result.stderr.splitlines() if "warning" in line] == warnings
    record = (out / "_provenance.py").read_text(encoding="utf-8")
    assert "UNENFORCED = (" in record and '"/$defs/Extra/maxProperties"' in record
    assert "--allow-unenforced maxProperties --allow-unenforced format" in record
    assert run("check", *args, *allow).exit_code == 0
    assert run("check", *args, "--allow-unenforced", "maxProperties").exit_code == 2


def test_allow_unenforced_names_only_what_may_be_allowed() -> None:
    result = run("generate", "--schema", str(SCHEMA), "--allow-unenforced", "pattern")
    assert result.exit_code == 2
    assert "'pattern' is not one of 'maxProperties', 'minProperties'" in result.stderr
