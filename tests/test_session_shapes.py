"""Subagents, session-directed messages, background work, the error stop reason, paused tool
calls, and terminal and tool-call capabilities, on every target.

For each shape: a payload decodes and re-encodes byte for byte (written in the order the
packages write keys: a nested union's own tag first), a malformed value is repaired as its
leniency flag says and the repair is reported, and `SessionState` applies it as the
prompt-lifecycle spec tells a Client to. Each test runs against the package from our own
schema and, with no flags (so with the built-in overlay), against the newest published
schemas that have the shape.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import GenerateFn
from tests.test_session_state import _package, apply, text, texts

#: The packages that have each group of shapes.
HAVE_SUBAGENTS = ["ours", "v2-unstable", "v1-unstable"]
HAVE_STATES = ["ours", "v2-unstable", "v2"]


@pytest.fixture(scope="module", params=HAVE_SUBAGENTS)
def child(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """A package with subagent updates and session-directed messages."""
    return _package(make_package, target, request.param)


@pytest.fixture(scope="module", params=HAVE_STATES)
def pkg(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """A package with state updates, terminals and v2 tool calls."""
    return _package(make_package, target, request.param)


def round_trip(pkg: ModuleType, raw: str) -> Any:
    """Decode `raw` strictly (no repair) and check it re-encodes to the same bytes."""
    repairs: list[Any] = []
    update = pkg.decode_update(raw.encode(), repairs=repairs)
    assert repairs == []
    assert pkg.encode(update) == raw.encode()
    return update


def repaired(pkg: ModuleType, payload: dict[str, Any]) -> tuple[Any, list[tuple[str, str]]]:
    """The decoded update and its repairs as (path, action)."""
    repairs: list[Any] = []
    update = pkg.decode_update(json.dumps(payload), repairs=repairs)
    return update, [(r.path, r.action) for r in repairs]


# -- subagents --------------------------------------------------------------------------------

SUBAGENT = (
    '{"sessionUpdate":"subagent_update","sessionId":"child","title":"Reviewer",'
    '"description":"Checks the diff","capabilities":{"cancel":{}},'
    '"state":{"state":"running","_meta":{"seq":1}},"cwd":"/repo/child",'
    '"additionalDirectories":["/repo/lib"],"_meta":{"k":1}}'
)


def test_subagent_update_round_trips(child: ModuleType) -> None:
    update = round_trip(child, SUBAGENT)
    assert type(update).__name__ == "SubagentUpdate"
    assert (update.session_id, update.title, update.description) == (
        "child",
        "Reviewer",
        "Checks the diff",
    )
    assert update.cwd == "/repo/child" and update.additional_directories == ["/repo/lib"]
    assert type(update.state).__name__ == "RunningStateUpdate" and update.state.meta == {"seq": 1}
    assert update.capabilities.cancel is not None and update.capabilities.cancel is not child.UNSET


def test_subagent_update_repairs(child: ModuleType) -> None:
    """The lenient fields fall back to omitted, with a repair; `cwd` and
    `additionalDirectories` are read strictly, as published."""
    update, repairs = repaired(
        child,
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c",
            "title": 7,
            "state": "running",
            "capabilities": {"cancel": 5},
        },
    )
    assert update.title is child.UNSET and update.state is child.UNSET
    assert update.capabilities.cancel is child.UNSET
    assert sorted(repairs) == [
        ("$.capabilities.cancel", "defaulted"),
        ("$.state", "defaulted"),
        ("$.title", "defaulted"),
    ]
    for bad in (
        {"cwd": 5},
        {"additionalDirectories": "/repo/lib"},
        {"additionalDirectories": ["/ok", 3]},
    ):
        with pytest.raises(child.DecodeError):
            child.decode_update(
                json.dumps({"sessionUpdate": "subagent_update", "sessionId": "c", **bad})
            )


def test_subagent_association_is_an_entity_of_patches(child: ModuleType) -> None:
    """The child is announced by the parent's subagent_update, "before the first snapshot
    that lists it", and kept current through it: a field left out keeps its value, null
    clears it, a value replaces it, and `_meta` patches by top-level key."""
    state = child.SessionState()
    state.apply(child.decode_update(SUBAGENT))
    apply(
        child,
        state,
        "subagent_update",
        sessionId="child",
        title="Reviewer 2",
        state={"state": "idle", "stopReason": "end_turn"},
        _meta={"j": 2},
    )
    entity = state.get("subagent", "child")
    assert (entity.title, entity.description, entity.cwd) == (
        "Reviewer 2",
        "Checks the diff",
        "/repo/child",
    )
    assert type(entity.state).__name__ == "EndTurnIdleStateUpdate"
    assert entity.meta == {"k": 1, "j": 2}
    apply(
        child,
        state,
        "subagent_update",
        sessionId="child",
        state=None,
        cwd=None,
        additionalDirectories=[],
    )
    entity = state.get("subagent", "child")
    assert (entity.state, entity.cwd, entity.additional_directories) == (None, None, [])
    assert state.timeline == [("subagent", "child")] and state.is_live("subagent", "child")
    # the child's own ID names no other kind of entity
    assert state.get("session_message", "child") is None


def test_subagent_capabilities_are_replaced_whole(child: ModuleType) -> None:
    """A capabilities object is one value: a new one replaces the stored one, it is never
    merged into it."""
    state = child.SessionState()
    apply(child, state, "subagent_update", sessionId="c", capabilities={"cancel": {}})
    apply(child, state, "subagent_update", sessionId="c", capabilities={})
    assert state.get("subagent", "c").capabilities.cancel is child.UNSET
    apply(child, state, "subagent_update", sessionId="c", title="t")
    assert state.get("subagent", "c").capabilities is not None
    apply(child, state, "subagent_update", sessionId="c", capabilities=None)
    assert state.get("subagent", "c").capabilities is None


# -- session-directed messages ----------------------------------------------------------------

MESSAGE = (
    '{"sessionUpdate":"session_message","messageId":"m","senderSessionId":"parent",'
    '"recipientSessionId":"child","senderMessageId":"pm","recipientMessageId":null,'
    '"content":[{"type":"text","text":"task"}],"_meta":{"k":1}}'
)
CHUNK = (
    '{"sessionUpdate":"session_message_chunk","messageId":"m",'
    '"content":{"type":"text","text":" more"},"_meta":{"seq":2}}'
)


def test_session_messages_round_trip(child: ModuleType) -> None:
    message = round_trip(child, MESSAGE)
    assert (message.sender_session_id, message.recipient_message_id) == ("parent", None)
    chunk = round_trip(child, CHUNK)
    assert type(chunk).__name__ == "SessionMessageChunk" and chunk.content.text == " more"


def test_session_message_repairs(child: ModuleType) -> None:
    update, repairs = repaired(
        child,
        {
            "sessionUpdate": "session_message",
            "messageId": "m",
            "senderSessionId": 3,
            "content": [text("a"), {"type": 5}],
        },
    )
    assert update.sender_session_id is child.UNSET and texts(update) == ["a"]
    assert sorted(repairs) == [("$.content[1]", "skipped"), ("$.senderSessionId", "defaulted")]
    with pytest.raises(child.DecodeError):  # a chunk's content is required
        child.decode_update(b'{"sessionUpdate":"session_message_chunk","messageId":"m"}')


def test_session_message_participants_and_chunks(child: ModuleType) -> None:
    """ "Chunks append normal message content for the same IDs. A chunk for a messageId the
    Client hasn't seen creates the session-directed message, then appends to it." ...
    "Participant IDs follow the same patch rule as content: omission leaves a known value
    unchanged and null clears it." ... "Chunk _meta is scoped to that chunk and does not
    patch message metadata.\""""
    state = child.SessionState()
    state.apply(child.decode_update(CHUNK))
    assert texts(state.get("session_message", "m")) == [" more"]
    state.apply(child.decode_update(MESSAGE))
    state.apply(child.decode_update(CHUNK))
    entity = state.get("session_message", "m")
    assert texts(entity) == ["task", " more"] and entity.meta == {"k": 1}
    apply(child, state, "session_message", messageId="m", recipientMessageId="cm")
    entity = state.get("session_message", "m")
    assert (entity.sender_session_id, entity.recipient_message_id) == ("parent", "cm")
    apply(child, state, "session_message", messageId="m", senderSessionId=None, content=[])
    entity = state.get("session_message", "m")
    assert entity.sender_session_id is None and not texts(entity)
    assert entity.recipient_session_id == "child"


def test_session_messages_are_their_own_kind(child: ModuleType) -> None:
    """ "User messages, Agent messages, Agent thoughts, and session-directed messages are
    separate types even though they share the messageId field.\""""
    state = child.SessionState()
    apply(child, state, "agent_message_chunk", messageId="m", content=text("agent"))
    state.apply(child.decode_update(CHUNK))
    assert texts(state.get("agent_message", "m")) == ["agent"]
    assert texts(state.get("session_message", "m")) == [" more"]
    assert state.timeline == [("agent_message", "m"), ("session_message", "m")]


# -- background work ----------------------------------------------------------------------------

RUNNING = (
    '{"state":"running","sessionUpdate":"state_update","background":['
    '{"type":"terminal","terminalId":"dev"},{"type":"tool_call","toolCallId":"watch"},'
    '{"type":"_cron","schedule":"0 * * * *"}],"_meta":{"k":1}}'
)
KINDS = ["BackgroundTerminal", "BackgroundToolCall", "UnknownBackgroundWork"]


def test_background_list_round_trips(pkg: ModuleType) -> None:
    update = round_trip(pkg, RUNNING)
    assert [type(item).__name__ for item in update.background] == KINDS
    assert update.background[0].terminal_id == "dev" and update.background[2].tag == "_cron"


def test_background_list_is_replaced_emptied_or_not_reported(pkg: ModuleType) -> None:
    """ "A concrete list replaces the previous one, and [] means no background work is
    running." ... "Omitted or null means not reported, not that nothing is running.\""""
    state = pkg.SessionState()
    state.apply(pkg.decode_update(RUNNING))
    assert [type(item).__name__ for item in state.background] == KINDS
    apply(
        pkg,
        state,
        "state_update",
        state="running",
        background=[{"type": "tool_call", "toolCallId": "watch"}],
    )
    assert [item.tool_call_id for item in state.background] == ["watch"]
    apply(pkg, state, "state_update", state="idle", stopReason="end_turn", background=[])
    assert state.background == [] and state.state == "idle"
    apply(pkg, state, "state_update", state="idle", background=None)
    assert state.background is None
    apply(pkg, state, "state_update", state="requires_action", background=[])
    apply(pkg, state, "state_update", state="requires_action")
    assert state.background is None and state.state == "requires_action"


@pytest.mark.parametrize(
    "bad",
    [
        "not a list",
        [{"type": "terminal"}],
        [{"toolCallId": "t"}],
        [{"type": "tool_call", "toolCallId": "t"}, 5],
    ],
    ids=["not-a-list", "item-missing-id", "item-missing-type", "bad-item"],
)
def test_malformed_background_reads_as_not_reported(pkg: ModuleType, bad: Any) -> None:
    """ "If a later snapshot omits it, or it is malformed, the Client treats background work
    as unknown until a list is reported again." One bad item spoils the whole list."""
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running", background=[])
    update, repairs = repaired(
        pkg, {"sessionUpdate": "state_update", "state": "running", "background": bad}
    )
    assert update.background is pkg.UNSET and repairs == [("$.background", "defaulted")]
    state.apply(update)
    assert state.background is None and state.state == "running"


# -- stop reasons --------------------------------------------------------------------------------

FAILED = (
    '{"stopReason":"error","sessionUpdate":"state_update","state":"idle","background":[],'
    '"error":{"code":-32603,"message":"model timed out","data":{"retry":false}}}'
)


def test_error_stop_reason_round_trips(pkg: ModuleType) -> None:
    update = round_trip(pkg, FAILED)
    assert type(update).__name__ == "ErrorStopReason"
    assert (update.error.code, update.error.data) == (-32603, {"retry": False})


def test_error_stop_reason_sets_the_error(pkg: ModuleType) -> None:
    """ "When foreground work ends because something failed, the Agent MUST report idle and
    SHOULD include the error stop reason." ... "This stop reason carries the failure in an
    error field beside stopReason\""""
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running")
    state.apply(pkg.decode_update(FAILED))
    assert (state.state, state.stop_reason, state.error.message) == (
        "idle",
        "error",
        "model timed out",
    )
    apply(pkg, state, "state_update", state="running")
    apply(pkg, state, "state_update", state="idle", stopReason="error", error=None)
    assert (state.stop_reason, state.error) == ("error", None)


def test_malformed_error_details_are_repaired(pkg: ModuleType) -> None:
    """ "Optional and nullable: omission and null both mean the Agent supplied no failure
    details." Details that do not parse read as omitted, with a repair."""
    update, repairs = repaired(
        pkg,
        {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "error",
            "error": {"code": "E1"},
        },
    )
    assert update.error is pkg.UNSET and repairs == [("$.error", "defaulted")]
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running")
    state.apply(update)
    assert (state.stop_reason, state.error) == ("error", None)


@pytest.mark.parametrize("stop", ["end_turn", "cancelled", "_vendor"])
def test_error_beside_another_stop_reason_is_kept_not_applied(pkg: ModuleType, stop: str) -> None:
    """ "error belongs to the error stop reason. Beside any other stop reason it is an
    unknown field." It is written back as received, and the reducer reports no error."""
    raw = (
        f'{{"stopReason":"{stop}","sessionUpdate":"state_update","state":"idle",'
        '"error":{"code":-32603,"message":"stale"}}'
    )
    update = pkg.decode_update(raw)
    assert json.loads(pkg.encode(update)) == json.loads(raw)
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running")
    state.apply(update)
    assert (state.stop_reason, state.error) == (stop, None)


def test_malformed_stop_reason_reads_as_not_reported(pkg: ModuleType) -> None:
    """ "Clients MUST recognize idle as the end of foreground work even when the stop reason
    is omitted, null, malformed, or unknown.\""""
    update, repairs = repaired(
        pkg, {"sessionUpdate": "state_update", "state": "idle", "stopReason": 42, "background": []}
    )
    assert type(update).__name__ == "NoneIdleStateUpdate"
    assert repairs == [("$.stopReason", "defaulted")]
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running")
    state.apply(update)
    assert (state.state, state.stop_reason, state.background) == ("idle", None, [])


# -- tool calls ----------------------------------------------------------------------------------

TOOL_CALL = (
    '{"sessionUpdate":"tool_call_update","toolCallId":"watch","title":"Watch tests",'
    '"status":"paused","capabilities":{"cancel":{"_meta":{"k":1}}}}'
)


def test_paused_tool_call_round_trips(pkg: ModuleType) -> None:
    update = round_trip(pkg, TOOL_CALL)
    assert update.status == "paused" and update.status.is_known
    assert update.capabilities.cancel.meta == {"k": 1}


def test_paused_tool_calls_are_live_until_a_final_status(pkg: ModuleType) -> None:
    """ "pending and paused tool calls are still live." ... "it SHOULD keep that tool call
    pending, in_progress, or paused and list it, instead of giving it a final status.\""""
    state = pkg.SessionState()
    state.apply(pkg.decode_update(TOOL_CALL))
    apply(
        pkg,
        state,
        "state_update",
        state="idle",
        background=[{"type": "tool_call", "toolCallId": "watch"}],
    )
    assert state.is_live("tool_call", "watch")
    apply(pkg, state, "tool_call_update", toolCallId="watch", status="in_progress")
    apply(pkg, state, "tool_call_update", toolCallId="watch", status="paused")
    assert state.is_live("tool_call", "watch")
    apply(pkg, state, "tool_call_update", toolCallId="watch", status="completed")
    assert not state.is_live("tool_call", "watch")


def test_tool_call_capabilities_are_replaced_whole(pkg: ModuleType) -> None:
    state = pkg.SessionState()
    state.apply(pkg.decode_update(TOOL_CALL))
    apply(pkg, state, "tool_call_update", toolCallId="watch", capabilities={})
    assert state.get("tool_call", "watch").capabilities.cancel is pkg.UNSET
    apply(pkg, state, "tool_call_update", toolCallId="watch", capabilities=None)
    assert state.get("tool_call", "watch").capabilities is None


# -- terminals -----------------------------------------------------------------------------------

TERMINAL = (
    '{"sessionUpdate":"terminal_update","terminalId":"dev","command":"npm run dev",'
    '"size":{"cols":120,"rows":40},"capabilities":{"cancel":{}},"_meta":{"k":1}}'
)


def test_terminal_size_and_capabilities_round_trip(pkg: ModuleType) -> None:
    update = round_trip(pkg, TERMINAL)
    assert (update.size.cols, update.size.rows) == (120, 40)
    exited = round_trip(
        pkg,
        '{"sessionUpdate":"terminal_update","terminalId":"dev",'
        '"exitStatus":{"exitCode":-1073741510}}',
    )
    assert exited.exit_status.exit_code == -1073741510


@pytest.mark.parametrize(
    "bad",
    [{"cols": 0, "rows": 24}, {"cols": 80}, {"cols": 80, "rows": 70000}, "80x24"],
    ids=["zero-columns", "no-rows", "too-many-rows", "not-an-object"],
)
def test_malformed_terminal_size_is_repaired(pkg: ModuleType, bad: Any) -> None:
    update, repairs = repaired(
        pkg, {"sessionUpdate": "terminal_update", "terminalId": "dev", "size": bad}
    )
    assert update.size is pkg.UNSET and repairs == [("$.size", "defaulted")]


def test_terminal_size_and_capabilities_are_patched_as_values(pkg: ModuleType) -> None:
    """Both follow the terminal's patch rule: left out keeps the stored value, null clears
    it, and a value replaces it whole (capabilities are never merged key by key). A value
    that does not parse is repaired to left out, so it keeps the stored value."""
    state = pkg.SessionState()
    state.apply(pkg.decode_update(TERMINAL))
    apply(
        pkg,
        state,
        "terminal_update",
        terminalId="dev",
        size={"cols": 80, "rows": 24},
        capabilities={"_meta": {"j": 2}},
    )
    terminal = state.get("terminal", "dev")
    assert (terminal.size.cols, terminal.size.rows) == (80, 24)
    assert terminal.capabilities.cancel is pkg.UNSET and terminal.capabilities.meta == {"j": 2}
    apply(pkg, state, "terminal_update", terminalId="dev", size="80x24", command="make")
    assert state.get("terminal", "dev").size.cols == 80
    apply(pkg, state, "terminal_update", terminalId="dev", size=None, capabilities=None)
    terminal = state.get("terminal", "dev")
    assert (terminal.size, terminal.capabilities, terminal.command) == (None, None, "make")
    assert terminal.meta == {"k": 1} and state.is_live("terminal", "dev")
    apply(pkg, state, "terminal_update", terminalId="dev", exitStatus={"exitCode": -1})
    assert not state.is_live("terminal", "dev")
