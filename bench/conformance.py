"""Figure 13: what the transcript conformance checker costs, against the reducer.

On figure 9's three worst cases (terminal chunks, new ``_meta`` keys, plan removals, the
updates decoded before timing), the time per update of ``conformance.Checker.update``
against ``SessionState.apply`` on the same stream at 40,000 updates (goal: at most 2x),
and the checker's time per update at 40,000 against at 5,000 (goal: at most 1.5x, so
linear in the stream's length).
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable
from typing import Any

from .packages import OUR_SCHEMA, Workspace
from .report import Section
from .scaling import SIZES, SMOKE_SIZES, _per_update, _workloads
from .timing import Goal, Row, interleave, now, reported


def _checked(checker_type: type, setup: list[Any], timed: list[Any]) -> Callable[[], float]:
    def run() -> float:
        checker = checker_type()
        for update in setup:
            checker.update("s", update)
        update = checker.update
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = now()
            for item in timed:
                update("s", item)
            return (now() - start) / len(timed)
        finally:
            if enabled:
                gc.enable()

    return run


def figure(ws: Workspace, rounds: int, smoke: bool) -> Section:
    small, large = SMOKE_SIZES if smoke else SIZES
    section = Section(
        f"13. Conformance checker: time per update against SessionState.apply "
        f"at {large:,}, and at {large:,} against at {small:,}"
    )
    pkg = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    if pkg is None:
        section.notes.append(f"pending: schema/ did not generate: {ws.errors['bench_v2']}")
        return section
    checker = importlib.import_module(pkg.__name__ + ".conformance").Checker
    few, many = _workloads(pkg, small), _workloads(pkg, large)
    cases: dict[str, Callable[[], float]] = {}
    for name in many:
        cases[f"{name} apply @ {large:,}"] = _per_update(pkg.SessionState, *many[name])
        cases[f"{name} check @ {large:,}"] = _checked(checker, *many[name])
        cases[f"{name} check @ {small:,}"] = _checked(checker, *few[name])
    section.samples = interleave(cases, rounds, clock=reported)
    s = section.samples
    for name in many:
        section.rows.append(
            Row(
                "13 conformance",
                f"{name}: check vs apply at {large:,}",
                s[f"{name} check @ {large:,}"],
                s[f"{name} apply @ {large:,}"],
                Goal("time", 2.0),
            )
        )
        section.rows.append(
            Row(
                "13 conformance",
                f"{name}: check at {large:,} vs at {small:,}",
                s[f"{name} check @ {large:,}"],
                s[f"{name} check @ {small:,}"],
                Goal("time", 1.5),
            )
        )
    return section
