"""One validation point: whether a schema is accepted depends on neither command nor target.

Each row is a schema that some target's library once made the generator treat differently
(a chain of definitions pydantic recurses through too deeply, a wire name msgspec cannot
rename a field to, a property pydantic spelled onto the tag's attribute, properties named
like `pydantic.BaseModel` methods), or the longest chain every target builds. Every row is
run through ``generate`` and ``check`` on every registered target and through ``inspect``
and ``diff`` (which take no target); all of them must end the same way: the same single
error line with exit code 2, or success. `tests/test_hostile_schemas.py` holds the wider
refusal table and imports and decodes what the accepted rows generate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from acp_codegen.cli import main
from acp_codegen.limits import strictest_chain
from acp_codegen.targets import TARGETS
from tests.hostile_cases import base, ref_chain_document, with_defs

SHORTEST = strictest_chain(TARGETS.values())
ACCEPTED = "accepted"


@dataclass(frozen=True)
class Row:
    id: str
    document: dict[str, Any]
    #: The one error line after ``error at <schema>#``, or `ACCEPTED`.
    outcome: str


def _tag_meets_field() -> dict[str, Any]:
    doc = base()
    doc["$defs"]["SessionUpdate"]["oneOf"][0]["properties"]["SessionUpdate"] = {"type": "string"}
    return doc


ROWS = [
    Row(
        "chain-one-past-the-shortest-limit",
        ref_chain_document(SHORTEST.max_model_chain),
        f"/$defs/D0: definitions name one another more than {SHORTEST.max_model_chain} levels "
        f"deep from here, which the {SHORTEST.name} target cannot build (its library recurses "
        "once per level), so no target accepts it",
    ),
    Row(
        "wire-name-with-a-quote",
        with_defs(A={"type": "object", "properties": {'say "hi"': {}}}),
        '/$defs/A/properties/say "hi": property name \'say "hi"\' holds a quote, backslash or '
        "control character, which the msgspec target cannot use as a wire name, so no target "
        "accepts it",
    ),
    Row(
        "wire-name-with-a-tab",
        with_defs(A={"type": "object", "properties": {"a\tb": {}}}),
        "/$defs/A/properties/a\\tb: property name 'a\\tb' holds a quote, backslash or "
        "control character, which the msgspec target cannot use as a wire name, so no target "
        "accepts it",
    ),
    Row(
        "wire-name-the-msgspec-extras-field",
        with_defs(A={"type": "object", "properties": {"_acp_extra": {}}}),
        "/$defs/A/properties/_acp_extra: property name '_acp_extra' is the name under which "
        "the msgspec target keeps undeclared properties, so no target accepts it",
    ),
    Row("chain-at-the-shortest-limit", ref_chain_document(SHORTEST.max_model_chain - 1), ACCEPTED),
    Row("tag-meets-field", _tag_meets_field(), ACCEPTED),
    Row(
        "properties-named-like-base-model-methods",
        with_defs(A={"type": "object", "properties": {n: {} for n in ("json", "model_dump")}}),
        ACCEPTED,
    ),
]


def _outcome(result: Result, schema: Path) -> str:
    """`ACCEPTED`, or the refusal's one line without its ``error at <schema>#`` prefix."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    if result.exit_code == 0:
        return ACCEPTED
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    prefix = f"error at {schema}#"
    assert lines[0].startswith(prefix), lines[0]
    return lines[0][len(prefix) :]


def _run(args: list[str], schema: Path) -> str:
    return _outcome(CliRunner().invoke(main, args), schema)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_every_command_and_target_ends_alike(row: Row, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(row.document), encoding="utf-8")
    outcomes: dict[str, str] = {}
    for target in TARGETS:
        out = tmp_path / target / "pkg"
        args = ["--schema", str(schema), "--out", str(out), "--package", "pkg", "--all"]
        args += ["--target", target]
        outcomes[f"generate --target {target}"] = _run(["generate", *args], schema)
        assert out.exists() == (row.outcome == ACCEPTED)
        # check compares with what generate wrote: in step when accepted, refused alike else.
        outcomes[f"check --target {target}"] = _run(["check", *args], schema)
    outcomes["inspect"] = _run(["inspect", str(schema), "--all"], schema)
    outcomes["inspect --json"] = _run(["inspect", "--json", str(schema), "--all"], schema)
    outcomes["diff"] = _run(["diff", str(schema), str(schema), "--all"], schema)
    assert outcomes == dict.fromkeys(outcomes, row.outcome)


def test_the_rows_cover_every_target_and_both_library_limits() -> None:
    """The table holds each kind of limit a registered target declares."""
    assert len(TARGETS) >= 3
    limited = {t.name for t in TARGETS.values() if t.wire_names is not None}
    assert limited and all(
        any(t in r.outcome for r in ROWS if r.outcome != ACCEPTED) for t in limited
    )
    assert any(SHORTEST.name in r.outcome for r in ROWS)
    assert SHORTEST.max_model_chain == min(t.max_model_chain for t in TARGETS.values())
