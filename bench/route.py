"""Figure 16: `peek`, the routing read, against a whole `decode_notification`.

A proxy that forwards messages unchanged needs only where each goes: its method, request
ID, session ID and update kind. `peek` reads those four and leaves the body unbuilt. It
is timed over the v1 stream (the newest v1 schema, ``--all``) and the v2 stream (the
``schema/`` package), against the same package's `decode_notification` on the same
stream, on each target; the goal, on msgspec, is at most 0.3 times the decode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests import corpus

from .packages import OUR_SCHEMA, STREAM_V2, Workspace, newest, read_lines
from .report import Section
from .timing import Goal, Row, interleave

#: On msgspec, the most a `peek` may cost, as a share of a whole decode.
GOAL = 0.3


def figure(ws: Workspace, rounds: int, limit: int | None) -> Section:
    section = Section("16. Routing read: peek against decode_notification")
    streams = {
        "v1": (newest("v1"), True, read_lines(corpus.STREAM_V1, limit)),
        "v2": (OUR_SCHEMA, False, read_lines(STREAM_V2, limit)),
    }
    cases: dict[str, Callable[[], Any]] = {}
    for target in ("msgspec", "pydantic", "dataclasses"):
        for name, (schema, take_all, lines) in streams.items():
            package = f"bench_route_{name}_{target}"
            pkg = ws.ours(package, schema, take_all=take_all, target=target)
            assert pkg is not None, ws.errors
            for line in lines[:50]:  # the two read the same route
                assert pkg.peek(line).session_id == pkg.decode_notification(line).session_id
            peek, decode = pkg.peek, pkg.decode_notification
            cases[f"{name} {target}: peek"] = lambda p=peek, s=lines: [p(x) for x in s]
            cases[f"{name} {target}: decode_notification"] = lambda d=decode, s=lines: [
                d(x) for x in s
            ]
    samples = interleave(cases, rounds)
    section.samples.update(samples)
    for target in ("msgspec", "pydantic", "dataclasses"):
        for name, (_, _, lines) in streams.items():
            section.rows.append(
                Row(
                    f"16 routing {name}",
                    f"{target}, {len(lines)} messages: peek vs decode_notification",
                    samples[f"{name} {target}: peek"],
                    samples[f"{name} {target}: decode_notification"],
                    Goal("time", GOAL) if target == "msgspec" else None,
                )
            )
    return section
