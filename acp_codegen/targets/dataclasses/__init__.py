"""The stdlib target: ``dataclasses`` models decoded by ``json`` and the shared walker.

The generated package imports nothing outside the standard library.
"""

from __future__ import annotations

from ...target import Target
from .lower import lower

TARGET = Target(
    "dataclasses",
    lower,
    runtime_extras=(
        "Meta",
        "Model",
        "OpenModel",
        "encode",
        "field",
        "load_json",
        "notification_params",
    ),
)
