"""Figure 12: decoding a string against an accepted ``pattern`` takes time linear in its length.

The generator accepts only patterns that Python's ``re`` matches in linear time
(`acp_codegen.patterns`). For each target and each pattern below, one property's value
is decoded at 0.5 MB and at 1 MB, built the way that sends a backtracking matcher
furthest back and forth while still failing the pattern; the figure compares the time at
1 MB with twice the time at 0.5 MB (goal: at most 1.3x, that is linear). A super-linear
pattern (``^(a+)+$``, refused) would take hours at these sizes; ``^a*a*b``-like quadratic
ones (refused too) take minutes.

- ``^[a-z]+(-[a-z]+)*$``: a word list, anchored, on ``a-a-a-...-`` (fails at the end);
- ``^\\w+@\\w+\\.com$``: on ``aaaa...@b.co``;
- ``[a-z]{63}X``: unanchored, failing 64 characters in (the most accepted) at every
  position, on ``aaaa...``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from acp_codegen.targets import TARGETS

from .packages import Workspace
from .report import Section
from .timing import Goal, Row, Sample, interleave, now, reported

#: name -> (pattern, the unit repeated, the end that makes the value fail).
PATTERNS = {
    "words": ("^[a-z]+(-[a-z]+)*$", "a-", ""),
    "address": (r"^\w+@\w+\.com$", "a", "@b.co"),
    "unanchored": ("[a-z]{63}X", "a", ""),
}
SIZES = (2**19, 2**20)
SMOKE_SIZES = (2**14, 2**15)


def _schema(folder: Path) -> Path:
    props = {name: {"type": "string", "pattern": p[0]} for name, p in PATTERNS.items()}
    path = folder / "bench_patterns.json"
    path.write_text(
        json.dumps({"$defs": {"A": {"type": "object", "properties": props}}}), encoding="utf-8"
    )
    return path


def _decode(pkg: ModuleType, name: str, size: int) -> Callable[[], float]:
    _pattern, unit, end = PATTERNS[name]
    payload = json.dumps({name: unit * (size // len(unit)) + end})

    def run() -> float:
        start = now()
        try:
            pkg.decode(payload, pkg.A)
        except pkg.DecodeError:
            pass
        else:  # (every value here breaks its pattern)
            raise AssertionError(f"{name} decoded although it breaks its pattern")
        return now() - start

    return run


def figure(ws: Workspace, rounds: int, smoke: bool) -> Section:
    small, large = SMOKE_SIZES if smoke else SIZES
    section = Section(
        f"12. Patterns: decoding {large:,} characters against twice {small:,} (linear: 1x)"
    )
    schema = _schema(ws.root)
    cases: dict[str, Callable[[], float]] = {}
    for target in TARGETS:
        pkg = ws.ours(f"bench_patterns_{target}", schema, take_all=True, target=target)
        if pkg is None:
            section.notes.append(f"pending: {target}: {ws.errors[f'bench_patterns_{target}']}")
            continue
        for name in PATTERNS:
            cases[f"{target} {name} @ {small:,}"] = _decode(pkg, name, small)
            cases[f"{target} {name} @ {large:,}"] = _decode(pkg, name, large)
    if not cases:
        return section
    section.samples = interleave(cases, rounds, clock=reported)
    s = section.samples
    for key in [k for k in s if k.endswith(f"@ {large:,}")]:
        label = key.rsplit(" @ ", 1)[0]
        half = s[f"{label} @ {small:,}"]
        twice = Sample(f"2x {half.name}", tuple(2 * t for t in half.times))
        section.rows.append(
            Row("12 patterns", f"{label}: {large:,} chars vs 2x {small:,}", s[key], twice,
                Goal("time", 1.3))
        )  # fmt: skip
    return section
