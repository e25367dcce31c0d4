"""The built-in v1 and v2 overlays: what they claim to cover, proven over the corpus.

Every revision in ``../shared/acp-schemas/v1`` and ``v2`` generates with no flags into a
package whose `SessionState` imports and reduces a chunk; each is claimed by exactly the
overlay of its folder, which applies to it strictly. No schema in the corpus satisfies
both guards. An overlay that cannot annotate a revision it claims names the revision and
the entry, and the package is generated without `SessionState` and one line saying why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen import accept, ir, load, overlay
from acp_codegen.cli import main
from acp_codegen.errors import SchemaError
from acp_codegen.pipeline import Job, generate
from tests import corpus


def revisions(folder: str) -> list[Path]:
    corpus.require()
    return [r.path for r in corpus.schemas() if r.folder == folder]


def builtin(family: str) -> overlay.Builtin:
    (found,) = [b for b in overlay.builtins() if b.family == family]
    return found


def entry_index(family: str, tag: str) -> int:
    entries = json.loads(builtin(family).path.read_text(encoding="utf-8"))["entries"]
    return next(
        i
        for i, e in enumerate(entries)
        if e.get("expect", {}).get("properties/sessionUpdate/const") == tag
    )


def test_one_builtin_overlay_per_family() -> None:
    assert sorted(b.family for b in overlay.builtins()) == ["v1", "v2"]
    for b in overlay.builtins():
        assert b.guard and b.revisions


@pytest.mark.parametrize("folder", ["v1", "v2"])
def test_each_revision_is_claimed_by_its_family_and_annotated_strictly(folder: str) -> None:
    paths = revisions(folder)
    assert paths  # every revision the manifest lists in the folder, however many
    for path in paths:
        loaded = load.load_path(path)
        chosen = overlay.choose_builtin(loaded)
        assert chosen is not None and chosen.family == folder, path.name
        overlay.apply_overlay(loaded, chosen.path)  # raises, naming the entry, if it cannot


def test_no_schema_satisfies_both_guards() -> None:
    corpus.require()
    for revision in corpus.schemas():
        try:
            loaded = load.load_path(revision.path)
        except SchemaError:
            continue  # the two refused v0 revisions
        holding = [
            b.family
            for b in overlay.builtins()
            if all(overlay._guard_holds(loaded.document, g) for g in b.guard)
        ]
        assert len(holding) <= 1, (revision.file, holding)


def without_variant(source: Path, tag: str, target: Path) -> Path:
    """A copy of `source` (in a scratch folder) whose update union lacks `tag`."""
    schema = json.loads(source.read_text(encoding="utf-8"))
    union = schema["$defs"]["SessionUpdate"]
    key = "anyOf" if "anyOf" in union else "oneOf"
    union[key] = [
        v
        for v in union[key]
        if v.get("properties", {}).get("sessionUpdate", {}).get("const") != tag
    ]
    target.write_text(json.dumps(schema), encoding="utf-8")
    return target


def run(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_an_overlay_that_cannot_apply_names_the_revision_and_the_entry(tmp_path: Path) -> None:
    corpus.require()
    schema = without_variant(
        corpus.newest(corpus.NEWEST["v2"]), "usage_update", tmp_path / "no-usage.json"
    )
    loaded = load.load_path(schema)
    assert overlay.choose_builtin(loaded) is not None, "the guard still claims it"
    with pytest.raises(SchemaError) as caught:
        overlay.apply_overlay(loaded, builtin("v2").path)
    message = str(caught.value)
    assert f"/entries/{entry_index('v2', 'usage_update')}" in message
    assert "no-usage.json" in message and "matches nothing" in message
    result = run("generate", "--schema", schema, "--out", tmp_path / "pkg", "--package", "pkg")
    assert result.exit_code == 0, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "no-usage.json: no SessionState generated: the built-in v2 overlay "
        "cannot annotate this revision"
    )
    assert f"/entries/{entry_index('v2', 'usage_update')}" in line
    assert not (tmp_path / "pkg" / "state.py").exists()
    assert (tmp_path / "pkg" / "models.py").exists(), "the bindings are still generated"


def test_an_optional_group_applies_whole_or_not_at_all(tmp_path: Path) -> None:
    """Removing one of the three message upserts leaves the 'messages' group partly
    present: the error names the entry that no longer matches."""
    corpus.require()
    schema = without_variant(
        corpus.newest(corpus.NEWEST["v2"]), "agent_thought", tmp_path / "no-thought.json"
    )
    with pytest.raises(SchemaError, match="group 'messages' is only partly present") as caught:
        overlay.apply_overlay(load.load_path(schema), builtin("v2").path)
    assert f"/entries/{entry_index('v2', 'agent_thought')}" in str(caught.value)
    # A variant removed while its body's `_meta` entry still matches is partial, too.
    schema = without_variant(
        corpus.newest(corpus.NEWEST["v2-unstable"]), "notice", tmp_path / "no-notice.json"
    )
    with pytest.raises(SchemaError, match="group 'notice' is only partly present"):
        overlay.apply_overlay(load.load_path(schema), builtin("v2").path)
    # Wholly absent groups (terminals before 2026-07-14, ...) are skipped: the corpus tests
    # above apply the overlay to every revision.


def test_cli_picks_the_builtin_and_can_turn_it_off(tmp_path: Path) -> None:
    corpus.require()
    schema = corpus.newest(corpus.NEWEST["v1"])
    result = run("generate", "--schema", schema, "--out", tmp_path / "on", "--package", "on")
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert (tmp_path / "on" / "state.py").is_file()
    result = run(
        "generate",
        "--schema",
        schema,
        "--out",
        tmp_path / "off",
        "--package",
        "off",
        "--no-builtin-overlay",
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"{schema.name}: no SessionState generated: the schema has no x-acp-* annotations "
        "and --no-builtin-overlay is set"
    ]
    assert not (tmp_path / "off" / "state.py").exists()
    record = (tmp_path / "off" / "_provenance.py").read_text(encoding="utf-8")
    assert record.splitlines()[1].endswith("--no-builtin-overlay"), "the command regenerates it"
    assert '"builtin_overlay": False' in record


def test_config_key_turns_the_builtin_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus.require()
    schema = corpus.newest(corpus.NEWEST["v2"])
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.acp-codegen]\nschema = "{schema.as_posix()}"\nout = "acp"\n'
        "builtin_overlay = false\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = run("generate")
    assert result.exit_code == 0, result.output
    assert "--no-builtin-overlay is set" in result.stderr
    assert not (tmp_path / "acp" / "state.py").exists()


def test_an_overlay_flag_replaces_the_builtin(tmp_path: Path) -> None:
    """--overlay is used instead of the built-in overlay, never on top of it: an overlay
    that annotates only the agent chunks gives a reducer that knows nothing else."""
    corpus.require()
    mine = tmp_path / "mine.json"
    entries = json.loads(builtin("v2").path.read_text(encoding="utf-8"))["entries"]
    chunk = entries[entry_index("v2", "agent_message_chunk")]
    mine.write_text(json.dumps({"entries": [chunk]}), encoding="utf-8")
    schema = corpus.newest(corpus.NEWEST["v2"])
    result = run(
        "generate",
        "--schema",
        schema,
        "--out",
        tmp_path / "pkg",
        "--package",
        "pkg",
        "--overlay",
        mine,
    )
    assert result.exit_code == 0 and result.stderr == "", result.output
    state = (tmp_path / "pkg" / "state.py").read_text(encoding="utf-8")
    assert "AgentMessageChunk: _state.EntityRule(" in state
    assert "ToolCallUpdate" not in state


def test_a_schema_with_its_own_annotations_is_used_as_it_is(tmp_path: Path) -> None:
    own = Path(__file__).resolve().parent.parent / "schema" / "session_update.schema.json"
    notes: list[str] = []
    with_builtin = generate(Job(own, tmp_path / "a", "a"), notes)
    without = generate(Job(own, tmp_path / "a", "a", builtin_overlay=False))
    assert notes == [] and "state.py" in with_builtin

    def body(files: dict[str, str]) -> dict[str, str]:  # only the record names the flag
        return {
            k: "".join(v.splitlines(True)[4:]) for k, v in files.items() if k != "_provenance.py"
        }

    assert body(with_builtin) == body(without)


#: The four revisions of 2026-11-02: v2 stable and unstable, v1 stable and unstable.
NOVEMBER = (
    "v2/2026-11-02_01fc80f2_schema.json",
    "v2/2026-11-02_db7762f1_schema.unstable.json",
    "v1/2026-11-02_86683b3e_schema.json",
    "v1/2026-11-02_ef9c8ab6_schema.unstable.json",
)
#: Update kinds an overlay leaves unannotated on purpose (kept in history): v1's plan
#: updates beside its `plan` snapshot.
LEFT_TO_HISTORY = {"plan_update", "plan_removed"}


@pytest.mark.parametrize("file", NOVEMBER)
def test_the_newest_revisions_get_a_reducer_for_every_update_kind(file: str) -> None:
    """With no flag, every update kind is an entity, a snapshot or a live event; subagents
    and session-directed messages are entities, paused tool calls stay live, and terminal
    size and capabilities are patched as values."""
    corpus.require()
    accepted = accept.accept(corpus.SCHEMAS / file)
    spec = accepted.spec
    assert spec is not None, accepted.why
    union = accepted.module.get(spec.union)
    assert isinstance(union, ir.TaggedUnion)
    roles = {"x-acp-entity", "x-acp-snapshot", "x-acp-live"}
    bare = {v.tag for v in union.variants if not roles & {a.key for a in v.annotations}}
    assert bare <= (LEFT_TO_HISTORY if file.startswith("v1/") else set()), bare
    tags = {v.tag for v in union.variants}
    kinds = {rule.kind: rule for rule in spec.entities if rule.op == "upsert"}
    assert ("subagent" in kinds) == ("subagent_update" in tags)
    assert ("session_message" in kinds) == ("session_message" in tags)
    appends = {rule.kind for rule in spec.entities if rule.op == "append"}
    assert ("session_message" in appends) == ("session_message_chunk" in tags)
    finished = kinds["tool_call"].finished
    assert finished is not None and "paused" not in (finished[1] or ())
    if "terminal" in kinds:
        fields = {(f.attr, f.mode) for f in kinds["terminal"].fields}
        assert {("size", "replace"), ("capabilities", "replace")} <= fields
    if "state_update" in tags:
        assert spec.state is not None
        stops = {rule.stop for rule in spec.snapshots if rule.slot == spec.state.slot}
        assert "error" in stops  # the error stop reason, read from its class
