"""Figures 2, 3, 4 and 7: decode and encode speed against the peers, and the slow path's cost.

Every section first checks that all contenders produce the same thing (the same
messages decoded, the same JSON re-encoded), then times them in interleaved
rounds. A case is one pass over a whole stream (or, for the slow path, one
message decoded many times).
"""

from __future__ import annotations

import json
from collections import Counter
from types import ModuleType
from typing import Any

import msgspec

from . import floor, peers
from .packages import OUR_SCHEMA, STREAM_V2, Workspace, newest, read_lines
from .report import Section
from .timing import Goal, Row, interleave

ENVELOPE = {"jsonrpc": "2.0", "method": "session/update"}


def _same_json(produced: list[bytes], lines: list[bytes], who: str) -> None:
    bad = sum(json.loads(p) != json.loads(line) for p, line in zip(produced, lines, strict=True))
    if bad:
        raise SystemExit(f"{who} re-encoded {bad} of {len(lines)} messages differently")


def _our_encoder(pkg: ModuleType) -> Any:
    encode = pkg.encode

    def encode_notification(params: Any) -> bytes:
        data: bytes = encode({**ENVELOPE, "params": params})
        return data + b"\n"

    return encode_notification


def _extended(line: bytes) -> bytes:
    """`line` with one property its update's schema does not declare (what an agent on a
    newer revision, or with an extension, sends)."""
    message = json.loads(line)
    message["params"]["update"]["x-acme-trace"] = {"span": "7f3a", "depth": 2}
    return json.dumps(message, separators=(",", ":")).encode()


def v1(ws: Workspace, lines: list[bytes], rounds: int) -> tuple[Section, Section]:
    """Figures 2 and 3 on the v1 stream, with the package made from the newest v1 schema."""
    pkg = ws.ours("bench_v1", newest("v1"), take_all=True)
    assert pkg is not None, ws.errors
    sdk = peers.sdk()
    ours = pkg.decode_notification
    ours_objs = [ours(line) for line in lines]
    sdk_objs = [sdk.own_decode(line) for line in lines]
    floor_objs = [floor.decode_notification(line) for line in lines]
    our_encode = _our_encoder(pkg)
    _same_json([our_encode(o) for o in ours_objs], lines, "acp-codegen")
    _same_json([sdk.own_encode(o) for o in sdk_objs], lines, "the SDK (own path)")
    _same_json([sdk.best_encode(o) for o in sdk_objs], lines, "the SDK (best path)")
    _same_json([floor.encode_notification(o) for o in floor_objs], lines, "the msgspec floor")
    # The same stream with an undeclared property in one update of ten, decoded by a
    # package of its own (what one package has decoded before must not change the rest)
    ext_pkg = ws.ours("bench_v1_extended", newest("v1"), take_all=True)
    assert ext_pkg is not None, ws.errors
    ext_lines = [_extended(x) if i % 10 == 0 else x for i, x in enumerate(lines)]
    ext_objs = [ext_pkg.decode_notification(x) for x in ext_lines]
    ext_encode = _our_encoder(ext_pkg)
    _same_json([ext_encode(o) for o in ext_objs], ext_lines, "acp-codegen (extended stream)")

    plain = msgspec.json.Decoder().decode
    decode = interleave(
        {
            "acp-codegen decode_notification": lambda: [ours(x) for x in lines],
            "SDK own: json.loads + model_validate": lambda: [sdk.own_decode(x) for x in lines],
            "SDK best: model_validate_json(envelope)": lambda: [sdk.best_decode(x) for x in lines],
            "floor: hand-written msgspec union": lambda: [
                floor.decode_notification(x) for x in lines
            ],
            "json.loads alone (untyped)": lambda: [json.loads(x) for x in lines],
            "msgspec.json.decode alone (untyped)": lambda: [plain(x) for x in lines],
        },
        rounds,
    )
    s = list(decode.values())
    fig = "2 decode v1"
    dec = Section(
        f"2. Decode {len(lines)} v1 notifications (newest v1 schema)",
        decode,
        [
            Row(
                fig, "vs SDK own path (json.loads + model_validate)", s[0], s[1], Goal("faster", 8)
            ),
            Row(
                fig,
                "vs SDK best path (model_validate_json on an envelope)",
                s[0],
                s[2],
                Goal("faster", 4),
            ),
            Row(fig, "vs hand-written msgspec Struct union (floor)", s[0], s[3], Goal("time", 1.0)),
            Row(fig, "vs json.loads alone (untyped dicts)", s[0], s[4]),
            Row(fig, "vs msgspec.json.decode alone (untyped dicts)", s[0], s[5]),
        ],
    )

    encode = interleave(
        {
            "acp-codegen encode": lambda: [our_encode(o) for o in ours_objs],
            "SDK own: serialize_params + json.dumps": lambda: [sdk.own_encode(o) for o in sdk_objs],
            "SDK best: model_dump_json(envelope)": lambda: [sdk.best_encode(o) for o in sdk_objs],
            "floor: msgspec encode": lambda: [floor.encode_notification(o) for o in floor_objs],
            "acp-codegen encode, 1 update in 10 with an undeclared property": lambda: [
                ext_encode(o) for o in ext_objs
            ],
        },
        rounds,
    )
    e = list(encode.values())
    fig = "3 encode v1"
    enc = Section(
        f"3. Encode the same {len(lines)} messages to JSON bytes",
        encode,
        [
            Row(
                fig,
                "vs SDK own path (serialize_params + json.dumps)",
                e[0],
                e[1],
                Goal("faster", 8),
            ),
            Row(fig, "vs SDK best path (model_dump_json on an envelope)", e[0], e[2]),
            Row(fig, "vs hand-written msgspec Struct union (floor)", e[0], e[3]),
            Row(
                fig,
                "the stream with an undeclared property in 1 update of 10 vs without",
                e[4],
                e[0],
            ),
        ],
    )
    return dec, enc


def v2(ws: Workspace, rounds: int, limit: int | None) -> Section:
    """Figure 4: our schema/ package against datamodel-codegen's pydantic v2 output."""
    lines = read_lines(STREAM_V2, limit)
    section = Section(f"4. Decode the v2 stream ({STREAM_V2.name}, {len(lines)} messages)")
    published = newest("v2-unstable")
    ours = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    pub = ws.ours("bench_pub_v2u", published, take_all=True)
    assert pub is not None, ws.errors
    dmc = peers.dmc(ws.dmc("dmc_v2u", published))
    if ours is None:
        section.notes.append(
            f"schema/ did not generate, so the goal row is missing: {ws.errors['bench_v2']}"
        )
    main = ours or pub
    unknown = main._runtime.UnknownVariant
    ours_objs = [main.decode_notification(line) for line in lines]
    both = [
        line
        for line, obj in zip(lines, ours_objs, strict=True)
        if not isinstance(obj.update, unknown) and peers.dmc_understands(dmc.best_decode(line))
    ]
    section.notes.append(f"{len(both)} of {len(lines)} messages are variants both understand")
    cases = {
        "acp-codegen (published v2 unstable --all), common": lambda: [
            pub.decode_notification(x) for x in both
        ],
        "datamodel-codegen best: model_validate_json, common": lambda: [
            dmc.best_decode(x) for x in both
        ],
        "datamodel-codegen: json.loads + model_validate, common": lambda: [
            dmc.own_decode(x) for x in both
        ],
    }
    if ours is not None:
        cases = {
            "acp-codegen (schema/), common": lambda: [ours.decode_notification(x) for x in both],
            "acp-codegen (schema/), whole stream": lambda: [
                ours.decode_notification(x) for x in lines
            ],
            **cases,
        }
    section.samples = interleave(cases, rounds)
    s = section.samples
    fig = "4 decode v2"
    pub_s = s["acp-codegen (published v2 unstable --all), common"]
    best, own = (
        s["datamodel-codegen best: model_validate_json, common"],
        s["datamodel-codegen: json.loads + model_validate, common"],
    )
    if ours is not None:
        ours_s = s["acp-codegen (schema/), common"]
        section.rows += [
            Row(
                fig,
                "schema/ package vs datamodel-codegen pydantic v2 (model_validate_json)",
                ours_s,
                best,
                Goal("faster", 5),
            ),
            Row(
                fig,
                "schema/ package vs datamodel-codegen pydantic v2 (json.loads + model_validate)",
                ours_s,
                own,
            ),
        ]
    section.rows.append(
        Row(
            fig,
            "same published schema: ours --all vs datamodel-codegen (model_validate_json)",
            pub_s,
            best,
        )
    )
    return section


def slow_path(ws: Workspace, lines: list[bytes], rounds: int, repeat: int) -> Section:
    """Figure 7: what a message costs when strict decoding fails and the slow path runs."""
    pkg = ws.ours("bench_v1", newest("v1"), take_all=True)
    assert pkg is not None, ws.errors
    strict = next(x for x in lines if b'"tool_call_update"' in x and b'"content":[{' in x)
    message = json.loads(strict)
    update = message["params"]["update"]
    bad_meta = _variant(message, {**update, "_meta": "not an object"})
    bad_item = _variant(message, {**update, "content": [*update["content"], {"type": "content"}]})
    for lenient in (bad_meta, bad_item):
        pkg.decode_notification(lenient)
    raw = pkg.codec._ENVELOPE
    decode = pkg.decode_notification
    reps = range(repeat)
    cases = {
        "strict message, decode_notification": lambda: [decode(strict) for _ in reps],
        "strict message, bare msgspec decoder (no fallback)": lambda: [raw(strict) for _ in reps],
        "strict message, floor": lambda: [floor.decode_notification(strict) for _ in reps],
        "lenient: _meta of the wrong type": lambda: [decode(bad_meta) for _ in reps],
        "lenient: one invalid content item": lambda: [decode(bad_item) for _ in reps],
    }
    v2pkg = ws.ours("bench_pub_v2u", newest("v2-unstable"), take_all=True)
    if v2pkg is not None:
        known = next(x for x in read_lines(STREAM_V2) if b'"agent_message_chunk"' in x)
        future = _variant(json.loads(known), {"sessionUpdate": "_acme_progress", "percent": 5})
        cases["v2 known agent_message_chunk"] = lambda: [
            v2pkg.decode_notification(known) for _ in reps
        ]
        cases["v2 unknown kind (kept as Unknown*)"] = lambda: [
            v2pkg.decode_notification(future) for _ in reps
        ]
    s = interleave(cases, rounds)
    fig = "7 slow path"
    rows = [
        Row(
            fig,
            "strict message: decode_notification vs the bare msgspec decoder it wraps",
            s["strict message, decode_notification"],
            s["strict message, bare msgspec decoder (no fallback)"],
            Goal("time", 1.1),
        ),
        Row(
            fig,
            "strict message: decode_notification vs floor",
            s["strict message, decode_notification"],
            s["strict message, floor"],
        ),
        Row(
            fig,
            "lenient `_meta` message vs strict message",
            s["lenient: _meta of the wrong type"],
            s["strict message, decode_notification"],
        ),
        Row(
            fig,
            "lenient skip-invalid-item message vs strict message",
            s["lenient: one invalid content item"],
            s["strict message, decode_notification"],
        ),
    ]
    if v2pkg is not None:
        rows.append(
            Row(
                fig,
                "v2 unknown kind vs known chunk",
                s["v2 unknown kind (kept as Unknown*)"],
                s["v2 known agent_message_chunk"],
            )
        )
    section = Section(f"7. Slow path: one message decoded {repeat} times", s, rows)
    streams = [("v1 stream, newest v1 --all", pkg, lines)]
    ours = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    if ours is not None:
        streams.append(("v2 stream, schema/", ours, read_lines(STREAM_V2, len(lines))))
    for label, package, stream in streams:
        _slow_share(section, label, package, stream, rounds)
    return section


def _slow_share(
    section: Section, label: str, pkg: ModuleType, lines: list[bytes], rounds: int
) -> None:
    """Count the valid messages of known kinds that strict decoding refuses, and their time
    share: they are read by the lenient pass (a union nested in the union, which one strict
    msgspec pass cannot read, is the expected case)."""
    fast, unknown = pkg.codec._ENVELOPE, pkg._runtime.UnknownVariant
    decode = pkg.decode_notification
    lenient: list[bytes] = []
    for line in lines:
        try:
            fast(line)
        except msgspec.ValidationError:
            repairs: list[Any] = []
            if not isinstance(decode(line, repairs).update, unknown) and not repairs:
                lenient.append(line)
    cases = {f"{label}: whole stream": lambda: [decode(x) for x in lines]}
    if lenient:
        cases[f"{label}: valid known messages the lenient pass reads"] = lambda: [
            decode(x) for x in lenient
        ]
    samples = interleave(cases, rounds)
    section.samples.update(samples)
    whole, *part = samples.values()
    section.rows.append(
        Row(
            "7 slow path",
            f"{label}: valid messages of known kinds read by the lenient pass (time share)",
            part[0] if part else whole,
            whole,
            Goal("count", 0),
            count=(len(lenient), len(lines)),
        )
    )
    kinds = Counter(
        json.loads(x)["params"]["update"]["sessionUpdate"]
        + (f"/{json.loads(x)['params']['update'].get('state')}" if b"state_update" in x else "")
        for x in lenient
    )
    if kinds:
        section.notes.append(f"{label}: kinds the lenient pass read {dict(kinds.most_common())}")


def _variant(message: dict[str, Any], update: dict[str, Any]) -> bytes:
    params = {**message["params"], "update": update}
    return json.dumps({**message, "params": params}, separators=(",", ":")).encode()
