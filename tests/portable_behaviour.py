"""Behaviour of generated packages that needs nothing but the package, its library and pytest.

`tests/other_pythons.py` runs this module under each supported Python (3.10 to 3.13) against
packages generated from our own ``schema/`` for every target; `tests/test_other_pythons.py`
runs it under the suite's own Python. It is copied beside the packages and run there, so it
imports nothing from this repository: ``ACP_PACKAGES`` names the packages to test
(comma-separated), importable from the working directory.
"""

from __future__ import annotations

import enum
import importlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

PACKAGES = os.environ["ACP_PACKAGES"].split(",")


@pytest.fixture(params=PACKAGES)
def pkg(request: pytest.FixtureRequest) -> ModuleType:
    return importlib.import_module(request.param)


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def update(tag: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": tag, **fields}


def roundtrip(pkg: ModuleType, payload: dict[str, Any]) -> Any:
    obj = pkg.decode_update(json.dumps(payload))
    assert json.loads(pkg.encode(obj)) == payload
    return obj


def test_known_update_decodes_to_its_class_and_round_trips(pkg: ModuleType) -> None:
    obj = roundtrip(pkg, update("agent_message_chunk", messageId="m", content=text("hi")))
    assert type(obj) is pkg.AgentMessageChunk
    assert (obj.message_id, obj.content.text) == ("m", "hi")


def test_undeclared_properties_and_unknown_members_survive(pkg: ModuleType) -> None:
    obj = roundtrip(pkg, update("agent_message", messageId="m", content=[text("a", zz=[1])]))
    assert pkg.extra_fields(obj.content[0]) == {"zz": [1]}
    future = roundtrip(pkg, update("hologram", messageId="m", depth=3))
    assert isinstance(future, pkg.UnknownSessionUpdate)


def test_notification_envelope_and_bad_input(pkg: ModuleType) -> None:
    params = {"sessionId": "s", "update": update("plan_removed", planId="p")}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    got = pkg.decode_notification(json.dumps(message))
    assert type(got.update) is pkg.PlanRemoved and got.update.plan_id == "p"
    with pytest.raises(pkg.DecodeError):
        pkg.decode_update(b'{"sessionUpdate": "agent_message_chunk"')


def test_open_enum_prints_as_its_value_and_keeps_unknown_values(pkg: ModuleType) -> None:
    status = pkg.CompactionStatus
    known = status("completed")
    assert known == "completed" and known.is_known
    assert (str(known), f"{known}", "%s" % known) == ("completed",) * 3  # noqa: UP031
    assert json.loads(pkg.encode(known)) == "completed"
    later = status("archived")
    assert (later, later.is_known, later.is_future, str(later)) == (
        "archived",
        False,
        True,
        "archived",
    )
    # One kind of class on every target: an `enum` class whose instances are strings, the
    # unknown value an instance of the same class, and the known one its member.
    assert issubclass(status, enum.Enum) and isinstance(later, str) and type(later) is status
    assert status("completed") is known and known in list(status) and later not in list(status)


def test_session_state_reduces_and_reads_back(pkg: ModuleType) -> None:
    state = pkg.SessionState()
    for payload in (
        update("user_message", messageId="u", content=[text("q")]),
        update("agent_message_chunk", messageId="a", content=text("1", zz=True)),
        update("agent_message_chunk", messageId="a", content=text("2")),
        update("hologram", depth=1),
        update("state_update", state="idle", stopReason="end_turn"),
    ):
        state.apply(pkg.decode_update(json.dumps(payload)))
    assert [block.text for block in state.get("agent_message", "a").content] == ["1", "2"]
    assert repr(state) == (
        "SessionState(state='idle', stop_reason='end_turn', entities={'user_message': 1, "
        "'agent_message': 1, 'unknown': 1}, updates=5, last=[('user_message', 'u'), "
        "('agent_message', 'a'), ('unknown', '0')])"
    )
    data = json.loads(json.dumps(state.to_dict()))
    assert (data["state"], data["stop_reason"], data["error"]) == ("idle", "end_turn", None)
    assert data["timeline"] == [
        {"kind": "user_message", "id": "u", "fields": {"message_id": "u", "content": [text("q")]}},
        {
            "kind": "agent_message",
            "id": "a",
            "fields": {"message_id": "a", "content": [text("1", zz=True), text("2")]},
        },
        {"kind": "unknown", "id": "0", "update": update("hologram", depth=1)},
    ]


def _state_module(pkg: ModuleType, *args: str) -> Any:
    command = [sys.executable, "-m", f"{pkg.__name__}.state", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _replay(pkg: ModuleType, tmp_path: Path, *lines: str, flag: str = "") -> Any:
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return _state_module(pkg, *([flag] if flag else []), str(path))


def test_state_module_replays_a_recorded_stream(pkg: ModuleType, tmp_path: Path) -> None:
    chunk = update("agent_message_chunk", messageId="a", content=text("hi"))
    idle = update("state_update", state="idle", stopReason="end_turn")
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": chunk},
    }
    lines = (json.dumps(message), "", json.dumps({"sessionId": "s", "update": idle}))
    done = _replay(pkg, tmp_path, *lines)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("SessionState(state='idle', stop_reason='end_turn'")
    as_json = json.loads(_replay(pkg, tmp_path, *lines, flag="--json").stdout)
    assert as_json["timeline"][0]["fields"]["content"] == [text("hi")]


def test_state_module_names_the_bad_line(pkg: ModuleType, tmp_path: Path) -> None:
    good = json.dumps(update("plan_removed", planId="p"))
    for bad, why in (
        ('{"sessionUpdate": "plan_removed"', "not JSON (Expecting"),
        ('{"method": "session/update", "params": {"update": 5}}', "$.params.update"),
        ("[1]", "not a session/update notification"),
        ('{"sessionUpdate": "agent_message_chunk"}', "`messageId` - at `$`"),
        (
            '{"message": {"method": "session/update", "params": {"update": {}}}, "direction": "a"}',
            "`sessionUpdate` - at `$.message.params.update`",
        ),
    ):
        done = _replay(pkg, tmp_path, good, bad)
        assert done.returncode == 2 and done.stdout == "", bad
        line = done.stderr.rstrip("\n")
        assert line.startswith(f"error: {tmp_path / 'stream.jsonl'}:2: ") and why in line, line
        assert "\n" not in line and "Traceback" not in line
    missing = _state_module(pkg, "nope.jsonl")
    assert (missing.returncode, missing.stderr) == (
        2,
        "error: nope.jsonl: cannot read: No such file or directory\n",
    )


def test_state_module_skips_other_messages_and_says_so(pkg: ModuleType, tmp_path: Path) -> None:
    prompt = {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"messageId": "u"}}
    chunk = update("agent_message_chunk", messageId="a", content=text("hi"))
    note = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": chunk},
    }
    done = _replay(pkg, tmp_path, json.dumps(prompt), json.dumps(note), json.dumps(answer))
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr == f"{tmp_path / 'stream.jsonl'}: skipped 2 message(s) that are not updates\n"
    )
    assert "'agent_message': 1" in done.stdout
    nothing = _replay(pkg, tmp_path, json.dumps(prompt))
    assert (nothing.returncode, nothing.stdout) == (3, "")
    assert nothing.stderr.endswith(": no updates: nothing to replay\n")
    helped = _state_module(pkg, "--help")
    assert helped.returncode == 0 and "exit status:" in helped.stdout, helped.stderr


def test_package_is_used_with_warnings_as_errors(pkg: ModuleType) -> None:
    """A fresh interpreter that makes every warning an error imports the package, decodes
    an update with an omitted field and writes it back: nothing on that path is deprecated
    in the library installed (pydantic 2.14 deprecates ``pydantic.experimental``'s
    ``MISSING``, for one)."""
    code = (
        f"import json, {pkg.__name__} as p\n"
        "data = json.dumps({'sessionUpdate': 'agent_message_chunk', 'messageId': 'm',"
        " 'content': {'type': 'text', 'text': 'hi'}})\n"
        "assert json.loads(p.encode(p.decode_update(data))) == json.loads(data)\n"
    )
    args = [sys.executable, "-W", "error", "-c", code]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")


def test_dispatch_calls_overrides_and_warns_of_unused_ones(pkg: ModuleType) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        class Client(pkg.SessionUpdateHandler):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                self.seen: list[str] = []

            def on_plan_removed(self, update: Any) -> None:
                self.seen.append(update.plan_id)

            def on_unknown(self, update: Any) -> None:
                self.seen.append("unknown")

            def on_tool_call(self, update: Any) -> None:  # a v1 kind this schema lacks
                self.seen.append("never")

    assert [(w.category.__name__, str(w.message)) for w in caught] == [
        (
            "UnusedHandlerWarning",
            "test_dispatch_calls_overrides_and_warns_of_unused_ones.<locals>.Client.on_tool_call "
            "is never called: SessionUpdateHandler has no 'tool_call' member (an older schema's?)",
        )
    ]
    assert caught[0].filename == __file__  # points at the class statement
    client = Client()
    for payload in (update("plan_removed", planId="p"), update("hologram")):
        pkg.dispatch(pkg.decode_update(json.dumps(payload)), client)
    assert client.seen == ["p", "unknown"]


def test_terminal_output_is_strict_base64_and_reads_back_as_base64(pkg: ModuleType) -> None:
    state = pkg.SessionState()
    for data in ("Y2Fmww==", "qSEK", "not base64!"):  # the last chunk is dropped, not garbled
        state.apply(
            pkg.decode_update(
                json.dumps(update("terminal_output_chunk", terminalId="t", data=data))
            )
        )
    assert state.get("terminal", "t").output == "café!\n".encode()
    fields = state.to_dict()["timeline"][0]["fields"]
    assert fields["output"] == "Y2Fmw6khCg=="  # the bytes gathered, as base64 text
