"""`acp-codegen diff`: classification on fixture pairs, mirror symmetry, output formats, CLI.

Each directory under ``tests/diff_fixtures/`` holds a schema pair (``old.json``,
``new.json``) that differs in one kind of way, and ``expected.json`` with the
options to diff them under and every change expected, as
``[severity, kind, type, member]``. The expectations were written by hand from
what each pair changes; they are the classification under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from acp_codegen import build, load
from acp_codegen.cli import main
from acp_codegen.diff import METHODS, Change, compare, diff_paths
from acp_codegen.diff.format import JSON_FORMAT
from acp_codegen.diff.rules import RULES, mirror, rules_markdown, severity
from tests import corpus

FIXTURES = Path(__file__).parent / "diff_fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())
DIFF_DOC = corpus.REPO / "docs" / "diff.md"
#: Kinds whose `member` is the NEW name of something renamed, with the OLD name in `old`.
RENAMES = ("field.renamed", "union.tag_renamed", "enum.value_renamed")


def _expected(case: str) -> dict[str, Any]:
    return json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))


def _diff(case: str, swap: bool = False) -> tuple[Change, ...]:
    options = _expected(case)["options"]
    old, new = FIXTURES / case / "old.json", FIXTURES / case / "new.json"
    if swap:
        old, new = new, old
    report = diff_paths(
        old, new, take_all=options.get("take_all", False), docs=options.get("docs", False)
    )
    return report.changes


def _rows(changes: tuple[Change, ...]) -> list[list[str]]:
    return sorted([c.severity, c.kind, c.type, c.member] for c in changes)


@pytest.mark.parametrize("case", CASES)
def test_fixture_changes_and_their_classification(case: str) -> None:
    assert _rows(_diff(case)) == sorted(_expected(case)["changes"])


def mirrored(changes: tuple[Change, ...]) -> set[tuple[str, str, str, str | None, str | None]]:
    """What the same comparison must report with OLD and NEW swapped.

    Renamed things are reported under their NEW name, so the swapped run names
    them by the other side's name.
    """
    types = {c.type: c.old for c in changes if c.kind == "type.renamed"}
    members = {(c.type, c.member): c.old for c in changes if c.kind in RENAMES}
    out = set()
    for c in changes:
        base = re.split(r"[\[{]", c.member, maxsplit=1)[0]
        member = members.get((c.type, base), base) + c.member[len(base) :]
        out.add((mirror(c.kind), types.get(c.type) or c.type, str(member), c.new, c.old))
    return out


@pytest.mark.parametrize("case", CASES)
def test_swapping_old_and_new_mirrors_every_change(case: str) -> None:
    forward = _diff(case)
    backward = _diff(case, swap=True)
    assert {(c.kind, c.type, c.member, c.old, c.new) for c in backward} == mirrored(forward)


def test_every_rule_is_exercised_by_a_fixture() -> None:
    kinds = {row[1] for case in CASES for row in _expected(case)["changes"]}
    assert kinds | {mirror(k) for k in kinds} == set(RULES)


def test_rules_are_consistent() -> None:
    for kind, rule in RULES.items():
        assert mirror(rule.mirror) == kind, kind
        if rule.severity == "additive":
            # Undoing an addition takes something away from the consumer.
            assert severity(rule.mirror) == "breaking", kind
        if rule.severity == "cosmetic":
            assert severity(rule.mirror) == "cosmetic", kind


@pytest.mark.parametrize("case", CASES)
def test_a_schema_diffed_with_itself_reports_nothing(case: str) -> None:
    path = FIXTURES / case / "new.json"
    assert diff_paths(path, path, take_all=True, docs=True).changes == ()


@pytest.mark.parametrize("key", sorted(corpus.NEWEST))
def test_published_schema_diffed_with_itself_reports_nothing(key: str) -> None:
    corpus.require()
    loaded = load.load_path(corpus.newest(corpus.NEWEST[key]))
    assert compare(build.build(loaded, (), True), build.build(loaded, (), True), docs=True) == ()


def test_rewording_counts_only_with_docs() -> None:
    old, new = FIXTURES / "docs_reworded" / "old.json", FIXTURES / "docs_reworded" / "new.json"
    assert diff_paths(old, new).changes == ()
    assert {c.severity for c in diff_paths(old, new, docs=True).changes} == {"cosmetic"}


def test_schemas_without_x_method_fall_back_to_every_definition(tmp_path: Path) -> None:
    schema = json.loads((FIXTURES / "variant_added" / "new.json").read_text(encoding="utf-8"))
    del schema["$defs"]["SessionNotification"]["x-method"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(schema), encoding="utf-8")
    report = diff_paths(FIXTURES / "variant_added" / "old.json", bare)
    assert report.selection.mode == "all"
    assert "NEW has no x-method" in report.selection.note
    assert ("method.removed", METHODS) in {(c.kind, c.type) for c in report.changes}


# -- command line --------------------------------------------------------------------------------


def run(*args: str) -> Any:
    return CliRunner().invoke(main, ["diff", *args])


def pair(case: str) -> list[str]:
    return [str(FIXTURES / case / "old.json"), str(FIXTURES / case / "new.json")]


def test_text_output_groups_changes_by_type() -> None:
    result = run(*pair("variant_added"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[2] == "compared: the session/update notification and the types it refers to"
    assert lines[3] == "2 changes: 0 breaking, 2 additive, 0 cosmetic"
    assert lines[5] == "ADDITIVE (2)"
    assert "SessionUpdate  (closed tagged union on 'sessionUpdate')" in lines
    assert "  additive  ToolCall (tool_call): variant added" in lines
    assert run(*pair("no_change_reordered")).stdout.splitlines()[3] == "no changes"


def test_json_output_has_stable_documented_keys() -> None:
    result = run(*pair("field_renamed"), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {
        "format",
        "old",
        "new",
        "selection",
        "summary",
        "shown",
        "types",
        "changes",
    }
    assert document["shown"] == ["breaking", "additive", "cosmetic"]
    assert document["format"] == JSON_FORMAT
    assert set(document["old"]) == {"path", "sha256"}
    assert set(document["selection"]) == {"mode", "roots", "note"}
    assert document["summary"] == {"breaking": 3, "additive": 0, "cosmetic": 0}
    assert document["types"]["PlanEntry"] == "struct"
    entry = next(c for c in document["changes"] if c["type"] == "PlanEntry")
    assert entry == {
        "severity": "breaking",
        "group": "data",
        "kind": "field.renamed",
        "type": "PlanEntry",
        "member": "title",
        "python": "PlanEntry.title",
        "old": "content",
        "new": "title",
        "message": "renamed from PlanEntry.content (wire 'content'): use PlanEntry.title; "
        "messages that still send 'content' no longer decode",
    }


def test_markdown_output_is_a_pull_request_comment() -> None:
    result = run(*pair("annotations"), "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("## ACP schema diff\n")
    assert "**4 changes: 3 breaking, 1 additive, 0 cosmetic**" in text
    # Grouped by what the reader must do, in this order, each heading with its count.
    code = text.index("### Your code must change (3)")
    new = text.index("### New, optional (1)")
    assert code < new
    assert "### Data you receive" not in text
    assert "#### `SessionUpdate` — closed tagged union on 'sessionUpdate'" in text
    assert "- `AgentMessageChunk` (`agent_message_chunk`): x-acp-entity added" in text[new:]


def test_changelog_mode_writes_a_keep_a_changelog_section() -> None:
    result = run(*pair("enum_values"), "--changelog")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("## [Unreleased]\n")
    added = text.index("### Added")
    removed = text.index("### Removed")
    assert added < removed
    assert "- `PlanEntryStatus.IN_PROGRESS` (`in_progress`): value added" in text[added:removed]
    assert (
        "- **Breaking:** `PlanEntryStatus.COMPLETED` (`completed`): value removed" in text[removed:]
    )


@pytest.mark.parametrize(
    ("case", "fail_on", "code"),
    [
        ("enum_values", "breaking", 1),
        ("variant_added", "breaking", 0),
        ("variant_added", "any", 1),
        ("docs_reworded", "any", 0),
        ("no_change_reordered", "breaking", 0),
    ],
)
def test_fail_on_gates_ci(case: str, fail_on: str, code: int) -> None:
    result = run(*pair(case), "--fail-on", fail_on)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output


def test_without_fail_on_changes_do_not_fail() -> None:
    assert run(*pair("enum_values")).exit_code == 0


BAD_INPUT = [
    (["missing.json", "missing.json"], "cannot read schema"),
    (["README.md", "README.md"], "not valid JSON"),
    ([*pair("variant_added"), "--all", "--root", "Plan"], "--root and --all cannot be combined"),
    ([*pair("variant_added"), "--changelog", "--format", "json"], "cannot be combined"),
    ([*pair("variant_added"), "--root", "Nope"], "--root 'Nope' is not a definition"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(corpus.REPO)
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_diff_doc_lists_the_rule_table() -> None:
    assert rules_markdown() in DIFF_DOC.read_text(encoding="utf-8")


def test_diff_overlay_annotates_both_revisions(tmp_path: Path) -> None:
    """``diff --overlay`` applies the overlay to OLD and NEW; an overlay that does not fit
    is refused in one line, as generate refuses it."""
    corpus.require()
    v2 = corpus.newest(corpus.NEWEST["v2-unstable"])
    overlay = Path(__file__).resolve().parent.parent / "acp_codegen" / "overlays" / "v2.json"
    same = CliRunner().invoke(main, ["diff", str(v2), str(v2), "--overlay", str(overlay)])
    assert same.exit_code == 0, same.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"entries": [{"pointer": "/$defs/Nope", "add": {"x-acp-live": true}}]}')
    refused = CliRunner().invoke(main, ["diff", str(v2), str(v2), "--overlay", str(bad)])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
