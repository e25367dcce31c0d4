"""Behaviour of generated packages: round trips, open unions, open enums, leniency, dispatch.

Packages are generated during the run from the golden fixture schemas and from the newest
published v1 and v2 revisions in $ACP_SHARED/acp-schemas.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from tests import corpus
from tests.conftest import GenerateFn, strict_decoder

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def golden(make_package: GenerateFn, target: str) -> dict[str, ModuleType]:
    return {
        case: make_package(
            GOLDEN / case / "schema.json",
            f"golden_{case}",
            target=target,
            closed_all=case.startswith("closed"),
        )
        for case in ("open_union", "closed_union", "lenient_nested")
    }


@pytest.fixture(scope="module")
def v1(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), "beh_v1", target=target)


@pytest.fixture(scope="module")
def v2(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v2-unstable"]), "beh_v2u", target=target)


def roundtrip(pkg: ModuleType, payload: dict[str, Any]) -> Any:
    obj = pkg.decode_update(json.dumps(payload))
    assert json.loads(pkg.encode(obj)) == payload
    return obj


# -- round trips ------------------------------------------------------------------------------


def test_v1_stream_round_trips_exactly(v1: ModuleType) -> None:
    corpus.require()
    lines = corpus.STREAM_V1.read_bytes().splitlines()
    assert len(lines) == 10_000
    kinds: set[str] = set()
    for line in lines:
        params = v1.decode_notification(line)
        assert json.loads(v1.encode(params)) == json.loads(line)["params"]
        kinds.add(type(params.update).__name__)
    assert len(kinds) == 8  # every kind the stream carries decodes to its own class


def test_null_and_omitted_are_preserved(v2: ModuleType) -> None:
    omitted = roundtrip(v2, {"sessionUpdate": "tool_call_update", "toolCallId": "t"})
    nulled = roundtrip(
        v2,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "title": None,
            "status": None,
            "content": None,
        },
    )
    assert omitted.title is v2.UNSET and omitted.status is v2.UNSET
    assert nulled.title is None and nulled.status is None and nulled.content is None
    assert v2.encode(omitted) == b'{"sessionUpdate":"tool_call_update","toolCallId":"t"}'


def test_notification_envelope(v2: ModuleType) -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": "hi"},
            },
        },
    }
    params = v2.decode_notification(json.dumps(message))
    assert params.session_id == "s" and params.update.content.text == "hi"
    with pytest.raises(v2.DecodeError, match="method"):
        v2.decode_notification(json.dumps({**message, "method": "session/other"}))
    with pytest.raises(v2.DecodeError, match="invalid JSON"):
        v2.decode_notification(b"{")


# -- open and closed unions -------------------------------------------------------------------


def test_unknown_update_is_kept_and_reencoded(v2: ModuleType) -> None:
    payload = {"sessionUpdate": "_vendor_progress", "percent": 40, "nested": {"a": [1, None]}}
    obj = v2.decode_update(json.dumps(payload))
    assert isinstance(obj, v2.UnknownSessionUpdate)
    assert obj.tag == "_vendor_progress" and obj.raw == payload
    assert json.loads(v2.encode(obj)) == payload


def test_unknown_nested_member_is_kept_inside_a_known_variant(v2: ModuleType) -> None:
    payload = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "hologram", "frames": 3},
    }
    obj = roundtrip(v2, payload)
    assert isinstance(obj, v2.AgentMessageChunk)
    assert isinstance(obj.content, v2.UnknownContentBlock) and obj.content.tag == "hologram"


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": {"type": "text", "text": 5},
            },
            "'agent_message_chunk' (AgentMessageChunk)",
        ),
        (
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}},
            "missing required field `messageId`",
        ),
        ({"sessionUpdate": "usage_update", "used": -1, "size": 10}, "$.used"),
        ({"sessionUpdate": 7}, "Expected `str`, got `int`"),
        ({"no": "tag"}, "missing required field `sessionUpdate`"),
    ],
)
def test_malformed_known_variant_is_rejected(
    v2: ModuleType, payload: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(v2.DecodeError) as info:
        v2.decode_update(json.dumps(payload))
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_error_names_variant_and_field(v2: ModuleType) -> None:
    with pytest.raises(v2.DecodeError) as info:
        v2.decode_update(
            b'{"sessionUpdate":"agent_message_chunk","messageId":"m",'
            b'"content":{"type":"text","text":5}}'
        )
    assert info.value.path == "$.content.text"
    assert "AgentMessageChunk" in info.value.message and "TextContent" in info.value.message


def test_closed_union_rejects_unknown_tag(
    v1: ModuleType, golden: dict[str, ModuleType], make_package: GenerateFn, target: str
) -> None:
    unknown = v1.decode_update(b'{"sessionUpdate":"_vendor"}')  # open by default
    assert type(unknown) is v1.UnknownSessionUpdate and unknown.tag == "_vendor"
    closed = make_package(
        corpus.newest(corpus.NEWEST["v1"]),
        "beh_v1_closed",
        target=target,
        closed=("SessionUpdate",),
    )
    with pytest.raises(closed.DecodeError, match="unknown SessionUpdate tag '_vendor'"):
        closed.decode_update(b'{"sessionUpdate":"_vendor"}')
    assert not hasattr(closed, "UnknownSessionUpdate")
    pkg = golden["closed_union"]
    with pytest.raises(pkg.DecodeError, match="unknown Update tag 'pong'"):
        pkg.decode_update(b'{"sessionUpdate":"pong"}')
    assert not hasattr(pkg, "UnknownUpdate")


def test_default_variant_used_when_tag_absent(golden: dict[str, ModuleType]) -> None:
    pkg = golden["closed_union"]
    payload = {
        "sessionUpdate": "plan",
        "entries": [{"priority": "high"}],
        "server": {"command": "run"},
    }
    obj = roundtrip(pkg, payload)
    assert type(obj.server).__name__ == "StdioServer"
    http = roundtrip(pkg, {**payload, "server": {"type": "http", "url": "u"}})
    assert http.server.url == "u"


def test_union_nested_as_variant_body(golden: dict[str, ModuleType]) -> None:
    pkg = golden["lenient_nested"]
    slow = roundtrip(pkg, {"sessionUpdate": "mode", "mode": "slow", "delayMs": 5})
    assert type(slow).__name__ == "SlowMode" and slow.delay_ms == 5
    # Mode is closed in the schema but open by default, so it has an UnknownMode.
    assert pkg.UPDATE_VARIANTS["mode"] == (pkg.FastMode, pkg.SlowMode, pkg.UnknownMode)
    medium = roundtrip(pkg, {"sessionUpdate": "mode", "mode": "medium"})
    assert type(medium) is pkg.UnknownMode and medium.tag == "medium"


# -- enums ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "known", "extension", "future"),
    [
        ("pending", True, False, False),
        ("_queued", False, True, False),
        ("blocked", False, False, True),
    ],
)
def test_open_string_enum(
    v2: ModuleType, value: str, known: bool, extension: bool, future: bool
) -> None:
    obj = roundtrip(v2, {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": value})
    status = obj.status
    assert isinstance(status, v2.ToolCallStatus) and status == value
    assert (status.is_known, status.is_extension, status.is_future) == (known, extension, future)
    assert v2.ToolCallStatus.PENDING == "pending" and v2.ToolCallStatus.PENDING.is_known


def test_open_integer_enum(golden: dict[str, ModuleType]) -> None:
    pkg = golden["open_union"]
    known = roundtrip(pkg, {"sessionUpdate": "job_update", "jobId": "j", "code": -32})
    assert known.code == pkg.Code.BROKEN_PIPE and known.code.is_known
    odd = roundtrip(pkg, {"sessionUpdate": "job_update", "jobId": "j", "code": 7})
    assert odd.code == 7 and odd.code.is_future and not odd.code.is_known
    with pytest.raises(pkg.DecodeError):
        pkg.decode_update(b'{"sessionUpdate":"job_update","jobId":"j","code":"7"}')


def test_closed_enum_rejects_unknown_value(golden: dict[str, ModuleType]) -> None:
    pkg = golden["closed_union"]
    ok = pkg.decode_update(b'{"sessionUpdate":"plan","entries":[{"priority":"low","role":"a"}]}')
    assert ok.entries[0].priority is pkg.Priority.LOW
    with pytest.raises(pkg.DecodeError, match="priority"):
        pkg.decode_update(b'{"sessionUpdate":"plan","entries":[{"priority":"urgent"}]}')


# -- leniency ---------------------------------------------------------------------------------


def test_default_on_error_field(golden: dict[str, ModuleType]) -> None:
    pkg = golden["lenient_nested"]
    obj = pkg.decode_update(b'{"sessionUpdate":"items","label":"x","limit":"many"}')
    assert obj.limit == 10  # the schema default replaces the bad value
    bad_names = pkg.decode_update(b'{"sessionUpdate":"items","label":"x","names":"oops"}')
    assert bad_names.names is pkg.UNSET  # no schema default: the field counts as omitted


def test_skip_invalid_items(golden: dict[str, ModuleType]) -> None:
    pkg = golden["lenient_nested"]
    obj = pkg.decode_update(b'{"sessionUpdate":"items","label":"x","names":["a",1,"b",null]}')
    assert obj.names == ["a", "b"]


def test_required_fields_and_tags_are_never_lenient(golden: dict[str, ModuleType]) -> None:
    pkg = golden["lenient_nested"]
    for raw in (
        b'{"sessionUpdate":"items","label":""}',
        b'{"sessionUpdate":"items"}',
        b'{"sessionUpdate":"items","label":"UPPER"}',
    ):
        with pytest.raises(pkg.DecodeError):
            pkg.decode_update(raw)


def test_published_meta_is_lenient(v2: ModuleType) -> None:
    obj = v2.decode_update(b'{"sessionUpdate":"agent_message","messageId":"m","_meta":[1]}')
    assert obj.meta is v2.UNSET


def test_strict_path_handles_the_common_case(v2: ModuleType) -> None:
    """Well-formed payloads never touch the slow path: the strict decoder alone accepts them."""
    strict_decode = strict_decoder(v2, v2.models.SessionUpdate)
    payload = (
        b'{"sessionUpdate":"agent_message_chunk","messageId":"m",'
        b'"content":{"type":"text","text":"x"}}'
    )
    assert strict_decode(payload) == v2.decode_update(payload)


# -- dispatch and tables ----------------------------------------------------------------------


def test_dispatch_calls_one_handler_per_variant(v2: ModuleType) -> None:
    calls: list[str] = []
    handler_cls = v2.SessionUpdateHandler
    methods = {name for name in dir(handler_cls) if name.startswith("on_")}
    recorder = type(
        "Recorder",
        (handler_cls,),
        {name: (lambda self, update, _n=name: calls.append(_n)) for name in methods},
    )()
    assert len(methods) == len(v2.SESSION_UPDATE_VARIANTS) + 1  # + on_unknown
    for tag, cls in v2.SESSION_UPDATE_VARIANTS.items():
        for member in cls if isinstance(cls, tuple) else (cls,):
            assert f"on_{tag}" in methods
            calls.clear()
            v2.dispatch(_instance(v2, member, tag), recorder)
            assert calls == [f"on_{tag}"]
    calls.clear()
    v2.dispatch(v2.decode_update(b'{"sessionUpdate":"_x"}'), recorder)
    assert calls == ["on_unknown"]
    with pytest.raises(TypeError, match="not a SessionUpdate member"):
        v2.dispatch(object(), recorder)


def _instance(pkg: ModuleType, cls: type, tag: str) -> Any:
    if issubclass(cls, pkg._runtime.UnknownVariant):
        return cls("_x", {"sessionUpdate": tag, cls.TAG_FIELD: "_x"})
    if hasattr(cls, "model_construct"):  # pydantic target: build without validating
        return cls.model_construct(
            **{n: None for n, f in cls.model_fields.items() if f.is_required()}
        )
    if dataclasses.is_dataclass(cls):  # dataclasses target
        return cls(
            **{f.name: None for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}
        )
    required = {f.name: None for f in msgspec.structs.fields(cls) if f.required}
    return cls(**required)


def test_variant_tables_and_methods(v1: ModuleType, v2: ModuleType) -> None:
    assert v2.SESSION_UPDATE_VARIANTS["agent_message_chunk"] is v2.AgentMessageChunk
    assert set(v1.SESSION_UPDATE_VARIANTS) >= {"agent_message_chunk", "tool_call", "plan"}
    method = v2.METHODS["session/update"]
    assert (method.side, method.params, method.result) == (
        "client",
        v2.UpdateSessionNotification,
        None,
    )


def test_names_are_derived_not_numbered(published: ModuleType) -> None:
    names = [n for n in published.__all__ if n[0].isupper()]
    assert not [n for n in names if n.rstrip("0123456789") != n and n.startswith("SessionUpdate")]
    assert "UnknownSessionUpdate" in names or "SESSION_UPDATE_VARIANTS" in names
