"""Hostile and malformed schemas: each one is refused cleanly or generated correctly.

Every row of `REFUSED` must end with exit code 2, exactly one ``error ...`` line
naming the problem (and its JSON pointer where there is one), no traceback, and
an output directory left byte for byte as it was. Every row of `GENERATED` must
produce a package that passes ``ruff check``, imports without running any text
from the schema, and behaves as its check says. `tests/test_schema_injection.py`
fuzzes the same escaping with random text.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen import installs
from acp_codegen.cli import main
from acp_codegen.limits import strictest_chain
from acp_codegen.load import MAX_SCHEMA_BYTES
from acp_codegen.targets import TARGETS as REGISTRY
from tests.hostile_cases import (
    CHAIN,
    INJECTION,
    NO_UNIONS,
    allowed_unenforced,
    allowed_unenforced_document,
    assert_one_line_refusal,
    base,
    decode_round_trip,
    edit,
    generated_cases,
    huge_schema,
    issue14_cases,
    keyword_cases,
    long_ref_chain,
    no_unions_no_methods,
    ref_chain_document,
    snapshot,
    with_defs,
)
from tests.userproject import codegen_env

#: Every row runs on every target, and every target refuses every row of `REFUSED`.
TARGETS = tuple(REGISTRY)
#: The target whose library builds the shortest chain of definitions; every target
#: accepts chains up to its limit and refuses longer ones.
SHORTEST = strictest_chain(REGISTRY.values())
CHAIN_LIMIT = SHORTEST.max_model_chain

Content = bytes | Callable[[Path], None]


@dataclass(frozen=True)
class Refused:
    id: str
    content: Content
    message: str
    #: JSON pointer expected after ``#``; None when the row does not pin it.
    pointer: str | None = None


def _json(doc: Any) -> bytes:
    return json.dumps(doc).encode()


def _defs(**defs: Any) -> bytes:
    return _json(with_defs(**defs))


def _variant(index: int, **change: Any) -> bytes:
    def apply(doc: dict[str, Any]) -> None:
        doc["$defs"]["SessionUpdate"]["oneOf"][index]["properties"]["sessionUpdate"].update(change)

    return _json(edit(apply))


def _nested(levels: int) -> bytes:
    inner: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        inner = {"type": "array", "items": inner}
    return _defs(Deep=inner)


def _untagged_variants() -> bytes:
    def apply(doc: dict[str, Any]) -> None:
        members = doc["$defs"]["SessionUpdate"]["oneOf"]
        for name in ("a", "b"):
            members.append(
                {"type": "object", "properties": {"sessionUpdate": {"type": "string"}, name: {}}}
            )

    return _json(edit(apply))


def _prop(schema: dict[str, Any]) -> bytes:
    return _defs(A={"type": "object", "properties": {"n": schema}})


def _raw_number(schema: dict[str, Any], literal: str) -> bytes:
    """`schema` as a property, with the placeholder ``0`` swapped for a JSON number literal
    that Python's json module cannot write itself (``1e400``)."""
    return _prop(schema).replace(b'"@@"', literal.encode())


def _annotation(initial: dict[str, Any]) -> dict[str, Any]:
    def apply(doc: dict[str, Any]) -> None:
        doc["$defs"]["SessionUpdate"]["oneOf"][1]["x-acp-entity"] = {
            "kind": "plan",
            "key": "entries",
            "op": "upsert",
            "initial": initial,
        }

    return edit(apply)


_VARIANT = "/$defs/SessionUpdate/oneOf/1"


def _entity(**change: Any) -> bytes:
    """The plan variant annotated as an entity, with `change` applied to the annotation."""
    doc = _annotation({"status": "pending"})
    doc["$defs"]["SessionUpdate"]["oneOf"][1]["x-acp-entity"].update(change)
    return _json(doc)


#: Annotation text becomes names, keys and literals of the package: no control character.
_CONTROL_TEXT = "annotation text holds the control character"
ANNOTATION_REFUSED = [
    Refused(
        "annotation-kind-nul",
        _entity(kind="\x00"),
        f"{_CONTROL_TEXT} U+0000, which generated code does not carry",
        f"{_VARIANT}/x-acp-entity/kind",
    ),
    Refused(
        "annotation-key-with-an-escape",
        _entity(key="entries\x1b[2J"),
        f"{_CONTROL_TEXT} U+001B",
        f"{_VARIANT}/x-acp-entity/key",
    ),
    Refused(
        "annotation-initial-with-a-newline",
        _entity(initial={"status": "a\nb"}),
        f"{_CONTROL_TEXT} U+000A",
        f"{_VARIANT}/x-acp-entity/initial/status",
    ),
    Refused(
        "annotation-op-with-a-c1-control",
        _entity(op="upsert\x9b"),
        f"{_CONTROL_TEXT} U+009B",
        f"{_VARIANT}/x-acp-entity/op",
    ),
]


def _unenforced(keyword: str, what: str | None = None) -> str:
    what = what or f"keyword {keyword!r}"
    return (
        f"{what}, which no target enforces; pass --allow-unenforced {keyword} to generate "
        "without it"
    )


_OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}
_LINEAR = "is not one that Python's re, which generated code matches with, is sure to match"
#: Validation no target enforces, shape keywords, and patterns re could take super-linear
#: time on: each refused with its keyword and pointer.
KEYWORD_REFUSED = [
    *(
        Refused(f"{k}-unenforced", _defs(A={**_OBJ, k: v}), _unenforced(k), f"/$defs/A/{k}")
        for k, v in [("maxProperties", 3), ("minProperties", 1), ("dependentRequired", {"a": []})]
    ),
    Refused(
        "unique-items",
        _prop({"type": "array", "uniqueItems": True}),
        _unenforced("uniqueItems"),
        "/$defs/A/properties/n/uniqueItems",
    ),
    Refused(
        "format-unknown",
        _prop({"type": "string", "format": "colour"}),
        _unenforced("format", "unknown format 'colour'"),
        "/$defs/A/properties/n/format",
    ),
    Refused(
        "multiple-of-on-a-number",
        _prop({"type": "number", "multipleOf": 0.1}),
        _unenforced("multipleOf", "multipleOf on a number"),
        "/$defs/A/properties/n/multipleOf",
    ),
    Refused(
        "required-names-an-undeclared-property",
        _defs(A={**_OBJ, "required": ["a", "b"]}),
        _unenforced("required", "required names 'b', which is not a declared property"),
        "/$defs/A/required/1",
    ),
    Refused(
        "required-on-a-map",
        _defs(A={"type": "object", "additionalProperties": {"type": "string"}, "required": ["k"]}),
        _unenforced("required", "required names 'k', which is not a declared property"),
        "/$defs/A/required/0",
    ),
    *(
        Refused(
            f"false-{name}",
            content,
            _unenforced("false", "the schema false (no value is valid here)"),
            pointer,
        )
        for name, content, pointer in [
            ("property", _prop(False), "/$defs/A/properties/n"),  # type: ignore[arg-type]
            ("items", _prop({"type": "array", "items": False}), "/$defs/A/properties/n/items"),
            (
                "additional-properties",
                _defs(A={**_OBJ, "additionalProperties": False}),
                "/$defs/A/additionalProperties",
            ),
            ("definition", _defs(A=False), "/$defs/A"),
        ]
    ),
    Refused(
        "multiple-of-zero",
        _prop({"type": "integer", "multipleOf": 0}),
        "multipleOf 0 must be greater than 0",
        "/$defs/A/properties/n/multipleOf",
    ),
    Refused(
        "multiple-of-a-fraction-on-an-integer",
        _prop({"type": "integer", "multipleOf": 0.5}),
        "multipleOf 0.5 on an integer must be a whole number",
        "/$defs/A/properties/n/multipleOf",
    ),
    Refused(
        "exclusive-maximum-at-the-int64-minimum",
        _prop({"type": "integer", "exclusiveMaximum": -(2**63)}),
        "as an inclusive bound (-9223372036854775809), is outside int64",
        "/$defs/A/properties/n/exclusiveMaximum",
    ),
    Refused(
        "max-length-negative",
        _prop({"type": "string", "maxLength": -1}),
        "length -1 must be a whole number from 0 to",
        "/$defs/A/properties/n/maxLength",
    ),
    *(
        Refused(f"keyword-{k}", _defs(A={**_OBJ, k: v}), f"unsupported keyword {k!r}",
                f"/$defs/A/{k}")
        for k, v in [("$id", "urn:a"), ("unevaluatedItems", False), ("dependencies", {})]
    ),
    *(
        Refused(f"pattern-{name}", _prop({"type": "string", "pattern": pattern}),
                f"pattern {pattern!r} {_LINEAR} in linear time: {why}",
                "/$defs/A/properties/n/pattern")
        for name, pattern, why in [
            ("nested-quantifiers", "^(a+)+$", "a repetition can go on or stop at the same "
             "character (as in a*a or (a+)+)"),
            ("adjacent-quantifiers", "^a*a*$", "a repetition can go on or stop"),
            ("overlapping-alternatives", "^(a|a)*$", "two alternatives of | can begin with "
             "the same character"),
            ("empty-repetition", "^(a?)*$", "a repetition of something that can match nothing"),
            ("unanchored-and-failing-late", "a+b", "it is not anchored with ^ and may fail "
             "more than 64 characters in (as a+b may on aaa...)"),
            ("backreference", r"^(a)\1$", "it holds a backreference"),
            ("lookahead", "^(?=a)a$", "it holds a lookahead or lookbehind"),
        ]
    ),
    *(
        Refused(f"pattern-{name}", _prop({"type": "string", "pattern": pattern}),
                f"invalid pattern {pattern!r}, read as ECMA-262 with the u flag: {why}",
                "/$defs/A/properties/n/pattern")
        for name, pattern, why in [
            ("inline-flag", "(?i)^a$", "(? starts no group ECMA-262 has"),
            ("possessive", "^a++$", "nothing to repeat (a quantifier follows a quantifier)"),
            ("python-end-anchor", "^a\\Z", "\\Z is not an escape of ECMA-262 (u flag)"),
        ]
    ),
    Refused(
        "pattern-too-long",
        _prop({"type": "string", "pattern": "^" + "a" * 1000 + "$"}),
        "pattern is 1,002 characters, over the 1,000-character limit",
        "/$defs/A/properties/n/pattern",
    ),
]  # fmt: skip


def _variant_body_chain() -> bytes:
    """Unions whose variant bodies are unions, 200 deep."""
    defs: dict[str, Any] = {}
    for i in range(CHAIN):
        tagged = {
            "type": "object",
            "properties": {"k": {"type": "string", "const": f"a{i}"}},
            "required": ["k"],
        }
        defs[f"U{i}"] = {
            "oneOf": [
                {**tagged, "allOf": [{"$ref": f"#/$defs/U{i + 1}"}]},
                {**tagged, "properties": {"k": {"type": "string", "const": f"b{i}"}}},
            ]
        }
    defs[f"U{CHAIN}"] = {"type": "object", "properties": {"n": {}}}
    return _defs(**defs)


#: Rows of issue 14: numbers the targets cannot hold, names that fold together, deep chains.
ISSUE14_REFUSED = [
    Refused(
        "minimum-1e400",
        _raw_number({"type": "number", "minimum": "@@"}, "1e400"),
        "number is too large for a 64-bit float",
        "/$defs/A/properties/n/minimum",
    ),
    Refused(
        "minimum-10-to-the-400",
        _prop({"type": "number", "minimum": 10**400}),
        "bound 10000…000 (401 digits) does not fit a 64-bit float",
        "/$defs/A/properties/n/minimum",
    ),
    Refused(
        "default-1e400",
        _raw_number({"type": "number", "default": "@@"}, "-1e400"),
        "number is too large for a 64-bit float",
        "/$defs/A/properties/n/default",
    ),
    Refused(
        "min-length-negative",
        _prop({"type": "string", "minLength": -1}),
        "length -1 must be a whole number from 0 to",
        "/$defs/A/properties/n/minLength",
    ),
    Refused(
        "min-length-fraction",
        _prop({"type": "string", "minLength": 1.5}),
        "length 1.5 must be a whole number",
        "/$defs/A/properties/n/minLength",
    ),
    Refused(
        "min-items-beyond-int64",
        _prop({"type": "array", "minItems": 2**63}),
        "length 9223372036854775808 must be a whole number from 0 to 9223372036854775807",
        "/$defs/A/properties/n/minItems",
    ),
    Refused(
        "integer-minimum-beyond-int64",
        _prop({"type": "integer", "minimum": 10**30}),
        "bound 10000…000 (31 digits) on an integer is outside int64",
        "/$defs/A/properties/n/minimum",
    ),
    Refused(
        "integer-maximum-fraction",
        _prop({"type": ["integer", "null"], "maximum": 0.5}),
        "bound 0.5 on an integer must be a whole number",
        "/$defs/A/properties/n/maximum",
    ),
    Refused(
        "integer-minimum-fraction",
        _prop({"type": "integer", "minimum": 0.5}),
        "bound 0.5 on an integer must be a whole number",
        "/$defs/A/properties/n/minimum",
    ),
    Refused(
        "const-beyond-int64",
        _prop({"const": 10**30}),
        "constant 10000…000 (31 digits) is outside int64",
        "/$defs/A/properties/n/const",
    ),
    Refused(
        "enum-beyond-int64",
        _prop({"enum": [1, 2**63]}),
        "constant 9223372036854775808 is outside int64",
        "/$defs/A/properties/n/enum/1",
    ),
    Refused(
        "enum-def-below-int64",
        _defs(E={"oneOf": [{"const": 1}, {"const": -(2**63) - 1}]}),
        "constant -9223372036854775809 is outside int64",
        "/$defs/E/oneOf/1/const",
    ),
    Refused(
        "annotation-initial-1e400",
        _json(_annotation({"status": "@@"})).replace(b'"@@"', b"1e400"),
        "number is too large for a 64-bit float",
        f"{_VARIANT}/x-acp-entity/initial/status",
    ),
    Refused(
        "annotation-initial-beyond-64-bits",
        _json(_annotation({"status": 2**64})),
        "number 18446744073709551616 is outside 64 bits",
        f"{_VARIANT}/x-acp-entity/initial/status",
    ),
    Refused(
        "variant-bodies-nested-200-deep",
        _variant_body_chain(),
        "union variants nest through their bodies deeper than 64 levels",
    ),
    Refused(
        "ref-chain-of-200-definitions",
        _json(ref_chain_document()),
        f"more than {CHAIN_LIMIT} levels deep from here, which the {SHORTEST.name} target",
    ),
    Refused(
        "ref-chain-one-past-the-shortest-limit",
        _json(ref_chain_document(CHAIN_LIMIT)),
        f"definitions name one another more than {CHAIN_LIMIT} levels deep from here, "
        f"which the {SHORTEST.name} target cannot build (its library recurses once per "
        "level), so no target accepts it",
        "/$defs/D0",
    ),
    Refused(
        "ref-chain-of-300-definitions",
        _json(ref_chain_document(300)),
        "definitions name one another more than",
    ),
    Refused(
        "definitions-equal-after-nfkc",
        _defs(**{"Ｆoo": {"type": "object"}, "Foo": {"type": "object"}}),
        "both map to class 'Foo'",
        "/$defs/Ｆoo",
    ),
    Refused(
        "properties-equal-after-nfkc",
        _defs(A={"type": "object", "properties": {"ｆoo": {}, "foo": {}}}),
        "both map to attribute 'foo'",
        "/$defs/A/properties/foo",
    ),
]

REFUSED = [
    Refused(
        "ref-resolves-nowhere",
        _defs(Foo={"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}}),
        "resolves to nothing",
        "/$defs/Foo/properties/x/$ref",
    ),
    Refused(
        "ref-cycle", _defs(A={"$ref": "#/$defs/B"}, B={"$ref": "#/$defs/A"}), "cycle", "/$defs/A"
    ),
    Refused(
        "allof-cycle",
        _defs(
            A={"allOf": [{"$ref": "#/$defs/B"}], "properties": {"a": {}}},
            B={"allOf": [{"$ref": "#/$defs/A"}], "properties": {"b": {}}},
        ),
        "cyclic or too deep",
    ),
    Refused(
        "ref-not-defs",
        _defs(A={"$ref": "#/definitions/B"}),
        "only local '#/$defs/<Name>' refs",
        "/$defs/A/$ref",
    ),
    Refused(
        "ref-external",
        _defs(A={"$ref": "other.json#/$defs/B"}),
        "unsupported $ref",
        "/$defs/A/$ref",
    ),
    Refused("ref-not-string", _defs(A={"$ref": 5}), "$ref must be a string", "/$defs/A/$ref"),
    Refused("defs-missing", _json({"definitions": {"A": {}}}), "no $defs (found 'definitions'", ""),
    Refused("defs-not-object", _json({"$defs": []}), "$defs must be an object", "/$defs"),
    Refused(
        "definition-not-schema", _defs(A=3), "a definition must be a schema object", "/$defs/A"
    ),
    Refused(
        "tag-without-const",
        _untagged_variants(),
        "variant has no const 'sessionUpdate'",
        "/$defs/SessionUpdate/oneOf/3",
    ),
    Refused(
        "tag-duplicated",
        _variant(1, const="agent_message_chunk"),
        "is used by both /$defs/SessionUpdate/oneOf/0 and",
        "/$defs/SessionUpdate/oneOf/1",
    ),
    Refused(
        "tag-not-string",
        _variant(1, const=5),
        "const must be a string",
        "/$defs/SessionUpdate/oneOf/1/properties/sessionUpdate/const",
    ),
    Refused(
        "handler-clash",
        _variant(1, const="agent-message-chunk"),
        "both map to handler 'on_agent_message_chunk'",
        "/$defs/SessionUpdate/oneOf/1",
    ),
    Refused(
        "handler-class-taken",
        _defs(SessionUpdateHandler={"type": "object"}),
        "takes the name of the handler class",
        "/$defs/SessionUpdate",
    ),
    Refused(
        "attributes-collide",
        _defs(A={"type": "object", "properties": {"fooBar": {}, "foo_bar": {}}}),
        "both map to attribute 'foo_bar'",
        "/$defs/A/properties/foo_bar",
    ),
    Refused(
        "classes-collide",
        _defs(**{"foo-bar": {"type": "string"}, "FooBar": {"type": "string"}}),
        "both map to class 'FooBar'",
        "/$defs/foo-bar",
    ),
    Refused(
        "property-name-with-a-quote",
        _defs(A={"type": "object", "properties": {'say "hi"': {}}}),
        "property name 'say \"hi\"' holds a quote, backslash or control character, which "
        "the msgspec target cannot use as a wire name, so no target accepts it",
        '/$defs/A/properties/say "hi"',
    ),
    Refused(
        "property-name-with-a-backslash",
        _defs(A={"type": "object", "properties": {"a\\b": {}}}),
        "holds a quote, backslash or control character, which the msgspec target",
        "/$defs/A/properties/a\\b",
    ),
    Refused(
        "property-name-with-a-newline",
        _defs(A={"type": "object", "properties": {"a\nb": {}}}),
        "property name 'a\\nb' holds a quote, backslash or control character",
    ),
    Refused(
        "lone-surrogate",
        _defs(A={"type": "object", "properties": {"\ud800": {}}}),
        "lone surrogate \\ud800",
        "/$defs/A/properties",
    ),
    Refused(
        "anyof-and-oneof-on-one-schema",
        _defs(A={"anyOf": [{"type": "string"}], "oneOf": [{"type": "integer"}]}),
        "unsupported construct: both anyOf and oneOf on one schema",
        "/$defs/A",
    ),
    Refused(
        "type-unknown", _defs(A={"type": "tuple"}), "unsupported type 'tuple'", "/$defs/A/type"
    ),
    Refused(
        "pattern-invalid",
        _defs(A={"type": "string", "pattern": "(("}),
        "invalid pattern",
        "/$defs/A/pattern",
    ),
    Refused(
        "keyword-unsupported",
        _defs(A={"type": "object", "patternProperties": {}}),
        "unsupported keyword 'patternProperties'",
        "/$defs/A/patternProperties",
    ),
    Refused("nesting-too-deep", _nested(200), "nests deeper than 64 levels"),
    Refused(
        "json-nesting-bomb", b"[" * 200_000 + b"]" * 200_000, "not valid JSON: nesting too deep", ""
    ),
    Refused("not-json", b"{nope", "not valid JSON", ""),
    Refused("empty-file", b"", "not valid JSON", ""),
    Refused("json-array", b"[1, 2]", "the schema root must be a JSON object, not list", ""),
    Refused("json-string", b'"schema"', "the schema root must be a JSON object, not str", ""),
    Refused("not-utf8", b'{"$defs": {"A": {"description": "\xff"}}}', "not UTF-8 text", ""),
    Refused("utf8-bom", b"\xef\xbb\xbf" + _json(base()), "not valid JSON", ""),
    Refused("duplicate-keys", b'{"$defs": {}, "$defs": {}}', "duplicate object key '$defs'", ""),
    Refused("nan", b'{"$defs": {"A": {"minimum": NaN}}}', "non-standard JSON number NaN", ""),
    Refused("size-limit-50mb", huge_schema, f"over the {MAX_SCHEMA_BYTES:,}-byte limit", ""),
    *ISSUE14_REFUSED,
    *ANNOTATION_REFUSED,
    *KEYWORD_REFUSED,
]


@pytest.fixture(scope="module")
def previous_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package from an earlier good run, which a refused run must leave alone."""
    root = tmp_path_factory.mktemp("previous")
    schema = root / "good.json"
    schema.write_bytes(_json(base()))
    out = root / "pkg"
    result = CliRunner().invoke(main, _args(schema, out, "pkg"))
    assert result.exit_code == 0, result.output
    return out


def _args(
    schema: Path,
    out: Path,
    package: str,
    target: str = "msgspec",
    selection: tuple[str, ...] = ("--all",),
) -> list[str]:
    args = ["generate", "--schema", str(schema), "--out", str(out), "--package", package]
    return [*args, *selection, "--target", target]


@pytest.mark.parametrize(
    ("case", "target"),
    [pytest.param(c, t, id=f"{c.id}-{t}") for c in REFUSED for t in TARGETS],
)
def test_refused_with_one_line_and_nothing_written(
    case: Refused, target: str, previous_output: Path, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    if callable(case.content):
        case.content(schema)
    else:
        schema.write_bytes(case.content)
    out = tmp_path / "out" / "pkg"
    shutil.copytree(previous_output, out)
    before = snapshot(out.parent)
    result = CliRunner().invoke(main, _args(schema, out, "pkg", target))
    assert_one_line_refusal(result, schema, case.message, case.pointer)
    assert snapshot(out.parent) == before


# Peak RSS of this process image: VmHWM starts afresh at exec, unlike ru_maxrss, which on
# Linux keeps the high-water mark of the forking parent (pytest, hundreds of MB).
_MEASURE = """
import sys
from acp_codegen.cli import main
try:
    main(sys.argv[1:])
finally:
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM:"))
    print(int(peak.split()[1]) // 1024, file=sys.stderr)
"""


def _measured_run(schema: Path, out: Path) -> tuple[int, str, str]:
    """Run the CLI on `schema` in a fresh process: exit code, its one line, peak RSS in MB."""
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, *_args(schema, out, "pkg")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    message, peak_mb = result.stderr.strip().splitlines()
    return result.returncode, message, peak_mb


def test_huge_schema_is_refused_without_reading_it(tmp_path: Path) -> None:
    """The real CLI process refuses a 50 MB schema and never holds it in memory."""
    schema = tmp_path / "huge.json"
    huge_schema(schema)
    size_mb = schema.stat().st_size // 2**20
    returncode, message, peak_mb = _measured_run(schema, tmp_path / "out")
    assert returncode == 2 and "byte limit" in message and "Traceback" not in message
    assert int(peak_mb) < size_mb, f"peak RSS {peak_mb} MB for a {size_mb} MB file"
    assert not (tmp_path / "out").exists()


@dataclass(frozen=True)
class Generated:
    id: str
    document: dict[str, Any]
    check: Callable[[ModuleType], None]
    selection: tuple[str, ...] = ("--all",)
    targets: tuple[str, ...] = TARGETS


def _generated() -> list[Generated]:
    rows = [Generated(*row) for row in [*generated_cases(), *issue14_cases(), *keyword_cases()]]
    allow = ("--all", "--allow-unenforced", "maxProperties", "--allow-unenforced", "format")
    rows.append(
        Generated("allowed-unenforced", allowed_unenforced_document(), allowed_unenforced, allow)
    )
    no_unions = Generated("no-unions-no-methods", NO_UNIONS, no_unions_no_methods, ("--root", "A"))
    # The longest chain every target builds: D0 names D1 ... names the object at the end,
    # `CHAIN_LIMIT` levels (a REFUSED row holds one more).
    limit = CHAIN_LIMIT - 1
    at_limit = Generated(
        f"ref-chain-at-the-shortest-limit-{CHAIN_LIMIT}",
        ref_chain_document(limit),
        long_ref_chain(limit),
    )
    return [*rows, no_unions, at_limit]


@pytest.mark.parametrize(
    ("case", "target"),
    [pytest.param(g, t, id=f"{g.id}-{t}") for g in _generated() for t in g.targets],
)
def test_generated_correctly(case: Generated, target: str, tmp_path: Path) -> None:
    """Every schema the generator accepts gives a package that imports and decodes."""
    import builtins

    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(case.document), encoding="utf-8")
    package = "hostile_" + case.id.replace("-", "_")
    out = tmp_path / package
    result = CliRunner().invoke(main, _args(schema, out, package, target, case.selection))
    assert result.exit_code == 0, result.output
    lint = subprocess.run(
        # Syntax errors and pyflakes (undefined or shadowed names); naming style is
        # checked on the published schemas in test_static_generated.py.
        ["ruff", "check", "--isolated", "--select", "E9,F", "--quiet", str(out)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        module = importlib.import_module(package)
        assert not hasattr(builtins, INJECTION.flag), "schema text ran as code"
        case.check(module)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]


def test_docstrings_keep_hostile_text_exactly(tmp_path: Path) -> None:
    """The class docstring reads back as the hostile description, not as code."""
    doc = copy.deepcopy(base())
    doc["$defs"]["ContentChunk"]["description"] = INJECTION.text
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(main, _args(schema, tmp_path / "docs_pkg", "docs_pkg"))
    assert result.exit_code == 0, result.output
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("docs_pkg")
        cls = module.ContentChunk
        assert inspect.cleandoc(cls.__doc__ or "") == INJECTION.text
        decode_round_trip(module, cls, {"content": "x"})
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == "docs_pkg"]:
            del sys.modules[name]


# -- issue 14: inputs beside the schema (overlays, flags, pipes, devices, the terminal) ---------


def _one_line_exit_2(result: Any) -> str:
    """The single error line of a refused CLI run (CliRunner result or CompletedProcess)."""
    code = getattr(result, "exit_code", getattr(result, "returncode", None))
    stderr = result.stderr
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr and "Traceback" not in (result.stdout or "")
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return str(lines[0])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("command", ["generate", "check"])
def test_overlay_nested_100000_levels_is_one_line(
    command: str, target: str, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    overlay = tmp_path / "overlay.json"
    overlay.write_text('{"entries": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    args = [command, "--schema", str(schema), "--out", str(tmp_path / "pkg"), "--package", "pkg"]
    args += ["--overlay", str(overlay), "--target", target]
    line = _one_line_exit_2(CliRunner().invoke(main, args))
    assert line == f"error at {overlay}#: not valid JSON: nesting too deep"
    assert not (tmp_path / "pkg").exists()


def test_overlay_nesting_past_the_schema_limit_is_refused(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    overlay = tmp_path / "overlay.json"
    nested: Any = {}
    for _ in range(100):
        nested = {"x": nested}
    entry = {"at": "/$defs/Plan", "add": {"x-acp-deep": nested}}
    overlay.write_text(json.dumps({"entries": [entry]}), encoding="utf-8")
    args = ["generate", "--schema", str(schema), "--out", str(tmp_path / "pkg")]
    line = _one_line_exit_2(CliRunner().invoke(main, [*args, "--overlay", str(overlay)]))
    assert (
        line.startswith(f"error at {overlay}#/entries/0/add/x-acp-deep/") and "nests deeper" in line
    )


_WITHOUT_PYDANTIC = """
import sys
sys.modules["pydantic"] = None  # what an environment without the extra looks like
from acp_codegen.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("command", ["generate", "check"])
def test_pydantic_target_without_pydantic_names_the_install(command: str, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    out = tmp_path / "pkg"
    args = [command, "--schema", str(schema), "--out", str(out), "--package", "pkg"]
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PYDANTIC, *args, "--target", "pydantic"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = _one_line_exit_2(result)
    hint = installs.install_hint(installs.requirement("pydantic", "pydantic"))
    assert hint.endswith(" -m pip install pydantic==2.13.4")  # the tests run in a venv
    assert line == f"error: --target pydantic needs pydantic, which is not installed; run: {hint}"
    assert not out.exists()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    ("package", "reason"),
    [
        ("class", "'class' is a Python keyword"),
        ("app.import.acp", "'import' is a Python keyword"),
        ("ｐkg", "Python reads 'ｐkg' as 'pkg'"),
        ("app.ﬁles", "Python reads 'ﬁles' as 'files'"),
    ],
)
def test_package_name_must_import_as_written(
    package: str, reason: str, target: str, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    for command in ("generate", "check"):
        args = [command, "--schema", str(schema), "--out", str(tmp_path / "pkg")]
        result = CliRunner().invoke(main, [*args, "--package", package, "--target", target])
        line = _one_line_exit_2(result)
        assert line.startswith(f"error: --package {package!r} cannot be imported"), line
        assert reason in line
    assert not (tmp_path / "pkg").exists()


def _zeros_forever(fifo: Path) -> None:
    """Write zero bytes into `fifo` until the reader goes away."""
    try:
        with open(fifo, "wb") as handle:
            chunk = bytes(2**20)
            while True:
                handle.write(chunk)
    except (BrokenPipeError, OSError):
        pass


def test_schema_from_an_endless_pipe_stops_at_the_cap(tmp_path: Path) -> None:
    """A pipe has no size: reading stops one byte past 16 MiB, and memory stays near that."""
    import threading

    fifo = tmp_path / "schema.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=_zeros_forever, args=(fifo,), daemon=True)
    writer.start()
    returncode, message, peak_mb = _measured_run(fifo, tmp_path / "out")
    writer.join(timeout=10)
    assert returncode == 2, message
    assert message == f"error at {fifo}#: schema is over the {MAX_SCHEMA_BYTES:,}-byte limit"
    assert int(peak_mb) < 200, f"peak RSS {peak_mb} MB reading an endless pipe"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("order", ["old", "new"])
def test_diff_against_dev_zero_ends_with_one_line(order: str, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    pair = [str(schema), "/dev/zero"] if order == "new" else ["/dev/zero", str(schema)]
    result = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "diff", *pair],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    line = _one_line_exit_2(result)
    assert line == f"error at /dev/zero#: schema is over the {MAX_SCHEMA_BYTES:,}-byte limit"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_overlay_from_a_device_stops_at_the_cap(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(_json(base()))
    args = ["generate", "--schema", str(schema), "--out", str(tmp_path / "pkg")]
    result = CliRunner().invoke(main, [*args, "--overlay", "/dev/zero"])
    line = _one_line_exit_2(result)
    assert line == f"error at /dev/zero#: overlay is over the {MAX_SCHEMA_BYTES:,}-byte limit"


#: An OSC sequence (set the terminal title) and a CSI one, both as raw control bytes, plus
#: the single-byte C1 CSI some terminals honour.
OSC = "\x1b]0;owned\x07 \x1b[2J \x9b31m"
#: What of it a property name may hold: no target takes a control character below U+0020
#: in a wire name (a REFUSED row), so the schemas every command reads carry the full
#: sequence in titles, descriptions and a definition's name, and `bad` in a property name.
C1 = "\x9b31m"


def _osc_documents(tmp_path: Path) -> tuple[Path, Path, Path]:
    old = base()
    old["title"] = f"ACP {OSC}"
    old["$defs"]["Plan"]["title"] = OSC
    old["$defs"]["Plan"]["description"] = f"plan {OSC}"
    old["$defs"]["ContentChunk"]["properties"][f"x{C1}"] = {"type": "string"}
    old["$defs"][f"Extra{OSC}"] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    new = copy.deepcopy(old)
    new["$defs"]["Plan"]["properties"][f"y{C1}"] = {"type": "string"}
    new["$defs"]["Plan"]["description"] = f"changed {OSC}"
    new["$defs"][f"Extra{OSC}"]["properties"][f"z{C1}"] = {"type": "string"}
    bad = copy.deepcopy(old)
    bad["$defs"]["ContentChunk"]["properties"][f"x{OSC}"] = {"type": "string"}
    paths = (tmp_path / "old.json", tmp_path / "new.json", tmp_path / "bad.json")
    for path, doc in zip(paths, (old, new, bad), strict=True):
        path.write_text(json.dumps(doc), encoding="utf-8")
    return paths


@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "{old}"],
        ["inspect", "--json", "{old}"],
        ["inspect", "--verbose", "{old}"],
        ["diff", "{old}", "{new}"],
        ["diff", "--format", "markdown", "{old}", "{new}"],
        ["diff", "--format", "json", "{old}", "{new}"],
        ["generate", "--schema", "{old}", "--out", "{out}", "--root", f"Plan{OSC}"],
        ["generate", "--schema", "{old}", "--out", "{out}", "--all", "--verbose"],
        ["check", "--schema", "{new}", "--out", "{out}", "--all"],
        ["generate", "--schema", "{bad}", "--out", "{out}", "--all"],
        ["inspect", "{bad}"],
        ["diff", "{old}", "{bad}"],
    ],
    ids=lambda c: "-".join(p for p in c if not p.startswith("{"))[:40],
)
def test_schema_text_reaches_the_terminal_without_control_characters(
    command: list[str], tmp_path: Path
) -> None:
    old, new, bad = _osc_documents(tmp_path)
    out = tmp_path / "pkg"
    if command[0] == "check":
        CliRunner().invoke(main, ["generate", "--schema", str(old), "--out", str(out), "--all"])
    args = [a.format(old=old, new=new, bad=bad, out=out) for a in command]
    result = subprocess.run(
        [sys.executable, "-m", "acp_codegen", *args],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert result.stdout or result.stderr
    for stream in (result.stdout, result.stderr):
        assert b"\x1b" not in stream and "\x9b".encode() not in stream, stream[-300:]
        assert b"\x07" not in stream
    assert b"Traceback" not in result.stderr
    if str(bad) in args:  # refused, and the line shows the name escaped
        assert result.returncode == 2 and b"holds a quote, backslash" in result.stderr
    if "--json" in args or "json" in args:
        json.loads(result.stdout)  # still valid JSON after the escaping


#: Every refusal is every target's and every command's; these rows are the ones written as
#: bytes (the others make a file by other means). tests/test_one_acceptance.py compares
#: the lines themselves across commands and targets.
SHARED_REFUSALS = [c for c in REFUSED if isinstance(c.content, bytes)]


@pytest.mark.parametrize("command", ["inspect", "diff"])
@pytest.mark.parametrize("case", SHARED_REFUSALS, ids=[c.id for c in SHARED_REFUSALS])
def test_every_command_refuses_what_generate_refuses(
    case: Refused, command: str, tmp_path: Path
) -> None:
    """One validation point (`accept`): inspect and diff refuse a schema exactly when, and
    with the message with which, generate refuses it."""
    schema = tmp_path / "schema.json"
    assert isinstance(case.content, bytes)
    schema.write_bytes(case.content)
    args = (
        [command, str(schema), "--all"]
        if command == "inspect"
        else [command, str(schema), str(schema), "--all"]
    )
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, (case.id, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and case.message in lines[0], lines


# -- every input the CLI reads is read through one capped reader --------------------------------

#: Address space the CLI may use in these rows: reading any of their inputs whole ends in a
#: MemoryError long before the machine runs short.
_ADDRESS_SPACE = 1536 * 2**20


class _EndlessFifo:
    """A FIFO at `path` that a thread fills with zero bytes for as long as it is read; on
    exit the writer is released even if no one ever opened the FIFO."""

    def __init__(self, path: Path) -> None:
        import threading

        os.mkfifo(path)
        self.path = path
        self.thread = threading.Thread(target=_zeros_forever, args=(path,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        try:  # a writer still waiting in open() gets its reader, then a broken pipe
            os.close(os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
        self.thread.join(timeout=10)


def _capped_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))

    return subprocess.run(
        [sys.executable, "-m", "acp_codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=codegen_env(),
        preexec_fn=limit,
    )


def _source(kind: str, path: Path, size: int, stack: list[_EndlessFifo]) -> Path:
    """`path` made into the hostile input `kind`: ``dev-zero`` (a link to /dev/zero),
    ``fifo`` (an endless pipe) or ``huge`` (a regular file of `size` bytes)."""
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        stack.append(_EndlessFifo(path))
    else:
        with open(path, "wb") as handle:
            handle.truncate(size)
    return path


_MiB = 2**20
#: input -> (where the hostile file goes, the arguments reading it, its limit, what the
#: one line says of a device or pipe, what it says of a regular file that is too big).
CAPPED_INPUTS: dict[str, tuple[str, list[str], int, str, str]] = {
    "schema": (
        "in.json",
        ["generate", "--schema", "{src}", "--out", "pkg"],
        16 * _MiB,
        "error at {src}#: schema is over the 16,777,216-byte limit",
        "error at {src}#: schema is {size:,} bytes, over the 16,777,216-byte limit",
    ),
    "overlay": (
        "overlay.json",
        ["generate", "--schema", "good.json", "--out", "pkg", "--overlay", "{src}"],
        16 * _MiB,
        "error at {src}#: overlay is over the 16,777,216-byte limit",
        "error at {src}#: overlay is {size:,} bytes, over the 16,777,216-byte limit",
    ),
    "config": (
        "acp.toml",
        ["generate", "--config", "{src}"],
        _MiB,
        "error: {src}: config is over the 1,048,576-byte limit",
        "error: {src}: config is {size:,} bytes, over the 1,048,576-byte limit",
    ),
    "template": (
        "templates/models.py.j2",
        ["generate", "--schema", "good.json", "--out", "pkg", "--templates", "templates"],
        _MiB,
        "error: --templates templates: 'models.py.j2' is not a regular file",
        "error: template templates/models.py.j2: template is {size:,} bytes, over the "
        "1,048,576-byte limit",
    ),
    "changelog": (
        "CHANGELOG.md",
        ["diff", "good.json", "good.json", "--changelog-file", "{src}"],
        16 * _MiB,
        "error: cannot read the changelog file {src}: changelog is over the 16,777,216-byte limit",
        "error: cannot read the changelog file {src}: changelog is {size:,} bytes, over the "
        "16,777,216-byte limit",
    ),
}


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
@pytest.mark.parametrize("what", sorted(CAPPED_INPUTS))
def test_every_input_is_read_through_the_cap(what: str, kind: str, tmp_path: Path) -> None:
    """A device, an endless pipe and a file over the limit, as each input the CLI reads:
    one line naming the limit, exit 2, never a MemoryError; nothing is written."""
    where, args, limit, endless, large = CAPPED_INPUTS[what]
    (tmp_path / "good.json").write_bytes(_json(base()))
    (tmp_path / "templates").mkdir()
    before = snapshot(tmp_path)
    fifos: list[_EndlessFifo] = []
    size = limit + 1
    src = _source(kind, tmp_path / where, size, fifos)
    try:
        result = _capped_run([a.format(src=where) for a in args], tmp_path)
    finally:
        for fifo in fifos:
            fifo.close()
    line = _one_line_exit_2(result)
    assert line == (large if kind == "huge" else endless).format(src=where, size=size)
    src.unlink()
    assert snapshot(tmp_path) == before
