"""The checker's rules on background lists, session states, replays and subagents.

Each breaking transcript of `CASES` for these rules gives exactly the findings below, on
the package of our schema and on the newest v2 one (which has no subagents, so it selects
no subagent rule and sees nothing there). Then the false reports that are gone: a resumed
or loaded session's snapshots read as current state, one finding per item rather than per
snapshot, and one start finding per foreground interval.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conformance_cases import (
    CASES,
    EXIT,
    LOAD,
    STARTED,
    T1,
    cancel,
    chunk,
    idle,
    initialize,
    listed,
    notice,
    ok,
    prompt,
    request,
    state,
    task,
    terminal,
    tool,
    update,
    user,
)
from tests.conftest import OWN_SCHEMA, GenerateFn


@pytest.fixture(scope="module", params=["ours", "v2"])
def pkg(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """The ``conformance`` module of our schema's package and of the newest v2 one."""
    if request.param == "ours":
        package = make_package(OWN_SCHEMA, "conform_ours", target=target)
    else:
        corpus.require()
        package = make_package(corpus.newest(corpus.NEWEST["v2"]), "conform_v2", target=target)
    return importlib.import_module(package.__name__ + ".conformance")


def findings(pkg: ModuleType, messages: list[Any], **options: Any) -> list[tuple[Any, ...]]:
    return [(v.index, v.rule, v.level, v.message) for v in pkg.check(messages, **options)]


def seen(pkg: ModuleType, expected: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`expected`, less the findings of rules the package does not select."""
    selected = {rule.id for rule in pkg.Checker().rules}
    return [found for found in expected if found[1] in selected]


def knows_subagents(pkg: ModuleType) -> bool:
    return "subagent.mirror" in {rule.id for rule in pkg.Checker().rules}


RESUME = request(7, "session/resume", sessionId="s", cwd="/")
W1 = listed(("tool_call", "w1"))

#: rule -> the exact findings of its breaking transcript in `CASES`
BREAKS = {
    "background.once": [
        (
            2,
            "background.once",
            "MUST",
            "tool call 'w1' is listed beside the terminal 't1' it runs: "
            "process-backed work is listed once, as its terminal",
        )
    ],
    "background.resend": [
        (
            2,
            "background.resend",
            "SHOULD",
            "the work of terminal 't1' ended, and no later snapshot removes it from the "
            "background list",
        )
    ],
    "state.standard": [
        (
            8,
            "state.standard",
            "MUST",
            "agent content after the state '_acme_working' (message 5), "
            "which the client did not advertise, where running is required",
        )
    ],
    "prompt.lifecycle": [
        (
            0,
            "prompt.lifecycle",
            "MUST",
            "the accepted prompt of message 0 was handled with no running or "
            "requires_action, and no idle that ends its work",
        )
    ],
    "replay.live": [
        (1, "replay.live", "SHOULD", "a live-only notice was sent inside a history replay")
    ],
    "subagent.task": [
        (
            1,
            "subagent.task",
            "SHOULD",
            "user message 'task' in the child session 'c1', which no prompt sent: "
            "a task from the parent is a session_message",
        )
    ],
    "subagent.mirror": [
        (
            4,
            "subagent.mirror",
            "SHOULD",
            "the child session 'c1' ends 'idle', but its parent 's' last mirrored "
            "'running' in subagent_update.state",
        )
    ],
}


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_each_breaking_transcript_gives_exactly_its_findings(pkg: ModuleType, rule: str) -> None:
    case = next(c for c in CASES if c.rule == rule)
    assert findings(pkg, case.breaks) == seen(pkg, BREAKS[rule])
    assert findings(pkg, case.keeps) == []


def test_the_new_rules_follow_resume_snapshot_in_the_table(pkg: ModuleType) -> None:
    names = [r.id for r in pkg.RULES]
    start = names.index("resume.snapshot") + 1
    assert names[start : start + len(BREAKS)] == list(BREAKS)


# -- rules, beyond their cases ---------------------------------------------------------


def test_a_resume_snapshot_sent_before_the_replay_does_not_count(pkg: ModuleType) -> None:
    early = [RESUME, idle(None), user(), chunk(), ok(7)]
    assert findings(pkg, early) == [
        (
            4,
            "resume.snapshot",
            "MUST",
            "the state snapshot of message 1 came before replayed history, and none followed it",
        )
    ]
    assert findings(pkg, [RESUME, user(), chunk(), idle(None), ok(7)]) == []


def test_an_item_listed_twice_in_one_snapshot(pkg: ModuleType) -> None:
    twice = [terminal("t1", command="top"), state("idle", background=T1 + T1)]
    assert findings(pkg, twice) == [
        (1, "background.once", "MUST", "terminal 't1' is listed twice in one snapshot")
    ]


def test_a_tool_call_that_shows_an_unlisted_terminal_may_be_listed(pkg: ModuleType) -> None:
    case = next(c for c in CASES if c.rule == "background.once")
    assert findings(pkg, [*case.breaks[:2], state("idle", background=W1)]) == []


def test_an_unadvertised_state_without_initialize_is_a_note(pkg: ModuleType) -> None:
    stream = [prompt(), state("_acme_working"), user(), ok(messageId="u1"), chunk(), idle()]
    assert findings(pkg, stream) == [
        (
            4,
            "state.standard",
            "note",
            "agent content after the state '_acme_working' (message 1), "
            "which the client did not advertise, where running is required",
        )
    ]


def test_an_unadvertised_state_does_not_resume_blocked_work(pkg: ModuleType) -> None:
    stream = [*initialize(), *STARTED, state("requires_action"), state("_acme_back"), chunk()]
    assert findings(pkg, [*stream, idle()]) == [
        (
            10,
            "state.standard",
            "MUST",
            "agent content after the state '_acme_back' (message 9), "
            "which the client did not advertise, where running is required",
        )
    ]
    assert findings(pkg, [*stream[:-2], state("running"), chunk(), idle()]) == []


def test_an_unadvertised_state_alone_ending_a_prompt(pkg: ModuleType) -> None:
    """The prompt's work shows only a custom state, then idle: one finding, not also a
    foreground.start."""
    stream = [*initialize(), prompt(), user(), ok(messageId="u1"), state("_acme_x"), idle()]
    assert findings(pkg, stream) == [
        (
            8,
            "state.standard",
            "MUST",
            "the accepted prompt of message 4 after the state '_acme_x' (message 7), "
            "which the client did not advertise, where running is required",
        )
    ]


def test_a_prompt_answered_then_only_a_bare_idle(pkg: ModuleType) -> None:
    stream = [prompt(), user(), ok(messageId="u1"), idle(None)]
    assert [v[:2] for v in findings(pkg, stream)] == [(0, "prompt.lifecycle")]
    assert findings(pkg, stream, complete=False) == []


def test_an_idle_without_stop_reason_after_requires_action(pkg: ModuleType) -> None:
    stream = [*STARTED, state("requires_action"), idle(None)]
    assert findings(pkg, stream) == [
        (5, "stop.reason", "SHOULD", "the idle that ends the work has no stop reason")
    ]
    # a repeated idle without a stop reason is no transition
    assert findings(pkg, [*STARTED, idle(), idle(None)]) == []


def test_a_listed_child_that_goes_quiet_should_leave_the_list(pkg: ModuleType) -> None:
    """A background child is listed while it has anything running: once it is idle with
    no background of its own, its work has ended."""
    c1 = listed(("subagent", "c1"))
    stream = [
        update("subagent_update", sessionId="c1"),
        task(),
        state("running", "c1", background=[]),
        idle(None, background=c1),
        idle(session="c1", background=[]),
        update("subagent_update", sessionId="c1", state={"state": "idle", "background": []}),
    ]
    resend = (
        4,
        "background.resend",
        "SHOULD",
        "the work of subagent 'c1' ended, and no later snapshot removes it from the "
        "background list",
    )
    # a package without subagents cannot tell what the listed child is doing
    assert findings(pkg, stream) == ([resend] if knows_subagents(pkg) else [])
    assert findings(pkg, [*stream, idle(None, background=[])]) == []
    # an idle child with background work of its own stays listed
    busy = [
        *stream[:4],
        terminal("t1", "c1", command="top"),
        idle(session="c1", background=T1),
        update("subagent_update", sessionId="c1", state={"state": "idle", "background": T1}),
    ]
    assert findings(pkg, busy) == []


def test_a_notice_after_the_last_replayed_content_may_be_new(pkg: ModuleType) -> None:
    assert findings(pkg, [LOAD, user(), notice(), ok(5)]) == []


def test_a_child_that_works_with_no_task_message(pkg: ModuleType) -> None:
    stream = [
        update("subagent_update", sessionId="c1"),
        state("running", "c1"),
        idle(session="c1"),
    ]
    assert findings(pkg, stream) == seen(
        pkg,
        [
            (
                1,
                "subagent.task",
                "SHOULD",
                "the child session 'c1' works, but its transcript has no incoming "
                "session_message: the task its parent gave it",
            ),
            (
                2,
                "subagent.mirror",
                "SHOULD",
                "the child session 'c1' ends 'idle', but its parent 's' last mirrored "
                "None in subagent_update.state",
            ),
        ],
    )


def test_a_task_without_a_sender_and_a_mirrored_end_keep_the_rules(pkg: ModuleType) -> None:
    """Without evidence of the sender the agent leaves it out, and that is the task; the
    child's transcript may start before its parent announces it."""
    stream = [
        task(sender=None),
        state("running", "c1"),
        update("subagent_update", sessionId="c1"),
        idle(session="c1"),
        update("subagent_update", sessionId="c1", state={"state": "idle"}),
    ]
    assert findings(pkg, stream) == []
    # the user may prompt a child: that work needs no task from the parent
    prompted = [
        update("subagent_update", sessionId="c1"),
        prompt(session="c1"),
        state("running", "c1"),
        user(session="c1"),
        ok(messageId="u1"),
        idle(session="c1"),
        update("subagent_update", sessionId="c1", state={"state": "idle"}),
    ]
    assert findings(pkg, prompted) == []
    # a message the child sends is not its task
    outgoing = update("session_message", "c1", messageId="m2", senderSessionId="c1")
    assert [v[:2] for v in findings(pkg, [outgoing, *stream[1:]])] == seen(
        pkg, [(1, "subagent.task")]
    )


# -- false reports that are gone -------------------------------------------------------


def test_items_a_resume_snapshot_lists_need_no_announcement(pkg: ModuleType) -> None:
    """The resume snapshot reports what runs now: t9 was announced before the recording."""
    t9 = listed(("terminal", "t9"))
    stream = [
        RESUME,
        user(),
        chunk(),
        state("running", background=t9),
        ok(7),
        chunk("more"),
        terminal("t9", exitStatus=EXIT),
        idle(background=[]),
    ]
    assert findings(pkg, stream) == []


def test_items_a_loaded_session_lists_first_need_no_announcement(pkg: ModuleType) -> None:
    t9 = listed(("terminal", "t9"))
    assert findings(pkg, [LOAD, user(), ok(5), idle(None, background=t9)]) == []
    announced = [LOAD, terminal("t9", command="top"), ok(5), idle(None, background=t9)]
    assert findings(pkg, announced) == []
    # a live snapshot after that still needs announcements for new items
    late = [*announced, idle(None, background=[*t9, *T1])]
    assert findings(pkg, late) == [
        (4, "background.announce", "MUST", "terminal 't1' is listed before any update announced it")
    ]


def test_after_a_failed_load_snapshots_are_live_again(pkg: ModuleType) -> None:
    failed = [LOAD, {"jsonrpc": "2.0", "id": 5, "error": {"code": -32002, "message": "gone"}}]
    assert [v[:2] for v in findings(pkg, [*failed, idle(None, background=T1)])] == [
        (2, "background.announce")
    ]


def test_a_resume_idle_with_a_stop_reason_is_no_completion(pkg: ModuleType) -> None:
    """Work cancelled before a reconnect: the resume snapshot's last stop reason is
    context, not the idle that confirms the cancellation."""
    stream = [*STARTED, chunk(), cancel(), RESUME, idle("error"), ok(7)]
    assert findings(pkg, stream) == []


def test_a_finished_tool_call_is_reported_on_its_first_snapshot_only(pkg: ModuleType) -> None:
    stream = [tool("w1", "completed"), *[state("idle", background=W1)] * 3]
    assert findings(pkg, stream) == [
        (1, "background.listed", "SHOULD", "tool call 'w1' is listed with a final status")
    ]
    unannounced = [state("idle", background=T1)] * 3
    assert findings(pkg, unannounced) == [
        (0, "background.announce", "MUST", "terminal 't1' is listed before any update announced it")
    ]


def test_one_start_finding_per_foreground_interval(pkg: ModuleType) -> None:
    """Content while idle, then the idle that ends the prompt's work: one interval, one
    finding (it used to be reported again on the idle)."""
    assert findings(pkg, CASES[0].breaks) == [
        (3, "foreground.start", "MUST", "agent content while the session is idle")
    ]
    again = [*CASES[0].breaks, prompt(2), user("u2"), ok(2, messageId="u2"), chunk("b", "a2")]
    assert [v[:2] for v in findings(pkg, [*again, idle()])] == [
        (3, "foreground.start"),
        (8, "foreground.start"),  # the new prompt starts a new interval
    ]
