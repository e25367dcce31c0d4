"""`acp-codegen diff` over the published history in ``$ACP_SHARED/acp-schemas``.

Every consecutive pair of revisions of each original path (MANIFEST.tsv, with
``also_at`` followed) is compared; facts known from that history are checked
as spot tests; the sample output in docs/diff.md is regenerated and compared.
Each revision is built once and shared between pairs, so the sweep stays fast.
"""

from __future__ import annotations

import json
import re
import time
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from acp_codegen import build, ir, load
from acp_codegen.cli import main
from acp_codegen.diff import Change, compare, select
from acp_codegen.errors import SchemaError
from tests import corpus
from tests.test_diff import mirrored

pytestmark = pytest.mark.skipif(not corpus.available(), reason=corpus.MISSING)

#: The one revision no diff can read: for a few minutes the SessionUpdate tag was `kind`,
#: which its tool-call variants also used as an ordinary (non-const) payload field.
KIND_REVISION = "v0/2025-08-04_a485ce70_schema.json"
KIND_ERROR = "#/$defs/SessionUpdate/oneOf/4: variant has no const 'kind'"


def history(original_path: str) -> list[corpus.Revision]:
    revisions = [r for r in corpus.schemas() if r.at(original_path)]
    return sorted(revisions, key=lambda r: (r.commit_date, r.file))


def original_paths() -> list[str]:
    if not corpus.available():
        return []
    return sorted({r.original_path for r in corpus.schemas()})


@cache
def loaded(file: str) -> load.LoadedSchema:
    return load.load_path(corpus.SCHEMAS / file)


@cache
def module(file: str, everything: bool) -> ir.Module:
    return build.build(loaded(file), (), everything)


def changes(old: str, new: str) -> tuple[Change, ...]:
    """What ``acp-codegen diff OLD NEW`` reports, from the shared per-revision builds."""
    mode = select(loaded(old), loaded(new), (), False).mode
    return compare(module(old, mode == "all"), module(new, mode == "all"))


def run(*files: str, extra: tuple[str, ...] = ()) -> object:
    return CliRunner().invoke(main, ["diff", *(str(corpus.SCHEMAS / f) for f in files), *extra])


@pytest.mark.parametrize("original_path", original_paths())
def test_every_consecutive_pair_diffs_and_mirrors(original_path: str) -> None:
    revisions = history(original_path)
    failed = []
    for old, new in zip(revisions, revisions[1:], strict=False):
        try:
            forward = changes(old.file, new.file)
        except SchemaError as exc:
            failed.append((old.file, new.file, str(exc)))
            continue
        backward = changes(new.file, old.file)
        assert {(c.kind, c.type, c.member) for c in backward} == {
            (kind, type_, member) for kind, type_, member, _, _ in mirrored(forward)
        }, (old.file, new.file)
    expected = []
    if original_path == "schema/schema.json":
        expected = [
            ("v0/2025-08-01_c5f079b5_schema.json", KIND_REVISION),
            (KIND_REVISION, "v0/2025-08-04_bcac1ca7_schema.json"),
        ]
    assert [(old, new) for old, new, _ in failed] == expected
    assert all(message.endswith(KIND_ERROR) for _, _, message in failed)


def test_the_kind_revision_is_a_one_line_error() -> None:
    result = run("v0/2025-08-01_c5f079b5_schema.json", KIND_REVISION)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().endswith(KIND_ERROR)
    assert len(result.stderr.splitlines()) == 1
    # Stepping over it works, and its neighbours both tag SessionUpdate with `sessionUpdate`.
    after = module("v0/2025-08-04_bcac1ca7_schema.json", True).get("SessionUpdate")
    assert isinstance(after, ir.TaggedUnion) and after.tag_field == "sessionUpdate"
    added = changes("v0/2025-08-01_c5f079b5_schema.json", "v0/2025-08-04_bcac1ca7_schema.json")
    assert ("type.added", "SessionUpdate") in {(c.kind, c.type) for c in added}


def test_tag_values_switch_from_camel_case_to_snake_case() -> None:
    found = changes("v0/2025-08-04_bcac1ca7_schema.json", "v0/2025-08-04_25a033b2_schema.json")
    renamed = {(c.old, c.new) for c in found if c.kind == "union.tag_renamed"}
    assert renamed == {
        ("userMessageChunk", "user_message_chunk"),
        ("agentMessageChunk", "agent_message_chunk"),
        ("agentThoughtChunk", "agent_thought_chunk"),
        ("toolCall", "tool_call"),
        ("toolCallUpdate", "tool_call_update"),
    }
    assert all(
        c.type == "SessionUpdate" and c.severity == "breaking"
        for c in found
        if c.kind == "union.tag_renamed"
    )
    values = {(c.type, c.old, c.new) for c in found if c.kind == "enum.value_renamed"}
    assert ("ToolCallStatus", "inProgress", "in_progress") in values


def test_v2_opens_unions_with_an_other_fallback() -> None:
    found = changes(
        "v0/2026-05-27_dab54af8_schema.unstable.json",
        "v0/2026-05-28_275e773f_schema.v2.unstable.json",
    )
    opened = {c.type for c in found if c.kind == "union.opened"}
    assert {"SessionUpdate", "ContentBlock", "ToolCallContent"} <= opened
    assert {c.type for c in found if c.kind == "enum.opened"} >= {"ToolKind", "ToolCallStatus"}
    assert all(c.severity == "additive" for c in found if c.kind.endswith(".opened"))
    assert not [c for c in found if c.kind.endswith(".closed")]
    session_update = next(
        c for c in found if c.kind == "union.opened" and c.type == "SessionUpdate"
    )
    assert session_update.message == "now open: unknown tags decode to UnknownSessionUpdate"


@pytest.mark.parametrize(
    "original_path", ["schema/v1/schema.unstable.json", "schema/v2/schema.unstable.json"]
)
def test_compaction_update_appears_in_the_newest_revisions(original_path: str) -> None:
    revisions = history(original_path)
    appeared = [
        new.file
        for old, new in zip(revisions, revisions[1:], strict=False)
        for c in changes(old.file, new.file)
        if (c.kind, c.type, c.member)
        == ("union.variant_added", "SessionUpdate", "compaction_update")
    ]
    folder = original_path.split("/")[1]
    assert appeared == [f"{folder}/2026-08-20_0055de87_schema.unstable.json"]
    newest = module(revisions[-1].file, False).get("SessionUpdate")
    assert isinstance(newest, ir.TaggedUnion) and "compaction_update" in newest.tags


def test_newest_v2_unstable_pair_is_fast() -> None:
    old, new = history(corpus.NEWEST["v2-unstable"])[-2:]
    start = time.perf_counter()
    result = run(old.file, new.file, extra=("--all",))
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.output
    assert elapsed < 2.0, f"diff took {elapsed:.2f} s"


def test_diff_doc_shows_real_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `acp-codegen diff` run pasted in docs/diff.md is what the command prints now."""
    text = (corpus.REPO / "docs" / "diff.md").read_text(encoding="utf-8")
    runs = re.findall(
        r'```console\n\$ cd "\$ACP_SHARED/acp-schemas"\n\$ (acp-codegen diff [^\n]+)\n(.*?)```',
        text,
        re.S,
    )
    assert len(runs) >= 2, "docs/diff.md shows a markdown and a text run of `acp-codegen diff`"
    monkeypatch.chdir(corpus.SCHEMAS)
    for command, shown in runs:
        result = CliRunner().invoke(main, command.split()[1:])
        assert result.exit_code == 0, result.output
        assert result.stdout == shown, command


#: The last release of each line before the November revisions, its 2026-11-02 successor,
#: and what the diff counts (breaking, additive, cosmetic): one entry per field per change,
#: so `ResourceLink.size` (int64 -> uint64) is one, and a list member of an untagged union
#: that gained a minimum is one changed member, not one removed and one added.
UPGRADES = [
    ("v1", "2026-08-20", (0, 11, 0)),
    ("v2", "2026-08-20", (11, 44, 1)),
    ("v2-unstable", "2026-08-20", (11, 45, 1)),
]


def _last_of(key: str, day: str) -> str:
    revisions = [r for r in corpus.schemas() if r.at(corpus.NEWEST[key])]
    return [r.file for r in revisions if r.file.split("/")[1].startswith(day)][-1]


@pytest.mark.parametrize(("key", "day", "counts"), UPGRADES, ids=[u[0] for u in UPGRADES])
def test_the_november_upgrade_of_each_line(key: str, day: str, counts: tuple[int, ...]) -> None:
    old, new = _last_of(key, day), _last_of(key, "2026-11-02")
    result = CliRunner().invoke(
        main, ["diff", str(corpus.SCHEMAS / old), str(corpus.SCHEMAS / new), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)["summary"]
    assert (summary["breaking"], summary["additive"], summary["cosmetic"]) == counts, (old, new)


def test_since_package_reports_the_classes_an_earlier_package_named_otherwise(
    tmp_path: Path,
) -> None:
    """A package made by an earlier acp-codegen named the ``tool_call_update`` variant
    ``ToolCallUpdateSessionUpdate``; diffing with ``--since-package`` reports that rename,
    and a package generated now from NEW reports none."""
    old, new = _last_of("v2-unstable", "2026-08-20"), _last_of("v2-unstable", "2026-11-02")
    args = ["diff", str(corpus.SCHEMAS / old), str(corpus.SCHEMAS / new), "--format", "json"]
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "dispatch.py").write_text(
        "SESSION_UPDATE_VARIANTS: dict[str, type] = {\n"
        '    "tool_call_update": ToolCallUpdateSessionUpdate,\n'
        '    "agent_message_chunk": AgentMessageChunk,\n'
        "}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, [*args, "--since-package", str(earlier)])
    assert result.exit_code == 0, result.output
    plain = json.loads(CliRunner().invoke(main, args).output)
    found = json.loads(result.output)
    extra = [c for c in found["changes"] if c not in plain["changes"]]
    assert [(c["kind"], c["type"], c["old"]) for c in extra] == [
        ("type.renamed", "ToolCallUpdate", "ToolCallUpdateSessionUpdate")
    ]
    assert found["summary"]["breaking"] == plain["summary"]["breaking"] + 1
    now = tmp_path / "now"
    generated = CliRunner().invoke(
        main,
        ["generate", "--schema", str(corpus.SCHEMAS / new), "--out", str(now), "--package", "now"],
    )
    assert generated.exit_code == 0, generated.output
    again = json.loads(CliRunner().invoke(main, [*args, "--since-package", str(now)]).output)
    assert again["changes"] == plain["changes"]


@pytest.mark.parametrize(
    ("dispatch", "message"),
    [
        (None, "cannot read"),
        ("X = 1\n", "holds no <UNION>_VARIANTS table"),
        ("def (:\n", "--since-package: cannot read"),
    ],
)
def test_since_package_bad_input_is_one_line(
    tmp_path: Path, dispatch: str | None, message: str
) -> None:
    schema = corpus.newest(corpus.NEWEST["v1"])
    if dispatch is not None:
        (tmp_path / "dispatch.py").write_text(dispatch, encoding="utf-8")
    result = CliRunner().invoke(
        main, ["diff", str(schema), str(schema), "--since-package", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
