"""Locate the shared ACP schema corpus and its manifest.

``ACP_SHARED`` names the folder that *contains* ``acp-schemas/`` (and ``bench/``,
``spec/``); without it, the folder ``shared`` beside this checkout is used. Tests
that need the corpus skip with `MISSING` as their reason when it is absent; CI
always has it.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ACP_SHARED", REPO.parent / "shared")).resolve()
SCHEMAS = SHARED / "acp-schemas"
STREAM_V1 = SHARED / "bench" / "stream_v1.jsonl"
SPEC = SHARED / "spec" / "prompt-lifecycle-v2.txt"


@dataclass(frozen=True)
class Revision:
    file: str
    original_path: str
    commit_date: str
    also_at: str

    @property
    def path(self) -> Path:
        return SCHEMAS / self.file

    @property
    def folder(self) -> str:
        return self.file.split("/", 1)[0]

    def at(self, original_path: str) -> bool:
        return self.original_path == original_path or original_path + "@" in self.also_at


def _missing() -> str:
    reason = (
        f"ACP schema corpus not found at {SCHEMAS}: "
        "set ACP_SHARED to the folder that contains acp-schemas/"
    )
    if (SHARED / "MANIFEST.tsv").is_file():
        reason += f" (ACP_SHARED names acp-schemas itself; use {SHARED.parent})"
    return reason


#: The one reason every test that needs the corpus gives when it skips.
MISSING = _missing()


def available() -> bool:
    return (SCHEMAS / "MANIFEST.tsv").is_file()


def require() -> None:
    if not available():
        pytest.skip(MISSING)


@cache
def manifest() -> tuple[Revision, ...]:
    with open(SCHEMAS / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return tuple(
        Revision(r["file"], r["original_path"], r["commit_date"], r["also_at"] or "") for r in rows
    )


def schemas() -> tuple[Revision, ...]:
    """Every JSON Schema revision (method-name maps excluded), in manifest order."""
    return tuple(r for r in manifest() if "schema" in r.file.rsplit("/", 1)[-1])


def newest(original_path: str) -> Path:
    """The newest revision whose blob ever stood at `original_path`.

    For example ``schema/v2/schema.unstable.json``.
    """
    matches = [r for r in schemas() if r.at(original_path)]
    if not matches:
        raise LookupError(original_path)
    return max(matches, key=lambda r: (r.commit_date, r.file)).path


def oldest(original_path: str) -> Path:
    """The oldest revision whose blob ever stood at `original_path`."""
    matches = [r for r in schemas() if r.at(original_path)]
    if not matches:
        raise LookupError(original_path)
    return min(matches, key=lambda r: (r.commit_date, r.file)).path


NEWEST = {
    "v1": "schema/v1/schema.json",
    "v1-unstable": "schema/v1/schema.unstable.json",
    "v2": "schema/v2/schema.json",
    "v2-unstable": "schema/v2/schema.unstable.json",
}
