"""Every target reads and writes numbers alike: the same bytes for every float, and the same
reading of a float where the schema declares an ``integer``.

The packages of the newest v1 and v2 schemas are generated on all three targets. For each
payload, each target gives the same outcome (`DecodeError` or a value), the same class,
the same bytes written back and the same repairs; and the expected ones:

- a float is written as msgspec writes it, the shortest text that reads back as the same
  double (``1e16``, ``1.5e-7``, ``0.00001``, ``-0.0``), wherever it is: a ``number``
  field, ``_meta``, a list inside a map; the text inside strings is never changed;
- a NaN or an infinity put into a decoded value is written as ``null``;
- an integral float below 2**53 in an ``integer`` field (``1.0``, ``1e2``, ``-0.0``)
  decodes to the Python int, is checked against the field's bounds as that int, is
  written back as an integer and is no repair; any other float there (``1.5``, ``1e20``,
  ``9007199254740993.0``) is refused, or defaulted where the field is lenient, alike on
  every target;
- a union with a ``number`` member keeps ``1.0`` a float, and an open integer enum takes
  ``5.0`` as its value 5.
"""

from __future__ import annotations

import json
import math
import random
import struct
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import corpus
from tests.conftest import TARGETS, GenerateFn

#: The schemas' newest revisions, and the tag of their usage and plan updates.
LINES = {"v1": ("usage_update", "plan"), "v2": ("usage_update", "plan_update")}


@pytest.fixture(scope="module")
def packages(make_package: GenerateFn) -> dict[str, dict[str, ModuleType]]:
    corpus.require()
    return {
        key: {
            t: make_package(
                corpus.newest(corpus.NEWEST[key]), f"numbers_{key}", target=t, take_all=True
            )
            for t in TARGETS
        }
        for key in LINES
    }


def _outcome(pkg: ModuleType, data: bytes, tp: str | None = None) -> tuple[Any, ...]:
    repairs: list[Any] = []
    try:
        if tp is None:
            value = pkg.decode_update(data, repairs)
        else:
            value = pkg.decode(data, getattr(pkg.models, tp), repairs)
    except pkg.DecodeError as exc:
        return ("error", exc.path, exc.message)
    found = tuple((r.path, r.action, repr(r.original)) for r in repairs)
    return ("ok", type(value).__name__, pkg.encode(value), found)


def _agreed(pkgs: dict[str, ModuleType], data: bytes, tp: str | None = None) -> tuple[Any, ...]:
    """The one outcome every target gives for `data`."""
    outcomes = {t: _outcome(pkg, data, tp) for t, pkg in pkgs.items()}
    assert len(set(outcomes.values())) == 1, (data, outcomes)
    return outcomes[TARGETS[0]]


def _usage(amount: str, meta: str = '{"n":1}', used: str = "1", size: str = "2") -> bytes:
    return (
        f'{{"sessionUpdate":"usage_update","used":{used},"size":{size},'
        f'"cost":{{"amount":{amount},"currency":"USD"}},"_meta":{meta}}}'
    ).encode()


def _same_double(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


# -- the bytes of floats ------------------------------------------------------------------


def _check_floats(pkgs: dict[str, ModuleType], values: list[float]) -> None:
    """`values` in a number field, in `_meta` and nested in its lists and maps: written
    alike by every target, as msgspec spells them, and read back as the same doubles."""
    texts = [msgspec.json.encode(x).decode() for x in values]
    listed = ",".join(texts)
    nested = ",".join(f'{{"k{i}":[{t}]}}' for i, t in enumerate(texts))
    meta = f'{{"all":[{listed}],"nested":[{nested}],"one":{texts[0]}}}'
    outcome = _agreed(pkgs, _usage(texts[0], meta))
    assert outcome[0] == "ok" and outcome[3] == (), outcome
    written = json.loads(outcome[2])
    assert outcome[2] == _usage(texts[0], meta)  # (msgspec's spelling, byte for byte)
    back = [written["cost"]["amount"], written["_meta"]["one"], *written["_meta"]["all"]]
    back += [d[f"k{i}"][0] for i, d in enumerate(written["_meta"]["nested"])]
    assert all(
        _same_double(a, b)
        for a, b in zip(back, [values[0], values[0], *values, *values], strict=True)
    )


#: Floats whose spelling each library picks its own way: around each switch between plain
#: digits and an exponent, the subnormals, the extremes, large integral floats.
SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    1.5,
    100.0,
    12345678.9,
    1e15,
    9999999999999998.0,
    1e16,
    -1e16,
    1e17,
    1e21,
    1e22,
    1e23,
    1.2345678901234568e20,
    1e100,
    1e308,
    -1e308,
    1.7976931348623157e308,
    1e-4,
    9.99e-5,
    1e-5,
    1.5e-5,
    -1.5e-5,
    2e-5,
    1e-6,
    1.5e-6,
    1.5e-7,
    1e-10,
    1e-100,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    5e-324,
    -5e-324,
    1e-323,
    2.0**53,
    2.0**53 + 2,
    2.0**63,
    2.0**64,
    0.30000000000000004,
    1 / 3,
]


@pytest.mark.parametrize("key", list(LINES))
def test_special_floats_are_written_alike(
    packages: dict[str, dict[str, ModuleType]], key: str
) -> None:
    _check_floats(packages[key], SPECIAL)
    assert _agreed(packages[key], _usage("1e+16"))[2] == _usage("1e16")
    assert _agreed(packages[key], _usage("1E-05"))[2] == _usage("0.00001")
    assert _agreed(packages[key], _usage("1.50e-07"))[2] == _usage("1.5e-7")
    assert _agreed(packages[key], _usage("-1e-400"))[2] == _usage("-0.0")


def _random_floats(seed: int, count: int) -> list[float]:
    """Random bit patterns (subnormals among them), random decimal texts and every power of
    ten a double holds."""
    rng = random.Random(seed)
    out = [float(f"1e{k}") for k in range(-323, 309)]
    while len(out) < count:
        bits = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        text = float(f"{rng.randint(1, 10 ** rng.randint(1, 17))}e{rng.randint(-340, 310)}")
        tiny = rng.getrandbits(52) * 5e-324
        out += [x for x in (bits, text, -text, tiny) if math.isfinite(x)]
    return out


@pytest.mark.parametrize("key", list(LINES))
def test_random_floats_are_written_alike(
    packages: dict[str, dict[str, ModuleType]], key: str
) -> None:
    values = _random_floats(20261204, 6000)
    for start in range(0, len(values), 500):
        _check_floats(packages[key], values[start : start + 500])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8))
def test_any_float_is_written_alike(
    packages: dict[str, dict[str, ModuleType]], values: list[float]
) -> None:
    _check_floats(packages["v1"], values)


@pytest.mark.parametrize("key", list(LINES))
def test_strings_that_look_like_floats_are_left_as_they_are(
    packages: dict[str, dict[str, ModuleType]], key: str
) -> None:
    """A post-pass over the written text must skip string contents, keys included, and
    escaped quotes and backslashes in them; and must run whenever one float needs it,
    whatever the strings hold (a ``+`` in code, say)."""
    strings = ["1e+16", "2e-05", "NaN", "-Infinity", 'q"1e+5', "b\\", 'b\\\\"1e+22', "e+ e-0"]
    strings += ["i+1", "line+1", "C++", "x = 2e+3 + 1"]
    for floats in ([], [1e16], [2e-05], [1.5e-07], [1e16, 2e-05, -1e-9], [0.5]):
        meta: dict[str, Any] = {s: [s, {s: s}] for s in strings}
        meta["n"] = floats
        text = msgspec.json.encode(meta).decode()
        for amount in ("1e300", "1.5"):
            outcome = _agreed(packages[key], _usage(amount, text))
            assert outcome[2] == _usage(amount, text)
            assert json.loads(outcome[2])["_meta"] == meta


@pytest.mark.parametrize("key", list(LINES))
def test_nan_and_infinity_are_written_as_null(
    packages: dict[str, dict[str, ModuleType]], key: str
) -> None:
    written = set()
    for pkg in packages[key].values():
        value = pkg.decode_update(_usage("1.5"))
        value.meta["odd"] = [math.nan, math.inf, -math.inf, {"x": math.nan}, "NaN"]
        written.add(pkg.encode(value))
        assert pkg.encode(math.nan) == b"null"
    assert written == {_usage("1.5", '{"n":1,"odd":[null,null,null,{"x":null},"NaN"]}')}


# -- integral floats in integer fields ----------------------------------------------------

#: (text in a uint64 field, what it decodes to or None when refused)
INTEGER_FIELD = [
    ("1.0", 1),
    ("1e2", 100),
    ("1E2", 100),
    ("100e-2", 1),
    ("-0.0", 0),
    ("0.0", 0),
    ("2.5e1", 25),
    ("9007199254740991.0", 2**53 - 1),
    ("1.5", None),
    ("0.5", None),
    ("-1.0", None),
    ("1e-7", None),
    ("9007199254740992.0", None),
    ("9007199254740993.0", None),
    ("1e19", None),
    ("1e20", None),
    ("1e300", None),
]


@pytest.mark.parametrize("key", list(LINES))
@pytest.mark.parametrize(("text", "expected"), INTEGER_FIELD)
def test_integral_floats_in_an_integer_field(
    packages: dict[str, dict[str, ModuleType]], key: str, text: str, expected: int | None
) -> None:
    """``used`` and ``size`` are uint64: an integral float decodes to the int and is written
    back as one, with no repair, whether the strict pass or the lenient pass reads it (a
    bad ``_meta`` sends the payload to the lenient pass)."""
    for meta, repairs in (('{"n":1}', ()), ("5", (("$._meta", "defaulted", "5"),))):
        for field in ("used", "size"):
            numbers = {"used": "1", "size": "2", field: text}
            outcome = _agreed(packages[key], _usage("1.5", meta, **numbers))
            if expected is None:
                message = "invalid 'usage_update' (UsageUpdate): Expected `int`, got `float`"
                assert outcome == ("error", f"$.{field}", message), outcome
                continue
            assert outcome[0] == "ok" and outcome[3] == repairs, outcome
            written = json.loads(outcome[2])[field]
            assert written == expected and type(written) is int, outcome


def test_a_decoded_integral_float_is_an_int_on_every_target(
    packages: dict[str, dict[str, ModuleType]],
) -> None:
    for pkg in packages["v1"].values():
        value = pkg.decode_update(_usage("1.5", used="7.0", size="-0.0"))
        assert (value.used, value.size) == (7, 0)
        assert type(value.used) is int and type(value.size) is int
        assert type(value.cost.amount) is float


def test_a_number_field_keeps_its_float(packages: dict[str, dict[str, ModuleType]]) -> None:
    """``amount`` is a ``number``: ``1.0`` stays a float and is written ``1.0``; ``1`` stays
    an int, on the strict and the lenient pass alike."""
    for meta in ('{"n":1}', "5"):
        for text in ("1.0", "1", "-0.0", "1e2"):
            outcome = _agreed(packages["v1"], _usage(text, meta))
            assert outcome[0] == "ok", outcome
            amount = json.loads(outcome[2])["cost"]["amount"]
            assert type(amount) is type(json.loads(text)) and amount == json.loads(text)


def _location(line: str) -> bytes:
    return (
        '{"sessionUpdate":"tool_call","toolCallId":"t","title":"x",'
        f'"locations":[{{"path":"/a","line":{line}}}]}}'
    ).encode()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.0", 3),
        ("3", 3),
        ("3.5", None),
        ("1e20", None),
        ("-1.0", None),
        ("4294967296.0", None),
    ],
)
def test_a_lenient_integer_field_defaults_what_is_not_an_integer(
    packages: dict[str, dict[str, ModuleType]], text: str, expected: int | None
) -> None:
    """v1's ``ToolCallLocation.line`` (uint32, default on error): an integral float within
    range is the line, any other float is defaulted, with the same repair everywhere."""
    outcome = _agreed(packages["v1"], _location(text))
    assert outcome[0] == "ok", outcome
    location = json.loads(outcome[2])["locations"][0]
    if expected is None:
        assert "line" not in location
        assert outcome[3] == (("$.locations[0].line", "defaulted", repr(json.loads(text))),)
    else:
        assert location["line"] == expected and outcome[3] == ()


@pytest.mark.parametrize(("key", "tag"), list(LINES.items()))
def test_plan_entries_with_numbers(
    packages: dict[str, dict[str, ModuleType]], key: str, tag: tuple[str, str]
) -> None:
    """A plan's entries carry numbers only in ``_meta``: kept as they are, floats spelled
    as msgspec spells them."""
    entry = (
        '{"content":"c","priority":"high","status":"pending",'
        '"_meta":{"weight":1e+16,"step":1.0,"ratio":1.5e-07,"n":3}}'
    )
    entries = f'"entries":[{entry},{entry}]'
    if key == "v1":
        body = entries
    else:  # (v2 holds them in a plan, its content tagged ``items``)
        body = f'"plan":{{"type":"items","planId":"p",{entries}}}'
    data = f'{{"sessionUpdate":"{tag[1]}",{body}}}'.encode()
    outcome = _agreed(packages[key], data)
    assert outcome[0] == "ok", outcome
    written = b'"_meta":{"weight":1e16,"step":1.0,"ratio":1.5e-7,"n":3}'
    assert outcome[2].count(written) == 2, outcome


def test_a_union_with_a_number_member_keeps_the_float(
    packages: dict[str, dict[str, ModuleType]],
) -> None:
    """``ElicitationContentValue`` is string | integer | number | boolean | strings: ``1.0``
    is the number (a float, written ``1.0``), ``1`` the integer; in a request id
    (integer | string | null) ``1.0`` can only be the integer."""
    for value, written in (("1.0", b"1.0"), ("1", b"1"), ("1e+16", b"1e16"), ("1.5", b"1.5")):
        data = f'{{"action":"accept","content":{{"a":{value}}}}}'.encode()
        outcome = _agreed(packages["v1"], data, "ElicitationAcceptAction")
        assert outcome[0] == "ok", outcome
        assert outcome[2] == b'{"action":"accept","content":{"a":' + written + b"}}"
    for value, written in (("1.0", b"1"), ("7", b"7"), ('"7"', b'"7"'), ("null", b"null")):
        data = b'{"requestId":' + value.encode() + b"}"
        outcome = _agreed(packages["v1"], data, "CancelRequestNotification")
        assert outcome[:3] == ("ok", "CancelRequestNotification", b'{"requestId":' + written + b"}")
    refused = _agreed(packages["v1"], b'{"requestId":1.5}', "CancelRequestNotification")
    assert refused[:2] == ("error", "$.requestId"), refused


def _resource_link(size: str) -> bytes:
    return (
        '{"sessionUpdate":"agent_message_chunk","messageId":"m","content":'
        f'{{"type":"resource_link","name":"n","uri":"file:///a","size":{size}}}}}'
    ).encode()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1e20", None), ("-1e20", None), ("9.2e18", None), ("1e15", 10**15), ("-4.0", -4)],
)
def test_an_int64_field_takes_only_the_floats_it_holds_exactly(
    packages: dict[str, dict[str, ModuleType]], text: str, expected: int | None
) -> None:
    """v1's ``ResourceLink.size`` (int64, default on error): ``1e20`` is beyond int64 and
    ``9.2e18`` beyond 2**53, so both are defaulted, with the same repair everywhere."""
    outcome = _agreed(packages["v1"], _resource_link(text))
    assert outcome[0] == "ok", outcome
    content = json.loads(outcome[2])["content"]
    if expected is None:
        assert "size" not in content
        assert outcome[3] == (("$.content.size", "defaulted", repr(json.loads(text))),)
    else:
        assert content["size"] == expected and type(content["size"]) is int
        assert outcome[3] == ()


@pytest.mark.parametrize(
    ("text", "expected"), [("1.0", 1), ("7e0", 7), ("0.0", None), ("-0.0", None), ("1.5", None)]
)
def test_an_integral_float_meets_the_fields_minimum(
    packages: dict[str, dict[str, ModuleType]], text: str, expected: int | None
) -> None:
    """v2's ``ToolCallLocation.line`` has ``minimum: 1``: the int an integral float reads as
    is checked against it, and one below it is defaulted like any other bad value."""
    data = (
        '{"sessionUpdate":"tool_call_update","toolCallId":"t",'
        f'"locations":[{{"path":"/a","line":{text}}}]}}'
    ).encode()
    outcome = _agreed(packages["v2"], data)
    assert outcome[0] == "ok", outcome
    location = json.loads(outcome[2])["locations"][0]
    if expected is None:
        assert "line" not in location
        assert outcome[3] == (("$.locations[0].line", "defaulted", repr(json.loads(text))),)
    else:
        assert location["line"] == expected and type(location["line"]) is int
        assert outcome[3] == ()


@pytest.mark.parametrize(("text", "expected"), [("-32700.0", -32700), ("5.0", 5), ("5.5", None)])
def test_an_open_integer_enum_takes_an_integral_float(
    packages: dict[str, dict[str, ModuleType]], text: str, expected: int | None
) -> None:
    """``ErrorCode`` is an open integer enum: ``-32700.0`` is its parse-error member and
    ``5.0`` the unlisted code 5, both written back as integers."""
    data = f'{{"code":{text},"message":"m"}}'.encode()
    outcome = _agreed(packages["v1"], data, "Error")
    if expected is None:
        assert outcome[:2] == ("error", "$.code"), outcome
    else:
        assert outcome[:3] == ("ok", "Error", f'{{"code":{expected},"message":"m"}}'.encode())
