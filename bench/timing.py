"""Interleaved timing rounds and the rows the report is made of.

`interleave` runs every case once per round, in an order that rotates from round
to round, so that drift on a shared machine (another process waking up, CPU
frequency) lands on every case alike. Each call runs with the garbage collector
collected beforehand and paused during the call, as ``timeit`` does; that is the
same for every case. A figure is then a ratio of two medians from the same run,
with the ratio of the minimums beside it.

The clock is CPU time by default (this process's, or a child's from its resource
usage): on a small machine shared with other work, wall time mostly measures the
neighbours, while CPU time of single-threaded work stays put. ``--clock wall``
switches every figure to wall time, the right choice on an idle machine.
"""

from __future__ import annotations

import gc
import resource
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sample:
    """All round times (seconds) of one case."""

    name: str
    times: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        return min(self.times)


CLOCKS = ("cpu", "wall")
_clock = ["cpu"]


def use_clock(name: str) -> None:
    """Select the clock of every later measurement: ``cpu`` or ``wall``."""
    if name not in CLOCKS:
        raise ValueError(f"unknown clock {name!r}")
    _clock[0] = name


def clock_name() -> str:
    return _clock[0]


def now() -> float:
    """The selected clock's reading for this process."""
    return time.process_time() if _clock[0] == "cpu" else time.perf_counter()


def run_child(command: list[str], **kwargs: Any) -> tuple[float, str]:
    """Run a child process to completion; its seconds on the selected clock and its stdout.

    CPU time is the child's user + system time, grandchildren it waited for included.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (cpu if _clock[0] == "cpu" else wall), result.stdout


def paused(call: Callable[[], Any]) -> Any:
    """`call()`, with the garbage collector collected beforehand and paused during it.

    As a clock for `interleave`, for a case that measures itself within the pause."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        return call()
    finally:
        if enabled:
            gc.enable()


def timed(call: Callable[[], object]) -> float:
    def run() -> float:
        start = now()
        call()
        return now() - start

    seconds: float = paused(run)
    return seconds


def reported(call: Callable[[], Any]) -> float:
    """The seconds a self-measuring case returns."""
    return float(call())


def interleave(
    cases: dict[str, Callable[[], Any]],
    rounds: int,
    clock: Callable[[Callable[[], Any]], float] = timed,
) -> dict[str, Sample]:
    """Time each case once per round, rotating the order; returns name -> sample.

    `clock` turns one call into seconds: by default its wall time; for a case that
    measures itself (a child process reporting its import time) pass `reported`.
    """
    names = list(cases)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(clock(cases[name]))
    return {name: Sample(name, tuple(t)) for name, t in times.items()}


@dataclass(frozen=True)
class Goal:
    """What a row must show: `faster` means peer/ours >= value, `time` ours/peer <= value,
    `absolute` ours median <= value seconds, `count` at most value messages counted,
    `memory` ours/peer <= value in bytes."""

    kind: str
    value: float

    def text(self) -> str:
        if self.kind == "faster":
            return f">= {self.value:g}x faster"
        if self.kind == "time":
            return f"<= {self.value:g}x its time"
        if self.kind == "memory":
            return f"<= {self.value:g}x its memory"
        if self.kind == "count":
            return "none" if self.value == 0 else f"<= {self.value:g} messages"
        return f"<= {self.value * 1000:g} ms"


@dataclass(frozen=True)
class Row:
    """One figure of the report: ours against one peer (or against an absolute goal)."""

    figure: str
    label: str
    ours: Sample
    peer: Sample | None = None
    goal: Goal | None = None
    #: For a `count` goal: (messages counted, messages in all); ours/peer is their time share.
    count: tuple[int, int] | None = None

    @property
    def speedup(self) -> float:
        assert self.peer is not None
        return self.peer.median / self.ours.median

    @property
    def speedup_min(self) -> float:
        assert self.peer is not None
        return self.peer.min / self.ours.min

    @property
    def met(self) -> bool | None:
        if self.goal is None:
            return None
        if self.goal.kind == "absolute":
            return self.ours.median <= self.goal.value
        if self.goal.kind == "count":
            assert self.count is not None
            return self.count[0] <= self.goal.value
        if self.goal.kind == "faster":
            return self.speedup >= self.goal.value
        return 1 / self.speedup <= self.goal.value

    def ratio_text(self) -> str:
        if self.count is not None:
            n, total = self.count
            if n == 0:
                return f"0 of {total} messages"
            return f"{n} of {total} messages, {1 / self.speedup:.0%} of the decode time"
        if self.peer is None:
            return f"{ms(self.ours.median)} (min {ms(self.ours.min)})"
        if self.goal is not None and self.goal.kind == "memory":
            return f"{1 / self.speedup:.2f}x its memory (min {1 / self.speedup_min:.2f}x)"
        if self.goal is not None and self.goal.kind == "time" or self.speedup < 1:
            return f"{1 / self.speedup:.2f}x its time (min {1 / self.speedup_min:.2f}x)"
        return f"{self.speedup:.1f}x faster (min {self.speedup_min:.1f}x)"


def ms(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} us"
