"""Where a generated package came from, recorded once in its ``_provenance.py``.

Used by `pipeline`. The record holds one hash, `input_sha256`: the sha256 of the
schema as parsed (overlays applied, keys sorted, no insignificant whitespace)
together with the options that shape the output. Re-indenting or reordering the
schema file leaves it unchanged, so ``check`` does not call such a package stale.
Every other generated file's header names only the source file and the generator.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from . import __version__


def canonical_json(value: Any) -> str:
    """`value` as JSON with sorted keys and no optional whitespace: one spelling per value."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def input_sha256(document: Any, options: dict[str, Any]) -> str:
    """The hash of the parsed schema and the output-shaping `options`, together."""
    payload = canonical_json({"options": options, "schema": document})
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def generator() -> str:
    return f"acp-codegen {__version__}"
