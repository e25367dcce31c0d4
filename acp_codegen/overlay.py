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
node, or more than one, is a `SchemaError` naming the revision and the entry.

An entry may name an ``optional`` group: the entries of one group annotate an
update kind that only some revisions have, so they apply all together or, when
none of them matches anything, not at all; a group that matches in part is an
error naming the entry that failed. An entry with ``when`` (a list of guards, as
in ``covers``) applies only to revisions where every guard holds: for a kind whose
shape changed, annotations written for the newer shape. A ``covers`` object (``family``,
``revisions`` and a ``guard`` list of ``at``/``expect`` pairs that must each
match one node) says which revisions an overlay is written for: the built-in
overlays under ``acp_codegen/overlays/`` carry one, and `choose_builtin` picks
the one whose guard a schema satisfies.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, NamedTuple

from .errors import SchemaError
from .limits import ANNOTATION_PREFIX as PREFIX
from .load import LoadedSchema, parse_json, read_capped

BUILTIN_DIR = Path(__file__).parent / "overlays"


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
        if not isinstance(entry.get("optional", ""), str):
            raise SchemaError("'optional' must be a group name", f"{where}/optional", source)
        when = entry.get("when", [])
        if not isinstance(when, list) or not all(
            isinstance(g, dict) and isinstance(g.get("at"), str) for g in when
        ):
            raise SchemaError("'when' must be a list of {at, ...} guards", f"{where}/when", source)
    return entries


class Builtin(NamedTuple):
    """A built-in overlay: its file, the family it serves and its coverage guard."""

    path: Path
    family: str
    revisions: str
    guard: tuple[dict[str, Any], ...]


def builtins() -> tuple[Builtin, ...]:
    """The overlays shipped with acp-codegen, one per protocol family."""
    found = []
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        covers = json.loads(path.read_text(encoding="utf-8"))["covers"]
        found.append(Builtin(path, covers["family"], covers["revisions"], tuple(covers["guard"])))
    return tuple(found)


def _matches(document: Any, at: str, expect: dict[str, Any]) -> list[Any]:
    return [
        node
        for node in _candidates(document, at)
        if isinstance(node, dict) and _holds(node, expect)
    ]


def is_annotated(document: Any) -> bool:
    """True when the schema already carries ``x-acp-*`` keys of its own."""
    if isinstance(document, dict):
        return any(
            (isinstance(k, str) and k.startswith(PREFIX)) or is_annotated(v)
            for k, v in document.items()
        )
    return isinstance(document, list) and any(is_annotated(v) for v in document)


def choose_builtin(loaded: LoadedSchema) -> Builtin | None:
    """The built-in overlay whose coverage guard this schema's shape satisfies, if any."""
    for candidate in builtins():
        if all(_guard_holds(loaded.document, guard) for guard in candidate.guard):
            return candidate
    return None


def _guard_holds(document: Any, guard: dict[str, Any]) -> bool:
    """One coverage guard: ``at``/``expect`` matches one node, or with ``contains``,
    the one list at ``at`` holds that value."""
    if "contains" in guard:
        lists = [n for n in _candidates(document, guard["at"]) if isinstance(n, list)]
        return len(lists) == 1 and guard["contains"] in lists[0]
    return len(_matches(document, guard["at"], guard.get("expect", {}))) == 1


def apply_overlay(loaded: LoadedSchema, path: Path) -> LoadedSchema:
    """A copy of `loaded` with the overlay's annotations added."""
    entries = read_overlay(path)
    document = copy.deepcopy(loaded.document)
    source = str(path)
    found: list[list[Any] | None] = []  # None: the entry's `when` does not hold
    for index, entry in enumerate(entries):
        if not entry["at"].startswith("/") and entry["at"] != "":
            raise SchemaError(
                f"'at' {entry['at']!r} is not a JSON pointer", f"/entries/{index}", source
            )
        if all(_guard_holds(document, guard) for guard in entry.get("when", [])):
            found.append(_matches(document, entry["at"], entry.get("expect", {})))
        else:
            found.append(None)
    present = {
        entry["optional"]
        for entry, matches in zip(entries, found, strict=True)
        if "optional" in entry and matches
    }
    for index, (entry, matches) in enumerate(zip(entries, found, strict=True)):
        group = entry.get("optional")
        if matches is None or group is not None and group not in present:
            continue  # the revision has none of this group's update kinds, or not this shape
        if len(matches) != 1:
            found_text = "nothing" if not matches else f"{len(matches)} nodes"
            expect = entry.get("expect", {})
            guard = f" with {json.dumps(expect, sort_keys=True)}" if expect else ""
            part = f" (group {group!r} is only partly present)" if group is not None else ""
            raise SchemaError(
                f"'at' {entry['at']!r}{guard} matches {found_text} in {loaded.source}{part}",
                f"/entries/{index}",
                source,
            )
        matches[0].update(copy.deepcopy(entry["add"]))
    defs = document.get("$defs")
    return LoadedSchema(
        loaded.source, loaded.sha256, document, defs if isinstance(defs, dict) else {}
    )
