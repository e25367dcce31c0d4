"""Project configuration and everyday CLI behaviour.

Bad ``[tool.acp-codegen]`` tables give one line naming the key and exit 2 without
touching disk; flags override configured keys; ``--quiet``/``--verbose``,
colour only on a terminal (and never with ``NO_COLOR``), the progress line,
``--version`` and examples in every command's ``--help``.
"""

from __future__ import annotations

import json
import os
import pty
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from acp_codegen import __version__, config
from acp_codegen.cli import main
from tests import corpus
from tests.userproject import REPO, codegen_env, toml_value

SMALL = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "N": {
            "type": "object",
            "x-method": "session/update",
            "x-side": "client",
            "properties": {"update": {"$ref": "#/$defs/U"}},
            "required": ["update"],
        },
        "U": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "a"},
                        "x": {"type": "integer"},
                    },
                    "required": ["kind"],
                }
            ]
        },
    },
}


def project(root: Path, table: str) -> Path:
    (root / "s.json").write_text(json.dumps(SMALL), encoding="utf-8")
    (root / "pyproject.toml").write_text(table, encoding="utf-8")
    return root


def jobs_table(**jobs: dict[str, Any]) -> str:
    lines = []
    for name, keys in jobs.items():
        lines.append(f"[tool.acp-codegen.jobs.{name}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


TWO_JOBS = jobs_table(
    one={"schema": "s.json", "out": "out/one"}, two={"schema": "s.json", "out": "out/pkg_two"}
)


def invoke(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> click.testing.Result:
    monkeypatch.chdir(root)
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


BAD_CONFIGS = [
    ("toml", "[tool.acp-codegen\nschema = 1", "pyproject.toml: invalid TOML: "),
    (
        "not-table",
        '[tool]\n"acp-codegen" = 3',
        "pyproject.toml: [tool.acp-codegen] must be a table",
    ),
    ("empty", "[tool.acp-codegen]", "[tool.acp-codegen] is empty; give schema and out, or jobs"),
    (
        "unknown-key",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nformater = "ruff"',
        "pyproject.toml: [tool.acp-codegen] unknown key 'formater'; did you mean 'formatter'?",
    ),
    (
        "unknown-key-no-hint",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nzzz = 1',
        "unknown key 'zzz' (known: schema, out, package, target, formatter, templates, "
        "versions, line_length, roots, all, overlays, builtin_overlay, closed, "
        "keep_unknown_fields, allow_unenforced, source, changelog)",
    ),
    (
        "missing-out",
        '[tool.acp-codegen.jobs.a]\nschema = "s.json"',
        "[tool.acp-codegen.jobs.a] is missing the required key 'out'",
    ),
    (
        "schema-not-string",
        "[tool.acp-codegen.jobs.a]\nschema = 3\nout = 'o'",
        "[tool.acp-codegen.jobs.a] key 'schema' must be a non-empty string",
    ),
    (
        "roots-not-list",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nroots = "A"',
        "key 'roots' must be a list of definition names",
    ),
    (
        "overlays-not-list",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\noverlays = "x.json"',
        "key 'overlays' must be a list of file paths",
    ),
    (
        "all-not-bool",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nall = "yes"',
        "key 'all' must be true or false",
    ),
    (
        "formatter",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nformatter = "yapf"',
        "key 'formatter' must be one of ruff, black, none, not 'yapf'",
    ),
    (
        "package",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\npackage = "my-app.acp"',
        "key 'package' is not a dotted Python package name: 'my-app.acp'",
    ),
    (
        "mixed",
        '[tool.acp-codegen]\nschema = "s.json"\n[tool.acp-codegen.jobs.a]\nschema = "s.json"',
        "[tool.acp-codegen] key 'schema' cannot sit beside 'jobs'",
    ),
    ("jobs-empty", "[tool.acp-codegen.jobs]", "key 'jobs' must hold one or more named tables"),
    (
        "job-not-table",
        "[tool.acp-codegen]\njobs = {a = 1}",
        "[tool.acp-codegen.jobs.a] must be a table of job keys",
    ),
    (
        "target",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\ntarget = "go"',
        "unknown target 'go'",
    ),
]
_NO_PATH = "which no path acp-codegen reads or writes may hold"
BAD_CONFIGS.append(
    (
        "allow-unenforced-pattern",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\nallow_unenforced = ["pattern"]',
        "[tool.acp-codegen] key 'allow_unenforced' must be a list of keywords (maxProperties, "
        "minProperties, uniqueItems, dependentRequired, format, multipleOf, required, false)",
    )
)
#: Paths holding control characters, and jobs whose folders meet: refused at load.
BAD_CONFIGS += [
    (
        "schema-with-a-nul",
        '[tool.acp-codegen]\nschema = "s\\u0000.json"\nout = "o"',
        f"pyproject.toml: [tool.acp-codegen] key 'schema' holds the control character U+0000, "
        f"{_NO_PATH}",
    ),
    (
        "out-with-an-escape",
        '[tool.acp-codegen.jobs.a]\nschema = "s.json"\nout = "o\\u001b[2J"',
        f"[tool.acp-codegen.jobs.a] key 'out' holds the control character U+001B, {_NO_PATH}",
    ),
    (
        "overlay-with-a-nul",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\noverlays = ["a.json", "b\\u0000"]',
        f"[tool.acp-codegen] key 'overlays' entry 1 holds the control character U+0000, {_NO_PATH}",
    ),
    (
        "templates-with-a-newline",
        '[tool.acp-codegen]\nschema = "s.json"\nout = "o"\ntemplates = "t\\n"',
        f"[tool.acp-codegen] key 'templates' holds the control character U+000A, {_NO_PATH}",
    ),
    (
        "two-jobs-one-out",
        jobs_table(a={"schema": "s.json", "out": "o"}, b={"schema": "s.json", "out": "o"}),
        "pyproject.toml: [tool.acp-codegen.jobs.a] and [tool.acp-codegen.jobs.b] have the "
        "same out folder (o); give each job a folder of its own",
    ),
    (
        "two-jobs-one-out-spelled-twice",
        jobs_table(a={"schema": "s.json", "out": "o"}, b={"schema": "s.json", "out": "x/../o/"}),
        "[tool.acp-codegen.jobs.a] and [tool.acp-codegen.jobs.b] have the same out folder (o)",
    ),
    (
        "out-inside-another-jobs-out",
        jobs_table(a={"schema": "s.json", "out": "o/inner"}, b={"schema": "s.json", "out": "o"}),
        "pyproject.toml: the out folder of [tool.acp-codegen.jobs.a] (o/inner) lies inside "
        "that of [tool.acp-codegen.jobs.b] (o); give each job a folder of its own",
    ),
]


@pytest.mark.parametrize("command", ["generate", "check"])
@pytest.mark.parametrize(("case", "table", "message"), BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    case: str,
    table: str,
    message: str,
) -> None:
    root = project(tmp_path, table)
    before = sorted(p.name for p in root.iterdir())
    result = invoke(root, command, monkeypatch=monkeypatch)
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert sorted(p.name for p in root.iterdir()) == before


def test_inline_and_named_jobs(tmp_path: Path) -> None:
    inline = project(tmp_path, '[tool.acp-codegen]\nschema = "s.json"\nout = "src/app/acp"\n')
    loaded = config.load(cwd=inline)
    assert loaded is not None
    [named] = loaded.jobs
    assert (named.name, named.job.package, named.job.out) == ("default", "acp", Path("src/app/acp"))
    assert (named.job.target, named.job.formatter, named.job.command) == (
        "msgspec",
        "ruff",
        "acp-codegen generate",
    )
    project(tmp_path, TWO_JOBS)
    (tmp_path / "deeper").mkdir()
    loaded = config.load(cwd=tmp_path / "deeper")
    assert loaded is not None
    assert [(j.name, j.job.schema, j.job.package) for j in loaded.jobs] == [
        ("one", Path("../s.json"), "one"),
        ("two", Path("../s.json"), "pkg_two"),
    ]


def test_no_config_is_none_and_flags_make_the_job(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert config.load(cwd=tmp_path) is None
    [named] = config.select(None, (), config.Overrides(schema=Path("s.json"), package="a.b"))
    assert (named.job.out, named.job.package) == (Path("generated/b"), "a.b")


def test_generate_all_then_select_and_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, TWO_JOBS)
    result = invoke(root, "generate", monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and (root / "out/one/models.py").is_file()
    assert (root / "out/pkg_two/py.typed").is_file()
    assert invoke(root, "check", "-q", monkeypatch=monkeypatch).output == ""
    # --out would land both jobs in one place: refused, naming the jobs.
    both = invoke(root, "generate", "--out", "elsewhere", monkeypatch=monkeypatch)
    assert both.exit_code == 2
    assert both.output.strip() == (
        "error: --out would apply to 2 jobs (one, two); pick one with --job NAME"
    )
    unknown = invoke(root, "check", "--job", "three", monkeypatch=monkeypatch)
    assert (
        unknown.output.strip() == "error: --job 'three' is not in pyproject.toml (jobs: one, two)"
    )
    moved = invoke(root, "generate", "--job", "two", "--out", "alt/acp", monkeypatch=monkeypatch)
    assert moved.exit_code == 0, moved.output
    header = (root / "alt/acp/models.py").read_text().splitlines()[1]
    assert (
        header
        == "# Regenerate with: acp-codegen generate --schema s.json --out alt/acp --package acp"
    )
    assert not (root / "elsewhere").exists()


def test_no_config_and_no_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    result = invoke(tmp_path, "generate", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert result.output.startswith("error: no --schema given and no [tool.acp-codegen] table")
    explicit = invoke(tmp_path, "check", "--config", "pyproject.toml", monkeypatch=monkeypatch)
    assert explicit.output.strip() == "error: pyproject.toml: no [tool.acp-codegen] table"
    missing = invoke(tmp_path, "check", "--config", "nope.toml", monkeypatch=monkeypatch)
    assert missing.output.strip() == "error: config file nope.toml does not exist"


def test_quiet_verbose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, TWO_JOBS)
    quiet = invoke(root, "generate", "--quiet", monkeypatch=monkeypatch)
    assert (quiet.exit_code, quiet.output) == (0, "")
    assert invoke(root, "-q", "check", monkeypatch=monkeypatch).output == ""
    verbose = invoke(root, "check", "-v", monkeypatch=monkeypatch)
    assert verbose.exit_code == 0
    details = [line for line in verbose.output.splitlines() if "files," in line]
    assert len(details) == 2 and details[0].startswith("one: s.json -> out/one (package one")
    both = invoke(root, "check", "-q", "-v", monkeypatch=monkeypatch)
    assert (both.exit_code, both.output.strip()) == (
        2,
        "error: --quiet and --verbose cannot be used together",
    )


def test_version() -> None:
    for flag in ("--version", "-V"):
        result = CliRunner().invoke(main, [flag])
        assert result.output == f"acp-codegen, version {__version__}\n"


def test_every_command_has_help_with_examples() -> None:
    assert "Examples:" in CliRunner().invoke(main, ["--help"]).output
    assert main.commands, "no commands registered"
    for name in main.commands:
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert "Examples:" in result.output, name
        assert f"acp-codegen {name}" in result.output.split("Examples:", 1)[1], name


def run_tty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `args` with stdout and stderr on a pseudo-terminal; returns (exit code, output)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=120), b"".join(chunks).decode()


def test_colour_only_on_a_tty_and_never_with_no_color(tmp_path: Path) -> None:
    root = project(tmp_path, TWO_JOBS)
    command = [sys.executable, "-m", "acp_codegen", "generate"]
    env = {k: v for k, v in codegen_env().items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    code, coloured = run_tty(command, root, env)
    assert code == 0, coloured
    assert "\x1b[32mwrote" in coloured
    assert "\r\x1b[2K[1/2] one: s.json" in coloured and "\r\x1b[2K[2/2] two: s.json" in coloured
    code, plain = run_tty(command, root, {**env, "NO_COLOR": "1"})
    assert code == 0
    assert "\x1b[3" not in plain and "wrote" in plain
    piped = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=True)
    assert "\x1b" not in piped.stdout + piped.stderr
    why = "no SessionState generated: the schema has no x-acp-* annotations and its shape fits"
    assert piped.stderr.splitlines()[:2] == ["[1/2] one: s.json", "[2/2] two: s.json"]
    notes = piped.stderr.splitlines()[2:]  # one line per package without a reducer
    assert len(notes) == 2 and all(n.startswith(f"s.json: {why}") for n in notes), notes


def test_stale_diff_is_coloured_on_a_tty(tmp_path: Path) -> None:
    root = project(tmp_path, '[tool.acp-codegen]\nschema = "s.json"\nout = "acp"\n')
    env = codegen_env()
    env.pop("NO_COLOR", None)
    subprocess.run(
        [sys.executable, "-m", "acp_codegen", "generate", "-q"], cwd=root, env=env, check=True
    )
    bumped = json.loads((root / "s.json").read_text())
    bumped["$defs"]["U"]["description"] = "Now documented."
    (root / "s.json").write_text(json.dumps(bumped))
    code, output = run_tty([sys.executable, "-m", "acp_codegen", "check"], root, env)
    assert code == 1
    assert "\x1b[32m+" in output and "\x1b[31m-" in output
    assert "\x1b[33macp is out of date. Run: acp-codegen generate" in output


def test_overlay_flag_and_key_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An overlay given as a flag or as a key gives the same package, and the command
    recorded in its header regenerates it."""
    corpus.require()
    schema = corpus.newest(corpus.NEWEST["v2-unstable"])
    overlay = REPO / "acp_codegen" / "overlays" / "v2.json"  # the built-in one, given by hand
    flags = ["--schema", str(schema), "--overlay", str(overlay), "--out", "flagged/acp"]
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert invoke(tmp_path, "generate", *flags, monkeypatch=monkeypatch).exit_code == 0
    header = (tmp_path / "flagged/acp/models.py").read_text().splitlines()[1]
    assert header.endswith(f"--overlay {overlay.as_posix()}")
    recorded = header.split("acp-codegen generate ", 1)[1].split()
    assert invoke(tmp_path, "check", "-q", *recorded, monkeypatch=monkeypatch).exit_code == 0

    configured = tmp_path / "configured"
    configured.mkdir()
    (configured / "pyproject.toml").write_text(
        jobs_table(acp={"schema": str(schema), "out": "acp", "overlays": [str(overlay)]}),
        encoding="utf-8",
    )
    assert invoke(configured, "generate", "-q", monkeypatch=monkeypatch).exit_code == 0
    with_flags = sorted((tmp_path / "flagged/acp").glob("*.py"))
    assert "state.py" in {p.name for p in with_flags}, "the overlay's annotations made a reducer"
    for path in with_flags:
        ours = (configured / "acp" / path.name).read_text().splitlines()
        assert ours[4:] == path.read_text().splitlines()[4:], path.name


def test_a_schema_on_the_command_line_starts_its_own_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a configured project, ``--schema`` without ``--job`` is an ad-hoc job: the
    project's roots (which name definitions of its own schema) do not leak into it."""
    root = project(
        tmp_path,
        jobs_table(
            own={"schema": "s.json", "out": "out/own", "roots": ["N"], "target": "pydantic"}
        ),
    )
    other = root / "other.json"
    other.write_text(json.dumps(SMALL), encoding="utf-8")
    result = invoke(
        root,
        "generate",
        "--schema",
        "other.json",
        "--out",
        "adhoc",
        "--package",
        "adhoc",
        monkeypatch=monkeypatch,
    )
    assert result.exit_code == 0, result.output
    header = (root / "adhoc/models.py").read_text().splitlines()[1]
    assert header == (
        "# Regenerate with: acp-codegen generate --schema other.json --out adhoc --package adhoc"
    )
    assert "import msgspec" in (root / "adhoc/models.py").read_text()  # not the job's target
    assert not (root / "out/own").exists()
    chosen = invoke(
        root, "generate", "--job", "own", "--schema", "other.json", monkeypatch=monkeypatch
    )
    assert chosen.exit_code == 0, chosen.output
    assert "--root N" in (root / "out/own/models.py").read_text().splitlines()[1]


def _check_from(folder: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    result = invoke(folder, "check", *args, monkeypatch=monkeypatch)
    assert result.exit_code == 0, (folder, args, result.output)
    return result.output


def test_headers_and_check_do_not_depend_on_how_paths_are_spelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package generated by flags from the project's folder is up to date for check run
    from three working directories, with relative and with absolute paths; its headers
    name the schema and the command relative to the project, as typed from nowhere."""
    root = project(tmp_path, "[project]\nname = 'x'\n")
    (root / "src" / "deep").mkdir(parents=True)
    elsewhere = tmp_path.parent / (tmp_path.name + "-elsewhere")
    elsewhere.mkdir()
    flags = ["--package", "app.acp", "--overlay", "ov.json", "--no-builtin-overlay"]
    (root / "ov.json").write_text(
        json.dumps({"entries": [{"at": "/$defs/N", "add": {"x-acp-note": "n"}}]}),
        encoding="utf-8",
    )
    made = invoke(
        root,
        "generate",
        "--schema",
        "s.json",
        "--out",
        "src/app/acp",
        *flags,
        monkeypatch=monkeypatch,
    )
    assert made.exit_code == 0, made.output
    header = (root / "src/app/acp/models.py").read_text(encoding="utf-8").splitlines()[:2]
    assert header == [
        "# Generated by acp-codegen 0.1.0 from s.json; do not edit by hand.",
        "# Regenerate with: acp-codegen generate --schema s.json --out src/app/acp "
        "--package app.acp --overlay ov.json --no-builtin-overlay",
    ]
    overlay = ["--overlay", str(root / "ov.json"), "--no-builtin-overlay"]
    spellings = [
        (root, ["--schema", "./s.json", "--out", "src/../src/app/acp", *flags]),
        (
            root / "src",
            [
                "--schema",
                "../s.json",
                "--out",
                "app/acp",
                "--package",
                "app.acp",
                "--overlay",
                "../ov.json",
                "--no-builtin-overlay",
            ],
        ),
        (
            root / "src" / "deep",
            [
                "--schema",
                "../../s.json",
                "--out",
                "../app/acp",
                "--package",
                "app.acp",
                "--overlay",
                "../../ov.json",
                "--no-builtin-overlay",
            ],
        ),
        (
            elsewhere,
            [
                "--schema",
                str(root / "s.json"),
                "--out",
                str(root / "src/app/acp"),
                "--package",
                "app.acp",
                *overlay,
            ],
        ),
        (
            root,
            [
                "--schema",
                str(root / "s.json"),
                "--out",
                str(root / "src/app/acp"),
                "--package",
                "app.acp",
                *overlay,
            ],
        ),
    ]
    for folder, args in spellings:
        assert "is up to date" in _check_from(folder, args, monkeypatch)


def test_a_configured_job_is_checked_alike_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, jobs_table(acp={"schema": "s.json", "out": "src/acp"}))
    (root / "src" / "deep").mkdir(parents=True, exist_ok=True)
    assert invoke(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    elsewhere = tmp_path.parent / (tmp_path.name + "-other")
    elsewhere.mkdir()
    config_path = str(root / "pyproject.toml")
    for folder, args in [
        (root / "src", []),
        (root / "src" / "deep", []),
        (elsewhere, ["--config", config_path]),
    ]:
        assert "is up to date" in _check_from(folder, args, monkeypatch)
    # A flag gives the job a header command, whose paths are relative to the config file.
    moved = invoke(root / "src", "generate", "--out", "../alt/acp", monkeypatch=monkeypatch)
    assert moved.exit_code == 0, moved.output
    header = (root / "alt/acp/models.py").read_text(encoding="utf-8").splitlines()[1]
    assert header == (
        "# Regenerate with: acp-codegen generate --schema s.json --out alt/acp --package acp"
    )
    assert "up to date" in _check_from(
        elsewhere, ["--config", config_path, "--out", str(root / "alt/acp")], monkeypatch
    )


def test_a_job_may_allow_unenforced_keywords(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(
        tmp_path,
        jobs_table(a={"schema": "s.json", "out": "out/a", "allow_unenforced": ["uniqueItems"]}),
    )
    doc = json.loads((root / "s.json").read_text(encoding="utf-8"))
    doc["$defs"]["U"]["anyOf"][0]["properties"]["tags"] = {"type": "array", "uniqueItems": True}
    (root / "s.json").write_text(json.dumps(doc), encoding="utf-8")
    made = invoke(root, "generate", monkeypatch=monkeypatch)
    assert made.exit_code == 0, made.output
    where = "/$defs/U/anyOf/0/properties/tags/uniqueItems"
    assert f"warning: s.json#{where}: uniqueItems is not enforced" in made.output
    record = (root / "out/a/_provenance.py").read_text(encoding="utf-8")
    assert '("uniqueItems", "/$defs/U/anyOf/0/properties/tags/uniqueItems")' in record
    assert invoke(root, "check", "-q", monkeypatch=monkeypatch).exit_code == 0


QUICK_START = [
    "--schema",
    "schema/v2/schema.json",
    "--out",
    "my_app/_vendor/acp",
    "--package",
    "my_app._vendor.acp",
]


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("with_pyproject", [False, True], ids=["bare-folder", "project"])
def test_a_flag_job_moves_with_its_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_pyproject: bool
) -> None:
    """The Quick start's job, generated by relative flags in one folder and copied to
    another (a colleague's clone): the recorded command, run there, rewrites the same
    folder with the same bytes, `check` with the same flags passes, and no file names the
    first folder."""
    first, second = tmp_path / "mine", tmp_path / "theirs"
    (first / "schema" / "v2").mkdir(parents=True)
    (first / "schema/v2/schema.json").write_bytes(
        (REPO / "schema/session_update.schema.json").read_bytes()
    )
    if with_pyproject:
        (first / "pyproject.toml").write_text("[project]\nname = 'my_app'\n", encoding="utf-8")
    made = invoke(first, "generate", *QUICK_START, monkeypatch=monkeypatch)
    assert made.exit_code == 0, made.output
    written = _tree(first / "my_app/_vendor/acp")
    assert not [name for name, data in written.items() if str(tmp_path).encode() in data]
    shutil.copytree(first, second)
    header = (second / "my_app/_vendor/acp/models.py").read_text(encoding="utf-8")
    recorded = shlex.split(header.splitlines()[1].removeprefix("# Regenerate with: "))
    assert recorded[:2] == ["acp-codegen", "generate"]
    shutil.rmtree(second / "my_app")
    again = invoke(second, *recorded[1:], monkeypatch=monkeypatch)
    assert again.exit_code == 0, again.output
    assert _tree(second / "my_app/_vendor/acp") == written
    assert sorted(p.name for p in second.iterdir()) == sorted(p.name for p in first.iterdir())
    assert "is up to date" in _check_from(second, QUICK_START, monkeypatch)


def test_a_flag_job_and_the_same_configured_job_write_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, "[project]\nname = 'my_app'\n")
    flags = [
        "--schema",
        "s.json",
        "--out",
        "my_app/_vendor/acp",
        "--package",
        "my_app._vendor.acp",
        "--root",
        "N",
        "--target",
        "dataclasses",
        "--line-length",
        "88",
    ]
    assert invoke(root, "generate", *flags, monkeypatch=monkeypatch).exit_code == 0
    by_flags = _tree(root / "my_app/_vendor/acp")
    (root / "pyproject.toml").write_text(
        "[project]\nname = 'my_app'\n"
        + jobs_table(
            acp={
                "schema": "s.json",
                "out": "my_app/_vendor/acp",
                "package": "my_app._vendor.acp",
                "roots": ["N"],
                "target": "dataclasses",
                "line_length": 88,
            }
        ),
        encoding="utf-8",
    )
    assert "is up to date" in _check_from(root, [], monkeypatch)
    assert invoke(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    assert _tree(root / "my_app/_vendor/acp") == by_flags


def test_a_schema_alone_generates_generated_acp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out and --package the package is generated/acp, imported as `acp`: a
    name that fits any schema, not that of the repository's own embedded default."""
    root = project(tmp_path, "[project]\nname = 'x'\n")
    made = invoke(root, "generate", "--schema", "s.json", monkeypatch=monkeypatch)
    assert made.exit_code == 0, made.output
    assert "wrote" in made.output and "generated/acp" in made.output
    header = (root / "generated/acp/models.py").read_text(encoding="utf-8").splitlines()[1]
    assert header.endswith("--schema s.json --out generated/acp --package acp")
