"""The command a missing optional library is named with fits how the generator was installed.

`installs.install_hint` is checked against fake environment prefixes (pipx's, uv's, a plain
virtual environment), and `installs.requirement` against the pins in pyproject.toml. The
CLI lines that use it are in tests/test_cli_messages.py and tests/test_hostile_schemas.py;
here, generating for msgspec and dataclasses works with pydantic and black made unimportable.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from acp_codegen import installs
from tests.userproject import codegen_env

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "session_update.schema.json"


def test_requirement_is_the_extras_pin() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]
    assert [installs.requirement("pydantic", "pydantic")] == extras["pydantic"]
    assert [installs.requirement("black", "black")] == extras["black"]
    assert installs.requirement("no-such-extra", "lib") == "lib"


@pytest.mark.parametrize(
    ("prefix", "env", "expected"),
    [
        (".local/share/pipx/venvs/acp-codegen", {}, "pipx inject acp-codegen 'a>=1'"),
        (".local/pipx/venvs/acp-codegen", {}, "pipx inject acp-codegen 'a>=1'"),
        ("apps/venvs/gen", {"PIPX_HOME": "{tmp}/apps"}, "pipx inject gen 'a>=1'"),
        (".local/share/uv/tools/acp-codegen", {}, "uv tool install --with 'a>=1' acp-codegen"),
        (
            "mytools/acp-codegen",
            {"UV_TOOL_DIR": "{tmp}/mytools"},
            "uv tool install --with 'a>=1' acp-codegen",
        ),
        ("project/.venv", {}, "/usr/bin/python3 -m pip install 'a>=1'"),
        ("project/venvs/x", {}, "/usr/bin/python3 -m pip install 'a>=1'"),  # not pipx's
        ("project/tools/x", {}, "/usr/bin/python3 -m pip install 'a>=1'"),  # not uv's
    ],
)
def test_hint_by_prefix(tmp_path: Path, prefix: str, env: dict[str, str], expected: str) -> None:
    env = {key: value.replace("{tmp}", str(tmp_path)) for key, value in env.items()}
    got = installs.install_hint("a>=1", str(tmp_path / prefix), "/usr/bin/python3", env)
    assert got == expected


def test_pipx_is_known_by_its_metadata_anywhere(tmp_path: Path) -> None:
    (tmp_path / "pipx_metadata.json").write_text("{}", encoding="utf-8")
    assert installs.install_hint("b", str(tmp_path), "py", {}) == f"pipx inject {tmp_path.name} b"


def test_uv_reinstall_keeps_the_receipts_source_and_withs(tmp_path: Path) -> None:
    tool = tmp_path / "data" / "tools" / "acp-codegen"  # uv's folder on Windows
    tool.mkdir(parents=True)
    (tool / "uv-receipt.toml").write_text(
        "[tool]\nrequirements = [\n"
        '  { name = "acp-codegen", directory = "/src/my acp-codegen" },\n'
        '  { name = "black", specifier = "==26.10.1" },\n]\n',
        encoding="utf-8",
    )
    assert installs.install_hint("pydantic==2.13.4", str(tool), "py", {}) == (
        "uv tool install --with black==26.10.1 --with pydantic==2.13.4 '/src/my acp-codegen'"
    )
    (tool / "uv-receipt.toml").write_text("not toml [", encoding="utf-8")
    assert installs.install_hint("p", str(tool), "py", {}) == "uv tool install --with p acp-codegen"


def test_a_path_with_spaces_is_quoted(tmp_path: Path) -> None:
    got = installs.install_hint("p", str(tmp_path / "v"), "/opt/my python/bin/python", {})
    assert got == "'/opt/my python/bin/python' -m pip install p"


_BLOCKED = """
import sys
sys.modules["pydantic"] = None  # neither is installed
sys.modules["black"] = None
from acp_codegen.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("target", ["msgspec", "dataclasses"])
def test_generate_needs_neither_pydantic_nor_black(tmp_path: Path, target: str) -> None:
    out = tmp_path / "pkg"
    args = [
        "generate",
        "--schema",
        str(SCHEMA),
        "--out",
        str(out),
        "--package",
        "pkg",
        "--target",
        target,
    ]
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED, *args],
        env=codegen_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "state.py").is_file()
    check = subprocess.run(
        [sys.executable, "-c", _BLOCKED, "check", *args[1:]],
        env=codegen_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert check.returncode == 0, check.stderr
