"""The pydantic v2 target: strict models validated by pydantic-core."""

from __future__ import annotations

from ...target import Target
from .lower import lower

TARGET = Target(
    "pydantic",
    lower,
    requires=("pydantic", "pydantic"),
    runtime_extras=("Model", "ValidationError", "encode", "load_json", "rebuild", "wire_validator"),
)
