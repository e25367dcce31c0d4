"""msgspec target: a struct that arrives with undeclared properties is of a class that
declares them (`_extras.declaring`), one class per generated class and set of names.

What that buys, and what each test pins:

- every path (the general walk, a twin, the error-guided shortcut) gives the same class
  for the same properties, so equal payloads decode to equal values;
- encoding stays msgspec alone, with no Python walk, after such a struct was decoded
  (before, one undeclared property anywhere made every later `encode` ten times slower);
- names msgspec cannot declare, more names than `NAMES_KEPT` on one object and more
  sets than `KINDS_KEPT` fall back to a dict on the instance, losslessly, and a set of
  names keeps the answer it got first.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import GenerateFn


def _v1(make_package: GenerateFn, name: str) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), name)


def _message(update: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update",
                       "params": {"sessionId": "s", "update": update}}).encode()


TOOL = {"sessionUpdate": "tool_call_update", "toolCallId": "t",
        "content": [{"type": "terminal", "terminalId": "x"}]}


def test_every_path_gives_the_same_class(make_package: GenerateFn) -> None:
    """The general path (first sight), the twin (from the second), `decode_update`, and
    the error-guided shortcut (a second fault beside it) all give the struct the same
    declaring class; the values are equal and encode to the same bytes."""
    pkg = _v1(make_package, "declared_paths")
    extras = pkg._extras
    update = {**TOOL, "name": "read", "x-extra": {"deep": [1, 2.5, None]}}
    first = pkg.decode_notification(_message(update)).update
    second = pkg.decode_notification(_message(update)).update
    third = pkg.decode_notification(_message(update)).update
    alone = pkg.decode_update(json.dumps(update).encode())
    faulty = {**update, "content": [*update["content"], {"type": "content"}]}
    repairs: list[Any] = []
    guided = pkg.decode_notification(_message(faulty), repairs=repairs).update
    assert [r.path for r in repairs] == ["$.params.update.content[1]"]
    cls = type(first)
    assert cls.__mro__[1] is pkg.ToolCallUpdateSessionUpdate
    assert cls.__acp_undeclared__ == (("acp_undeclared_0", "name"),
                                      ("acp_undeclared_1", "x-extra"))
    for other in (second, third, alone, guided):
        assert type(other) is cls
        assert other == first
        assert pkg.extra_fields(other) == {"name": "read", "x-extra": {"deep": [1, 2.5, None]}}
        assert pkg.encode(other) == pkg.encode(first)
    assert json.loads(pkg.encode(first)) == update
    assert extras.EXTRAS_SEEN == [False]


def test_encoding_stays_native(make_package: GenerateFn, monkeypatch: pytest.MonkeyPatch) -> None:
    """After structs with undeclared properties were decoded, at every level, encoding
    writes them back without the Python walk, integers still integers."""
    pkg = _v1(make_package, "declared_encode")
    update = {"sessionUpdate": "agent_message_chunk", "x-top": 7,
              "content": {"type": "text", "text": "hi", "x-in": {"n": 1, "f": 1.0}}}
    message = _message(update)
    decoded = [pkg.decode_notification(message) for _ in range(3)]

    def walked(obj: Any) -> Any:
        raise AssertionError("encoding walked the value in Python")

    monkeypatch.setattr(pkg._runtime, "encode_value", walked)
    for params in decoded:
        assert pkg.encode(params) == pkg.encode(decoded[0])
        assert json.loads(pkg.encode(params)) == json.loads(message)["params"]
        assert b'"n":1,' in pkg.encode(params) and b'"f":1.0' in pkg.encode(params)
    assert pkg.extra_fields(decoded[0].update.content) == {"x-in": {"n": 1, "f": 1.0}}


def test_the_order_of_names_does_not_matter(make_package: GenerateFn) -> None:
    pkg = _v1(make_package, "declared_order")
    one = pkg.decode_update(json.dumps({**TOOL, "b": 1, "a": 2}).encode())
    two = pkg.decode_update(json.dumps({**TOOL, "a": 2, "b": 1}).encode())
    assert type(one) is type(two) and one == two
    assert pkg.encode(one) == pkg.encode(two)
    assert one != pkg.decode_update(json.dumps({**TOOL, "a": 2, "b": 3}).encode())


@pytest.mark.parametrize("name", ['say "hi"', "back\\slash", "nul\u0000", "tab\t", "\u001f"])
def test_names_msgspec_cannot_declare_stay_in_a_dict(make_package: GenerateFn,
                                                     name: str) -> None:
    """msgspec refuses a quote, a backslash or a control character in a field's wire name:
    such a property is kept in the instance's dict instead, and written back exactly."""
    pkg = _v1(make_package, "declared_unfit")
    update = {**TOOL, name: [1, {"k": "v"}], "plain": 0}
    for _ in range(3):  # (the general path, then a twin is tried)
        decoded = pkg.decode_notification(_message(update)).update
        assert not hasattr(type(decoded), "__acp_undeclared__")
        assert pkg.extra_fields(decoded) == {name: [1, {"k": "v"}], "plain": 0}
        assert json.loads(pkg.encode(decoded)) == update
    assert pkg._extras.EXTRAS_SEEN == [True]


def test_bounds_fall_back_to_a_dict_and_keep_their_answer(
    make_package: GenerateFn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `KINDS_KEPT` classes a new set of names is kept in a dict, and stays so; a set
    that got a class keeps it; more than `NAMES_KEPT` names never get one."""
    pkg = _v1(make_package, "declared_bounds")
    extras = pkg._extras
    monkeypatch.setattr(extras, "KINDS_KEPT", len(extras._DECLARING) + 2)

    def kind(extra: dict[str, Any]) -> Any:
        decoded = pkg.decode_update(json.dumps({**TOOL, **extra}).encode())
        assert pkg.extra_fields(decoded) == extra
        assert json.loads(pkg.encode(decoded)) == {**TOOL, **extra}
        return getattr(type(decoded), "__acp_undeclared__", None)

    assert kind({"a": 1}) is not None
    assert kind({"b": 1}) is not None
    assert kind({"c": 1}) is None  # full
    assert kind({"a": 5}) is not None  # (the same names as before: the same class)
    assert kind({"c": 2}) is None
    monkeypatch.setattr(extras, "KINDS_KEPT", 10**6)
    many = {f"x{n}": n for n in range(extras.NAMES_KEPT + 1)}
    assert kind(many) is None
    assert kind(dict(list(many.items())[:-1])) is not None


def test_a_declaring_class_built_by_hand(make_package: GenerateFn) -> None:
    """An instance of a declaring class made without its undeclared properties has none."""
    pkg = _v1(make_package, "declared_by_hand")
    cls = type(pkg.decode_update(json.dumps({**TOOL, "name": "n"}).encode()))
    made = cls(tool_call_id="t")
    assert pkg.extra_fields(made) == {}
    assert json.loads(pkg.encode(made)) == {"sessionUpdate": "tool_call_update",
                                            "toolCallId": "t"}


def test_a_flood_of_new_names_stays_bounded(make_package: GenerateFn) -> None:
    """Every message with a new undeclared property: at most `KINDS_KEPT` classes are made,
    and every message still decodes and encodes exactly."""
    pkg = _v1(make_package, "declared_flood")
    extras = pkg._extras
    for n in range(extras.KINDS_KEPT + 200):
        update = {**TOOL, f"x-{n}": n}
        decoded = pkg.decode_update(json.dumps(update).encode())
        assert pkg.extra_fields(decoded) == {f"x-{n}": n}
        assert json.loads(pkg.encode(decoded)) == update
    assert len(extras._DECLARING) == extras.KINDS_KEPT
