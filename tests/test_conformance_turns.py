"""The checker's rules for prompts, message IDs, turn ends, failures and cancellation.

Each breaking transcript of `CASES` for these rules gives exactly the findings below
(index, rule, level, message), for the package of our schema and for the newest
published v2 one; then the edges each rule draws, and what v1 traffic is held to.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conformance_cases import (
    CASES,
    DECLINED,
    FAILURE,
    IMAGE,
    STARTED,
    V1_CASES,
    cancel,
    chunk,
    compaction,
    err,
    idle,
    initialize,
    listed,
    notify,
    ok,
    permission,
    prompt,
    request,
    state,
    terminal,
    text,
    tool,
    turn,
    update,
    user,
)
from tests.conftest import OWN_SCHEMA, GenerateFn

Finding = tuple[int, str, str, str]


def conformance(package: ModuleType) -> ModuleType:
    return importlib.import_module(package.__name__ + ".conformance")


@pytest.fixture(scope="module", params=["ours", "v2"])
def pkg(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """The ``conformance`` module of our schema's package and of the newest v2 one."""
    if request.param == "ours":
        return conformance(make_package(OWN_SCHEMA, "conform_ours", target=target))
    corpus.require()
    return conformance(
        make_package(corpus.newest(corpus.NEWEST["v2"]), "conform_v2", target=target)
    )


@pytest.fixture(scope="module")
def v1(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return conformance(
        make_package(corpus.newest(corpus.NEWEST["v1"]), "conform_v1", target=target)
    )


def found(module: ModuleType, messages: list[Any], **options: Any) -> list[Finding]:
    return [(v.index, v.rule, v.level, v.message) for v in module.check(messages, **options)]


UNADVERTISED = "prompt content of type image, which initialize did not advertise"

#: rule -> the findings of its breaking transcript in `CASES`
EXPECTED: dict[str, list[Finding]] = {
    "prompt.initialized": [
        (1, "prompt.initialized", "MUST", "a prompt sent while initialize is unanswered")
    ],
    "prompt.capabilities": [(4, "prompt.capabilities", "MUST", UNADVERTISED)],
    "prompt.unsupported": [
        (4, "prompt.capabilities", "MUST", UNADVERTISED),
        (
            7,
            "prompt.unsupported",
            "MUST",
            "the prompt of message 4 was inserted with image content, "
            "which initialize did not advertise",
        ),
    ],
    "prompt.message_id": [
        (
            3,
            "prompt.message_id",
            "MUST",
            "the user message 'u1' was reported (message 0) before its prompt was sent",
        )
    ],
    "prompt.distinct": [
        (
            8,
            "prompt.distinct",
            "MUST",
            "two inserted prompts share the messageId 'u1' (the first answered at message 3)",
        )
    ],
    "message.id": [(4, "message.id", "MUST", "agent_message_chunk without a messageId")],
    "turn.pending": [
        (
            6,
            "turn.pending",
            "MUST",
            "agent_message 'a1' goes on after the idle that ended its work (message 5)",
        )
    ],
    "tool.in_progress": [
        (
            7,
            "tool.in_progress",
            "SHOULD",
            "tool call 'c1' completed after the permission granted at message 6, "
            "with no in_progress status first",
        )
    ],
    "stop.reason": [(5, "stop.reason", "SHOULD", "the idle that ends the work has no stop reason")],
    "failure.details": [
        (5, "failure.details", "SHOULD", "the error stop reason has no error object")
    ],
    "failure.tools": [
        (
            5,
            "failure.tools",
            "SHOULD",
            "the failed work left tool call(s) 'c1' with no terminal status",
        )
    ],
    "cancel.stop": [
        (
            7,
            "cancel.stop",
            "MUST",
            "the work cancelled at message 5 ended with 'end_turn', not cancelled",
        )
    ],
    "cancel.permission": [
        (
            8,
            "cancel.permission",
            "SHOULD",
            "the permission request of message 5 was still open when the cancelled work "
            "stopped, and the agent never withdrew it with $/cancel_request",
        )
    ],
    "compaction.reuse": [
        (5, "compaction.reuse", "MUST", "compaction 'k1' is in_progress again after it ended")
    ],
    "compaction.end": [
        (
            5,
            "compaction.end",
            "MUST",
            "compaction 'k1' is still in progress when the transcript ends",
        )
    ],
}


def test_the_expected_findings_cover_these_rules_in_the_table_order(pkg: ModuleType) -> None:
    ids = [r.id for r in pkg.RULES]
    start = ids.index("prompt.echo") + 1
    assert ids[start : start + len(EXPECTED)] == list(EXPECTED)


@pytest.mark.parametrize("rule", list(EXPECTED))
def test_each_breaking_transcript_gives_exactly_these_findings(pkg: ModuleType, rule: str) -> None:
    case = next(c for c in CASES if c.rule == rule)
    assert found(pkg, case.breaks) == EXPECTED[rule]
    assert found(pkg, case.keeps) == []


# -- prompt.initialized -----------------------------------------------------------------


def test_initialization_and_session_setup_before_prompts(pkg: ModuleType) -> None:
    init = initialize()
    # a prompt, then the initialize that should have come first
    assert found(pkg, [*turn(), *init]) == [
        (0, "prompt.initialized", "MUST", "a prompt sent before initialize (message 6)")
    ]
    # no initialize anywhere: the recording may start mid-connection
    assert found(pkg, turn()) == []
    failed = [request(0, "initialize", protocolVersion=2), err(0, -32022), prompt()]
    assert found(pkg, failed) == [
        (2, "prompt.initialized", "MUST", "a prompt sent while initialize failed")
    ]
    # initialize done, but no session/new gave the prompt's session
    assert found(pkg, [*init[:2], *turn()]) == [
        (2, "prompt.initialized", "MUST", "a prompt sent for a session no earlier message set up")
    ]
    # a session/new still unanswered: its session ID is not known yet
    pending = [*init[:3], prompt(), init[3]]
    assert [v[:2] for v in found(pkg, pending)] == [(3, "prompt.initialized")]
    resume = request(7, "session/resume", sessionId="s", cwd="/")
    assert found(pkg, [resume, prompt(), idle(None), ok(7)]) == [
        (
            1,
            "prompt.initialized",
            "MUST",
            "a prompt sent while the session's session/load or session/resume is unanswered",
        )
    ]
    assert found(pkg, [resume, idle(None), ok(7), *turn()]) == []


# -- prompt.capabilities and prompt.unsupported ------------------------------------------


def test_prompt_content_is_read_against_the_advertised_capabilities(pkg: ModuleType) -> None:
    link = {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}
    embedded = {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "a"}}
    baseline = [*initialize(), prompt(blocks=[text("hi"), link]), *turn()[1:]]
    assert found(pkg, baseline) == []
    # `resource` needs embeddedContext; v2 advertises with an object, not with false
    caps = {"capabilities": {"session": {"prompt": {"image": {}, "embeddedContext": None}}}}
    assert found(pkg, [*initialize(**caps), prompt(blocks=[embedded]), err(code=-32602)]) == [
        (
            4,
            "prompt.capabilities",
            "MUST",
            "prompt content of type resource, which initialize did not advertise",
        )
    ]
    # a custom block type is not judged: its capability may be in any _meta
    custom = {"type": "_acme_sketch", "data": "..."}
    assert found(pkg, [*initialize(), prompt(blocks=[custom]), *turn()[1:]]) == []
    # without the initialize result, nothing says what was advertised
    assert found(pkg, [prompt(blocks=[IMAGE]), *turn()[1:]]) == []


def test_unsupported_content_is_rejected_with_invalid_params(pkg: ModuleType) -> None:
    sent = [*initialize(), prompt(blocks=[IMAGE])]
    assert found(pkg, [*sent, err(code=-32603)]) == [
        (4, "prompt.capabilities", "MUST", UNADVERTISED),
        (
            5,
            "prompt.unsupported",
            "MUST",
            "the prompt of message 4, with image content, was answered with -32603, not -32602",
        ),
    ]
    # cut off by session/cancel first: -32800 is what cancel.prompts asks for
    assert [v[1] for v in found(pkg, [*sent, cancel(), err(code=-32800)])] == [
        "prompt.capabilities"
    ]


# -- message IDs ------------------------------------------------------------------------


def test_message_ids_are_required_once_per_kind_of_update(pkg: ModuleType) -> None:
    bare = update("agent_message_chunk", content=text("a"))
    thought = update("agent_thought_chunk", messageId=None, content=text("b"))
    stream = [*STARTED, bare, bare, thought, bare, chunk(), idle()]
    assert found(pkg, stream) == [
        (4, "message.id", "MUST", "agent_message_chunk without a messageId"),
        (6, "message.id", "MUST", "agent_thought_chunk without a messageId"),
    ]
    # another session is reported on its own
    other = update("agent_message_chunk", "s2", content=text("c"))
    assert [v[:2] for v in found(pkg, [other, other])] == [(0, "message.id")]
    # a tool call or a notice has no messageId to carry
    assert found(pkg, [*STARTED, tool("c1", "completed"), idle()]) == []


def test_a_prompt_given_the_id_of_a_replayed_user_message(pkg: ModuleType) -> None:
    resume = request(7, "session/resume", sessionId="s", cwd="/", replayFrom={"type": "start"})
    history = [resume, user("u1"), idle(None), ok(7)]
    assert found(pkg, [*history, *turn()]) == [
        (
            7,
            "prompt.distinct",
            "MUST",
            "the prompt was given the messageId 'u1' of a replayed user message",
        )
    ]
    assert found(pkg, [*history, *turn(1, "u2")]) == []


# -- turn.pending -----------------------------------------------------------------------


def test_pending_updates_come_before_the_idle(pkg: ModuleType) -> None:
    late = [*STARTED, chunk("a"), idle(), chunk("b"), chunk("c")]
    assert [v[:2] for v in found(pkg, late)] == [(6, "turn.pending")]  # once per idle
    # a new message while idle is new work that did not report running
    fresh = [*STARTED, chunk("a"), idle(), chunk("b", "a2")]
    assert [v[:2] for v in found(pkg, fresh)] == [(6, "turns.boundary")]
    # after a cancellation, cancel.order names it
    cancelled = [*STARTED, chunk("a"), cancel(), idle("cancelled"), chunk("b")]
    assert [v[:2] for v in found(pkg, cancelled)] == [(7, "cancel.order")]
    # the next interval may go on with the same message
    again = [*STARTED, chunk("a"), idle(), state("running"), chunk("b"), idle()]
    assert found(pkg, again) == []


def test_a_tool_call_of_ended_work_that_is_not_background(pkg: ModuleType) -> None:
    work = [*STARTED, tool("c1", "in_progress"), idle(background=[]), tool("c1", "completed")]
    assert found(pkg, work) == [
        (
            6,
            "turn.pending",
            "MUST",
            "tool call 'c1' is updated after the idle that ended its work (message 5), "
            "and is not background work",
        )
    ]
    # listed, or showing a listed terminal: background work, which may go on while idle
    # (and, once finished, leaves the list)
    kept = listed(("tool_call", "c1"))
    finished = [*work[:5], idle(background=kept), tool("c1", "completed"), idle(background=[])]
    assert found(pkg, finished) == []
    shows = update(
        "tool_call_update",
        toolCallId="c1",
        status="in_progress",
        content=[{"type": "terminal", "terminalId": "t1"}],
    )
    served = [
        *STARTED,
        terminal("t1", command="npm run dev"),
        shows,
        idle(background=listed(("terminal", "t1"))),
        tool("c1", "completed"),
    ]
    assert found(pkg, served) == []
    # without background lists the transcript cannot tell
    assert found(pkg, [*work[:5], idle(), tool("c1", "completed")]) == []


# -- stop reasons and failures ----------------------------------------------------------


def test_a_stop_reason_is_owed_only_where_work_ends(pkg: ModuleType) -> None:
    repeated = [*STARTED, chunk(), idle(), idle(None)]
    assert found(pkg, repeated) == []
    resume = request(7, "session/resume", sessionId="s", cwd="/")
    snapshot = [resume, state("running"), idle(None), ok(7)]
    assert found(pkg, snapshot) == []
    # a failed prompt is stop.error's, not stop.reason's
    failed = [prompt(), state("running"), err(), idle(None)]
    assert [v[1:3] for v in found(pkg, failed)] == [("stop.error", "SHOULD")]


def test_failed_work_gives_its_tool_calls_a_terminal_status(pkg: ModuleType) -> None:
    failing = idle("error", error=FAILURE, background=listed(("tool_call", "w1")))
    stream = [
        *STARTED,
        tool("c1", "in_progress"),
        tool("c2", "pending"),
        tool("c3", "in_progress"),
        tool("c3", "completed"),
        tool("w1", "in_progress"),
        failing,
    ]
    assert found(pkg, stream) == [
        (
            9,
            "failure.tools",
            "SHOULD",
            "the failed work left tool call(s) 'c1', 'c2' with no terminal status",
        )
    ]
    # a tool call only ever seen in an earlier interval is not this work's
    earlier = [*STARTED, tool("c1", "in_progress"), idle(), state("running")]
    assert found(pkg, [*earlier, idle("error", error=FAILURE)]) == []


# -- cancellation -----------------------------------------------------------------------


def test_a_cancel_the_agent_may_not_have_seen_is_a_note(pkg: ModuleType) -> None:
    raced = [*STARTED, chunk(), cancel(), idle()]
    assert found(pkg, raced) == [
        (
            6,
            "cancel.stop",
            "note",
            "the work cancelled at message 5 ended with 'end_turn', not cancelled, "
            "with nothing showing the cancel took effect first",
        )
    ]
    pkg.assert_conformant(raced)
    # no stop reason at all is cancel.stop's too, not stop.reason's
    assert [v[1:3] for v in found(pkg, [*STARTED, cancel(), idle(None)])] == [
        ("cancel.stop", "note")
    ]


@pytest.mark.parametrize(
    "sign",
    [
        [prompt(2), cancel(), err(2, -32800)],
        [cancel(), permission(5, "c1"), notify("$/cancel_request", requestId=5)],
    ],
    ids=["covered prompt answered -32800", "$/cancel_request"],
)
def test_what_shows_a_cancel_took_effect(pkg: ModuleType, sign: list[Any]) -> None:
    stream = [*STARTED, tool("c1", "pending"), *sign, idle()]
    assert [v[1:3] for v in found(pkg, stream)] == [("cancel.stop", "MUST")]


def test_closing_cancels_like_session_cancel(pkg: ModuleType) -> None:
    close = request(8, "session/close", sessionId="s")
    cut = [prompt(), close, err(code=-32603), ok(8)]
    assert found(pkg, cut) == [
        (
            2,
            "cancel.prompts",
            "MUST",
            "a prompt not inserted before session/close (message 0) was answered with -32603",
        )
    ]
    assert found(pkg, [prompt(), close, err(code=-32800), ok(8)]) == []
    # closing active work: the idle that ends it must say cancelled
    closing = [*STARTED, chunk(), close, idle("cancelled"), ok(8)]
    assert found(pkg, closing) == []
    assert [v[1] for v in found(pkg, [*STARTED, close, idle("error", error=FAILURE), ok(8)])] == [
        "stop.cancelled"
    ]
    # a prompt the client withdrew with $/cancel_request
    withdrawn = [prompt(), notify("$/cancel_request", requestId=1), err(code=-32603)]
    assert [v[:2] for v in found(pkg, withdrawn)] == [(2, "cancel.prompts")]


def test_permission_requests_of_cancelled_work(pkg: ModuleType) -> None:
    asked = [*STARTED, tool("c1", "pending"), permission(5, "c1"), cancel()]
    stopped = [*asked, tool("c1", "cancelled"), idle("cancelled")]
    # withdrawn after the idle, before the client answers: kept
    late = [*stopped, notify("$/cancel_request", requestId=5), ok(5, **DECLINED)]
    assert found(pkg, late) == []
    # answered by the client before the idle: nothing left to withdraw
    answered = [*asked, ok(5, **DECLINED), tool("c1", "cancelled"), idle("cancelled")]
    assert found(pkg, answered) == []
    # still open when a complete transcript ends; a partial one cannot tell
    assert [v[:3] for v in found(pkg, stopped)] == [(8, "cancel.permission", "SHOULD")]
    assert found(pkg, stopped, complete=False) == []
    # a request about listed background work is not affected by the cancel
    background = [
        *STARTED,
        tool("w1", "in_progress"),
        state("running", background=listed(("tool_call", "w1"))),
        permission(5, "w1"),
        cancel(),
        idle("cancelled", background=listed(("tool_call", "w1"))),
    ]
    assert found(pkg, background) == []


def test_a_granted_tool_reports_in_progress(pkg: ModuleType) -> None:
    asked = [*STARTED, tool("c1", "pending"), permission(5, "c1")]
    chosen = {"outcome": {"outcome": "selected", "optionId": "yes"}}
    # a pending status in between is not a run; completing straight after it is
    ran = [*asked, ok(5, **chosen), tool("c1", "pending"), tool("c1", "completed"), idle()]
    assert [v[:3] for v in found(pkg, ran)] == [(8, "tool.in_progress", "SHOULD")]
    # declined, or ended without running: nothing to report as running
    assert found(pkg, [*asked, ok(5, **DECLINED), tool("c1", "completed"), idle()]) == []
    assert found(pkg, [*asked, ok(5, **chosen), tool("c1", "failed"), idle()]) == []
    # an optionId the request did not offer is no grant
    stray = {"outcome": {"outcome": "selected", "optionId": "other"}}
    assert found(pkg, [*asked, ok(5, **stray), tool("c1", "completed"), idle()]) == []


def test_who_withdrew_a_request(pkg: ModuleType) -> None:
    """Both sides number their requests: without a recorded direction, a $/cancel_request
    whose ID both sides have open is taken as the client's."""
    both = [*STARTED, prompt(5), tool("c1", "pending"), permission(5, "c1"), cancel()]
    withdraw = notify("$/cancel_request", requestId=5)
    # the held prompt 5 is cut off by the cancel; the permission request 5 stays open
    ending = [tool("c1", "cancelled"), idle("cancelled"), err(5, -32800)]
    guessed = [*both, withdraw, *ending]
    assert [v[:3] for v in found(pkg, guessed)] == [(10, "cancel.permission", "SHOULD")]
    recorded = [*both, {"direction": "agent", "message": withdraw}, *ending]
    assert found(pkg, recorded) == []


# -- compactions and notices ------------------------------------------------------------


def test_compactions_end_once_and_are_not_reused(pkg: ModuleType) -> None:
    summary = update("compaction_summary_chunk", compactionId="k1", content=text("..."))
    assert [v[:2] for v in found(pkg, [*STARTED, summary, idle()])] == [(5, "compaction.end")]
    ended = [*STARTED, summary, compaction("k1", "failed"), idle()]
    assert found(pkg, ended) == []
    # a later chunk patches the ended compaction: not a new one
    assert found(pkg, [*ended, summary]) == []
    # an unknown status says nothing about the lifecycle
    assert found(pkg, [*STARTED, compaction("k1", "_paused"), idle()]) == []
    # a history replay shows the compaction again from its start
    resume = request(7, "session/resume", sessionId="s", cwd="/", replayFrom={"type": "start"})
    history = [resume, compaction("k1", "in_progress"), compaction("k1", "completed")]
    assert found(pkg, [*ended[:-1], *history, idle(None), ok(7), idle()]) == []


def test_notices_are_live_only(pkg: ModuleType) -> None:
    notice = update("notice", severity="warning", title="Rate limited")
    # a resume with no replay requested is not a replay
    resume = request(7, "session/resume", sessionId="s", cwd="/")
    assert found(pkg, [resume, notice, idle(None), ok(7)]) == []
    replay = request(7, "session/resume", sessionId="s", cwd="/", replayFrom={"type": "start"})
    # replayed twice, with history after it: one finding; the notice after the resume
    # response is a live one
    twice = [replay, notice, notice, user("u0"), idle(None), ok(7), notice]
    assert [v[:2] for v in found(pkg, twice)] == [(1, "replay.live")]


# -- v1 -----------------------------------------------------------------------------------

V1_EXPECTED: dict[str, list[Finding]] = {
    "tool.in_progress": [
        (
            4,
            "tool.in_progress",
            "SHOULD",
            "tool call 'c1' completed after the permission granted at message 3, "
            "with no in_progress status first",
        )
    ],
    "cancel.stop": [
        (
            4,
            "cancel.stop",
            "MUST",
            "the work cancelled at message 2 ended with 'end_turn', not cancelled",
        )
    ],
    "prompt.initialized": [
        (1, "prompt.initialized", "MUST", "a prompt sent while initialize is unanswered")
    ],
    "prompt.capabilities": [(4, "prompt.capabilities", "MUST", UNADVERTISED)],
}


@pytest.mark.parametrize("rule", list(V1_EXPECTED))
def test_v1_breaking_transcripts_give_exactly_these_findings(v1: ModuleType, rule: str) -> None:
    case = next(c for c in V1_CASES if c.rule == rule)
    assert found(v1, case.breaks) == V1_EXPECTED[rule]
    assert found(v1, case.keeps) == []


def test_v1_reads_its_own_capabilities_and_cancel_signs(v1: ModuleType) -> None:
    # v1 advertises with true; v2's object spelling is accepted too
    for caps in ({"image": True}, {"image": {}}):
        advertised = initialize(1, agentCapabilities={"promptCapabilities": caps})
        assert found(v1, [*advertised, prompt(blocks=[IMAGE]), ok(stopReason="end_turn")]) == []
    # a v1 turn cancelled with nothing showing the cancel took effect: a note
    raced = [prompt(), chunk(), cancel(), ok(stopReason="end_turn")]
    assert [v[1:3] for v in found(v1, raced)] == [("cancel.stop", "note")]
    # the v2-only rules are not v1's
    v2_only = {"prompt.unsupported", "message.id", "turn.pending", "replay.live"}
    assert not v2_only & {r.id for r in v1.Checker().rules}
