"""The default target: msgspec structs, decoded natively with a slow path for the rest."""

from __future__ import annotations

from ...target import Target
from .lower import WIRE_NAMES, lower

TARGET = Target(
    "msgspec",
    lower,
    modules=("msgspec",),
    wire_names=WIRE_NAMES,
    runtime_extras=(
        "EXTRAS_SEEN",
        "LED",
        "Lead",
        "RawEnvelope",
        "Twins",
        "dec_hook",
        "enc_hook",
        "encode_value",
        "error_at",
        "parse_json",
        "shape_union",
    ),
)
