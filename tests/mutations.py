"""Test helper: deterministic mutations of JSON payloads, for the decoder fuzz test.

`Mutator(seed).mutate(value)` applies one to three random changes to a decoded
JSON value and returns the payload bytes. Tree changes flip a value's type,
drop, add or duplicate keys, swap in another subtree, nest deeply, grow a huge
string or change a tag; byte changes insert invalid UTF-8, escape a lone
surrogate, truncate, flip a byte or prepend a BOM. Everything comes from one
`random.Random`, so a failing payload is reproduced by its seed and index.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from typing import Any

#: Values of every JSON type, including edge numbers and awkward strings.
VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, -0.0, 2**64, -(2**63) - 1, 1e308, "", "x", "\u2028",
    "\U0001f600", "_ext", [], [1, "a"], {}, {"a": None}, {"sessionUpdate": "plan"},
]  # fmt: skip
TAG_FIELDS = ("sessionUpdate", "type", "state", "kind", "outcome", "mode", "action", "operation")
BAD_BYTES = [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00"]
DEPTHS = [65, 257, 1_000, 100_000]
HUGE = 1 << 20


@dataclass(frozen=True)
class Raw:
    """Pre-serialized JSON text spliced into a payload as is."""

    data: bytes


class Dup(list[tuple[str, Any]]):
    """A JSON object written with a repeated key: a list of (key, value) pairs."""


def dumps(value: Any) -> bytes:
    parts: list[bytes] = []
    _write(value, parts)
    return b"".join(parts)


def _write(value: Any, out: list[bytes]) -> None:
    if isinstance(value, Raw):
        out.append(value.data)
    elif isinstance(value, dict | Dup):
        pairs = value if isinstance(value, Dup) else list(value.items())
        out.append(b"{")
        for index, (key, item) in enumerate(pairs):
            out.append(b"," if index else b"")
            out.append(json.dumps(key, ensure_ascii=False).encode("utf-8") + b":")
            _write(item, out)
        out.append(b"}")
    elif isinstance(value, list):
        out.append(b"[")
        for index, item in enumerate(value):
            out.append(b"," if index else b"")
            _write(item, out)
        out.append(b"]")
    else:
        out.append(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every node's path; spliced text and duplicate-key objects are not entered."""
    found = [path]
    if isinstance(value, Raw | Dup):
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


class Mutator:
    def __init__(self, seed: int, tags: list[str]) -> None:
        self.rng = random.Random(seed)
        self.tags = tags

    def mutate(self, value: Any) -> bytes:
        """One to three tree changes, then (one time in four) a byte change."""
        tree = copy.deepcopy(value)
        for _ in range(self.rng.randint(1, 3)):
            tree = self._tree_change(tree)
        data = dumps(tree)
        if self.rng.random() < 0.25:
            data = self._byte_change(data)
        return data

    def _value(self) -> Any:
        """A fresh copy of one of `VALUES` (never the shared object itself)."""
        return copy.deepcopy(self.rng.choice(VALUES))

    def _replace(self, tree: Any, path: tuple[Any, ...], new: Any) -> Any:
        if not path:
            return new
        parent = _get(tree, path[:-1])
        if isinstance(parent, dict | list):
            parent[path[-1]] = new
        return tree

    def _tree_change(self, tree: Any) -> Any:
        rng = self.rng
        if isinstance(tree, Raw | Dup):
            return tree
        paths = _paths(tree)
        path = rng.choice(paths)
        node = _get(tree, path)
        kind = rng.random()
        if kind < 0.30:
            return self._replace(tree, path, self._value())
        if kind < 0.45 and isinstance(node, dict) and node:
            del node[rng.choice(list(node))]
            return tree
        if kind < 0.55 and isinstance(node, dict):
            pairs = list(node.items())
            key = rng.choice([k for k, _ in pairs] or ["sessionUpdate"])
            extra = (key, self._value())
            pairs.insert(rng.randint(0, len(pairs)), extra)
            return self._replace(tree, path, Dup(pairs))
        if kind < 0.62 and isinstance(node, dict):
            node[rng.choice(["extra", "_meta", "sessionUpdate", "type"])] = self._value()
            return tree
        if kind < 0.77:
            return self._change_tag(tree)
        if kind < 0.87:
            other = copy.deepcopy(_get(tree, rng.choice(paths)))
            return self._replace(tree, path, other)
        if kind < 0.95:
            depth = rng.choice(DEPTHS)
            opener, closer = (b"[", b"]") if rng.random() < 0.5 else (b'{"a":', b"}")
            return self._replace(tree, path, Raw(opener * depth + b"1" + closer * depth))
        text = rng.choice(["x", "\u00e9", "\U0001f600"]) * (HUGE // 4)
        return self._replace(tree, path, text)

    def _change_tag(self, tree: Any) -> Any:
        rng = self.rng
        holders = [
            p
            for p in _paths(tree)
            if isinstance(_get(tree, p), dict) and any(t in _get(tree, p) for t in TAG_FIELDS)
        ]
        if not holders:
            return tree
        node = _get(tree, rng.choice(holders))
        field = rng.choice([t for t in TAG_FIELDS if t in node])
        choice = rng.random()
        if choice < 0.6 and self.tags:
            node[field] = rng.choice(self.tags)  # a known tag on the wrong body
        elif choice < 0.8:
            node[field] = rng.choice(["future_kind", "_vendor", "", "PLAN"])
        elif choice < 0.9:
            node[field] = rng.choice([None, 1, [], {}])
        else:
            del node[field]
        return tree

    def _byte_change(self, data: bytes) -> bytes:
        rng = self.rng
        kind = rng.random()
        at = rng.randrange(len(data) + 1)
        if kind < 0.4:
            at = _inside_string(data, at)
            return data[:at] + rng.choice(BAD_BYTES) + data[at:]
        if kind < 0.55:
            at = _inside_string(data, at)
            return data[:at] + rng.choice([b"\\ud800", b"\\udfff", b"\\u0000"]) + data[at:]
        if kind < 0.75:
            return data[:at]
        if kind < 0.95 and data:
            at = min(at, len(data) - 1)
            return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        return b"\xef\xbb\xbf" + data


def _inside_string(data: bytes, at: int) -> int:
    """The position just after the first quote at or before `at` (`at` when none)."""
    quote = data.rfind(b'"', 0, at)
    if quote < 0:
        quote = data.find(b'"', at)
    return quote + 1 if quote >= 0 else at
