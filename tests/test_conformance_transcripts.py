"""The conformance checker over recorded traffic of real agents (see transcripts/README.md).

Each transcript is read on every target, with the protocol version its traffic (or, where
the recording has no `initialize`, the agent that made it) speaks, and with v2 forced: by
the package of our schema and by the packages of the newest published v1 and v2 schemas.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn
from tests.test_conformance import V1_RULES

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


def read(name: str) -> list[dict[str, object]]:
    lines = (TRANSCRIPTS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module", params=["ours", "v1"])
def conformance(
    request: pytest.FixtureRequest, make_package: GenerateFn, target: str
) -> ModuleType:
    if request.param == "ours":
        package = make_package(OWN_SCHEMA, "traffic_ours", target=target)
    else:
        corpus.require()
        package = make_package(corpus.newest(corpus.NEWEST["v1"]), "traffic_v1", target=target)
    return importlib.import_module(package.__name__ + ".conformance")


@pytest.fixture(scope="module")
def newest_v1(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), "traffic_v1", target=target)


@pytest.fixture(scope="module")
def newest_v2(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v2"]), "traffic_v2", target=target)


def updates(messages: list[dict[str, object]]) -> list[str]:
    """The `update` object of each `session/update` notification, as JSON text."""
    found = []
    for message in messages:
        params = message.get("params")
        if message.get("method") == "session/update" and isinstance(params, dict):
            found.append(json.dumps(params["update"]))
    return found


def test_codex_cli_acp_keeps_the_rules_v1_has(conformance: ModuleType) -> None:
    messages = read("acplazybridge_t033c.jsonl")
    checker = conformance.Checker()
    found = checker.check(messages)
    assert checker.version == 1
    assert {rule.id for rule in checker.rules} == V1_RULES
    if checker._native == 1:  # the v1 package reads every update
        assert found == []
        return
    # Our v2 schema cannot read the v1 chunks (no messageId), and says so, as notes: the
    # recording negotiated v1, so they are not its to judge.
    assert [(v.index, v.rule, v.level) for v in found] == [
        (i, "update.schema", "note") for i in (6, 7, 8)
    ]
    assert found[0].message.startswith("a v2 package cannot read this v1 update: invalid")


def test_codex_cli_acp_read_as_v2_answers_its_prompt_without_a_message_id(
    conformance: ModuleType,
) -> None:
    found = conformance.check(read("acplazybridge_t033c.jsonl"), version=2)
    # v2 message chunks must carry a messageId: one finding for the three chunks
    assert [(v.index, v.rule) for v in found] == [(6, "message.id"), (9, "prompt.rejected")]


# Gemini CLI's output for one prompt, as codecompanion.nvim keeps it: four thought chunks
# and one message chunk, no `initialize`, no `session/prompt` and no response to it. The
# agent spoke v1, which the file cannot say, so it is read as v1 on the newest v1 package:
# v1 selects only the rules v1 shares (`V1_RULES`), and with no initialize, no prompt and no
# cancel in the recording none has anything to hold, so it breaks nothing.
GEMINI = "codecompanion_gemini_prompt_response.jsonl"


def test_gemini_cli_chunks_keep_the_rules_v1_has(newest_v1: ModuleType) -> None:
    messages = read(GEMINI)
    assert len(messages) == 5
    conformance = importlib.import_module(newest_v1.__name__ + ".conformance")
    checker = conformance.Checker(version=1)
    assert checker.check(messages) == []
    assert {rule.id for rule in checker.rules} == V1_RULES
    # The v1 package reads every chunk (nothing was skipped as undecodable).
    kinds = [type(newest_v1.decode_update(u)).__name__ for u in updates(messages)]
    assert kinds == ["AgentThoughtChunk"] * 4 + ["AgentMessageChunk"]
    # With no `initialize` in the file, the package's own version is the one taken.
    assert conformance.Checker().check(messages) == []
    assert conformance.Checker().version == 1


def test_gemini_cli_chunks_read_as_v2_are_not_decoded(newest_v2: ModuleType) -> None:
    # v2 makes `messageId` required on message and thought chunks, and Gemini's v1 chunks
    # carry none: `message.id` names that once per kind of chunk, and the v2 package cannot
    # decode them, so no foreground rule ever sees agent content; with no prompt and no state
    # update seen, no session is ever active either, so even read as a complete transcript
    # it breaks nothing else, though it never reported `running`.
    messages = read(GEMINI)
    for update in updates(messages):
        with pytest.raises(newest_v2.DecodeError, match="messageId"):
            newest_v2.decode_update(update)
    conformance = importlib.import_module(newest_v2.__name__ + ".conformance")
    checker = conformance.Checker()
    unkeyed = [(0, "message.id"), (4, "message.id")]
    assert [(v.index, v.rule) for v in checker.check(messages)] == unkeyed
    assert checker.version == 2
    assert "foreground.start" in {rule.id for rule in checker.rules}
    found = conformance.check(messages, version=2, complete=False)
    assert [(v.index, v.rule) for v in found] == unkeyed
