"""Figure 5: the cost of applying decoded updates to the generated ``SessionState`` reducer.

HOOK: this figure drives the generated package's ``SessionState().apply(update)``
and nothing else of the reducer; if a package has no ``SessionState`` (or its
schema does not generate) its rows report themselves as pending instead.

Measured on two streams, in the same interleaved rounds:

- v2: ``bench/stream_v2.jsonl`` with our ``schema/`` package;
- v1: ``../shared/bench/stream_v1.jsonl`` with the newest published v1 schema
  (``--all``, no flags: the built-in v1 overlay gives it its ``SessionState``).

For each: time of decode + apply of every message against decode alone (goal
<= 1.5x), and memory (tracemalloc): bytes held by the reducer per stored chunk,
against the bytes held by the decoded update structs alone, kept in a list.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tests import corpus

from .packages import OUR_SCHEMA, STREAM_V2, Workspace, newest, read_lines
from .report import Section
from .timing import Goal, Row, interleave

CHUNK_SUFFIX = "_chunk"


def _retained(build: Callable[[], Any]) -> int:
    """Bytes still allocated while the object `build` returns is alive."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        size = tracemalloc.get_traced_memory()[0] - base
        del kept
        return size
    finally:
        tracemalloc.stop()


def _tag(update: Any) -> str:
    config = getattr(type(update), "__struct_config__", None)
    tag = getattr(config, "tag", None) or getattr(update, "tag", "")
    return str(tag)


def _cases(name: str, pkg: ModuleType, lines: list[bytes]) -> dict[str, Callable[[], Any]]:
    decode = pkg.decode_notification
    state_type = pkg.SessionState

    def decode_only() -> list[Any]:
        return [decode(line).update for line in lines]

    def decode_apply() -> Any:
        state = state_type()
        for line in lines:
            state.apply(decode(line).update)
        return state

    return {f"{name} decode alone": decode_only, f"{name} decode + apply": decode_apply}


def reducer(ws: Workspace, rounds: int, limit: int | None) -> Section:
    section = Section("5. Reducer: decode + SessionState.apply against decode alone")
    streams = {
        "v2": ("bench_v2", OUR_SCHEMA, False, STREAM_V2),
        "v1": ("bench_v1", newest("v1"), True, corpus.STREAM_V1),
    }
    cases: dict[str, Callable[[], Any]] = {}
    for name, (package, schema, take_all, stream) in streams.items():
        pkg: ModuleType | None = ws.ours(package, schema, take_all=take_all)
        if pkg is None:
            section.notes.append(
                f"pending ({name}): {schema.name} did not generate: {ws.errors[package]}"
            )
        elif getattr(pkg, "SessionState", None) is None:
            section.notes.append(f"pending ({name}): the package has no SessionState")
        else:
            cases.update(_cases(name, pkg, read_lines(stream, limit)))
    if not cases:
        return section
    section.samples = interleave(cases, rounds)
    s = section.samples
    for name in streams:
        if f"{name} decode alone" not in s:
            continue
        section.rows.append(
            Row(
                "5 reducer",
                f"{name}: decode + apply vs decode alone",
                s[f"{name} decode + apply"],
                s[f"{name} decode alone"],
                Goal("time", 1.5),
            )
        )
        decode_only, decode_apply = cases[f"{name} decode alone"], cases[f"{name} decode + apply"]
        chunks = sum(1 for u in decode_only() if _tag(u).endswith(CHUNK_SUFFIX)) or 1
        structs, state = _retained(decode_only), _retained(decode_apply)
        section.notes.append(
            f"{name}: memory per stored chunk ({chunks} chunks): SessionState "
            f"{state / chunks:.0f} B, decoded structs alone {structs / chunks:.0f} B "
            f"({state / max(structs, 1):.2f}x)"
        )
    return section
