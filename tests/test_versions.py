"""One package for several protocol versions: layout, goldens, negotiation, tools, corpus.

The package of the newest v1 and newest v2 schemas is generated once per target. Its
expected tree (tests/golden/two_versions/<target>/pkg, runtime files aside: those are checked
against their source by tests/test_runtime_contract.py) follows the newest manifest rows,
so a new revision is noticed here; refresh with
``ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_versions.py``.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acp_codegen import emit, ondisk
from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS
from tests import corpus

GOLDEN = Path(__file__).resolve().parent / "golden" / "two_versions"
TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"
UPDATE = "ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_versions.py"
CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}


def newest_pair() -> tuple[tuple[int, Path], ...]:
    return ((1, corpus.newest(corpus.NEWEST["v1"])), (2, corpus.newest(corpus.NEWEST["v2"])))


def job(out: Path, package: str, target: str, pair: Any = None, formatter: str = "ruff") -> Job:
    pair = pair or newest_pair()
    return Job(pair[-1][1], out, package, target=target, versions=pair, formatter=formatter)


def machine_free(files: dict[str, str]) -> dict[str, str]:
    """The files with the corpus's folder written as ``../shared``: headers name the
    schemas by their absolute path, which differs between checkouts."""
    return {k: v.replace(str(corpus.SHARED), "../shared") for k, v in files.items()}


def runtime_names(target: str) -> set[str]:
    return {*TARGETS[target].runtime_files(with_state=True), "_versions.py"}


@pytest.fixture(scope="module")
def built(generated_root: Path) -> dict[str, ModuleType]:
    """The two-version package of every target, imported."""
    corpus.require()
    packages = {}
    for target in TARGETS:
        name = f"two_versions_{target}"
        emit.write_tree(generated_root / name, generate(job(generated_root / name, name, target)))
        packages[target] = importlib.import_module(name)
    return packages


# -- layout and goldens -------------------------------------------------------------------
@pytest.mark.parametrize("target", tuple(TARGETS))
def test_two_version_package_matches_its_golden_tree(target: str) -> None:
    corpus.require()
    out = GOLDEN / target / "pkg"
    names = runtime_names(target)
    files = machine_free(generate(job(out, "pkg", target)))
    files = {k: v for k, v in files.items() if k not in names}
    if os.environ.get("ACP_UPDATE_GOLDEN"):
        emit.write_tree(out, files)
    diff = ondisk.diff_tree(out, files)
    assert not diff, f"the two-version golden tree changed:\n{diff[:20000]}\nUpdate with: {UPDATE}"


def test_the_runtime_is_written_once_at_the_top(tmp_path: Path) -> None:
    corpus.require()
    files = generate(job(tmp_path / "acp", "acp", "msgspec", formatter="none"))
    names = runtime_names("msgspec")
    assert names <= set(files)
    for version in ("v1", "v2"):
        own = {k.split("/", 1)[1] for k in files if k.startswith(version + "/")}
        assert own == {
            "__init__.py",
            "_provenance.py",
            "codec.py",
            "conformance.py",
            "dispatch.py",
            "models.py",
            "state.py",
        }
        assert "from .. import _runtime as _rt" in files[f"{version}/codec.py"]
    assert not [k for k in files if "/" in k and k.rsplit("/", 1)[1] in names]


def test_a_version_alone_differs_from_its_single_package_only_in_imports(tmp_path: Path) -> None:
    corpus.require()
    pair = newest_pair()
    both = generate(job(tmp_path / "acp", "acp", "msgspec", formatter="none"))
    alone = generate(Job(pair[0][1], tmp_path / "one", "acp.v1", formatter="none"))
    for name in ("models.py", "dispatch.py", "codec.py"):
        mine = both[f"v1/{name}"].split("\n", 2)[2].replace("from .. import", "from . import")
        assert mine == alone[name].split("\n", 2)[2], name


# -- negotiation --------------------------------------------------------------------------
def initialize(version: Any, ident: Any = 0) -> dict[str, Any]:
    params = {"protocolVersion": version, "info": {"name": "client", "version": "1"}}
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize", "params": params}


def answer(version: Any, ident: Any = 0) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": version}}


NEGOTIATED = [
    ("client offers 1, agent answers 1", initialize(1), answer(1), "v1"),
    ("client offers 2, agent answers 2", initialize(2), answer(2), "v2"),
    ("client offers 2, agent answers 1", initialize(2), answer(1), "v1"),
    ("params and result alone", {"protocolVersion": 2}, {"protocolVersion": 2}, "v2"),
    ("JSON text", json.dumps(initialize(2)), json.dumps(answer(1)).encode(), "v1"),
]
REFUSED = [
    (
        "agent answers a version the package lacks",
        initialize(7),
        answer(3),
        "no common protocol version: the agent answered 3 and this package speaks 1, 2",
    ),
    (
        "agent answers above the offer",
        initialize(1),
        answer(2),
        "the agent answered protocol version 2, above the 1 the client offered",
    ),
    (
        "agent supports nothing at or below the offer",
        initialize(0),
        {"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "no"}},
        "the agent supports no protocol version at or below the one offered (error -32022)",
    ),
    (
        "initialize fails otherwise",
        initialize(1),
        {"jsonrpc": "2.0", "id": 0, "error": {"code": -32603, "message": "boom"}},
        "initialize failed: error -32603: 'boom'",
    ),
    (
        "offer is a string",
        initialize("1"),
        answer(1),
        "params.protocolVersion must be an integer, not str '1'",
    ),
    (
        "offer is missing",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        answer(1),
        "params.protocolVersion must be an integer, not missing",
    ),
    (
        "offer is a boolean",
        initialize(True),
        answer(1),
        "params.protocolVersion must be an integer, not bool True",
    ),
    (
        "offer out of range",
        initialize(70000),
        answer(1),
        "params.protocolVersion must be from 0 to 65535, not 70000",
    ),
    (
        "answer is a float",
        initialize(1),
        answer(1.0),
        "result.protocolVersion must be an integer, not float 1.0",
    ),
    (
        "not initialize",
        {"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {}},
        answer(1),
        "not an initialize request: method 'session/new'",
    ),
    (
        "no params",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize"},
        answer(1),
        "the initialize request has no params object",
    ),
    (
        "no result",
        initialize(1),
        {"jsonrpc": "2.0", "id": 0},
        "the initialize response has no result object",
    ),
    (
        "not JSON",
        b"{",
        answer(1),
        "the initialize request is not JSON: Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)",
    ),
    ("NaN", '{"protocolVersion": NaN}', answer(1), "the initialize request is not JSON: ..."),
    ("not an object", "[1]", answer(1), "the initialize request is not a JSON object"),
]


@pytest.mark.parametrize(("case", "request_", "response", "version"), NEGOTIATED)
def test_negotiate(
    built: dict[str, ModuleType], case: str, request_: Any, response: Any, version: str
) -> None:
    for pkg in built.values():
        assert pkg.negotiate(request_, response) is getattr(pkg, version), case


@pytest.mark.parametrize(("case", "request_", "response", "message"), REFUSED)
def test_negotiate_refuses(
    built: dict[str, ModuleType], case: str, request_: Any, response: Any, message: str
) -> None:
    pkg = built["msgspec"]
    with pytest.raises(pkg.NegotiationError) as caught:
        pkg.negotiate(request_, response)
    text = str(caught.value)
    assert text == message or (message.endswith("...") and text.startswith(message[:-3])), case


def test_peek_is_one_function_at_the_top(built: dict[str, ModuleType]) -> None:
    """Routing needs no version: `peek` reads a message before negotiation."""
    data = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}'
    for pkg in built.values():
        route = pkg.peek(data)
        assert (route.method, route.id, route.session_id, route.kind) == (
            "session/update",
            pkg.UNSET,
            "s",
            pkg.UNSET,
        )
        assert pkg.v1.peek is pkg.peek is pkg.v2.peek and pkg.v2.Route is pkg.Route


def test_choose_is_the_agents_side(built: dict[str, ModuleType]) -> None:
    pkg = built["msgspec"]
    assert [pkg.choose(n) for n in (1, 2, 3, 65535)] == [1, 2, 2, 2]
    with pytest.raises(pkg.NegotiationError) as caught:
        pkg.choose(0)
    assert caught.value.code == pkg.UNSUPPORTED_VERSION == -32022
    assert str(caught.value) == (
        "no common protocol version: the client offers 0 and this package speaks 1, 2"
    )


def notification(update: dict[str, Any] = CHUNK) -> bytes:
    params = {"sessionId": "s", "update": update}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}).encode()


@pytest.mark.parametrize("target", tuple(TARGETS))
def test_connection_watches_initialize_then_decodes(
    built: dict[str, ModuleType], target: str
) -> None:
    pkg = built[target]
    conn = pkg.Connection()
    assert conn.version is None
    with pytest.raises(pkg.NegotiationError, match=r"^Connection.decode_notification: no pro"):
        conn.decode_notification(notification())
    with pytest.raises(pkg.NegotiationError):
        _ = conn.SessionState
    # messages before initialize, and responses to other requests, pass unread
    assert conn.watch({"jsonrpc": "2.0", "method": "$/ping"}) is None
    assert conn.watch(answer(1, ident=5)) is None
    assert conn.watch(initialize(2, ident="a")) is None
    assert conn.watch(answer(1, ident=0)) is None  # not the answer: another id
    assert conn.watch(json.dumps(answer(1, ident="a"))) == 1
    assert (conn.version, conn.module) == (1, pkg.v1)
    assert conn.decode_notification is pkg.v1.decode_notification
    assert conn.encode is pkg.v1.encode and conn.SessionState is pkg.v1.SessionState
    params = conn.decode_notification(notification())
    assert type(params) is pkg.v1.models.SessionNotification
    assert json.loads(conn.encode(params)) == {"sessionId": "s", "update": CHUNK}
    assert conn.watch(initialize(2)) == 1  # nothing is read once settled


def test_connection_on_the_agents_side_and_refusals(built: dict[str, ModuleType]) -> None:
    pkg = built["msgspec"]
    conn = pkg.Connection()
    conn.watch(initialize(5, ident=1))
    assert conn.watch(answer(pkg.choose(5), ident=1)) == 2
    v2 = conn.decode_notification(notification({**CHUNK, "messageId": "m"}))
    assert type(v2).__module__ == f"{pkg.__name__}.v2.models"
    refused = pkg.Connection()
    refused.watch(initialize(1))
    with pytest.raises(pkg.NegotiationError, match="above the 1 the client offered"):
        refused.watch(answer(2))
    assert refused.version is None
    with pytest.raises(pkg.NegotiationError, match="no usable id"):
        pkg.Connection().watch({"jsonrpc": "2.0", "method": "initialize", "params": {}})
    with pytest.raises(pkg.NegotiationError, match="speaks 1, 2, not protocol version 3"):
        pkg.Connection().use(3)


def test_one_decode_error_repair_and_unset_for_every_version(
    built: dict[str, ModuleType],
) -> None:
    for pkg in built.values():
        for version in (pkg.v1, pkg.v2):
            assert version.DecodeError is pkg.DecodeError
            assert version.UNSET is pkg.UNSET
            assert version.codec.Repair is pkg.Repair
        assert pkg.v1.models.TextContent is not pkg.v2.models.TextContent
        with pytest.raises(pkg.DecodeError):
            pkg.v2.decode_notification(notification())  # v2 chunks need a messageId


def test_versions_are_imported_when_first_used(built: dict[str, ModuleType]) -> None:
    code = (
        "import sys, two_versions_msgspec as p; "
        "print('two_versions_msgspec.v1' in sys.modules); p.v2; "
        "print('two_versions_msgspec.v1' in sys.modules, 'two_versions_msgspec.v2' in sys.modules)"
    )
    root = str(Path(built["msgspec"].__file__).parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.split() == ["False", "False", "True"]


# -- the transcript tools -----------------------------------------------------------------
def run(pkg: ModuleType, command: str, *args: str, stdin: str | None = None) -> Any:
    root = str(Path(pkg.__file__).parent.parent)
    return subprocess.run(
        [sys.executable, "-m", f"{pkg.__name__}.{command}", *args],
        capture_output=True,
        text=True,
        cwd=root,
        input=stdin,
    )


def v2_recording(tmp_path: Path) -> Path:
    lines = [
        initialize(2),
        answer(2),
        json.loads(notification({**CHUNK, "messageId": "m1"})),
    ]
    path = tmp_path / "v2.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_checker_reads_the_version_from_initialize(
    built: dict[str, ModuleType], tmp_path: Path
) -> None:
    pkg = built["msgspec"]
    v1 = run(pkg, "conformance", str(TRANSCRIPTS / "acplazybridge_t033c.jsonl"))
    assert v1.returncode == 0 and v1.stderr.endswith("protocol v1, 7 rules checked\n"), v1.stderr
    assert "read as" not in v1.stderr
    v2 = run(pkg, "conformance", str(v2_recording(tmp_path)))
    assert "protocol v2" in v2.stderr and "read as" not in v2.stderr, v2.stderr
    forced = run(
        pkg, "conformance", "--protocol", "2", str(TRANSCRIPTS / "acplazybridge_t033c.jsonl")
    )
    assert "protocol v2" in forced.stderr
    bad = run(pkg, "conformance", "--protocol", "3", "x.jsonl")
    assert (bad.returncode, bad.stderr) == (
        2,
        f"{pkg.__name__}.conformance: --protocol must be one of 1, 2, not 3\n",
    )


def test_a_recording_without_initialize_says_what_was_assumed(
    built: dict[str, ModuleType],
) -> None:
    pkg = built["msgspec"]
    path = TRANSCRIPTS / "codecompanion_gemini_prompt_response.jsonl"
    checked = run(pkg, "conformance", str(path))
    note = (
        f"{path}: read as protocol v1: it holds no initialize exchange; v2 cannot decode the "
        "update on line 1 (--protocol picks one)\n"
    )
    assert checked.stderr.startswith(note) and checked.returncode == 0, checked.stderr
    replayed = run(pkg, "state", "-", stdin=path.read_text())
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stderr == note.replace(str(path), "standard input")
    assert replayed.stdout.startswith("SessionState(")
    v2_chunk = notification({**CHUNK, "messageId": "m"}).decode() + "\n"
    newest = run(pkg, "state", "-", stdin=v2_chunk)
    assert newest.stderr == (
        "standard input: read as protocol v2: it holds no initialize exchange "
        "(--protocol picks one)\n"
    )
    forced = run(pkg, "state", "--protocol", "1", "-", stdin=v2_chunk)
    assert forced.returncode == 0 and forced.stderr == "", forced.stderr


def test_acp_codegen_conformance_takes_one_schema_per_version(tmp_path: Path) -> None:
    """``acp-codegen conformance --schema 1=... --schema 2=...`` checks each recording as
    the version it negotiated, as the package's own command does."""
    pair = [f"--schema={n}={path}" for n, path in newest_pair()]
    v1 = cli(tmp_path, "conformance", str(TRANSCRIPTS / "acplazybridge_t033c.jsonl"), *pair)
    assert v1.returncode == 0, v1.stderr
    assert v1.stderr.endswith("protocol v1, 7 rules checked\n") and "read as" not in v1.stderr
    v2 = cli(tmp_path, "conformance", str(v2_recording(tmp_path)), *pair, "--format", "json")
    assert "read as" not in v2.stderr, v2.stderr
    assert json.loads(v2.stdout)["protocol"] == 2
    bad = cli(tmp_path, "conformance", "x.jsonl", *pair, "--protocol", "3")
    assert bad.returncode == 2 and "'3' is not one of '1', '2'" in bad.stderr


def test_replay_reads_the_version_from_initialize(
    built: dict[str, ModuleType], tmp_path: Path
) -> None:
    for pkg in built.values():
        replayed = run(pkg, "state", "--json", str(v2_recording(tmp_path)))
        assert replayed.returncode == 0, replayed.stderr
        assert "skipped 2 message(s)" in replayed.stderr and "read as" not in replayed.stderr
        assert json.loads(replayed.stdout)["timeline"][0]["id"] == "m1"


# -- the corpus ---------------------------------------------------------------------------
def lines() -> dict[str, dict[str, list[corpus.Revision]]]:
    """v1 and v2 revisions by the minor release line they were published in (``v1.7``
    of tag ``v1.7.0``), or by day for revisions published without a tag."""
    rows = {r.file: r for r in corpus.schemas()}
    tags = {}
    with open(corpus.SCHEMAS / "MANIFEST.tsv", encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        for raw in handle:
            row = dict(zip(header, raw.rstrip("\n").split("\t"), strict=False))
            tags[row["file"]] = row.get("release_tag", "")
    found: dict[str, dict[str, list[corpus.Revision]]] = defaultdict(lambda: defaultdict(list))
    for file, revision in rows.items():
        if revision.folder in ("v1", "v2"):
            tag = tags.get(file, "")
            line = tag.rsplit(".", 1)[0] if tag else revision.commit_date[:10]
            found[line][revision.folder].append(revision)
    return {k: v for k, v in found.items() if "v1" in v and "v2" in v}


def pairs() -> list[tuple[str, Path, Path]]:
    """For each line, enough v1-v2 pairs that every revision of the line is in one."""
    if not corpus.available():
        return []
    chosen = []
    for line, folders in sorted(lines().items()):
        v1, v2 = folders["v1"], folders["v2"]
        for i in range(max(len(v1), len(v2))):
            chosen.append((line, v1[i % len(v1)].path, v2[i % len(v2)].path))
    return chosen


def test_every_line_with_both_versions_is_paired() -> None:
    corpus.require()
    found = pairs()
    paired = {p for _, a, b in found for p in (a, b)}
    expected = {r.path for f in lines().values() for rs in f.values() for r in rs}
    assert paired == expected and len(found) >= len(lines()) >= 1


def test_every_paired_revision_generates_as_one_package(generated_root: Path) -> None:
    corpus.require()
    for index, (line, v1, v2) in enumerate(pairs()):
        name = f"pair_{index}"
        out = generated_root / name
        emit.write_tree(out, generate(job(out, name, "msgspec", ((1, v1), (2, v2)), "none")))
        pkg = importlib.import_module(name)
        assert pkg.negotiate(initialize(2), answer(1)) is pkg.v1, (line, v1, v2)
        conn = pkg.Connection()
        conn.use(2)
        assert (
            type(conn.decode_update(json.dumps({**CHUNK, "messageId": "m"}))).__name__
            == "AgentMessageChunk"
        ), (line, v2)
        assert pkg.v1.decode_update(json.dumps(CHUNK)) is not None, (line, v1)


# -- configuration, flags, diff and inspect -------------------------------------------------


def small_pair(root: Path) -> Path:
    """Two tiny schemas, v2 with one more variant than v1, and a job naming both."""
    from tests.test_cli_config import SMALL

    second = json.loads(json.dumps(SMALL))
    second["$defs"]["U"]["anyOf"].append(
        {
            "type": "object",
            "properties": {"kind": {"type": "string", "const": "b"}},
            "required": ["kind"],
        }
    )
    (root / "v1.json").write_text(json.dumps(SMALL), encoding="utf-8")
    (root / "v2.json").write_text(json.dumps(second), encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.acp-codegen]\nversions = { "1" = "v1.json", "2" = "v2.json" }\nout = "out/pkg"\n',
        encoding="utf-8",
    )
    return root


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "acp_codegen", *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)


def test_one_config_line_makes_a_package_of_both(tmp_path: Path) -> None:
    root = small_pair(tmp_path)
    made = cli(root, "generate", "--quiet")
    assert made.returncode == 0, made.stderr
    assert {p.name for p in (root / "out" / "pkg").iterdir()} >= {"v1", "v2", "_versions.py"}
    flagged = cli(root, "generate", "--quiet", "--schema", "1=v1.json", "--schema", "2=v2.json")
    assert flagged.returncode == 0, flagged.stderr
    header = (root / "generated" / "acp" / "__init__.py").read_text(encoding="utf-8")
    assert "--schema 1=v1.json --schema 2=v2.json" in header


BAD_VERSIONS = [
    (
        '[tool.acp-codegen]\nversions = { "1" = "v1.json" }\nschema = "v1.json"\nout = "o"',
        "has both 'schema' and 'versions'",
    ),
    (
        '[tool.acp-codegen]\nversions = "v1.json"\nout = "o"',
        "key 'versions' must be a table of schemas by protocol version",
    ),
    (
        '[tool.acp-codegen]\nversions = { "01" = "v1.json" }\nout = "o"',
        "key 'versions': '01' is not a protocol version (a whole number from 0 to 65535)",
    ),
    (
        '[tool.acp-codegen]\nversions = { "70000" = "v1.json" }\nout = "o"',
        "'70000' is not a protocol version",
    ),
    (
        '[tool.acp-codegen]\nversions = { "1" = 3 }\nout = "o"',
        "the schema of version 1 must be a non-empty string",
    ),
    (
        '[tool.acp-codegen]\nversions = { "1" = "v1.json" }\nout = "o"\n'
        'source = "github:agentclientprotocol/agent-client-protocol"',
        "'versions' has several (upgrade each in a job of its own)",
    ),
]


@pytest.mark.parametrize(("table", "message"), BAD_VERSIONS)
def test_a_bad_versions_key_is_one_line(tmp_path: Path, table: str, message: str) -> None:
    root = small_pair(tmp_path)
    (root / "pyproject.toml").write_text(table, encoding="utf-8")
    made = cli(root, "generate")
    assert made.returncode == 2
    assert message in made.stderr and len(made.stderr.splitlines()) == 1, made.stderr
    assert not (root / "o").exists()


BAD_FLAGS = [
    (["--schema", "a.json", "--schema", "b.json"], "write --schema 1=PATH --schema 2=PATH"),
    (["--schema", "1=v1.json", "--schema", "v2.json"], "give every schema with its protocol"),
    (["--schema", "1=v1.json", "--schema", "1=v2.json"], "names protocol version 1 twice"),
    (["--schema", "1="], "--schema 1=: no schema path after '='"),
    (["--schema", "007=v1.json"], "'007' is not a protocol version"),
]


@pytest.mark.parametrize(("flags", "message"), BAD_FLAGS)
def test_a_bad_schema_flag_is_one_line(tmp_path: Path, flags: list[str], message: str) -> None:
    made = cli(small_pair(tmp_path), "generate", *flags, "--out", "o")
    assert made.returncode == 2
    assert message in made.stderr and len(made.stderr.splitlines()) == 1, made.stderr
    assert not (tmp_path / "o").exists()


def test_diff_and_inspect_read_the_versions_of_the_job(tmp_path: Path) -> None:
    root = small_pair(tmp_path)
    by_name = cli(root, "diff", "v1", "v2", "--format", "json")
    by_path = cli(root, "diff", "v1.json", "v2.json", "--format", "json")
    assert by_name.returncode == by_path.returncode == 0, by_name.stderr
    assert json.loads(by_name.stdout)["changes"] == json.loads(by_path.stdout)["changes"]
    assert json.loads(by_name.stdout)["changes"]
    both = cli(root, "inspect", "--json")
    assert both.returncode == 0, both.stderr
    summaries = json.loads(both.stdout)
    assert list(summaries) == ["1", "2"]
    assert summaries["2"] == json.loads(cli(root, "inspect", "v2.json", "--json").stdout)
    assert json.loads(cli(root, "inspect", "2", "--json").stdout) == summaries["2"]
    text = cli(root, "inspect").stdout
    assert text.count("Protocol version ") == 2 and text.index("version 1") < text.index("2\n")


def test_since_package_knows_the_layout_of_several_versions(tmp_path: Path) -> None:
    root = small_pair(tmp_path)
    assert cli(root, "generate", "--quiet").returncode == 0
    named = cli(root, "diff", "v1", "v2", "--since-package", "out/pkg", "--quiet")
    folder = cli(root, "diff", "v1.json", "v2.json", "--since-package", "out/pkg/v2", "--quiet")
    assert named.returncode == folder.returncode == 0, named.stderr + folder.stderr
    assert named.stdout == folder.stdout
    vague = cli(root, "diff", "v1.json", "v2.json", "--since-package", "out/pkg")
    assert vague.returncode == 2
    assert vague.stderr == (
        "error: --since-package: out/pkg holds several versions (v1, v2): name one, "
        "as in --since-package out/pkg/v2\n"
    )


NAMED_REFUSALS = [
    (["diff", "v1", "v3"], "error: NEW v3: job 'default' has v1, v2, not v3\n"),
    (["inspect", "v02"], "error: SCHEMA v02: '02' is not a protocol version"),
    (["inspect", "--job", "other"], "error: no job 'other' with versions in [tool.acp-codegen]"),
]


@pytest.mark.parametrize(("args", "message"), NAMED_REFUSALS)
def test_naming_a_version_that_is_not_there(tmp_path: Path, args: list[str], message: str) -> None:
    made = cli(small_pair(tmp_path), *args)
    assert made.returncode == 2
    assert made.stderr.startswith(message) and len(made.stderr.splitlines()) == 1, made.stderr


def test_a_version_name_without_a_versions_job(tmp_path: Path) -> None:
    made = cli(tmp_path, "diff", "v1", "v2")
    assert made.returncode == 2
    assert made.stderr == (
        "error: OLD v1: no such file, and no job with versions (no pyproject.toml here or above)\n"
    )
