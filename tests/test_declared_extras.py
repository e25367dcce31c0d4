"""Undeclared properties: kept, in arrival order, through every way a value is copied.

On every target a decoded object keeps the properties its schema does not declare, and
they take part in ``==``, ``copy``, ``deepcopy``, the library's own ``replace`` and
pickling. On msgspec such an object is of a subclass of its class that declares them
(`_extras.declaring`), kept in a table bounded in classes and in name length: a class
made again after the table emptied is another object, and changes nothing that shows.
A property whose name msgspec could not write back (a quote, a backslash, a control
character) is dropped on every target, with a repair.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import GenerateFn


def _v1(make_package: GenerateFn, name: str, target: str = "msgspec") -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v1"]), name, target=target)


def _message(update: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update",
                       "params": {"sessionId": "s", "update": update}}).encode()


TOOL = {"sessionUpdate": "tool_call_update", "toolCallId": "t",
        "content": [{"type": "terminal", "terminalId": "x"}]}
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
    for other in (copy.copy(decoded), copy.deepcopy(decoded), pickle.loads(pickle.dumps(decoded)),
                  _replace(pkg, decoded, title="changed")):
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


def test_unwritable_names_are_dropped_with_a_repair(make_package: GenerateFn, target: str) -> None:
    pkg = _v1(make_package, "extras_unfit", target)
    update = {**TOOL, 'a"quote': 1, "back\\slash": 2, "tab\there": 3, "fine": 4}
    repairs: list[Any] = []
    decoded = pkg.decode_update(json.dumps(update).encode(), repairs)
    assert pkg.extra_fields(decoded) == {"fine": 4}
    assert [(r.path, r.action, r.original) for r in repairs] == [
        ('$.a"quote', "dropped", 1), ("$.back\\slash", "dropped", 2), ("$.tab\there", "dropped", 3)]


def test_a_class_made_again_changes_nothing(make_package: GenerateFn) -> None:
    """msgspec: emptying the table of declaring classes (as filling it does) makes the next
    decode build its class again: another object, with the same name, fields, repr, value
    and bytes, equal to what was decoded before, and pickled values load either way."""
    pkg = _v1(make_package, "extras_again")
    update = {**TOOL, **EXTRA}
    before = pkg.decode_update(json.dumps(update).encode())
    pickled = pickle.dumps(before)
    pkg._extras._MADE._items.clear()
    after = pkg.decode_update(json.dumps(update).encode())
    assert type(after) is not type(before)
    assert repr(after) == repr(before) and type(after).__name__ == type(before).__name__
    assert after == before and before == after
    assert pkg.encode(after) == pkg.encode(before)
    assert pickle.loads(pickled) == after
    assert isinstance(after, pkg.ToolCallUpdate)


def test_ever_new_names_cost_bounded_memory(make_package: GenerateFn) -> None:
    """A stream of messages each with a new undeclared property name, some of them long:
    the table of declaring classes stays within its bounds, and every message keeps its
    property."""
    pkg = _v1(make_package, "extras_flood")
    table = pkg._extras._MADE
    for n in range(3000):
        name = f"p{n}" + ("x" * 4000 if n % 7 == 0 else "")
        decoded = pkg.decode_update(json.dumps({**TOOL, name: n}).encode())
        assert pkg.extra_fields(decoded) == {name: n}
        assert len(table._items) <= table._entries and table._cost <= table._size


def test_a_declaring_class_built_by_hand(make_package: GenerateFn) -> None:
    """An instance of a declaring class made without its undeclared properties has none."""
    pkg = _v1(make_package, "extras_by_hand")
    cls = type(pkg.decode_update(json.dumps({**TOOL, "acmeNote": 1}).encode()))
    bare = cls(tool_call_id="t")
    assert pkg.extra_fields(bare) == {}
    assert json.loads(pkg.encode(bare)) == {"sessionUpdate": "tool_call_update", "toolCallId": "t"}


@pytest.mark.parametrize("where", ["update", "content item", "params"])
def test_undeclared_properties_at_any_depth(make_package: GenerateFn, target: str,
                                            where: str) -> None:
    pkg = _v1(make_package, "extras_depth", target)
    update = json.loads(json.dumps(TOOL))
    params: dict[str, Any] = {"sessionId": "s", "update": update}
    holder = {"update": update, "content item": update["content"][0], "params": params}[where]
    holder["acmeNote"] = {"n": 1}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    decoded = pkg.decode_notification(json.dumps(message).encode())
    assert json.loads(pkg.encode(decoded)) == params
