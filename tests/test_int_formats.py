"""Every integer ``format`` of the published schemas is enforced, on every target.

For the newest revision of each published line, every property whose value is an integer
with a width (``int32``, ``uint64``, ...; through ``$ref``, ``allOf`` wrappers, nullable
``anyOf`` pairs and an open enum's fallback, as ``Error.code`` reaches ``ErrorCode``) is
set, inside a sample of each definition that holds it, to the least and the greatest
value its format and bounds allow, and to one past each. Each target must decode the
bounds and write them back unchanged, and must refuse each value past them: a
`DecodeError`, or a repair of that property where the schema makes it lenient. The three
targets must give the same outcome for every payload.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests import corpus
from tests.conftest import TARGETS, GenerateFn
from tests.corpus_sweep import _runtime_type
from tests.instances import INT_FORMATS, Fixed, Instances, Unsatisfiable, union_size

LINES = tuple(corpus.NEWEST)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    return document["$defs"][ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")]


def _int_leaf(document: dict[str, Any], node: Any, depth: int = 0) -> dict[str, Any] | None:
    """The integer schema with a width that a property's value is, if it is one: found
    through refs and wrappers, and in a union, its member that has no ``const`` (an
    enum's fallback, whose range decides the values the enum keeps)."""
    if not isinstance(node, dict) or depth > 16:
        return None
    declared = node.get("type")
    types = declared if isinstance(declared, list) else [declared]
    if node.get("format") in INT_FORMATS and "integer" in types and "const" not in node:
        return node
    if "$ref" in node:
        return _int_leaf(document, _resolve(document, node["$ref"]), depth + 1)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for member in node.get(keyword) or []:
            found = _int_leaf(document, member, depth + 1)
            if found is not None:
                return found
    return None


def _range(leaf: dict[str, Any]) -> tuple[int, int]:
    """The least and greatest value the format and the bounds beside it allow."""
    low, high = INT_FORMATS[leaf["format"]]
    low = max(low, leaf.get("minimum", low), leaf.get("exclusiveMinimum", low - 1) + 1)
    high = min(high, leaf.get("maximum", high), leaf.get("exclusiveMaximum", high + 1) - 1)
    return int(low), int(high)


def _places(document: dict[str, Any]) -> list[list[tuple[str, Any, tuple[Any, ...], Any]]]:
    """For each integer property with a width, every ``(definition, sample, path, leaf)``
    that holds it, nearest its root first, objects before unions: through an untagged
    union, another member may take any value there, which the schema allows."""
    found: dict[int, list[tuple[int, bool, str, Any, tuple[Any, ...], Any]]] = {}
    for name in sorted(document["$defs"]):
        for variant in range(max(union_size(document, name), 1)):
            walker = Instances(document, Fixed(variant, True))
            try:
                sample = walker.of_def(name)
            except (Unsatisfiable, RecursionError):
                continue
            for path, schema, _required in walker.trace:
                leaf = _int_leaf(document, schema)
                if leaf is not None:
                    # (a definition that is a union comes after one that is an object)
                    union = bool({"anyOf", "oneOf"} & set(document["$defs"][name]))
                    entry = (len(path), union, name, sample, path, leaf)
                    found.setdefault(id(schema), []).append(entry)
    return [[c[2:] for c in sorted(cands, key=lambda c: c[:3])] for cands in found.values()]


def _with(sample: Any, path: tuple[Any, ...], value: int) -> Any:
    out = json.loads(json.dumps(sample))
    holder = out
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return out


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _outcome(pkg: ModuleType, tp: Any, payload: Any) -> tuple[Any, ...]:
    repairs: list[Any] = []
    try:
        value = pkg.decode(json.dumps(payload), tp, repairs)
    except pkg.DecodeError as exc:
        return ("refused", str(exc))  # (worded alike on every target, path included)
    return ("decoded", json.loads(pkg.encode(value)), sorted(r.path for r in repairs))


def _json_path(path: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


@pytest.fixture(scope="module", params=LINES)
def revision(request: pytest.FixtureRequest, make_package: GenerateFn) -> tuple[Path, dict]:
    corpus.require()
    schema = corpus.newest(corpus.NEWEST[request.param])
    stem = "intfmt_" + request.param.replace("-", "_")
    packages = {t: make_package(schema, stem, target=t, take_all=True) for t in TARGETS}
    return schema, packages


def test_every_integer_format_is_enforced(revision: tuple[Path, dict[str, ModuleType]]) -> None:
    schema, packages = revision
    document = json.loads(schema.read_text(encoding="utf-8"))
    checked = 0
    for candidates in _places(document):
        # (the nearest sample that decodes as it is: some, such as a form's schema, draw
        # values that only look alike)
        first_pkg = packages[TARGETS[0]]
        name, sample, path, leaf = next(
            (c for c in candidates if _outcome(first_pkg, _runtime_type(first_pkg, c[0]), c[1])[0]
             == "decoded"),
            candidates[0],
        )  # fmt: skip
        low, high = _range(leaf)
        where = f"{schema.name} {name} {_json_path(path)} ({leaf['format']})"
        for value, inside in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
            payload = _with(sample, path, value)
            outcomes = {
                t: _outcome(pkg, _runtime_type(pkg, name), payload) for t, pkg in packages.items()
            }
            first = outcomes[TARGETS[0]]
            assert all(o == first for o in outcomes.values()), (where, value, outcomes)
            if inside:
                # (written back as read; a variant's class writes its tag too)
                assert first[0] == "decoded" and not first[2], (where, value, first)
                assert _at(first[1], path) == value, (where, value, first)
            else:
                # Refused, or (where the schema makes the property lenient) repaired there.
                repaired = first[0] == "decoded" and any(
                    p.startswith(_json_path(path)) for p in first[2]
                )
                assert first[0] == "refused" or repaired, (where, value, first)
        checked += 1
    assert checked >= 10, f"only {checked} integer properties with a width in {schema.name}"
