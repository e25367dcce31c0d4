"""What only the pydantic target promises, beyond the shared behaviour suites.

Models are pydantic v2 ``BaseModel``s with snake_case attributes and camelCase aliases;
the wire takes only the camelCase names and no lax coercion; the open unions stay open
(and strict about known tags) when pydantic users validate them inside their own models;
the generated package passes ``mypy --strict`` with the pydantic plugin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pytest
from click.testing import CliRunner

from acp_codegen import naming
from acp_codegen.cli import main
from acp_codegen.targets import TARGETS
from tests import corpus
from tests.conftest import OWN_SCHEMA, GenerateFn

CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "hi"},
}


@pytest.fixture(scope="module")
def v2(make_package: GenerateFn) -> ModuleType:
    corpus.require()
    return make_package(corpus.newest(corpus.NEWEST["v2-unstable"]), "pyd_v2u", target="pydantic")


@pytest.fixture(scope="module")
def own(make_package: GenerateFn) -> ModuleType:
    return make_package(OWN_SCHEMA, "pyd_own", target="pydantic", roots=("PromptResponse",))


def test_models_are_pydantic_with_camel_case_aliases(v2: ModuleType) -> None:
    cls = v2.AgentMessageChunk
    assert issubclass(cls, pydantic.BaseModel)
    assert cls.model_fields["message_id"].alias == "messageId"
    assert cls.model_fields["meta"].alias == "_meta"
    built = cls(message_id="m", content=v2.TextContent(text="hi"))
    assert json.loads(v2.encode(built)) == CHUNK
    assert built == v2.decode_update(json.dumps(CHUNK))


def test_snake_case_keys_are_not_read_from_the_wire(v2: ModuleType) -> None:
    snake = {**CHUNK, "message_id": "m"}
    del snake["messageId"]
    with pytest.raises(v2.DecodeError, match="missing required field `messageId`"):
        v2.decode_update(json.dumps(snake))
    nested = {**CHUNK, "content": {"type": "image", "data": "AA", "mime_type": "image/png"}}
    with pytest.raises(v2.DecodeError, match="mimeType"):
        v2.decode_update(json.dumps(nested))


@pytest.mark.parametrize(
    ("field", "bad"), [("used", "1"), ("used", True), ("used", 1.5), ("messageId", 5)]
)
def test_no_lax_coercion(v2: ModuleType, field: str, bad: Any) -> None:
    base = (
        CHUNK if field == "messageId" else {"sessionUpdate": "usage_update", "used": 1, "size": 2}
    )
    with pytest.raises(v2.DecodeError) as info:
        v2.decode_update(json.dumps({**base, field: bad}))
    assert info.value.path == f"$.{field}"


def test_omitted_and_null_differ_in_fields_set(v2: ModuleType) -> None:
    omitted = v2.decode_update(b'{"sessionUpdate":"tool_call_update","toolCallId":"t"}')
    nulled = v2.decode_update(b'{"sessionUpdate":"tool_call_update","toolCallId":"t","title":null}')
    assert omitted.title is v2.UNSET and nulled.title is None
    assert "title" in nulled.model_fields_set and "title" not in omitted.model_fields_set
    assert (
        v2.encode(nulled) == b'{"sessionUpdate":"tool_call_update","toolCallId":"t","title":null}'
    )


def _holder(pkg: ModuleType) -> type[pydantic.BaseModel]:
    """A user's own model that embeds the generated union."""
    return pydantic.create_model("Holder", update=(pkg.SessionUpdate, ...))


@pytest.mark.parametrize("json_input", [True, False], ids=["json", "python"])
def test_union_stays_open_and_strict_inside_user_models(v2: ModuleType, json_input: bool) -> None:
    holder = _holder(v2)

    def validate(update: dict[str, Any]) -> Any:
        data = {"update": update}
        if json_input:
            return holder.model_validate_json(json.dumps(data), by_alias=True, by_name=False)
        return holder.model_validate(data, by_alias=True, by_name=False)

    unknown = validate({"sessionUpdate": "_future", "x": [1]}).update
    assert isinstance(unknown, v2.UnknownSessionUpdate) and unknown.raw["x"] == [1]
    known = validate(CHUNK).update
    assert isinstance(known, v2.AgentMessageChunk) and known.content.text == "hi"
    with pytest.raises(pydantic.ValidationError):
        validate({**CHUNK, "content": {"type": "text", "text": 5}})
    nested = validate({"sessionUpdate": "state_update", "state": "running"}).update
    assert type(nested).__name__ == "RunningStateUpdate"
    # a union nested two deep: the idle state is keyed by its stop reason, null or absent
    for stop, name in (("end_turn", "EndTurnIdleStateUpdate"), (None, "NoneIdleStateUpdate")):
        idle = validate({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})
        assert type(idle.update).__name__ == name
    dumped = json.loads(holder(update=known).model_dump_json())
    assert dumped == {"update": CHUNK}
    assert json.loads(holder(update=unknown).model_dump_json()) == {"update": unknown.raw}


def test_single_variant_union_still_needs_its_tag(tmp_path: Path, make_package: GenerateFn) -> None:
    schema = tmp_path / "one.json"
    schema.write_text(json.dumps(_one_variant_schema()))
    pkg = make_package(schema, "pyd_one_variant", target="pydantic")
    assert pkg.decode_update(b'{"kind":"ping","n":1}').n == 1
    with pytest.raises(pkg.DecodeError):
        pkg.decode_update(b'{"n":1}')
    assert pkg.decode_update(b'{"kind":"pong","n":1}').tag == "pong"  # open by default
    closed = make_package(schema, "pyd_one_variant_closed", target="pydantic", closed_all=True)
    with pytest.raises(closed.DecodeError):
        closed.decode_update(b'{"kind":"pong","n":1}')


def _one_variant_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "Notify": {
                "type": "object",
                "x-method": "session/update",
                "x-side": "client",
                "properties": {"update": {"$ref": "#/$defs/Update"}},
                "required": ["update"],
            },
            "Update": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["kind"],
                        "properties": {
                            "kind": {"type": "string", "const": "ping"},
                            "n": {"type": "integer"},
                        },
                    }
                ]
            },
        },
    }


@pytest.mark.parametrize("target", TARGETS)
def test_field_names_pydantic_reserves_get_an_underscore(
    target: str, tmp_path: Path, make_package: GenerateFn
) -> None:
    """On every target alike (`naming.MODEL_ATTRIBUTES`), so code reads the same attribute
    whichever target generated the package."""
    schema = _one_variant_schema()
    schema["$defs"]["Update"]["oneOf"][0]["properties"].update(
        {name: {"type": "string"} for name in ("schema", "copy", "model_dump")}
    )
    path = tmp_path / "reserved.json"
    path.write_text(json.dumps(schema))
    pkg = make_package(path, "base_model_names", target=target)
    obj = pkg.decode_update(b'{"kind":"ping","schema":"s","copy":"c","model_dump":"d"}')
    assert (obj.schema_, obj.copy_, obj.model_dump_) == ("s", "c", "d")
    assert json.loads(pkg.encode(obj)) == {
        "kind": "ping",
        "schema": "s",
        "copy": "c",
        "model_dump": "d",
    }


@pytest.mark.parametrize("target", TARGETS)
def test_tag_and_field_on_one_attribute_both_keep_their_wire_names(
    target: str, tmp_path: Path, make_package: GenerateFn
) -> None:
    """A property named like the tag once made the pydantic target refuse the schema (only
    it spells the tag as an attribute). Now the field keeps the attribute every target
    gives it and the pydantic tag attribute takes the next free name."""
    schema = _one_variant_schema()
    schema["$defs"]["Update"]["oneOf"][0]["properties"]["Kind"] = {"type": "string"}
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(schema))
    pkg = make_package(path, "tag_meets_field", target=target)
    raw = {"kind": "ping", "Kind": "field"}
    obj = pkg.decode_update(json.dumps(raw).encode())
    assert obj.kind == "field"
    assert json.loads(pkg.encode(obj)) == raw
    if target == "pydantic":
        assert obj.kind_ == "ping"


def test_a_moved_name_that_is_taken_moves_on(tmp_path: Path, make_package: GenerateFn) -> None:
    """``schema`` is a `BaseModel` method, so the field is ``schema_`` (on every target); the
    pydantic tag attribute, also ``schema_``, finds it taken and takes ``schema__``."""
    schema = _one_variant_schema()
    variant = schema["$defs"]["Update"]["oneOf"][0]
    variant["required"] = ["schema"]
    variant["properties"] = {
        "schema": {"type": "string", "const": "ping"},
        "Schema": {"type": "string"},
    }
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(schema))
    pkg = make_package(path, "pyd_moved_taken", target="pydantic")
    raw = {"schema": "ping", "Schema": "s"}
    obj = pkg.decode_update(json.dumps(raw).encode())
    assert (obj.schema_, obj.schema__) == ("s", "ping")
    assert json.loads(pkg.encode(obj)) == raw


def _property_names(node: Any) -> set[str]:
    names: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("properties"), dict):
                names.update(item["properties"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return names


def test_no_published_property_is_moved_off_a_base_model_name() -> None:
    """Moving names `BaseModel` defines onto every target (`naming.MODEL_ATTRIBUTES`)
    renames no attribute of a published schema on any target."""
    corpus.require()
    moved = {
        (revision.file, wire)
        for revision in corpus.schemas()
        for wire in _property_names(json.loads(revision.path.read_text(encoding="utf-8")))
        if naming.attribute(wire).removesuffix("_") in naming.MODEL_ATTRIBUTES
    }
    assert not moved
    assert len(corpus.schemas()) > 100
    assert "model_id" not in naming.MODEL_ATTRIBUTES  # modelId is published


def test_cli_target_option(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    runner = CliRunner()
    ok = runner.invoke(
        main,
        [
            "generate",
            "--schema",
            str(OWN_SCHEMA),
            "--out",
            str(out),
            "--package",
            "pkg",
            "--target",
            "pydantic",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "class AgentMessageChunk(_rt.OpenModel)" in (out / "models.py").read_text()
    assert "--target pydantic" in (out / "models.py").read_text()
    bad = runner.invoke(
        main,
        [
            "generate",
            "--schema",
            str(OWN_SCHEMA),
            "--out",
            str(tmp_path / "other"),
            "--package",
            "other",
            "--target",
            "attrs",
        ],
    )
    assert bad.exit_code == 2
    assert "'attrs' is not one of 'msgspec', 'pydantic'" in bad.output
    assert "Traceback" not in bad.output and not (tmp_path / "other").exists()


def test_session_state_is_part_of_the_api(own: ModuleType) -> None:
    state = own.SessionState()
    state.apply(own.decode_update(json.dumps(CHUNK)))
    assert "SessionState" in own.__all__ and "Entity" in own.__all__


MYPY_CONFIG = """[mypy]
strict = True
plugins = pydantic.mypy
"""

USAGE = """
from {pkg} import AgentMessageChunk, TextContent, UNSET, decode_update, encode

chunk = AgentMessageChunk(message_id="m", content=TextContent(text="hi"))
if chunk.meta is not UNSET and chunk.meta is not None:
    keys: list[str] = list(chunk.meta)
raw: bytes = encode(decode_update(b"{{}}"))
"""


def test_generated_package_passes_mypy_strict_with_the_pydantic_plugin(
    own: ModuleType, v2: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG)
    (tmp_path / "usage.py").write_text(USAGE.format(pkg=own.__name__))
    roots = {Path(m.__file__).parent.parent for m in (own, v2)}
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        "mypy.ini",
        "--no-incremental",
        "-p",
        own.__name__,
        "-p",
        v2.__name__,
        "-m",
        "usage",
    ]
    env_path = ":".join(str(r) for r in sorted(roots | {tmp_path}))
    proc = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": env_path},
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout


SHAPES = [
    ({"uri": "u", "text": "t"}, "TextResourceContents", {}),
    ({"uri": "u", "blob": "b", "mimeType": "x"}, "BlobResourceContents", {}),
    # both members keep one property aside: the first of them takes it
    ({"uri": "u", "text": "t", "blob": "b"}, "TextResourceContents", {"blob": "b"}),
    ({"uri": "u", "blob": "b", "more": 1}, "BlobResourceContents", {"more": 1}),
]


@pytest.mark.parametrize(("payload", "chosen", "kept"), SHAPES)
def test_a_union_told_apart_by_shape_chooses_alike_on_every_target(
    make_package: GenerateFn, payload: dict[str, Any], chosen: str, kept: dict[str, Any]
) -> None:
    """An untagged union of objects (`EmbeddedResourceResource`) takes a payload with the
    first member that takes all of it, else the first that takes it at all, and the
    same member on every target. (Where pydantic's own union would choose otherwise, a
    member with only optional fields before one that fits exactly, is the hostile table's
    ``ambiguous-untagged-union`` row, which now runs on pydantic too.)"""
    for target in TARGETS:
        pkg = make_package(OWN_SCHEMA, "own_shapes", target=target)
        value = pkg.decode(json.dumps(payload), pkg.models.EmbeddedResourceResource)
        assert type(value).__name__ == chosen, target
        assert pkg.extra_fields(value) == kept, target
        assert json.loads(pkg.encode(value)) == payload, target
