"""Every target reads a damaged stream, and the payload fuzz's mutations, alike.

Messages of the shared v1 stream, each with one value anywhere in its update (a tag
included) replaced by a value of another JSON kind, are decoded by the msgspec,
pydantic and dataclasses packages of the newest v1 schema. For each message all three
must agree: each raises `DecodeError`, or each decodes it and writes back the same JSON
with the same number of repairs. Nothing else may escape. This found a pydantic
discriminator that raised `TypeError` on a list where a tag belongs.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, REPO, TARGETS, GenerateFn
from tests.decode_outcomes import outcome
from tests.instances import Instances, Variant, envelope, notification_def, union_size
from tests.mutations import Mutator

#: Values of every JSON kind, some of which fit a field somewhere.
VALUES = (
    '"x"',
    "1.5",
    "null",
    "{}",
    "[]",
    "-1",
    "0",
    "true",
    '{"a":1}',
    '[{"type":"text","text":"x"}]',
    '""',
    '"_ext"',
    '"in_progress"',
    "[1]",
    '{"type":"text"}',
)
MESSAGES = 800
PER_MESSAGE = 3
#: Mutated payloads per schema through the three targets (CI sets ``ACP_READING_MUTATIONS``).
MUTATED = int(os.environ.get("ACP_READING_MUTATIONS", "150")) * 2


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside `value` (containers too), itself left out."""
    out: list[tuple[Any, ...]] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, inner in items:
        out.append((*path, key))
        out.extend(_paths(inner, (*path, key)))
    return out


def _outcome(pkg: Any, data: bytes) -> tuple[Any, ...]:
    repairs: list[Any] = []
    try:
        params = pkg.decode_notification(data, repairs)
    except pkg.DecodeError:
        return ("error",)
    return ("decoded", json.loads(pkg.encode(params)), len(repairs))


def test_targets_agree_on_damaged_messages(make_package: GenerateFn) -> None:
    corpus.require()
    schema = corpus.newest(corpus.NEWEST["v1"])
    packages = {t: make_package(schema, "cross_v1", target=t) for t in TARGETS}
    lines = corpus.STREAM_V1.read_bytes().splitlines()
    rng = random.Random(20261201)
    decoded = 0
    for line in rng.sample(lines, MESSAGES):
        message = json.loads(line)
        paths = _paths(message["params"]["update"])
        for _ in range(PER_MESSAGE):
            path, value = rng.choice(paths), rng.choice(VALUES)
            damaged = json.loads(line)
            holder = damaged["params"]["update"]
            for step in path[:-1]:
                holder = holder[step]
            holder[path[-1]] = "@@value@@"
            data = json.dumps(damaged).replace('"@@value@@"', value).encode()
            outcomes = {t: _outcome(pkg, data) for t, pkg in packages.items()}
            assert len({json.dumps(o, sort_keys=True) for o in outcomes.values()}) == 1, (
                data,
                outcomes,
            )
            decoded += outcomes[TARGETS[0]][0] == "decoded"
    # (both kinds of outcome are exercised: damage a lenient field or an item, or not)
    assert 0.1 * MESSAGES * PER_MESSAGE < decoded < 0.9 * MESSAGES * PER_MESSAGE, decoded


def _compared(pkg: Any, data: bytes, call: str = "decode_notification") -> tuple[Any, ...]:
    found = outcome(pkg, call, data)
    if found[0] == "error":
        # (the exception's type, kind and path; its whole text, unless the parser's words)
        _, name, text, kind, path = found
        return ("error", name, kind, path, text if kind != "json" else "")
    _, cls, written, repairs = found
    return ("ok", cls, written, repairs)


@pytest.mark.parametrize(("key", "keep"), [("v1", True), ("v2-unstable", True), ("v1", False)])
def test_targets_agree_on_mutated_payloads(make_package: GenerateFn, key: str, keep: bool) -> None:
    """The payload fuzz's mutations (flipped kinds, dropped and doubled keys, deep nesting,
    invalid UTF-8, a BOM...) of valid payloads, through all three targets: the same
    outcome, class, bytes written back, repairs (replacements included), and exception
    type and text; also in packages that drop undeclared properties."""
    corpus.require()
    path = corpus.newest(corpus.NEWEST[key])
    name = "cross_" + key.replace("-", "_") + ("" if keep else "_dropping")
    packages = {
        t: make_package(path, name, target=t, take_all=True, keep_unknown_fields=keep)
        for t in TARGETS
    }
    document = json.loads(path.read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    seeds = [
        envelope(Instances(document, Variant(v, full)).of_def(name))
        for v in range(union_size(document, "SessionUpdate"))
        for full in (True, False)
    ]
    mutator = Mutator(7, sorted(packages[TARGETS[0]].SESSION_UPDATE_VARIANTS))
    kinds = set()
    for index in range(MUTATED):
        data = mutator.mutate(seeds[index % len(seeds)])
        outcomes = {t: _compared(pkg, data) for t, pkg in packages.items()}
        assert len({repr(o) for o in outcomes.values()}) == 1, (data[:300], outcomes)
        kinds.add(outcomes[TARGETS[0]][0])
    assert kinds == {"ok", "error"}


def _nested(levels: int, where: str) -> bytes:
    """An agent message chunk that nests `levels` deep, counting its own object: through
    `_meta` (free JSON) or through a lenient field's value."""
    inner = "[" * (levels - 2) + "1" + "]" * (levels - 2)
    if where == "_meta":
        tail = f'"content":{{"type":"text","text":"hi"}},"_meta":{{"x":{inner}}}'
    else:
        tail = f'"content":{{"type":"text","text":"hi","annotations":{inner}}}'
    return ('{"sessionUpdate":"agent_message_chunk","messageId":"m",' + tail + "}").encode()


def _levels(value: Any) -> int:
    """How deep `value` nests, counting each array and object (``[[1]]`` is 2)."""
    if isinstance(value, dict | list):
        inner = value.values() if isinstance(value, dict) else value
        return 1 + max(map(_levels, inner), default=0)
    return 0


def _documented_limit() -> int:
    """The payload nesting limit docs/compatibility.md states: one number wherever it is
    stated."""
    text = " ".join((REPO / "docs" / "compatibility.md").read_text(encoding="utf-8").split())
    stated = set(re.findall(r"JSON nested deeper than (\d+) levels", text))
    assert len(stated) == 1, stated
    return int(stated.pop())


@pytest.mark.parametrize("where", ["_meta", "content"])
def test_targets_share_one_nesting_limit(make_package: GenerateFn, where: str) -> None:
    """`MAX_DEPTH` levels, the number the documentation states, decode on every target and
    one more is the same `DecodeError` on every target, whether the value is free JSON or
    a field's (lenient or strict)."""
    packages = [make_package(OWN_SCHEMA, "nesting", target=t) for t in TARGETS]
    limit = {pkg._runtime.MAX_DEPTH for pkg in packages}
    assert limit == {_documented_limit()}
    (depth,) = limit
    assert _levels(json.loads("[[1]]")) == 2
    for levels, expected in ((depth, "ok"), (depth + 1, "error")):
        assert _levels(json.loads(_nested(levels, where))) == levels
        outcomes = [_compared(pkg, _nested(levels, where), "decode_update") for pkg in packages]
        assert all(o == outcomes[0] for o in outcomes), (levels, outcomes)
        assert outcomes[0][0] == expected, outcomes[0]


#: Hostile updates each target must read alike: undeclared keys no identifier can hold, and
#: integers past a field's bounds (uint64's top past int64, a lenient field's, an item's).
EDGE_UPDATES = [
    '{"sessionUpdate":"session_info_update","title":"t","a\\u001ab":1}',
    '{"sessionUpdate":"session_info_update","q\\"k":1,"b\\\\s":2,"n\\u0000l":3,"":4}',
    '{"sessionUpdate":"session_info_update","_acp_extra":{"x":1},"message\\u005fid":5}',
    '{"sessionUpdate":"usage_update","used":18446744073709551616,"size":3}',
    '{"sessionUpdate":"usage_update","used":18446744073709551615,"size":3,"k\\n":[1]}',
    '{"sessionUpdate":"usage_update","used":-1,"size":3}',
    '{"sessionUpdate":"notice","severity":"info","title":18446744073709551616}',
    '{"sessionUpdate":"usage_update","used":1,"size":-18446744073709551617}',
    '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"resource_link",'
    '"name":"n","uri":"u","size":18446744073709551616}}',
    '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"resource_link",'
    '"name":"n","uri":"u","size":-1,"\\t":0}}',
    '{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/a",'
    '"line":4294967296}]}',
    '{"sessionUpdate":"tool_call_update","toolCallId":"t","locations":[{"path":"/a",'
    '"line":0}],"\\u2028":null}',
]


@pytest.mark.parametrize("key", ["v1", "v2"])
def test_targets_agree_on_odd_keys_and_out_of_range_values(
    make_package: GenerateFn, key: str
) -> None:
    """Each hostile update, alone and in a notification: one class, the same bytes, the same
    repairs (replacements included), or the same error, kind and path, on every target;
    and every odd key is kept."""
    corpus.require()
    path = corpus.newest(corpus.NEWEST[key])
    packages = {t: make_package(path, f"edges_{key}", target=t) for t in TARGETS}
    for update in EDGE_UPDATES:
        message = (
            '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
            f'"update":{update}}}}}'
        ).encode()
        for call, data in (("decode_update", update.encode()), ("decode_notification", message)):
            outcomes = {t: _compared(pkg, data, call) for t, pkg in packages.items()}
            assert len({repr(o) for o in outcomes.values()}) == 1, (data, outcomes)
            found = outcomes[TARGETS[0]]
            assert found[0] == "ok" or found[2] == "schema", found
            if found[0] == "ok":
                written = found[2]
                for name in _odd_keys(json.loads(update)):
                    assert json.dumps(name, ensure_ascii=False) + ":" in written, (name, found)


def _odd_keys(value: Any) -> list[str]:
    """The keys in `value`, at any depth, that no Python identifier could spell."""
    if isinstance(value, list):
        return [k for item in value for k in _odd_keys(item)]
    if not isinstance(value, dict):
        return []
    found = [k for k in value if not k.isidentifier()]
    return found + [k for item in value.values() for k in _odd_keys(item)]


def test_wide_integer_bounds_hold_outside_a_struct(
    make_package: GenerateFn, tmp_path: Path
) -> None:
    """uint64's top, past what msgspec can check, holds for a bare alias, an array of it
    and a field alike, on every target, and the error names the value itself."""
    schema = tmp_path / "wide.json"
    schema.write_text(
        json.dumps(
            {
                "$defs": {
                    "Big": {"type": "integer", "format": "uint64"},
                    "Bigs": {"type": "array", "items": {"$ref": "#/$defs/Big"}},
                    "Holder": {
                        "type": "object",
                        "properties": {"b": {"$ref": "#/$defs/Big"}},
                        "required": ["b"],
                    },
                }
            }
        )
    )
    packages = {t: make_package(schema, "wide_ints", target=t, take_all=True) for t in TARGETS}
    top = 2**64 - 1
    cases = [
        ("Big", f"{top}", "ok"),
        ("Big", f"{top + 1}", "$"),
        ("Big", "-1", "$"),
        ("Bigs", f"[1,{top + 1}]", "$[1]"),
        ("Holder", f'{{"b":{top + 1}}}', "$.b"),
        ("Holder", f'{{"b":{top}}}', "ok"),
    ]
    for name, data, where in cases:
        outcomes = {t: _compared(pkg, data.encode(), name) for t, pkg in packages.items()}
        assert len({repr(o) for o in outcomes.values()}) == 1, (name, data, outcomes)
        found = outcomes[TARGETS[0]]
        assert found[0] == "ok" if where == "ok" else found[3] == where, (name, data, found)


def test_two_packages_of_one_schema_in_one_process(make_package: GenerateFn) -> None:
    """Two msgspec packages of the newest v2 schema, imported side by side (as a user
    vendoring two copies would): each applies its own uint64 bound at the field, with the
    field's leniency. (``typing`` caches ``Annotated`` types by their metadata, so a
    marker compared by value would let the second package read the first one's.)"""
    corpus.require()
    path = corpus.newest(corpus.NEWEST["v2"])
    first = make_package(path, "twin_first")
    second = make_package(path, "twin_second", roots=("ResourceLink",))
    assert first is not second
    update = (
        '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":'
        '{"type":"resource_link","name":"n","uri":"u","size":18446744073709551616}}'
    )
    for pkg in (first, second):
        repairs: list[Any] = []
        decoded = pkg.decode_update(update, repairs)
        assert [(r.path, r.action) for r in repairs] == [("$.content.size", "defaulted")]
        assert b'"size"' not in pkg.encode(decoded)
