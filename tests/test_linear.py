"""Worst cases stay linear: in the input's size, in a session's length, whatever came before.

Each test times the same work at two sizes, eight times apart, and demands a ratio a
linear cost keeps and a quadratic (or exponential) one cannot: under 24 for an eightfold
size. The speed goals themselves are measured in ``bench/``; these only tell the shape.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn

#: An eightfold size may cost at most this many times as much.
RATIO = 24


def _best(work: Callable[[], object], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return max(best, 1e-6)


def _two_branch_schema(tmp_path: Path) -> Path:
    """``Node = anyOf[{a: Node, x}, {a: Node, y}, {leaf}]``: two members recurse."""
    member = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Node"}}, "required": ["a"]}
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "Node": {
                "anyOf": [
                    {**member, "properties": {**member["properties"], "x": {"type": "integer"}}},
                    {**member, "properties": {**member["properties"], "y": {"type": "string"}}},
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
    path = tmp_path / "two_branches.json"
    path.write_text(json.dumps(schema))
    return path


def test_a_union_with_two_recursing_members(
    make_package: GenerateFn, target: str, tmp_path: Path
) -> None:
    """Malformed at the bottom, every member fails only there: each (node, member) pair is
    tried once, so depth 120 costs about eight times depth 15, on every target."""
    pkg = make_package(
        _two_branch_schema(tmp_path), "lin_two_branches", target=target, roots=("Update",)
    )

    def payload(levels: int) -> bytes:
        node: Any = {"leaf": 5}
        for _ in range(levels):
            node = {"a": node}
        return json.dumps({"kind": "tree", "root": node}).encode()

    def refuse(levels: int) -> Callable[[], object]:
        data = payload(levels)

        def work() -> None:
            for _ in range(20):
                with pytest.raises(pkg.DecodeError):
                    pkg.decode(data, pkg.models.Update)

        return work

    small, large = _best(refuse(15)), _best(refuse(120))
    assert large / small < RATIO, (small, large)


def test_reading_an_entity_after_every_chunk(make_package: GenerateFn, target: str) -> None:
    """A terminal's output read after each of its chunks: taking it costs nothing however
    long it grew, so 40,000 chunks cost about eight times 5,000."""
    pkg = make_package(OWN_SCHEMA, "lin_reading", target=target)
    chunk = pkg.decode_update(
        json.dumps(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": "t",
                "data": base64.b64encode(b"x" * 96).decode(),
            }
        ).encode()
    )

    def session(chunks: int) -> Callable[[], object]:
        def work() -> None:
            state = pkg.SessionState()
            for _ in range(chunks):
                state.apply(chunk)
                entity = state.get("terminal", "t")
                entity.output  # noqa: B018 (the read is the point)
                entity.field_values()
            assert len(state.get("terminal", "t").output) == 96 * chunks

        return work

    small, large = _best(session(5_000), rounds=2), _best(session(40_000), rounds=2)
    assert large / small < RATIO, (small, large)


def test_a_large_message_costs_the_same_after_repeated_faults(make_package: GenerateFn) -> None:
    """Nothing decoded before changes what a message costs: a large message with one fault
    takes as long after a hundred messages with another fault as first thing."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "lin_after_faults")
    blocks = [{"type": "text", "text": f"line {i}"} for i in range(20_000)]
    blocks[-1]["x"] = 1
    large = json.dumps(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"type": "content", "content": b} for b in blocks],
        }
    ).encode()
    faulty = b'{"sessionUpdate":"tool_call_update","toolCallId":"t","acmeNote":1}'

    def first() -> None:
        pkg.decode_update(large)

    before = _best(first)
    for _ in range(100):
        pkg.decode_update(faulty)
    after = _best(first)
    assert after < 2 * before + 0.01, (before, after)


@pytest.mark.parametrize("what", ["invalid items", "undeclared fields"])
def test_many_faults_in_one_message(make_package: GenerateFn, target: str, what: str) -> None:
    """1,000 invalid items (or undeclared fields) in one message cost about eight times
    125 of them."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "lin_many_faults", target=target)

    def message(count: int) -> bytes:
        if what == "invalid items":
            content: list[Any] = [{"type": "content"}] * count
            update = {
                "sessionUpdate": "tool_call",
                "toolCallId": "t",
                "title": "x",
                "content": content,
            }
        else:
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t",
                **{f"x{i}": i for i in range(count)},
            }
        return json.dumps(update).encode()

    def decode(count: int) -> Callable[[], object]:
        data = message(count)
        return lambda: [pkg.decode_update(data) for _ in range(3)]

    small, large = _best(decode(125)), _best(decode(1_000))
    assert large / small < RATIO, (small, large)


@pytest.mark.parametrize("escape", ["\\n", '\\"', "\\u0041"])
def test_text_full_of_escapes(make_package: GenerateFn, target: str, escape: str) -> None:
    """A message whose text holds thousands of escapes (newlines, quotes): reading it, keys
    written with an escape looked for on the way, costs in proportion to its length."""
    pkg = make_package(OWN_SCHEMA, "linear_escapes", target=target)

    def message(n: int) -> bytes:
        text = ("ab" + escape) * n
        return (
            '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":'
            '{"type":"text","text":"' + text + '"}}'
        ).encode()

    small, large = message(4000), message(32000)
    assert pkg.decode_update(small).content.text.startswith("ab")
    ratio = _best(lambda: pkg.decode_update(large)) / _best(lambda: pkg.decode_update(small))
    assert ratio < RATIO, ratio
