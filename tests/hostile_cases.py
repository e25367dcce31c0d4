"""Fixtures for the hostile-schema tests: a small valid schema, edits of it, and the
schemas that must generate correctly together with the behaviour each must show.

`generated_cases()` returns ``(id, document, check)`` rows; `check` receives the
imported package. `tests/test_hostile_schemas.py` runs them.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Injection:
    """Hostile text: every way we know to end a string literal or a template, plus a
    statement that would set `builtins.<flag>` if it ever ran."""

    flag: str
    text: str


INJECTION = Injection(
    "ACP_INJECTED",
    "\n".join(
        [
            'Hostile "quotes" \'\'\' and """ and a trailing quote"',
            "backslashes \\ \\\\ \\n \\x00 \\N{DASH} \\u0041 and jinja {{ 7 * 7 }} {% raw %} {#",
            "NUL \x00 bell \x07 line separator \u2028 form feed \x0c end",
            '"""',
            "import builtins; builtins.ACP_INJECTED = True",
            "'''; import builtins; builtins.ACP_INJECTED = True; '''",
            "x" * 100_000,
            'ends with backslash and quotes \\"""',
        ]
    ),
)
#: Short hostile strings used as names, tags and enum values.
HOSTILE_NAMES = [
    "x'); import builtins; builtins.ACP_INJECTED = True #",
    'a"""b',
    "{{ name }}",
    "new\nline",
    "nul\x00byte",
    "back\\slash",
]


def base() -> dict[str, Any]:
    """A minimal valid schema: a session/update notification with two tagged variants."""

    def variant(tag: str, body: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"sessionUpdate": {"type": "string", "const": tag}},
            "required": ["sessionUpdate"],
            "allOf": [{"$ref": f"#/$defs/{body}"}],
        }

    return {
        "$schema": SCHEMA_URI,
        "$defs": {
            "SessionNotification": {
                "x-method": "session/update",
                "x-side": "client",
                "type": "object",
                "properties": {
                    "sessionId": {"type": "string"},
                    "update": {"$ref": "#/$defs/SessionUpdate"},
                },
                "required": ["sessionId", "update"],
            },
            "SessionUpdate": {
                "oneOf": [variant("agent_message_chunk", "ContentChunk"), variant("plan", "Plan")]
            },
            "ContentChunk": {
                "type": "object",
                "properties": {"content": {"type": "string"}},
                "required": ["content"],
            },
            "Plan": {
                "type": "object",
                "properties": {"entries": {"type": "array", "items": {"type": "string"}}},
                "required": ["entries"],
            },
        },
    }


def edit(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = base()
    change(doc)
    return doc


def with_defs(**defs: Any) -> dict[str, Any]:
    return edit(lambda d: d["$defs"].update(defs))


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` with its bytes (None for directories)."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def assert_one_line_refusal(result: Any, schema: Path, message: str, pointer: str | None) -> None:
    """A CLI run (click's `Result`) that refused `schema`: exit code 2, no traceback, and one
    line holding `message`, at `pointer` when one is given."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in result.output
    where = f"error at {schema}#" + ("" if pointer is None else f"{pointer}: ")
    assert lines[0].startswith(where), lines[0]
    assert message in lines[0], lines[0]


def huge_schema(path: Path, megabytes: int = 50) -> None:
    """Write a syntactically valid schema of `megabytes` MB (one giant description)."""
    chunk = "y" * 2**20
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('{"$defs": {"A": {"type": "string", "description": "')
        for _ in range(megabytes):
            handle.write(chunk)
        handle.write('"}}}')


def decode_round_trip(module: ModuleType, tp: Any, payload: Any) -> Any:
    """Decode `payload` as `tp`, check it re-encodes to equal JSON, return the value."""
    value = module.decode(json.dumps(payload), tp)
    assert json.loads(module.encode(value)) == payload
    return value


# -- schemas that must generate --------------------------------------------------------------


def _keyword_properties(m: ModuleType) -> None:
    payload = {"class": "c", "from": 1, "import": "i", "match": "m", "None": True}
    value = decode_round_trip(m, m.A, payload)
    assert (value.class_, value.from_, value.import_, value.match_) == ("c", 1, "i", "m")


def _meta_property(m: ModuleType) -> None:
    value = decode_round_trip(m, m.A, {"_meta": {"k": [1]}, "meta2": "x"})
    assert value.meta == {"k": [1]}


ODD_NAMES = [
    "content-type",
    "1st",
    "with space",
    "$ref",
    "a.b",
    "ünï",
    "",
    "semi;colon = 1",
    "n" * 5000,
]


def _odd_names(m: ModuleType) -> None:
    value = decode_round_trip(m, m.A, {name: name for name in ODD_NAMES})
    assert [value.content_type, value.field_1st, value.with_space] == ODD_NAMES[:3]


def _def_named_any(m: ModuleType) -> None:
    value = decode_round_trip(m, m.B, {"a": {"x": 1}, "b": [1, "two", None]})
    assert isinstance(value.a, m.Any) and value.b == [1, "two", None]


def _builtin_def_names(m: ModuleType) -> None:
    value = decode_round_trip(m, m.B, {"s": "text", "seq": {"n": 1}, "nil": {}})
    assert isinstance(value.seq, m.list_) and isinstance(value.nil, m.None_)


def _package_def_names(m: ModuleType) -> None:
    assert issubclass(m.DecodeError, ValueError) and callable(m.dispatch)
    assert m.encode.__module__.endswith(".codec")
    payload = {name: {"v": name} for name in ("typing", "msgspec", "DecodeError", "dispatch")}
    value = decode_round_trip(m, m.User, payload)
    assert isinstance(value.typing_, m.typing_) and isinstance(value.msgspec_, m.msgspec_)
    assert isinstance(value.decode_error, m.DecodeError_) and isinstance(
        value.dispatch, m.dispatch_
    )


def _module_property_names(m: ModuleType) -> None:
    value = decode_round_trip(m, m.A, {"msgspec": "a", "typing": "b", "later": "c"})
    assert (value.msgspec_, value.typing_, value.later) == ("a", "b", "c")


def _hostile_text(m: ModuleType) -> None:
    for index, tag in enumerate(HOSTILE_NAMES):
        value = decode_round_trip(m, m.SessionUpdate, {"sessionUpdate": tag, "content": "c"})
        assert value.content == "c" and type(value).__name__ != "UnknownSessionUpdate", index
    for name in HOSTILE_NAMES:
        assert m.decode(json.dumps(name), m.Hostile) == name
    assert (m.__doc__ or "").startswith(" ".join(INJECTION.text.split()) + ": generated")


def _deep_allowed(m: ModuleType) -> None:
    payload: dict[str, Any] = {"leaf": "x"}
    for _ in range(24):
        payload = {"next": payload}
    decode_round_trip(m, m.Deep, payload)


def _recursive(m: ModuleType) -> None:
    tree: dict[str, Any] = {"value": 1, "children": []}
    for depth in range(6):
        tree = {"value": depth, "children": [tree, {"value": -1, "children": []}]}
    decode_round_trip(m, m.Tree, tree)


def _single_variant_default(m: ModuleType) -> None:
    assert isinstance(decode_round_trip(m, m.Auth, {"id": "a"}), m.AgentAuth)
    tagged = decode_round_trip(m, m.Auth, {"type": "terminal", "id": "t", "args": ["x"]})
    assert isinstance(tagged, m.TerminalAuth)


def _variant_named_like_def(m: ModuleType) -> None:
    config = getattr(m.ToolCallUpdate, "__struct_config__", None)  # msgspec
    if config:
        assert config.tag_field is None
    elif hasattr(m.ToolCallUpdate, "model_fields"):  # pydantic
        assert "session_update" not in m.ToolCallUpdate.model_fields
    else:  # dataclasses: the tag is a class keyword, not a field
        assert m.ToolCallUpdate.__acp_tag__ is None
    value = decode_round_trip(m, m.Permission, {"toolCall": {"toolCallId": "t"}})
    assert type(value.tool_call) is m.ToolCallUpdate
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "t"}
    assert isinstance(decode_round_trip(m, m.SessionUpdate, update), m.ToolCallUpdateSessionUpdate)


def _ambiguous_untagged(m: ModuleType) -> None:
    assert isinstance(decode_round_trip(m, m.Response, {"stopReason": "end"}), m.StopResponse)
    assert isinstance(decode_round_trip(m, m.Response, {"_meta": {}}), m.EmptyResponse)
    assert decode_round_trip(m, m.Response, {"custom": [1]}) == {"custom": [1]}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _hostile_document() -> dict[str, Any]:
    doc = base()
    doc["title"] = INJECTION.text
    members = doc["$defs"]["SessionUpdate"]["oneOf"]
    members[:] = [copy.deepcopy(members[0]) for _ in HOSTILE_NAMES]
    for member, tag in zip(members, HOSTILE_NAMES, strict=True):
        member["properties"]["sessionUpdate"]["const"] = tag
        member["description"] = INJECTION.text
    for schema in doc["$defs"].values():
        schema["description"] = INJECTION.text
        for prop in schema.get("properties", {}).values():
            prop["description"] = INJECTION.text
    doc["$defs"]["Hostile"] = {
        "description": INJECTION.text,
        "oneOf": [{"const": n, "description": INJECTION.text} for n in HOSTILE_NAMES],
    }
    doc["$defs"]["Alias"] = {"description": INJECTION.text, "type": "string"}
    # msgspec refuses quotes, backslashes and control characters in wire names (a refused row).
    names = [HOSTILE_NAMES[0], HOSTILE_NAMES[2], "semi;colon = 1"]
    doc["$defs"]["Names"] = _obj(**{n: {"description": INJECTION.text} for n in names})
    return doc


def _deep_document() -> dict[str, Any]:
    node: dict[str, Any] = _obj(leaf={"type": "string"})
    for _ in range(24):
        node = _obj(next=node)
    return with_defs(Deep=node)


def _auth_document() -> dict[str, Any]:
    terminal = {
        "type": "object",
        "properties": {"type": {"type": "string", "const": "terminal"}},
        "required": ["type"],
        "allOf": [{"$ref": "#/$defs/TerminalAuth"}],
    }
    return with_defs(
        Auth={"anyOf": [terminal, {"title": "agent", "allOf": [{"$ref": "#/$defs/AgentAuth"}]}]},
        TerminalAuth=_obj(id={"type": "string"}, args={"type": "array", "items": {}}),
        AgentAuth=_obj(id={"type": "string"}),
    )


def _variant_like_def_document() -> dict[str, Any]:
    def apply(doc: dict[str, Any]) -> None:
        inline = _obj(sessionUpdate={"type": "string", "const": "tool_call_update"})
        inline["properties"]["toolCallId"] = {"type": "string"}
        inline["required"] = ["sessionUpdate", "toolCallId"]
        doc["$defs"]["SessionUpdate"]["oneOf"].append(inline)
        doc["$defs"]["ToolCallUpdate"] = _obj(toolCallId={"type": "string"})
        doc["$defs"]["Permission"] = _obj(toolCall={"$ref": "#/$defs/ToolCallUpdate"})

    return edit(apply)


def _ambiguous_document() -> dict[str, Any]:
    refs = ["EmptyResponse", "StopResponse", "Ext"]
    return with_defs(
        Response={"anyOf": [{"$ref": f"#/$defs/{r}"} for r in refs]},
        EmptyResponse=_obj(_meta={"type": ["object", "null"], "additionalProperties": True}),
        StopResponse=_obj(stopReason={"type": "string"}),
        Ext={"description": "any JSON"},
    )


def generated_cases() -> list[tuple[str, dict[str, Any], Callable[[ModuleType], None]]]:
    keywords = {k: {"type": "string"} for k in ("class", "import", "match")}
    module_props = {k: {"type": "string"} for k in ("msgspec", "typing", "later")}
    builtin_defs = {"str": {"type": "string"}, "list": _obj(n={}), "None": _obj()}
    user = {n: {"$ref": f"#/$defs/{n}"} for n in ("typing", "msgspec", "DecodeError", "dispatch")}
    package_defs = {n: _obj(v={"type": "string"}) for n in user}
    tree = _obj(
        value={"type": "integer"}, children={"type": "array", "items": {"$ref": "#/$defs/Tree"}}
    )
    return [
        (
            "keyword-properties",
            with_defs(A=_obj(**keywords, **{"from": {"type": "integer"}, "None": {}})),
            _keyword_properties,
        ),
        (
            "meta-property",
            with_defs(A=_obj(_meta={"type": ["object", "null"]}, meta2={})),
            _meta_property,
        ),
        (
            "non-identifier-names",
            with_defs(A=_obj(**{n: {"type": "string"} for n in ODD_NAMES})),
            _odd_names,
        ),
        (
            "definition-named-any",
            with_defs(Any=_obj(x={}), B=_obj(a={"$ref": "#/$defs/Any"}, b={})),
            _def_named_any,
        ),
        (
            "definitions-named-like-builtins",
            with_defs(
                **builtin_defs,
                B=_obj(
                    s={"$ref": "#/$defs/str"},
                    seq={"$ref": "#/$defs/list"},
                    nil={"$ref": "#/$defs/None"},
                ),
            ),
            _builtin_def_names,
        ),
        (
            "definitions-named-like-the-package-api",
            with_defs(**package_defs, User=_obj(**user)),
            _package_def_names,
        ),
        (
            "properties-named-like-modules",
            with_defs(A=_obj(**module_props)),
            _module_property_names,
        ),
        ("hostile-text-everywhere", _hostile_document(), _hostile_text),
        ("deep-nesting-within-limits", _deep_document(), _deep_allowed),
        ("recursive-definition", with_defs(Tree=tree), _recursive),
        ("one-tagged-variant-and-a-default", _auth_document(), _single_variant_default),
        (
            "inline-variant-named-like-a-definition",
            _variant_like_def_document(),
            _variant_named_like_def,
        ),
        ("ambiguous-untagged-union", _ambiguous_document(), _ambiguous_untagged),
    ]


# -- issue 14: numbers at the limits, folded names, enum machinery, deep chains ----------------

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _each_refused(m: ModuleType, payload: dict[str, Any], changes: list[dict[str, Any]]) -> None:
    """Each change to a valid `A` payload breaks a bound, so decoding it must fail."""
    for bad in changes:
        try:
            m.decode(json.dumps(payload | bad), m.A)
        except m.DecodeError:
            continue
        raise AssertionError(f"{bad} decoded although it breaks a bound")


def _numbers_at_the_limits(m: ModuleType) -> None:
    payload = {"whole": 1, "edge": INT64_MAX, "low": INT64_MIN, "big": 1e308, "name": "ab"}
    payload |= {"items": [1, 2], "pick": INT64_MAX}
    decode_round_trip(m, m.A, payload)
    _each_refused(m, payload, [{"whole": 0}, {"name": "a"}, {"items": [1]}, {"big": 1.0}])
    _each_refused(m, payload, [{"pick": 5}])


def numbers_document() -> dict[str, Any]:
    """Numbers right at what the targets hold, some written as whole floats (``1.0``)."""
    return with_defs(
        A=_obj(
            whole={"type": "integer", "minimum": 1.0},
            edge={"type": "integer", "maximum": INT64_MAX, "minimum": INT64_MIN},
            low={"type": "integer", "minimum": INT64_MIN},
            big={"type": "number", "minimum": 1e308},
            name={"type": "string", "minLength": 2.0},
            items={"type": "array", "items": {"type": "integer"}, "minItems": 2},
            pick={"enum": [INT64_MIN, INT64_MAX]},
        )
    )


def no_unions_no_methods(m: ModuleType) -> None:
    value = decode_round_trip(m, m.A, {"n": 5})
    assert value.n == 5
    dispatch = importlib.import_module(m.__name__ + ".dispatch")
    assert dispatch.METHODS == {}
    assert not [n for n in dir(dispatch) if n.endswith("_VARIANTS")]
    assert not {"dispatch", "decode_update", "decode_notification"} & set(m.__all__)


#: The schema the issue names: one object, no union, no x-method (generated with --root A).
NO_UNIONS: dict[str, Any] = {
    "$defs": {"A": {"type": "object", "properties": {"n": {"type": "integer"}}}}
}


def _folded_names(m: ModuleType) -> None:
    payload = {"t": {"v": "x"}, "s": "y", "plain": {"x": 1}}
    value = decode_round_trip(m, m.User, payload)
    assert type(value.t).__name__ == "typing_" and value.s == "y"
    assert isinstance(value.plain, m.UnknownSessionUpdate) and value.plain.x == 1
    other = decode_round_trip(m, m.SessionUpdate, {"sessionUpdate": "future", "k": [1]})
    assert type(other).__name__ == "OtherSessionUpdate"
    assert isinstance(
        decode_round_trip(m, m.SessionUpdate, {"sessionUpdate": "plan", "entries": []}), m.Plan
    )


def folded_names_document() -> dict[str, Any]:
    """Definitions that NFKC folds to a module (``ｔyping``), a builtin (``ｓｔｒ``) and the
    open union's unknown class (``ＵnknownSessionUpdate``)."""

    def apply(doc: dict[str, Any]) -> None:
        members = doc["$defs"]["SessionUpdate"]["oneOf"]
        members.append(
            {
                "title": "other",
                "type": "object",
                "properties": {"sessionUpdate": {"type": "string"}},
                "required": ["sessionUpdate"],
            }
        )
        doc["$defs"]["ｔyping"] = _obj(v={"type": "string"})
        doc["$defs"]["ｓｔｒ"] = {"type": "string"}
        doc["$defs"]["ＵnknownSessionUpdate"] = _obj(x={"type": "integer"})
        doc["$defs"]["User"] = _obj(
            t={"$ref": "#/$defs/ｔyping"},
            s={"$ref": "#/$defs/ｓｔｒ"},
            plain={"$ref": "#/$defs/ＵnknownSessionUpdate"},
        )

    return edit(apply)


def _enum_named_like_machinery(m: ModuleType) -> None:
    known = m.decode('"KNOWN"', m.Status)
    assert known.is_known and known == m.Status.KNOWN
    for value in ("is_known", "values"):
        assert m.decode(json.dumps(value), m.Status).is_known
    future = m.decode('"later"', m.Status)
    assert not future.is_known and future.is_future
    assert json.loads(m.encode(future)) == "later"


def enum_machinery_document() -> dict[str, Any]:
    values = ["KNOWN", "is_known", "values"]
    return with_defs(Status={"anyOf": [*({"const": v} for v in values), {"type": "string"}]})


def long_ref_chain(length: int) -> Callable[[ModuleType], None]:
    def check(m: ModuleType) -> None:
        payload: dict[str, Any] = {}
        for _ in range(min(length, 20)):
            payload = {"next": payload}
        decode_round_trip(m, m.D0, payload)
        end = decode_round_trip(m, getattr(m, f"D{length - 1}"), {"next": {"n": 3}})
        assert end.next.n == 3
        assert m.decode('{"n": 2}', m.Alias0).n == 2

    return check


#: How many definitions the long `$ref` chains hold.
CHAIN = 200


def ref_chain_document(length: int = CHAIN) -> dict[str, Any]:
    """D0 -> D1 -> ... through properties, and Alias0 -> Alias1 -> ... (aliases of aliases),
    `length` definitions each plus the object at the end."""
    defs: dict[str, Any] = {}
    for i in range(length):
        defs[f"D{i}"] = _obj(next={"$ref": f"#/$defs/D{i + 1}"})
        defs[f"Alias{i}"] = {"$ref": f"#/$defs/Alias{i + 1}"}
    defs[f"D{length}"] = _obj(n={"type": "integer"})
    defs[f"Alias{length}"] = _obj(n={"type": "integer"})
    return with_defs(**defs)


def _keywords_on_a_type_list(m: ModuleType) -> None:
    for good in ({"v": "ab"}, {"v": 1}, {"v": 2**40}):
        decode_round_trip(m, m.A, good)
    _each_refused(m, {"v": "ab"}, [{"v": "a"}, {"v": "bb"}, {"v": 0}, {"v": 1.5}])


def keywords_on_a_type_list_document() -> dict[str, Any]:
    """Beside a ``type`` list each keyword constrains the values of its own type: the
    lengths and the pattern the strings, the bound the integers (JSON Schema lets a value
    of another type through; `keywords.placed` refuses a keyword none of the types takes)."""
    return with_defs(
        A=_obj(v={"type": ["string", "integer"], "minLength": 2, "pattern": "^a", "minimum": 1})
    )


def issue14_cases() -> list[tuple[str, dict[str, Any], Callable[[ModuleType], None]]]:
    """The generated rows issue 14 adds (run with ``--all`` like the others)."""
    return [
        ("numbers-at-the-limits", numbers_document(), _numbers_at_the_limits),
        ("bounds-on-a-type-list", keywords_on_a_type_list_document(), _keywords_on_a_type_list),
        ("definitions-that-nfkc-folds", folded_names_document(), _folded_names),
        (
            "open-enum-values-named-like-its-machinery",
            enum_machinery_document(),
            _enum_named_like_machinery,
        ),
    ]


# -- keywords: every one enforced on every target, or refused ---------------------------------


def _each_accepted(m: ModuleType, payload: dict[str, Any], changes: list[dict[str, Any]]) -> None:
    for good in changes:
        decode_round_trip(m, m.A, payload | good)


def _enforced_keywords(m: ModuleType) -> None:
    payload = {"s": "abc", "i": 9, "n": 9.4, "whole": 3, "l": [1, 2], "edge": INT64_MAX - 1}
    payload |= {"low": INT64_MIN + 1, "mixed": 2, "both": 5.0}
    decode_round_trip(m, m.A, payload)
    _each_refused(m, payload, [{"s": "abcd"}, {"s": ""}, {"i": 0}, {"i": 10}, {"i": 4}])
    _each_refused(m, payload, [{"n": 0.5}, {"n": 9.5}, {"n": 0}, {"n": 10}, {"n": -3}])
    _each_refused(m, payload, [{"whole": 2}, {"whole": -12}, {"l": [1, 2, 3]}, {"l": []}])
    _each_refused(m, payload, [{"edge": INT64_MAX}, {"low": INT64_MIN}, {"mixed": 1}])
    _each_refused(m, payload, [{"mixed": 3}, {"both": 5.5}, {"both": 2}])
    _each_accepted(m, payload, [{"i": 3}, {"i": 6}, {"n": 1}, {"n": 0.51}, {"n": 9.49}])
    _each_accepted(m, payload, [{"s": "a"}, {"whole": 0}, {"whole": -9}, {"mixed": 2.5}])
    _each_accepted(m, payload, [{"both": 2.000001}, {"both": 5}, {"mixed": 2.0000001}])


def enforced_keywords_document() -> dict[str, Any]:
    """maxLength, multipleOf, exclusiveMinimum/Maximum and maxItems on the types they
    apply to, with both kinds of bound on one side and exclusive bounds at int64's ends."""
    return with_defs(
        A=_obj(
            s={"type": "string", "minLength": 1, "maxLength": 3},
            i={"type": "integer", "multipleOf": 3, "exclusiveMinimum": 0, "exclusiveMaximum": 10},
            n={"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 9.5},
            whole={"type": "integer", "multipleOf": 3.0, "minimum": -9},
            l={"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
            edge={"type": "integer", "exclusiveMaximum": INT64_MAX},
            low={"type": "integer", "exclusiveMinimum": INT64_MIN},
            mixed={"type": "number", "minimum": 1, "exclusiveMinimum": 1.5, "maximum": 2.5,
                   "exclusiveMaximum": 3},
            both={"type": "number", "exclusiveMinimum": 2, "minimum": 2, "maximum": 5,
                  "exclusiveMaximum": 5.5},
        )
    )  # fmt: skip


def _annotations_only(m: ModuleType) -> None:
    value = decode_round_trip(m, m.A, {"when": "not a date", "mail": "x", "n": [1, 1]})
    assert value.when == "not a date" and value.n == [1, 1]


def annotations_only_document() -> dict[str, Any]:
    """Formats the generator knows are annotations (JSON Schema asserts no format); the
    keywords that would say nothing at these values are accepted without a word."""
    return with_defs(
        A=_obj(
            when={"type": "string", "format": "date-time", "readOnly": True, "deprecated": True},
            mail={"type": "string", "format": "email", "contentMediaType": "text/plain"},
            n={"type": "array", "items": {"type": "integer"}, "uniqueItems": False},
        )
        | {"minProperties": 0, "examples": [{}], "$comment": "c"}
    )


def allowed_unenforced(m: ModuleType) -> None:
    record = importlib.import_module(m.__name__ + "._provenance")
    assert record.UNENFORCED == (  # (by pointer)
        ("maxProperties", "/$defs/A/maxProperties"),
        ("format", "/$defs/A/properties/code/format"),
    )
    assert record.OPTIONS["allow_unenforced"] == ["format", "maxProperties"]
    many = {"code": "x", **{f"k{i}": i for i in range(5)}}
    assert decode_round_trip(m, m.A, many).code == "x"  # (not enforced, as recorded)


def allowed_unenforced_document() -> dict[str, Any]:
    return with_defs(A=_obj(code={"type": "string", "format": "x-iso-code"}) | {"maxProperties": 1})


#: Patterns Python's re matches in linear time: a value each accepts, one it refuses, and a
#: unit and an end that make a refused megabyte built to send a backtracking matcher back
#: and forth (linear time takes milliseconds on it; the patterns refused elsewhere, hours).
SAFE_PATTERNS = {
    "anchored": ("^[A-Z]{3}$", "EUR", "EURO", "A", ""),
    "words": (r"^\w+@\w+\.com$", "a@b.com", "a@b@c.com", "a", "@b.co"),
    "groups": (r"^(ab)*c?$", "ababc", "aba", "ab", "a"),
    "unanchored": ("ab+", "xxabbb", "aaa", "a", ""),
    "classes": (r"^[^\s,]+(,[^\s,]+)*$", "a,b,c", "a,,b", "a,", ","),
}
#: The length of the values each accepted pattern is timed on.
MEGABYTE = 2**20


def _safe_patterns(m: ModuleType) -> None:
    import time

    for name, (_pattern, good, bad, unit, end) in SAFE_PATTERNS.items():
        decode_round_trip(m, m.A, {name: good})
        _each_refused(m, {name: good}, [{name: bad}])
        started = time.perf_counter()
        _each_refused(m, {name: good}, [{name: unit * (MEGABYTE // len(unit)) + end}])
        assert time.perf_counter() - started < 5, name


def safe_patterns_document() -> dict[str, Any]:
    return with_defs(
        A=_obj(**{n: {"type": "string", "pattern": p[0]} for n, p in SAFE_PATTERNS.items()})
    )


def keyword_cases() -> list[tuple[str, dict[str, Any], Callable[[ModuleType], None]]]:
    """Generated rows for the keywords: each enforced on every target, or only described."""
    return [
        ("enforced-keywords", enforced_keywords_document(), _enforced_keywords),
        ("annotation-keywords", annotations_only_document(), _annotations_only),
        ("linear-time-patterns", safe_patterns_document(), _safe_patterns),
    ]
