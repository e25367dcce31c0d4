"""Schema-driven property tests: what the newest published schemas accept, the package decodes.

For the newest v1 and v2 schemas (stable and unstable), hypothesis draws
``session/update`` params that the raw schema accepts and checks that

- the generated package decodes them, both alone and inside the JSON-RPC
  envelope, and a known ``sessionUpdate`` never lands in the unknown fallback;
- encoding the decoded value gives back equal JSON.

hypothesis-jsonschema cannot be used on the whole schema: it inlines every
``$ref`` first, which took 85 s for 20 examples of the v1 params and did not
finish the v2 ones in four minutes. So `tests.instances` walks the structure
and hypothesis (with hypothesis-jsonschema for formatted strings) draws the
leaves. Every drawn instance is first checked with ``jsonschema``, so a fault
in the walker cannot pass for a decoder bug.

Known, documented limits of the draws: numbers are finite doubles (the schema's
``format: double``) or integers within 2**53, because a JSON number beyond that
does not survive a float field; strings hold no lone surrogates, which JSON
text cannot carry as UTF-8. Undeclared properties (``x-fuzz-extra``) are
accepted and dropped, except inside values that keep raw JSON (unknown
variants, maps, ``_meta``), so the round trip compares without them.

``ACP_PROPERTY_EXAMPLES`` sets the examples per schema (default 60).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from acp_codegen import naming
from tests import corpus
from tests.instances import (
    EXTRA_KEY,
    Instances,
    dumps,
    envelope,
    notification_def,
    same_json,
    validator_for,
    without_extras,
)

EXAMPLES = int(os.environ.get("ACP_PROPERTY_EXAMPLES", "60"))
#: Integers a double represents exactly.
EXACT = 2**53
JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-EXACT, EXACT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6).filter(lambda k: k != EXTRA_KEY), inner, max_size=3)
    ),
    max_leaves=6,
)


@cache
def _string_strategy(leaf_json: str) -> st.SearchStrategy[str]:
    leaf = json.loads(leaf_json)
    if leaf.get("contentEncoding") == "base64" or leaf.get("format") == "byte":
        return st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())
    if leaf.get("format") not in (None, "date-time", "uri"):
        leaf.pop("format")  # e.g. "regex": any string is accepted
    return from_schema(leaf)


class Drawn:
    """A `tests.instances.Chooser` backed by hypothesis draws."""

    def __init__(self, data: st.DataObject, extras: bool) -> None:
        self.data = data
        self.extras = extras

    def pick(self, n: int, shallow: bool) -> int:
        return 0 if shallow or n == 1 else self.data.draw(st.integers(0, n - 1))

    def include(self, shallow: bool) -> bool:
        return not shallow and self.data.draw(st.booleans())

    def length(self, minimum: int, shallow: bool) -> int:
        return minimum if shallow else self.data.draw(st.integers(minimum, minimum + 2))

    def scalar(self, leaf: dict[str, Any]) -> Any:
        kind = leaf["type"]
        if kind == "boolean":
            return self.data.draw(st.booleans())
        if kind == "string":
            return self.data.draw(_string_strategy(json.dumps(leaf, sort_keys=True)))
        low, high = leaf.get("minimum"), leaf.get("maximum")
        if kind == "integer":
            return self.data.draw(st.integers(low, high))
        exact = st.integers(
            -EXACT if low is None else int(low), EXACT if high is None else int(high)
        )
        floats = st.floats(low, high, allow_nan=False, allow_infinity=False)
        return self.data.draw(floats | exact)

    def any_json(self) -> Any:
        return self.data.draw(JSON_VALUE)

    def other_tag(self, reserved: set[str]) -> str:
        return self.data.draw(st.text(min_size=1, max_size=12).filter(lambda t: t not in reserved))

    def extra(self, shallow: bool) -> bool:
        return self.extras and not shallow and self.data.draw(st.booleans())


class Subject(NamedTuple):
    key: str
    pkg: Any
    document: dict[str, Any]
    name: str
    check: Callable[[str, Any], list[str]]

    def __repr__(self) -> str:  # hypothesis prints it with every failing example
        return f"Subject({self.key!r})"


@pytest.fixture(scope="module", params=sorted(corpus.NEWEST))
def subject(request: pytest.FixtureRequest, make_package: Any) -> Subject:
    corpus.require()
    key = request.param
    path = corpus.newest(corpus.NEWEST[key])
    pkg = make_package(path, "pub_" + key.replace("-", "_"), take_all=True)
    document = json.loads(path.read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    return Subject(key, pkg, document, name, validator_for(document))


def _check(subject: Subject, data: st.DataObject, extras: bool) -> None:
    _, pkg, document, name, check = subject
    params = Instances(document, Drawn(data, extras), max_depth=6).of_def(name)
    errors = check(name, params)
    assert not errors, f"the walker drew an instance the schema rejects: {errors}"
    cls = getattr(pkg, naming.class_name(name))
    decoded = pkg.decode(dumps(params), cls)
    assert pkg.decode_notification(dumps(envelope(params))) == decoded
    again = json.loads(pkg.encode(decoded))
    assert same_json(without_extras(again), without_extras(params)), (params, again)
    update = params.get("update")
    if isinstance(update, dict):
        # A known tag may still hold an unknown member of a nested union (an unknown
        # `state` of `state_update`); it must never be SessionUpdate's own fallback.
        fallback = getattr(decoded.update, "TAG_FIELD", None) == "sessionUpdate"
        assert not (fallback and update.get("sessionUpdate") in pkg.SESSION_UPDATE_VARIANTS)


PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY
@given(data=st.data())
def test_valid_params_decode_and_round_trip(subject: Subject, data: st.DataObject) -> None:
    _check(subject, data, extras=False)


@PROPERTY
@given(data=st.data())
def test_undeclared_properties_are_accepted(subject: Subject, data: st.DataObject) -> None:
    _check(subject, data, extras=True)
