"""Why the pydantic target uses our own templates: the measurement behind the choice.

``python -m bench.pydantic_choice [--rounds N]`` builds pydantic v2 models two ways
from the same published schemas and holds them to the same checks:

- datamodel-code-generator through its Python API (``datamodel_code_generator.generate``),
  configured as close to our needs as its settings go: snake_case fields with
  aliases, strict scalar types, ``Annotated`` constraints, union variants named
  from their tags, no formatter;
- our ``--target pydantic`` package.

Correctness is judged on the newest v2 unstable schema (open unions, leniency
flags, nullable patches), speed on the v1 stream with the newest v1 schema. The
script prints one table; it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import datamodel_code_generator as dcg
from datamodel_code_generator.enums import StrictTypes
from pydantic import BaseModel, TypeAdapter, ValidationError

from tests import corpus

from . import peers
from .packages import Workspace, newest, read_lines, workspace
from .timing import interleave

CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "hi"},
}


def dcg_module(ws: Workspace, name: str, schema: Path) -> ModuleType:
    """datamodel-code-generator's models for `schema`, via its Python API."""
    out = ws.root / f"{name}.py"
    started = time.perf_counter()
    dcg.generate(
        schema,
        input_file_type=dcg.InputFileType.JsonSchema,
        output=out,
        output_model_type=dcg.DataModelType.PydanticV2BaseModel,
        snake_case_field=True,
        use_annotated=True,
        field_constraints=True,
        strict_types=[
            StrictTypes.str,
            StrictTypes.int,
            StrictTypes.float,
            StrictTypes.bool,
        ],
        use_union_operator=True,
        use_standard_collections=True,
        use_tag_as_union_variant_name=True,
        collapse_root_models=True,
        formatters=[],
    )
    print(
        f"datamodel-code-generator ({name}): {time.perf_counter() - started:.2f} s", file=sys.stderr
    )
    return ws._import(name)


class Contender:
    """One set of models seen through the same few questions."""

    def __init__(
        self, label: str, decode: Callable[[bytes], Any], encode: Callable[[Any], bytes]
    ) -> None:
        self.label = label
        self.decode = decode
        self.encode = encode

    def round_trips(self, payload: dict[str, Any]) -> bool:
        try:
            return bool(
                json.loads(self.encode(self.decode(json.dumps(payload).encode()))) == payload
            )
        except (ValueError, ValidationError):
            return False

    def rejects(self, payload: dict[str, Any]) -> bool:
        try:
            self.decode(json.dumps(payload).encode())
        except (ValueError, ValidationError):
            return True
        return False

    def repairs(self, payload: dict[str, Any], repaired: dict[str, Any]) -> bool:
        """Decodes `payload` into something that re-encodes as `repaired`."""
        try:
            obj = self.decode(json.dumps(payload).encode())
            return bool(json.loads(self.encode(obj)) == repaired)
        except (ValueError, ValidationError):
            return False


def checks(c: Contender, variant_names: list[str]) -> dict[str, bool]:
    unknown = {"sessionUpdate": "_future_kind", "x": [1, None]}
    return {
        "unknown update kept and re-encoded": c.round_trips(unknown),
        "unknown nested content kept": c.round_trips(
            {**CHUNK, "content": {"type": "hologram", "frames": 3}}
        ),
        "malformed known update rejected": c.rejects(
            {**CHUNK, "content": {"type": "text", "text": 5}}
        ),
        "omitted and null both re-encoded exactly": c.round_trips(
            {"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": None}
        )
        and c.round_trips({"sessionUpdate": "tool_call_update", "toolCallId": "t"}),
        'no lax coercion ("1" -> 1)': c.rejects(
            {"sessionUpdate": "usage_update", "used": "1", "size": 2}
        ),
        "snake_case key not read from the wire": c.rejects(
            {
                "sessionUpdate": "agent_message_chunk",
                "message_id": "m",
                "content": {"type": "text", "text": "hi"},
            }
        ),
        "lenient _meta: bad value dropped, update kept": c.repairs({**CHUNK, "_meta": [1]}, CHUNK),
        "variant class names carry no numbers": not any(
            n.rstrip("0123456789") != n for n in variant_names
        ),
    }


def _update_contenders(ws: Workspace) -> tuple[Contender, Contender, list[str], list[str]]:
    schema = newest("v2-unstable")
    ours = ws.ours("choice_v2u", schema, take_all=False, target="pydantic")
    assert ours is not None, ws.errors
    theirs = dcg_module(ws, "choice_dcg_v2u", schema)
    field = theirs.UpdateSessionNotification.model_fields["update"]
    adapter = TypeAdapter(field.annotation)

    def dcg_encode(obj: Any) -> bytes:
        return adapter.dump_json(obj, by_alias=True, exclude_unset=True)

    ours_c = Contender("acp-codegen --target pydantic", ours.decode_update, ours.encode)
    dcg_c = Contender("datamodel-code-generator API", adapter.validate_json, dcg_encode)
    ours_names = [
        c.__name__
        for v in ours.SESSION_UPDATE_VARIANTS.values()
        for c in (v if isinstance(v, tuple) else (v,))
    ]
    return ours_c, dcg_c, ours_names, sorted(_union_class_names(field.annotation))


def _union_class_names(tp: Any) -> set[str]:
    """Names of the model classes a (possibly root-model-wrapped) union is made of."""
    found: set[str] = set()
    for arg in typing.get_args(tp):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            found.add(arg.__name__)
            root = arg.model_fields.get("root")
            if root is not None:
                found |= _union_class_names(root.annotation)
        else:
            found |= _union_class_names(arg)
    return found


def speed(ws: Workspace, rounds: int) -> dict[str, float]:
    lines = read_lines(corpus.STREAM_V1, None)
    ours = ws.ours("choice_v1", newest("v1"), take_all=False, target="pydantic")
    assert ours is not None, ws.errors
    theirs = dcg_module(ws, "choice_dcg_v1", newest("v1"))
    paths = peers._paths(
        theirs.SessionNotification,
        lambda o: o.model_dump(mode="json", by_alias=True, exclude_unset=True),
    )
    decoded_ours = [ours.decode_notification(x) for x in lines]
    decoded_dcg = [paths.best_decode(x) for x in lines]
    envelope = {"jsonrpc": "2.0", "method": "session/update"}
    samples = interleave(
        {
            "decode: ours": lambda: [ours.decode_notification(x) for x in lines],
            "decode: dcg": lambda: [paths.best_decode(x) for x in lines],
            "encode: ours": lambda: [ours.encode({**envelope, "params": o}) for o in decoded_ours],
            "encode: dcg": lambda: [paths.best_encode(o) for o in decoded_dcg],
        },
        rounds,
    )
    return {name: s.median for name, s in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pydantic_choice")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    if not corpus.available():
        print(f"error: {corpus.MISSING}", file=sys.stderr)
        return 2
    ws, scratch = workspace()
    with scratch:
        ours_c, dcg_c, ours_names, dcg_names = _update_contenders(ws)
        theirs = checks(dcg_c, dcg_names)
        rows = [(k, v, theirs[k]) for k, v in checks(ours_c, ours_names).items()]
        print("datamodel-code-generator's SessionUpdate members:", ", ".join(dcg_names))
        times = speed(ws, args.rounds)
    width = max(len(k) for k, _, _ in rows)
    print(f"{'check (newest v2 unstable schema)':{width}}  ours  datamodel-code-generator")
    for name, ours_ok, dcg_ok in rows:
        print(f"{name:{width}}  {'yes' if ours_ok else 'NO':4}  {'yes' if dcg_ok else 'NO'}")
    print(f"\nv1 stream ({corpus.STREAM_V1.name}), median of {args.rounds} interleaved rounds:")
    for what in ("decode", "encode"):
        ours_t, dcg_t = times[f"{what}: ours"], times[f"{what}: dcg"]
        print(
            f"  {what}: ours {ours_t * 1e3:.0f} ms, datamodel-code-generator "
            f"{dcg_t * 1e3:.0f} ms ({dcg_t / ours_t:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
