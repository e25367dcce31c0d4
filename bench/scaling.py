"""Figure 9: the reducer's per-update cost does not grow with what the session holds.

For three worst cases, ``SessionState.apply`` runs a stream of N updates, and the
figure compares the mean time per update at N = 40,000 with the mean at N = 5,000
(goal: at most 1.5x). An operation whose cost grows with the stored data (output
rebuilt per chunk, a dict copied per ``_meta`` patch, a timeline scanned per removal)
makes the mean at 40,000 several times the mean at 5,000.

- terminal chunks: N ``terminal_output_chunk`` updates on one terminal;
- ``_meta`` keys: N ``agent_message`` updates on one message, each adding a new
  ``_meta`` key;
- plan removals: N plans created (not timed), then N ``plan_removed``, newest first.

Updates are decoded before timing: only ``apply`` is measured.
"""

from __future__ import annotations

import base64
import gc
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .packages import OUR_SCHEMA, Workspace
from .report import Section
from .timing import Goal, Row, interleave, now, reported

SIZES = (5_000, 40_000)
SMOKE_SIZES = (500, 4_000)
CHUNK = base64.b64encode(bytes(range(48))).decode()


def _workloads(pkg: ModuleType, n: int) -> dict[str, tuple[list[Any], list[Any]]]:
    """name -> (untimed setup updates, timed updates)."""

    def decode(update: dict[str, Any]) -> Any:
        return pkg.decode_update(json.dumps(update))

    chunk = decode({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": CHUNK})
    metas = [
        decode({"sessionUpdate": "agent_message", "messageId": "m", "_meta": {f"k{i}": i}})
        for i in range(n)
    ]
    plans = [
        decode(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "markdown", "planId": f"p{i}", "content": "step"},
            }
        )
        for i in range(n)
    ]
    removals = [decode({"sessionUpdate": "plan_removed", "planId": f"p{i}"}) for i in range(n)]
    return {
        "terminal chunks": ([], [chunk] * n),
        "_meta keys": ([], metas),
        "plan removals": (plans, removals[::-1]),
    }


def _per_update(state_type: type, setup: list[Any], timed: list[Any]) -> Callable[[], float]:
    def run() -> float:
        state = state_type()
        for update in setup:
            state.apply(update)
        apply = state.apply
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = now()
            for update in timed:
                apply(update)
            return (now() - start) / len(timed)
        finally:
            if enabled:
                gc.enable()

    return run


def scaling(ws: Workspace, rounds: int, smoke: bool) -> Section:
    small, large = SMOKE_SIZES if smoke else SIZES
    section = Section(
        f"9. Reducer scaling: time per update at {large:,} updates against at {small:,}"
    )
    pkg = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    if pkg is None:
        section.notes.append(f"pending: schema/ did not generate: {ws.errors['bench_v2']}")
        return section
    few, many = _workloads(pkg, small), _workloads(pkg, large)
    cases: dict[str, Callable[[], float]] = {}
    for name in many:
        cases[f"{name} @ {small:,}"] = _per_update(pkg.SessionState, *few[name])
        cases[f"{name} @ {large:,}"] = _per_update(pkg.SessionState, *many[name])
    section.samples = interleave(cases, rounds, clock=reported)
    s = section.samples
    for name in many:
        section.rows.append(
            Row(
                "9 scaling",
                f"{name}: per update at {large:,} vs at {small:,}",
                s[f"{name} @ {large:,}"],
                s[f"{name} @ {small:,}"],
                Goal("time", 1.5),
            )
        )
    return section
