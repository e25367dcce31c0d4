"""What `acp-codegen diff` prints: severity order, Python names, --severity, collapsed
leniency lines, --changelog with --format, --changelog-file and --quiet."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen.cli import main
from acp_codegen.diff import Change, Report, Selection, diff_paths
from acp_codegen.diff import format as diff_format
from acp_codegen.diff.rules import SEVERITIES

FIXTURES = Path(__file__).parent / "diff_fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "old.json").is_file())


def pair(case: str) -> list[str]:
    return [str(FIXTURES / case / "old.json"), str(FIXTURES / case / "new.json")]


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("case", CASES)
def test_breaking_first_then_additive_then_cosmetic(case: str) -> None:
    report = diff_paths(*map(Path, pair(case)), take_all=True, docs=True)
    ranks = [SEVERITIES.index(c.severity) for c in report.changes]
    assert ranks == sorted(ranks)
    text = diff_format.text(report)
    headings = [h for h in ("BREAKING", "ADDITIVE", "COSMETIC") if f"\n{h} (" in text]
    assert [text.index(f"\n{h} (") for h in headings] == sorted(
        text.index(f"\n{h} (") for h in headings
    )


@pytest.mark.parametrize("case", CASES)
def test_every_member_change_names_its_python_name(case: str) -> None:
    report = diff_paths(*map(Path, pair(case)), take_all=True, docs=True)
    for change in report.changes:
        if change.kind.startswith(("field.", "enum.value", "union.variant", "union.tag_renamed")):
            assert change.python, change
            shown = diff_format.text(report)
            assert f"{change.python} ({change.member})" in shown


def test_mixed_report_lists_breaking_before_additive() -> None:
    result = run("diff", *pair("enum_values"))
    lines = result.stdout.splitlines()
    assert lines.index("BREAKING (1)") < lines.index("ADDITIVE (1)")
    assert (
        "  breaking  PlanEntryStatus.COMPLETED (completed): value removed: code that uses "
        "PlanEntryStatus.COMPLETED breaks, and 'completed' no longer decodes"
    ) in lines
    assert "  additive  PlanEntryStatus.IN_PROGRESS (in_progress): value added" in lines


@pytest.mark.parametrize("level", SEVERITIES)
def test_severity_filter_shows_one_class(level: str) -> None:
    result = run("diff", *pair("enum_values"), "--severity", level)
    assert result.exit_code == 0, result.output
    body = result.stdout.splitlines()[4:]
    others = tuple(s for s in SEVERITIES if s != level)
    assert not any(line.lstrip().startswith(others) for line in body)
    assert result.stdout.splitlines()[3].startswith(
        "no changes" if level == "cosmetic" else f"1 change (--severity {level}): 1 {level}"
    )


def test_severity_filter_does_not_hide_a_breaking_change_from_fail_on() -> None:
    result = run("diff", *pair("enum_values"), "--severity", "additive", "--fail-on", "breaking")
    assert result.exit_code == 1
    assert "value removed" not in result.stdout


def _lenient(field: str) -> Change:
    return Change(
        "field.lenient_added",
        "ToolCall",
        field,
        None,
        "default-on-error",
        "x-deserialize-default-on-error added",
        f"ToolCall.{field.lower()}",
    )


def _report(changes: list[Change]) -> Report:
    return Report("old.json", "new.json", "0", "1", Selection("update"), tuple(changes), {})


def test_leniency_flags_on_many_fields_of_one_type_collapse_into_one_line() -> None:
    lone = Change(
        "field.lenient_added",
        "Plan",
        "entries",
        None,
        "skip-invalid-items",
        "x-deserialize-skip-invalid-items added",
        "Plan.entries",
    )
    report = _report([lone, *(_lenient(f) for f in ("Title", "Kind", "Status"))])
    text = diff_format.text(report)
    assert (
        "  additive  ToolCall: 3 fields (title, kind, status): x-deserialize-default-on-error added"
        in text.splitlines()
    )
    assert "  additive  Plan.entries (entries): x-deserialize-skip-invalid-items added" in text
    assert text.count("default-on-error") == 1
    assert "- `ToolCall`, 3 fields (`title`, `kind`, `status`)" in diff_format.markdown(report)
    assert diff_format.changelog(report).count("default-on-error") == 1
    # JSON keeps one entry per field, for tools.
    assert diff_format.as_json(report).count('"field.lenient_added"') == 4


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_changelog_accepts_text_and_markdown(fmt: str) -> None:
    plain = run("diff", *pair("enum_values"), "--changelog")
    result = run("diff", *pair("enum_values"), "--changelog", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert result.stdout == plain.stdout
    assert result.stdout.startswith("## [Unreleased]\n")


def test_changelog_with_json_is_one_line_exit_2() -> None:
    result = run("diff", *pair("enum_values"), "--changelog", "--format", "json")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --changelog writes Markdown; it cannot be combined with --format json\n"
    )


EXISTING = """# Changelog

All notable changes to this project are written here.

## [1.0.0] - 2026-01-01

### Added

- The first release.
"""


def test_changelog_file_inserts_the_section_under_the_title(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(EXISTING, encoding="utf-8")
    result = run("diff", *pair("enum_values"), "--changelog-file", str(changelog))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"updated {changelog}\n"
    text = changelog.read_text(encoding="utf-8")
    section = diff_format.changelog(diff_paths(*map(Path, pair("enum_values"))))
    head = "# Changelog\n\nAll notable changes to this project are written here.\n\n"
    assert text == head + section + "\n" + EXISTING[len(head) :]
    assert text.index("## [Unreleased]") < text.index("## [1.0.0]")


def test_changelog_file_is_created_when_missing(tmp_path: Path) -> None:
    changelog = tmp_path / "docs" / "CHANGELOG.md"
    result = run("diff", *pair("variant_added"), "--changelog-file", str(changelog))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"created {changelog}\n"
    text = changelog.read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n\n## [Unreleased]\n")
    assert "### Added" in text and "`ToolCall` (`tool_call`): variant added" in text


def test_insert_changelog_into_a_title_only_file() -> None:
    assert diff_format.insert_changelog("# Changes", "## [Unreleased]\n") == (
        "# Changes\n\n## [Unreleased]\n"
    )


@pytest.mark.parametrize("where", ["group", "command"])
def test_quiet_diff_prints_only_the_summary(where: str) -> None:
    args = ["-q", "diff", *pair("enum_values")]
    if where == "command":
        args = ["diff", *pair("enum_values"), "-q"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout == "2 changes: 1 breaking, 1 additive, 0 cosmetic\n"


def test_verbose_diff_reports_timing_on_stderr() -> None:
    result = run("diff", *pair("enum_values"), "-v")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("compared ") and " in " in result.stderr


def test_the_fields_that_catch_a_refused_value_are_named_by_what_they_do() -> None:
    """`catchers` says, per definition, which lenient field catches a value of it that no
    longer decodes, and how: a list skipping its items, a list or a field falling back to
    its default. A field with no flag, or a flag that does not apply, catches nothing."""
    from acp_codegen import ir
    from acp_codegen.diff.defs import catchers

    def field(attr: str, type_: ir.TypeExpr, **flags: bool) -> ir.Field:
        return ir.Field(attr, attr, type_, False, "", "", **flags)

    item = ir.Ref("Item")
    holder = ir.Struct(
        "Holder",
        "",
        "",
        (
            field("skips", ir.ListOf(item), skip_invalid_items=True),
            field("defaults", ir.Nullable(ir.ListOf(item)), default_on_error=True),
            field("one", item, default_on_error=True),
            field("strict", ir.ListOf(item)),
            field("null_only", item, default_on_null=True),
        ),
    )
    module = ir.Module("s.json", "", "", (holder,), ())
    assert catchers(module) == {
        "Item": (
            "in Holder.defaults they now fall back to the field's default, with a repair",
            "in Holder.one they now fall back to the field's default, with a repair",
            "in Holder.skips they are now skipped, with a repair",
        )
    }
