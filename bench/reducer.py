"""Figure 5: the cost of applying decoded updates to the generated ``SessionState`` reducer.

HOOK: this figure drives the generated package's ``SessionState().apply(update)``
and nothing else of the reducer; if a package has no ``SessionState`` (or
``schema/`` does not generate) the figure reports itself as pending instead.

Measured on the v2 stream with our ``schema/`` package:

- time: decode + apply of every message against decode alone (goal <= 1.5x);
- memory (tracemalloc): bytes held by the reducer per stored chunk, against the
  bytes held by the decoded update structs alone, kept in a list.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .packages import OUR_SCHEMA, STREAM_V2, Workspace, read_lines
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


def reducer(ws: Workspace, rounds: int, limit: int | None) -> Section:
    section = Section("5. Reducer: decode + SessionState.apply against decode alone")
    pkg: ModuleType | None = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    if pkg is None:
        section.notes.append(f"pending: schema/ did not generate: {ws.errors['bench_v2']}")
        return section
    state_type = getattr(pkg, "SessionState", None)
    if state_type is None:
        section.notes.append(
            "pending: the generated package has no SessionState yet (see bench/reducer.py)"
        )
        return section
    lines = read_lines(STREAM_V2, limit)
    decode = pkg.decode_notification

    def decode_only() -> list[Any]:
        return [decode(line).update for line in lines]

    def decode_apply() -> Any:
        state = state_type()
        for line in lines:
            state.apply(decode(line).update)
        return state

    section.samples = interleave(
        {"decode alone": decode_only, "decode + apply": decode_apply}, rounds
    )
    s = section.samples
    section.rows.append(
        Row(
            "5 reducer",
            "decode + apply vs decode alone",
            s["decode + apply"],
            s["decode alone"],
            Goal("time", 1.5),
        )
    )
    chunks = sum(1 for u in decode_only() if _tag(u).endswith(CHUNK_SUFFIX)) or 1
    structs, state = _retained(decode_only), _retained(decode_apply)
    section.notes.append(
        f"memory per stored chunk ({chunks} chunks): SessionState {state / chunks:.0f} B, "
        f"decoded structs alone {structs / chunks:.0f} B ({state / max(structs, 1):.2f}x)"
    )
    return section
