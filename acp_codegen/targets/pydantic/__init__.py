"""The pydantic v2 target: strict models validated by pydantic-core."""

from __future__ import annotations

from ...target import Target
from .lower import lower

TARGET = Target(
    "pydantic",
    lower,
    requires=("pydantic", "pydantic"),
    modules=("pydantic", "annotated_types", "re"),
    # Every public name of pydantic.BaseModel (the same from pydantic 2.7 to 2.14): its
    # ``model_*`` API and the deprecated v1 methods.
    model_attributes=(
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "model_computed_fields",
        "model_config",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_extra",
        "model_fields",
        "model_fields_set",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    ),
    # pydantic builds nested model schemas recursively and fails well before msgspec does.
    max_model_chain=32,
    runtime_extras=(
        "AnyJson",
        "Model",
        "OpenModel",
        "attempt",
        "encode",
        "load_json",
        "notification_params",
        "rebuild",
        "shape_choice",
        "wire_validator",
    ),
)
