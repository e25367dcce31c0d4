"""Repairs are reported; bad input raises only `DecodeError`; the walker stays linear.

The repair table uses leniency cases of the newest published v1 schema (required
lenient arrays, lenient optional fields, skipped array items, ``_meta``), on every
target; each case also runs through the lenient pass alone, with no strict pass and no
hint of where it failed, which must agree on the result and on the repairs.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn

#: (update, [(path, action, original)], the update as re-encoded)
CASES: list[tuple[dict[str, Any], list[tuple[str, str, Any]], dict[str, Any]]] = [
    (
        {"sessionUpdate": "plan", "entries": None},
        [("$.entries", "defaulted", None)],
        {"sessionUpdate": "plan", "entries": []},
    ),
    (
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "a", "priority": "high", "status": "pending"}, {"content": 5}],
        },
        [("$.entries[1]", "skipped", {"content": 5})],
        {
            "sessionUpdate": "plan",
            "entries": [{"content": "a", "priority": "high", "status": "pending"}],
        },
    ),
    (
        {"sessionUpdate": "available_commands_update", "availableCommands": "oops"},
        [("$.availableCommands", "defaulted", "oops")],
        {"sessionUpdate": "available_commands_update", "availableCommands": []},
    ),
    (
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "kind": 5},
        [("$.kind", "defaulted", 5)],
        {"sessionUpdate": "tool_call_update", "toolCallId": "t"},
    ),
    (
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"type": "content"}, {"type": "terminal", "terminalId": "x"}, 7],
        },
        [("$.content[0]", "skipped", {"type": "content"}), ("$.content[2]", "skipped", 7)],
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"type": "terminal", "terminalId": "x"}],
        },
    ),
    (
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"},
            "_meta": [1],
            "extra": 0,
        },
        [("$._meta", "defaulted", [1])],
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi"},
            "extra": 0,
        },
    ),
    (
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
        [],
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
    ),
]


@pytest.fixture(scope="module")
def v1(make_package: GenerateFn, target: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), "rep_v1", target=target)


def _rows(repairs: list[Any]) -> list[tuple[str, str, Any]]:
    return [(r.path, r.action, r.original) for r in repairs]


@pytest.mark.parametrize(
    ("update", "expected", "encoded"), CASES, ids=[f"case{i}" for i in range(len(CASES))]
)
def test_repair_table(
    v1: ModuleType,
    update: dict[str, Any],
    expected: list[tuple[str, str, Any]],
    encoded: dict[str, Any],
) -> None:
    data = json.dumps(update).encode()
    repairs: list[Any] = []
    decoded = v1.decode_update(data, repairs=repairs)
    assert _rows(repairs) == expected
    assert json.loads(v1.encode(decoded)) == encoded
    assert v1.decode_update(data) == decoded  # not asking costs nothing and changes nothing
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update},
    }
    repairs = []
    v1.decode_notification(json.dumps(message).encode(), repairs=repairs)
    assert _rows(repairs) == [("$.params.update" + p[1:], a, o) for p, a, o in expected]
    # the lenient pass alone, with no strict pass before it, agrees
    plain: list[Any] = []
    walked = v1._runtime.convert(json.loads(data), v1.models.SessionUpdate, "$", plain)
    assert _rows(plain) == expected
    assert json.loads(v1.encode(walked)) == encoded


def test_a_missing_required_array_is_an_error(v1: ModuleType) -> None:
    """Leniency reads a wrong value, not an absent one: a required array that is missing
    is a `DecodeError` naming it, lenient or not (as both TypeScript SDKs read it)."""
    with pytest.raises(v1.DecodeError, match="missing required field `entries`"):
        v1.decode_update(b'{"sessionUpdate":"plan"}')
    message = (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        b'"update":{"sessionUpdate":"plan"}}}'
    )
    with pytest.raises(v1.DecodeError, match="missing required field `entries`"):
        v1.decode_notification(message)


#: (key of the config option's ID, key of a group's ID) in each protocol line.
_SELECT_KEYS = {"v1": ("id", "group"), "v2": ("configId", "groupId")}


def _config_update(line: str, options: Any) -> dict[str, Any]:
    """A config_option_update holding one select option with `options`, then a boolean."""
    ident, _ = _SELECT_KEYS[line]
    select = {
        ident: "mode",
        "name": "Mode",
        "type": "select",
        "currentValue": "a",
        "options": options,
    }
    toggle = {ident: "fast", "name": "Fast", "type": "boolean", "currentValue": True}
    return {"sessionUpdate": "config_option_update", "configOptions": [select, toggle]}


@pytest.mark.parametrize("line", ["v1", "v2"])
@pytest.mark.parametrize("bad", ["x", {"a": 1}, None, 5, [7]])
def test_select_group_with_bad_options_keeps_the_option(
    make_package: GenerateFn, target: str, line: str, bad: Any
) -> None:
    """`SessionConfigSelectGroup.options` is required and carries
    `x-deserialize-default-on-error`, so a group whose options do not read keeps the
    group, and so the config option, with `options: []` and a `defaulted` repair. In v2
    the field also has `minItems: 1`, which `[]` breaks: the flag's fallback is still
    taken, as the TypeScript SDK takes it, so v1 and v2 read the same."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST[line]), f"rep_{line}", target=target)
    _, group_key = _SELECT_KEYS[line]
    update = _config_update(line, [{group_key: "g", "name": "G", "options": bad}])
    repairs: list[Any] = []
    decoded = pkg.decode_update(json.dumps(update), repairs)
    kept = json.loads(pkg.encode(decoded))["configOptions"]
    assert [o["type"] for o in kept] == ["select", "boolean"]
    assert kept[0]["options"] == [{group_key: "g", "name": "G", "options": []}]
    where = "$.configOptions[0].options[0].options"
    if isinstance(bad, list) and line == "v1":  # (no minItems: only the bad item goes)
        assert _rows(repairs) == [(where + "[0]", "skipped", 7)]
    else:
        assert _rows(repairs) == [(where, "defaulted", bad)]
    plain: list[Any] = []
    walked = pkg._runtime.convert(
        json.loads(json.dumps(update)), pkg.models.SessionUpdate, "$", plain
    )
    assert _rows(plain) == _rows(repairs) and pkg.encode(walked) == pkg.encode(decoded)


@pytest.mark.parametrize("line", ["v1", "v2"])
@pytest.mark.parametrize("bad", ["x", {"a": 1}, None, 5])
def test_select_options_not_an_array_drop_the_option(
    make_package: GenerateFn, target: str, line: str, bad: Any
) -> None:
    """`SessionConfigSelect.options` itself carries no leniency flag: a value there that is
    not an array fails the select option, which `configOptions`
    (`x-deserialize-skip-invalid-items`) then skips, in v1 as in v2."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST[line]), f"rep_{line}", target=target)
    update = _config_update(line, bad)
    repairs: list[Any] = []
    kept = json.loads(pkg.encode(pkg.decode_update(json.dumps(update), repairs)))
    assert [o["type"] for o in kept["configOptions"]] == ["boolean"]
    assert _rows(repairs) == [("$.configOptions[0]", "skipped", update["configOptions"][0])]


def test_a_request_is_not_a_notification(v1: ModuleType) -> None:
    update = {"sessionUpdate": "plan", "entries": []}
    for params in (
        {"sessionId": "s", "update": update},
        {"sessionId": "s", "update": {**update, "entries": None}},
    ):
        message = {"jsonrpc": "2.0", "id": 3, "method": "session/update", "params": params}
        with pytest.raises(v1.DecodeError, match="request"):
            v1.decode_notification(json.dumps(message).encode())


# -- bad input --------------------------------------------------------------------------------


def _deep(levels: int) -> bytes:
    return ('{"sessionUpdate":"_x","v":' + "[" * levels + "]" * levels + "}").encode()


BAD: dict[str, bytes | str] = {
    "lone surrogate in a str payload": '{"sessionUpdate":"agent_message_chunk",'
    '"messageId":"m","content":{"type":"text","text":"\ud800"}}',
    "1e400 in a number field": b'{"sessionUpdate":"usage_update","used":1,"size":2,'
    b'"cost":{"amount":1e400,"currency":"USD"}}',
    "NaN in an unknown update": b'{"sessionUpdate":"_x","v":NaN}',
    "-Infinity in a number field": b'{"sessionUpdate":"usage_update","used":1,"size":2,'
    b'"cost":{"amount":-Infinity,"currency":"USD"}}',
    "Infinity in _meta": b'{"sessionUpdate":"agent_message","messageId":"m",'
    b'"_meta":{"a":Infinity}}',
    "unknown update nested past the limit": _deep(3000),
    # Where no type is declared, the parser alone sees the number: each spot on its own.
    "1e400 in _meta": b'{"sessionUpdate":"agent_message","messageId":"m","_meta":{"a":1e400}}',
    "-1e400 in an unknown update": b'{"sessionUpdate":"_x","v":{"w":[2,-1e400]}}',
    "NaN in an undeclared property": b'{"sessionUpdate":"agent_message","messageId":"m","x":NaN}',
    "1e400 in an undeclared property": b'{"sessionUpdate":"agent_message","messageId":"m",'
    b'"x":{"y":[1e400]}}',
    "Infinity in an untyped field": b'{"sessionUpdate":"tool_call_update","toolCallId":"t",'
    b'"rawInput":{"a":[Infinity]}}',
    "1e400 in an untyped field": b'{"sessionUpdate":"tool_call_update","toolCallId":"t",'
    b'"rawInput":1e400}',
    # An escaped lone surrogate reads into a str that UTF-8 cannot write back.
    "escaped lone high surrogate in a text": b'{"sessionUpdate":"agent_message_chunk",'
    b'"messageId":"m","content":{"type":"text","text":"a\\ud800b"}}',
    "escaped lone low surrogate in _meta": b'{"sessionUpdate":"agent_message","messageId":"m",'
    b'"_meta":{"a":"\\uDC00"}}',
    "escaped surrogates in the wrong order": b'{"sessionUpdate":"agent_message",'
    b'"messageId":"m","_meta":{"a":"\\ude00\\ud83d"}}',
    "escaped lone surrogate in a key": b'{"sessionUpdate":"agent_message","messageId":"m",'
    b'"_meta":{"\\udbff":1}}',
    "escaped lone surrogate after an escaped backslash": b'{"sessionUpdate":"_x",'
    b'"v":"\\\\\\ud800"}',
    # A tag that cannot even be looked up in a table of known tags.
    "a list as the update's tag": b'{"sessionUpdate":[],"messageId":"m"}',
    "an object as a content block's tag": b'{"sessionUpdate":"agent_message_chunk",'
    b'"messageId":"m","content":{"type":{"a":1},"text":"x"}}',
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_decode_error(make_package: GenerateFn, target: str, case: str) -> None:
    pkg = make_package(OWN_SCHEMA, "rep_own", target=target)
    with pytest.raises(pkg.DecodeError):
        pkg.decode_update(BAD[case])


def test_bad_input_in_a_dropped_place(make_package: GenerateFn, target: str) -> None:
    """A value no decoded object keeps. An undeclared property of a package that keeps
    none is still read, so a NaN or a lone surrogate there is refused. An envelope member
    besides the four JSON-RPC ones may be skipped unread (the pydantic target skips a NaN
    there), but never changes what decodes: the message decodes as it would without it."""
    update = b'{"sessionUpdate":"agent_message","messageId":"m"%s}'
    notification = (
        b'{"jsonrpc":"2.0","method":"session/update",%s"params":{"sessionId":"s","update":%s}}'
    )
    closed = make_package(OWN_SCHEMA, "rep_own_drop", target=target, keep_unknown_fields=False)
    opened = make_package(OWN_SCHEMA, "rep_own", target=target)
    for bad in (b"NaN", b"-Infinity", b'"\\ud800"'):
        with pytest.raises(closed.DecodeError):
            closed.decode_update(update % (b',"x":[' + bad + b"]"))
        for pkg in (closed, opened):
            clean = pkg.decode_notification(notification % (b"", update % b""))
            try:
                kept = pkg.decode_notification(notification % (b'"x":' + bad + b",", update % b""))
            except pkg.DecodeError:
                continue
            assert bad != b'"\\ud800"', "a lone surrogate is refused wherever it is"
            assert kept == clean and pkg.encode(kept) == pkg.encode(clean)
    # the same places with a good value: dropped or kept, as each package does
    assert closed.extra_fields(closed.decode_update(update % b',"x":[1]')) == {}
    for pkg in (closed, opened):
        params = pkg.decode_notification(notification % (b'"x":1.5,', update % b""))
        assert params.session_id == "s"


@pytest.mark.parametrize(
    "update",
    [
        b'{"sessionUpdate":"agent_message","messageId":"m","_meta":{"a":"\\ud83d\\ude00 ok"}}',
        b'{"sessionUpdate":"agent_message","messageId":"m","_meta":{"\\\\ud800":"\\\\udc00"}}',
        b'{"sessionUpdate":"agent_message","messageId":"m","_meta":{"a":1.5,"b":[-0.0,1e300,7]}}',
        b'{"sessionUpdate":"_x","v":{"w":[2,-1e300,0.25]}}',
        b'{"sessionUpdate":"agent_message","messageId":"m","x":{"y":[1e-320,3]}}',
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t","rawInput":{"a":[-2.5e10]}}',
    ],
)
def test_finite_numbers_in_untyped_spots_round_trip(
    make_package: GenerateFn, target: str, update: bytes
) -> None:
    """The refusal above is of NaN and the infinities only: every finite number in the
    same spots decodes strictly and is written back as it came, integers as integers."""
    pkg = make_package(OWN_SCHEMA, "rep_own", target=target)
    repairs: list = []
    decoded = pkg.decode_update(update, repairs)
    assert repairs == []
    assert _typed(json.loads(pkg.encode(decoded))) == _typed(json.loads(update))


def _typed(value: Any) -> Any:
    """`value` with each number paired with its type, so ``7`` and ``7.0`` differ."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("levels", [10, 150, 199, 250, 600, 990])
def test_what_decodes_encodes(make_package: GenerateFn, target: str, levels: int) -> None:
    """A deep unknown update either decodes and encodes again, or is a DecodeError."""
    pkg = make_package(OWN_SCHEMA, "rep_own", target=target)
    try:
        decoded = pkg.decode_update(_deep(levels))
    except pkg.DecodeError:
        assert levels > 150
        return
    params = pkg.decode(
        b'{"sessionId":"s","update":{"sessionUpdate":"_y"}}', pkg.UpdateSessionNotification
    )
    assert json.loads(pkg.encode(decoded)) == json.loads(_deep(levels))
    assert pkg.encode({"jsonrpc": "2.0", "params": params, "update": decoded})


def _node_schema(tmp_path: Path) -> Path:
    """``Node = anyOf[{child: Node}, {leaf: string}]`` carried by a one-variant update."""
    schema = {
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
    path = tmp_path / "node.json"
    path.write_text(json.dumps(schema))
    return path


def test_recursive_untagged_union_is_linear(
    make_package: GenerateFn, target: str, tmp_path: Path
) -> None:
    pkg = make_package(_node_schema(tmp_path), "rep_node", target=target, roots=("Update",))

    def nested(levels: int, bottom: Any) -> bytes:
        node: Any = bottom
        for _ in range(levels):
            node = {"child": node}
        return json.dumps({"kind": "tree", "root": node}).encode()

    good = pkg.decode(nested(14, {"leaf": "x"}), pkg.models.Update)
    assert json.loads(pkg.encode(good)) == json.loads(nested(14, {"leaf": "x"}))
    # Exponential backtracking took over a minute at 12 levels, so 120 would never
    # finish; the bench times the 14-level case.
    for levels in (14, 40, 120):
        with pytest.raises(pkg.DecodeError):
            pkg.decode(nested(levels, {"leaf": 5}), pkg.models.Update)


# -- the error-guided shortcut (msgspec) --------------------------------------------------------

#: Notifications whose faults the shortcut fixes where strict errors point, in an order that
#: makes it reuse a planned route: the same error text under another update kind (other
#: tags on the path), unknown members of open unions in a field and in an array, beside an
#: undeclared property above them and a repair.
SHORTCUT: list[dict[str, Any]] = [
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "name": "read"},
    {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x", "name": "read"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "name": 7},
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "_video", "uri": "u"}, "extra": 1},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "content": [{"type": "terminal", "terminalId": "x"}, {"type": "_acme", "a": [1]}],
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "kind": 5,
        "content": [{"type": "_acme", "a": 1}],
        "name": "n",
    },
    {"sessionUpdate": "_acme_update", "toolCallId": "t"},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "name": "n",
        "other": 2,
        "content": [{"type": "terminal", "terminalId": "x", "deep": 1}],
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "name": "n",
        "content": [{"type": "terminal", "terminalId": "x"}, {"type": "_acme"}, {"type": 5}],
    },
]


def test_the_hint_agrees_with_the_walk(make_package: GenerateFn) -> None:
    """Where strict decoding failed only decides which nodes the lenient pass walks at
    once: the result, repairs included, is the one a walk with no hint gives."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "rep_v1")
    for update in SHORTCUT:
        params = {"sessionId": "s", "update": update}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        repairs: list[Any] = []
        decoded = pkg.decode_notification(json.dumps(message).encode(), repairs=repairs)
        plain: list[Any] = []
        walked = pkg._runtime.convert(
            json.loads(json.dumps(params)), type(decoded), "$.params", plain
        )
        assert _rows(repairs) == _rows(plain), update
        assert pkg.encode(decoded) == pkg.encode(walked), update
        if not repairs:  # lossless: what arrived goes back out
            assert json.loads(pkg.encode(decoded)) == params, update


def test_a_union_nested_in_the_union_is_read(make_package: GenerateFn) -> None:
    """``state_update``'s body is itself a union, which one strict msgspec pass cannot
    read; the lenient pass reads it, as strict decoding would: no repair, the member's
    class. An unknown kind at the same spot is still kept as unknown."""
    pkg = make_package(OWN_SCHEMA, "rep_own")
    update = {
        "sessionUpdate": "state_update",
        "state": "running",
        "background": [{"type": "terminal", "terminalId": "t"}],
    }
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update},
    }
    unknown = {**message, "params": {"sessionId": "s", "update": {"sessionUpdate": "_x"}}}
    repairs: list[Any] = []
    decoded = pkg.decode_notification(json.dumps(message), repairs)
    assert type(decoded.update).__name__ == "RunningStateUpdate" and repairs == []
    assert json.loads(pkg.encode(decoded.update)) == update
    kept = pkg.decode_notification(json.dumps(unknown)).update
    assert isinstance(kept, pkg.UnknownSessionUpdate)
    assert kept.raw == {"sessionUpdate": "_x"}
