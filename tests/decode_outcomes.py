"""Decode a list of payloads in a process of its own and print what each gave.

``python -m tests.decode_outcomes MODE CASES`` reads `CASES`, a JSON file of
``{"package": ..., "call": ..., "data": <latin-1 text of the bytes>}`` rows, imports
each package (its folder must be on ``PYTHONPATH``) and writes one JSON line per row:
the row's `outcome`. Nothing is decoded before MODE says so:

- ``fresh``: each row in a process forked for it alone, before anything was decoded;
- ``primed``: every row once, then every row again, keeping the second outcome;
- ``threads``: every row from 8 threads at once, in a shuffled order;
- ``cold``: each row after the package's kept tables were emptied.

`tests/test_one_reading.py` compares the modes.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

MODES = ("fresh", "primed", "threads", "cold")


def outcome(pkg: ModuleType, call: str, data: bytes) -> list[Any]:
    """What decoding `data` gave: the class, the bytes written back and every repair, or
    the exception's type, text, and `DecodeError` kind and path."""
    repairs: list[Any] = []
    try:
        if call == "decode_update":
            value = pkg.decode_update(data, repairs)
        elif call == "decode_notification":
            value = pkg.decode_notification(data, repairs)
        else:
            value = pkg.decode(data, getattr(pkg.models, call), repairs)
        written = pkg.encode(value).decode("utf-8")
    except Exception as exc:  # (any exception is an outcome to compare)
        return [
            "error",
            type(exc).__name__,
            str(exc),
            getattr(exc, "kind", None),
            getattr(exc, "path", None),
        ]
    rows = [[r.path, r.action, repr(r.original), repr(r.replacement)] for r in repairs]
    return ["ok", type(value).__qualname__, written, rows]


def empty_tables(pkg: ModuleType) -> None:
    """Empty every table a package keeps between calls (what it made to save work)."""
    prefix = pkg.__name__ + "."
    for name, module in list(sys.modules.items()):
        if not name.startswith(prefix):
            continue
        for value in list(vars(module).values()):
            for table in (value, getattr(value, "_made", None)):
                if hasattr(table, "put") and isinstance(getattr(table, "_items", None), dict):
                    table._items.clear()


def run(mode: str, cases: list[dict[str, Any]]) -> list[list[Any]]:
    packages = {c["package"]: importlib.import_module(c["package"]) for c in cases}
    rows = [(packages[c["package"]], c["call"], c["data"].encode("latin-1")) for c in cases]
    if mode == "fresh":
        return [_forked(*row) for row in rows]
    if mode == "primed":
        for row in rows:
            outcome(*row)
        return [outcome(*row) for row in rows]
    if mode == "cold":
        found = []
        for row in rows:
            empty_tables(row[0])
            found.append(outcome(*row))
        return found
    results: list[list[Any] | None] = [None] * len(rows)
    order = list(range(len(rows)))
    random.Random(8).shuffle(order)
    chunks = [order[i::8] for i in range(8)]

    def work(indexes: list[int]) -> None:
        for i in indexes:
            results[i] = outcome(*rows[i])

    threads = [threading.Thread(target=work, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r if r is not None else ["missing"] for r in results]


def _forked(pkg: ModuleType, call: str, data: bytes) -> list[Any]:
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        os.close(read)
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(outcome(pkg, call, data)))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as source:
        text = source.read()
    os.waitpid(child, 0)
    return json.loads(text) if text else ["child died"]


def main(argv: list[str]) -> int:
    mode, path = argv
    cases = json.loads(Path(path).read_text(encoding="utf-8"))
    for found in run(mode, cases):
        print(json.dumps(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
