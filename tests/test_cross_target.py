"""Every target reads a damaged stream alike.

Messages of the shared v1 stream, each with one value anywhere in its update (a tag
included) replaced by a value of another JSON kind, are decoded by the msgspec,
pydantic and dataclasses packages of the newest v1 schema. For each message all three
must agree: each raises `DecodeError`, or each decodes it and writes back the same JSON
with the same number of repairs. Nothing else may escape. This found a pydantic
discriminator that raised `TypeError` on a list where a tag belongs.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests import corpus
from tests.conftest import TARGETS, GenerateFn

#: Values of every JSON kind, some of which fit a field somewhere.
VALUES = ('"x"', "1.5", "null", "{}", "[]", "-1", "0", "true", '{"a":1}', '[{"type":"text",'
          '"text":"x"}]', '""', '"_ext"', '"in_progress"', "[1]", '{"type":"text"}')
MESSAGES = 800
PER_MESSAGE = 3


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside `value` (containers too), itself left out."""
    out: list[tuple[Any, ...]] = []
    items = (value.items() if isinstance(value, dict)
             else enumerate(value) if isinstance(value, list) else ())
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
                data, outcomes)
            decoded += outcomes[TARGETS[0]][0] == "decoded"
    # (both kinds of outcome are exercised: damage a lenient field or an item, or not)
    assert 0.1 * MESSAGES * PER_MESSAGE < decoded < 0.9 * MESSAGES * PER_MESSAGE, decoded
