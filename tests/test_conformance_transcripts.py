"""The conformance checker over recorded traffic of real agents (see transcripts/README.md).

Each transcript is read with its own protocol version and with v2 forced, on every target,
by the package of our schema and by the package of the newest published v1 schema.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn

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


def test_codex_cli_acp_keeps_the_rules_v1_has(conformance: ModuleType) -> None:
    messages = read("acplazybridge_t033c.jsonl")
    checker = conformance.Checker()
    assert checker.check(messages) == []
    assert checker.version == 1
    assert {rule.id for rule in checker.rules} == {"cancel.order", "entity.reuse"}


def test_codex_cli_acp_read_as_v2_answers_its_prompt_without_a_message_id(
    conformance: ModuleType,
) -> None:
    found = conformance.check(read("acplazybridge_t033c.jsonl"), version=2)
    assert [(v.index, v.rule) for v in found] == [(9, "prompt.rejected")]
