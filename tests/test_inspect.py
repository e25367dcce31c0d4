"""``acp-codegen inspect``: every fact in the summary is checked against the raw schema JSON."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from acp_codegen.cli import main
from tests import corpus
from tests.userproject import REPO, SCHEMA


def inspect_json(schema: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["inspect", str(schema), "--json", *args])
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads(result.output)
    return summary


def raw_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def test_session_update_union_matches_the_schema() -> None:
    raw = raw_schema()
    members = raw["$defs"]["SessionUpdate"]["anyOf"]
    tags = [
        m["properties"]["sessionUpdate"]["const"]
        for m in members
        if "const" in m["properties"]["sessionUpdate"]
    ]
    has_fallback = any("const" not in m["properties"]["sessionUpdate"] for m in members)
    summary = inspect_json(SCHEMA)
    [union] = [u for u in summary["unions"] if u["name"] == "SessionUpdate"]
    assert [v["tag"] for v in union["variants"]] == tags
    assert union["open"] is has_fallback is True
    assert union["tag"] == "sessionUpdate"
    assert summary["update_union"] == "SessionUpdate"
    notes = {v["tag"]: v["annotations"] for v in union["variants"]}
    for member in members:
        tag = member["properties"]["sessionUpdate"].get("const")
        if tag is not None:
            expected = {k: v for k, v in member.items() if k.startswith("x-acp-")}
            assert notes[tag] == expected, tag


def test_patch_fields_entities_and_methods_match_the_schema() -> None:
    raw = raw_schema()
    summary = inspect_json(SCHEMA)
    raw_patches = {
        (prop, spec["x-acp-patch"])
        for body in raw["$defs"].values()
        for prop, spec in body.get("properties", {}).items()
        if isinstance(spec, dict) and "x-acp-patch" in spec
    }
    # The report shows the reducer's reading: every explicit patch rule, plus the optional
    # fields of entity updates, which replace when present (the default for a patch).
    shown = {(p["wire"], p["patch"]) for p in summary["patch_fields"]}
    assert raw_patches <= shown
    annotated = {wire for wire, _ in raw_patches}
    assert {mode for wire, mode in shown if wire not in annotated} == {"replace"}

    raw_entities: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for member in raw["$defs"]["SessionUpdate"]["anyOf"]:
        entity = member.get("x-acp-entity")
        if entity:
            tag = member["properties"]["sessionUpdate"]["const"]
            raw_entities[entity["kind"]].append((entity["op"], tag))
    assert {
        e["kind"]: [(u["op"], u["tag"]) for u in e["updates"]] for e in summary["entities"]
    } == raw_entities
    [compaction] = [e for e in summary["entities"] if e["kind"] == "compaction"]
    assert compaction["initial"] == {"status": "in_progress"}

    raw_methods = sorted(
        (d["x-method"], d["x-side"], name) for name, d in raw["$defs"].items() if "x-method" in d
    )
    every = inspect_json(SCHEMA, "--all")["methods"]
    assert sorted((m["method"], m["side"], m["type"]) for m in every) == raw_methods
    assert [m["method"] for m in summary["methods"]] == ["session/update"]


def test_open_enums_match_the_schema() -> None:
    raw = raw_schema()
    expected = set()
    for name, body in raw["$defs"].items():
        members = body.get("anyOf", [])
        scalar = [m for m in members if m.get("type") in ("string", "integer")]
        if scalar and len(scalar) == len(members) and any("const" not in m for m in scalar):
            expected.add(name)
    summary = inspect_json(SCHEMA)
    assert {e["name"] for e in summary["open_enums"]} == expected
    [kinds] = [e for e in summary["open_enums"] if e["name"] == "ToolKind"]
    consts = [m["const"] for m in raw["$defs"]["ToolKind"]["anyOf"] if "const" in m]
    assert kinds["values"] == consts


def test_text_report_sections() -> None:
    summary = inspect_json(SCHEMA)
    result = CliRunner().invoke(main, ["inspect", str(SCHEMA)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for section, key in [
        ("Unions", "unions"),
        ("Open enums", "open_enums"),
        ("Lenient fields", "lenient_fields"),
        ("Patch fields", "patch_fields"),
        ("Entities", "entities"),
        ("Methods", "methods"),
    ]:
        assert f"{section} ({len(summary[key])})" in lines
    assert (
        "  SessionUpdate  tag 'sessionUpdate', open: unknown tags -> UnknownSessionUpdate" in lines
    )
    assert any(
        line.split() == ["session/update", "notification", "client", "UpdateSessionNotification"]
        for line in lines
    )


def test_closed_unions_in_a_published_schema() -> None:
    corpus.require()
    v1 = corpus.newest(corpus.NEWEST["v1"])
    raw = json.loads(v1.read_text(encoding="utf-8"))
    summary = inspect_json(v1, "--all", "--no-builtin-overlay", "--closed")
    closed = {u["name"] for u in summary["unions"] if not u["open"]}
    assert "SessionUpdate" in closed
    # Without --closed, inspect shows the unions open, as generate makes them.
    opened = inspect_json(v1, "--all", "--no-builtin-overlay")
    assert not {u["name"] for u in opened["unions"] if not u["open"]}
    one_of = raw["$defs"]["SessionUpdate"]["oneOf"]
    [union] = [u for u in summary["unions"] if u["name"] == "SessionUpdate"]
    assert len(union["variants"]) == len(one_of)
    assert summary["patch_fields"] == summary["entities"] == []
    # By default inspect annotates the schema exactly as generate does: the built-in
    # v1 overlay, and what it says about entities shows.
    annotated = inspect_json(v1, "--all")
    assert {e["kind"] for e in annotated["entities"]} >= {"agent_message", "tool_call"}


def test_overlay_flag(tmp_path: Path) -> None:
    """``inspect --overlay`` reads the same annotations generate would apply."""
    corpus.require()
    v2 = corpus.newest(corpus.NEWEST["v2-unstable"])
    overlay = REPO / "acp_codegen" / "overlays" / "v2.json"
    given = inspect_json(v2, "--overlay", str(overlay))
    assert given["entities"] == inspect_json(v2)["entities"] != []
    assert inspect_json(v2, "--no-builtin-overlay")["entities"] == []


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["inspect", str(tmp_path / "missing.json")])
    assert result.exit_code == 2
    assert len(result.output.splitlines()) == 1
    assert "cannot read schema" in result.output


def test_reducer_sections_are_the_reducers_reading() -> None:
    """Entities, snapshots and live updates come from the one `ReducerSpec` reading that
    generate uses: each update carries its own key (plan_removed is keyed by planId while
    plan_update is keyed by plan.planId), and the text names the same key per variant."""
    from acp_codegen.accept import Annotations, accept

    spec = accept(SCHEMA, (), False, Annotations((), True, False)).spec
    assert spec is not None
    summary = inspect_json(SCHEMA)
    [plan] = [e for e in summary["entities"] if e["kind"] == "plan"]
    assert {u["tag"]: u["key"] for u in plan["updates"]} == {
        "plan_update": "plan.planId",
        "plan_removed": "planId",
    }
    reported = {(u["tag"], e["kind"], u["op"]) for e in summary["entities"] for u in e["updates"]}
    assert len(reported) == len(spec.entities)
    assert {s["slot"] for s in summary["snapshots"]} == {s.slot for s in spec.snapshots}
    assert len(summary["live"]) == len(spec.live)
    text = CliRunner().invoke(main, ["inspect", str(SCHEMA)]).output
    assert "plan_removed" in text and "entity plan remove by planId" in text


FLAGS = ("default-on-error", "skip-invalid-items", "default-on-null")


def test_lenient_fields_are_the_schemas_flags() -> None:
    """Every ``x-deserialize-*`` flag of the newest v1 schema's properties, and no other."""
    corpus.require()
    path = corpus.newest(corpus.NEWEST["v1"])
    document = json.loads(path.read_text(encoding="utf-8"))
    expected = set()
    for node in document["$defs"].values():
        for wire, prop in (node.get("properties") or {}).items():
            for flag in FLAGS:
                if isinstance(prop, dict) and prop.get(f"x-deserialize-{flag}") is True:
                    expected.add((wire, flag))
    found = {
        (f["wire"], flag)
        for f in inspect_json(path, "--all")["lenient_fields"]
        for flag in f["flags"]
    }
    assert ("env", "default-on-null") in found and ("args", "default-on-null") in found
    assert found == expected
