"""Figure 8: the pydantic target (``--target pydantic``) against the official SDK.

Same stream, same newest v1 schema and same paths as figures 2 and 3, but our
package is the pydantic v2 one, so both sides pay for pydantic models. The goal
is the issue's: at least 1.5x faster than the SDK's own path, decoding and
encoding. Every contender's output is checked equal before anything is timed.
"""

from __future__ import annotations

from . import peers
from .codec import _our_encoder, _same_json
from .packages import Workspace, newest
from .report import Section
from .timing import Goal, Row, interleave

GOAL = Goal("faster", 1.5)


def figure(ws: Workspace, lines: list[bytes], rounds: int) -> tuple[Section, Section]:
    pkg = ws.ours("bench_v1_pydantic", newest("v1"), take_all=True, target="pydantic")
    assert pkg is not None, ws.errors
    sdk = peers.sdk()
    ours = pkg.decode_notification
    ours_objs = [ours(line) for line in lines]
    sdk_objs = [sdk.own_decode(line) for line in lines]
    our_encode = _our_encoder(pkg)
    _same_json([our_encode(o) for o in ours_objs], lines, "acp-codegen (pydantic target)")
    _same_json([sdk.own_encode(o) for o in sdk_objs], lines, "the SDK (own path)")

    decode = interleave(
        {
            "acp-codegen pydantic decode_notification": lambda: [ours(x) for x in lines],
            "SDK own: json.loads + model_validate": lambda: [sdk.own_decode(x) for x in lines],
            "SDK best: model_validate_json(envelope)": lambda: [sdk.best_decode(x) for x in lines],
        },
        rounds,
    )
    d = list(decode.values())
    fig = "8 pydantic decode"
    dec = Section(
        f"8a. pydantic target: decode {len(lines)} v1 notifications (newest v1 schema)",
        decode,
        [
            Row(fig, "vs SDK own path (json.loads + model_validate)", d[0], d[1], GOAL),
            Row(fig, "vs SDK best path (model_validate_json on an envelope)", d[0], d[2]),
        ],
    )
    encode = interleave(
        {
            "acp-codegen pydantic encode": lambda: [our_encode(o) for o in ours_objs],
            "SDK own: serialize_params + json.dumps": lambda: [sdk.own_encode(o) for o in sdk_objs],
            "SDK best: model_dump_json(envelope)": lambda: [sdk.best_encode(o) for o in sdk_objs],
        },
        rounds,
    )
    e = list(encode.values())
    fig = "8 pydantic encode"
    enc = Section(
        f"8b. pydantic target: encode the same {len(lines)} messages to JSON bytes",
        encode,
        [
            Row(fig, "vs SDK own path (serialize_params + json.dumps)", e[0], e[1], GOAL),
            Row(fig, "vs SDK best path (model_dump_json on an envelope)", e[0], e[2]),
        ],
    )
    return dec, enc
