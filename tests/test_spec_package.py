"""Our own v2 schema and its committed package (``generated/acp_session``).

Two independent oracles judge every example in tests/spec_examples/examples.json:
`jsonschema` validation, and decoding with the generated package. They agree when a
schema-valid example decodes (strictly or via the open fallbacks) and re-encodes to equal
JSON, and a schema-invalid one is either rejected or accepted only through the schema's
own leniency flags, in which case the repaired value it re-encodes to is schema-valid.
None of these tests need ../shared.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from acp_codegen import config, ondisk
from acp_codegen.pipeline import generate
from tests.conftest import GenerateFn, strict_decoder
from tests.userproject import run_readme_example

REPO = Path(__file__).resolve().parent.parent
SCHEMA_PATH = REPO / "schema" / "session_update.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())
EXAMPLES = json.loads((REPO / "tests" / "spec_examples" / "examples.json").read_text())


@pytest.fixture(scope="module")
def acp(target: str, make_package: GenerateFn) -> ModuleType:
    if target != "msgspec":  # the committed package is msgspec's; others are made here
        return make_package(SCHEMA_PATH, "spec_acp", target=target, roots=("PromptResponse",))
    sys.path.insert(0, str(REPO / "generated"))
    try:
        return importlib.import_module("acp_session")
    finally:
        sys.path.remove(str(REPO / "generated"))


def _validator(def_name: str) -> jsonschema.Draft202012Validator:
    registry: Registry[Any] = Registry().with_resource("urn:acp", Resource.from_contents(SCHEMA))
    return jsonschema.Draft202012Validator(
        {"$ref": f"urn:acp#/$defs/{def_name}"}, registry=registry
    )


UPDATE = _validator("SessionUpdate")


def test_generated_package_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repo's own job ([tool.acp-codegen] in pyproject.toml) matches generated/."""
    monkeypatch.chdir(REPO)
    loaded = config.load(REPO / "pyproject.toml", cwd=REPO)
    assert loaded is not None
    (job,) = [named.job for named in loaded.jobs]
    assert job.out == Path("generated/acp_session")
    diff = ondisk.diff_tree(job.out, generate(job))
    assert not diff, f"generated/ is stale:\n{diff}\nRun: acp-codegen generate"


def test_schema_meta_validates() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_are_enough_examples() -> None:
    assert len(EXAMPLES) >= 60
    assert sum(not e["valid"] for e in EXAMPLES) >= 20


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_both_oracles_agree(acp: ModuleType, example: dict[str, Any]) -> None:
    payload = example["update"]
    schema_valid = UPDATE.is_valid(payload)
    assert schema_valid == example["valid"], "the example's flag disagrees with jsonschema"
    raw = json.dumps(payload).encode()
    try:
        decoded = acp.decode_update(raw)
    except acp.DecodeError:
        assert not schema_valid, "the decoder rejected a schema-valid payload"
        return
    reencoded = json.loads(acp.encode(decoded))
    if schema_valid:
        assert reencoded == payload
        return
    with pytest.raises(ValueError):
        strict_decoder(acp, acp.models.SessionUpdate)(raw)  # accepted only via the slow path ...
    assert reencoded != payload
    assert UPDATE.is_valid(reencoded), "... which must repair it into a schema-valid value"


# -- one behaviour test per item the schema must cover ------------------------------------------


def decode(acp: ModuleType, tag: str, **fields: Any) -> Any:
    return acp.decode_update(json.dumps({"sessionUpdate": tag, **fields}))


TEXT = {"type": "text", "text": "x"}


@pytest.mark.parametrize(
    ("tag", "cls"),
    [
        ("user_message", "UserMessage"),
        ("agent_message", "AgentMessage"),
        ("agent_thought", "AgentThought"),
        ("session_message", "SessionMessage"),
    ],
)
def test_message_updates_and_chunks(acp: ModuleType, tag: str, cls: str) -> None:
    update = decode(acp, tag, messageId="m", content=[TEXT])
    chunk = decode(acp, tag + "_chunk", messageId="m", content=TEXT)
    assert type(update).__name__ == cls and update.message_id == "m"
    assert chunk.message_id == "m" and chunk.content.text == "x"


def test_session_directed_message_fields(acp: ModuleType) -> None:
    msg = decode(
        acp,
        "session_message",
        messageId="m",
        senderSessionId="p",
        recipientSessionId="c",
        senderMessageId="pm",
        recipientMessageId=None,
    )
    assert (msg.sender_session_id, msg.recipient_session_id) == ("p", "c")
    assert (msg.sender_message_id, msg.recipient_message_id) == ("pm", None)


@pytest.mark.parametrize("state", ["running", "idle", "requires_action", "unknown", "_x", "later"])
def test_state_update_states(acp: ModuleType, state: str) -> None:
    update = decode(acp, "state_update", state=state, background=[])
    assert json.loads(acp.encode(update)) == {
        "sessionUpdate": "state_update",
        "state": state,
        "background": [],
    } or state in ("_x", "later")
    assert acp.dispatch is not None


@pytest.mark.parametrize(
    "item",
    [
        {"type": "terminal", "terminalId": "t"},
        {"type": "tool_call", "toolCallId": "c"},
        {"type": "subagent", "sessionId": "s"},
        {"type": "_watcher", "anything": 1},
    ],
)
def test_background_items(acp: ModuleType, item: dict[str, Any]) -> None:
    update = decode(acp, "state_update", state="running", background=[item])
    assert len(update.background) == 1
    assert json.loads(acp.encode(update.background[0])) == item


@pytest.mark.parametrize(
    ("reason", "cls"),
    [
        ("end_turn", "EndTurnIdleStateUpdate"),
        ("max_tokens", "MaxTokensIdleStateUpdate"),
        ("max_turn_requests", "MaxTurnRequestsIdleStateUpdate"),
        ("refusal", "RefusalIdleStateUpdate"),
        ("cancelled", "CancelledIdleStateUpdate"),
        ("error", "ErrorStopReason"),
        ("_custom", "UnknownIdleStateUpdate"),
        ("future_reason", "UnknownIdleStateUpdate"),
        (None, "NoneIdleStateUpdate"),
        ("<absent>", "NoneIdleStateUpdate"),
    ],
)
def test_stop_reasons_select_the_idle_class(acp: ModuleType, reason: str | None, cls: str) -> None:
    """The stop reason is the tag of an open union: a known one names its class, an unknown
    one is kept by the typed fallback, and a null or absent one takes the default member."""
    fields = {} if reason == "<absent>" else {"stopReason": reason}
    update = decode(acp, "state_update", state="idle", **fields)
    assert type(update).__name__ == cls
    if cls == "UnknownIdleStateUpdate":
        assert update.stop_reason == reason
    else:
        assert acp.IDLE_STATE_UPDATE_VARIANTS.get(reason) in (type(update), None)
    assert json.loads(acp.encode(update)) == {
        "sessionUpdate": "state_update",
        "state": "idle",
        **fields,
    }


def test_idle_error_object(acp: ModuleType) -> None:
    update = decode(
        acp,
        "state_update",
        state="idle",
        stopReason="error",
        error={"code": -32000, "message": "auth", "data": {"x": 1}},
    )
    assert isinstance(update, acp.ErrorStopReason)
    assert (update.error.code, update.error.message, update.error.data) == (
        -32000,
        "auth",
        {"x": 1},
    )
    assert update.error.code == acp.ErrorCode.AUTHENTICATION_REQUIRED


def test_error_data_shapes(acp: ModuleType) -> None:
    """`Error.data` takes the shapes ACP defines for -32022 and -32002, else any value."""
    version = decode(
        acp,
        "state_update",
        state="idle",
        stopReason="error",
        error={"code": -32022, "message": "v", "data": {"requested": 3, "supported": [1, 2]}},
    )
    assert version.error.code == acp.ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
    data = version.error.data
    assert isinstance(data, acp.UnsupportedProtocolVersionErrorData)
    assert (data.requested, data.supported) == (3, [1, 2])
    missing = decode(
        acp,
        "state_update",
        state="idle",
        stopReason="error",
        error={"code": -32002, "message": "gone", "data": {"sessionId": "s"}},
    )
    assert isinstance(missing.error.data, acp.SessionNotFoundErrorData)
    assert missing.error.data.session_id == "s"
    other = decode(
        acp,
        "state_update",
        state="idle",
        stopReason="error",
        error={"code": -32002, "message": "gone", "data": [1, "two"]},
    )
    assert other.error.data == [1, "two"]


def test_error_beside_another_stop_reason_is_an_unknown_field(acp: ModuleType) -> None:
    """ "error belongs to the error stop reason. Beside any other stop reason it is an unknown
    field." It is kept as received, and written back."""
    failure = {"code": -32603, "message": "m"}
    update = decode(acp, "state_update", state="idle", stopReason="end_turn", error=failure)
    end_turn = acp.IDLE_STATE_UPDATE_VARIANTS["end_turn"]
    assert isinstance(update, end_turn)
    assert "error" not in wire_names(end_turn) and "error" in wire_names(acp.ErrorStopReason)
    assert json.loads(acp.encode(update))["error"] == failure


def wire_names(cls: type[Any]) -> set[str]:
    """The properties a generated class declares, by wire name (any target)."""
    if hasattr(cls, "__struct_fields__"):
        import msgspec

        return {f.encode_name for f in msgspec.structs.fields(cls)}
    if hasattr(cls, "model_fields"):
        return {info.alias or attr for attr, info in cls.model_fields.items()}
    return {f.metadata.get("acp_wire", f.name) for f in dataclasses.fields(cls)}


@pytest.mark.parametrize(
    "status", ["pending", "in_progress", "paused", "completed", "failed", "cancelled"]
)
def test_tool_call_statuses(acp: ModuleType, status: str) -> None:
    assert decode(acp, "tool_call_update", toolCallId="t", status=status).status.is_known


def test_tool_call_content_chunk_and_terminals(acp: ModuleType) -> None:
    chunk = decode(
        acp, "tool_call_content_chunk", toolCallId="t", content={"type": "content", "content": TEXT}
    )
    assert chunk.content.content.text == "x"
    term = decode(acp, "terminal_update", terminalId="t", exitStatus={"exitCode": 2})
    assert term.exit_status.exit_code == 2
    out = decode(acp, "terminal_output_chunk", terminalId="t", data="hello")
    assert out.data == "hello"


def test_other_updates(acp: ModuleType) -> None:
    assert decode(acp, "subagent_update", sessionId="child").session_id == "child"
    assert decode(acp, "plan_removed", planId="p").plan_id == "p"
    assert decode(acp, "available_commands_update", availableCommands=[]).available_commands == []
    assert decode(acp, "session_info_update", title=None).title is None
    usage = decode(acp, "usage_update", used=1, size=2, cost={"amount": 0.5, "currency": "USD"})
    assert (usage.used, usage.size, usage.cost.currency) == (1, 2, "USD")


def test_notice_rules(acp: ModuleType) -> None:
    notice = decode(acp, "notice", severity="_loud", title="t", description=None)
    assert notice.severity.is_extension and notice.description is None
    with pytest.raises(acp.DecodeError):
        decode(acp, "notice", severity="info", title="")


def test_compaction_patches(acp: ModuleType) -> None:
    update = decode(
        acp,
        "compaction_update",
        compactionId="c",
        status="_phase",
        summary=None,
        error=None,
        _meta=None,
    )
    assert update.status.is_extension
    assert (update.summary, update.error, update.meta) == (None, None, None)
    assert (
        decode(acp, "compaction_summary_chunk", compactionId="c", content=TEXT).content.text == "x"
    )


def test_fallback_keeps_future_update_kinds(acp: ModuleType) -> None:
    update = decode(acp, "_vendor", n=1)
    assert isinstance(update, acp.UnknownSessionUpdate) and update.raw["n"] == 1


def test_prompt_response_requires_a_message_id(acp: ModuleType) -> None:
    assert acp.decode(b'{"messageId":"u1"}', acp.PromptResponse).message_id == "u1"
    for bad in (b"{}", b'{"messageId":null}'):
        with pytest.raises(acp.DecodeError):
            acp.decode(bad, acp.PromptResponse)
    assert acp.METHODS["session/prompt"].result is acp.PromptResponse


def test_readme_client_example_runs_as_shown() -> None:
    """The README's client loop (decode, dispatch, apply, render) prints what it says."""
    run_readme_example("## A client loop", REPO)
