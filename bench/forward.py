"""Figure 10: what forward compatibility costs, next to the official SDK.

Four messages that strict decoding refuses, each the strict known message of
figure 7 (a v1 ``tool_call_update`` with content) changed in one place, so all
are about the same size: an unknown update kind, one undeclared property, a
``_meta`` of the wrong type, one invalid content item. Each, decoded again and again
(so its twin leads: tried before strict decoding), is timed against the strict known
message (goal: at most 3x its time) and against the official SDK's own path on the
strict known message (goal: faster). Then each as a message strict decoding refuses
every time (no twin leading: what an isolated fault costs; goal: faster than the
SDK), and a stretch of the stream with every 10th or 3rd message that fault, against
the stretch alone. Beside each, its floor: the failed strict pass plus one more strict
pass, with no Python between, which is the least any repair of a refused message built
on msgspec's strict decoder can cost, since msgspec can neither keep an undeclared
property nor take an unknown tag. A recursive untagged union malformed 14 levels deep
must be rejected in under 10 ms.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from . import peers
from .packages import Workspace, newest
from .report import Section
from .timing import Goal, Row, interleave

#: ``Node = anyOf[{child: Node}, {leaf: string}]``, carried by a one-variant union.
NODE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Node": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"child": {"$ref": "#/$defs/Node"}},
                    "required": ["child"],
                },
                {
                    "type": "object",
                    "properties": {"leaf": {"type": "string"}},
                    "required": ["leaf"],
                },
            ]
        },
        "Update": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "tree"},
                        "root": {"$ref": "#/$defs/Node"},
                    },
                    "required": ["kind", "root"],
                }
            ]
        },
    },
}


#: Mixed streams: every n-th message of a stretch of the stream replaced by the fault.
MIXES = (10, 3)
_TH = {10: "th", 3: "rd"}


def _variant(message: dict[str, Any], update: dict[str, Any]) -> bytes:
    params = {**message["params"], "update": update}
    return json.dumps({**message, "params": params}, separators=(",", ":")).encode()


def _deep_node(levels: int) -> bytes:
    node: Any = {"leaf": 5}
    for _ in range(levels):
        node = {"child": node}
    return json.dumps({"kind": "tree", "root": node}).encode()


def figure(ws: Workspace, lines: list[bytes], rounds: int, repeat: int) -> Section:
    pkg = ws.ours("bench_v1", newest("v1"), take_all=True)
    assert pkg is not None, ws.errors
    sdk = peers.sdk()
    strict = next(x for x in lines if b'"tool_call_update"' in x and b'"content":[{' in x)
    message = json.loads(strict)
    update = message["params"]["update"]
    faults = {
        "unknown update kind": _variant(
            message, {**update, "sessionUpdate": "_acme_tool_call_upd"}
        ),
        "known update, one undeclared field": _variant(message, {**update, "name": "read"}),
        "`_meta` of the wrong type": _variant(message, {**update, "_meta": "not an object"}),
        "one invalid array item": _variant(
            message, {**update, "content": [*update["content"], {"type": "content"}]}
        ),
    }
    decode = pkg.decode_notification
    for data in faults.values():  # each decodes, and re-encodes what it kept
        params = decode(data)
        assert json.loads(pkg.encode(params))["sessionId"] == message["params"]["sessionId"]
    reps = range(repeat)
    cases: dict[str, Any] = {"strict known message": lambda: [decode(strict) for _ in reps]}
    cases["SDK own path, strict known message"] = lambda: [sdk.own_decode(strict) for _ in reps]
    for label, data in faults.items():
        cases[label] = lambda data=data: [decode(data) for _ in reps]
    fast = pkg.codec._ENVELOPE_STRICT
    validation_error = pkg.codec.msgspec.ValidationError
    twins = pkg.codec._ENVELOPE_TWINS
    error_at = pkg.codec._rt.error_at

    def floor(data: bytes) -> None:
        # what any design that starts from msgspec's strict pass pays at the least: the
        # failed pass, then one more strict pass over a message of the same size, with
        # nothing in Python between them
        for _ in reps:
            try:
                fast(data)
            except validation_error:
                pass
            fast(strict)

    def least(data: bytes) -> Any:
        # the failed pass, the read of where it failed (the only way to learn the fault),
        # and the twin's one pass over the same message, which reads exactly that fault
        # (an unknown update through the union's hook); nothing turned back, no repair
        try:
            fast(data)
        except validation_error as exc:
            where = error_at(exc)
        found = twins._find(where)
        if not isinstance(found, tuple):  # (a spot with no twin: none for it)
            return None
        decode = found[0]

        def run() -> None:
            for _ in reps:
                try:
                    fast(data)
                except validation_error as exc:
                    str(exc)
                decode(data)

        return run

    lead = pkg.codec._ENVELOPE_LEAD

    def messages(sequence: list[bytes], lead_on: bool) -> None:
        # `sequence` decoded in turn, from no lead; with `lead_on` false, none ever takes
        # over, so each faulty message is refused by strict decoding
        saved = lead._need
        lead.step_down()
        if not lead_on:
            lead._need = 2**31
        try:
            for data in sequence:
                decode(data)
        finally:
            lead._need = saved

    def refused(data: bytes) -> None:
        messages([data] * repeat, False)

    # a stretch of the real stream, and the same with every n-th message faulty
    block = lines[:1000]

    def every(data: bytes, n: int) -> list[bytes]:
        return [data if i % n == n - 1 else line for i, line in enumerate(block)]

    cases["stream, 1,000 messages"] = lambda: [decode(x) for x in block]
    # the lead's worst case: a twin leads after two refused messages in a row, reads a
    # third, then meets another fault and steps down, over and over
    first, *_, second = faults.values()
    flapping = [first, first, first, second] * (repeat // 4)

    def flap(lead_on: bool) -> None:
        messages(flapping, lead_on)

    cases["flapping lead"] = lambda: flap(True)
    cases["flapping, no lead"] = lambda: flap(False)
    for label, data in faults.items():
        cases[f"{label}: refused each time"] = lambda data=data: refused(data)
        for n in MIXES:
            mixed = every(data, n)
            cases[f"{label}: every {n}"] = lambda mixed=mixed: [decode(x) for x in mixed]
        cases[f"{label}: floor"] = lambda data=data: floor(data)
        run = least(data)
        if run is not None:
            cases[f"{label}: least"] = run
    s = interleave(cases, rounds)
    fig = "10 forward"
    labels = list(faults)
    rows = []
    for label in faults:
        rows.append(
            Row(
                fig,
                f"{label} vs strict known message",
                s[label],
                s["strict known message"],
                Goal("time", 3),
            )
        )
        rows.append(
            Row(
                fig,
                f"{label} vs SDK own path on the known message",
                s[label],
                s["SDK own path, strict known message"],
                Goal("faster", 1),
            )
        )
    for label in faults:
        rows.append(
            Row(
                fig,
                f"{label}, refused each time (no twin leading) vs strict known message",
                s[f"{label}: refused each time"],
                s["strict known message"],
            )
        )
        rows.append(
            Row(
                fig,
                f"{label}, refused each time vs SDK own path on the known message",
                s[f"{label}: refused each time"],
                s["SDK own path, strict known message"],
                Goal("faster", 1),
            )
        )
    rows.append(
        Row(
            fig,
            f"{labels[0]} three times, then {labels[-1]}, repeated (a lead that steps down"
            " every fourth message) vs the same with no twin leading",
            s["flapping lead"],
            s["flapping, no lead"],
        )
    )
    for label in faults:
        for n in MIXES:
            rows.append(
                Row(
                    fig,
                    f"1,000 stream messages, every {n}{_TH[n]} one {label} vs none",
                    s[f"{label}: every {n}"],
                    s["stream, 1,000 messages"],
                )
            )
    for label in faults:
        rows.append(
            Row(
                fig,
                f"{label}: floor (failed strict pass + one strict pass) vs strict known message",
                s[f"{label}: floor"],
                s["strict known message"],
            )
        )
        if f"{label}: least" in s:
            rows.append(
                Row(
                    fig,
                    f"{label}: least (failed pass + its error read + the twin's pass) vs strict"
                    " known message",
                    s[f"{label}: least"],
                    s["strict known message"],
                )
            )
    sizes = ", ".join(f"{len(d)} B" for d in (strict, *faults.values()))
    section = Section(f"10. Forward compatibility: one message decoded {repeat} times", s, rows)
    section.notes.append(f"message sizes (strict, then the four above): {sizes}")
    with tempfile.TemporaryDirectory() as folder:
        schema = Path(folder) / "node.json"
        schema.write_text(json.dumps(NODE_SCHEMA), encoding="utf-8")
        node = ws.ours("bench_node", schema, take_all=True)
    assert node is not None, ws.errors
    deep = _deep_node(14)
    tree = node.models.Update

    def reject() -> None:
        try:
            node.decode(deep, tree)
        except node.DecodeError:
            return
        raise AssertionError("a malformed tree decoded")

    timed = interleave({"recursive untagged union, malformed 14 levels deep": reject}, rounds)
    s.update(timed)
    (sample,) = timed.values()
    section.rows.append(
        Row(
            fig,
            "recursive untagged union malformed 14 levels deep: rejected in",
            sample,
            None,
            Goal("absolute", 0.010),
        )
    )
    return section
