"""`peek`: where a JSON-RPC message goes, read without building its body.

- **behaviour**: a table of messages and the `Route` each gives, and an error table of
  text that is not a message, on every target;
- **agreement**: on every message of the two benchmark streams and of the recorded
  transcripts, `peek` says what `decode_notification` (or, for other messages, the
  parsed JSON) says;
- **differential**: on mutated payloads of the newest v2 schema, the three targets give
  the same route or all refuse, but for text msgspec skips unchecked (see `UNCHECKED`).

The 100,000-payload fuzz (tests/test_fuzz_payloads.py) checks `peek` against
`decode_notification` on every mutated notification too, and tests/test_versions.py
that a package of several versions has one `peek`, at its top.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import OWN_SCHEMA, TARGETS, GenerateFn
from tests.instances import Instances, Variant, envelope, notification_def, union_size
from tests.mutations import Mutator

REPO = Path(__file__).resolve().parent.parent
UNSET = "<unset>"
#: Message text -> (method, id, session ID, kind), `UNSET` where the message has none.
ROUTES: list[tuple[bytes | str, tuple[Any, Any, Any, Any]]] = [
    (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",'
        b'"update":{"sessionUpdate":"plan","entries":[]}}}',
        ("session/update", UNSET, "s1", "plan"),
    ),
    (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",'
        '"update":{"sessionUpdate":"plan","entries":[]}}}',
        ("session/update", UNSET, "s1", "plan"),
    ),
    # The order of members does not matter, nor what else the message holds.
    (
        b'{"params":{"update":{"x":[1,{"y":2}],"sessionUpdate":"from_the_future"},'
        b'"sessionId":"s2","_meta":{"a":1}},"method":"session/update","jsonrpc":"2.0"}',
        ("session/update", UNSET, "s2", "from_the_future"),
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1",'
        b'"prompt":[]}}',
        ("session/prompt", 7, "s1", UNSET),
    ),
    (
        b'{"jsonrpc":"2.0","id":"r-1","result":{"stopReason":"end_turn"}}',
        (UNSET, "r-1", UNSET, UNSET),
    ),
    (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}', (UNSET, None, UNSET, UNSET)),
    (b"{}", (UNSET, UNSET, UNSET, UNSET)),
    # Members of unusual types are kept as they are.
    (b'{"method":7,"id":2.5,"params":[1,2]}', (7, 2.5, UNSET, UNSET)),
    (b'{"method":"m","id":true,"params":null}', ("m", True, UNSET, UNSET)),
    (b'{"method":"m","id":18446744073709551616}', ("m", 2**64, UNSET, UNSET)),
    (b'{"method":"m","params":{"sessionId":5,"update":"text"}}', ("m", UNSET, 5, UNSET)),
    (b'{"method":"m","params":{"update":{"sessionUpdate":["a"]}}}', ("m", UNSET, UNSET, ["a"])),
    (b'{"method":null}', (None, UNSET, UNSET, UNSET)),
    (b'{"method":"m\\u00e9\\n"}', ("m\u00e9\n", UNSET, UNSET, UNSET)),
    ('{"method":"caf\u00e9"}'.encode(), ("caf\u00e9", UNSET, UNSET, UNSET)),
]
#: Text that is not a message -> the start of the error and its path.
REFUSED: list[tuple[bytes | str, str, str]] = [
    (b"[1, 2]", "Expected `object`, got `array`", "$"),
    (b'"session/update"', "Expected `object`, got `str`", "$"),
    (b"17", "Expected `object`, got `int`", "$"),
    (b"null", "Expected `object`, got `null`", "$"),
    (b"", "invalid JSON", ""),
    (b'{"method":', "invalid JSON", ""),
    (b'{"method":"m"} trailing', "invalid JSON", ""),
    (b'{"method":"m","x":NaN}', "invalid JSON", ""),
    (b'{"method":"m","x":"\\ud800"}', "invalid JSON", ""),
    (b'{"method":"m","x":"\\udc00"}', "invalid JSON", ""),
    ('{"method":"m","x":"\ud800"}', "invalid JSON: text is not valid Unicode", ""),
    (b'{"method":"\xff"}', "invalid JSON", ""),
    (b'{"method":"m","x":' + b"[" * 20000 + b"]" * 20000 + b"}", "", ""),
]
#: Text a whole decode refuses in a part `peek` skips: the targets that parse the whole
#: text refuse it, msgspec, which only skips it, routes it (see `peek`'s docstring).
UNCHECKED: list[bytes] = [
    b'{"method":"m","x":"\xff"}',
    b'{"method":"m","x":1e400}',
    b'{"method":"m","x":' + b"[" * 250 + b"]" * 250 + b"}",
]


def _route(pkg: ModuleType, data: bytes | str) -> tuple[Any, Any, Any, Any]:
    route = pkg.peek(data)
    assert isinstance(route, pkg.Route)
    parts = (route.method, route.id, route.session_id, route.kind)
    return tuple(UNSET if part is pkg.UNSET else part for part in parts)  # type: ignore[return-value]


def _outcome(pkg: ModuleType, data: bytes | str) -> Any:
    try:
        return _route(pkg, data)
    except pkg.DecodeError as exc:  # (text that is not JSON is worded by each parser)
        return ("DecodeError", exc.kind, exc.path, exc.message if exc.kind == "schema" else "")


@pytest.fixture(scope="module")
def own(make_package: GenerateFn, target: str) -> ModuleType:
    return make_package(OWN_SCHEMA, "peek_own", target=target)


@pytest.mark.parametrize(("data", "expected"), ROUTES, ids=range(len(ROUTES)))
def test_peek_reads_the_four_members(own: ModuleType, data: bytes | str, expected: Any) -> None:
    assert _route(own, data) == expected


@pytest.mark.parametrize(("data", "message", "path"), REFUSED, ids=range(len(REFUSED)))
def test_peek_refuses_text_that_is_not_a_message(
    own: ModuleType, data: bytes | str, message: str, path: str
) -> None:
    with pytest.raises(own.DecodeError) as caught:
        own.peek(data)
    assert caught.value.message.startswith(message), caught.value.message
    assert caught.value.path == path or not message  # (deep nesting: "$" or the parser's "")


@pytest.mark.parametrize("data", UNCHECKED, ids=range(len(UNCHECKED)))
def test_what_peek_skips_it_checks_only_on_targets_that_parse_it(
    own: ModuleType, target: str, data: bytes
) -> None:
    if target == "msgspec":
        assert _route(own, data) == ("m", UNSET, UNSET, UNSET)
    else:
        with pytest.raises(own.DecodeError):
            own.peek(data)
    with pytest.raises(own.DecodeError):  # a whole decode refuses it on every target
        own.decode(data, own.UpdateSessionNotification)


def test_a_route_is_a_small_immutable_record(own: ModuleType) -> None:
    route = own.peek(b'{"method":"m","id":1}')
    assert route == own.peek(b'{"id":1,"method":"m"}')
    assert route != own.peek(b'{"method":"m","id":2}')
    assert hash(route) == hash(own.peek(b'{"id":1,"method":"m"}'))
    assert repr(route).startswith("Route(method='m', id=1, session_id=")
    with pytest.raises(AttributeError):
        route.method = "other"
    assert own.codec.peek is own.peek and own.codec.Route is own.Route


def _check_stream(pkg: ModuleType, lines: list[bytes]) -> int:
    """Every line `decode_notification` accepts routes to what it decoded; returns how many."""
    accepted = 0
    for line in lines:
        try:
            params = pkg.decode_notification(line)
        except pkg.DecodeError:
            continue
        accepted += 1
        update = json.loads(line)["params"]["update"]
        expected = ("session/update", UNSET, params.session_id, update["sessionUpdate"])
        assert _route(pkg, line) == expected, line[:300]
    return accepted


def test_peek_agrees_with_decode_notification_on_the_v2_stream(own: ModuleType) -> None:
    lines = (REPO / "bench" / "stream_v2.jsonl").read_bytes().splitlines()
    assert _check_stream(own, lines) == len(lines)


def test_peek_agrees_with_decode_notification_on_the_v1_stream(
    make_package: GenerateFn, target: str
) -> None:
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "peek_v1", target=target, take_all=True)
    lines = (corpus.SHARED / "bench" / "stream_v1.jsonl").read_bytes().splitlines()
    assert _check_stream(pkg, lines) == len(lines)


def test_peek_reads_every_recorded_message(make_package: GenerateFn, target: str) -> None:
    """The recorded traffic of real agents: requests, responses and notifications."""
    corpus.require()
    pkg = make_package(corpus.newest(corpus.NEWEST["v1"]), "peek_v1", target=target, take_all=True)
    seen: set[str] = set()
    for path in sorted((REPO / "tests" / "transcripts").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            message = record["message"] if "direction" in record else record  # (both forms)
            params = message.get("params")
            params = params if isinstance(params, dict) else {}
            update = params.get("update")
            expected = (
                message.get("method", UNSET),
                message.get("id", UNSET),
                params.get("sessionId", UNSET),
                update.get("sessionUpdate", UNSET) if isinstance(update, dict) else UNSET,
            )
            data = json.dumps(message).encode()
            assert _route(pkg, data) == expected, line
            seen.add(
                "request"
                if "method" in message and "id" in message
                else "notification"
                if "method" in message
                else "response"
            )
            if message.get("method") == "session/update":
                _check_stream(pkg, [data])
    assert seen == {"request", "notification", "response"}, seen


def test_the_targets_peek_alike_on_mutated_payloads(make_package: GenerateFn) -> None:
    corpus.require()
    path = corpus.newest(corpus.NEWEST["v2"])
    document = json.loads(path.read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    seeds = [
        envelope(Instances(document, Variant(variant, full)).of_def(name))
        for variant in range(union_size(document, "SessionUpdate"))
        for full in (True, False)
    ]
    packages = [make_package(path, "peek_v2", target=t, take_all=True) for t in TARGETS]
    mutator = Mutator(zlib.crc32(b"peek"), sorted(packages[0].SESSION_UPDATE_VARIANTS))
    differ: list[str] = []
    routed = 0
    for index in range(3000):
        data = mutator.mutate(seeds[index % len(seeds)])
        fast, *whole = [_outcome(pkg, data) for pkg in packages]
        routed += fast[0] != "DecodeError"
        # The targets that parse the whole text agree; msgspec agrees with them on all they
        # accept, and of text they refuse as JSON (or as too deep) it may route what lies in
        # a part it skips, or refuse it at another spot.
        skipped = whole[0][:2] in (("DecodeError", "json"), ("DecodeError", "depth"))
        if whole[1] != whole[0] or (fast != whole[0] and not skipped):
            differ.append(f"{data[:200]!r}: {[fast, *whole]}")
    assert differ == [], "\n".join(differ[:10])
    assert routed > 1000, routed
