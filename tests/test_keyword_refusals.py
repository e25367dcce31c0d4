"""Validation keywords that would look enforced and are not are refused; legitimate ones
are enforced, on every target.

`REFUSED` holds a keyword on a type it does not constrain, one the build would not read
(no ``type``, or beside a ``$ref``, ``allOf``, ``anyOf`` or ``oneOf``), one a constant
beside it breaks, one on an open enum's fallback that the enum would not apply, and
bounds that leave no value. Each row must end with exit code 2 and one line
``error at FILE#POINTER: ...`` naming the keyword, no traceback, and the output folder
as it was. `ACCEPTED` holds the combinations JSON Schema means and the generated code
enforces: each generates on every target, takes the values it lists and refuses the
others.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen.cli import main
from tests.conftest import TARGETS
from tests.hostile_cases import snapshot

PROP = "/$defs/A/properties/n"


def _doc(n: Any, **defs: Any) -> dict[str, Any]:
    """A schema whose definition ``A`` has one property ``n`` of schema `n`."""
    return {"$defs": {"A": {"type": "object", "properties": {"n": n}}, **defs}}


@dataclass(frozen=True)
class Refused:
    id: str
    document: dict[str, Any]
    #: The keyword the line names, quoted as it names it (``'minimum'``, ``format 'uint8'``).
    keyword: str
    pointer: str


def _prop(id: str, schema: Any, keyword: str, key: str | None = None) -> Refused:
    """A row whose property ``n`` is `schema`, refused at its keyword `key` (named after
    the keyword, or ``format`` for a format)."""
    where = key or (keyword.split()[0] if keyword.startswith("format") else keyword.strip("'"))
    return Refused(id, _doc(schema), keyword, f"{PROP}/{where}")


_B = {"B": {"type": "integer"}}
_O = {"O": {"type": "object", "properties": {"a": {"type": "string"}}}}
_OPEN_INT = [{"type": "integer", "const": 1, "title": "one"}]
REFUSED = [
    # -- an integer width on a type that is no integer, or not only one
    _prop("uint8-on-number", {"type": "number", "format": "uint8"}, "format 'uint8'"),
    _prop("int32-on-nullable-number", {"type": ["number", "null"], "format": "int32"},
          "format 'int32'"),
    _prop("int32-on-integer-or-number", {"type": ["integer", "number"], "format": "int32"},
          "format 'int32'"),
    _prop("int64-on-string", {"type": "string", "format": "int64"}, "format 'int64'"),
    _prop("uint16-on-boolean", {"type": "boolean", "format": "uint16"}, "format 'uint16'"),
    # -- numeric keywords on other types
    _prop("minimum-on-string", {"type": "string", "minimum": 1}, "'minimum'"),
    _prop("maximum-on-boolean", {"type": "boolean", "maximum": 1}, "'maximum'"),
    _prop("exclusive-minimum-on-array", {"type": "array", "exclusiveMinimum": 0},
          "'exclusiveMinimum'"),
    _prop("exclusive-maximum-on-object", {"type": "object", "exclusiveMaximum": 0},
          "'exclusiveMaximum'"),
    _prop("multiple-of-on-string", {"type": "string", "multipleOf": 2}, "'multipleOf'"),
    _prop("maximum-on-nullable-string", {"type": ["string", "null"], "maximum": 3},
          "'maximum'"),
    # -- string keywords on other types
    _prop("min-length-on-integer", {"type": "integer", "minLength": 1}, "'minLength'"),
    _prop("max-length-on-array", {"type": "array", "maxLength": 2}, "'maxLength'"),
    _prop("pattern-on-number", {"type": "number", "pattern": "^1"}, "'pattern'"),
    _prop("min-length-on-null", {"type": ["null"], "minLength": 1}, "'minLength'"),
    # -- array keywords on other types
    _prop("min-items-on-object", {"type": "object", "minItems": 1}, "'minItems'"),
    _prop("max-items-on-string", {"type": "string", "maxItems": 1}, "'maxItems'"),
    _prop("items-on-object", {"type": "object", "items": {"type": "string"}}, "'items'"),
    _prop("items-on-nullable-integer", {"type": ["integer", "null"], "items": {}}, "'items'"),
    _prop("items-true-on-string", {"type": "string", "items": True}, "'items'"),
    _prop("empty-properties-on-string", {"type": "string", "properties": {}}, "'properties'"),
    # -- object keywords on other types
    _prop("properties-on-string", {"type": "string", "properties": {"a": {}}}, "'properties'"),
    _prop("required-on-array", {"type": "array", "required": ["a"]}, "'required'"),
    _prop("additional-properties-on-integer",
          {"type": "integer", "additionalProperties": {"type": "string"}},
          "'additionalProperties'"),
    _prop("unevaluated-properties-on-string",
          {"type": "string", "unevaluatedProperties": False}, "'unevaluatedProperties'"),
    Refused("properties-on-a-string-definition",
            {"$defs": {"A": {"type": "string", "properties": {"a": {"type": "string"}}}}},
            "'properties'", "/$defs/A/properties"),
    # -- no type: the build would read the node as any JSON value
    _prop("minimum-without-type", {"minimum": 0}, "'minimum'"),
    _prop("min-length-without-type", {"minLength": 1}, "'minLength'"),
    _prop("pattern-without-type", {"pattern": "^a"}, "'pattern'"),
    _prop("int32-without-type", {"format": "int32"}, "format 'int32'"),
    _prop("min-items-without-items", {"minItems": 1}, "'minItems'"),
    _prop("additional-properties-without-type", {"additionalProperties": {"type": "string"}},
          "'additionalProperties'"),
    _prop("required-without-type", {"required": ["a"]}, "'required'"),
    Refused("required-on-an-object-without-properties",
            _doc({"type": "object", "required": ["a"]}), "'a'", f"{PROP}/required/0"),
    # -- beside what the build reads alone
    Refused("maximum-beside-allof", _doc({"allOf": [{"$ref": "#/$defs/B"}], "maximum": 3}, **_B),
            "'maximum'", f"{PROP}/maximum"),
    Refused("format-beside-ref", _doc({"$ref": "#/$defs/B", "format": "uint8"}, **_B),
            "format 'uint8'", f"{PROP}/format"),
    Refused("required-beside-an-allof-wrapper",
            _doc({"type": "object", "allOf": [{"$ref": "#/$defs/O"}], "required": ["a"]}, **_O),
            "'required'", f"{PROP}/required"),
    Refused("required-beside-ref", _doc({"$ref": "#/$defs/O", "required": ["a"]}, **_O),
            "'required'", f"{PROP}/required"),
    _prop("max-length-beside-nullable-anyof",
          {"anyOf": [{"type": "string"}, {"type": "null"}], "maxLength": 3}, "'maxLength'"),
    _prop("min-items-beside-oneof",
          {"oneOf": [{"type": "array"}, {"type": "string"}], "type": "array", "minItems": 1},
          "'minItems'"),
    _prop("items-beside-anyof",
          {"type": "array", "items": {"type": "string"}, "anyOf": [{"maxItems": 2}]}, "'items'"),
    # -- a constant that breaks the keyword beside it
    _prop("const-outside-its-format", {"type": "integer", "format": "uint8", "const": 300},
          "format 'uint8'"),
    _prop("enum-value-too-long", {"type": "string", "enum": ["a", "bbbb"], "maxLength": 3},
          "'maxLength'"),
    _prop("const-below-minimum", {"type": "integer", "const": 1, "minimum": 2}, "'minimum'"),
    _prop("const-missing-the-pattern", {"type": "string", "const": "b", "pattern": "^a"},
          "'pattern'"),
    # -- an open enum's fallback with a keyword the enum does not apply
    Refused("open-string-enum-fallback-with-a-pattern",
            _doc({"anyOf": [{"type": "string", "const": "a"},
                            {"type": "string", "pattern": "^x"}]}),
            "pattern", f"{PROP}/anyOf/1"),
    Refused("open-integer-enum-fallback-with-multiple-of",
            _doc({"anyOf": [*_OPEN_INT, {"type": "integer", "multipleOf": 2}]}),
            "multipleOf", f"{PROP}/anyOf/1"),
    # -- in every position: items, map values, definitions
    Refused("uint8-on-number-in-items",
            _doc({"type": "array", "items": {"type": "number", "format": "uint8"}}),
            "format 'uint8'", f"{PROP}/items/format"),
    Refused("min-length-on-integer-map-values",
            _doc({"type": "object", "additionalProperties": {"type": "integer", "minLength": 1}}),
            "'minLength'", f"{PROP}/additionalProperties/minLength"),
    Refused("uint8-on-a-number-definition",
            _doc({"$ref": "#/$defs/N"}, N={"type": "number", "format": "uint8"}),
            "format 'uint8'", "/$defs/N/format"),
    # -- bounds that leave no value
    _prop("minimum-above-maximum", {"type": "integer", "minimum": 5, "maximum": 3}, "'minimum'"),
    _prop("number-minimum-above-maximum", {"type": "number", "minimum": 5, "maximum": 3},
          "'minimum'"),
    _prop("nullable-minimum-above-maximum",
          {"type": ["integer", "null"], "minimum": 2, "maximum": 1}, "'minimum'"),
    _prop("no-integer-between-exclusive-bounds",
          {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
          "'exclusiveMinimum'"),
    _prop("no-integer-up-to-an-exclusive-maximum",
          {"type": "integer", "minimum": 3, "exclusiveMaximum": 3}, "'minimum'"),
    _prop("exclusive-bounds-that-meet", {"type": "number", "exclusiveMinimum": 1,
                                         "exclusiveMaximum": 1}, "'exclusiveMinimum'"),
    _prop("minimum-at-an-exclusive-maximum",
          {"type": "number", "minimum": 1, "exclusiveMaximum": 1}, "'minimum'"),
    _prop("minimum-past-its-format", {"type": "integer", "format": "uint8", "minimum": 300},
          "'minimum'"),
    _prop("maximum-below-its-format", {"type": "integer", "format": "int8", "maximum": -200},
          "'maximum'"),
    _prop("unsigned-below-zero", {"type": "integer", "format": "uint32", "exclusiveMaximum": 0},
          "'exclusiveMaximum'"),
    _prop("no-multiple-between-the-bounds",
          {"type": "integer", "multipleOf": 10, "minimum": 1, "maximum": 9}, "'minimum'"),
    _prop("min-length-above-max-length", {"type": "string", "minLength": 5, "maxLength": 3},
          "'minLength'"),
    _prop("min-items-above-max-items", {"type": "array", "minItems": 2, "maxItems": 1},
          "'minItems'"),
]  # fmt: skip


@pytest.fixture(scope="module")
def previous_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package from an earlier good run, which a refused run must leave as it was."""
    root = tmp_path_factory.mktemp("previous")
    schema = root / "good.json"
    schema.write_text(json.dumps(_doc({"type": "string"})), encoding="utf-8")
    out = root / "pkg"
    result = CliRunner().invoke(main, _args(schema, out, "pkg", "msgspec"))
    assert result.exit_code == 0, result.output
    return out


def _args(schema: Path, out: Path, package: str, target: str) -> list[str]:
    return ["generate", "--schema", str(schema), "--out", str(out), "--package", package,
            "--all", "--target", target]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "target"), [pytest.param(c, t, id=f"{c.id}-{t}") for c in REFUSED for t in TARGETS]
)
def test_refused_with_one_line_naming_the_keyword(
    case: Refused, target: str, previous_output: Path, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(case.document), encoding="utf-8")
    out = tmp_path / "out" / "pkg"
    shutil.copytree(previous_output, out)
    before = snapshot(out.parent)
    result = CliRunner().invoke(main, _args(schema, out, "pkg", target))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error at {schema}#{case.pointer}: "), lines[0]
    assert case.keyword.strip("'") in lines[0].split(": ", 1)[1], lines[0]
    assert snapshot(out.parent) == before


@dataclass(frozen=True)
class Accepted:
    id: str
    document: dict[str, Any]
    #: Values of property ``n`` the package takes, and values it refuses.
    good: tuple[Any, ...]
    bad: tuple[Any, ...]


_ERROR_CODE = {"anyOf": [{"type": "integer", "format": "int32", "const": -32700, "title": "p"},
                         {"type": "integer", "format": "int32", "title": "Other"}]}  # fmt: skip
ACCEPTED = [
    Accepted("int32-on-nullable-integer", _doc({"type": ["integer", "null"], "format": "int32"}),
             (2**31 - 1, -(2**31), None, 0), (2**31, -(2**31) - 1, 1.5, "1")),
    Accepted("uint8-with-a-minimum", _doc({"type": "integer", "format": "uint8", "minimum": 10}),
             (10, 255), (9, 256, -1)),
    Accepted("uint64-at-its-ends", _doc({"type": "integer", "format": "uint64"}),
             (0, 2**64 - 1), (-1, 2**64)),
    Accepted("int64-at-its-ends", _doc({"type": ["integer", "null"], "format": "int64"}),
             (-(2**63), 2**63 - 1), (-(2**63) - 1, 2**63)),
    Accepted("double-on-number-with-bounds",
             _doc({"type": ["number", "null"], "format": "double", "minimum": 0, "maximum": 1}),
             (0, 0.5, 1, None), (-0.1, 1.5)),
    Accepted("exclusive-bounds-on-a-number",
             _doc({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}),
             (0.5,), (0, 1)),
    Accepted("one-integer-between-exclusive-bounds",
             _doc({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 2}), (1,), (0, 2)),
    Accepted("bounds-of-both-kinds-on-a-type-list",
             _doc({"type": ["number", "string"], "maximum": 3, "maxLength": 2}),
             (3, 2.5, "ab"), (4, "abc")),
    Accepted("const-that-meets-its-keywords",
             _doc({"type": "string", "const": "abc", "pattern": "^a", "maxLength": 3}),
             ("abc",), ("abd", "ab")),
    Accepted("const-inside-its-format", _doc({"type": "integer", "format": "int32", "const": 7}),
             (7,), (8,)),
    Accepted("items-and-min-items-without-type",
             _doc({"items": {"type": "integer"}, "minItems": 1}), ([1],), ([], ["a"])),
    Accepted("properties-and-required-without-type",
             _doc({"properties": {"a": {"type": "string"}}, "required": ["a"]}),
             ({"a": "x"},), ({},)),
    Accepted("required-beside-an-allof-of-two-parts",
             _doc({"allOf": [{"$ref": "#/$defs/O"}, {"properties": {"b": {"type": "integer"}}}],
                   "required": ["a", "b"]}, **_O),
             ({"a": "x", "b": 1},), ({"a": "x"}, {"b": 1})),
    Accepted("open-integer-enum-keeps-what-its-format-holds", _doc(_ERROR_CODE),
             (-32700, 5, 2**31 - 1, -(2**31)), (2**31, 1099511627776, -(2**31) - 1, "x")),
    Accepted("open-integer-enum-with-bounds-on-its-fallback",
             _doc({"anyOf": [*_OPEN_INT, {"type": "integer", "format": "uint8", "maximum": 100}]}),
             (1, 0, 100), (101, -1, 300)),
    Accepted("open-integer-enum-with-a-minimum-alone",
             _doc({"anyOf": [*_OPEN_INT, {"type": "integer", "minimum": 0}]}),
             (1, 0, 2**62), (-1, -(2**40))),
    Accepted("keywords-that-say-nothing", _doc({"type": "string", "additionalProperties": True,
                                                "unevaluatedProperties": True, "required": []}),
             ("x",), (1,)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "target"), [pytest.param(c, t, id=f"{c.id}-{t}") for c in ACCEPTED for t in TARGETS]
)
def test_legitimate_keywords_generate_and_are_enforced(
    case: Accepted, target: str, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(case.document), encoding="utf-8")
    package = f"accepted_{case.id.replace('-', '_')}_{target}"
    result = CliRunner().invoke(main, _args(schema, tmp_path / package, package, target))
    assert result.exit_code == 0, result.output
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        pkg = importlib.import_module(package)
        for value in case.good:
            payload = json.dumps({"n": value})
            assert json.loads(pkg.encode(pkg.decode(payload, pkg.A))) == {"n": value}, value
        taken = []
        for value in case.bad:
            try:
                pkg.decode(json.dumps({"n": value}), pkg.A)
            except pkg.DecodeError:
                continue
            taken.append(value)
        assert not taken, f"decoded although the schema refuses them: {taken}"
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]
