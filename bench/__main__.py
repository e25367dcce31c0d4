"""Entry point: ``python -m bench [--smoke] [--rounds N] [--only 1,2,...] [--markdown FILE]``.

Runs every figure of the benchmark in one process and prints medians, minimums
and ratios. ``--smoke`` runs one round on a slice of each stream: it proves the
suite works (CI), its numbers mean nothing. Exit status is 0 even when a goal is
missed: the suite measures, it is not a timed test.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from tests import corpus

from . import (
    codec,
    cold,
    conformance,
    dataclasses_target,
    forward,
    patterns,
    pydantic_target,
    recordings,
    reducer,
    report,
    route,
    scaling,
    timing,
    versions,
)
from .packages import DMC_FORMATTERS, read_lines, workspace

SECTIONS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16")
MIN_ROUNDS = 15


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="one round on a small slice (CI)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=MIN_ROUNDS,
        help=f"interleaved rounds per figure (default and minimum {MIN_ROUNDS})",
    )
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help="comma-separated figure numbers to run (default: all)",
    )
    parser.add_argument(
        "--clock",
        choices=timing.CLOCKS,
        default="cpu",
        help="cpu: CPU time, steady on a shared machine (default); wall: wall time",
    )
    parser.add_argument("--markdown", type=Path, help="also write the figures as a markdown table")
    args = parser.parse_args(argv)
    args.only = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = args.only - set(SECTIONS)
    if unknown:
        parser.error(f"--only: no figure {', '.join(sorted(unknown))} (figures: 1-{SECTIONS[-1]})")
    if not args.smoke and args.rounds < MIN_ROUNDS:
        parser.error(f"--rounds must be at least {MIN_ROUNDS} (use --smoke for a quick check)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if not corpus.available():
        print(f"error: {corpus.MISSING}", file=sys.stderr)
        return 2
    timing.use_clock(args.clock)
    rounds = 1 if args.smoke else args.rounds
    limit = 300 if args.smoke else None
    repeat = 50 if args.smoke else 2000
    print(report.header(rounds, args.smoke), flush=True)
    formatters = DMC_FORMATTERS[:1] if args.smoke else DMC_FORMATTERS
    ws, scratch = workspace()
    sections: list[report.Section] = []
    with scratch:
        lines = read_lines(corpus.STREAM_V1, limit)
        steps: list[tuple[str, Callable[[], list[report.Section]]]] = [
            ("1", lambda: [cold.generators(ws, rounds, formatters)]),
            ("2", lambda: list(codec.v1(ws, lines, rounds))),
            ("4", lambda: [codec.v2(ws, rounds, limit)]),
            ("5", lambda: [reducer.reducer(ws, rounds, limit)]),
            ("6", lambda: [cold.imports(ws, rounds)]),
            ("7", lambda: [codec.slow_path(ws, lines, rounds, repeat)]),
            ("8", lambda: list(pydantic_target.figure(ws, lines, rounds))),
            ("9", lambda: [scaling.scaling(ws, rounds, args.smoke)]),
            ("10", lambda: [forward.figure(ws, lines, rounds, repeat)]),
            ("11", lambda: dataclasses_target.figure(ws, lines, rounds)),
            ("12", lambda: [patterns.figure(ws, rounds, args.smoke)]),
            ("13", lambda: [conformance.figure(ws, rounds, args.smoke)]),
            ("14", lambda: [recordings.figure(ws, rounds, args.smoke)]),
            ("15", lambda: [versions.figure(ws, lines, rounds)]),
            ("16", lambda: [route.figure(ws, rounds, limit)]),
        ]
        for key, run in steps:
            if key in args.only or (key == "2" and "3" in args.only):
                done = run()
                sections += done
                print(report.text(done), flush=True)
    if args.markdown:
        page = report.markdown(sections, rounds, args.smoke)
        args.markdown.write_text(page + "\n", encoding="utf-8")
    missed = [row for s in sections for row in s.rows if row.met is False]
    print(
        f"\n{len(missed)} goal(s) not met" + "".join(f"\n  - {r.figure}: {r.label}" for r in missed)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
