"""``acp-codegen inspect SCHEMA``: a summary of what the build stage made of a schema.

Reads the IR (`ir.Module`), never the raw schema, so the summary shows exactly
what generation would use: tagged unions with their variants and whether they
keep unknown tags, open enums, fields and variants carrying our ``x-acp-*``
annotations (patch rules, entities, snapshots, live updates) and the JSON-RPC
method table. `summarize` returns plain JSON data (printed by ``--json``);
`render_text` lays the same data out for people.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click

from . import ir
from .accept import Annotations, accept
from .console import Console, handles_bad_input, output_options, overlay_option
from .semantics import ENTITY, LIVE, PATCH, SNAPSHOT


def _notes(annotations: tuple[ir.Annotation, ...]) -> dict[str, ir.JsonValue]:
    return {a.key: a.value for a in annotations}


def _union(union: ir.TaggedUnion) -> dict[str, Any]:
    return {
        "name": union.name,
        "tag": union.tag_field,
        "open": union.open,
        "unknown": union.unknown_name if union.open else None,
        "default": (
            {"tag": union.default_tag, "class": union.default_variant}
            if union.default_variant
            else None
        ),
        "annotations": _notes(union.annotations),
        "variants": [
            {
                "tag": v.tag,
                "class": v.target,
                "nested": v.nested,
                "annotations": _notes(v.annotations),
            }
            for v in union.variants
        ],
    }


def _entities(unions: tuple[ir.TaggedUnion, ...]) -> list[dict[str, Any]]:
    kinds: dict[str, dict[str, Any]] = {}
    for union in unions:
        for variant in union.variants:
            entity = _notes(variant.annotations).get(ENTITY)
            kind = entity.get("kind") if isinstance(entity, dict) else None
            if not isinstance(entity, dict) or not isinstance(kind, str):
                continue
            entry = kinds.setdefault(
                kind, {"kind": kind, "key": entity.get("key"), "initial": None, "updates": []}
            )
            if entity.get("initial") is not None:
                entry["initial"] = entity["initial"]
            entry["updates"].append(
                {
                    "union": union.name,
                    "tag": variant.tag,
                    "op": entity.get("op"),
                    "append": entity.get("append"),
                }
            )
    return [kinds[k] for k in sorted(kinds)]


def summarize(module: ir.Module) -> dict[str, Any]:
    """The inspect report as JSON-ready data."""
    kinds = Counter(type(d).__name__ for d in module.defs)
    enums = [d for d in module.defs if isinstance(d, ir.Enum)]
    structs = [d for d in module.defs if isinstance(d, ir.Struct)]
    tagged = [
        {"union": u.name, "tag": v.tag, "key": k, "value": value}
        for u in module.unions
        for v in u.variants
        for k, value in _notes(v.annotations).items()
        if k in (SNAPSHOT, LIVE)
    ]
    return {
        "schema": module.source,
        "sha256": module.sha256,
        "title": module.title,
        "counts": {
            "definitions": len(module.defs),
            "structs": kinds["Struct"],
            "tagged_unions": kinds["TaggedUnion"],
            "open_unions": sum(u.open for u in module.unions),
            "enums": kinds["Enum"],
            "open_enums": sum(e.open for e in enums),
            "aliases": kinds["Alias"],
            "shape_unions": kinds["ShapeUnion"],
        },
        "notification": module.notification,
        "update_union": module.update_union,
        "unions": [_union(u) for u in module.unions],
        "open_enums": [
            {"name": e.name, "base": e.base, "values": [v.value for v in e.values]}
            for e in enums
            if e.open
        ],
        "patch_fields": [
            {
                "struct": s.name,
                "field": f.attr,
                "wire": f.wire,
                "patch": _notes(f.annotations)[PATCH],
            }
            for s in structs
            for f in s.fields
            if PATCH in _notes(f.annotations)
        ],
        "entities": _entities(module.unions),
        "snapshots": [
            {"union": t["union"], "tag": t["tag"], "slot": t["value"]}
            for t in tagged
            if t["key"] == SNAPSHOT
        ],
        "live": [{"union": t["union"], "tag": t["tag"]} for t in tagged if t["key"] == LIVE],
        "methods": [
            {"method": m.method, "side": m.side, "kind": m.kind, "type": m.type_name}
            for m in module.methods
        ],
    }


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=True)


def _variant_note(notes: dict[str, Any]) -> str:
    entity = notes.get(ENTITY)
    if isinstance(entity, dict):
        text = f"entity {entity.get('kind')} {entity.get('op')} by {entity.get('key')}"
        if entity.get("append"):
            text += " " + ", ".join(f"{s} -> {t}" for s, t in entity["append"].items())
        return text
    if SNAPSHOT in notes:
        return f"snapshot {notes[SNAPSHOT]}"
    if LIVE in notes:
        return "live"
    return ""


def render_text(summary: dict[str, Any]) -> str:
    """The summary laid out in aligned sections, one line per item."""
    c = summary["counts"]
    lines = [
        summary["title"] or summary["schema"],
        f"schema   {summary['schema']}",
        f"sha256   {summary['sha256']}",
        f"defs     {c['definitions']}: {c['structs']} structs, {c['tagged_unions']} tagged unions "
        f"({c['open_unions']} open), {c['enums']} enums ({c['open_enums']} open), "
        f"{c['aliases']} aliases, {c['shape_unions']} shape unions",
    ]
    if summary["notification"]:
        lines.append(
            f"session/update params {summary['notification']}, "
            f"update union {summary['update_union'] or '-'}"
        )
    lines += ["", f"Unions ({len(summary['unions'])})"]
    for u in summary["unions"]:
        openness = f"open: unknown tags -> {u['unknown']}" if u["open"] else "closed"
        head = f"  {u['name']}  tag {u['tag']!r}, {openness}"
        if u["default"]:
            head += f"; no tag -> {u['default']['class']} ({u['default']['tag']!r})"
        if u["annotations"]:
            head += f"  {_compact(u['annotations'])}"
        lines.append(head)
        width = max((len(v["tag"]) for v in u["variants"]), default=0)
        cls_width = max((len(v["class"]) for v in u["variants"]), default=0)
        for v in u["variants"]:
            cls = v["class"] + (" (union)" if v["nested"] else "")
            note = _variant_note(v["annotations"])
            line = f"    {v['tag']:<{width}}  {cls:<{cls_width}}  {note}"
            lines.append(line.rstrip())
    lines += ["", f"Open enums ({len(summary['open_enums'])})"]
    for e in summary["open_enums"]:
        values = ", ".join(str(v) for v in e["values"])
        lines.append(f"  {e['name']} ({e['base']}): {values}")
    lines += ["", f"Patch fields ({len(summary['patch_fields'])})"]
    for p in summary["patch_fields"]:
        lines.append(f"  {p['struct']}.{p['field']} ({p['wire']}): {p['patch']}")
    lines += ["", f"Entities ({len(summary['entities'])})"]
    for e in summary["entities"]:
        updates = "; ".join(f"{u['op']} {u['tag']}" for u in e["updates"])
        initial = f", starts as {_compact(e['initial'])}" if e["initial"] else ""
        lines.append(f"  {e['kind']} by {e['key']}{initial}: {updates}")
    if summary["snapshots"] or summary["live"]:
        lines += ["", "Snapshots and live updates"]
        lines += [f"  {s['tag']}: snapshot {s['slot']}" for s in summary["snapshots"]]
        lines += [f"  {s['tag']}: live" for s in summary["live"]]
    lines += ["", f"Methods ({len(summary['methods'])})"]
    width = max((len(m["method"]) for m in summary["methods"]), default=0)
    for m in summary["methods"]:
        lines.append(f"  {m['method']:<{width}}  {m['kind']:<12}  {m['side']:<8}  {m['type']}")
    return "\n".join(lines) + "\n"


@click.command(
    "inspect",
    epilog="\b\nExit codes: 0 summarised; 2 bad input (one line on stderr, no traceback).",
)
@click.argument("schema", type=click.Path(path_type=Path))
@click.option("--root", "roots", multiple=True, help="Also include this definition (repeatable).")
@click.option("--all", "take_all", is_flag=True, help="Include every definition.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@overlay_option("the schema, as generate does")
@click.option(
    "--no-builtin-overlay",
    is_flag=True,
    help="Do not annotate a published schema with the built-in v1/v2 overlay.",
)
@click.option(
    "--closed",
    "closed_all",
    is_flag=True,
    help="Keep the schema's own openness for every union and enum, as generate --closed.",
)
@output_options
@handles_bad_input
def inspect_command(
    schema: Path,
    roots: tuple[str, ...],
    take_all: bool,
    as_json: bool,
    overlays: tuple[Path, ...],
    no_builtin_overlay: bool,
    closed_all: bool,
) -> None:
    """Summarise what a schema generates: unions, open enums, annotations, methods.

    By default it covers the session/update notification and what it refers to,
    the same selection as `generate`, and it accepts exactly the schemas
    `generate` accepts (with the same overlays). --quiet prints nothing and only checks that
    the schema builds (exit 0 or 2); --verbose adds the build time on stderr.

    \b
    Examples:
      acp-codegen inspect schema/session_update.schema.json
      acp-codegen inspect schema.json --all --json | jq '.unions[].name'
    """
    console = Console.current()
    started = time.perf_counter()
    how = Annotations(overlays, not no_builtin_overlay, closed_all)
    module = accept(schema, roots, take_all, how).module
    console.detail(f"built {schema} in {time.perf_counter() - started:.2f}s")
    if console.verbosity == 0:
        return
    summary = summarize(module)
    console.output(json.dumps(summary, indent=2) if as_json else render_text(summary))
