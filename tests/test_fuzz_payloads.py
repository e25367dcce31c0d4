"""Fuzz the generated decoders with mutated payloads, and pin their leniency exactly.

For each of the four newest published schemas (generated with ``--all``), valid
``session/update`` payloads drawn from the raw schema by `tests.instances` are
mutated by `tests.mutations` (flipped types, dropped/added/duplicated keys,
swapped subtrees, deep nesting, 1 MB strings, wrong or missing tags, invalid
UTF-8, escaped lone surrogates, truncation, byte flips, a BOM) and fed to
`decode_notification` and `decode_update`. Rules:

- the only exception is the package's `DecodeError`;
- a payload whose ``sessionUpdate`` is a known tag never decodes to the
  unknown fallback, only to that tag's class;
- `peek` routes every notification `decode_notification` accepts to its method, session
  ID and kind, and on the rest raises nothing but `DecodeError`;
- every payload decodes within `TIME_LIMIT_S`, and the run's peak memory grows
  by less than `MEMORY_LIMIT_MB`.

``ACP_FUZZ_PAYLOADS`` sets the total (default 20,000; CI's full run uses 100,000).

The leniency tests change one property of a valid payload to a value the schema
rejects: with ``x-deserialize-default-on-error`` on an optional property the
result must equal the payload with that property set to its schema
``default``, else omitted (the documented reading, docs/api.md: a malformed
value is not a request to clear, so it never becomes ``null``). The published
schemas also put the flag on 6 to 12 *required* arrays (``Plan.entries``, ...)
with no default; the decoder keeps those strict, as the project decided
(tests/test_behaviour_core.py): a non-array there is a `DecodeError`, while
their bad items are still skipped. With ``x-deserialize-skip-invalid-items`` a bad item is
dropped and the rest kept; anywhere else (no lenient ancestor) it is a
`DecodeError`. The expectations come from the raw schema, not from the generator.
"""

from __future__ import annotations

import copy
import json
import os
import resource
import time
import zlib
from collections import Counter
from typing import Any, NamedTuple

import pytest
from jsonschema import Draft202012Validator

from tests import corpus
from tests.instances import (
    Instances,
    Variant,
    envelope,
    notification_def,
    union_size,
    validator_for,
)
from tests.mutations import Mutator, dumps

TOTAL = int(os.environ.get("ACP_FUZZ_PAYLOADS", "20000"))
TIME_LIMIT_S = 2.0
MEMORY_LIMIT_MB = 512
#: Values of every JSON type; each is tried where the schema rejects it.
WRONG: list[Any] = [12345, -1, 2**70, "text", True, None, [1], {"x": 1}]
DEFAULT_ON_ERROR = "x-deserialize-default-on-error"
SKIP_INVALID = "x-deserialize-skip-invalid-items"


class Target(NamedTuple):
    key: str
    pkg: Any
    document: dict[str, Any]
    #: (decoder name, valid payload) pairs to mutate
    seeds: list[tuple[str, Any]]

    def __repr__(self) -> str:
        return f"Target({self.key!r})"


#: msgspec (the default) and the stdlib target, whose whole decoder is the shared walker.
FUZZED = [(key, t) for key in sorted(corpus.NEWEST) for t in ("msgspec", "dataclasses")]


@pytest.fixture(scope="module", params=FUZZED, ids=lambda p: f"{p[0]}-{p[1]}")
def target(request: pytest.FixtureRequest, make_package: Any) -> Target:
    corpus.require()
    key, lib = request.param
    path = corpus.newest(corpus.NEWEST[key])
    pkg = make_package(path, "pub_" + key.replace("-", "_"), take_all=True, target=lib)
    document = json.loads(path.read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    seeds: list[tuple[str, Any]] = []
    for variant in range(union_size(document, "SessionUpdate")):
        for full in (True, False):
            params = Instances(document, Variant(variant, full)).of_def(name)
            seeds.append(("decode_notification", envelope(params)))
            seeds.append(("decode_update", params["update"]))
    return Target(key if lib == "msgspec" else f"{key}-{lib}", pkg, document, seeds)


def _update_of(kind: str, data: bytes) -> Any:
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if kind == "decode_update":
        return message
    params = message.get("params") if isinstance(message, dict) else None
    return params.get("update") if isinstance(params, dict) else None


def _peeked(pkg: Any, data: bytes) -> Any:
    """`peek`'s four members, or the name of what it raised (only `DecodeError` may be)."""
    try:
        route = pkg.peek(data)
    except pkg.DecodeError:
        return "DecodeError"
    except Exception as exc:  # (reported as a failure: the route matches nothing)
        return f"{type(exc).__name__}: {exc}"
    return (route.method, route.id, route.session_id, route.kind)


def test_mutated_payloads_raise_only_decode_error(target: Target) -> None:
    pkg = target.pkg
    variants = pkg.SESSION_UPDATE_VARIANTS
    mutator = Mutator(zlib.crc32(target.key.encode()), sorted(variants))
    count = TOTAL // len(corpus.NEWEST)
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    slowest = 0.0
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for index in range(count):
        kind, seed = target.seeds[index % len(target.seeds)]
        data = mutator.mutate(seed)
        route = _peeked(pkg, data) if kind == "decode_notification" else None
        if isinstance(route, str) and route != "DecodeError":
            failures.append(f"#{index} peek raised {route}: {data[:300]!r}")
        started = time.perf_counter()
        try:
            result = getattr(pkg, kind)(data)
        except pkg.DecodeError:
            outcomes["DecodeError"] += 1
            continue
        except Exception as exc:
            failures.append(f"#{index} {type(exc).__name__}: {exc} <- {data[:300]!r}")
            continue
        finally:
            slowest = max(slowest, time.perf_counter() - started)
        outcomes["decoded"] += 1
        update = result if kind == "decode_update" else result.update
        sent = _update_of(kind, data)
        tag = sent.get("sessionUpdate") if isinstance(sent, dict) else None
        if kind == "decode_notification":  # what it accepts, `peek` routes exactly
            expected = ("session/update", pkg.UNSET, result.session_id, tag)
            if route != expected:
                failures.append(f"#{index} peek gave {route}, not {expected}: {data[:300]!r}")
        if isinstance(tag, str) and tag in variants:
            outcomes["known tag decoded"] += 1
            if not isinstance(update, variants[tag]):
                failures.append(
                    f"#{index} tag {tag!r} gave {type(update).__name__}: {data[:300]!r}"
                )
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    print(
        f"{target.key}: {count:,} mutated payloads, {dict(outcomes)}, "
        f"slowest {slowest:.3f}s, peak memory +{grown_mb:.0f} MB"
    )
    assert failures == [], "\n".join(failures[:20])
    assert outcomes["DecodeError"] > count // 10 and outcomes["known tag decoded"] > count // 20
    assert slowest < TIME_LIMIT_S, f"slowest payload took {slowest:.2f}s"
    assert grown_mb < MEMORY_LIMIT_MB, f"peak memory grew by {grown_mb:.0f} MB"


# -- leniency, exactly as annotated ----------------------------------------------------------


def _invalid(document: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    """The `WRONG` values this schema rejects."""
    validator = Draft202012Validator({**schema, "$defs": document["$defs"]})
    return [value for value in WRONG if not validator.is_valid(value)]


def _enum_keeps(document: dict[str, Any], schema: Any, wrong: Any, depth: int = 0) -> bool:
    """Whether `schema` is (or admits) an enum that, opened as every generated enum is,
    keeps `wrong`: a string for a string enum, an integer for an integer enum."""
    if not isinstance(schema, dict) or depth > 8:
        return False
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _enum_keeps(document, document["$defs"].get(name), wrong, depth + 1)
    values = schema.get("enum")
    members = schema.get("oneOf") or schema.get("anyOf") or schema.get("allOf") or []
    if values is None and members and all(isinstance(m, dict) and "const" in m for m in members):
        values = [m["const"] for m in members]
    if isinstance(values, list) and values:
        return all(type(v) is type(wrong) for v in values) and type(wrong) in (str, int)
    return any(_enum_keeps(document, m, wrong, depth + 1) for m in members)


def _valid_items(document: dict[str, Any], schema: dict[str, Any], items: list[Any]) -> list[Any]:
    item_schema = schema.get("items", {})
    validator = Draft202012Validator({**item_schema, "$defs": document["$defs"]})
    return [item for item in items if validator.is_valid(item)]


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    out = copy.deepcopy(value)
    node = out
    for step in path[:-1]:
        node = node[step]
    if new is _OMIT:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return out


_OMIT = object()
_STRICT = object()


Case = tuple[Any, tuple[Any, ...], dict[str, Any], bool, bool]


def _lenient(schema: dict[str, Any], required: bool) -> bool:
    """Whether a bad value falls back: the flag on an optional property, or on a required
    array (which reads as empty, as the official SDKs do)."""
    return schema.get(DEFAULT_ON_ERROR) is True and (not required or _is_array(schema))


def _is_array(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "array" or isinstance(kind, list) and "array" in kind


def _cases(target: Target) -> list[Case]:
    """(valid update, property path, schema, required, under a lenient ancestor) per property."""
    out = []
    for variant in range(union_size(target.document, "SessionUpdate")):
        walker = Instances(target.document, Variant(variant, True), max_depth=6)
        update = walker.of_def("SessionUpdate")
        forgiving = {
            path
            for path, schema, required in walker.trace
            if _lenient(schema, required) or schema.get(SKIP_INVALID) is True
        }
        for path, schema, required in walker.trace:
            covered = any(path[:n] in forgiving for n in range(1, len(path)))
            out.append((update, path, schema, required, covered))
    return out


def test_lenient_fields_fall_back_exactly_as_annotated(target: Target) -> None:
    pkg, checked = target.pkg, Counter[str]()
    check = validator_for(target.document)
    for update, path, schema, required, covered in _cases(target):
        if covered:
            continue  # a lenient ancestor decides
        for wrong in _invalid(target.document, schema):
            mutated = _set(update, path, wrong)
            if not check("SessionUpdate", mutated):
                continue  # still valid as a whole (a tag moved it to another member)
            data = dumps(mutated)
            fallback: Any = _STRICT
            if schema.get(SKIP_INVALID) is True and isinstance(wrong, list):
                # The array itself fits; skipping drops the items that do not.
                fallback = _valid_items(target.document, schema, wrong)
            elif _lenient(schema, required):
                fallback = [] if required else schema.get("default", _OMIT)
            if path == ("sessionUpdate",) and isinstance(wrong, str):
                # Every union is open: an unknown tag is kept whole and written back.
                decoded = pkg.decode_update(data)
                assert type(decoded).__name__ == "UnknownSessionUpdate", wrong
                assert json.loads(pkg.encode(decoded)) == mutated
                checked["unknown tag"] += 1
            elif isinstance(schema.get("const"), str) and isinstance(wrong, str):
                # The tag of a nested (open) union lands in its Unknown member; a fixed
                # constant that is no tag is still an error. Either way nothing is lost.
                try:
                    decoded = pkg.decode_update(data)
                except pkg.DecodeError:
                    checked["strict"] += 1
                else:
                    assert json.loads(pkg.encode(decoded)) == mutated, (path, wrong)
                    checked["unknown tag"] += 1
            elif _enum_keeps(target.document, schema, wrong):
                # Every enum is open: an unknown value is kept and written back.
                assert json.loads(pkg.encode(pkg.decode_update(data))) == mutated, (path, wrong)
                checked["unknown enum value"] += 1
            elif fallback is _STRICT:
                with pytest.raises(pkg.DecodeError):
                    pkg.decode_update(data)
                checked["required flagged" if schema.get(DEFAULT_ON_ERROR) else "strict"] += 1
            else:
                expected = _set(update, path, fallback)
                assert json.loads(pkg.encode(pkg.decode_update(data))) == expected, (path, wrong)
                checked["lenient"] += 1
    print(f"{target.key}: {dict(checked)}")
    assert checked["lenient"] > 20 and checked["strict"] > 20


def test_invalid_array_items_are_skipped_where_annotated(target: Target) -> None:
    pkg, checked = target.pkg, 0
    for update, path, schema, _, covered in _cases(target):
        value = update
        for step in path:
            value = value[step]
        if covered or schema.get(SKIP_INVALID) is not True or not isinstance(value, list):
            continue
        items = schema.get("items", {})
        for wrong in _invalid(target.document, items if isinstance(items, dict) else {}):
            data = dumps(_set(update, path, [wrong, *value, wrong]))
            assert json.loads(pkg.encode(pkg.decode_update(data))) == update, (path, wrong)
            checked += 1
    assert checked > 10
