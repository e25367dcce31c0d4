"""Write ``bench/stream_v2.jsonl``: a seeded, realistic stream of v2 ``session/update`` messages.

The stream imitates the prompt turns of a coding agent under prompt lifecycle v2:
a ``running`` state snapshot, the inserted ``user_message``, streamed thoughts and
answer text, tool calls that move from pending to completed with content chunks,
the odd terminal, plan, usage, notice, inter-session message and subagent update,
and an ``idle`` snapshot with a stop reason. About one message in ten carries
``_meta``; a few carry update kinds or states no schema lists, as extensions and
future revisions will. Every message is one compact JSON-RPC 2.0 notification.

The file is data: regenerate it only when the schema changes, with

    python -m bench.make_stream_v2            # writes bench/stream_v2.jsonl
    python -m bench.make_stream_v2 --check    # also validates every message (needs jsonschema)

Validation uses our ``schema/session_update.schema.json``; the same seed always
writes the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "stream_v2.jsonl"
SCHEMA = HERE.parent / "schema" / "session_update.schema.json"
SEED = 20260202
COUNT = 10_000

WORDS = (
    "the a decode struct union schema field variant tag open enum value payload stream "
    "session update message chunk tool call terminal plan usage state idle running bytes "
    "list dict return await async import def class self None True False error path line "
    "file test assert ok fix bug refactor module package ruff mypy pytest msgspec json "
    "héllo naïve café 日本 ✓ → ``` `code` **bold** - item\n"
).split(" ")
TOOLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("read", "Read {path}", {"path": "{path}"}),
    ("edit", "Edit {path}", {"path": "{path}", "oldString": "x", "newString": "y"}),
    ("search", "grep -rn decode", {"pattern": "decode", "path": "/repo/src"}),
    ("execute", "`pytest -q`", {"command": "pytest -q", "timeout": 120000}),
    ("fetch", "Fetch docs", {"url": "https://example.com/docs"}),
    ("think", "Thinking", {}),
)
PATHS = (
    "/repo/src/acp/codec.py",
    "/repo/src/acp/models.py",
    "/repo/tests/test_codec.py",
    "/repo/README.md",
    "/repo/pyproject.toml",
    "/repo/src/acp/_runtime.py",
)
META = ({"traceId": "t-1"}, {"zed.dev/agentName": "claude"}, {"progress": 0.5, "tags": ["a"]})


class Turns:
    """Stateful generator of update payloads (the ``update`` objects)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n_tool = 0
        self.n_term = 0
        self.n_plan = 0
        self.tokens = 0

    def ident(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def text(self, lo: int, hi: int) -> str:
        return " " + " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi)))

    def meta(self, update: dict[str, Any], p: float = 0.1) -> dict[str, Any]:
        if self.rng.random() < p:
            update["_meta"] = dict(self.rng.choice(META))
        return update

    def state(self, state: str, **extra: Any) -> dict[str, Any]:
        update = {"sessionUpdate": "state_update", "state": state, **extra}
        if self.rng.random() < 0.3:
            update["background"] = [{"type": "terminal", "terminalId": f"term_{self.n_term}"}]
        return self.meta(update)

    def chunks(self, kind: str, lo: int, hi: int) -> Iterator[dict[str, Any]]:
        message_id = self.ident()
        for _ in range(self.rng.randint(lo, hi)):
            update = {
                "sessionUpdate": kind,
                "messageId": message_id,
                "content": {"type": "text", "text": self.text(1, 8)},
            }
            yield self.meta(update, 0.05)

    def user_message(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text(5, 40)}]
        if self.rng.random() < 0.2:
            path = self.rng.choice(PATHS)
            content.append(
                {
                    "type": "resource_link",
                    "uri": "file://" + path,
                    "name": path.rsplit("/", 1)[-1],
                    "mimeType": "text/x-python",
                }
            )
        return self.meta(
            {"sessionUpdate": "user_message", "messageId": self.ident(), "content": content}
        )

    def tool_call(self) -> Iterator[dict[str, Any]]:
        self.n_tool += 1
        call_id = f"toolu_{self.n_tool:06d}"
        kind, title, raw = self.rng.choice(TOOLS)
        path = self.rng.choice(PATHS)
        raw_input = {k: v.format(path=path) if isinstance(v, str) else v for k, v in raw.items()}
        first: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "title": title.format(path=path),
            "kind": kind,
            "status": "pending",
            "rawInput": raw_input,
        }
        if kind in ("read", "edit"):
            first["locations"] = [{"path": path, "line": self.rng.randint(1, 400)}]
        yield self.meta(first)
        yield {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "in_progress"}
        if kind == "execute" and self.rng.random() < 0.5:
            yield from self.terminal(call_id)
        for _ in range(self.rng.randint(0, 4)):
            yield self.meta(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": call_id,
                    "content": self.tool_content(kind, path),
                },
                0.05,
            )
        status = "completed" if self.rng.random() < 0.9 else "failed"
        last: dict[str, Any] = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": status,
        }
        if self.rng.random() < 0.4:
            last["rawOutput"] = {"exitCode": 0, "lines": self.rng.randint(1, 500)}
        yield self.meta(last)

    def tool_content(self, kind: str, path: str) -> dict[str, Any]:
        if kind == "edit" and self.rng.random() < 0.6:
            return {
                "type": "diff",
                "changes": [{"operation": "modify", "path": path, "fileType": "text"}],
            }
        return {"type": "content", "content": {"type": "text", "text": self.text(3, 30)}}

    def terminal(self, call_id: str) -> Iterator[dict[str, Any]]:
        self.n_term += 1
        term = f"term_{self.n_term}"
        yield {
            "sessionUpdate": "terminal_update",
            "terminalId": term,
            "command": "pytest -q",
            "cwd": "/repo",
        }
        yield {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": call_id,
            "content": {"type": "terminal", "terminalId": term},
        }
        for _ in range(self.rng.randint(1, 6)):
            yield {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": term,
                "data": "Li4uLi4uLi4gICAgIFsgNDAlXQo=",
            }
        yield {
            "sessionUpdate": "terminal_update",
            "terminalId": term,
            "exitStatus": {"exitCode": self.rng.choice((0, 0, 0, 1))},
        }

    def plan(self) -> dict[str, Any]:
        self.n_plan += 1
        entries = [
            {
                "content": self.text(3, 10).strip(),
                "priority": self.rng.choice(("high", "medium", "low")),
                "status": self.rng.choice(("pending", "in_progress", "completed")),
            }
            for _ in range(self.rng.randint(2, 7))
        ]
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": f"plan_{self.n_plan}", "entries": entries},
        }

    def usage(self) -> dict[str, Any]:
        self.tokens += self.rng.randint(500, 9000)
        update: dict[str, Any] = {
            "sessionUpdate": "usage_update",
            "used": self.tokens,
            "size": 200_000,
        }
        if self.rng.random() < 0.7:
            update["cost"] = {"amount": round(self.tokens * 3e-6, 6), "currency": "USD"}
        return update

    def rare(self) -> dict[str, Any]:
        """One of the less frequent updates, some only in our schema, some in none."""
        pick = self.rng.random()
        if pick < 0.18:
            return {
                "sessionUpdate": "session_message",
                "messageId": self.ident(),
                "senderSessionId": "sess_child_1",
                "content": [{"type": "text", "text": self.text(3, 20)}],
            }
        if pick < 0.32:
            return {
                "sessionUpdate": "subagent_update",
                "sessionId": "sess_child_1",
                "state": {"state": self.rng.choice(("running", "idle"))},
            }
        if pick < 0.44:
            return {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Rate limit close",
                "description": self.text(3, 12),
            }
        if pick < 0.54:
            return {
                "sessionUpdate": "session_info_update",
                "title": self.text(2, 5).strip(),
                "updatedAt": "2026-02-02T10:00:00Z",
            }
        if pick < 0.62:
            return {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {"name": "init", "description": "Create an AGENTS.md"},
                    {
                        "name": "review",
                        "description": "Review the diff",
                        "input": {"type": "text", "hint": "branch"},
                    },
                ],
            }
        if pick < 0.70:
            return {"sessionUpdate": "state_update", "state": "unknown"}
        if pick < 0.78:
            return {
                "sessionUpdate": "compaction_update",
                "compactionId": self.ident(),
                "status": "completed",
            }
        if pick < 0.90:
            return {
                "sessionUpdate": "_acme_progress",
                "percent": self.rng.randint(0, 100),
                "_meta": {"acme": True},
            }
        return {"sessionUpdate": "thinking_budget", "remaining": self.rng.randint(0, 10_000)}

    def turn(self) -> Iterator[dict[str, Any]]:
        yield self.state("running")
        yield self.user_message()
        for _ in range(self.rng.randint(1, 4)):
            if self.rng.random() < 0.6:
                yield from self.chunks("agent_thought_chunk", 3, 25)
            yield from self.chunks("agent_message_chunk", 5, 45)
            if self.rng.random() < 0.15:
                yield self.plan()
            for _ in range(self.rng.choice((0, 1, 1, 2, 3))):
                if self.rng.random() < 0.08:
                    yield self.state("requires_action")
                    yield self.state("running")
                yield from self.tool_call()
            if self.rng.random() < 0.6:
                yield self.rare()
        yield from self.chunks("agent_message_chunk", 5, 30)
        yield self.usage()
        usage = {
            "totalTokens": self.tokens,
            "inputTokens": self.tokens * 3 // 4,
            "outputTokens": self.tokens // 4,
        }
        yield self.state(
            "idle", stopReason=self.rng.choice(("end_turn",) * 8 + ("cancelled",)), usage=usage
        )


def messages(seed: int = SEED, count: int = COUNT) -> list[dict[str, Any]]:
    turns = Turns(random.Random(seed))
    out: list[dict[str, Any]] = []
    while len(out) < count:
        for update in turns.turn():
            params = {"sessionId": "sess_main", "update": update}
            out.append({"jsonrpc": "2.0", "method": "session/update", "params": params})
            if len(out) == count:
                break
    return out


def check(rows: list[dict[str, Any]]) -> None:
    """Validate every ``params`` against our schema's session/update notification type."""
    import jsonschema  # type: ignore[import-untyped]

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    target = {"$defs": schema["$defs"], "$ref": "#/$defs/UpdateSessionNotification"}
    validator = jsonschema.Draft202012Validator(target)
    for i, row in enumerate(rows):
        error = jsonschema.exceptions.best_match(validator.iter_errors(row["params"]))
        if error is not None:
            raise SystemExit(f"message {i + 1} does not match the schema: {error.message}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="validate against schema/")
    args = parser.parse_args(argv)
    rows = messages()
    if args.check:
        check(rows)
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in rows]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
    mix = Counter(r["params"]["update"]["sessionUpdate"] for r in rows)
    for kind, n in mix.most_common():
        print(f"{kind:28} {n:6}", file=sys.stderr)
    print(f"wrote {len(rows)} messages to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
