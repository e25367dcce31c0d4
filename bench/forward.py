"""Figure 10: what forward compatibility costs, next to the official SDK.

Four faults a newer or looser peer sends, each made from a strict known message of the
v1 stream (a ``tool_call_update`` with content) by one change: an unknown update kind,
one undeclared property, a ``_meta`` of the wrong type, one invalid content item. Each
is measured **lone**: one faulty message after nine clean stream messages, a hundred
times over, no two faulty messages alike (each carries its own tool call ID). Only the
faulty message's own decode is timed, by the wall clock around that one call (a CPU
clock read costs about as much as a strict decode); the originals, ours and the SDK's
own path, are timed the same way, so every ratio is one of two measured times. The goal
is at most 0.8 times the SDK's own path on that original. The same faulty message
decoded again and again costs at most three times its original decoded as often.

Then a stream in which every message carries one undeclared property (an agent one
schema revision ahead), against the SDK on the same stream (goal: at least twice as
fast), and the worst cases: a recursive untagged union malformed 14 levels deep
(rejected within 10 ms), and one message with 1,000 invalid items or 1,000 undeclared
properties (at most 1,000 times the cost of one).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import peers
from .packages import Workspace, newest
from .report import Section
from .timing import Goal, Row, Sample, interleave, paused

#: ``Node = anyOf[{child: Node}, {leaf: string}]``, carried by a one-variant union.
NODE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Node": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"child": {"$ref": "#/$defs/Node"}},
                    "required": ["child"],
                },
                {
                    "type": "object",
                    "properties": {"leaf": {"type": "string"}},
                    "required": ["leaf"],
                },
            ]
        },
        "Update": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "tree"},
                        "root": {"$ref": "#/$defs/Node"},
                    },
                    "required": ["kind", "root"],
                }
            ]
        },
    },
}
#: Faulty messages a round, each after nine clean ones.
FAULTS = 100


def _message(message: dict[str, Any], update: dict[str, Any]) -> bytes:
    params = {**message["params"], "update": update}
    return json.dumps({**message, "params": params}, separators=(",", ":")).encode()


def _faults(update: dict[str, Any], n: int) -> dict[str, dict[str, Any]]:
    """The four faults, made from `update` (whose tool call ID is made unique by `n`)."""
    update = {**update, "toolCallId": f"{update['toolCallId']}-{n}"}
    return {
        "unknown update kind": {**update, "sessionUpdate": "_acme_tool_call_upd"},
        "one undeclared property": {**update, "acmeNote": f"read {n}"},
        "`_meta` of the wrong type": {**update, "_meta": f"not an object {n}"},
        "one invalid array item": {**update, "content": [*update["content"], {"type": "content"}]},
    }


def _deep_node(levels: int) -> bytes:
    node: Any = {"leaf": 5}
    for _ in range(levels):
        node = {"child": node}
    return json.dumps({"kind": "tree", "root": node}).encode()


def _lone(decode: Callable[[bytes], object], targets: list[bytes], filler: list[bytes]) -> Any:
    """A case that decodes nine `filler` messages, then one of `targets`, for each target,
    and returns the seconds the targets' own decodes took, each timed alone (run it with
    the `paused` clock)."""

    def run() -> float:
        clock = time.perf_counter
        total = 0.0
        for n, data in enumerate(targets):
            for other in filler[9 * n : 9 * n + 9]:
                decode(other)
            start = clock()
            decode(data)
            total += clock() - start
        return total

    return run


def _per_message(sample: Sample, name: str) -> Sample:
    """`sample` (the time of `FAULTS` messages a round) as the time of one."""
    return Sample(name, tuple(t / FAULTS for t in sample.times))


def figure(ws: Workspace, lines: list[bytes], rounds: int, repeat: int) -> Section:
    pkg = ws.ours("bench_v1", newest("v1"), take_all=True)
    assert pkg is not None, ws.errors
    sdk = peers.sdk()
    decode = pkg.decode_notification
    strict = next(x for x in lines if b'"tool_call_update"' in x and b'"content":[{' in x)
    message = json.loads(strict)
    update = message["params"]["update"]
    clean = [x for x in lines if x != strict][: 9 * FAULTS]
    originals = [
        _message(message, {**update, "toolCallId": f"{update['toolCallId']}-{n}"})
        for n in range(FAULTS)
    ]
    cases: dict[str, Any] = {
        "an original, ours": _lone(decode, originals, clean),
        "an original, SDK own path": _lone(sdk.own_decode, originals, clean),
    }
    labels = list(_faults(update, 0))
    same = [originals[0]] * FAULTS
    repeated: dict[str, Any] = {"repeated original": lambda: [decode(x) for x in same]}
    for label in labels:
        faulty = [_message(message, _faults(update, n)[label]) for n in range(FAULTS)]
        for data in faulty[:2]:  # each decodes, and re-encodes what it kept
            assert (
                json.loads(pkg.encode(decode(data)))["sessionId"] == message["params"]["sessionId"]
            )
        cases[f"lone {label}"] = _lone(decode, faulty, clean)
        again = [faulty[0]] * FAULTS
        repeated[f"repeated {label}"] = lambda again=again: [decode(x) for x in again]
    s = {
        name: _per_message(sample, name)
        for name, sample in interleave(cases, rounds, paused).items()
    }
    ahead = [_extended(x) for x in lines]
    stream = {
        "every message one undeclared property, ours": lambda: [decode(x) for x in ahead],
        "every message one undeclared property, SDK own path": lambda: [
            sdk.own_decode(x) for x in ahead
        ],
    }
    s.update(interleave({**repeated, **stream}, rounds))
    fig = "10 forward"
    known, sdk_known = s["an original, ours"], s["an original, SDK own path"]
    rows = [
        Row(
            fig,
            "strict known message: ours vs the SDK's own path",
            known,
            sdk_known,
            Goal("faster", 1),
        )
    ]
    for label in labels:
        lone = s[f"lone {label}"]
        rows.append(
            Row(
                fig,
                f"{label}, lone: vs the SDK's own path on its original",
                lone,
                sdk_known,
                Goal("time", 0.8),
            )
        )
        rows.append(Row(fig, f"{label}, lone: vs its original", lone, known))
        rows.append(
            Row(
                fig,
                f"{label}, the same message {FAULTS} times: vs its original as often",
                s[f"repeated {label}"],
                s["repeated original"],
                Goal("time", 3),
            )
        )
    rows.append(
        Row(
            fig,
            f"{len(ahead)} stream messages, each with one undeclared property: vs the SDK",
            s["every message one undeclared property, ours"],
            s["every message one undeclared property, SDK own path"],
            Goal("faster", 2),
        )
    )
    section = Section(
        "10. Forward compatibility: lone faults, a stream one revision ahead", s, rows
    )
    section.notes.append(
        f"a lone fault: one message after nine clean ones, {FAULTS} of them, each with its own"
        f" tool call ID and timed alone (wall clock); the originals are {len(originals[0])} B"
    )
    _worst_cases(ws, pkg, section, rounds)
    return section


def _extended(line: bytes) -> bytes:
    message = json.loads(line)
    message["params"]["update"]["acmeTrace"] = {"span": "7f3a", "depth": 2}
    return json.dumps(message, separators=(",", ":")).encode()


def _worst_cases(ws: Workspace, pkg: Any, section: Section, rounds: int) -> None:
    fig = "10 forward"
    with tempfile.TemporaryDirectory() as folder:
        schema = Path(folder) / "node.json"
        schema.write_text(json.dumps(NODE_SCHEMA), encoding="utf-8")
        node = ws.ours("bench_node", schema, take_all=True)
    assert node is not None, ws.errors
    deep = _deep_node(14)
    tree = node.models.Update

    def reject() -> None:
        try:
            node.decode(deep, tree)
        except node.DecodeError:
            return
        raise AssertionError("a malformed tree decoded")

    def many(count: int, what: str) -> bytes:
        base = {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"}
        if what == "items":
            return json.dumps({**base, "content": [{"type": "content"}] * count}).encode()
        return json.dumps({**base, **{f"x{i}": i for i in range(count)}}).encode()

    timed: dict[str, Any] = {"recursive union, malformed 14 deep": reject}
    for what in ("items", "fields"):
        for count in (1, 1000):
            data = many(count, what)
            timed[f"{count} invalid {what}"] = lambda data=data: pkg.decode_update(data)
    s = interleave(timed, rounds)
    section.samples.update(s)
    section.rows.append(
        Row(
            fig,
            "recursive untagged union malformed 14 levels deep: rejected in",
            s["recursive union, malformed 14 deep"],
            None,
            Goal("absolute", 0.010),
        )
    )
    for what, name in (("items", "invalid items"), ("fields", "undeclared properties")):
        section.rows.append(
            Row(
                fig,
                f"one message with 1,000 {name} vs one with 1",
                s[f"1000 invalid {what}"],
                s[f"1 invalid {what}"],
                Goal("time", 1000),
            )
        )
