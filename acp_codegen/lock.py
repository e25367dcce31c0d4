"""The lock beside a schema file: which published revision the file is.

`upgrade --write` writes ``<schema>.lock`` (``schema.json.lock`` beside
``schema.json``) with the source, the release or commit, the URL and the file's
sha256. `pipeline.generate` reads it back with `verified`, which refuses a schema
whose bytes no longer have that sha256, and records it in ``_provenance.py`` as
``SOURCE``. Reading the lock never touches the network, so ``generate`` and
``check`` stay offline and give the same bytes on every machine.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .emit import write_file
from .errors import SchemaError, UsageError, printable
from .load import read_capped

SUFFIX = ".lock"
#: Identifies the lock's layout; bumped only when a key changes meaning or goes away.
FORMAT = "acp-codegen-lock/1"
KEYS = ("source", "version", "url", "sha256")


def path_for(schema: Path) -> Path:
    return schema.with_name(schema.name + SUFFIX)


def read(schema: Path) -> dict[str, str] | None:
    """The lock of `schema` without its format key, or None when it has none."""
    path = path_for(schema)
    if not os.path.lexists(path):
        return None
    try:
        record = json.loads(read_capped(path, "config"))
    except SchemaError as exc:
        raise UsageError(f"lock {exc.source}: {exc.message}") from None
    except (UnicodeDecodeError, ValueError):
        raise UsageError(
            f"lock {path} is not JSON; delete it or run acp-codegen upgrade --write"
        ) from None
    if (
        not isinstance(record, dict)
        or record.get("format") != FORMAT
        or not all(isinstance(record.get(k), str) for k in ("source", "sha256"))
        or not all(k in (*KEYS, "format") and isinstance(v, str) for k, v in record.items())
    ):
        raise UsageError(
            f"lock {path} is not an {FORMAT} lock; delete it or run acp-codegen upgrade --write"
        )
    return {k: record[k] for k in KEYS if k in record}


def verified(schema: Path) -> dict[str, str] | None:
    """The lock of `schema`, once the file's bytes are checked against it."""
    record = read(schema)
    if record is None:
        return None
    try:
        actual = hashlib.sha256(read_capped(schema)).hexdigest()
    except SchemaError as exc:
        raise UsageError(str(exc)) from None
    if actual != record["sha256"]:
        raise UsageError(
            f"{printable(str(schema))} is not the file its lock {path_for(schema).name} names "
            f"(sha256 {actual[:12]}, locked {record['sha256'][:12]}): run acp-codegen upgrade "
            "--write to take the published one, or delete the lock to keep yours"
        )
    return record


def write(schema: Path, record: dict[str, str]) -> None:
    text = json.dumps({"format": FORMAT, **record}, indent=2, sort_keys=True, ensure_ascii=True)
    write_file(path_for(schema), text + "\n")
