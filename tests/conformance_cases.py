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


def initialize(version: int = 2, **result: Any) -> list[Message]:
    """The initialize exchange, and a session/new that sets up session ``s``."""
    return [
        request(0, "initialize", protocolVersion=version),
        ok(0, protocolVersion=version, **result),
        request(9, "session/new", cwd="/", mcpServers=[]),
        ok(9, sessionId="s"),
    ]


def notify(method: str, **params: Any) -> Message:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def compaction(ident: str, status: str, session: str = "s") -> Message:
    return update("compaction_update", session, compactionId=ident, status=status)


def permission(ident: int, tool_call: str, session: str = "s") -> Message:
    """The agent asks whether tool call `tool_call` may run."""
    option = {"optionId": "yes", "name": "Allow", "kind": "allow_once"}
    subject = {"type": "tool_call", "toolCall": {"toolCallId": tool_call}}
    return request(
        ident, "session/request_permission", sessionId=session, subject=subject, options=[option]
    )


EXIT = {"exitCode": 0}
STARTED = [prompt(), state("running"), user(), ok(messageId="u1")]
FAILURE = {"code": -32603, "message": "model unavailable"}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
#: an initialize result that advertises image prompts (v2 spelling)
IMAGES = {"capabilities": {"session": {"prompt": {"image": {}}}}}
DECLINED = {"outcome": {"outcome": "cancelled"}}
DONE = ("in_progress", "completed")
ALLOWED = {"outcome": {"outcome": "selected", "optionId": "yes"}}
RAN = [tool("c1", "in_progress"), tool("c1", "completed")]


def client_initialize(capabilities: dict[str, Any] | None = None) -> list[Message]:
    """The initialize exchange with the client advertising `capabilities`, and a
    session/new that sets up session ``s``."""
    asked = request(0, "initialize", protocolVersion=2, clientCapabilities=capabilities or {})
    return [asked, *initialize()[1:]]


def notice(title: str = "Reconnected") -> Message:
    return update("notice", severity="info", title=title)


EXITED = {"exitStatus": EXIT}
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
    #: rules the breaking transcript cannot help breaking too
    also: tuple[str, ...] = ()


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
        [prompt(), state("running"), err(), idle("error", error=FAILURE)],
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
        [prompt(), state("running"), user(), err(), idle("error", error=FAILURE)],
        [prompt(), state("running"), user(), ok(messageId="u1"), idle("error", error=FAILURE)],
    ),
    Case("prompt.rejected", [prompt(), ok()], [prompt(), err(code=-32602)]),
    Case("prompt.echo", [prompt(), state("running"), ok(messageId="u1"), chunk(), idle()], turn()),
    Case(
        "prompt.initialized",
        [request(0, "initialize", protocolVersion=2), *turn(), ok(0, protocolVersion=2)],
        [*initialize(), *turn()],
    ),
    Case(
        "prompt.capabilities",
        [*initialize(), prompt(blocks=[IMAGE]), err(code=-32602)],
        [*initialize(**IMAGES), prompt(blocks=[IMAGE]), *turn()[1:]],
    ),
    Case(
        "prompt.unsupported",
        [*initialize(), prompt(blocks=[IMAGE]), *turn()[1:]],
        [*initialize(**IMAGES), prompt(blocks=[IMAGE]), *turn()[1:]],
        ("prompt.capabilities",),
    ),
    Case(
        "prompt.message_id",
        [user(), prompt(), state("running"), ok(messageId="u1"), chunk(), idle()],
        turn(),
    ),
    Case(
        "prompt.distinct",
        [*turn(), prompt(2), state("running"), ok(2, messageId="u1"), chunk("b", "a2"), idle()],
        [*turn(), *turn(2, "u2")],
    ),
    Case(
        "message.id",
        [*STARTED, update("agent_message_chunk", content=text("ok")), idle()],
        [*STARTED, chunk(), idle()],
    ),
    Case(
        "turn.pending",
        [*STARTED, chunk("Hel"), idle(), chunk("lo")],
        [*STARTED, chunk("Hel"), chunk("lo"), idle()],
    ),
    Case(
        "tool.in_progress",
        [*STARTED, tool("c1", "pending"), permission(5, "c1"), ok(5, **ALLOWED), *RAN[1:], idle()],
        [*STARTED, tool("c1", "pending"), permission(5, "c1"), ok(5, **ALLOWED), *RAN, idle()],
    ),
    Case("stop.reason", [*STARTED, chunk(), idle(None)], [*STARTED, chunk(), idle()]),
    Case(
        "failure.details",
        [*STARTED, chunk(), idle("error")],
        [*STARTED, chunk(), idle("error", error=FAILURE)],
    ),
    Case(
        "failure.tools",
        [*STARTED, tool("c1", "in_progress"), idle("error", error=FAILURE)],
        [*STARTED, tool("c1", "in_progress"), tool("c1", "failed"), idle("error", error=FAILURE)],
    ),
    Case(
        "cancel.stop",
        [*STARTED, tool("c1", "in_progress"), cancel(), tool("c1", "cancelled"), idle()],
        [*STARTED, tool("c1", "in_progress"), cancel(), tool("c1", "cancelled"), idle("cancelled")],
    ),
    Case(
        "cancel.permission",
        [
            *STARTED,
            tool("c1", "pending"),
            permission(5, "c1"),
            cancel(),
            tool("c1", "cancelled"),
            idle("cancelled"),
            ok(5, **DECLINED),
        ],
        [
            *STARTED,
            tool("c1", "pending"),
            permission(5, "c1"),
            cancel(),
            notify("$/cancel_request", requestId=5),
            tool("c1", "cancelled"),
            idle("cancelled"),
            ok(5, **DECLINED),
        ],
    ),
    Case(
        "compaction.reuse",
        [
            *STARTED,
            *(compaction("k1", s) for s in ("completed", "in_progress", "completed")),
            idle(),
        ],
        [*STARTED, compaction("k1", "completed"), *(compaction("k2", s) for s in DONE), idle()],
    ),
    Case(
        "compaction.end",
        [*STARTED, compaction("k1", "in_progress"), idle()],
        [*STARTED, compaction("k1", "in_progress"), compaction("k1", "completed"), idle()],
    ),
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
        [terminal("t1", command="sleep 1"), idle(None, background=T1), terminal("t1", **EXITED)],
        [
            terminal("t1", command="sleep 1"),
            idle(None, background=T1),
            terminal("t1", **EXITED),
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
            *client_initialize({"_meta": {"acme.dev/states": ["_acme_working"]}}),
            prompt(),
            state("_acme_working"),
            user(),
            ok(messageId="u1"),
            chunk(),
            idle(),
        ],
    ),
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
        [tool("c1", "completed"), tool("c1", "in_progress")],
        [tool("c1", "in_progress"), tool("c1", "completed")],
    ),
    Case(
        "update.schema",
        [update("usage_update", size=200_000)],
        [update("usage_update", used=1_000, size=200_000)],
    ),
)

#: a v1 permission request names its tool call with ``toolCall``
V1_ASK = request(
    5,
    "session/request_permission",
    sessionId="s",
    toolCall={"toolCallId": "c1"},
    options=[{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
)

#: v1 traffic: a prompt response ends the turn, with its stop reason.
V1_CASES = (
    Case(
        "cancel.order",
        [prompt(), chunk(), cancel(), ok(stopReason="cancelled"), chunk("late")],
        [prompt(), chunk(), cancel(), chunk("late"), ok(stopReason="cancelled")],
    ),
    Case(
        "cancel.stop",
        [
            prompt(),
            tool("c1", "in_progress"),
            cancel(),
            tool("c1", "cancelled"),
            ok(stopReason="end_turn"),
        ],
        [
            prompt(),
            tool("c1", "in_progress"),
            cancel(),
            tool("c1", "cancelled"),
            ok(stopReason="cancelled"),
        ],
    ),
    Case(
        "tool.in_progress",
        [
            prompt(),
            tool("c1", "pending"),
            V1_ASK,
            ok(5, **ALLOWED),
            *RAN[1:],
            ok(stopReason="end_turn"),
        ],
        [
            prompt(),
            tool("c1", "pending"),
            V1_ASK,
            ok(5, **ALLOWED),
            *RAN,
            ok(stopReason="end_turn"),
        ],
    ),
    Case(
        "prompt.initialized",
        [request(0, "initialize", protocolVersion=1), prompt(), ok(0, protocolVersion=1)],
        [*initialize(1), prompt(), ok(stopReason="end_turn")],
    ),
    Case(
        "prompt.capabilities",
        [*initialize(1), prompt(blocks=[IMAGE]), ok(stopReason="end_turn")],
        [
            *initialize(1, agentCapabilities={"promptCapabilities": {"image": True}}),
            prompt(blocks=[IMAGE]),
            ok(stopReason="end_turn"),
        ],
    ),
)
