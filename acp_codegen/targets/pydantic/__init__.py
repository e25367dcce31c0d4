"""The pydantic v2 target: strict models validated by pydantic-core."""

from __future__ import annotations

from ...target import Target
from .lower import lower

TARGET = Target(
    "pydantic",
    lower,
    requires=("pydantic", "pydantic"),
    modules=("pydantic", "annotated_types"),
    # pydantic builds nested model schemas recursively and fails well before msgspec does.
    max_model_chain=32,
    runtime_extras=(
        "Model",
        "OpenModel",
        "attempt",
        "encode",
        "load_json",
        "rebuild",
        "wire_validator",
    ),
)
