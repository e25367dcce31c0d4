"""Overlay: add our ``x-acp-*`` annotations to a schema we did not write.

Sits between load and build. Takes a `LoadedSchema` and an overlay file and
returns a new `LoadedSchema` whose document carries the annotations. An
overlay file is JSON::

    {"entries": [
        {"at": "/$defs/SessionUpdate/anyOf/2",
         "expect": {"properties/sessionUpdate/const": "agent_message_chunk"},
         "add": {"x-acp-entity": {...}}}
    ]}

``at`` is a JSON pointer into the schema, ``expect`` guards it (pointer relative
to ``at`` -> the value that must be there), so an index that moved in a new
revision fails loudly instead of annotating the wrong node, and ``add`` holds
only ``x-acp-*`` keys. One extension: a ``*`` token matches every member of an
array or object, and the entry then applies to the one node its ``expect``
selects (``/$defs/SessionUpdate/anyOf/*`` + the tag), so one overlay serves
revisions that list variants in different orders. An entry that matches no
node, or more than one, is a `SchemaError` naming the entry.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .errors import SchemaError
from .limits import ANNOTATION_PREFIX as PREFIX
from .load import LoadedSchema, parse_json, read_capped


def _candidates(document: Any, pointer: str) -> list[Any]:
    """Nodes a pointer with optional ``*`` tokens can reach."""
    nodes = [document]
    for token in pointer[1:].split("/") if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        nxt: list[Any] = []
        for node in nodes:
            if token == "*":
                nxt.extend(
                    node.values()
                    if isinstance(node, dict)
                    else node
                    if isinstance(node, list)
                    else []
                )
            elif isinstance(node, dict) and token in node:
                nxt.append(node[token])
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                nxt.append(node[int(token)])
        nodes = nxt
    return nodes


def _resolve(document: Any, pointer: str) -> Any:
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise KeyError(pointer)
    node = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(pointer)
    return node


def _holds(node: dict[str, Any], expect: dict[str, Any]) -> bool:
    for rel, expected in expect.items():
        try:
            actual = _resolve(node, "/" + rel.lstrip("/"))
        except KeyError:
            return False
        if actual != expected:
            return False
    return True


def read_overlay(path: Path) -> list[dict[str, Any]]:
    source = str(path)
    data = parse_json(read_capped(path, "overlay"), source, "overlay")
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise SchemaError("an overlay needs an 'entries' list", "/entries", source)
    for index, entry in enumerate(entries):
        where = f"/entries/{index}"
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), str):
            raise SchemaError("an overlay entry needs a string 'at' pointer", where, source)
        add = entry.get("add")
        if not isinstance(add, dict) or not add:
            raise SchemaError("an overlay entry needs a non-empty 'add' object", where, source)
        for key in add:
            if not key.startswith(PREFIX):
                raise SchemaError(
                    f"an overlay may only add {PREFIX}* keys, not {key!r}", f"{where}/add", source
                )
        if not isinstance(entry.get("expect", {}), dict):
            raise SchemaError("'expect' must be an object", f"{where}/expect", source)
    return entries


def apply_overlay(loaded: LoadedSchema, path: Path) -> LoadedSchema:
    """A copy of `loaded` with the overlay's annotations added."""
    entries = read_overlay(path)
    document = copy.deepcopy(loaded.document)
    source = str(path)
    for index, entry in enumerate(entries):
        where = f"/entries/{index}"
        if not entry["at"].startswith("/") and entry["at"] != "":
            raise SchemaError(f"'at' {entry['at']!r} is not a JSON pointer", where, source)
        expect = entry.get("expect", {})
        matches = [
            node
            for node in _candidates(document, entry["at"])
            if isinstance(node, dict) and _holds(node, expect)
        ]
        if len(matches) != 1:
            found = "nothing" if not matches else f"{len(matches)} nodes"
            guard = f" with {json.dumps(expect, sort_keys=True)}" if expect else ""
            raise SchemaError(
                f"'at' {entry['at']!r}{guard} matches {found} in {loaded.source}", where, source
            )
        matches[0].update(copy.deepcopy(entry["add"]))
    defs = document.get("$defs")
    return LoadedSchema(
        loaded.source, loaded.sha256, document, defs if isinstance(defs, dict) else {}
    )
