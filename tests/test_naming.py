"""Naming is pure: table tests of every derivation rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_codegen import naming
from tests.conftest import GenerateFn


@pytest.mark.parametrize(
    ("wire", "attr"),
    [
        ("sessionId", "session_id"),
        ("toolCallId", "tool_call_id"),
        ("_meta", "meta"),
        ("rawInput", "raw_input"),
        ("HTTPHeader", "http_header"),
        ("mcpServers", "mcp_servers"),
        ("uri", "uri"),
        ("from", "from_"),
        ("class", "class_"),
        ("import", "import_"),
        ("match", "match_"),
        ("type", "type"),
        ("id", "id"),
        ("content-type", "content_type"),
        ("1stItem", "field_1st_item"),
        ("$ref", "ref"),
        ("a b", "a_b"),
        ("", "field"),
        ("!!!", "field"),
        ("utf16Offset", "utf16_offset"),
        ("exitCode", "exit_code"),
        ("maxItems", "max_items"),
        ("json", "json_"),
        ("modelDump", "model_dump_"),
        ("modelId", "model_id"),
    ],
)
def test_attribute(wire: str, attr: str) -> None:
    assert naming.attribute(wire) == attr
    assert attr.isidentifier()


@pytest.mark.parametrize(
    ("text", "pascal"),
    [
        ("agent_message_chunk", "AgentMessageChunk"),
        ("searchAndReplace", "SearchAndReplace"),
        ("date-time", "DateTime"),
        ("_custom", "Custom"),
        ("utf-16", "Utf16"),
        ("requires_action", "RequiresAction"),
        ("", ""),
    ],
)
def test_pascal(text: str, pascal: str) -> None:
    assert naming.pascal(text) == pascal


@pytest.mark.parametrize(
    ("value", "constant"),
    [
        ("in_progress", "IN_PROGRESS"),
        ("date-time", "DATE_TIME"),
        ("Parse error", "PARSE_ERROR"),
        ("-32700", "V_32700"),
        ("utf-8", "UTF_8"),
        ("", "EMPTY"),
        ("8bit", "V_8BIT"),
        ("allow_once", "ALLOW_ONCE"),
    ],
)
def test_constant(value: str, constant: str) -> None:
    assert naming.constant(value) == constant


@pytest.mark.parametrize(
    ("def_name", "cls"),
    [
        ("SessionUpdate", "SessionUpdate"),
        ("str", "str_"),
        ("list", "list_"),
        ("None", "None_"),
        ("Exception", "Exception_"),
        ("Any", "Any"),
        ("my-type", "MyType"),
        ("2fa", "Model2fa"),
        ("_Private", "Private"),
    ],
)
def test_class_name(def_name: str, cls: str) -> None:
    assert naming.class_name(def_name) == cls


@pytest.mark.parametrize(
    ("tag", "union", "body", "name"),
    [
        # the body already names the tag: the body's name (a body other definitions use
        # too then keeps its fields as `fields_class_name`)
        ("text", "ContentBlock", "TextContent", "TextContent"),
        ("user_message", "SessionUpdate", "UserMessage", "UserMessage"),
        ("running", "StateUpdate", "RunningStateUpdate", "RunningStateUpdate"),
        ("http", "McpServer", "McpServerHttp", "McpServerHttp"),
        (
            "searchAndReplace",
            "NesSuggestion",
            "NesSearchAndReplaceSuggestion",
            "NesSearchAndReplaceSuggestion",
        ),
        ("tool_call_update", "SessionUpdate", "ToolCallUpdate", "ToolCallUpdate"),
        # a body that does not name the tag: the tag's last word decides
        ("agent_message_chunk", "SessionUpdate", "ContentChunk", "AgentMessageChunk"),
        ("add", "DiffChange", "DiffPathChange", "AddDiffChange"),
        # no body at all
        ("cancelled", "RequestPermissionOutcome", None, "CancelledRequestPermissionOutcome"),
        ("plan_update", "SessionUpdate", None, "PlanUpdate"),
    ],
)
def test_variant_class_name(tag: str, union: str, body: str | None, name: str) -> None:
    assert naming.variant_class_name(tag, union, body) == name


def test_fields_class_name() -> None:
    assert naming.fields_class_name("ToolCallUpdate") == "ToolCallUpdateFields"


def test_derived_table_and_handler_names() -> None:
    assert naming.unknown_class_name("SessionUpdate") == "UnknownSessionUpdate"
    assert naming.variants_table_name("SessionUpdate") == "SESSION_UPDATE_VARIANTS"
    assert naming.variants_table_name("McpServer") == "MCP_SERVER_VARIANTS"
    assert naming.handler_method("agent_message_chunk") == "on_agent_message_chunk"
    assert naming.handler_method("import") == "on_import"


def test_sort_keys_follow_ruff_order() -> None:
    names = ["dispatch", "Foo10", "METHODS", "Foo2", "Bar", "UNSET", "decode"]
    assert sorted(names, key=naming.isort_key) == [
        "METHODS",
        "UNSET",
        "Bar",
        "Foo2",
        "Foo10",
        "decode",
        "dispatch",
    ]
    assert sorted(["AuthMethodAgent", "AuthenticateRequest"], key=naming.import_key) == [
        "AuthenticateRequest",
        "AuthMethodAgent",
    ]


def test_templates_take_public_names_from_the_package_view() -> None:
    """Imports of the package's own modules and every ``__all__`` come from `package_view`:
    a template line that imports or exports must not spell a name itself."""
    import re

    root = Path(__file__).resolve().parent.parent / "templates"
    own = re.compile(r"^from \.(_runtime|models|codec|dispatch|state) import (?!\(|\{\{)")
    checked = 0
    for template in sorted(root.rglob("*.j2")):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{template.relative_to(root)}:{number}"
            assert not own.match(line), f"{where} imports a name it spells itself: {line}"
            if line.startswith("__all__"):
                checked += 1
                assert "{{" in line or line.rstrip().endswith("["), where
    assert checked >= 3


def test_no_generated_name_can_shadow_a_module_the_package_imports() -> None:
    """Every module a target's generated code imports is reserved, so a property named
    after it (``annotated_types``) becomes ``annotated_types_`` instead of hiding it."""
    import re

    from acp_codegen.targets import TARGETS

    root = Path(__file__).resolve().parent.parent / "templates"
    imported = set()
    for template in root.rglob("*.j2"):
        imported |= set(re.findall(r"^import (\w+)$", template.read_text(), re.MULTILINE))
    for target in TARGETS.values():
        imported |= set(target.modules)
    assert imported >= {"enum", "typing", "msgspec", "pydantic", "annotated_types"}
    assert imported <= naming.GENERATED_MODULES, imported - naming.GENERATED_MODULES
    assert naming.attribute("annotated_types") == "annotated_types_"


def test_each_target_folder_declares_its_modules_for_naming(tmp_path: Path) -> None:
    """`naming` reserves exactly the templates' modules plus what each target's folder
    declares, read without importing the folder, so a new target edits nothing else."""
    from acp_codegen.targets import TARGETS

    declared = {m for t in TARGETS.values() for m in t.modules}
    templates = {"enum", "importlib", "typing", "typing_extensions"}
    assert naming.GENERATED_MODULES == templates | declared
    made_up = tmp_path / "mylib"
    made_up.mkdir()
    (made_up / "__init__.py").write_text(
        'TARGET = Target("mylib", lower, modules=("mylib", "mylib_extras"))\n', encoding="utf-8"
    )
    assert naming.target_modules(tmp_path) == {"mylib", "mylib_extras"}


SHADOWING = {
    "$defs": {
        "N": {
            "type": "object",
            "x-method": "session/update",
            "x-side": "client",
            "properties": {
                "annotated_types": {"type": "string"},
                "pydantic": {"type": "string"},
                "x": {"type": "integer", "minimum": 0},
                "update": {"$ref": "#/$defs/U"},
            },
            "required": ["update"],
        },
        "U": {
            "anyOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}
            ]
        },
    }
}


def test_property_named_like_an_imported_module(make_package, target, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    import json

    schema = tmp_path_factory.mktemp("shadow") / "s.json"
    schema.write_text(json.dumps(SHADOWING), encoding="utf-8")
    pkg = make_package(schema, "shadowing_modules", target=target)
    ok = b'{"annotated_types": "s", "pydantic": "p", "x": 3, "update": {"kind": "a"}}'
    value = pkg.decode(ok, pkg.N)
    assert (value.annotated_types_, value.pydantic_, value.x) == ("s", "p", 3)
    assert json.loads(pkg.encode(value)) == json.loads(ok)
    with pytest.raises(pkg.DecodeError):
        pkg.decode(ok.replace(b'"x": 3', b'"x": -3'), pkg.N)


def test_templates_spell_no_api_name_themselves() -> None:
    """Every module-level name the package defines besides its models (decode, METHODS,
    SessionState, ...) reaches the templates through ``api`` (`naming.API`): no template
    defines, calls or mentions one by writing it out."""
    import dataclasses
    import re

    names = "|".join(getattr(naming.API, f.name) for f in dataclasses.fields(naming.API))
    spelled = re.compile(
        rf"(?<![\w.\"'])({names})(?=\s*[(\[:\]),]|\s+=|`)|^\s*(def|class)\s+({names})\b|`({names})`"
    )
    root = Path(__file__).resolve().parent.parent / "templates"
    checked = 0
    for template in sorted(root.rglob("*.j2")):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", line)
            checked += 1
            match = spelled.search(code)
            assert match is None, f"{template.relative_to(root)}:{number} spells {line.strip()!r}"
    assert checked > 200


def test_the_api_names_come_from_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Renaming an API entry in `naming.API` renames it in the rendered templates."""
    import dataclasses

    from acp_codegen import pipeline

    schema = Path(__file__).resolve().parent.parent / "schema" / "session_update.schema.json"
    renamed = dataclasses.replace(naming.API, decode="decode_json", dispatch="route")
    monkeypatch.setattr(naming, "API", renamed)
    files = pipeline.generate(pipeline.Job(schema, tmp_path / "p", "p"))
    assert "\ndef decode_json(" in files["codec.py"] and "\ndef decode(" not in files["codec.py"]
    assert "\ndef route(" in files["dispatch.py"]


BASE_NAMES = {
    "$defs": {
        "A": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
}


def test_each_target_declares_what_its_model_base_defines(
    make_package: GenerateFn, target: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`Target.model_attributes` lists exactly the public names a generated model inherits
    (read from the installed library), and `naming` moves every one of them."""
    import json

    from acp_codegen.targets import TARGETS

    schema = tmp_path_factory.mktemp("bases") / "s.json"
    schema.write_text(json.dumps(BASE_NAMES), encoding="utf-8")
    pkg = make_package(schema, "model_base_names", target=target, take_all=True)
    inherited = {n for base in pkg.A.__mro__[1:] for n in dir(base) if not n.startswith("_")}
    assert inherited == set(TARGETS[target].model_attributes)
    assert inherited <= naming.MODEL_ATTRIBUTES
    assert all(naming.attribute(n) == n + "_" for n in inherited)


def test_model_attributes_are_read_from_each_folder(tmp_path: Path) -> None:
    made_up = tmp_path / "mylib"
    made_up.mkdir()
    (made_up / "__init__.py").write_text(
        'TARGET = Target("mylib", lower, model_attributes=("save", "load"))\n', encoding="utf-8"
    )
    assert naming.declared("model_attributes", tmp_path) == {"save", "load"}


def test_reducer_reads_a_field_named_like_a_base_model_method(
    make_package: GenerateFn, target: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The reducer's tables name attributes once for every target; on pydantic a field
    spelled ``copy`` would have read `BaseModel.copy`, the bound method, into the entity."""
    import json

    from tests.conftest import OWN_SCHEMA

    doc = json.loads(OWN_SCHEMA.read_text(encoding="utf-8"))
    doc["$defs"]["ToolCallUpdate"]["properties"]["copy"] = {"type": ["string", "null"]}
    schema = tmp_path_factory.mktemp("reducer") / "s.json"
    schema.write_text(json.dumps(doc), encoding="utf-8")
    pkg = make_package(schema, "reducer_base_model_names", target=target)
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "copy": "hello"}
    state = pkg.SessionState()
    state.apply(pkg.decode_update(json.dumps(update)))
    assert state.get("tool_call", "t1").copy_ == "hello"
    state.apply(pkg.decode_update(json.dumps({**update, "copy": None})))
    assert state.get("tool_call", "t1").copy_ is None
