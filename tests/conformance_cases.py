"""Transcripts for the conformance checker, written from the v2 prompt-lifecycle text.

`CASES` holds, for every rule of the checker, a transcript that breaks it and a minimal
variant that keeps it. The builders below write JSON-RPC messages the way a client and an
agent exchange them; ``turn()`` is one whole, conforming prompt turn.
"""

from __future__ import annotations

from typing import Any, NamedTuple

Message = dict[str, Any]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def update(tag: str, session: str = "s", **fields: Any) -> Message:
    body = {"sessionUpdate": tag, **fields}
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session, "update": body},
    }


def state(tag: str, session: str = "s", **fields: Any) -> Message:
    return update("state_update", session, state=tag, **fields)


def idle(stop: str | None = "end_turn", session: str = "s", **fields: Any) -> Message:
    if stop is not None:
        fields["stopReason"] = stop
    return state("idle", session, **fields)


def chunk(words: str = "ok", message: str = "a1", session: str = "s") -> Message:
    return update("agent_message_chunk", session, messageId=message, content=text(words))


def user(message: str = "u1", session: str = "s") -> Message:
    return update("user_message", session, messageId=message, content=[text("hi")])


def tool(ident: str, status: str, session: str = "s") -> Message:
    return update("tool_call_update", session, toolCallId=ident, title="Run", status=status)


def terminal(ident: str, session: str = "s", **fields: Any) -> Message:
    return update("terminal_update", session, terminalId=ident, **fields)


def request(ident: int, method: str, **params: Any) -> Message:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def prompt(ident: int = 1, session: str = "s", blocks: list[Any] | None = None) -> Message:
    return request(
        ident,
        "session/prompt",
        sessionId=session,
        prompt=[text("hi")] if blocks is None else blocks,
    )


def ok(ident: int = 1, **result: Any) -> Message:
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def err(ident: int = 1, code: int = -32603) -> Message:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": "failed"}}


def cancel(session: str = "s") -> Message:
    return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}


def turn(ident: int = 1, message: str = "u1") -> list[Message]:
    """One conforming turn: prompt, running, the user message, acceptance, output, idle."""
    return [
        prompt(ident),
        state("running"),
        user(message),
        ok(ident, messageId=message),
        chunk(),
        idle(),
    ]


def listed(*items: tuple[str, str]) -> list[dict[str, str]]:
    keys = {"terminal": "terminalId", "tool_call": "toolCallId", "subagent": "sessionId"}
    return [{"type": kind, keys[kind]: ident} for kind, ident in items]


EXIT = {"exitCode": 0}
STARTED = [prompt(), state("running"), user(), ok(messageId="u1")]


def initialize(capabilities: dict[str, Any] | None = None) -> list[Message]:
    """The client's initialize, advertising `capabilities`, and the agent's answer."""
    asked = request(0, "initialize", protocolVersion=2, clientCapabilities=capabilities or {})
    return [asked, ok(0, protocolVersion=2)]


def notice(title: str = "Reconnected") -> Message:
    return update("notice", severity="info", title=title)


DONE = {"exitStatus": EXIT}
T1 = listed(("terminal", "t1"))
BOTH = listed(("terminal", "t1"), ("tool_call", "w1"))
#: a tool call whose output is the terminal it runs, still in progress
RUNS_T1 = update(
    "tool_call_update",
    toolCallId="w1",
    title="Dev server",
    status="in_progress",
    content=[{"type": "terminal", "terminalId": "t1"}],
)
LOAD = request(5, "session/load", sessionId="s", cwd="/", mcpServers=[])


def task(sender: str | None = "s", message: str = "m1") -> Message:
    """The task the parent gives child c1, as the child's incoming message."""
    participants = {} if sender is None else {"senderSessionId": sender}
    return update("session_message", "c1", messageId=message, content=[text("go")], **participants)


#: a child works and ends, while its parent mirrors only its start
CHILD_RUNS = [
    update("subagent_update", sessionId="c1", title="Helper"),
    task(),
    state("running", "c1"),
    update("subagent_update", sessionId="c1", state={"state": "running"}),
    idle(session="c1"),
]


class Case(NamedTuple):
    rule: str
    breaks: list[Message]
    keeps: list[Message]


CASES = (
    Case("foreground.start", [prompt(), user(), ok(messageId="u1"), chunk(), idle()], turn()),
    Case(
        "foreground.resume",
        [*STARTED, state("requires_action"), chunk(), state("running"), idle()],
        [*STARTED, state("requires_action"), state("running"), chunk(), idle()],
    ),
    Case("foreground.end", [*STARTED, chunk()], [*STARTED, chunk(), idle()]),
    Case(
        "turns.boundary",
        [*turn(), prompt(2), user("u2"), ok(2, messageId="u2"), chunk("b", "a2"), idle()],
        [*turn(), *turn(2, "u2")],
    ),
    Case("stop.custom", [*STARTED, idle("Stopped by hook")], [*STARTED, idle("_stopped_by_hook")]),
    Case(
        "stop.cancelled",
        [*STARTED, chunk(), cancel(), idle("error", error={"code": -1, "message": "aborted"})],
        [*STARTED, chunk(), cancel(), idle("cancelled")],
    ),
    Case(
        "stop.error",
        [prompt(), state("running"), err(), idle("end_turn")],
        [prompt(), state("running"), err(), idle("error")],
    ),
    Case(
        "cancel.prompts",
        [prompt(), cancel(), err(code=-32603)],
        [prompt(), cancel(), err(code=-32800)],
    ),
    Case(
        "cancel.order",
        [*STARTED, chunk(), cancel(), idle("cancelled"), chunk("late")],
        [*STARTED, chunk(), cancel(), chunk("late"), idle("cancelled")],
    ),
    Case("prompt.nonempty", [prompt(blocks=[]), err(code=-32602)], [prompt(), err(code=-32602)]),
    Case(
        "prompt.inserted",
        [prompt(), state("running"), user(), err(), idle("error")],
        [prompt(), state("running"), user(), ok(messageId="u1"), idle("error")],
    ),
    Case("prompt.rejected", [prompt(), ok()], [prompt(), err(code=-32602)]),
    Case("prompt.echo", [prompt(), state("running"), ok(messageId="u1"), chunk(), idle()], turn()),
    Case(
        "background.always",
        [*STARTED, state("running", background=[]), idle()],
        [*STARTED, state("running", background=[]), idle(background=[])],
    ),
    Case(
        "background.announce",
        [
            *STARTED,
            state("running", background=listed(("terminal", "t1"))),
            terminal("t1", command="npm run dev"),
            idle(background=listed(("terminal", "t1"))),
        ],
        [
            *STARTED,
            terminal("t1", command="npm run dev"),
            state("running", background=listed(("terminal", "t1"))),
            idle(background=listed(("terminal", "t1"))),
        ],
    ),
    Case(
        "background.finalize",
        [
            terminal("t1", command="sleep 1"),
            state("idle", background=listed(("terminal", "t1"))),
            state("idle", background=[]),
            terminal("t1", exitStatus=EXIT),
        ],
        [
            terminal("t1", command="sleep 1"),
            state("idle", background=listed(("terminal", "t1"))),
            terminal("t1", exitStatus=EXIT),
            state("idle", background=[]),
        ],
    ),
    Case(
        "background.listed",
        [tool("w1", "completed"), state("idle", background=listed(("tool_call", "w1")))],
        [tool("w1", "in_progress"), state("idle", background=listed(("tool_call", "w1")))],
    ),
    Case(
        "resume.snapshot",
        [request(7, "session/resume", sessionId="s", cwd="/"), ok(7)],
        [request(7, "session/resume", sessionId="s", cwd="/"), idle(None), ok(7)],
    ),
    Case(
        "background.once",
        [terminal("t1", command="npm run dev"), RUNS_T1, state("idle", background=BOTH)],
        [terminal("t1", command="npm run dev"), RUNS_T1, state("idle", background=T1)],
    ),
    Case(
        "background.resend",
        [terminal("t1", command="sleep 1"), idle(None, background=T1), terminal("t1", **DONE)],
        [
            terminal("t1", command="sleep 1"),
            idle(None, background=T1),
            terminal("t1", **DONE),
            idle(None, background=[]),
        ],
    ),
    Case(
        "state.standard",
        [
            *initialize(),
            prompt(),
            state("_acme_working"),
            user(),
            ok(messageId="u1"),
            chunk(),
            idle(),
        ],
        [
            *initialize({"_meta": {"acme.dev/states": ["_acme_working"]}}),
            prompt(),
            state("_acme_working"),
            user(),
            ok(messageId="u1"),
            chunk(),
            idle(),
        ],
    ),
    Case("idle.reason", [*STARTED, chunk(), idle(None)], [*STARTED, chunk(), idle()]),
    Case(
        "prompt.lifecycle",
        [prompt(), user(), ok(messageId="u1")],
        [prompt(), state("running"), user(), ok(messageId="u1"), idle()],
    ),
    Case(
        "replay.live",
        [LOAD, notice(), user(), chunk(), ok(5)],
        [LOAD, user(), chunk(), ok(5), notice()],
    ),
    Case(
        "subagent.task",
        [update("subagent_update", sessionId="c1"), user("task", session="c1")],
        [update("subagent_update", sessionId="c1"), task()],
    ),
    Case(
        "subagent.mirror",
        CHILD_RUNS,
        [*CHILD_RUNS, update("subagent_update", sessionId="c1", state={"state": "idle"})],
    ),
    Case(
        "entity.reuse",
        [*turn(), prompt(2), state("running"), ok(2, messageId="u1"), chunk("b", "a2"), idle()],
        [*turn(), *turn(2, "u2")],
    ),
    Case(
        "update.schema",
        [update("usage_update", size=200_000)],
        [update("usage_update", used=1_000, size=200_000)],
    ),
)

#: v1 traffic: a prompt response ends the turn, with its stop reason.
V1_CASES = (
    Case(
        "cancel.order",
        [prompt(), chunk(), cancel(), ok(stopReason="cancelled"), chunk("late")],
        [prompt(), chunk(), cancel(), chunk("late"), ok(stopReason="cancelled")],
    ),
)
