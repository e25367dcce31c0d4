"""Error table: malformed schemas and bad arguments give one clear line, exit 2, no
traceback, and leave the output directory untouched."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen import load
from acp_codegen.cli import main
from acp_codegen.errors import SchemaError

OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}


def schema(defs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs, **extra}


def notification(update_ref: str = "#/$defs/U", **defs: Any) -> dict[str, Any]:
    return schema(
        {
            "N": {
                "type": "object",
                "x-method": "session/update",
                "x-side": "client",
                "properties": {"update": {"$ref": update_ref}},
                "required": ["update"],
            },
            **defs,
        }
    )


def union(*members: Any, keyword: str = "anyOf") -> dict[str, Any]:
    return {keyword: list(members)}


def variant(tag: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"kind": {"type": "string", "const": tag}, **props},
        "required": ["kind"],
    }


CASES: list[tuple[str, Any, str]] = [
    ("not-json", b"{ not json", "not valid JSON: Expecting property name"),
    ("not-utf8", b"\xff\xfe{}", "not UTF-8 text"),
    ("array-root", b"[1, 2]", "the schema root must be a JSON object, not list"),
    ("defs-not-object", schema({}) | {"$defs": []}, "$defs must be an object"),
    ("missing-defs", {"type": "object"}, "the schema has no $defs"),
    (
        "definitions-only",
        {"definitions": {"A": OBJ}},
        "found 'definitions', which is not supported",
    ),
    ("dangling-ref", notification("#/$defs/Missing"), "$ref '#/$defs/Missing' resolves to nothing"),
    ("external-ref", notification("other.json#/$defs/U"), "unsupported $ref 'other.json#/$defs/U'"),
    ("no-update-method", schema({"A": OBJ}), "no definition has x-method 'session/update'"),
    (
        "tag-without-const",
        notification(U=union(variant("a"), {"type": "string"})),
        "variant has no const 'kind'",
    ),
    (
        "two-defaults",
        notification(
            U=union(
                variant("a"),
                {"type": "object", "properties": {}},
                {"type": "object", "properties": {}},
            )
        ),
        "variant has no const 'kind'",
    ),
    (
        "duplicate-tag",
        notification(U=union(variant("a"), variant("a"))),
        "tag value 'a' is used by both /$defs/U/anyOf/0 and /$defs/U/anyOf/1",
    ),
    (
        "numeric-tag",
        notification(
            U=union(variant("a"), {"type": "object", "properties": {"kind": {"const": 3}}})
        ),
        "tag 'kind' const must be a string, not 3",
    ),
    (
        "attribute-collision",
        notification(U=union(variant("a", fooBar={"type": "string"}, foo_bar={"type": "string"}))),
        "both map to attribute 'foo_bar'",
    ),
    (
        "class-collision",
        notification(U=union(variant("a")), **{"my-type": OBJ, "MyType": OBJ}),
        "both map to class 'MyType'",
    ),
    (
        "bad-pattern",
        notification(U=union(variant("a", s={"type": "string", "pattern": "(["}))),
        "invalid pattern",
    ),
    (
        "unsupported-keyword",
        notification(U=union(variant("a", s={"type": "array", "prefixItems": []}))),
        "unsupported keyword 'prefixItems'",
    ),
    ("ref-not-string", notification(U={"$ref": 5}), "$ref must be a string"),
    ("duplicate-key", b'{"$defs": {"A": {}, "A": {}}}', "duplicate object key 'A'"),
    ("nan", b'{"$defs": {"A": {"minimum": NaN}}}', "non-standard JSON number NaN"),
    (
        "enum-tag",
        notification(
            U=union(
                variant("a"),
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "enum": ["c"]}},
                    "required": ["kind"],
                },
            )
        ),
        "variant has no const 'kind'",
    ),
]


def _deep_schema(levels: int) -> bytes:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "items": node}
    return json.dumps(notification(U=union(variant("a", deep=node)))).encode()


CASES.append(("too-deep", _deep_schema(100), "schema nests deeper than 64 levels"))


def _unenforced(keyword: str, what: str) -> str:
    return (
        f"{what}, which no target enforces; pass --allow-unenforced {keyword} to generate "
        "without it"
    )


CASES += [
    (
        "max-properties",
        notification(U=union(variant("a", m={"type": "object", "maxProperties": 2}))),
        _unenforced("maxProperties", "keyword 'maxProperties'"),
    ),
    (
        "unique-items",
        notification(U=union(variant("a", m={"type": "array", "uniqueItems": True}))),
        _unenforced("uniqueItems", "keyword 'uniqueItems'"),
    ),
    (
        "unknown-format",
        notification(U=union(variant("a", s={"type": "string", "format": "hex"}))),
        _unenforced("format", "unknown format 'hex'"),
    ),
    (
        "required-undeclared",
        notification(U=union(variant("a") | {"required": ["kind", "gone"]})),
        _unenforced("required", "required names 'gone', which is not a declared property"),
    ),
    (
        "false-schema",
        notification(U=union(variant("a", never=False))),
        _unenforced("false", "the schema false (no value is valid here)"),
    ),
    (
        "nested-quantifiers",
        notification(U=union(variant("a", s={"type": "string", "pattern": "^(\\d+)*$"}))),
        "pattern '^(\\\\d+)*$' is not one that Python's re, which generated code matches with, "
        "is sure to match in linear time",
    ),
    (
        "multiple-of-zero",
        notification(U=union(variant("a", n={"type": "integer", "multipleOf": 0}))),
        "multipleOf 0 must be greater than 0",
    ),
    (
        "keyword-id",
        notification(U=union(variant("a", n={"$id": "urn:x"}))),
        "unsupported keyword '$id'",
    ),
]


def _null_variant(**extra: Any) -> dict[str, Any]:
    """The variant taken when the tag is null or absent (the November stop-reason shape)."""
    return {"type": "object", "properties": {"kind": {"type": "null"}}, **extra}


CASES += [
    (
        "two-null-tag-variants",
        notification(U=union(variant("a"), _null_variant(), _null_variant())),
        "variants /$defs/U/anyOf/1 and /$defs/U/anyOf/2 both take a null 'kind'",
    ),
    (
        "null-tag-variant-requires-its-tag",
        notification(U=union(variant("a"), _null_variant(required=["kind"]))),
        "the variant for a null 'kind' requires 'kind'; it must take it absent too",
    ),
    (
        "default-on-null-on-a-string",
        notification(
            U=union(variant("a", s={"type": "string", "x-deserialize-default-on-null": True}))
        ),
        "x-deserialize-default-on-null needs a non-nullable array or map",
    ),
    (
        "default-on-null-on-a-nullable-array",
        notification(
            U=union(
                variant(
                    "a",
                    s={
                        "type": ["array", "null"],
                        "items": {},
                        "x-deserialize-default-on-null": True,
                    },
                )
            )
        ),
        "x-deserialize-default-on-null needs a non-nullable array or map",
    ),
]


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from an empty folder, so no project's [tool.acp-codegen] table applies."""
    monkeypatch.chdir(tmp_path)


def _write(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "schema.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path


def _plan_key(key: str) -> dict[str, Any]:
    """Our own schema with `key` as the x-acp-entity key of plan_update."""
    own = json.loads(
        (
            Path(__file__).resolve().parent.parent / "schema" / "session_update.schema.json"
        ).read_text(encoding="utf-8")
    )
    for member in own["$defs"]["SessionUpdate"]["anyOf"]:
        if member.get("properties", {}).get("sessionUpdate", {}).get("const") == "plan_update":
            member["x-acp-entity"]["key"] = key
    return own


def _plan_entity(key: str, value: str) -> dict[str, Any]:
    """Our own schema with `key` of plan_update's x-acp-entity set to `value`."""
    own = _plan_key("plan.planId")
    for member in own["$defs"]["SessionUpdate"]["anyOf"]:
        if member.get("properties", {}).get("sessionUpdate", {}).get("const") == "plan_update":
            member["x-acp-entity"][key] = value
    return own


CASES += [
    (
        "entity-kind-nul",
        _plan_entity("kind", "\x00"),
        "annotation text holds the control character U+0000, which generated code does not carry",
    ),
    (
        "entity-kind-escape",
        _plan_entity("kind", "plan\x1b]0;x\x07"),
        "annotation text holds the control character U+001B",
    ),
    ("entity-key-missing-step", _plan_key("plan.nope"), "PlanItems has no property 'nope'"),
    ("entity-key-optional-step", _plan_key("_meta.x"), "key '_meta.x': '_meta' is not always"),
    ("entity-key-into-a-string", _plan_key("plan.planId.x"), "must descend into objects"),
    ("entity-key-not-top-level", _plan_key("planId"), "PlanUpdate has no property 'planId'"),
]


@pytest.mark.parametrize(("case", "content", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_schema(tmp_path: Path, case: str, content: Any, message: str) -> None:
    path = _write(tmp_path, content)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    result = CliRunner().invoke(
        main,
        ["generate", "--schema", str(path), "--out", str(out), "--package", "pkg"],
        catch_exceptions=False,
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert message in lines[0]
    assert lines[0].startswith(f"error at {path}#")
    assert "Traceback" not in result.output
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "precious"


def test_pointer_names_the_node(tmp_path: Path) -> None:
    path = _write(tmp_path, notification(U=union(variant("a"), {"type": "object"})))
    # an object member without properties is neither a tagged variant nor a default one
    result = CliRunner().invoke(
        main, ["generate", "--schema", str(path), "--out", str(tmp_path / "o"), "--package", "p"]
    )
    assert result.output.strip() == f"error at {path}#/$defs/U/anyOf/1: variant has no const 'kind'"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--schema", "nope.json", "--out", "o", "--package", "p"], "cannot read schema"),
        (
            ["--schema", "{schema}", "--out", "o", "--package", "not valid"],
            "--package 'not valid' is not a dotted Python package name",
        ),
        (
            ["--schema", "{schema}", "--out", "o", "--package", "p", "--root", "Nope"],
            "--root 'Nope' is not a definition; the schema defines N, U",
        ),
        (
            ["--schema", "{schema}", "--out", "o", "--package", "p", "--root", "u"],
            "--root 'u' is not a definition; did you mean 'U'?",
        ),
        (["--schema", "{dir}", "--out", "o", "--package", "p"], "is a directory"),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], message: str) -> None:
    path = _write(tmp_path, notification(U=union(variant("a"))))
    argv = [a.format(schema=path, dir=tmp_path) for a in args]
    result = CliRunner().invoke(main, ["generate", *argv], catch_exceptions=False)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_output_path_is_a_file(tmp_path: Path) -> None:
    path = _write(tmp_path, notification(U=union(variant("a"))))
    target = tmp_path / "file"
    target.write_text("x")
    result = CliRunner().invoke(
        main,
        ["generate", "--schema", str(path), "--out", str(target), "--package", "p"],
        catch_exceptions=False,
    )
    assert result.exit_code == 2
    assert "cannot write output" in result.output
    assert target.read_text() == "x"


def test_real_process_prints_no_traceback(tmp_path: Path) -> None:
    path = _write(tmp_path, b"[]")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_codegen",
            "generate",
            "--schema",
            str(path),
            "--out",
            str(tmp_path / "o"),
            "--package",
            "p",
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"error at {path}#: the schema root must be a JSON object, not list"
    ]
    assert not (tmp_path / "o").exists()


def test_schema_nesting_limit_is_the_documented_one(tmp_path: Path) -> None:
    """docs/compatibility.md's limit on schema nesting is `load.MAX_DEPTH`, counted as for
    payloads (``[[1]]`` nests 2): that many arrays and objects load, one more is the line
    naming the limit, whether the innermost holds a value or is empty."""
    table = (Path(__file__).resolve().parent.parent / "docs" / "compatibility.md").read_text(
        encoding="utf-8"
    )
    (stated,) = re.findall(r"^\| nesting in a schema or overlay \| (\d+) levels", table, re.M)
    assert int(stated) == load.MAX_DEPTH
    for inner in ("1", ""):
        for levels in (load.MAX_DEPTH, load.MAX_DEPTH + 1):
            text = "[" * levels + inner + "]" * levels
            if levels == load.MAX_DEPTH:
                assert json.dumps(load.parse_json(text.encode(), "s.json")) == text
                continue
            with pytest.raises(SchemaError) as refused:
                load.parse_json(text.encode(), "s.json")
            pointer = "/0" * (levels - 1)
            assert str(refused.value) == (
                f"error at s.json#{pointer}: schema nests deeper than {load.MAX_DEPTH} levels"
            )
