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
        "Extras",
        "Flatten",
        "IntRange",
        "SHORT",
        "check_depth",
        "check_ints",
        "dec_hook",
        "decoder",
        "enc_hook",
        "error_path",
        "lenient_notification",
        "plain",
        "shape_union",
        "unreadable",
        "utf8_checked",
    ),
)
