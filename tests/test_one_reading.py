"""A decode is a function of its bytes: the same input gives the same result, repairs and
error whatever was decoded before, in any thread, with the kept tables full or empty.

Every payload of the set below is decoded four ways, each in a process of its own
(`tests.decode_outcomes`): first thing in a freshly forked process; again after all
the others; from 8 threads in a shuffled order; and after the package's kept tables
were emptied. The outcome compared is whether it decoded, the class, the bytes written
back and every repair, or the exception's type and text; all four must be equal, on
every target.

The payloads: the spec-example table, the repair-table cases, two messages that once
decoded differently first thing in a process, and mutations of valid payloads of the
newest v1 and v2 schemas (`tests.mutations`): 50 of each by default,
``ACP_READING_MUTATIONS`` of each when set (CI sets 1,500).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, TARGETS, GenerateFn
from tests.instances import Instances, Variant, envelope, notification_def, union_size
from tests.mutations import Mutator

REPO = Path(__file__).resolve().parent.parent
#: Mutated payloads per schema (CI's full run sets ``ACP_READING_MUTATIONS`` to 1,500).
MUTATIONS = int(os.environ.get("ACP_READING_MUTATIONS", "50"))
#: The v1 revision whose package once dropped a valid stdio server first thing in a process.
AUGUST_V1 = "v1/2026-08-20_4effcc11_schema.json"
#: The official Python SDK's golden ``session/new`` request: a stdio server with no `type`.
NEW_SESSION = {
    "cwd": "/home/user/project",
    "mcpServers": [
        {"name": "filesystem", "command": "/path/to/mcp-server", "args": ["--stdio"], "env": []}
    ],
}
#: A select option whose `description` (default-on-error) is a number.
CONFIG_OPTION = {
    "sessionUpdate": "config_option_update",
    "configOptions": [
        {
            "id": "model",
            "name": "Model",
            "type": "select",
            "currentValue": "a",
            "options": [{"value": "a", "name": "A", "description": 7}],
        }
    ],
}


def _cases(packages: dict[str, ModuleType]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(package: str, call: str, data: bytes) -> None:
        out.append(
            {"package": packages[package].__name__, "call": call, "data": data.decode("latin-1")}
        )

    add("august", "NewSessionRequest", json.dumps(NEW_SESSION).encode())
    add("august", "decode_update", json.dumps(CONFIG_OPTION).encode())
    examples = json.loads((REPO / "tests" / "spec_examples" / "examples.json").read_text())
    for example in examples:
        add("own", "decode_update", json.dumps(example["update"]).encode())
    from tests.test_repairs import CASES

    for update, _, _ in CASES:
        message = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        }
        add("v1", "decode_notification", json.dumps(message).encode())
    for key in ("v1", "v2"):
        pkg = packages[key]
        path = corpus.newest(corpus.NEWEST["v1" if key == "v1" else "v2-unstable"])
        document = json.loads(path.read_text(encoding="utf-8"))
        name = notification_def(document)
        assert name is not None
        seeds = [
            envelope(Instances(document, Variant(v, full)).of_def(name))
            for v in range(union_size(document, "SessionUpdate"))
            for full in (True, False)
        ]
        mutator = Mutator(len(key), sorted(pkg.SESSION_UPDATE_VARIANTS))
        for index in range(MUTATIONS):
            data = mutator.mutate(seeds[index % len(seeds)])
            if len(data) < 200_000:  # (the huge ones are the fuzz test's; keep this quick)
                add(key, "decode_notification", data)
    return out


def _outcomes(mode: str, cases_file: Path, root: Path) -> list[Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(REPO)])}
    result = subprocess.run(
        [sys.executable, "-m", "tests.decode_outcomes", mode, str(cases_file)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module", params=TARGETS)
def outcomes(
    request: pytest.FixtureRequest,
    make_package: GenerateFn,
    generated_root: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[Any], dict[str, list[Any]]]:
    corpus.require()
    target = request.param
    packages = {
        "own": make_package(OWN_SCHEMA, "reading_own", target=target),
        "august": make_package(
            corpus.SCHEMAS / AUGUST_V1, "reading_august", target=target, take_all=True
        ),
        "v1": make_package(
            corpus.newest(corpus.NEWEST["v1"]), "reading_v1", target=target, take_all=True
        ),
        "v2": make_package(
            corpus.newest(corpus.NEWEST["v2-unstable"]), "reading_v2", target=target, take_all=True
        ),
    }
    cases = _cases(packages)
    cases_file = tmp_path_factory.mktemp("reading") / "cases.json"
    cases_file.write_text(json.dumps(cases), encoding="utf-8")
    found = {
        mode: _outcomes(mode, cases_file, generated_root)
        for mode in ("fresh", "primed", "threads", "cold")
    }
    return cases, found


def test_every_way_of_decoding_gives_the_same_outcome(
    outcomes: tuple[list[Any], dict[str, list[Any]]],
) -> None:
    cases, found = outcomes
    # (the few mutations past 200 kB are left to the fuzz test; nearly all are kept)
    assert len(cases) > 1.8 * MUTATIONS
    fresh = found["fresh"]
    assert len(fresh) == len(cases)
    for mode in ("primed", "threads", "cold"):
        differ = [
            (cases[i]["data"][:200], fresh[i], got)
            for i, got in enumerate(found[mode])
            if got != fresh[i]
        ]
        assert not differ, f"{mode}: {len(differ)} outcomes differ, first: {differ[0]}"
    kinds = {o[0] for o in fresh}
    assert kinds == {"ok", "error"}  # (both are exercised)


def test_the_two_named_payloads_decode_right_first_time(
    outcomes: tuple[list[Any], dict[str, list[Any]]],
) -> None:
    _, found = outcomes
    session, option = found["fresh"][:2]
    assert session[0] == "ok" and session[3] == []
    assert json.loads(session[2]) == NEW_SESSION
    assert option[0] == "ok"
    written = json.loads(option[2])
    assert written["configOptions"][0]["options"] == [{"value": "a", "name": "A"}]
    assert [r[:2] for r in option[3]] == [
        ["$.configOptions[0].options[0].description", "defaulted"]
    ]


def test_a_package_reads_only_its_own_leniency_markers(make_package: GenerateFn) -> None:
    """Two packages in one process never share a marker, however the types that carry them
    are spelled: ``typing`` keeps ``Annotated`` types by equal metadata, so markers that
    compared equal across packages (or across flags) could hand one package's type, and
    its leniency, to another."""
    first, second = (make_package(OWN_SCHEMA, "markers", target=t)._read for t in TARGETS[:2])
    spelled = [
        typing.Annotated[list[int], read.skip_invalid] for read in (first, second, first, second)
    ]
    assert [t.__metadata__[0] for t in spelled] == [first.skip_invalid, second.skip_invalid] * 2
    assert first.skip_invalid != second.skip_invalid != second.null_empty([])
    assert first.lenient([]) != first.lenient([])  # (and a fallback need not be hashable)
    flags = first.leniency(typing.Annotated[list[int], first.skip_invalid] | None)
    assert flags == (first.MISS, True, first.MISS)
    assert first.leniency(typing.Annotated[int, first.lenient(3)])[0] == 3
    assert first.leniency(typing.Annotated[int, second.lenient(3)])[0] is first.MISS
