"""Checks on acp-codegen's own session/update schema and its example payloads.

The schema (schema/session_update.schema.json) must be valid draft 2020-12, stay inside the
dialect of the published ACP v2 schemas (plus our x-acp-* annotations), describe every def,
and agree with the examples in tests/spec_examples/examples.json.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "schema" / "session_update.schema.json"
EXAMPLES_PATH = ROOT / "tests" / "spec_examples" / "examples.json"
SCHEMA_URI = "urn:acp-codegen:session-update"

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
DEFS: dict[str, Any] = SCHEMA["$defs"]
EXAMPLES: list[dict[str, Any]] = json.loads(EXAMPLES_PATH.read_text(encoding="utf-8"))

# DIALECT.md section 1: the 25 JSON-Schema keywords, `discriminator` and the five x- keys.
DIALECT_KEYWORDS = frozenset(
    """$schema $defs $ref type properties required items additionalProperties
    unevaluatedProperties allOf anyOf oneOf not const enum format minimum maximum minItems
    minLength pattern contentEncoding default title description discriminator x-method x-side
    x-docs-ignore x-deserialize-default-on-error x-deserialize-skip-invalid-items""".split()
)
ACP_KEYWORDS = frozenset(
    {"x-acp-entity", "x-acp-patch", "x-acp-snapshot", "x-acp-live", "x-acp-state"}
)
ENTITY_KINDS = frozenset(
    {
        "user_message",
        "agent_message",
        "agent_thought",
        "session_message",
        "tool_call",
        "terminal",
        "plan",
        "compaction",
        "subagent",
    }
)
PATCH_VALUES = frozenset({"merge", "scoped", "replace"})


def walk(node: Any, path: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield every schema node with its JSON pointer, following only subschema positions.

    `properties` is walked as a name -> schema map, so property names that look like
    keywords (`type`, `description`, ...) are never mistaken for keywords.
    """
    if not isinstance(node, dict):
        return
    yield path, node
    for name, sub in node.get("$defs", {}).items():
        yield from walk(sub, f"{path}/$defs/{name}")
    for name, sub in node.get("properties", {}).items():
        yield from walk(sub, f"{path}/properties/{name}")
    for key in ("items", "additionalProperties", "unevaluatedProperties", "not"):
        yield from walk(node.get(key), f"{path}/{key}")
    for key in ("allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(node.get(key, [])):
            yield from walk(sub, f"{path}/{key}/{i}")


def ref_target(schema: dict[str, Any]) -> str:
    return schema["allOf"][0]["$ref"].removeprefix("#/$defs/")


def tagged_variants(union: dict[str, Any]) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """Split an open tagged union into (tag name, known variants, fallback).

    A member whose tag is typed null and not required (the idle state's "no stop reason")
    is the union's default member, not a known variant."""
    fallbacks = [m for m in union["anyOf"] if "not" in m]
    assert len(fallbacks) == 1
    tag = fallbacks[0]["required"][0]
    known = [m for m in union["anyOf"] if "not" not in m and not is_null_tag_member(m, tag)]
    return tag, known, fallbacks[0]


def is_null_tag_member(member: dict[str, Any], tag: str) -> bool:
    return member.get("properties", {}).get(tag, {}).get("type") == "null" and tag not in (
        member.get("required", [])
    )


def is_open_tagged_union(schema: dict[str, Any]) -> bool:
    return any("not" in m for m in schema.get("anyOf", []))


SESSION_UPDATE_TAG, SESSION_UPDATE_VARIANTS, _ = tagged_variants(DEFS["SessionUpdate"])
KNOWN_TAGS = [v["properties"][SESSION_UPDATE_TAG]["const"] for v in SESSION_UPDATE_VARIANTS]


@pytest.fixture(scope="module")
def session_update_validator() -> Draft202012Validator:
    registry = Registry().with_resource(SCHEMA_URI, Resource.from_contents(SCHEMA))
    return Draft202012Validator({"$ref": f"{SCHEMA_URI}#/$defs/SessionUpdate"}, registry=registry)


def test_schema_is_valid_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA.get("title")
    Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_validity_matches_flag(
    example: dict[str, Any], session_update_validator: Draft202012Validator
) -> None:
    errors = [e.message for e in session_update_validator.iter_errors(example["update"])]
    if example["valid"]:
        assert not errors, errors
    else:
        assert errors, "expected the schema to reject this payload"


def test_examples_are_well_formed() -> None:
    names = [e["name"] for e in EXAMPLES]
    assert len(names) == len(set(names))
    assert len(EXAMPLES) >= 70
    for e in EXAMPLES:
        assert set(e) == {"name", "valid", "update"}, e["name"]
        assert isinstance(e["valid"], bool), e["name"]


def test_every_variant_has_a_valid_example() -> None:
    seen = {
        e["update"].get(SESSION_UPDATE_TAG)
        for e in EXAMPLES
        if e["valid"] and isinstance(e["update"], dict)
    }
    assert [tag for tag in KNOWN_TAGS if tag not in seen] == []
    assert any(tag not in KNOWN_TAGS for tag in seen), "no example of an unknown update kind"


def scalar_values(value: Any) -> Iterator[Any]:
    """Every string or number in a JSON value, ignoring object keys."""
    if isinstance(value, dict):
        for item in value.values():
            yield from scalar_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from scalar_values(item)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield value


def test_every_known_enum_value_and_tag_occurs_in_a_valid_example() -> None:
    """Coarse coverage check: each const of an open enum or open union appears somewhere.

    It does not prove the value sits under that particular enum; it catches a new value or
    variant that nobody wrote an example for.
    """
    seen = {v for e in EXAMPLES if e["valid"] for v in scalar_values(e["update"])}
    missing = []
    for name, schema in DEFS.items():
        for member in schema.get("anyOf", []):
            const = member.get("const")
            if const is None and "not" not in member:
                const = next(
                    (p["const"] for p in member.get("properties", {}).values() if "const" in p),
                    None,
                )
            if const is not None and const not in seen:
                missing.append(f"{name}: {const!r}")
    assert missing == []


def test_only_dialect_and_acp_keywords() -> None:
    allowed = DIALECT_KEYWORDS | ACP_KEYWORDS
    unexpected = [
        (path, sorted(set(node) - allowed)) for path, node in walk(SCHEMA) if set(node) - allowed
    ]
    assert unexpected == []
    assert "definitions" not in SCHEMA


def test_refs_are_local_resolvable_and_without_siblings() -> None:
    for path, node in walk(SCHEMA):
        if "$ref" in node:
            assert set(node) == {"$ref"}, path
            assert node["$ref"].startswith("#/$defs/"), path
            assert node["$ref"].removeprefix("#/$defs/") in DEFS, path


def test_every_def_is_described() -> None:
    missing = [name for name, schema in DEFS.items() if not schema.get("description")]
    assert missing == []


def test_every_property_and_union_member_is_described() -> None:
    missing = []
    for path, node in walk(SCHEMA):
        for name, prop in node.get("properties", {}).items():
            # tag pins ({type: string, const: X}) in variants and `not` probes carry no prose
            if "const" not in prop and not prop.get("description"):
                missing.append(f"{path}/properties/{name}")
    for name, schema in DEFS.items():
        for i, member in enumerate(schema.get("anyOf", [])):
            if not member.get("description"):
                missing.append(f"#/$defs/{name}/anyOf/{i}")
    assert missing == []


def test_open_union_fallbacks_reserve_exactly_the_known_tags() -> None:
    unions = {name: s for name, s in DEFS.items() if is_open_tagged_union(s)}
    assert {
        "SessionUpdate",
        "StateUpdate",
        "BackgroundWork",
        "ContentBlock",
        "IdleStateUpdate",
        "AvailableCommand",
    } <= set(unions)
    for name, union in unions.items():
        tag, known, fallback = tagged_variants(union)
        consts = [v["properties"][tag]["const"] for v in known]
        reserved = [p["properties"][tag]["const"] for p in fallback["not"]["anyOf"]]
        # the same tags; the published schema does not always list them in variant order
        assert sorted(reserved) == sorted(consts) and len(set(reserved)) == len(reserved), name
        assert "const" not in fallback["properties"][tag], name
        assert fallback["additionalProperties"] is True, name
        for variant in known:
            assert variant["required"] == [tag], name
            # a union with properties of its own (the idle state) may add no body
            assert (
                "allOf" not in variant and "properties" in union or (ref_target(variant) in DEFS)
            ), name


def test_method_defs() -> None:
    notification = DEFS["UpdateSessionNotification"]
    assert (notification["x-method"], notification["x-side"]) == ("session/update", "client")
    assert notification["required"] == ["sessionId", "update"]
    response = DEFS["PromptResponse"]
    assert (response["x-method"], response["x-side"]) == ("session/prompt", "agent")
    assert "messageId" in response["required"]
    message_id = response["properties"]["messageId"]
    assert ref_target(message_id) == "MessageId" and "anyOf" not in message_id
    assert DEFS["MessageId"]["type"] == "string"


def entity_variants() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(x-acp-entity, body def) for every SessionUpdate variant that carries one."""
    return [
        (v["x-acp-entity"], DEFS[ref_target(v)])
        for v in SESSION_UPDATE_VARIANTS
        if "x-acp-entity" in v
    ]


def key_bodies(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The objects holding the last segment of a dotted key, each segment required on
    every branch (a nested union's members, its open fallback included)."""
    bodies = [body]
    *steps, _ = key.split(".")
    for step in steps:
        nxt = []
        for node in bodies:
            assert step in node["required"], (key, step)
            target = DEFS[node["properties"][step]["allOf"][0]["$ref"].rsplit("/", 1)[1]]
            nxt += [
                DEFS[ref_target(m)] if "allOf" in m else m for m in target.get("anyOf", [target])
            ]
        bodies = nxt
    return bodies


def test_entity_annotations_point_at_real_properties() -> None:
    upserts = [(e["kind"], body) for e, body in entity_variants() if e["op"] == "upsert"]
    stored = dict(upserts)
    keys = {e["kind"]: e["key"] for e, _ in entity_variants() if e["op"] == "upsert"}
    assert len(upserts) == len(stored), "one upsert variant per entity kind"
    assert set(stored) == ENTITY_KINDS
    for entity, body in entity_variants():
        upsert_body = stored[entity["kind"]]
        assert entity["op"] in {"upsert", "append", "remove"}, entity
        for holder in key_bodies(body, entity["key"]):
            assert entity["key"].rsplit(".", 1)[-1] in holder["required"], entity
        # every variant of a kind names the same ID property
        assert entity["key"].rsplit(".", 1)[-1] == keys[entity["kind"]].rsplit(".", 1)[-1]
        meta_patch = body["properties"]["_meta"].get("x-acp-patch")
        if entity["op"] == "upsert":
            assert meta_patch == "merge", entity
        if entity["op"] == "append":
            ((source, target),) = entity["append"].items()
            assert source in body["required"], entity
            assert target in upsert_body["properties"], entity
            assert meta_patch == "scoped", entity
        for prop in entity.get("initial", {}):
            assert prop in upsert_body["properties"], entity


def test_each_kind_uses_one_initial_value() -> None:
    initial_by_kind: dict[str, list[Any]] = {}
    for variant in SESSION_UPDATE_VARIANTS:
        entity = variant.get("x-acp-entity")
        if entity and entity["op"] != "remove":
            initial_by_kind.setdefault(entity["kind"], []).append(entity.get("initial"))
    for kind, initials in initial_by_kind.items():
        assert all(i == initials[0] for i in initials), kind
    assert initial_by_kind["compaction"][0] == {"status": "in_progress"}


def test_variant_annotations() -> None:
    by_tag = dict(zip(KNOWN_TAGS, SESSION_UPDATE_VARIANTS, strict=True))
    snapshots = {t: v["x-acp-snapshot"] for t, v in by_tag.items() if "x-acp-snapshot" in v}
    assert snapshots == {
        "state_update": "state",
        "usage_update": "usage",
        "available_commands_update": "commands",
        "config_option_update": "config_options",
        "session_info_update": "session_info",
    }
    assert [t for t, v in by_tag.items() if v.get("x-acp-live")] == ["notice"]
    for tag, variant in by_tag.items():
        roles = [k for k in ("x-acp-entity", "x-acp-snapshot", "x-acp-live") if k in variant]
        assert len(roles) == 1, tag
    assert DEFS["StateUpdate"]["x-acp-state"] == {
        "idle": "idle",
        "unknown": "unknown",
        "busy": "busy",
    }


def test_patch_annotations_use_known_values() -> None:
    for path, node in walk(SCHEMA):
        for name, prop in node.get("properties", {}).items():
            if "x-acp-patch" in prop:
                assert prop["x-acp-patch"] in PATCH_VALUES, f"{path}/properties/{name}"
                assert name not in node.get("required", []), f"{path}/properties/{name}"


#: Optional properties the published wire reads strictly (no default-on-error).
STRICT_OPTIONAL = {
    "#/$defs/SubagentUpdate/properties/cwd",
    "#/$defs/SubagentUpdate/properties/additionalDirectories",
}
#: Arrays besides `background` whose bad items fail the array, as published.
WHOLE_ARRAYS = {
    "#/$defs/SubagentUpdate/properties/additionalDirectories",
    "#/$defs/UnsupportedProtocolVersionErrorData/properties/supported",
}


def test_lenient_decoding_flags() -> None:
    """Optional properties decode leniently, except the `STRICT_OPTIONAL` ones; arrays skip
    bad items, except `background` and the `WHOLE_ARRAYS`.

    A malformed background list must read as "not reported" as a whole, so its items are
    never skipped one by one (see docs/annotations.md).
    """
    for path, node in walk(SCHEMA):
        required = node.get("required", [])
        for name, prop in node.get("properties", {}).items():
            where = f"{path}/properties/{name}"
            null_tag = prop.get("type") == "null"  # the idle state's "no stop reason" member
            if name not in required and "const" not in prop and not null_tag:
                lenient = prop.get("x-deserialize-default-on-error") is True
                assert lenient is (where not in STRICT_OPTIONAL), where
            if "array" in prop.get("type", []):
                skips = prop.get("x-deserialize-skip-invalid-items", False)
                assert skips is (name != "background" and where not in WHOLE_ARRAYS), where
