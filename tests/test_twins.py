"""msgspec's twin decoders (`_twin.py`) give exactly what the walker gives.

A message strict decoding refuses takes the general slow path the first time its
fault's spot is seen, and a twin decoder (one msgspec pass) from the second time on.
Both must give the same value, type for type, the same undeclared properties and the
same repairs as the plain walker over the parsed JSON; a message with a second fault
must still come out right; and a stream of ever new faults must build no twin and
keep the twins' memory bounded.
"""

from __future__ import annotations

import json
from importlib import import_module
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_codegen import naming
from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn
from tests.instances import Instances, dumps, notification_def
from tests.test_open_lossless import _replace, _spots, exact_json
from tests.test_repairs import CASES, SHORTCUT, _rows
from tests.test_schema_properties import PROPERTY, Drawn

SCHEMAS = ("v1", "v2-unstable", "own")


def _package(make_package: GenerateFn, key: str) -> tuple[ModuleType, dict[str, Any]]:
    if key == "own":
        path = OWN_SCHEMA
    else:
        corpus.require()
        path = corpus.newest(corpus.NEWEST[key])
    pkg = make_package(path, "twin_" + key.replace("-", "_"), take_all=True)
    return pkg, json.loads(path.read_text(encoding="utf-8"))


def _shape(value: Any, pkg: ModuleType) -> Any:
    """`value` as (class name, fields..., undeclared properties), all the way down: what
    must be the same whichever path decoded it."""
    if isinstance(value, msgspec.Struct):
        fields = tuple(_shape(getattr(value, f), pkg) for f in value.__struct_fields__)
        extra = pkg.extra_fields(value)
        return (type(value).__qualname__, type(value).__mro__[1].__qualname__, fields, extra)
    if isinstance(value, list):
        return [_shape(v, pkg) for v in value]
    if isinstance(value, dict):
        return {k: _shape(v, pkg) for k, v in value.items()}
    if isinstance(value, pkg._runtime.UnknownVariant):
        return (type(value).__name__, value.tag, value.raw)
    return (type(value).__name__, value)


class _Spy:
    """Counts the general slow path's parses of a whole message (the twins never parse)."""

    def __init__(self, pkg: ModuleType) -> None:
        self.pkg = pkg
        self.calls = 0
        self.real = pkg._runtime.parse_json

    def __enter__(self) -> _Spy:
        def counting(data: Any) -> Any:
            self.calls += 1
            return self.real(data)

        self.pkg._runtime.parse_json = counting
        return self

    def __exit__(self, *exc: object) -> None:
        self.pkg._runtime.parse_json = self.real


def _agree(pkg: ModuleType, data: bytes, cls: Any, rounds: int = 3) -> list[Any]:
    """Decode `data` as `cls` `rounds` times; each must equal the plain walk of it."""
    walk = import_module(f"{pkg.__name__}._walk")
    walker = walk.Walker(pkg._convert.MsgspecLeaves())
    plain: list[Any] = []
    expected = walker.convert(json.loads(data), cls, "$", plain)
    results = []
    for _ in range(rounds):
        repairs: list[Any] = []
        decoded = pkg.decode(data, cls, repairs=repairs)
        assert decoded == expected, data
        assert _shape(decoded, pkg) == _shape(expected, pkg), data
        assert _rows(repairs) == _rows(plain), data
        assert pkg.encode(decoded) == pkg.encode(expected), data
        results.append(decoded)
    return results


@pytest.mark.parametrize("key", SCHEMAS)
@PROPERTY
@given(data=st.data())
def test_twins_agree_with_the_walk(make_package: GenerateFn, key: str,
                                   data: st.DataObject) -> None:
    """Schema-valid params with undeclared properties at random levels and unknown tags
    and enum values injected: every decode, the general one and the twins' after it,
    equals the walk and re-encodes exactly."""
    pkg, document = _package(make_package, key)
    name = notification_def(document)
    assert name is not None
    params = Instances(document, Drawn(data, extras=True), max_depth=6).of_def(name)
    cls = getattr(pkg, naming.class_name(name))
    decoded = pkg.decode(dumps(params), cls)
    spots = _spots(params, decoded, (), pkg)
    if spots:
        chosen = data.draw(st.lists(st.sampled_from(spots), max_size=2, unique=True))
        for spot in sorted(chosen, key=len, reverse=True):
            params = _replace(params, spot, "_fuzz_future_value")
    payload = dumps(params)
    for decoded in _agree(pkg, payload, cls):
        assert exact_json(json.loads(pkg.encode(decoded)), params)


def _message(update: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update",
                       "params": {"sessionId": "s", "update": update}}).encode()


BENCH_FAULTS = [
    {"sessionUpdate": "_acme_tool_call_upd", "toolCallId": "t", "status": "in_progress"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "name": "read",
     "content": [{"type": "terminal", "terminalId": "x"}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": "not an object"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [{"type": "terminal", "terminalId": "x"}, {"type": "content"}]},
]


#: Faults inside a struct whose field type is a union holding a union
#: (``Annotated[Cost | None, ...] | Unset``): the twin's finishing walk must reach it, or the
#: raw property stayed in the struct and the lenient field's repair went unreported.
NESTED_FAULTS = [
    {"sessionUpdate": "usage_update", "used": 1, "size": 2,
     "cost": {"amount": "x", "currency": "USD"}},
    {"sessionUpdate": "usage_update", "used": 1, "size": 2,
     "cost": {"amount": 1.5, "currency": None}},
    {"sessionUpdate": "available_commands_update", "availableCommands": [
        {"name": "a", "description": "d", "input": {"hint": -1}}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": [
        {"type": "content", "content": {"type": "text", "text": 1.0}}]},
]

_TERMINAL = {"type": "terminal", "terminalId": "x"}

#: Faults in items of a skip-invalid array (``tool_call_update.content``), which a twin
#: reads as raw items: the item strict decoding failed on is not decoded again, and an
#: item is skipped without a walk only where the array's skipping is the innermost
#: leniency over its fault.
ITEM_FAULTS = [
    # the failing item: first, last, alone; and another bad item after it
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [{"type": "content"}, _TERMINAL]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [_TERMINAL, _TERMINAL, {"type": "diff", "path": 5, "newText": "n"}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "content": [7]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [{"type": "content"}, _TERMINAL, {"type": "terminal"}, None, _TERMINAL]},
    # faults the walker repairs inside the item rather than skipping it: an undeclared
    # property, an unknown content type, a lenient `_meta` of the wrong type
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [_TERMINAL, {**_TERMINAL, "x-new": [1, 2.5]}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [_TERMINAL, {"type": "hologram", "depth": 3}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [{"type": "content"}, {**_TERMINAL, "_meta": 5}]},
    # the same spot as the first case, in items of other content types
    {"sessionUpdate": "tool_call_update", "toolCallId": "t",
     "content": [{"type": "content", "content": {"type": "text"}}]},
    {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x",
     "content": [{"type": "content"}, _TERMINAL]},
]

#: (update, whether its fault is read by a twin from the second time on)
TABLE = [(u, False) for u, _, _ in CASES] + [(u, False) for u in SHORTCUT] + [
    (u, True) for u in BENCH_FAULTS] + [
    # (the first two: a bad value of a property no leniency covers, under a lenient one;
    # the twin reads the lenient one raw, so it never fails and parses nothing)
    (u, i < 2) for i, u in enumerate(NESTED_FAULTS)] + [(u, True) for u in ITEM_FAULTS]


@pytest.mark.parametrize(("update", "by_twin"), TABLE)
def test_notifications_agree_with_the_walk(make_package: GenerateFn, update: dict[str, Any],
                                           by_twin: bool) -> None:
    """Each fault of the repair table and the bench, decoded three times: every decode
    equals the walk of the params, with the same repairs; three of the bench's faults
    (one each) are read by a twin from the second time on, parsing nothing."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "twin_v1_notes")
    walk = import_module(f"{pkg.__name__}._walk")
    walker = walk.Walker(pkg._convert.MsgspecLeaves())
    data = _message(update)
    params = json.loads(data)["params"]
    plain: list[Any] = []
    expected = walker.convert(params, pkg.SessionNotification, "$.params", plain)
    for round_ in range(3):
        repairs: list[Any] = []
        with _Spy(pkg) as spy:
            decoded = pkg.decode_notification(data, repairs=repairs)
        assert decoded == expected and _shape(decoded, pkg) == _shape(expected, pkg)
        assert _rows(repairs) == _rows(plain)
        assert pkg.encode(decoded) == pkg.encode(expected)
        if round_ and by_twin:
            assert spy.calls == 0, "a fault seen before should take its twin"
        # (and without a repairs list, which the twins' closures skip building)
        unasked = pkg.decode_notification(data)
        assert _shape(unasked, pkg) == _shape(expected, pkg)


def test_a_second_fault_takes_the_general_path(make_package: GenerateFn) -> None:
    """The twin is built for the first fault; a message that has it and another fault
    elsewhere fails the twin and is read by the general path, still exactly."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "twin_v1_notes")
    first = {"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": 5}
    both = {**first, "content": [{"type": "terminal", "terminalId": "x"}, {"type": 1}],
            "name": "x"}
    for _ in range(2):
        pkg.decode_notification(_message(first))
    _agree(pkg, json.dumps({"sessionId": "s", "update": both}).encode(),
           pkg.SessionNotification)


def test_ever_new_faults_build_no_twin(make_package: GenerateFn) -> None:
    """A stream where each message brings a new undeclared property builds no twin (a
    spot must be seen twice) and remembers a bounded number of spots; recurring spots
    beyond the limit take the general path, and a stream cycling through more recurring
    spots than the limit builds no more twins."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "twin_v1_flood")
    twin = import_module(f"{pkg.__name__}._twin")
    twins = pkg.codec._ENVELOPE_TWINS
    for n in range(twin.SEEN + 500):
        update = {"sessionUpdate": "agent_message_chunk", f"x{n}": n,
                  "content": {"type": "text", "text": "t"}}
        decoded = pkg.decode_notification(_message(update))
        assert pkg.extra_fields(decoded.update) == {f"x{n}": n}
        assert len(twins._seen) <= twin.SEEN
    assert not twins._built
    for n in range(twin.KEPT + 10):
        update = {"sessionUpdate": "agent_message_chunk", f"y{n}": n,
                  "content": {"type": "text", "text": "t"}}
        for _ in range(2):
            decoded = pkg.decode_notification(_message(update))
            assert pkg.extra_fields(decoded.update) == {f"y{n}": n}
        assert len(twins._built) <= twin.KEPT
    assert len(twins._built) == twin.KEPT
    built = dict(twins._built)
    for n in range(3 * (twin.KEPT + 10)):
        update = {"sessionUpdate": "agent_message_chunk", f"y{n % (twin.KEPT + 10)}": n,
                  "content": {"type": "text", "text": "t"}}
        decoded = pkg.decode_notification(_message(update))
        assert pkg.extra_fields(decoded.update) == {f"y{n % (twin.KEPT + 10)}": n}
    assert twins._built == built  # the same twins: none rebuilt, none added


def test_threads_share_the_twins(make_package: GenerateFn) -> None:
    """Threads decoding many recurring faults at once, past the twins' limit, each get the
    walk's result: the twins' tables are shared, and a decode never depends on another."""
    from concurrent.futures import ThreadPoolExecutor

    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "twin_v1_threads")
    twin = import_module(f"{pkg.__name__}._twin")
    updates = [{"sessionUpdate": "agent_message_chunk", f"z{n % (twin.KEPT + 20)}": n,
                "content": {"type": "text", "text": "t"}} for n in range(3000)]

    def one(update: dict[str, Any]) -> bool:
        decoded = pkg.decode_notification(_message(update))
        extra = {k: v for k, v in update.items() if k.startswith("z")}
        return bool(pkg.extra_fields(decoded.update) == extra
                    and json.loads(pkg.encode(decoded.update)) == update)

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(one, updates))


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every scalar in `value`."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


def _with(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with the scalar at `path` replaced by `new`."""
    if not path:
        return new
    copied = dict(value) if isinstance(value, dict) else list(value)
    copied[path[0]] = _with(value[path[0]], path[1:], new)
    return copied


def test_every_wrong_scalar_of_the_stream_agrees_with_the_walk(make_package: GenerateFn) -> None:
    """One message of each update kind of the shared v1 stream, each scalar in turn made
    the wrong JSON kind (a string for a number, a number for anything else), null and an
    empty object: three
    decodes of each (the general path, then twins where one is built) equal the walk,
    with the same repairs, or all three are the same `DecodeError`."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "twin_v1_scalars")
    walk = import_module(f"{pkg.__name__}._walk")
    walker = walk.Walker(pkg._convert.MsgspecLeaves())
    firsts: dict[str, Any] = {}
    for line in corpus.STREAM_V1.read_bytes().splitlines():
        params = json.loads(line)["params"]
        firsts.setdefault(params["update"]["sessionUpdate"], params)
    checked = 0
    for params in firsts.values():
        for path in _leaves(params):
            if path[-1] in ("sessionUpdate", "type") or path == ("sessionId",):
                continue  # (a tag or the session: no repair can apply)
            scalar: Any = params
            for step in path:
                scalar = scalar[step]
            number = isinstance(scalar, int | float) and not isinstance(scalar, bool)
            for bad in ("x" if number else 1.5, None, {}):
                checked += _check_one(pkg, walker, _with(params, path, bad))
    assert checked > 50, checked  # (decoded ones; the rest were errors, checked alike)


def _check_one(pkg: ModuleType, walker: Any, faulty: dict[str, Any]) -> int:
    """Decode notification params `faulty` three times against the walk; 1 when they
    decoded, 0 when all were the walk's `DecodeError`."""
    data = json.dumps({"jsonrpc": "2.0", "method": "session/update",
                       "params": faulty}).encode()
    plain: list[Any] = []
    try:
        expected = walker.convert(faulty, pkg.SessionNotification, "$.params", plain)
    except pkg.DecodeError as exc:
        for _ in range(3):
            with pytest.raises(pkg.DecodeError) as raised:
                pkg.decode_notification(data)
            assert str(raised.value) == str(exc), data
        return 0
    for _ in range(3):
        repairs: list[Any] = []
        decoded = pkg.decode_notification(data, repairs=repairs)
        assert decoded == expected and _shape(decoded, pkg) == _shape(expected, pkg), data
        assert _rows(repairs) == _rows(plain), data
        assert pkg.encode(decoded) == pkg.encode(expected), data
    return 1
