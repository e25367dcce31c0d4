"""Our schema is the newest published v2 unstable wire, with our annotations on top.

- ``schema/CHANGES.md`` names the published revision our schema matches (its baseline),
  and that revision is still the newest v2 unstable row of the corpus manifest: a newer
  row fails here until the schema is brought up to it.
- ``acp-codegen diff <newest> schema/session_update.schema.json`` reports nothing but our
  ``x-acp-*`` annotations, and nothing at all once the built-in v2 overlay annotates both
  sides; our annotations give the same reducer as that overlay on the published file.
- Every sentence ``CHANGES.md`` quotes is in the spec text.
- Payloads drawn from the published ``SessionUpdate`` are valid under our schema, and
  decode with ``generated/acp_session``
  (and the packages of the other targets from the same schema) and re-encode to equal
  JSON. The only exception is a value that our schema's own leniency flags repair: the
  strict decoder rejects it, and the repaired value is valid under both schemas.
"""

from __future__ import annotations

import hashlib
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

from acp_codegen import accept, load, overlay
from tests import corpus
from tests.conftest import GenerateFn, strict_decoder
from tests.instances import Instances, dumps, same_json, validator_for
from tests.test_schema_properties import Drawn

REPO = Path(__file__).resolve().parent.parent
OURS = REPO / "schema" / "session_update.schema.json"
CHANGES = REPO / "schema" / "CHANGES.md"
V2_OVERLAY = overlay.BUILTIN_DIR / "v2.json"


def published_path() -> Path:
    corpus.require()
    return corpus.newest(corpus.NEWEST["v2-unstable"])


def baseline() -> tuple[str, str]:
    """(manifest file, sha256) of the revision CHANGES.md says the schema matches."""
    text = re.sub(r"\s+", " ", CHANGES.read_text(encoding="utf-8"))
    found = re.search(r"Baseline: `([^`]+)` \(sha256 `([0-9a-f]{64})`\)", text)
    assert found, "CHANGES.md needs a 'Baseline: `<file>` (sha256 `<hex>`)' line"
    return found.group(1), found.group(2)


def diff(*extra: str) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_codegen",
            "diff",
            str(published_path()),
            str(OURS),
            "--format",
            "json",
            *extra,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_the_baseline_is_the_newest_published_v2_unstable_revision() -> None:
    file, sha256 = baseline()
    newest = published_path().relative_to(corpus.SCHEMAS).as_posix()
    assert newest == file, (
        f"the corpus has a newer v2 unstable schema, {newest}, than the one "
        f"schema/session_update.schema.json matches ({file}): bring the schema up to it "
        "and update the Baseline line of schema/CHANGES.md"
    )
    (row,) = [r for r in corpus.manifest() if r.file == file]
    assert hashlib.sha256(row.path.read_bytes()).hexdigest() == sha256


@pytest.mark.parametrize(
    "roots", [(), ("--root", "PromptResponse")], ids=["session-update", "prompt-response"]
)
def test_the_diff_reports_only_our_annotations(roots: tuple[str, ...]) -> None:
    report = diff(*roots)
    assert report["summary"]["breaking"] == 0
    assert {c["kind"] for c in report["changes"]} <= {"annotation.added"}
    annotated = diff(*roots, "--overlay", str(V2_OVERLAY))
    assert annotated["summary"] == {"breaking": 0, "additive": 0, "cosmetic": 0}
    assert annotated["changes"] == []


def test_our_annotations_are_the_builtin_overlays() -> None:
    """The same reducer, read from our annotations and from the built-in overlay's on the
    published schema (the overlay must apply to it)."""
    ours = accept.accept(OURS, ("PromptResponse",))
    published = accept.accept(published_path(), ("PromptResponse",))
    assert overlay.choose_builtin(load.load_path(published_path())) is not None
    assert published.spec is not None and published.spec == ours.spec


def changes_items() -> dict[int, str]:
    """CHANGES.md's numbered items, by number."""
    text = CHANGES.read_text(encoding="utf-8")
    parts = re.split(r"^(\d+)\. ", text, flags=re.MULTILINE)
    return {int(n): body for n, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_each_listed_difference_quotes_the_spec() -> None:
    for number, body in changes_items().items():
        assert re.search(r"^ *>", body, flags=re.M), f"item {number} quotes no sentence"


def _normal(text: str) -> str:
    text = text.replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text)


def test_every_quoted_sentence_is_in_the_spec() -> None:
    if not corpus.SPEC.is_file():
        pytest.skip(f"spec text not found at {corpus.SPEC}")
    spec = _normal(corpus.SPEC.read_text(encoding="utf-8"))
    blocks = re.findall(r"(?:^ *>.*\n)+", CHANGES.read_text(encoding="utf-8"), flags=re.M)
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


@pytest.mark.parametrize(
    "member", [m for _, m in MEMBERS] or [None], ids=[t for t, _ in MEMBERS] or ["corpus-missing"]
)
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_published_payloads_round_trip(
    ours: ModuleType,
    published_doc: dict[str, Any],
    check_published: Any,
    check_ours: Any,
    member: dict[str, Any] | None,
    data: st.DataObject,
) -> None:
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
