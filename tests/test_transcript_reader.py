"""The transcript tools on hostile input: the checker (``python -m <pkg>.conformance`` and
``acp-codegen conformance``) and the replay (``python -m <pkg>.state``), on every target.

Each input gives exit 2 and one line on stderr naming the file and line, no traceback;
empty input gives exit 3 and one line; a closed output pipe ends quietly. A property
test shows the reader splits lines only where ``\\n`` does, as ``json.loads`` line by
line reads them.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import OWN_SCHEMA, GenerateFn


def note(**params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "a",
    "content": {"type": "text", "text": "hi"},
}
#: A line both commands read without a word: an update that breaks no rule.
GOOD = json.dumps(
    note(sessionId="s", update={"sessionUpdate": "usage_update", "used": 1, "size": 9})
).encode()

#: name -> (the file's bytes, or a path to read, and what the error line says)
HOSTILE: dict[str, tuple[bytes | str, str]] = {
    "deep nesting": (b"[" * 5000 + b"]" * 5000, ":1: nests deeper than 200 levels"),
    "array id": (b'{"jsonrpc": "2.0", "id": [1], "method": "session/prompt"}', "id is an array"),
    "object id": (b'{"jsonrpc": "2.0", "id": {}, "result": {}}', "id is an object"),
    "boolean id": (b'{"jsonrpc": "2.0", "id": true, "result": {}}', "id is a boolean"),
    "array session": (
        json.dumps(note(sessionId=["s"], update=CHUNK)).encode(),
        "params.sessionId is an array, not a string",
    ),
    "number method": (b'{"jsonrpc": "2.0", "method": 5}', "method is a number, not a string"),
    "number params": (
        b'{"jsonrpc": "2.0", "method": "session/update", "params": 5}',
        "params is a number, not an object or an array",
    ),
    "not JSON": (b'{"jsonrpc": "2.0", "id": 1,', ":1: not JSON (Expecting"),
    "not UTF-8": (b'{"jsonrpc": "2.0", "method": "x\xff"}', ":1: not UTF-8 (byte 32 of the line)"),
    "huge integer": (
        b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "result": {}}',
        "an integer of 5000 digits (at most 4300 are read)",
    ),
    "NaN": (b'{"jsonrpc": "2.0", "id": NaN, "result": {}}', "not JSON (NaN is not valid JSON)"),
    "infinite float": (
        b'{"jsonrpc": "2.0", "id": 1e999, "result": {}}',
        "not JSON (number 1e999 is out of range)",
    ),
    "lone surrogate": (
        b'{"jsonrpc": "2.0", "method": "x", "params": {"a": "\\ud800"}}',
        "a string holds an unpaired surrogate",
    ),
    "a bare value": (b"[1, 2]", "not a JSON-RPC message (an object): an array"),
    "line too long": (
        b'{"pad": "' + b"x" * 70_000 + b'"}',
        ":1: the line is longer than 65,536 bytes",
    ),
    "directory": (".", "cannot read: Is a directory"),
    "device": ("/dev/zero", ":1: the line is longer than 65,536 bytes"),
    "missing": ("no-such-file.jsonl", "cannot read: No such file or directory"),
}

#: What the replay says instead, where it reads a record differently.
REPLAY_SAYS = {"a bare value": "not a session/update notification, its params or an update"}


@pytest.fixture(scope="module")
def package(make_package: GenerateFn, target: str) -> ModuleType:
    return make_package(OWN_SCHEMA, "transcripts", target=target)


def _command(package: ModuleType, tool: str) -> list[str]:
    return [sys.executable, "-m", f"{package.__name__}.{tool}"]


def _run(args: list[str], cwd: Path, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, capture_output=True, text=True, cwd=cwd, timeout=120, check=False, **kw
    )


def _root(package: ModuleType) -> Path:
    return Path(package.__file__).parent.parent


def _hostile_file(name: str, tmp_path: Path) -> tuple[str, str]:
    """The path to read for a hostile input, and what the error line must say."""
    content, says = HOSTILE[name]
    if not isinstance(content, bytes):
        return content, says
    path = tmp_path / "bad.jsonl"
    path.write_bytes(GOOD + b"\n" + content + b"\n")  # a good line first: the bad one is 2
    return str(path), says.replace(":1:", ":2:")


def _in_process(package: ModuleType, tool: str, argv: list[str]) -> int:
    if tool == "conformance":
        code: int = importlib.import_module(package.__name__ + ".conformance").main(argv)
        return code
    state = importlib.import_module(package.__name__ + ".state")
    transcript = importlib.import_module(package.__name__ + "._transcript")
    code = transcript.replay_command(state.SessionState, argv)
    return code


@pytest.mark.parametrize("tool", ["conformance", "state"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_is_one_line_and_exit_2(
    package: ModuleType,
    tool: str,
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(_root(package))
    shown, says = _hostile_file(name, tmp_path)
    assert _in_process(package, tool, [shown, "--max-line", "64k"]) == 2
    out, err = capsys.readouterr()
    assert (out, err.count("\n")) == ("", 1), err
    assert err.startswith(f"error: {shown}:"), err
    assert (REPLAY_SAYS.get(name, says) if tool == "state" else says) in err, err


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_to_the_generator_command(target: str, name: str, tmp_path: Path) -> None:
    # `acp-codegen conformance` runs the same command of a package it generates.
    shown, says = _hostile_file(name, tmp_path)
    args = [sys.executable, "-m", "acp_codegen", "conformance", shown, "--target", target]
    args += ["--max-line", "64k"]
    done = _run(args, tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: {shown}:") and says in done.stderr, done.stderr


@pytest.mark.parametrize("tool", ["conformance", "state"])
@pytest.mark.parametrize("content", [b"", b"\n\n  \n\r\n"], ids=["empty", "blank"])
def test_empty_input_is_one_line_and_exit_3(
    package: ModuleType, tool: str, content: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    for shown in (str(path), "/dev/null"):
        done = _run([*_command(package, tool), shown], _root(package))
        assert (done.returncode, done.stdout) == (3, "")
        what = (
            "no messages: nothing to check"
            if tool == "conformance"
            else "no updates: nothing to replay"
        )
        assert done.stderr == f"{shown}: {what}\n"


@pytest.mark.parametrize("tool", ["conformance", "state"])
def test_standard_input_and_help(package: ModuleType, tool: str) -> None:
    done = _run([*_command(package, tool), "-"], _root(package), input=GOOD.decode() + "\n")
    assert done.returncode == 0, done.stderr
    helped = _run([*_command(package, tool), "--help"], _root(package))
    assert (
        helped.returncode == 0 and "exit status:" in helped.stdout and "--max-line" in helped.stdout
    )


@pytest.mark.parametrize("tool", ["conformance", "state"])
def test_a_closed_pipe_ends_quietly(package: ModuleType, tool: str, tmp_path: Path) -> None:
    # Thousands of messages, each a finding for the checker and an entity for the replay:
    # far more output than a pipe holds, so writing fails once the reader has gone.
    path = tmp_path / "long.jsonl"
    lines = (note(sessionId="s", update={**CHUNK, "messageId": f"a{i}"}) for i in range(3000))
    path.write_text("".join(json.dumps(m) + "\n" for m in lines), encoding="utf-8")
    args = [*_command(package, tool), *(["--json"] if tool == "state" else []), str(path)]
    if tool == "conformance":  # the first chunk of each turn is a finding: one per message
        path.write_text(
            "".join(json.dumps(note(sessionId=f"s{i}", update=CHUNK)) + "\n" for i in range(3000)),
            encoding="utf-8",
        )
    proc = subprocess.Popen(
        args, cwd=_root(package), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == ""


def test_the_checker_refuses_unhashable_ids_in_process(package: ModuleType) -> None:
    conformance = importlib.import_module(package.__name__ + ".conformance")
    for message, says in (
        ({"jsonrpc": "2.0", "id": [1], "method": "session/prompt"}, "id is an array"),
        (note(sessionId=["s"], update=CHUNK), "params.sessionId is an array"),
    ):
        with pytest.raises(conformance.TranscriptError, match=says) as raised:
            conformance.check([message])
        assert raised.value.index == 0


def test_an_undecodable_update_is_a_finding(package: ModuleType) -> None:
    conformance = importlib.import_module(package.__name__ + ".conformance")
    found = conformance.check([note(sessionId="s", update=5)])
    assert [(v.index, v.rule, v.level, v.message) for v in found] == [
        (0, "update.schema", "MUST", "the update is a number, not an object - at `$.params.update`")
    ]


# -- the reader reads what json.loads reads, line by line ---------------------------------
SEPARATORS = "\u2028\u2029\u0085\u001c\u001d\u001e\x0b\x0c\r"
TEXT = st.text(alphabet=st.sampled_from(SEPARATORS) | st.characters(codec="utf-8"), max_size=12)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(VALUES, st.booleans(), st.booleans()), min_size=1, max_size=6),
)
def test_any_valid_recording_reads_as_json_loads_reads_its_lines(
    transcript_module: ModuleType, tmp_path_factory: pytest.TempPathFactory, lines: list[Any]
) -> None:
    path = tmp_path_factory.mktemp("prop") / "t.jsonl"
    texts = []
    with open(path, "wb") as out:
        for value, crlf, ascii_only in lines:
            message = {"jsonrpc": "2.0", "method": "x", "params": {"v": value}}
            text = json.dumps(message, ensure_ascii=ascii_only)
            texts.append(text)
            out.write(text.encode("utf-8") + (b"\r\n" if crlf else b"\n"))
    read = [record.message for record in transcript_module.read(str(path))]
    assert read == [json.loads(text) for text in texts]


@pytest.fixture(scope="module")
def transcript_module(package: ModuleType) -> ModuleType:
    return importlib.import_module(package.__name__ + "._transcript")


def test_a_path_quotes_keys_that_are_not_names(package: ModuleType) -> None:
    # Repair and error paths print as they are: a key with a NUL, a dot or a quote is
    # written as JSON writes it, so the path reads back unambiguously and prints no
    # control character.
    render = importlib.import_module(package.__name__ + "._read").render
    at = (((None, "update"), "a\x00b.c"), 2)
    assert render(at) == '$.update["a\\u0000b.c"][2]'
    assert render((None, "_meta")) == "$._meta"


def test_a_state_without_history_reduces_alike(package: ModuleType) -> None:
    updates = [
        CHUNK,
        {**CHUNK, "content": {"type": "text", "text": " there"}},
        {"sessionUpdate": "hologram", "x": 1},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    ]
    kept, lean = package.SessionState(), package.SessionState(history=False)
    for update in updates:
        decoded = package.decode_update(json.dumps(update))
        kept.apply(decoded)
        lean.apply(decoded)
    assert lean.to_dict() == kept.to_dict()
    assert len(list(kept.replay())) == 4 and list(lean.replay()) == []


def test_check_takes_objects_deeper_than_any_json_text(package: ModuleType) -> None:
    # Objects handed to `check` skip the reader: one nested far past the recursion limit
    # is still an `update.schema` finding, and deep capabilities are still read.
    conformance = importlib.import_module(package.__name__ + ".conformance")
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    update = {"sessionUpdate": "usage_update", "used": 1, "size": 2, "_meta": {"d": deep}}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize"}
    init["params"] = {"protocolVersion": 2, "clientCapabilities": {"d": deep}}
    found = conformance.check([init, note(sessionId="s", update=update)])
    assert [(v.index, v.rule, v.level, v.message) for v in found] == [
        (1, "update.schema", "MUST", "payload nests too deeply - at `$.params.update`")
    ]


@pytest.mark.parametrize("tool", ["conformance", "state"])
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--max-line", "0", "x.jsonl"], "argument --max-line: not a size: '0'"),
        (["--nope", "x.jsonl"], "unrecognized arguments: --nope"),
        ([], "the following arguments are required: file"),
    ],
    ids=["bad size", "unknown flag", "no file"],
)
def test_bad_arguments_are_one_line_and_exit_2(
    package: ModuleType, tool: str, args: list[str], says: str
) -> None:
    done = _run([*_command(package, tool), *args], _root(package))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert done.stderr.endswith(" (--help lists the options)\n")
