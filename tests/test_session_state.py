"""The generated `SessionState` reducer, one test per client rule of the v2 spec.

Each test quotes the sentence of ``prompt-lifecycle-v2`` it checks. Tests run against
the package generated from our own ``schema/`` and against packages generated, with no
flags (so with the built-in v2 overlay), from the newest published v2 stable and unstable
schemas and from an older v2 revision. Rules for shapes that only the newest unstable
schema publishes (notices, compactions, session-directed messages, background work, ...)
run against ours and that one.
"""

from __future__ import annotations

import base64
import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn

#: An older v2 revision: the first stable one whose terminal output is base64 (2026-07-21).
OLDER_V2 = "v2/2026-07-21_9ac13511_schema.json"


def _package(make_package: GenerateFn, target: str, which: str) -> ModuleType:
    if which == "ours":
        return make_package(OWN_SCHEMA, "state_ours", target=target)
    corpus.require()
    schema = (
        corpus.SCHEMAS / OLDER_V2 if which == "v2-older" else corpus.newest(corpus.NEWEST[which])
    )
    return make_package(schema, "state_" + which.replace("-", "_"), target=target)


@pytest.fixture(scope="module", params=["ours", "v2-unstable", "v2", "v2-older"])
def pkg(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    return _package(make_package, target, request.param)


@pytest.fixture(scope="module", params=["ours", "v2-unstable"])
def newest(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """For what only the newest unstable schema publishes: notices, compactions, plan removals,
    session-directed messages, the unknown state, background work, idle usage and the error
    stop reason."""
    return _package(make_package, target, request.param)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def apply(pkg: ModuleType, reducer: Any, tag: str, **fields: Any) -> Any:
    update = pkg.decode_update(json.dumps({"sessionUpdate": tag, **fields}))
    return reducer.apply(update)


def texts(entity: Any, attr: str = "content") -> list[str] | None:
    value = getattr(entity, attr)
    return None if value is None else [block.text for block in value]


# -- entities --------------------------------------------------------------------------------


def test_entities_are_keyed_by_type_and_id(pkg: ModuleType) -> None:
    """ "An entity is identified by its type together with its ID, not by its ID alone" ...
    "an agent_thought whose messageId matches an existing Agent message creates or updates a
    thought and leaves the message unchanged.\""""
    state = pkg.SessionState()
    apply(pkg, state, "agent_message", messageId="m1", content=[text("answer")])
    apply(pkg, state, "agent_thought", messageId="m1", content=[text("thinking")])
    assert texts(state.get("agent_message", "m1")) == ["answer"]
    assert texts(state.get("agent_thought", "m1")) == ["thinking"]
    assert state.get("user_message", "m1") is None
    assert state.timeline == [("agent_message", "m1"), ("agent_thought", "m1")]


def test_chunk_for_unseen_id_creates_the_entity(pkg: ModuleType) -> None:
    """ "An update or chunk for an ID the Client hasn't seen creates the entity with its
    defaults and then applies, so a chunk can arrive before any full update. Clients MUST NOT
    drop it.\""""
    state = pkg.SessionState()
    apply(pkg, state, "agent_message_chunk", messageId="m", content=text("hi"))
    assert texts(state.get("agent_message", "m")) == ["hi"]
    assert state.timeline == [("agent_message", "m")]


def test_first_update_fixes_timeline_position(pkg: ModuleType) -> None:
    """ "An entity's first update or chunk fixes its timeline position in receive order" ...
    "Later updates and chunks patch the entity in place without moving it, including after
    the session reports idle.\""""
    state = pkg.SessionState()
    apply(pkg, state, "user_message", messageId="u", content=[text("q")])
    apply(pkg, state, "agent_message_chunk", messageId="a", content=text("1"))
    apply(pkg, state, "tool_call_update", toolCallId="t", title="Read", status="pending")
    apply(pkg, state, "state_update", state="idle", stopReason="end_turn")
    apply(pkg, state, "agent_message_chunk", messageId="a", content=text("2"))
    apply(pkg, state, "user_message", messageId="u", content=[text("edited")])
    assert state.timeline == [("user_message", "u"), ("agent_message", "a"), ("tool_call", "t")]
    assert texts(state.get("agent_message", "a")) == ["1", "2"]
    assert texts(state.get("user_message", "u")) == ["edited"]


# -- messages ---------------------------------------------------------------------------------


def test_spec_example_updates_replace_and_chunks_append(pkg: ModuleType) -> None:
    """ "if an Agent sends agent_message with content: [A], then sends agent_message_chunk with
    B, the rendered message content is [A, B]. If it later sends another agent_message with
    content: [C], the rendered content becomes [C]. ... Subsequent chunks append to [C].\""""
    state = pkg.SessionState()
    apply(pkg, state, "agent_message", messageId="m", content=[text("A")])
    apply(pkg, state, "agent_message_chunk", messageId="m", content=text("B"))
    assert texts(state.get("agent_message", "m")) == ["A", "B"]
    apply(pkg, state, "agent_message", messageId="m", content=[text("C")])
    assert texts(state.get("agent_message", "m")) == ["C"]
    apply(pkg, state, "agent_message_chunk", messageId="m", content=text("D"))
    assert texts(state.get("agent_message", "m")) == ["C", "D"]


@pytest.mark.parametrize("clear", [[], None], ids=["empty-list", "null"])
def test_message_content_empty_or_null_clears(pkg: ModuleType, clear: Any) -> None:
    """ "A message update with content: [] or content: null clears the message content.\""""
    state = pkg.SessionState()
    apply(pkg, state, "user_message_chunk", messageId="m", content=text("x"))
    apply(pkg, state, "user_message", messageId="m", content=clear)
    assert not texts(state.get("user_message", "m"))


def test_message_update_without_content_keeps_it(pkg: ModuleType) -> None:
    """ "A message update without content leaves the current content unchanged, so Agents can
    update other optional fields without resending content.\""""
    state = pkg.SessionState()
    apply(pkg, state, "agent_thought_chunk", messageId="m", content=text("x"))
    apply(pkg, state, "agent_thought", messageId="m", _meta={"k": 1})
    entity = state.get("agent_thought", "m")
    assert texts(entity) == ["x"]
    assert entity.meta == {"k": 1}


def test_meta_patches_by_top_level_key(pkg: ModuleType) -> None:
    """ "A message update's top-level _meta patches the message's stored metadata by top-level
    key, even when the same update replaces content" ... "A chunk's _meta, when present, is
    chunk-scoped.\""""
    state = pkg.SessionState()
    apply(pkg, state, "agent_message", messageId="m", content=[text("a")], _meta={"x": 1, "y": 2})
    apply(pkg, state, "agent_message", messageId="m", content=[text("b")], _meta={"y": 3, "z": 4})
    apply(pkg, state, "agent_message_chunk", messageId="m", content=text("c"), _meta={"x": 99})
    entity = state.get("agent_message", "m")
    assert entity.meta == {"x": 1, "y": 3, "z": 4}
    assert texts(entity) == ["b", "c"]
    apply(pkg, state, "agent_message", messageId="m", _meta=None)
    assert state.get("agent_message", "m").meta is None


def test_session_message_participants_follow_the_patch_rule(newest: ModuleType) -> None:
    """ "Participant IDs follow the same patch rule as content: omission leaves a known value
    unchanged and null clears it." ... senderMessageId and recipientMessageId "follow the
    participant-ID rules and can arrive in a later session_message.\""""
    state = newest.SessionState()
    apply(
        newest,
        state,
        "session_message",
        messageId="s",
        senderSessionId="parent",
        recipientSessionId="child",
    )
    apply(newest, state, "session_message_chunk", messageId="s", content=text("task"))
    apply(newest, state, "session_message", messageId="s", senderMessageId="p-1")
    entity = state.get("session_message", "s")
    assert (entity.sender_session_id, entity.recipient_session_id) == ("parent", "child")
    assert entity.sender_message_id == "p-1"
    assert texts(entity) == ["task"]
    apply(newest, state, "session_message", messageId="s", recipientSessionId=None)
    assert state.get("session_message", "s").recipient_session_id is None
    assert state.get("session_message", "s").sender_session_id == "parent"


# -- tool calls and terminals -----------------------------------------------------------------


def test_tool_call_update_fields_are_patches(pkg: ModuleType) -> None:
    """ "tool_call_update" fields patch the stored tool call: an omitted field stays, null clears
    and a value replaces."""
    state = pkg.SessionState()
    apply(
        pkg,
        state,
        "tool_call_update",
        toolCallId="t",
        title="Read file",
        kind="read",
        status="pending",
        rawInput={"path": "a"},
    )
    apply(pkg, state, "tool_call_update", toolCallId="t", status="in_progress")
    call = state.get("tool_call", "t")
    assert (call.title, call.kind, call.status, call.raw_input) == (
        "Read file",
        "read",
        "in_progress",
        {"path": "a"},
    )
    apply(pkg, state, "tool_call_update", toolCallId="t", title=None)
    assert state.get("tool_call", "t").title is None
    assert state.get("tool_call", "t").status == "in_progress"


def test_tool_call_content_chunks_append_and_updates_replace(pkg: ModuleType) -> None:
    """ "Clients append each tool_call_content_chunk to the current content for that toolCallId.
    A later tool_call_update with content replaces the accumulated content.\""""
    state = pkg.SessionState()
    block = {"type": "content", "content": text("line 1")}
    apply(pkg, state, "tool_call_content_chunk", toolCallId="t", content=block)
    apply(
        pkg,
        state,
        "tool_call_content_chunk",
        toolCallId="t",
        content={"type": "content", "content": text("line 2")},
    )
    assert [c.content.text for c in state.get("tool_call", "t").content] == ["line 1", "line 2"]
    apply(
        pkg,
        state,
        "tool_call_update",
        toolCallId="t",
        content=[{"type": "content", "content": text("final")}],
    )
    assert [c.content.text for c in state.get("tool_call", "t").content] == ["final"]


@pytest.mark.parametrize(
    ("status", "live"),
    [
        ("pending", True),
        ("in_progress", True),
        ("paused", True),
        ("_custom", True),
        ("completed", False),
        ("failed", False),
        ("cancelled", False),
    ],
)
def test_pending_and_paused_tool_calls_are_live(pkg: ModuleType, status: str, live: bool) -> None:
    """ "pending and paused tool calls are still live." Final statuses end liveness."""
    state = pkg.SessionState()
    apply(pkg, state, "tool_call_update", toolCallId="t", status=status)
    assert state.is_live("tool_call", "t") is live


def test_terminal_exit_status_marks_it_exited(pkg: ModuleType) -> None:
    """A terminal "is live until its terminal_update reports exitStatus.\""""
    state = pkg.SessionState()
    apply(pkg, state, "terminal_update", terminalId="term")
    assert state.is_live("terminal", "term")
    apply(pkg, state, "terminal_update", terminalId="term", exitStatus={"exitCode": 0})
    assert not state.is_live("terminal", "term")
    assert state.get("terminal", "term").exit_status.exit_code == 0


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_terminal_output_is_bytes_decoded_from_each_chunk(pkg: ModuleType) -> None:
    """ "Display-only terminal bytes use terminal_output_chunk, not tool_call_content_chunk."
    Each chunk's base64 is decoded on its own and the bytes appended, so a chunk length that
    is not a multiple of 3, or a UTF-8 character split across chunks, still reads whole."""
    state = pkg.SessionState()
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data="Y2Fmww==")
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data="qSEK")
    output = state.get("terminal", "t").output
    assert output == "café!\n".encode() and type(output.value) is bytes and len(output) == 7


def test_terminal_snapshot_then_chunk_appends_to_the_snapshot(pkg: ModuleType) -> None:
    """ "See Display-only Terminals for their per-terminal byte ordering and snapshot
    semantics": a terminal_update's output replaces the bytes held so far, and later chunks
    append to that replacement."""
    state = pkg.SessionState()
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data=b64(b"old output"))
    apply(
        pkg,
        state,
        "terminal_update",
        terminalId="t",
        output={"data": b64(b"$ make\n"), "_meta": {"seq": 1}},
    )
    assert state.get("terminal", "t").output == b"$ make\n"
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data=b64(b"ok\n"))
    assert state.get("terminal", "t").output == b"$ make\nok\n"
    apply(pkg, state, "terminal_update", terminalId="t", command="make")  # output omitted
    assert state.get("terminal", "t").output == b"$ make\nok\n"
    apply(pkg, state, "terminal_update", terminalId="t", output=None)
    assert state.get("terminal", "t").output is None


def test_new_terminal_without_output_has_unknown_output(pkg: ModuleType) -> None:
    """A chunk for an unseen ID "creates the entity with its defaults", and the schema's
    TerminalUpdate gives a terminal's: "When the terminal ID is new, omitted fields start
    unknown." So output no update or chunk has given reads as None (unknown), never as
    empty bytes, which would say the terminal printed nothing; an empty snapshot or chunk
    is what makes it empty, and a chunk appends to unknown output from empty."""
    state = pkg.SessionState()
    apply(pkg, state, "terminal_update", terminalId="new", command="make")
    assert state.get("terminal", "new").output is None
    apply(pkg, state, "terminal_update", terminalId="snapshot", output={"data": ""})
    assert state.get("terminal", "snapshot").output == b""
    apply(pkg, state, "terminal_output_chunk", terminalId="chunk", data="")
    assert state.get("terminal", "chunk").output == b""
    apply(pkg, state, "terminal_output_chunk", terminalId="new", data=b64(b"ok"))
    assert state.get("terminal", "new").output == b"ok"


def test_terminal_chunk_that_is_not_base64_appends_nothing(pkg: ModuleType) -> None:
    """Chunk data is base64 in the schema; a value that is not base64 carries no bytes, so
    it is not appended (the update itself is still kept in history)."""
    state = pkg.SessionState()
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data=b64(b"ok"))
    apply(pkg, state, "terminal_output_chunk", terminalId="t", data="not base64!")
    assert state.get("terminal", "t").output == b"ok" and len(state.history) == 2


# -- compactions, usage, notices --------------------------------------------------------------


def test_compaction_summary_rules(newest: ModuleType) -> None:
    """ "Clients initialize a first-seen compaction ID with status in_progress" ... "Chunks
    append to the current summary. A concrete summary replaces all previously accumulated
    content" ... "summary: null or summary: [] clears accumulated content.\""""
    state = newest.SessionState()
    apply(newest, state, "compaction_summary_chunk", compactionId="c", content=text("a"))
    assert state.get("compaction", "c").status == "in_progress"
    apply(newest, state, "compaction_summary_chunk", compactionId="c", content=text("b"))
    assert texts(state.get("compaction", "c"), "summary") == ["a", "b"]
    apply(
        newest,
        state,
        "compaction_update",
        compactionId="c",
        status="in_progress",
        summary=[text("whole")],
    )
    apply(newest, state, "compaction_summary_chunk", compactionId="c", content=text("+"))
    assert texts(state.get("compaction", "c"), "summary") == ["whole", "+"]
    apply(newest, state, "compaction_update", compactionId="c", status="completed", summary=None)
    assert not texts(state.get("compaction", "c"), "summary")
    apply(newest, state, "compaction_update", compactionId="c", status="completed", summary=[])
    assert not texts(state.get("compaction", "c"), "summary")


def test_compaction_unknown_status_is_kept(newest: ModuleType) -> None:
    """ "status is an open string enum ... Clients preserve unknown strings.\""""
    state = newest.SessionState()
    apply(newest, state, "compaction_update", compactionId="c", status="_vendor_phase")
    status = state.get("compaction", "c").status
    assert status == "_vendor_phase" and status.is_extension


def test_compaction_error_is_text(newest: ModuleType) -> None:
    """ "The following compaction_update fields are optional, nullable patches: For each patch
    field, omission leaves the stored value unchanged, null clears it, and a concrete value
    replaces it." The error is the published schema's nullable string."""
    state = newest.SessionState()
    apply(newest, state, "compaction_update", compactionId="c", status="failed", error="disk full")
    assert state.get("compaction", "c").error == "disk full"
    apply(newest, state, "compaction_update", compactionId="c", status="failed")
    assert state.get("compaction", "c").error == "disk full"
    apply(newest, state, "compaction_update", compactionId="c", status="failed", error=None)
    assert state.get("compaction", "c").error is None


def test_plans_are_keyed_by_the_plan_id_inside_the_plan(newest: ModuleType) -> None:
    """ "Messages, tool calls, terminals, plans, and compactions are entities that the Agent
    creates and then updates by ID across multiple session updates." A plan_update names its
    plan inside `plan`, as published, and replaces that plan's body."""
    state = newest.SessionState()
    apply(newest, state, "plan_update", plan={"type": "markdown", "planId": "p1", "content": "a"})
    apply(newest, state, "plan_update", plan={"type": "_gantt", "planId": "p2", "rows": []})
    apply(
        newest,
        state,
        "plan_update",
        plan={"type": "items", "planId": "p1", "entries": []},
        _meta={"k": 1},
    )
    plan = state.get("plan", "p1")
    assert (plan.plan_id, plan.plan.entries, plan.meta) == ("p1", [], {"k": 1})
    unknown = state.get("plan", "p2").plan  # (a typed fallback: the union declares planId)
    assert unknown.type == "_gantt" and newest.extra_fields(unknown) == {"rows": []}
    assert state.timeline == [("plan", "p1"), ("plan", "p2")]
    apply(newest, state, "plan_removed", planId="p1")
    assert state.get("plan", "p1") is None and state.timeline == [("plan", "p2")]
    apply(newest, state, "plan_update", plan={"type": "markdown", "planId": "p1", "content": "b"})
    assert state.timeline == [("plan", "p2"), ("plan", "p1")]


def test_meta_merge_leaves_the_applied_updates_unchanged(pkg: ModuleType) -> None:
    """ "A _meta object patches the stored metadata by top-level key instead of replacing it",
    while the history keeps every update as received (the merge never writes into one)."""
    state = pkg.SessionState()
    first = pkg.decode_update(
        json.dumps({"sessionUpdate": "agent_message", "messageId": "m", "_meta": {"a": 1}})
    )
    state.apply(first)
    apply(pkg, state, "agent_message", messageId="m", _meta={"b": 2})
    assert state.get("agent_message", "m").meta == {"a": 1, "b": 2}
    assert first.meta == {"a": 1}
    assert json.loads(pkg.encode(state.history[0]))["_meta"] == {"a": 1}


def test_usage_cost_is_a_patch(pkg: ModuleType) -> None:
    """ "cost is a patch field: omitting it leaves the last reported cost unchanged, null clears
    it, and a value replaces it, including when the currency differs.\""""
    state = pkg.SessionState()
    apply(pkg, state, "usage_update", used=10, size=100, cost={"amount": 1.5, "currency": "USD"})
    apply(pkg, state, "usage_update", used=20, size=100)
    assert (state.usage.used, state.usage.cost.amount) == (20, 1.5)
    apply(pkg, state, "usage_update", used=30, size=100, cost={"amount": 7, "currency": "EUR"})
    assert state.usage.cost.currency == "EUR"
    apply(pkg, state, "usage_update", used=30, size=100, cost=None)
    assert state.usage.cost is None and state.usage.used == 30


def test_notices_are_delivered_not_stored(newest: ModuleType) -> None:
    """ "Each occurrence is an independent live event, not conversation history, and SHOULD NOT
    be included in session replay.\""""
    state = newest.SessionState()
    notice = newest.decode_update(
        json.dumps({"sessionUpdate": "notice", "severity": "warning", "title": "Retrying"})
    )
    assert state.apply(notice) is notice
    seen = []

    class Handler(newest.SessionUpdateHandler):  # type: ignore[name-defined,misc]
        def on_notice(self, update: Any) -> None:
            seen.append(update.title)

    newest.dispatch(notice, Handler())
    assert seen == ["Retrying"]
    assert state.timeline == [] and state.history == []


# -- state ------------------------------------------------------------------------------------


def test_new_session_is_idle_with_background_not_reported(pkg: ModuleType) -> None:
    """ "New sessions default to idle until a state update reports otherwise.\""""
    state = pkg.SessionState()
    assert state.state == "idle" and state.background is None and state.stop_reason is None


def test_repeated_snapshot_is_idempotent(pkg: ModuleType) -> None:
    """ "Clients MUST apply them idempotently: repeats do not start new work, end additional
    work, or add usage again.\""""
    once, twice = pkg.SessionState(), pkg.SessionState()
    payload = {"state": "idle", "stopReason": "end_turn", "background": []}
    apply(pkg, once, "state_update", **payload)
    apply(pkg, twice, "state_update", **payload)
    apply(pkg, twice, "state_update", **payload)
    assert (once.state, once.stop_reason, once.background) == (  # same after a repeat
        twice.state,
        twice.stop_reason,
        twice.background,
    )
    assert once.slot("state") == twice.slot("state")


def test_background_snapshot_semantics(newest: ModuleType) -> None:
    """ "A concrete list replaces the previous one, and [] means no background work is running"
    ... "Omitted or null means not reported" ... "If a later snapshot omits it, or it is
    malformed, the Client treats background work as unknown until a list is reported again.\""""
    state = newest.SessionState()
    item = {"type": "terminal", "terminalId": "dev-server"}
    apply(newest, state, "state_update", state="running", background=[item])
    assert len(state.background) == 1
    apply(newest, state, "state_update", state="running", background=[])
    assert state.background == []
    apply(newest, state, "state_update", state="running")
    assert state.background is None
    apply(newest, state, "state_update", state="idle", background="not a list")
    assert state.background is None and state.state == "idle"


def test_unknown_background_items_still_count(newest: ModuleType) -> None:
    """ "Unknown items still count. An item with an unknown type does not invalidate the
    list.\""""
    state = newest.SessionState()
    apply(newest, state, "state_update", state="idle", background=[{"type": "_cron", "id": 1}])
    assert len(state.background) == 1 and state.background[0].tag == "_cron"


@pytest.mark.parametrize("tag", ["_paused_by_vendor", "waiting_for_review"])
def test_unrecognised_state_reads_busy_never_idle(pkg: ModuleType, tag: str) -> None:
    """ "A Client that receives a state it doesn't recognize MUST NOT treat it as idle or
    present the previous state as confirmed, and shows a generic busy state until a known
    state arrives.\""""
    state = pkg.SessionState()
    apply(pkg, state, "state_update", state="running")
    apply(pkg, state, "state_update", state=tag)
    assert state.state == "busy"
    apply(pkg, state, "state_update", state="running")
    assert state.state == "running"


def test_unknown_state_is_reported_as_unknown(newest: ModuleType) -> None:
    """ "unknown: The Agent cannot currently determine foreground activity" ... "A subsequent
    running, requires_action, or idle replaces unknown for the same session.\""""
    state = newest.SessionState()
    apply(newest, state, "state_update", state="running")
    apply(newest, state, "state_update", state="unknown")
    assert state.state == "unknown"
    apply(newest, state, "state_update", state="requires_action")
    assert state.state == "requires_action"


def test_stop_reason_and_error_come_from_the_last_idle(newest: ModuleType) -> None:
    """ "This stop reason carries the failure in an error field beside stopReason" ... "Clients
    MUST recognize idle as the end of foreground work even when the stop reason is omitted,
    null, malformed, or unknown.\""""
    state = newest.SessionState()
    apply(
        newest,
        state,
        "state_update",
        state="idle",
        stopReason="error",
        error={"code": -32603, "message": "model timed out"},
    )
    assert (state.stop_reason, state.error.message) == ("error", "model timed out")
    apply(newest, state, "state_update", state="running")
    apply(newest, state, "state_update", state="idle", stopReason=42)
    assert state.state == "idle" and state.stop_reason is None and state.error is None


def test_repeated_idle_keeps_the_last_stop_reason(newest: ModuleType) -> None:
    """ "A repeated snapshot is not a state transition, and a repeated idle without a new stop
    reason is not a new completion." ... "A repeated state may carry updated information.
    Applying that information does not constitute another state transition.\""""
    state = newest.SessionState()
    apply(newest, state, "state_update", state="running")
    apply(newest, state, "state_update", state="idle", stopReason="end_turn", background=[])
    usage = {"totalTokens": 30, "inputTokens": 20, "outputTokens": 10}
    apply(newest, state, "state_update", state="idle", usage=usage)
    assert (state.state, state.stop_reason) == ("idle", "end_turn")
    assert state.slot("state").usage.total_tokens == 30
    apply(newest, state, "state_update", state="idle", stopReason=None)
    assert state.stop_reason == "end_turn"
    apply(newest, state, "state_update", state="idle", stopReason="cancelled")
    assert state.stop_reason == "cancelled"  # a repeat that carries one updates it


@pytest.mark.parametrize("before", ["running", "requires_action", "unknown", "_vendor_state"])
@pytest.mark.parametrize(
    "carried",
    [{}, {"stopReason": None}, {"stopReason": 42}, {"stopReason": "max_tokens"}],
    ids=["omitted", "null", "malformed", "max_tokens"],
)
def test_entering_idle_sets_the_stop_reason_it_carries(
    newest: ModuleType, before: str, carried: dict[str, Any]
) -> None:
    """ "Clients MUST recognize idle as the end of foreground work even when the stop reason is
    omitted, null, malformed, or unknown. Without a recognized stop reason, Clients cannot
    infer how the work ended." Entering idle takes the stop reason it carries, or None."""
    state = newest.SessionState()
    apply(newest, state, "state_update", state="idle", stopReason="end_turn")
    apply(newest, state, "state_update", state=before)
    apply(newest, state, "state_update", state="idle", **carried)
    expected = "max_tokens" if carried.get("stopReason") == "max_tokens" else None
    assert (state.state, state.stop_reason) == ("idle", expected)


@pytest.mark.parametrize("stop", ["cancelled", "end_turn", "_vendor_stop", None])
def test_error_belongs_to_the_error_stop_reason_only(newest: ModuleType, stop: str | None) -> None:
    """ "error belongs to the error stop reason. Beside any other stop reason it is an unknown
    field.\""""
    state = newest.SessionState()
    failure = {"code": -32603, "message": "model timed out"}
    apply(newest, state, "state_update", state="running")
    apply(newest, state, "state_update", state="idle", stopReason="error", error=failure)
    assert state.error.message == "model timed out"
    apply(newest, state, "state_update", state="running")
    apply(newest, state, "state_update", state="idle", stopReason=stop, error=failure)
    assert state.error is None


def test_unknown_updates_are_kept_raw_for_replay(pkg: ModuleType) -> None:
    """ "Clients that do not understand an update SHOULD preserve its raw payload when storing,
    replaying, proxying, or forwarding session history.\""""
    state = pkg.SessionState()
    raw = {"sessionUpdate": "_vendor_progress", "percent": 40}
    apply(pkg, state, "agent_message_chunk", messageId="m", content=text("x"))
    state.apply(pkg.decode_update(json.dumps(raw)))
    assert state.timeline[-1][0] == "unknown"
    kept = state.get(*state.timeline[-1])
    assert kept.raw == raw and json.loads(pkg.encode(kept)) == raw


# -- properties -------------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c"])
BLOCK = st.builds(text, st.text(max_size=5))
COMMON_UPDATES = st.one_of(
    st.builds(
        lambda i, c: {"sessionUpdate": "agent_message_chunk", "messageId": i, "content": c},
        IDS,
        BLOCK,
    ),
    st.builds(
        lambda i, c: {"sessionUpdate": "agent_message", "messageId": i, "content": c},
        IDS,
        st.one_of(st.none(), st.lists(BLOCK, max_size=2)),
    ),
    st.builds(
        lambda i, c: {"sessionUpdate": "agent_thought_chunk", "messageId": i, "content": c},
        IDS,
        BLOCK,
    ),
    st.builds(
        lambda i, m: {"sessionUpdate": "user_message", "messageId": i, "_meta": m},
        IDS,
        st.one_of(st.none(), st.dictionaries(st.sampled_from("xyz"), st.integers())),
    ),
    st.builds(
        lambda i, s: {"sessionUpdate": "tool_call_update", "toolCallId": i, "status": s},
        IDS,
        st.sampled_from(["pending", "in_progress", "completed", "paused", "_x"]),
    ),
    st.builds(
        lambda s, b: {"sessionUpdate": "state_update", "state": s, **b},
        st.sampled_from(["running", "idle", "requires_action", "_custom"]),
        st.sampled_from([{}, {"background": []}, {"background": None}]),
    ),
    st.builds(
        lambda i, c: {"sessionUpdate": "compaction_summary_chunk", "compactionId": i, "content": c},
        IDS,
        BLOCK,
    ),
    st.builds(
        lambda u: {"sessionUpdate": "usage_update", "used": u, "size": 1000}, st.integers(0, 1000)
    ),
    st.just({"sessionUpdate": "notice", "severity": "info", "title": "hello"}),
    st.just({"sessionUpdate": "_vendor_thing", "x": [1]}),
    st.builds(
        lambda i, d: {"sessionUpdate": "terminal_output_chunk", "terminalId": i, "data": b64(d)},
        IDS,
        st.binary(max_size=4),
    ),
    st.builds(
        lambda i, d: {
            "sessionUpdate": "terminal_update",
            "terminalId": i,
            "output": None if d is None else {"data": b64(d)},
        },
        IDS,
        st.one_of(st.none(), st.binary(max_size=4)),
    ),
    st.builds(
        lambda i, m: {
            "sessionUpdate": "plan_update",
            "_meta": m,
            "plan": {"type": "markdown", "planId": i, "content": "x"},
        },
        IDS,
        st.dictionaries(st.sampled_from("xyz"), st.integers(), max_size=2),
    ),
    st.builds(lambda i: {"sessionUpdate": "plan_removed", "planId": i}, IDS),
    st.builds(
        lambda s, r: {"sessionUpdate": "state_update", "state": "idle", "stopReason": s, **r},
        st.sampled_from(["end_turn", "error", None]),
        st.sampled_from([{}, {"error": {"code": 1, "message": "m"}}]),
    ),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stream=st.lists(COMMON_UPDATES, max_size=30))
def test_random_streams_never_raise_and_replay_to_the_same_state(
    pkg: ModuleType, stream: list[dict[str, Any]]
) -> None:
    """Applying any valid stream never raises, and replaying the stored history into a fresh
    state reproduces its entities, slots and timeline."""
    state = pkg.SessionState()
    for payload in stream:
        state.apply(pkg.decode_update(json.dumps(payload)))
    fresh = pkg.SessionState()
    for update in state.replay():
        fresh.apply(update)
    assert fresh.timeline == state.timeline
    for kind, id_ in state.timeline:
        assert fresh.get(kind, id_) == state.get(kind, id_)
    assert (fresh.state, fresh.background, fresh.stop_reason, fresh.error) == (
        state.state,
        state.background,
        state.stop_reason,
        state.error,
    )
    assert fresh.usage == state.usage
