"""Undeclared properties: kept, in arrival order, through every way a value is copied.

On every target a decoded object is of its declared class and keeps the properties its
schema does not declare, whatever their names, and they take part in ``==``, ``copy``,
``deepcopy``, the library's own ``replace`` and pickling. On msgspec they live in one
more field every such struct declares (`_extras.EXTRA`).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from types import ModuleType
from typing import Any

import pytest

from acp_codegen.targets.msgspec.lower import EXTRA as EXTRA_FIELD
from tests import corpus
from tests.conftest import GenerateFn


def _v1(make_package: GenerateFn, name: str, target: str = "msgspec") -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), name, target=target)


def _message(update: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        }
    ).encode()


TOOL = {
    "sessionUpdate": "tool_call_update",
    "toolCallId": "t",
    "content": [{"type": "terminal", "terminalId": "x"}],
}
EXTRA = {"zeta": 1, "acmeNote": "read", "x-extra": {"deep": [1, 2.5, None]}}


def _replace(pkg: ModuleType, obj: Any, **changes: Any) -> Any:
    """The target library's own way to copy a value with some fields changed."""
    if hasattr(obj, "model_copy"):
        return obj.model_copy(update=changes)
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **changes)
    import msgspec

    return msgspec.structs.replace(obj, **changes)


def test_kept_in_arrival_order_through_every_copy(make_package: GenerateFn, target: str) -> None:
    pkg = _v1(make_package, "extras_copies", target)
    update = {**TOOL, **EXTRA}
    decoded = pkg.decode_update(json.dumps(update).encode())
    assert list(pkg.extra_fields(decoded)) == list(EXTRA)
    assert pkg.extra_fields(decoded) == EXTRA
    wire = json.loads(pkg.encode(decoded))
    assert wire == update and list(wire)[-3:] == list(EXTRA)
    for other in (
        copy.copy(decoded),
        copy.deepcopy(decoded),
        pickle.loads(pickle.dumps(decoded)),
        _replace(pkg, decoded, title="changed"),
    ):
        assert pkg.extra_fields(other) == EXTRA, type(other)
        assert json.loads(pkg.encode(other))["x-extra"] == EXTRA["x-extra"]
    assert pickle.loads(pickle.dumps(decoded)) == decoded
    assert copy.deepcopy(decoded) == decoded


def test_undeclared_values_take_part_in_equality(make_package: GenerateFn, target: str) -> None:
    pkg = _v1(make_package, "extras_equality", target)
    one = pkg.decode_update(json.dumps({**TOOL, "acmeNote": 1}).encode())
    same = pkg.decode_update(json.dumps({**TOOL, "acmeNote": 1}).encode())
    other = pkg.decode_update(json.dumps({**TOOL, "acmeNote": 2}).encode())
    plain = pkg.decode_update(json.dumps(TOOL).encode())
    assert one == same
    assert one != other
    assert one != plain and plain != one


#: Names JSON can spell that no Python identifier could hold, a NUL included.
ODD = {
    'a"quote': 1,
    "back\\slash": 2,
    "tab\there": 3,
    "a\u001ab": 4,
    "nul\u0000": 5,
    "line\nbreak": 6,
    "\u2028": 7,
    "": 8,
    "_acp_extra": {"n": 1},
    "fine": 9,
}


@pytest.mark.parametrize("call", ["decode_update", "decode_notification", "decode"])
def test_any_name_is_kept_and_written_back_byte_for_byte(
    make_package: GenerateFn, target: str, call: str
) -> None:
    """Undeclared properties with any name, on every decoding path: kept without a repair,
    in arrival order, and written back as the bytes that spelled them (after the declared
    properties, as every target writes them)."""
    pkg = _v1(make_package, "extras_odd", target)
    update = {**TOOL, **ODD}
    repairs: list[Any] = []
    if call == "decode_update":
        decoded = pkg.decode_update(json.dumps(update).encode(), repairs)
    elif call == "decode":
        decoded = pkg.decode(json.dumps(update).encode(), pkg.ToolCallUpdate, repairs)
    else:
        decoded = pkg.decode_notification(_message(update), repairs).update
    assert repairs == []
    assert type(decoded) is pkg.ToolCallUpdate
    assert list(pkg.extra_fields(decoded).items()) == list(ODD.items())
    written = pkg.encode(decoded)
    assert written == json.dumps(update, separators=(",", ":"), ensure_ascii=False).encode()


def test_a_key_written_with_escapes_is_read_as_it_spells(
    make_package: GenerateFn, target: str
) -> None:
    """A key spelled with escapes is the name it decodes to: an undeclared property even
    when it spells a field's attribute name (``message\\u005fid`` is ``message_id``), and
    a declared one when it spells a wire name."""
    pkg = _v1(make_package, "extras_escaped", target)
    head = b'{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},'
    decoded = pkg.decode_update(head + b'"message\\u005fid":"x","\\u0041":1}')
    assert pkg.extra_fields(decoded) == {"message_id": "x", "A": 1}
    assert pkg.encode(decoded).endswith(b'"message_id":"x","A":1}')
    spelled = pkg.decode_update(head + b'"session\\u0055pdate":"agent_message_chunk"}')
    assert pkg.extra_fields(spelled) == {}


def test_the_declared_class_carries_the_extras(make_package: GenerateFn, target: str) -> None:
    """Two decodes with different undeclared properties give objects of the declared class
    itself; the repr shows each property under its wire name."""
    pkg = _v1(make_package, "extras_class", target)
    one = pkg.decode_update(json.dumps({**TOOL, "acmeNote": 1}).encode())
    two = pkg.decode_update(json.dumps({**TOOL, "x-other": [1], "a b": 2}).encode())
    bare = pkg.decode_update(json.dumps(TOOL).encode())
    assert type(one) is type(two) is type(bare) is pkg.ToolCallUpdate
    assert "acmeNote" in repr(one) and "x-other" in repr(two) and "a b" in repr(two)
    assert "undeclared" not in repr(one) and "acmeNote" not in repr(bare)


def test_an_object_built_by_hand_has_no_extras(make_package: GenerateFn, target: str) -> None:
    pkg = _v1(make_package, "extras_by_hand", target)
    bare = pkg.ToolCallUpdate(tool_call_id="t")
    assert pkg.extra_fields(bare) == {}
    assert json.loads(pkg.encode(bare)) == {"sessionUpdate": "tool_call_update", "toolCallId": "t"}


def test_msgspec_refuses_extras_that_shadow_a_declared_name(make_package: GenerateFn) -> None:
    """msgspec keeps undeclared properties in a field of its own (`_extras.EXTRA`); one
    put there by hand under a declared property's wire name is refused at encode, never
    written twice."""
    pkg = _v1(make_package, "extras_shadow")
    assert pkg._extras.EXTRA == EXTRA_FIELD  # (the field the lowering declares)
    shadow = pkg.ToolCallUpdate(
        tool_call_id="t", _acp_extra=pkg._runtime.Extras({"toolCallId": "u"})
    )
    with pytest.raises(TypeError, match="toolCallId"):
        pkg.encode(shadow)


@pytest.mark.parametrize("where", ["update", "content item", "params"])
def test_undeclared_properties_at_any_depth(
    make_package: GenerateFn, target: str, where: str
) -> None:
    pkg = _v1(make_package, "extras_depth", target)
    update = json.loads(json.dumps(TOOL))
    params: dict[str, Any] = {"sessionId": "s", "update": update}
    holder = {"update": update, "content item": update["content"][0], "params": params}[where]
    holder["acmeNote"] = {"n": 1}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    decoded = pkg.decode_notification(json.dumps(message).encode())
    assert json.loads(pkg.encode(decoded)) == params
