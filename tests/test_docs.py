"""Every fenced code block in docs/*.md, and README.md's quick start, runs here in order.

Each document runs in an empty project folder, ``my-app/`` (the working directory), in a
fresh shell with no virtual environment active and nothing of this test run's on PATH.
It gets only what its **Before you start:** line says the reader must have (`NEEDS`):
``acp-codegen`` on PATH, this checkout beside the project as ``../acp-codegen``, a
project ``.venv`` with msgspec (or with the official SDK too), the corpus in
``$ACP_SHARED``, a published schema file. Anything else a page uses, it makes in its own
blocks. What a block does depends on its info string:

- ``bash``: run with ``bash -eo pipefail``;
- ``python``: run with the project's ``.venv/bin/python`` from the project folder;
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

import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from acp_codegen import config
from tests import corpus
from tests.userproject import REPO, copy_checkout, msgspec_pin

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


#: What a page's **Before you start:** line can say the reader has, and what the test
#: then gives the page: a phrase of the line turns its provision on. The `.venv` phrases
#: differ, so one is never read as another.
NEEDS = {
    "`acp-codegen` on your PATH": "codegen",
    "`pipx` on your PATH": "pipx",
    "beside your project as `../acp-codegen`": "checkout",
    "a `.venv` with msgspec in your project": "venv",
    "a `.venv` with msgspec and pydantic in your project": "pydantic-venv",
    "a `.venv` with msgspec, pydantic and the official Python SDK": "sdk-venv",
    "`$ACP_SHARED`": "corpus",
    "the newest published v1 schema as `schema/acp.json`": "v1-schema",
    "the newest published v1 schema as `schema/v1/schema.json`": "v1-schema-dir",
    "`pipx inject acp-codegen black`": "black",
}
BEFORE = re.compile(r"^\*\*Before you start:\*\*(.*?)(?:\n\n|\Z)", re.DOTALL | re.MULTILINE)
#: What each `.venv` kind holds (the project's packages, never the generator).
VENVS = {
    "venv": ["msgspec"],
    "pydantic-venv": ["msgspec", "pydantic"],
    "sdk-venv": ["msgspec", "pydantic", "agent-client-protocol"],
}


def needs(text: str) -> set[str]:
    """The provisions a page's **Before you start:** line asks for."""
    found = BEFORE.search(text)
    if found is None:
        return set()
    line = " ".join(found.group(1).split())
    return {kind for phrase, kind in NEEDS.items() if phrase in line}


@pytest.fixture(scope="session")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_checkout(tmp_path_factory.mktemp("checkout") / "acp-codegen")


def _pins(names: list[str]) -> list[str]:
    """The versions this test run has of `names`: what a reader would install today."""
    from importlib.metadata import version

    return [f"{name}=={version(name)}" for name in names]


@pytest.fixture(scope="session")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One project environment of each `VENVS` kind, made once and linked into each page's
    project as ``.venv``: a page reads them and never installs into them."""
    made = {}
    for kind, names in VENVS.items():
        where = tmp_path_factory.mktemp(kind) / ".venv"
        # No pip inside (the pages never install into it): this run's pip fills it, fast.
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
        pip = [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(where / "bin" / "python"),
            "install",
            "-q",
            "--disable-pip-version-check",
            *_pins(names),
        ]
        subprocess.run(pip, check=True, capture_output=True)
        made[kind] = where
    return made


#: Where each v1-schema provision puts the newest published v1 schema.
V1_SCHEMA_PATHS = {
    "v1-schema": Path("schema/acp.json"),
    "v1-schema-dir": Path("schema/v1/schema.json"),
}


def _stage_v1_schema(project: Path, kind: str) -> None:
    corpus.require()
    published = corpus.newest(corpus.NEWEST["v1"])
    target = project / V1_SCHEMA_PATHS[kind]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(published.read_bytes())


def fresh_path() -> str:
    """PATH without this test run's environment: no venv's bin, nothing it put there."""
    ours = {
        os.path.dirname(sys.executable),
        os.path.join(os.environ.get("VIRTUAL_ENV", "-"), "bin"),
    }
    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p not in ours]
    return os.pathsep.join(kept)


def sandbox(
    base: Path, checkout: Path, wanted: set[str], venvs: dict[str, Path] | None = None
) -> tuple[Path, dict[str, str]]:
    """An empty `base/my-app`, given what `wanted` names, and the environment its blocks
    run with: a fresh shell's, with no virtual environment active."""
    project = base / "my-app"
    project.mkdir(parents=True)
    if "checkout" in wanted:
        (base / "acp-codegen").symlink_to(checkout, target_is_directory=True)
    shims = base / "bin"
    shims.mkdir()
    commands = {
        "codegen": (
            "acp-codegen",
            f"PYTHONPATH={shlex.quote(str(REPO))} "
            f"exec {shlex.quote(sys.executable)} -m acp_codegen",
        ),
        "pipx": ("pipx", f"exec {shlex.quote(sys.executable)} -m pipx"),
    }
    for kind, (name, line) in commands.items():
        if kind in wanted:
            (shims / name).write_text(f'#!/bin/sh\n{line} "$@"\n', encoding="utf-8")
            (shims / name).chmod(0o755)
    for kind in VENVS:
        if kind in wanted and venvs is not None:
            (project / ".venv").symlink_to(venvs[kind], target_is_directory=True)
    for kind in V1_SCHEMA_PATHS:
        if kind in wanted:
            _stage_v1_schema(project, kind)
    drop = ("PYTHONPATH", "NO_COLOR", "VIRTUAL_ENV", "ACP_SHARED")
    clean = {k: v for k, v in os.environ.items() if k not in drop}
    clean["PATH"] = f"{shims}{os.pathsep}{fresh_path()}"
    if "corpus" in wanted:
        clean["ACP_SHARED"] = str(corpus.SHARED)
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
        [sys.executable, "-m", "pre_commit", "validate-config", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"{where}: {proc.stdout}{proc.stderr}"


def run_console(body: str, project: Path, env: dict[str, str], where: str) -> None:
    """A ``console`` block: its ``$ `` lines run in the corpus (``$ACP_SHARED``), and what
    follows them is their exact standard output."""
    assert "ACP_SHARED" in env, f"{where}: the page's Before you start line names $ACP_SHARED"
    corpus.require()
    lines = body.splitlines(keepends=True)
    prompts = [ln for ln in lines if ln.startswith("$ ")]
    assert lines[: len(prompts)] == prompts, f"{where}: the commands come first"
    assert prompts[0] == '$ cd "$ACP_SHARED/acp-schemas"\n', f"{where}: runs in the corpus"
    proc = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", "".join(ln[2:] for ln in prompts)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{proc.stderr}"
    shown = "".join(lines[len(prompts) :])
    assert proc.stdout == shown, f"{where}: output differs\n--- got\n{proc.stdout}"


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
            python = project / ".venv" / "bin" / "python"
            if block.lang == "python":
                assert python.exists(), f"{where}: a python block needs the page's .venv"
            argv = (
                ["bash", "-eo", "pipefail", "-c", block.body]
                if block.lang == "bash"
                else [str(python), "-"]
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
        elif block.lang == "console":
            run_console(block.body, project, env, where)
        elif block.lang == "json":
            json.loads(block.body)
        elif block.lang == "yaml":
            assert "repos:" in block.body, f"{where}: only pre-commit configs are expected"
            check_precommit_config(block.body, project, env, where)
        else:
            raise AssertionError(f"{where}: no rule to run a {block.lang!r} block")


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_document_blocks_run(
    doc: Path, checkout: Path, venvs: dict[str, Path], tmp_path: Path
) -> None:
    text = doc.read_text(encoding="utf-8")
    found = blocks(text)
    assert found, f"{doc.name} has no code blocks"
    wanted = needs(text)
    runs = [b for b in found if b.lang in ("bash", "python", "console")]
    assert not runs or BEFORE.search(text), (
        f"{doc.name} runs commands but has no **Before you start:** line saying what the "
        "reader must have"
    )
    if re.search(r"formatter = \"black\"|--formatter black", text):
        assert "black" in wanted, f"{doc.name} uses black: say `pipx inject acp-codegen black`"
    project, env = sandbox(tmp_path, checkout, wanted, venvs)
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
    text = (REPO / "README.md").read_text(encoding="utf-8").split(QUICK_START, 1)[1]
    wanted = needs(text.split("\n## ", 1)[0])
    assert wanted == {"pipx", "checkout"}, wanted
    project, env = sandbox(tmp_path, checkout, wanted)
    stage_quick_start(project)
    # pipx puts the commands it installs in its bin folder, which the reader puts on PATH.
    tools = tmp_path / "pipx"
    env.update(PIPX_HOME=str(tools / "home"), PIPX_BIN_DIR=str(tools / "bin"))
    env["PATH"] = os.pathsep.join((str(tools / "bin"), env["PATH"]))
    run_document(rest, project, env, "README.md")
    assert (tools / "bin" / "acp-codegen").exists()
    # Apart from the project: its environment has msgspec and no generator.
    assert (project / ".venv" / "bin" / "python").is_file()
    assert not (project / ".venv" / "bin" / "acp-codegen").exists()
    # "What you get" shows code from that package, line for line, docstrings left out.
    check_sample(project / "my_app" / "_vendor" / "acp" / "models.py")


def test_harness_catches_drift(tmp_path: Path) -> None:
    """A wrong output, an output with nothing before it, an unknown block, a python block
    without the page's .venv and the corpus unasked for all fail."""
    doc = "```python\nprint('a', 1)\n```\n\n```text\na ...\n```\n"
    # A python block runs with the project's .venv: there is none yet, then there is one.
    with pytest.raises(AssertionError, match="needs the page's .venv"):
        run_document(blocks(doc), tmp_path, dict(os.environ), "ok.md")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    run_document(blocks(doc), tmp_path, dict(os.environ), "ok.md")
    without_corpus = {k: v for k, v in os.environ.items() if k != "ACP_SHARED"}
    for bad in (
        "```python\nprint('a')\n```\n\n```text\nb\n```\n",
        "```text\na\n```\n",
        "```ruby\nputs 1\n```\n",
        "```bash\nfalse\n```\n",
        # the corpus is there only for a page that names $ACP_SHARED
        '```console\n$ cd "$ACP_SHARED/acp-schemas"\n$ ls MANIFEST.tsv\nMANIFEST.tsv\n```\n',
    ):
        with pytest.raises(AssertionError):
            run_document(blocks(bad), tmp_path, without_corpus, "bad.md")


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


# -- statements the README and the docs make --------------------------------------------

MAX_README_CHARS = 12_000
#: The schemas the README's quick start generates from: the newest published v2, and for
#: its two-version package the newest published v1 too.
QUICK_START_SCHEMA = Path("schema/v2/schema.json")
QUICK_START_V1 = Path("schema/v1/schema.json")


def manifest_rows() -> list[dict[str, str]]:
    corpus.require()
    lines = (corpus.SCHEMAS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]


def stage_quick_start(project: Path) -> None:
    """The files the quick start's prose tells the reader to fetch from the SDK's package."""
    corpus.require()
    for path, key in ((QUICK_START_SCHEMA, "v2"), (QUICK_START_V1, "v1")):
        target = project / path
        target.parent.mkdir(parents=True)
        target.write_bytes(corpus.newest(corpus.NEWEST[key]).read_bytes())


def check_sample(models: Path) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## What you get", 1)[1].split("\n## ", 1)[0]
    sample = blocks(section)[0]
    assert sample.lang == "python"
    generated = models.read_text(encoding="utf-8").splitlines()
    start = generated.index(sample.body.splitlines()[0])
    rest = iter(generated[start:])
    for line in sample.body.splitlines():
        assert any(line == got for got in rest), f"not in the generated models: {line!r}"


def test_readme_is_short() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text) <= MAX_README_CHARS, len(text)


def test_readme_first_screen_example_runs() -> None:
    """The five-line decoding example under the two commands prints what it shows."""
    head, _ = readme_sections()
    code, shown = head[1], head[2]
    assert (code.lang, shown.lang) == ("python", "text")
    assert len(code.body.splitlines()) == 5
    proc = subprocess.run(
        [sys.executable, "-c", code.body], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown.body


def test_readme_names_the_newest_v2_by_its_manifest_hashes() -> None:
    """The blob and sha256 the quick start gives are those of the newest v2 in MANIFEST.tsv,
    and every `blob`/`commit` hash any page names is one of that kind in MANIFEST.tsv."""
    rows = manifest_rows()
    newest = corpus.newest(corpus.NEWEST["v2"]).relative_to(corpus.SCHEMAS).as_posix()
    row = next(r for r in rows if r["file"] == newest)
    assert newest.startswith("v2/2026-11-02_")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"git blob `{row['git_blob'][:8]}`, sha256\n`{row['sha256']}`" in readme
    assert "(2026-11-02)" in readme
    for doc in [*DOCS, REPO / "README.md", REPO / "CONTRIBUTING.md"]:
        text = doc.read_text(encoding="utf-8")
        for blob in re.findall(r"blob `([0-9a-f]{7,40})`", text):
            assert any(r["git_blob"].startswith(blob) for r in rows), (doc.name, blob)
        for commit in re.findall(r"commit `([0-9a-f]{7,40})`", text):
            assert any(r["first_commit"].startswith(commit) for r in rows), (doc.name, commit)


def test_pages_are_for_readers() -> None:
    """What the pages say is the software as it is: no result tables marked as missed goals,
    no scratch paths, no talk of issues."""
    pages = [*DOCS, REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "bench" / "RESULTS.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for word in ("NOT MET", "/tmp/", "scratch script"):
            assert word not in text, (page.name, word)
        assert not re.search(r"\bissues? \d", text), page.name


@pytest.fixture(scope="module")
def v1_packages(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, ModuleType]:
    """The newest v1 stable schema as docs/migration.md generates it, and with `closed`."""
    corpus.require()
    from acp_codegen import emit
    from acp_codegen.pipeline import Job, generate

    root = tmp_path_factory.mktemp("v1")
    schema = corpus.newest(corpus.NEWEST["v1"])
    made = []
    for name, closed in (("docs_v1_open", False), ("docs_v1_closed", True)):
        emit.write_tree(root / name, generate(Job(schema, root / name, name, closed_all=closed)))
        made.append(name)
    sys.path.insert(0, str(root))
    try:
        return tuple(importlib.import_module(n) for n in made)  # type: ignore[return-value]
    finally:
        sys.path.remove(str(root))


def test_migration_table_matches_the_v1_package(v1_packages: tuple[ModuleType, ModuleType]) -> None:
    """docs/migration.md: on v1 an unknown tag and an unknown enum value are kept by
    default, and refused only by a `closed = true` job."""
    text = (REPO / "docs" / "migration.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert "kept and re-encodable, on v1 and v2 alike" in rows["| unknown `sessionUpdate`"]
    assert "`closed = true`" in rows["| unknown `sessionUpdate`"]
    enums = rows["| enum values not in the schema"]
    assert "kept, with `is_known` False, on v1 and v2 alike" in enums
    opened, closed = v1_packages
    future = b'{"sessionUpdate": "state_update", "state": "running"}'
    update = opened.decode_update(future)
    assert isinstance(update, opened.UnknownSessionUpdate) and opened.encode(update) == (
        b'{"sessionUpdate":"state_update","state":"running"}'
    )
    assert not opened.decode(b'"teleport"', opened.ToolKind).is_known
    with pytest.raises(closed.DecodeError, match="state_update"):
        closed.decode_update(future)
    with pytest.raises(closed.DecodeError):
        closed.decode(b'"teleport"', closed.ToolKind)


def test_inspect_prints_the_union_as_the_package_treats_it() -> None:
    """docs/configuration.md: `inspect` shows v1's SessionUpdate open, and closed only
    under --closed, where the schema closes it."""
    from click.testing import CliRunner

    from acp_codegen.cli import main

    corpus.require()
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "`inspect` shows the schema as the generated package treats it" in text
    schema = str(corpus.newest(corpus.NEWEST["v1"]))
    shown = CliRunner().invoke(main, ["inspect", schema]).stdout
    assert "SessionUpdate  tag 'sessionUpdate', open: unknown tags -> UnknownSessionUpdate" in shown
    closed = CliRunner().invoke(main, ["inspect", schema, "--closed"]).stdout
    assert "SessionUpdate  tag 'sessionUpdate', closed" in closed


def test_default_on_null_and_fields_bodies_read_as_documented(tmp_path: Path) -> None:
    """docs/annotations.md: under x-deserialize-default-on-null a null array reads as [] with
    a repair and another wrong kind is still an error; docs/api.md: with --all on the newest
    v2 unstable schema, the variant is ToolCallUpdate and the shared body ToolCallUpdateFields."""
    corpus.require()
    from acp_codegen import emit
    from acp_codegen.pipeline import Job, generate

    annotations = (REPO / "docs" / "annotations.md").read_text(encoding="utf-8")
    assert "`x-deserialize-default-on-null`" in annotations
    api = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    assert "`ToolCallUpdateFields` is what a" in api
    schema = corpus.newest(corpus.NEWEST["v2-unstable"])
    assert schema.name.startswith("2026-11-02_")
    name = "docs_v2_unstable_all"
    emit.write_tree(tmp_path / name, generate(Job(schema, tmp_path / name, name, take_all=True)))
    sys.path.insert(0, str(tmp_path))
    try:
        pkg = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    repairs: list[object] = []
    wire = b'{"cwd": "/w", "mcpServers": null}'
    request = pkg.decode(wire, pkg.NewSessionRequest, repairs=repairs)
    assert request.mcp_servers == [] and [(r.path, r.action) for r in repairs] == [
        ("$.mcpServers", "defaulted")
    ]
    with pytest.raises(pkg.DecodeError):
        pkg.decode(b'{"cwd": "/w", "mcpServers": 5}', pkg.NewSessionRequest)
    assert pkg.SESSION_UPDATE_VARIANTS["tool_call_update"] is pkg.ToolCallUpdate
    subject = pkg.ToolCallPermissionSubject.__annotations__["tool_call"]
    assert "ToolCallUpdateFields" in str(subject)
