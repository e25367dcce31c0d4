"""Golden `diff` reports of three real upgrades, in the text and Markdown formats.

What a user reads when they upgrade: v2 2026-10-19 -> 2026-11-02 (a fixed pair), the
newest v1 revision against the one before it, and the newest v1 against the newest v2.
The last two follow the manifest, so when upstream publishes a revision the report
changes and this test says so; refresh with
``ACP_UPDATE_GOLDEN=1 python -m pytest tests/test_diff_golden.py``. The reports name the
schemas relative to the corpus folder, so they hold on any machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen.cli import main
from tests import corpus

GOLDEN = Path(__file__).parent / "golden" / "diffs"
FORMATS = {"text": "txt", "markdown": "md"}


def _v2_pair() -> tuple[str, str]:
    files = [r.file for r in corpus.schemas() if r.at(corpus.NEWEST["v2"])]
    pick = [
        next(f for f in files if f.split("/")[1].startswith(day))
        for day in ("2026-10-19", "2026-11-02")
    ]
    return pick[0], pick[1]


def _v1_last_two() -> tuple[str, str]:
    line = [r for r in corpus.schemas() if r.at(corpus.NEWEST["v1"])]
    ordered = sorted(line, key=lambda r: (r.commit_date, r.file))
    return ordered[-2].file, ordered[-1].file


def _v1_to_v2() -> tuple[str, str]:
    return (
        corpus.newest(corpus.NEWEST["v1"]).relative_to(corpus.SCHEMAS).as_posix(),
        corpus.newest(corpus.NEWEST["v2"]).relative_to(corpus.SCHEMAS).as_posix(),
    )


#: Each upgrade: the pair and the flags. The two newest v1 revisions differ only in their
#: descriptions, so that report compares every definition, descriptions included.
UPGRADES = {
    "v2-2026-10-19-to-2026-11-02": (_v2_pair, ()),
    "v1-previous-to-newest": (_v1_last_two, ("--all", "--docs")),
    "v1-newest-to-v2-newest": (_v1_to_v2, ()),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", UPGRADES)
def test_upgrade_report_is_unchanged(name: str, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus.require()
    pair, flags = UPGRADES[name]
    old, new = pair()
    monkeypatch.chdir(corpus.SCHEMAS)
    result = CliRunner().invoke(main, ["diff", old, new, "--format", fmt, *flags])
    assert result.exit_code == 0, result.output
    path = GOLDEN / f"{name}.{FORMATS[fmt]}"
    if os.environ.get("ACP_UPDATE_GOLDEN"):
        path.write_text(result.stdout, encoding="utf-8")
    assert path.is_file(), f"no golden report {path.name}; make it with ACP_UPDATE_GOLDEN=1"
    assert result.stdout == path.read_text(encoding="utf-8"), (
        f"the {name} report changed (a new revision in the corpus, or a diff change); "
        "review it, then refresh with ACP_UPDATE_GOLDEN=1 python -m pytest "
        "tests/test_diff_golden.py"
    )


def test_breaking_entries_say_what_to_do() -> None:
    """Each breaking entry of the v2 upgrade says what the user's code or data now does,
    in words, and names number ranges by their integer format."""
    corpus.require()
    text = (GOLDEN / "v2-2026-10-19-to-2026-11-02.txt").read_text(encoding="utf-8")
    assert "construct Command(...) instead of AvailableCommand(...)" in text
    assert "in AvailableCommandsUpdate.available_commands they are now skipped" in text
    assert "ResourceLink.size (size): range int64 -> uint64" in text
    assert text.count("ResourceLink.size (size)") == 1
    assert (
        "9223372036854775807]" not in text
        and "x-deserialize-default-on-error removed\n" not in text
    )
