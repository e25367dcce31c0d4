"""Our schema against the newest published v2 unstable schema: only the differences we list.

- ``acp-codegen diff <published> schema/session_update.schema.json --format json`` reports
  no breaking change that is not allowed below, and each allowance names the
  ``schema/CHANGES.md`` item that explains it. A class rename is allowed only when both
  defs have the same wire shape.
- Every sentence ``CHANGES.md`` quotes is in the spec text.
- Payloads drawn from the published ``SessionUpdate`` are valid under our schema, and
  decode with ``generated/acp_session``
  (and the pydantic package from the same schema) and re-encode to equal JSON. The only
  exception is a value that our schema's own leniency flags repair: the strict decoder
  rejects it, and the repaired value is valid under both schemas.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import corpus
from tests.conftest import GenerateFn, strict_decoder
from tests.instances import Instances, dumps, same_json, validator_for
from tests.test_schema_properties import Drawn

REPO = Path(__file__).resolve().parent.parent
OURS = REPO / "schema" / "session_update.schema.json"
CHANGES = REPO / "schema" / "CHANGES.md"

#: (type, member, kind) of an allowed breaking change -> (CHANGES.md item, why).
#: ``rename`` entries also name the published def and ours, whose wire shapes must match.
ALLOWED: dict[tuple[str, str | None, str], tuple[int, str]] = {
    ("SessionUpdate", "tool_call_update", "union.variant_retargeted"): (
        2,
        "rename ToolCallUpdateSessionUpdate -> ToolCallUpdate",
    ),
    ("ToolCallUpdateSessionUpdate", None, "type.removed"): (
        2,
        "rename ToolCallUpdateSessionUpdate -> ToolCallUpdate",
    ),
}
#: Renames among the allowances: published def -> our def of the same wire shape.
RENAMES = {"ToolCallUpdate": "ToolCallUpdate"}


def published_path() -> Path:
    corpus.require()
    return corpus.newest(corpus.NEWEST["v2-unstable"])


def breaking_changes() -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "diff", str(published_path()), str(OURS),
         "--format", "json"],
        capture_output=True, text=True, check=False, cwd=REPO,
    )
    assert proc.returncode in (0, 1), proc.stderr
    changes = json.loads(proc.stdout)["changes"]
    return [c for c in changes if c["severity"] == "breaking"]


def changes_items() -> dict[int, str]:
    """CHANGES.md's numbered items, by number."""
    text = CHANGES.read_text(encoding="utf-8")
    parts = re.split(r"^(\d+)\. ", text, flags=re.MULTILINE)
    return {int(n): body for n, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_no_breaking_change_beyond_the_allowed_ones() -> None:
    breaking = breaking_changes()
    unexplained = [
        f"{c['type']}.{c['member']}: {c['message']} ({c['kind']})"
        for c in breaking
        if (c["type"], c["member"], c["kind"]) not in ALLOWED
    ]
    assert not unexplained, "breaking changes CHANGES.md does not allow:\n" + "\n".join(
        unexplained
    )
    seen = {(c["type"], c["member"], c["kind"]) for c in breaking}
    assert seen == set(ALLOWED), f"stale allowances: {set(ALLOWED) - seen}"


def test_each_allowance_names_a_changes_item_about_it() -> None:
    items = changes_items()
    for (type_name, member, _), (item, _why) in ALLOWED.items():
        assert item in items, item
        body = items[item]
        assert type_name in body or (member is not None and member in body), (item, type_name)


def test_renames_have_no_wire_effect() -> None:
    published = json.loads(published_path().read_text(encoding="utf-8"))["$defs"]
    ours = json.loads(OURS.read_text(encoding="utf-8"))["$defs"]
    for theirs, mine in RENAMES.items():
        assert set(published[theirs]["properties"]) == set(ours[mine]["properties"])
        assert set(published[theirs]["required"]) == set(ours[mine]["required"])
        for name, prop in published[theirs]["properties"].items():
            shape = {k: v for k, v in prop.items() if k != "description"}
            assert shape == {k: v for k, v in ours[mine]["properties"][name].items()
                             if k not in ("description", "x-acp-patch")}, name


def _normal(text: str) -> str:
    text = text.replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text)


def test_every_quoted_sentence_is_in_the_spec() -> None:
    if not corpus.SPEC.is_file():
        pytest.skip(f"spec text not found at {corpus.SPEC}")
    spec = _normal(corpus.SPEC.read_text(encoding="utf-8"))
    blocks = re.findall(r"(?:^ *>.*\n)+", CHANGES.read_text(encoding="utf-8"), flags=re.M)
    assert len(blocks) >= 12
    for block in blocks:
        quoted = _normal(re.sub(r"^ *> ?", "", block, flags=re.M)).strip()
        for piece in quoted.split(" … "):
            piece = piece.strip().removeprefix('"').removesuffix('"')
            assert piece and piece in spec, piece


# -- published payloads decode and re-encode unchanged ------------------------------------------

@pytest.fixture(scope="module")
def ours(target: str, make_package: GenerateFn) -> ModuleType:
    if target != "msgspec":
        return make_package(OURS, "vs_published", target=target)
    sys.path.insert(0, str(REPO / "generated"))
    try:
        return importlib.import_module("acp_session")
    finally:
        sys.path.remove(str(REPO / "generated"))


@pytest.fixture(scope="module")
def published_doc() -> dict[str, Any]:
    return json.loads(published_path().read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def check_published(published_doc: dict[str, Any]) -> Any:
    return validator_for(published_doc)


@pytest.fixture(scope="module")
def check_ours() -> Any:
    return validator_for(json.loads(OURS.read_text(encoding="utf-8")))


def _members() -> list[tuple[str, dict[str, Any]]]:
    """(tag, schema) of every member of the published SessionUpdate, the fallback included."""
    if not corpus.available():
        return []
    document = json.loads(published_path().read_text(encoding="utf-8"))
    out = []
    for member in document["$defs"]["SessionUpdate"]["anyOf"]:
        tag = member.get("properties", {}).get("sessionUpdate", {}).get("const", "other")
        out.append((tag, member))
    return out


MEMBERS = _members()


@pytest.mark.parametrize("member", [m for _, m in MEMBERS] or [None],
                         ids=[t for t, _ in MEMBERS] or ["corpus-missing"])
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_published_payloads_round_trip(ours: ModuleType, published_doc: dict[str, Any],
                                       check_published: Any, check_ours: Any,
                                       member: dict[str, Any] | None,
                                       data: st.DataObject) -> None:
    assert member is not None
    payload = Instances(published_doc, Drawn(data, extras=False), max_depth=6).value(member, 0)
    assert not check_published("SessionUpdate", payload), "the walker drew an invalid payload"
    # the rule: our schema accepts every payload the published one accepts
    assert not check_ours("SessionUpdate", payload), payload
    raw = dumps(payload)
    decoded = ours.decode_update(raw)
    again = json.loads(ours.encode(decoded))
    if same_json(again, payload):
        return
    # only a value our schema's leniency flags repair may change, and only via the slow path
    with pytest.raises(ValueError):
        strict_decoder(ours, ours.models.SessionUpdate)(raw)
    assert not check_ours("SessionUpdate", again), (payload, again)
    assert not check_published("SessionUpdate", again), (payload, again)
