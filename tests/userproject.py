"""Helpers for tests that act like a user: a temporary project that vendors a package.

The project holds its own copy of this repository's schema, a pyproject.toml with
``[tool.acp-codegen]`` jobs, and runs acp-codegen as a real process. `fresh_venv`
makes a virtual environment with nothing but the pinned msgspec, to prove that a
vendored package needs nothing else at run time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "session_update.schema.json"

NOTIFICATION = json.dumps(
    {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "sess-1",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "text", "text": "Hello"},
            },
        },
    }
)


def msgspec_pin() -> str:
    """The msgspec requirement in pyproject.toml, e.g. ``msgspec>=0.21,<1``."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'"(msgspec[=<>!~][^"]+)"', text)
    assert match, "pyproject.toml names a msgspec range"
    return match.group(1)


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        )
    return proc


def codegen_env(**extra: str) -> dict[str, str]:
    """The environment for running this checkout's acp-codegen, installed or not."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def codegen(
    *args: str, cwd: Path, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``acp-codegen ARGS`` in `cwd` with the interpreter running the tests."""
    return run(
        [sys.executable, "-m", "acp_codegen", *args], cwd, env=env or codegen_env(), check=check
    )


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def write_pyproject(root: Path, jobs: dict[str, dict[str, Any]]) -> None:
    """A minimal user pyproject.toml with one ``[tool.acp-codegen.jobs.<name>]`` per job."""
    lines = ["[project]", 'name = "my-app"', 'version = "0.0.1"', ""]
    for name, keys in jobs.items():
        lines.append(f"[tool.acp-codegen.jobs.{name}]")
        lines += [f"{key} = {toml_value(value)}" for key, value in keys.items()]
        lines.append("")
    (root / "pyproject.toml").write_text("\n".join(lines), encoding="utf-8")


def make_project(root: Path, jobs: dict[str, dict[str, Any]]) -> Path:
    """A user project: ``src/my_app`` package, a schema copy per job, pyproject jobs."""
    (root / "src" / "my_app" / "_vendor").mkdir(parents=True)
    (root / "src" / "my_app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "src" / "my_app" / "_vendor" / "__init__.py").write_text("", encoding="utf-8")
    (root / "schemas").mkdir()
    for keys in jobs.values():
        target = root / keys["schema"]
        if not target.exists():
            target.write_bytes(SCHEMA.read_bytes())
    write_pyproject(root, jobs)
    return root


def bump_schema(path: Path, definition: str = "Notice", text: str = "Bumped.") -> None:
    """Change one description, as a new schema revision would."""
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["$defs"][definition]["description"] = text
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")


def fresh_venv(where: Path, requirements: list[str]) -> Path:
    """A new virtual environment holding only `requirements`; returns its python."""
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
        where,
    )
    return python


def git_init(root: Path) -> None:
    for args in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "config", "user.email", "test@example.invalid"],
        ["git", "config", "user.name", "test"],
        ["git", "config", "commit.gpgsign", "false"],
    ):
        run(args, root)


def git_commit_all(root: Path, message: str) -> None:
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-q", "-m", message], root)


def copy_checkout(where: Path) -> Path:
    """Copy this checkout's working tree (the files git does not ignore) to `where`."""
    listed = run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO
    ).stdout.split("\0")
    for rel in filter(None, listed):
        source = REPO / rel
        if source.is_file():
            (where / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / rel)
    return where


def snapshot_repo(where: Path) -> str:
    """`copy_checkout` into a new git repository; returns its commit.

    In CI the checkout is clean, so the snapshot holds exactly its HEAD.
    """
    copy_checkout(where)
    git_init(where)
    git_commit_all(where, "snapshot")
    return run(["git", "rev-parse", "HEAD"], where).stdout.strip()


def run_readme_example(heading: str, cwd: Path, doc: str = "README.md") -> None:
    """Run the first python block under `heading` of `doc` (a path from the checkout's root)
    from `cwd`; its output must be exactly the first text block after it."""
    text = (REPO / doc).read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    expected = section.split("```text\n", 1)[1].split("```", 1)[0]
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
