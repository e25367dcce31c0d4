"""Figure 11: the stdlib target (``--target dataclasses``) against the official SDK.

Same stream, newest v1 schema and SDK paths as figure 8, but our package is the
one that needs nothing installed: ``json.loads`` then the shared walker builds
plain dataclasses, in pure Python. The goal is at most 3x the time per message
of the SDK's own path (``json.loads`` + ``model_validate``, compiled validation).
Every contender's output is checked equal before anything is timed.
"""

from __future__ import annotations

from . import peers
from .codec import _our_encoder, _same_json
from .packages import Workspace, newest
from .report import Section
from .timing import Goal, Row, interleave

GOAL = Goal("time", 3.0)


def figure(ws: Workspace, lines: list[bytes], rounds: int) -> list[Section]:
    pkg = ws.ours("bench_v1_dataclasses", newest("v1"), take_all=True, target="dataclasses")
    assert pkg is not None, ws.errors
    sdk = peers.sdk()
    ours = pkg.decode_notification
    ours_objs = [ours(line) for line in lines]
    sdk_objs = [sdk.own_decode(line) for line in lines]
    _same_json([_our_encoder(pkg)(o) for o in ours_objs], lines, "acp-codegen (dataclasses)")
    _same_json([sdk.own_encode(o) for o in sdk_objs], lines, "the SDK (own path)")
    decode = interleave(
        {
            "acp-codegen dataclasses decode_notification": lambda: [ours(x) for x in lines],
            "SDK own: json.loads + model_validate": lambda: [sdk.own_decode(x) for x in lines],
        },
        rounds,
    )
    d = list(decode.values())
    return [
        Section(
            f"11. dataclasses target: decode {len(lines)} v1 notifications (newest v1 schema)",
            decode,
            [
                Row(
                    "11 dataclasses decode",
                    "vs SDK own path (json.loads + model_validate)",
                    d[0],
                    d[1],
                    GOAL,
                )
            ],
        )
    ]
