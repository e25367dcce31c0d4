"""The leading twin (msgspec's `_lead.py`): while one fault repeats, its twin decoder
reads messages before strict decoding does.

It must change nothing but speed: every message, with the fault or without it, decodes
to what the package gives without a lead, type for type, with the same repairs; a
message the lead cannot read (another fault, a request, bad JSON) still gets what it
gets without a lead; and the lead steps down when its fault stops coming, so a stream
that mixes faults among other messages pays for a few messages per lead, no more.
"""

from __future__ import annotations

import json
import zlib
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import GenerateFn
from tests.instances import Instances, Variant, envelope, notification_def, union_size
from tests.mutations import Mutator
from tests.test_repairs import _rows
from tests.test_twins import (
    _TERMINAL,
    BENCH_FAULTS,
    ITEM_FAULTS,
    NESTED_FAULTS,
    _message,
    _shape,
)

#: Faults a lead is made for: the bench's four (an unknown update kind, an undeclared
#: property, a `_meta` of the wrong type, a bad item), bad values under a lenient
#: property, an item missing its property, an item of the wrong kind, a required lenient
#: array of the wrong kind and an enum value of the wrong kind.
LEAD_FAULTS = [
    *BENCH_FAULTS,
    *NESTED_FAULTS[:2],
    ITEM_FAULTS[0],
    ITEM_FAULTS[2],
    {"sessionUpdate": "available_commands_update", "availableCommands": "oops"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "kind": 5},
]


def _package(make_package: GenerateFn, name: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), name)


def _leading(pkg: ModuleType) -> bool:
    return pkg.codec._ENVELOPE_FAST is not pkg.codec._ENVELOPE_STRICT


def _walked(pkg: ModuleType, data: bytes) -> tuple[Any, list[Any]]:
    """What the plain walk gives for the params of notification `data`, and its repairs."""
    walk = import_module(f"{pkg.__name__}._walk")
    walker = walk.Walker(pkg._convert.MsgspecLeaves())
    repairs: list[Any] = []
    params = json.loads(data)["params"]
    return walker.convert(params, pkg.SessionNotification, "$.params", repairs), repairs


def _check(pkg: ModuleType, data: bytes, expected: Any, expected_repairs: list[Any]) -> None:
    repairs: list[Any] = []
    decoded = pkg.decode_notification(data, repairs=repairs)
    assert _shape(decoded, pkg) == _shape(expected, pkg), data
    assert decoded == expected, data
    assert _rows(repairs) == _rows(expected_repairs), data
    assert pkg.encode(decoded) == pkg.encode(expected), data


def _promote(pkg: ModuleType, data: bytes) -> None:
    """Decode `data` until its twin leads (it must, within the longest run a lead needs)."""
    lead = import_module(f"{pkg.__name__}._lead")
    for _ in range(lead.NEED_MOST + 1):  # (seen once, then read by its twin in a row)
        pkg.decode_notification(data)
        if _leading(pkg):
            return
    raise AssertionError("no lead")


def _stream(limit: int) -> list[bytes]:
    lines = corpus.STREAM_V1.read_bytes().splitlines()
    kinds: dict[bytes, bytes] = {}
    for line in lines:  # (one of each update kind first, then the stream as it comes)
        kinds.setdefault(json.loads(line)["params"]["update"]["sessionUpdate"].encode(), line)
    return [*kinds.values(), *lines[:limit]]


@pytest.mark.parametrize("update", LEAD_FAULTS)
def test_a_lead_reads_every_message_as_without_it(make_package: GenerateFn,
                                                  update: dict[str, Any]) -> None:
    """With a lead for one fault, the strict stream's messages (every update kind), with
    that fault twice after each (so that even the dearest lead stays), each decode
    exactly as strict decoding or the walk gives them, and the lead reads them all."""
    pkg = _package(make_package, "lead_v1_every")
    pkg.codec._ENVELOPE_LEAD.step_down()
    faulty = _message(update)
    expected, expected_repairs = _walked(pkg, faulty)
    _promote(pkg, faulty)
    lead = pkg.codec._ENVELOPE_LEAD
    finished = []
    real = lead.finish

    def counting(root: Any, repairs: Any) -> Any:
        finished.append(1)
        return real(root, repairs)

    lead.finish = counting
    try:
        lines = _stream(300)
        for n, line in enumerate(lines):
            _check(pkg, line, pkg.codec._ENVELOPE_STRICT(line).params, [])
            for _ in range(2):
                _check(pkg, faulty, expected, expected_repairs)
            assert _leading(pkg), n
    finally:
        del lead.finish
    assert len(finished) == 3 * len(lines)


@pytest.mark.parametrize("update", LEAD_FAULTS)
def test_a_lead_gives_way_to_any_other_message(make_package: GenerateFn,
                                               update: dict[str, Any]) -> None:
    """A message the lead cannot read gets what it gets without a lead: another fault is
    read right; a bad value no leniency covers, a request, bad JSON, a lone surrogate
    and a number too large are each a `DecodeError`."""
    pkg = _package(make_package, "lead_v1_others")
    faulty = _message(update)
    others = [
        {"sessionUpdate": "plan", "entries": [{"content": "c", "priority": "high",
                                               "status": "pending", "x-more": [1, 2.5]}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t",
         "content": [_TERMINAL, {"type": "content", "content": {"type": "mystery", "n": 1}}]},
        ITEM_FAULTS[3],  # (several bad items, the first as in the item faults above)
    ]
    for other in others:
        pkg.codec._ENVELOPE_LEAD.step_down()
        _promote(pkg, faulty)
        data = _message(other)
        _check(pkg, data, *_walked(pkg, data))
    bad = [
        _message({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 5}}),
        json.dumps({**json.loads(faulty), "id": 7}).encode(),
        faulty[:-1],
        faulty.replace(b'"sessionId":"s"', b'"sessionId":"\\ud800"').replace(
            b'"sessionId": "s"', b'"sessionId": "\\ud800"'),
        faulty.replace(b'"sessionId": "s"', b'"sessionId": 1e400'),
    ]
    for data in bad:
        pkg.codec._ENVELOPE_LEAD.step_down()
        _promote(pkg, faulty)
        with pytest.raises(pkg.DecodeError):
            pkg.decode_notification(data)
    pkg.codec._ENVELOPE_LEAD.step_down()
    _promote(pkg, faulty)
    _check(pkg, faulty, *_walked(pkg, faulty))


def test_a_lead_steps_down_when_its_fault_stops(make_package: GenerateFn) -> None:
    """A lead steps down after `CLEAN_MOST` messages in a row without its fault, and at a
    message it cannot read; one that read fewer faults than the refused messages in a
    row it waited for doubles the run the next needs (up to `NEED_MOST`), and one that
    read as many brings that back to `NEED_LEAST`."""
    pkg = _package(make_package, "lead_v1_steps")
    lead_module = import_module(f"{pkg.__name__}._lead")
    faulty = _message(BENCH_FAULTS[1])
    clean = _stream(0)[0]
    _promote(pkg, faulty)
    need = lead_module.NEED_LEAST
    seen = []
    for _ in range(8):  # leads that meet no fault: each needs twice the run before it
        for n in range(lead_module.CLEAN_MOST):
            assert _leading(pkg), n
            pkg.decode_notification(clean)
        assert not _leading(pkg)
        need = min(need * 2, lead_module.NEED_MOST)
        seen.append(need)
        for n in range(need):
            assert not _leading(pkg), n
            pkg.decode_notification(faulty)
        assert _leading(pkg)
    assert seen[-1] == lead_module.NEED_MOST
    for _ in range(lead_module.NEED_MOST - 1):  # (one fewer than it waited for)
        pkg.decode_notification(faulty)
    pkg.decode_notification(_message(BENCH_FAULTS[0]))  # (another fault: it steps down)
    assert not _leading(pkg)
    for n in range(lead_module.NEED_MOST):
        assert not _leading(pkg), n
        pkg.decode_notification(faulty)
    assert _leading(pkg)
    for _ in range(lead_module.NEED_MOST):  # (as many as it waited for)
        pkg.decode_notification(faulty)
    for _ in range(lead_module.CLEAN_MOST):
        pkg.decode_notification(clean)
    assert not _leading(pkg)
    for _ in range(lead_module.NEED_LEAST):
        pkg.decode_notification(faulty)
    assert _leading(pkg)


def test_relaxed_items_come_back_as_their_own_class(make_package: GenerateFn) -> None:
    """A lead for items that arrive without their required property reads them in its
    one pass: the good items of the same class are that class, not the relaxed one, and
    the bad ones are skipped and reported with the item as it arrived (integers stay
    integers), as the walk reports them."""
    pkg = _package(make_package, "lead_v1_relaxed")
    good = {"type": "content", "content": {"type": "text", "text": "t", "_meta": {"n": 1}}}
    missing = {"type": "content", "_meta": {"big": 2**60, "f": 1.5}}
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "t",
              "content": [good, missing, _TERMINAL, missing, good]}
    data = _message(update)
    _promote(pkg, data)
    expected, expected_repairs = _walked(pkg, data)
    assert [r.original for r in expected_repairs] == [missing, missing]
    for _ in range(3):
        _check(pkg, data, expected, expected_repairs)
    decoded = pkg.decode_notification(data)
    kinds = [type(item) for item in decoded.update.content]
    assert kinds == [type(expected.update.content[0]), type(expected.update.content[1]),
                     type(expected.update.content[2])]
    assert kinds[0] is getattr(pkg.models, kinds[0].__name__)


def test_threads_share_a_lead(make_package: GenerateFn) -> None:
    """Threads decoding faults of two kinds among clean messages, so leads come and go
    while others decode, each get what one thread without a lead gets."""
    pkg = _package(make_package, "lead_v1_threads")
    reference = _package(make_package, "lead_v1_threads_ref")
    reference.codec._ENVELOPE_LEAD._need = 10**9  # (never leads)
    clean = _stream(40)
    first, second = _message(BENCH_FAULTS[1]), _message(BENCH_FAULTS[2])
    messages = []
    for n, line in enumerate(clean * 10):
        messages.append(line)
        messages.append(first if (n // 7) % 2 else second)
    expected = [_shape(reference.decode_notification(m), reference) for m in messages]
    assert not _leading(reference)

    def one(n: int) -> bool:
        return bool(_shape(pkg.decode_notification(messages[n]), pkg) == expected[n])

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(pool.map(one, range(len(messages))))


def _outcome(pkg: ModuleType, data: bytes) -> Any:
    """What decoding `data` gives: its shape and repairs, or the error's type."""
    repairs: list[Any] = []
    try:
        decoded = pkg.decode_notification(data, repairs=repairs)
    except pkg.DecodeError:
        return "DecodeError"
    return _shape(decoded, pkg), _rows(repairs), pkg.encode(decoded)


@pytest.mark.parametrize("update", LEAD_FAULTS)
def test_mutated_payloads_decode_as_without_a_lead(make_package: GenerateFn,
                                                   update: dict[str, Any]) -> None:
    """Mutated notifications of every update kind (the payload fuzz's mutations), each
    decoded while a lead for one fault leads (its back-off undone before each): each
    decodes to what a package that never leads gives, or both refuse it."""
    pkg = _package(make_package, "lead_v1_fuzz")
    reference = _package(make_package, "lead_v1_fuzz_ref")
    reference.codec._ENVELOPE_LEAD._need = 10**9  # (never leads)
    pkg.codec._ENVELOPE_LEAD.step_down()
    document = json.loads(corpus.newest(corpus.NEWEST["v1"]).read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    seeds = [envelope(Instances(document, Variant(variant, full)).of_def(name))
             for variant in range(union_size(document, "SessionUpdate"))
             for full in (True, False)]
    mutator = Mutator(zlib.crc32(json.dumps(update).encode()), sorted(pkg.SESSION_UPDATE_VARIANTS))
    faulty = _message(update)
    lead = pkg.codec._ENVELOPE_LEAD
    for n in range(600):
        data = mutator.mutate(seeds[n % len(seeds)])
        lead._need = import_module(f"{pkg.__name__}._lead").NEED_LEAST
        _promote(pkg, faulty)
        assert _outcome(pkg, data) == _outcome(reference, data), data


#: Messages with two equal keys in one object, the earlier bad and the later good (or bad
#: otherwise): strict decoding names the earlier, and every reader holds the later.
DUPLICATE_KEYS = [
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","_meta":-0.0,'
    b'"update":{"sessionUpdate":"current_mode_update","currentModeId":"m"},'
    b'"_meta":{"k":null}}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
    b'{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"content"}],'
    b'"content":[{"type":"terminal","terminalId":"x"}]}}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
    b'{"sessionUpdate":"available_commands_update","availableCommands":"oops",'
    b'"availableCommands":[{"name":"a","description":5},{"name":"b","description":"d"}]}}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
    b'{"sessionUpdate":"tool_call_update","toolCallId":"t","_meta":"x","_meta":[1]}}}',
]


@pytest.mark.parametrize("data", DUPLICATE_KEYS)
def test_two_equal_keys_read_as_the_walk_reads_them(make_package: GenerateFn,
                                                     data: bytes) -> None:
    """Where strict decoding names the earlier of two equal keys, the general path, the
    twin and the lead all read the later, as the walk does: a good value is kept, not
    repaired, and a bad one is repaired as the walk repairs it."""
    pkg = _package(make_package, "lead_v1_duplicates")
    pkg.codec._ENVELOPE_LEAD.step_down()
    expected, expected_repairs = _walked(pkg, data)
    for _ in range(6):  # (the general path, then the twin, then the lead)
        _check(pkg, data, expected, expected_repairs)


def test_leads_cost_bounded_memory(make_package: GenerateFn) -> None:
    """A stream that brings ever new recurring faults makes a lead of each twin it can,
    and no more: what leads are built from is kept per twin, and twins are bounded."""
    pkg = _package(make_package, "lead_v1_bounded")
    twin = import_module(f"{pkg.__name__}._twin")
    lead = pkg.codec._ENVELOPE_LEAD
    promoted = 0
    for n in range(twin.KEPT + 20):
        data = _message({"sessionUpdate": "agent_message_chunk", f"x-{n}": n,
                         "content": {"type": "text", "text": "t"}})
        for _ in range(8):  # (enough to pay for its lead, so the next waits no longer)
            decoded = pkg.decode_notification(data)
            assert pkg.extra_fields(decoded.update) == {f"x-{n}": n}
        promoted += _leading(pkg)
    assert promoted == twin.KEPT  # (past the twins' bound, no twin, so no lead)
    assert len(lead._made) == twin.KEPT and len(lead._finishing) == twin.KEPT


def test_a_lead_stays_only_where_it_pays(make_package: GenerateFn) -> None:
    """With its fault in every other message, a lead whose clean messages cost little
    (a `_meta` read raw) stays; one that reads the union by its marker (an unknown
    kind), where a clean message costs more than a fault saves, steps down and backs
    off."""
    pkg = _package(make_package, "lead_v1_pays")
    lead_module = import_module(f"{pkg.__name__}._lead")
    clean = _stream(0)
    for update, stays in ((BENCH_FAULTS[2], True), (BENCH_FAULTS[0], False)):
        pkg.codec._ENVELOPE_LEAD.step_down()
        pkg.codec._ENVELOPE_LEAD._need = lead_module.NEED_LEAST
        faulty = _message(update)
        _promote(pkg, faulty)
        led = []
        for n in range(300):
            pkg.decode_notification(clean[n % len(clean)])
            pkg.decode_notification(faulty)
            led.append(_leading(pkg))
        if stays:
            assert all(led)
        else:  # (each try waits for twice the run of the one before, up to NEED_MOST)
            assert sum(led[150:]) < 0.2 * 150 and sum(led[150:]) < sum(led[:150]), led
