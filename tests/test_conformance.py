"""The generated transcript conformance checker (``<package>.conformance``).

For every rule, a transcript that breaks it gives that rule and no other, and a minimal
variant that keeps it gives nothing, on every target, for the package of our schema and
for the newest published v2 schema. Then the command lines, the input formats and how
the direction of each message is told.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import corpus
from tests.conformance_cases import (
    CASES,
    EXIT,
    STARTED,
    V1_CASES,
    Case,
    chunk,
    idle,
    initialize,
    ok,
    prompt,
    request,
    state,
    terminal,
    tool,
    turn,
    user,
)
from tests.conftest import OWN_SCHEMA, GenerateFn
from tests.test_session_state import COMMON_UPDATES

SPEC = " ".join(corpus.SPEC.read_text(encoding="utf-8").split()) if corpus.SPEC.is_file() else ""


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


def rules(found: list[Any], level: str | None = None) -> list[str]:
    return [v.rule for v in found if level is None or v.level == level]


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_each_rule_has_a_breaking_and_a_keeping_transcript(pkg: ModuleType, case: Case) -> None:
    found = pkg.check(case.breaks)
    if case.rule in {r.id for r in pkg.Checker().rules}:
        assert set(rules(found)) == {case.rule, *case.also}, found
    else:  # a rule on updates the package does not know (subagents, say) sees nothing
        assert found == []
    assert pkg.check(case.keeps) == []


@pytest.mark.parametrize("case", V1_CASES, ids=[c.rule for c in V1_CASES])
def test_v1_traffic_checks_the_rules_v1_has(v1: ModuleType, case: Case) -> None:
    found = v1.check(case.breaks)
    assert set(rules(found)) == {case.rule, *case.also}, found
    assert v1.check(case.keeps) == []


#: the rules v1 traffic is held to
V1_RULES = {
    "prompt.initialized",
    "prompt.capabilities",
    "tool.in_progress",
    "cancel.stop",
    "cancel.order",
    "entity.reuse",
    "update.schema",
}


def test_v1_selects_only_the_rules_v1_shares(pkg: ModuleType, v1: ModuleType) -> None:
    both = V1_RULES
    assert {r.id for r in v1.Checker().rules} == both
    checker = pkg.Checker()
    assert checker.check([*initialize(1), *CASES[0].breaks]) == []
    assert {r.id for r in checker.rules} == both


def test_every_rule_is_in_the_table_once_with_a_sentence_of_the_spec(pkg: ModuleType) -> None:
    table = pkg.RULES
    assert [r.id for r in table] == [c.rule for c in CASES]
    assert {r.level for r in table} <= {"MUST", "SHOULD"}
    corpus.require()
    for rule in table:
        if rule.source == "schema":  # the package's own schema, not the page
            assert rule.id == "update.schema", rule.id
            continue
        assert rule.sentence in SPEC, rule.id
        assert rule.level in rule.sentence, rule.id


def test_a_finding_names_its_message_rule_and_sentence(pkg: ModuleType) -> None:
    [found] = pkg.check(CASES[1].breaks)
    assert found.index == len(STARTED) + 1
    assert (found.rule, found.level) == ("foreground.resume", "MUST")
    assert found.sentence.startswith("Once reported, it MUST report running")


def test_should_and_notes_do_not_fail_assert_conformant(pkg: ModuleType) -> None:
    stop_error = next(c for c in CASES if c.rule == "stop.error")
    assert rules(pkg.check(stop_error.breaks), "SHOULD") == ["stop.error"]
    pkg.assert_conformant(stop_error.breaks)
    reopened = [tool("t1", "completed"), tool("t1", "in_progress")]
    assert [(v.rule, v.level) for v in pkg.check(reopened)] == [("entity.reuse", "note")]
    pkg.assert_conformant(reopened)
    with pytest.raises(pkg.ConformanceError) as raised:
        pkg.assert_conformant(CASES[0].breaks)
    assert rules(raised.value.violations) == ["foreground.start"]
    assert "foreground.start" in str(raised.value)


def test_unknown_updates_states_and_stop_reasons_are_never_violations(pkg: ModuleType) -> None:
    stream = [
        *STARTED,
        state("running", background=[]),
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": "_acme_ping"}},
        },
        state("_vendor_paused"),
        state("running", background=[]),
        chunk(),
        idle("future_reason", background=[]),
    ]
    assert pkg.check(stream) == []


def test_background_work_and_its_announcements(pkg: ModuleType) -> None:
    """A listed terminal may run on while idle and finish later; a tool call a background
    list holds is not foreground progress."""
    stream = [
        *STARTED,
        terminal("t1", command="npm run dev"),
        state("running", background=[{"type": "terminal", "terminalId": "t1"}]),
        chunk(),
        idle(background=[{"type": "terminal", "terminalId": "t1"}]),
        terminal("t1", exitStatus=EXIT),
        idle(None, background=[]),
    ]
    assert pkg.check(stream) == []


def test_a_partial_recording_does_not_report_work_still_running(pkg: ModuleType) -> None:
    cut = [*STARTED, chunk()]
    assert rules(pkg.check(cut)) == ["foreground.end"]
    assert pkg.check(cut, complete=False) == []


def test_direction_is_inferred_or_recorded(pkg: ModuleType) -> None:
    """Both sides number their requests: a response answers the request the other side
    sent, which a recorded direction settles."""
    permission = request(1, "session/request_permission", sessionId="s", toolCall={}, options=[])
    recorded = [
        {"direction": "client_to_agent", "message": prompt(1)},
        {"direction": "agent_to_client", "message": state("running")},
        {"direction": "agent_to_client", "message": permission},
        {"direction": "client_to_agent", "message": ok(1, outcome={"outcome": "cancelled"})},
        {"direction": "agent", "message": turn()[2]},
        {"direction": "agent", "message": ok(1, messageId="u1")},
        {"direction": "agent", "message": chunk()},
        {"direction": "agent", "message": idle()},
    ]
    assert pkg.check(recorded) == []
    with pytest.raises(pkg.TranscriptError, match="unknown direction"):
        pkg.check([{"direction": "sideways", "message": prompt()}])
    with pytest.raises(pkg.TranscriptError, match="not a JSON-RPC message") as raised:
        pkg.check([prompt(), [1, 2]])
    assert raised.value.index == 1


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, check=False
    )


def _write(path: Path, messages: list[Any]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def test_module_command_line(pkg: ModuleType, tmp_path: Path) -> None:
    root = Path(pkg.__file__).parent.parent
    name = pkg.__name__.rsplit(".", 1)[0]
    bad = _write(tmp_path / "bad.jsonl", CASES[0].breaks)
    proc = _run(["-m", f"{name}.conformance", str(bad)], root)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and all("MUST foreground.start" in line for line in lines)
    assert f"{bad}:4: message 3: " in lines[0] and '"When foreground work starts' in lines[0]
    proc = _run(["-m", f"{name}.conformance", str(bad), "--format", "json"], root)
    report = json.loads(proc.stdout)
    assert report["protocol"] == 2 and "foreground.start" in report["rules"]
    assert [v["line"] for v in report["violations"]] == [4]
    good = _write(tmp_path / "good.jsonl", turn())
    assert _run(["-m", f"{name}.conformance", str(good)], root).returncode == 0
    should = _write(
        tmp_path / "should.jsonl", next(c for c in CASES if c.rule == "stop.error").breaks
    )
    assert _run(["-m", f"{name}.conformance", str(should)], root).returncode == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"jsonrpc": "2.0", "id": 1,\n', "bad.jsonl:1: not JSON"),
        (
            '{"jsonrpc": "2.0", "id": 1, "result": {}}\n"text"\n',
            "bad.jsonl:2: message 1: not a JSON-RPC message",
        ),
        ('{"jsonrpc": "2.0"}\n', "bad.jsonl:1: message 0: neither a request"),
        (None, "cannot read"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    pkg: ModuleType, tmp_path: Path, content: str | None, expected: str
) -> None:
    root = Path(pkg.__file__).parent.parent
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    proc = _run(["-m", pkg.__name__, str(path)], root)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert expected in proc.stderr and proc.stdout == ""


def test_generator_command_checks_with_the_default_schema_or_another(tmp_path: Path) -> None:
    bad = _write(tmp_path / "bad.jsonl", CASES[0].breaks)
    proc = _run(["-m", "acp_codegen", "conformance", str(bad)], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.count("foreground.start") == 1
    good = _write(tmp_path / "good.jsonl", turn())
    assert _run(["-m", "acp_codegen", "conformance", str(good)], tmp_path).returncode == 0
    corpus.require()
    v1 = corpus.newest(corpus.NEWEST["v1"])
    proc = _run(
        ["-m", "acp_codegen", "conformance", str(bad), "--schema", str(v1), "--format", "json"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["violations"] == []
    proc = _run(["-m", "acp_codegen", "conformance", str(tmp_path / "none.jsonl")], tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_states_are_kept_per_session(pkg: ModuleType) -> None:
    """Session s runs while s2 is idle: output in s2 is foreground work s2 never reported."""
    found = pkg.check([*STARTED, chunk(session="s2"), chunk(), idle()])
    assert [(v.index, v.rule) for v in found] == [(len(STARTED), "foreground.start")]


def test_the_docs_list_every_rule_with_its_sentence(pkg: ModuleType) -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "conformance.md").read_text(
        encoding="utf-8"
    )
    for rule in pkg.RULES:
        assert f"| `{rule.id}` | {rule.level} |" in doc and f'"{rule.sentence}"' in doc, rule.id


# -- a model agent --------------------------------------------------------------------------


def _model_output(update: dict[str, Any]) -> bool:
    """What the model agent sends inside a turn: the reducer tests' random updates, less the
    state updates it reports itself and the final tool and compaction statuses it never
    reopens (it ends each compaction once its output is done, see `_ended`)."""
    if update["sessionUpdate"] == "state_update":
        return False
    if update["sessionUpdate"] == "compaction_update":
        return update["status"] not in ("completed", "failed", "cancelled")
    return not (update["sessionUpdate"] == "tool_call_update" and update["status"] == "completed")


def _ended(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream, then a completed status for each compaction it reported."""
    ids = dict.fromkeys(u["compactionId"] for u in stream if "compactionId" in u)
    ends = (
        {"sessionUpdate": "compaction_update", "compactionId": i, "status": "completed"}
        for i in ids
    )
    return [*stream, *ends]


def _wrap(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update},
    }


MUTATIONS = {
    "foreground.start": lambda t: [m for m in t if m is not t[1]],  # no running
    "foreground.end": lambda t: t[:-1],  # no idle
    "stop.custom": lambda t: [*t[:-1], idle("Done!")],
    "prompt.nonempty": lambda t: [prompt(blocks=[]), *t[1:]],
    "prompt.echo": lambda t: [m for m in t if m is not t[2]],  # no user message
    "prompt.rejected": lambda t: [ok() if m is t[3] else m for m in t],  # no messageId
}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stream=st.lists(COMMON_UPDATES.filter(_model_output), max_size=20),
    mutation=st.sampled_from(sorted(MUTATIONS)),
)
def test_a_model_agent_conforms_and_each_mutation_breaks_one_rule(
    pkg: ModuleType, stream: list[dict[str, Any]], mutation: str
) -> None:
    """A turn around any random output stream conforms; one mutation of it breaks exactly
    the rule it targets."""
    output = map(_wrap, _ended(stream))
    turn = [prompt(), state("running"), user(), ok(messageId="u1"), *output, idle()]
    assert pkg.check(turn) == []
    assert set(rules(pkg.check(MUTATIONS[mutation](turn)))) == {mutation}


# -- the sentence table ---------------------------------------------------------------------
_BOUNDARY = re.compile(r"(?<=[.!?:])\s+|(?<=[a-z][.])(?=[A-Z])")
_ABBREVIATIONS = ("e.g.", "i.e.")


def normative_sentences(text: str) -> list[str]:
    """The page's sentences with a MUST or a SHOULD, whitespace collapsed. A sentence ends
    at ``.``, ``!``, ``?`` or ``:`` before a space, or at a period the page runs straight
    into the next capital ("etc.Clients"), but not after "e.g." or "i.e."."""
    found = []
    for paragraph in text.splitlines():
        words = " ".join(paragraph.replace("•", " ").split())
        sentence = ""
        for part in _BOUNDARY.split(words):
            if sentence.endswith(_ABBREVIATIONS):
                sentence = f"{sentence} {part}"
                continue
            if re.search(r"\b(MUST|SHOULD)\b", sentence):
                found.append(sentence)
            sentence = part
        if re.search(r"\b(MUST|SHOULD)\b", sentence):
            found.append(sentence)
    return found


def _sentence_rows() -> list[list[str]]:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "conformance.md").read_text(
        encoding="utf-8"
    )
    table = doc[doc.index("## Every sentence of the page") :]
    return [
        [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith(("| section", "| ---"))
    ]


def test_every_normative_sentence_of_the_page_has_a_row(pkg: ModuleType) -> None:
    corpus.require()
    rows = _sentence_rows()
    written = {row[1] for row in rows}
    sentences = normative_sentences(corpus.SPEC.read_text(encoding="utf-8"))
    assert len(sentences) > 50
    missing = [s for s in sentences if not any(s in row or row in s for row in written)]
    assert missing == []
    for _section, sentence, level, decidable, why in rows:
        assert sentence in SPEC, sentence
        assert re.findall(r"MUST|SHOULD|MAY", level), level
        assert all(word in sentence for word in re.findall(r"MUST|SHOULD|MAY", level)), level
        assert decidable.split(" ")[0].strip(",") in {"yes", "no", "partly", "—"}, decidable
        named = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", why))
        if decidable.startswith(("yes", "partly")):
            assert named, sentence  # a decidable sentence names the rule that checks it
        assert named <= {r.id for r in pkg.RULES}, (sentence, named)
    # and every rule quoting the page is the rule of a row
    quoted = {r.id for r in pkg.RULES if r.source == "spec"}
    assert quoted <= {n for row in rows for n in re.findall(r"`([a-z_]+\.[a-z_]+)`", row[4])}


#: The exact findings of the breaking transcripts of the rules whose expected findings
#: tests/test_conformance_turns.py and tests/test_conformance_state_rules.py do not give.
EXACT: dict[str, list[tuple[int, str, str, str]]] = {
    "foreground.start": [
        (3, "foreground.start", "MUST", "agent content while the session is idle")
    ],
    "foreground.resume": [
        (
            5,
            "foreground.resume",
            "MUST",
            "agent content while the session requires action, with no running first",
        )
    ],
    "foreground.end": [
        (
            4,
            "foreground.end",
            "MUST",
            "the transcript ends while the session is running, with no idle",
        )
    ],
    "turns.boundary": [(9, "turns.boundary", "MUST", "agent content while the session is idle")],
    "stop.custom": [
        (
            4,
            "stop.custom",
            "MUST",
            "stop reason 'Stopped by hook' is not standard and does not begin with _",
        )
    ],
    "stop.cancelled": [
        (
            6,
            "stop.cancelled",
            "MUST",
            "the work cancelled at message 5 ended with the error stop reason",
        )
    ],
    "stop.error": [
        (
            3,
            "stop.error",
            "SHOULD",
            "the work ended by a failed prompt stopped with 'end_turn', not error",
        )
    ],
    "cancel.prompts": [
        (
            2,
            "cancel.prompts",
            "MUST",
            "a prompt not inserted before session/cancel (message 0) was answered with -32603",
        )
    ],
    "cancel.order": [
        (
            7,
            "cancel.order",
            "MUST",
            "content after the idle that confirmed cancellation (message 6)",
        )
    ],
    "prompt.nonempty": [(0, "prompt.nonempty", "MUST", "the prompt array is empty")],
    "prompt.inserted": [
        (
            3,
            "prompt.inserted",
            "MUST",
            "the prompt of message 0 was answered with an error "
            "after its user message was reported",
        )
    ],
    "prompt.rejected": [
        (
            1,
            "prompt.rejected",
            "MUST",
            "a successful prompt response carries no messageId: "
            "a prompt that was not inserted gets an error response",
        )
    ],
    "prompt.echo": [(2, "prompt.echo", "MUST", "no user_message for 'u1'")],
    "background.always": [
        (5, "background.always", "MUST", "a state update without the background list")
    ],
    "background.announce": [
        (4, "background.announce", "MUST", "terminal 't1' is listed before any update announced it")
    ],
    "background.finalize": [
        (2, "background.finalize", "MUST", "terminal 't1' left the list with no final status")
    ],
    "background.listed": [
        (1, "background.listed", "SHOULD", "tool call 'w1' is listed with a final status")
    ],
    "resume.snapshot": [
        (
            1,
            "resume.snapshot",
            "MUST",
            "the resume succeeded with no state snapshot after the request",
        )
    ],
    "entity.reuse": [
        (1, "entity.reuse", "note", "tool_call 'c1' is live again after it finished: a reused ID?")
    ],
    "update.schema": [
        (
            0,
            "update.schema",
            "MUST",
            "invalid 'usage_update' (UsageUpdate): "
            "Object missing required field `used` - at `$.params.update`",
        )
    ],
}


@pytest.mark.parametrize("rule", list(EXACT))
def test_each_breaking_transcript_gives_exactly_its_finding(pkg: ModuleType, rule: str) -> None:
    case = next(c for c in CASES if c.rule == rule)
    found = [(v.index, v.rule, v.level, v.message) for v in pkg.check(case.breaks)]
    assert found == EXACT[rule]


def test_every_rule_has_its_exact_findings_somewhere(pkg: ModuleType) -> None:
    from tests.test_conformance_state_rules import BREAKS
    from tests.test_conformance_turns import EXPECTED

    assert {r.id for r in pkg.RULES} <= {*EXACT, *EXPECTED, *BREAKS}
