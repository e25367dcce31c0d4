"""Every fenced code block in docs/*.md, and README.md's quick start, runs here in order.

Each document gets a scratch folder laid out as a reader's would be: their
project ``my-app/`` (the working directory) with a copy of this checkout beside
it as ``../acp-codegen``. What a block does depends on its info string:

- ``bash``: run with ``bash -eo pipefail``; ``acp-codegen``, ``python`` and
  ``pre-commit`` on PATH are this checkout's and the test interpreter's;
- ``python``: run with that interpreter from the project folder;
- ``python file=PATH``, ``toml file=PATH``, ``yaml file=PATH``: written to PATH;
- ``text``: the exact output (stdout and stderr together) of the block before it;
  ``...`` inside a line matches any text;
- ``toml``, ``json``, ``yaml`` without ``file=``: parsed; a pre-commit config is also
  validated by pre-commit, and its hook ids must exist in ``.pre-commit-hooks.yaml``.

README.md's first block is the one ``.ci/run`` runs; the test checks the two agree.
Its quick start runs for real: a new virtual environment, ``pip install`` and all,
and it may hold at most five commands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from acp_codegen import config
from tests import corpus
from tests.userproject import REPO, codegen_env, copy_checkout, msgspec_pin

DOCS = sorted((REPO / "docs").glob("*.md"))
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
QUICK_START = "## Quick start"
MAX_QUICK_START_COMMANDS = 5


@dataclass(frozen=True)
class Block:
    lang: str
    attrs: dict[str, str]
    body: str
    line: int

    def __str__(self) -> str:
        return f"line {self.line} ({self.lang})"


def blocks(text: str) -> list[Block]:
    found = []
    for match in FENCE.finditer(text):
        words = match.group(1).split()
        lang = words[0] if words else ""
        attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        found.append(Block(lang, attrs, match.group(2), text.count("\n", 0, match.start()) + 1))
    return found


def stage_migration(project: Path) -> None:
    corpus.require()
    published = corpus.newest(corpus.NEWEST["v1"])
    (project / "schema").mkdir(exist_ok=True)
    (project / "schema" / "acp.json").write_bytes(published.read_bytes())


#: Files a document's prose tells the reader to fetch, placed before its blocks run.
STAGING = {
    "migration.md": stage_migration,
}


@pytest.fixture(scope="session")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_checkout(tmp_path_factory.mktemp("checkout") / "acp-codegen")


def sandbox(base: Path, checkout: Path) -> tuple[Path, dict[str, str]]:
    """`base/my-app` beside `base/acp-codegen`, and the environment blocks run with."""
    project = base / "my-app"
    project.mkdir(parents=True)
    (base / "acp-codegen").symlink_to(checkout, target_is_directory=True)
    shims = base / "bin"
    shims.mkdir()
    env = codegen_env()
    commands = {
        "acp-codegen": f"PYTHONPATH={shlex.quote(env['PYTHONPATH'])} "
        f"exec {shlex.quote(sys.executable)} -m acp_codegen",
        "python": f"exec {shlex.quote(sys.executable)}",
        "pre-commit": f"exec {shlex.quote(sys.executable)} -m pre_commit",
        "pipx": f"exec {shlex.quote(sys.executable)} -m pipx",
    }
    for name, line in commands.items():
        (shims / name).write_text(f'#!/bin/sh\n{line} "$@"\n', encoding="utf-8")
        (shims / name).chmod(0o755)
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NO_COLOR")}
    clean["PATH"] = f"{shims}{os.pathsep}{clean.get('PATH', '')}"
    return project, clean


def expect(output: str, expected: str, where: str) -> None:
    got = "\n".join(line.rstrip() for line in output.rstrip("\n").splitlines())
    want = "\n".join(line.rstrip() for line in expected.rstrip("\n").splitlines())
    pattern = ".*?".join(re.escape(part) for part in want.split("..."))
    assert re.fullmatch(pattern, got, re.DOTALL), (
        f"{where}: output differs\n--- expected\n{want}\n--- got\n{got}"
    )


def check_precommit_config(text: str, project: Path, env: dict[str, str], where: str) -> None:
    manifest = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    known = set(re.findall(r"^- id: (\S+)$", manifest, re.MULTILINE))
    used = set(re.findall(r"^\s*- id: (\S+)$", text, re.MULTILINE))
    assert used and used <= known, f"{where}: hook ids {sorted(used - known)} not in the manifest"
    path = project.parent / "pre-commit-config.yaml"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        ["pre-commit", "validate-config", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"{where}: {proc.stdout}{proc.stderr}"


def run_document(blocks_: list[Block], project: Path, env: dict[str, str], name: str) -> None:
    """Run or check `blocks_` in order; a block with no rule fails the test."""
    last_output: str | None = None
    for block in blocks_:
        where = f"{name} {block}"
        if block.lang == "text":
            assert last_output is not None, f"{where}: an output block needs a block to run first"
            expect(last_output, block.body, where)
            last_output = None
            continue
        last_output = None
        if "file" in block.attrs:
            target = project / block.attrs["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            if block.lang == "toml":
                tomllib.loads(block.body)
            elif block.lang == "python":
                compile(block.body, str(target), "exec")
            continue
        if block.lang in ("bash", "python"):
            argv = (
                ["bash", "-eo", "pipefail", "-c", block.body]
                if block.lang == "bash"
                else ["python", "-"]
            )
            proc = subprocess.run(
                argv,
                cwd=project,
                env=env,
                input=block.body if block.lang == "python" else None,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                check=False,
                timeout=600,
            )
            assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{proc.stdout}"
            last_output = proc.stdout
        elif block.lang == "toml":
            document = tomllib.loads(block.body)
            if "acp-codegen" in document.get("tool", {}):
                scratch = project.parent / "config-check.toml"
                scratch.write_text(block.body, encoding="utf-8")
                assert config.load(scratch, cwd=project.parent) is not None
        elif block.lang == "json":
            json.loads(block.body)
        elif block.lang == "yaml":
            assert "repos:" in block.body, f"{where}: only pre-commit configs are expected"
            check_precommit_config(block.body, project, env, where)
        else:
            raise AssertionError(f"{where}: no rule to run a {block.lang!r} block")


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_document_blocks_run(doc: Path, checkout: Path, tmp_path: Path) -> None:
    found = blocks(doc.read_text(encoding="utf-8"))
    assert found, f"{doc.name} has no code blocks"
    project, env = sandbox(tmp_path, checkout)
    if doc.name in STAGING:
        STAGING[doc.name](project)
    run_document(found, project, env, doc.name)


def readme_sections() -> tuple[list[Block], list[Block]]:
    """The blocks before the quick start (the first screen), and those of the quick start."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert QUICK_START in text, "README.md has a quick start"
    head, rest = text.split(QUICK_START, 1)
    return blocks(head), blocks(rest.split("\n## ", 1)[0])


def test_readme_first_screen_is_what_ci_runs() -> None:
    head, _ = readme_sections()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    normalised = re.sub(r"\s-q\b|\s-p no:cacheprovider", "", ci)
    first = head[0]
    assert first.lang == "bash"
    for line in first.body.strip().splitlines():
        assert line in normalised, f"README first screen line not run by .ci/run: {line}"


def commands(script: str) -> list[str]:
    lines = [
        ln.strip() for ln in script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
    return [part.strip() for ln in lines for part in ln.split("&&")]


def test_readme_quick_start(checkout: Path, tmp_path: Path) -> None:
    _, rest = readme_sections()
    quick = [b for b in rest if b.lang == "bash"][0]
    steps = commands(quick.body)
    assert len(steps) <= MAX_QUICK_START_COMMANDS, steps
    assert any(".venv/bin/pip install" in step for step in steps)
    assert steps[0].startswith("pipx install"), "the generator is installed apart"
    project, env = sandbox(tmp_path, checkout)
    # The quick start installs the generator with pipx and makes its own virtual
    # environment: none of the other shims may leak in.
    shims, env["PATH"] = env["PATH"].split(os.pathsep, 1)
    tools = tmp_path / "pipx"
    only_pipx = tmp_path / "pipx-shim"
    only_pipx.mkdir()
    (only_pipx / "pipx").symlink_to(Path(shims) / "pipx")
    env.update(PIPX_HOME=str(tools / "home"), PIPX_BIN_DIR=str(tools / "bin"))
    env["PATH"] = os.pathsep.join((str(only_pipx), str(tools / "bin"), env["PATH"]))
    run_document(rest, project, env, "README.md")
    assert (tools / "bin" / "acp-codegen").exists()
    # Apart from the project: its environment has msgspec and no generator.
    assert (project / ".venv" / "bin" / "python").is_file()
    assert not (project / ".venv" / "bin" / "acp-codegen").exists()


def test_harness_catches_drift(tmp_path: Path) -> None:
    """A wrong output, an output with nothing before it and an unknown block all fail."""
    doc = "```python\nprint('a', 1)\n```\n\n```text\na ...\n```\n"
    run_document(blocks(doc), tmp_path, dict(os.environ), "ok.md")
    for bad in (
        "```python\nprint('a')\n```\n\n```text\nb\n```\n",
        "```text\na\n```\n",
        "```ruby\nputs 1\n```\n",
        "```bash\nfalse\n```\n",
    ):
        with pytest.raises(AssertionError):
            run_document(blocks(bad), tmp_path, dict(os.environ), "bad.md")


def test_docs_name_the_pinned_msgspec() -> None:
    pins = {
        (doc.name, pin)
        for doc in [*DOCS, REPO / "README.md"]
        for pin in re.findall(r"msgspec[=<>~][=0-9][^\s\"'`]*", doc.read_text(encoding="utf-8"))
    }
    assert pins, "the docs tell readers which msgspec to depend on"
    assert {pin for _, pin in pins} == {msgspec_pin()}, sorted(pins)


def test_docs_point_at_nothing_the_reader_lacks() -> None:
    """No `../shared` paths (a layout only this project's CI has), no pre-commit `rev`
    naming a tag (the repository has none): a placeholder that says so, or a local hook."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "../shared" not in readme
    tags = run_git_tags()
    for doc in [*DOCS, REPO / "README.md"]:
        for rev in re.findall(r"^\s*rev:\s*(\S+)(.*)$", doc.read_text(encoding="utf-8"), re.M):
            assert rev[0] in tags or "placeholder" in rev[1], (doc.name, rev)


def run_git_tags() -> set[str]:
    proc = subprocess.run(
        ["git", "tag", "--list"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return set(proc.stdout.split())


def test_guide_shows_where_the_next_schema_comes_from() -> None:
    guide = (REPO / "docs" / "guide.md").read_text(encoding="utf-8")
    upgrade = guide.split("## 5. Upgrade when the schema moves", 1)[1]
    first_use = upgrade.index("schema/acp-next.json")
    # The file is made in a block of the guide itself before the first command reads it.
    made = upgrade.index('Path("schema/acp-next.json").write_text(')
    used = upgrade.index("acp-codegen diff schema/acp.json schema/acp-next.json")
    assert first_use < made < used
    assert "where to get ACP's schema" in upgrade


def test_compatibility_lists_every_keyword_in_its_group() -> None:
    """docs/compatibility.md's table names every keyword `keywords` sorts, once, in the
    row of its group (read, enforced, annotation, refused)."""
    from acp_codegen import keywords

    text = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    table = text.split("## Keywords", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    found: dict[str, str] = {}
    for row in rows:
        cells = row.split(" | ")
        for name in re.findall(r"`([^`]+)`", cells[0]):
            assert name not in found, name
            found[name] = cells[1]
    groups = [
        (keywords.STRUCTURE - {"required"}, "read"),
        ({"required"} | keywords.ENFORCED, "enforced"),
        (keywords.ANNOTATIONS, "annotations"),
        (set(keywords.UNENFORCED), "refused"),
        (set(keywords.SHAPE), "always refused"),
    ]
    for names, word in groups:
        for name in names:
            assert name in found, f"{name} is missing from docs/compatibility.md"
            assert found[name].startswith(word) or word in found[name], (name, found[name])
    listed = set().union(*(g for g, _ in groups))
    assert set(found) == listed
