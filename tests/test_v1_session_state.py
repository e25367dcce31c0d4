"""`SessionState` for the published v1 schemas, from the built-in v1 overlay.

Packages are generated with no flags from the newest and the oldest v1 stable revisions, on
both targets. One test per rule of the v1 reducer (docs/annotations.md, "Built-in
overlays"): chunks form messages, with or without ``messageId``; ``tool_call`` and
``tool_call_update`` upsert one tool call; ``plan`` and the other session-level updates
are snapshots.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate
from tests import corpus
from tests.conftest import GenerateFn
from tests.userproject import run_readme_example

V1_STABLE = "schema/v1/schema.json"


@pytest.fixture(scope="module", params=["newest", "oldest"])
def v1(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    pick = corpus.newest if request.param == "newest" else corpus.oldest
    return make_package(pick(V1_STABLE), f"state_v1_{request.param}", target=target)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def apply(pkg: ModuleType, state: Any, tag: str, **fields: Any) -> Any:
    return state.apply(pkg.decode_update(json.dumps({"sessionUpdate": tag, **fields})))


def texts(entity: Any) -> list[str]:
    return [block.text for block in entity.content or []]


def messages(state: Any) -> list[tuple[str, list[str]]]:
    """(kind, texts) of every message in the timeline, in order."""
    return [
        (kind, texts(state.get(kind, ident)))
        for kind, ident in state.timeline
        if kind.endswith(("_message", "_thought"))
    ]


# -- messages ---------------------------------------------------------------------------------


def test_consecutive_chunks_without_message_id_form_one_message(v1: ModuleType) -> None:
    state = v1.SessionState()
    for piece in ("Hel", "lo", "!"):
        apply(v1, state, "agent_message_chunk", content=text(piece))
    assert messages(state) == [("agent_message", ["Hel", "lo", "!"])]
    ((kind, ident),) = state.timeline
    assert state.get(kind, ident).entity_id == ident


def test_a_new_tool_call_interrupts_a_message(v1: ModuleType) -> None:
    """Chunks after a tool call start a new message; the IDs the reducer makes up differ
    and stay the same as the session goes on."""
    state = v1.SessionState()
    apply(v1, state, "agent_message_chunk", content=text("Let me look."))
    apply(v1, state, "tool_call", toolCallId="t1", title="Read main.py", status="pending")
    apply(v1, state, "agent_message_chunk", content=text("It prints "))
    apply(v1, state, "agent_message_chunk", content=text("hello."))
    assert [kind for kind, _ in state.timeline] == ["agent_message", "tool_call", "agent_message"]
    assert messages(state) == [
        ("agent_message", ["Let me look."]),
        ("agent_message", ["It prints ", "hello."]),
    ]
    first, _, second = state.timeline
    assert first[1] != second[1]
    apply(v1, state, "agent_message_chunk", content=text(" Done."))
    assert state.timeline[2] == second, "a later chunk continues the same made-up ID"


def test_patches_and_snapshots_do_not_interrupt_a_message(v1: ModuleType) -> None:
    """Only a new timeline entry ends a run of chunks: a patch to a known tool call, a plan
    or a usage snapshot takes no timeline position."""
    state = v1.SessionState()
    apply(v1, state, "tool_call", toolCallId="t1", title="Run tests")
    apply(v1, state, "agent_message_chunk", content=text("Running"))
    apply(v1, state, "tool_call_update", toolCallId="t1", status="in_progress")
    apply(v1, state, "plan", entries=[])
    apply(v1, state, "usage_update", used=1, size=10)
    apply(v1, state, "agent_message_chunk", content=text(" the tests"))
    assert messages(state) == [("agent_message", ["Running", " the tests"])]


def test_each_kind_is_its_own_message(v1: ModuleType) -> None:
    """A thought and the message after it are two entries of two kinds, as in v2; a user
    chunk after an agent chunk starts a user message."""
    state = v1.SessionState()
    apply(v1, state, "user_message_chunk", content=text("Why?"))
    apply(v1, state, "agent_thought_chunk", content=text("Thinking"))
    apply(v1, state, "agent_thought_chunk", content=text(" hard"))
    apply(v1, state, "agent_message_chunk", content=text("Because."))
    apply(v1, state, "agent_thought_chunk", content=text("More"))
    assert messages(state) == [
        ("user_message", ["Why?"]),
        ("agent_thought", ["Thinking", " hard"]),
        ("agent_message", ["Because."]),
        ("agent_thought", ["More"]),
    ]


def test_chunks_with_a_message_id_are_keyed_by_it(v1: ModuleType) -> None:
    """v1 allows a messageId: a chunk carrying one is keyed by it, so a change of ID starts
    a new message and an earlier ID continues its own message; a chunk without an ID
    continues the latest entry."""
    state = v1.SessionState()
    apply(v1, state, "agent_message_chunk", messageId="m1", content=text("a"))
    apply(v1, state, "agent_message_chunk", messageId="m2", content=text("b"))
    apply(v1, state, "agent_message_chunk", messageId="m1", content=text("c"))
    apply(v1, state, "agent_message_chunk", content=text("d"))
    apply(v1, state, "agent_message_chunk", messageId=None, content=text("e"))
    assert state.timeline == [("agent_message", "m1"), ("agent_message", "m2")]
    assert texts(state.get("agent_message", "m1")) == ["a", "c"]
    assert texts(state.get("agent_message", "m2")) == ["b", "d", "e"]


def test_made_up_ids_never_take_an_agent_id(v1: ModuleType) -> None:
    state = v1.SessionState()
    apply(v1, state, "agent_message_chunk", messageId="#1", content=text("agent's own"))
    apply(v1, state, "tool_call", toolCallId="t", title="x")
    apply(v1, state, "agent_message_chunk", content=text("unkeyed"))
    assert texts(state.get("agent_message", "#1")) == ["agent's own"]
    assert [k for k, _ in state.timeline] == ["agent_message", "tool_call", "agent_message"]
    assert texts(state.get(*state.timeline[2])) == ["unkeyed"]


# -- tool calls -------------------------------------------------------------------------------


def test_tool_call_upserts_and_update_patches(v1: ModuleType) -> None:
    """tool_call creates (or, repeated, upserts) the tool call; tool_call_update patches it by
    toolCallId: a present field replaces, an omitted one stays, null clears."""
    state = v1.SessionState()
    apply(
        v1,
        state,
        "tool_call",
        toolCallId="t",
        title="Read",
        kind="read",
        status="pending",
        rawInput={"path": "a"},
        _meta={"x": 1},
    )
    apply(v1, state, "tool_call_update", toolCallId="t", status="in_progress", _meta={"y": 2})
    call = state.get("tool_call", "t")
    assert (call.title, call.kind, call.status, call.raw_input) == (
        "Read",
        "read",
        "in_progress",
        {"path": "a"},
    )
    assert call.meta == {"x": 1, "y": 2}
    apply(v1, state, "tool_call_update", toolCallId="t", title=None)
    assert state.get("tool_call", "t").title is None
    apply(v1, state, "tool_call", toolCallId="t", title="Read again")
    assert (state.get("tool_call", "t").title, state.get("tool_call", "t").status) == (
        "Read again",
        "in_progress",
    )
    assert state.timeline == [("tool_call", "t")]


def test_tool_call_content_and_locations_replace_whole(v1: ModuleType) -> None:
    state = v1.SessionState()
    block = {"type": "content", "content": text("one")}
    apply(
        v1,
        state,
        "tool_call",
        toolCallId="t",
        title="Edit",
        content=[block, block],
        locations=[{"path": "a.py"}, {"path": "b.py"}],
    )
    apply(
        v1,
        state,
        "tool_call_update",
        toolCallId="t",
        content=[{"type": "content", "content": text("two")}],
        locations=[{"path": "c.py"}],
    )
    call = state.get("tool_call", "t")
    assert [c.content.text for c in call.content] == ["two"]
    assert [loc.path for loc in call.locations] == ["c.py"]
    apply(v1, state, "tool_call_update", toolCallId="t", content=[])
    assert state.get("tool_call", "t").content == []


def test_tool_call_update_for_an_unseen_id_creates_it(v1: ModuleType) -> None:
    state = v1.SessionState()
    apply(v1, state, "tool_call_update", toolCallId="late", status="completed")
    assert state.get("tool_call", "late").status == "completed"
    assert state.timeline == [("tool_call", "late")]


@pytest.mark.parametrize(
    ("status", "live"),
    [("pending", True), ("in_progress", True), ("completed", False), ("failed", False)],
)
def test_finished_tool_calls_are_not_live(v1: ModuleType, status: str, live: bool) -> None:
    state = v1.SessionState()
    apply(v1, state, "tool_call", toolCallId="t", title="x", status=status)
    assert state.is_live("tool_call", "t") is live


# -- snapshots --------------------------------------------------------------------------------


def test_plan_replaces_the_plan(v1: ModuleType) -> None:
    state = v1.SessionState()
    entry = {"content": "Write tests", "priority": "high", "status": "pending"}
    apply(v1, state, "plan", entries=[entry, {**entry, "content": "Fix bug"}])
    apply(v1, state, "plan", entries=[{**entry, "status": "completed"}])
    plan = state.slot("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("Write tests", "completed")]
    assert state.timeline == [], "a plan is one slot, not a timeline entry"


@pytest.mark.parametrize(
    ("tag", "slot", "fields", "attr", "expected"),
    [
        (
            "available_commands_update",
            "commands",
            {"availableCommands": [{"name": "test", "description": "Run tests"}]},
            "available_commands",
            ["test"],
        ),
        ("current_mode_update", "mode", {"currentModeId": "code"}, "current_mode_id", "code"),
        ("config_option_update", "config_options", {"configOptions": []}, "config_options", []),
        ("usage_update", "usage", {"used": 5, "size": 100}, "used", 5),
    ],
)
def test_session_level_updates_are_snapshots(
    v1: ModuleType, tag: str, slot: str, fields: dict[str, Any], attr: str, expected: Any
) -> None:
    state = v1.SessionState()
    apply(v1, state, tag, **fields, _meta={"k": 1})
    apply(v1, state, tag, **fields)
    value = getattr(state.slot(slot), attr)
    names = [c.name for c in value] if tag == "available_commands_update" else value
    assert names == expected
    assert state.slot(slot).meta is None, "a snapshot is complete: what it omits is gone"


def test_usage_snapshot_without_cost_clears_it(v1: ModuleType) -> None:
    state = v1.SessionState()
    apply(v1, state, "usage_update", used=1, size=10, cost={"amount": 0.5, "currency": "USD"})
    assert state.usage.cost.amount == 0.5
    apply(v1, state, "usage_update", used=2, size=10)
    assert (state.usage.used, state.usage.cost) == (2, None)


def test_session_info_fields_are_patches(v1: ModuleType) -> None:
    """The v1 schema calls session_info_update partial and lets null clear a field."""
    state = v1.SessionState()
    apply(
        v1,
        state,
        "session_info_update",
        title="Fix the bug",
        updatedAt="2026-01-01",
        _meta={"a": 1},
    )
    apply(v1, state, "session_info_update", updatedAt="2026-01-02", _meta={"b": 2})
    info = state.slot("session_info")
    assert (info.title, info.updated_at, info.meta) == (
        "Fix the bug",
        "2026-01-02",
        {"a": 1, "b": 2},
    )
    apply(v1, state, "session_info_update", title=None)
    assert state.slot("session_info").title is None


# -- history ----------------------------------------------------------------------------------


def test_history_replays_every_update_in_order(v1: ModuleType) -> None:
    state = v1.SessionState()
    updates = [
        {"sessionUpdate": "user_message_chunk", "content": text("hi")},
        {"sessionUpdate": "plan", "entries": []},
        {"sessionUpdate": "agent_message_chunk", "content": text("hello")},
    ]
    for update in updates:
        state.apply(v1.decode_update(json.dumps(update)))
    assert [json.loads(v1.encode(u)) for u in state.replay()] == updates


def test_unknown_kinds_are_kept_by_the_v1_reducer(v1: ModuleType) -> None:
    """v1's SessionUpdate is a closed oneOf in the schema, but the package is open by
    default: an unknown kind decodes to UnknownSessionUpdate, the reducer keeps it in
    history unchanged, and it re-encodes exactly."""
    wire = {"sessionUpdate": "_acme_progress", "percent": 1, "_meta": {"a": [1, 2.5]}}
    update = v1.decode_update(json.dumps(wire))
    assert type(update) is v1.UnknownSessionUpdate
    state = v1.SessionState()
    assert state.apply(update) is update
    assert [json.loads(v1.encode(u)) for u in state.replay()] == [wire]
    assert state.timeline == [("unknown", "0")]  # kept in its place among the messages


def test_a_job_that_closes_the_v1_union_refuses_unknown_kinds(
    make_package: GenerateFn, target: str
) -> None:
    """With the schema's own openness kept, an unknown kind is a DecodeError before any
    reducer sees it."""
    corpus.require()
    closed = make_package(
        corpus.newest(V1_STABLE), "state_v1_closed", target=target, closed_all=True
    )
    with pytest.raises(closed.DecodeError):
        closed.decode_update(json.dumps({"sessionUpdate": "_acme_progress", "percent": 1}))


def test_known_kinds_without_annotation_are_kept_raw(make_package: GenerateFn, target: str) -> None:
    """The unstable v1 plan_removed has no annotation: the reducer keeps it in history,
    unchanged, and stores nothing else."""
    corpus.require()
    pkg = make_package(
        corpus.newest("schema/v1/schema.unstable.json"), "state_v1_unstable", target=target
    )
    state = pkg.SessionState()
    wire = {"sessionUpdate": "plan_removed", "planId": "p"}
    update = pkg.decode_update(json.dumps(wire))
    assert state.apply(update) is update
    assert list(state.replay()) == [update] and state.timeline == []
    assert json.loads(pkg.encode(update)) == wire


def test_migration_client_loop_runs_on_newest_v1(tmp_path: Path) -> None:
    """docs/migration.md's v1 client loop, against a package generated with no flags from
    the newest v1 stable schema, prints what the page shows."""
    corpus.require()
    out = tmp_path / "my_app" / "_vendor" / "acp"
    emit.write_tree(out, generate(Job(corpus.newest(V1_STABLE), out, "my_app._vendor.acp")))
    run_readme_example("## The same client loop on v1", tmp_path, "docs/migration.md")
