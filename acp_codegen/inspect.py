"""``acp-codegen inspect SCHEMA``: a summary of what the build stage made of a schema.

Reads the IR (`ir.Module`), never the raw schema, so the summary shows exactly
what generation would use: tagged unions with their variants and whether they
keep unknown tags, open enums, and the JSON-RPC method table. What the reducer
does (patch rules, entities, snapshots, live updates) comes from the
`semantics.ReducerSpec` that `accept` reads once, the same reading `generate`
uses; the raw ``x-acp-*`` keys appear only as each union's and variant's
``annotations``, for reference. `summarize` returns plain JSON data (printed by
``--json``); `render_text` lays the same data out for people.
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
from .config import version_schema, versions_job
from .console import Console, handles_bad_input, output_options, overlay_option
from .semantics import EntityRule, ReducerSpec, SnapshotRule


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


def _wire(module: ir.Module, cls: str, attr: str) -> str:
    node = module.find(cls)
    fields = node.fields if isinstance(node, ir.Struct) else ()
    return next((f.wire for f in fields if f.attr == attr), attr)


def _update_tags(module: ir.Module, union_name: str) -> dict[str, str]:
    """Class -> the update tag that carries it (members of a nested union included)."""
    union = module.get(union_name)
    assert isinstance(union, ir.TaggedUnion)
    tags: dict[str, str] = {}
    for variant in union.variants:
        pending = [variant.target]
        while pending:  # (a nested union's members, at any depth, carry the outer tag)
            name = pending.pop()
            tags.setdefault(name, variant.tag)
            inner = module.find(name)
            if isinstance(inner, ir.TaggedUnion):
                pending += [m.target for m in inner.variants]
                pending += [n for n in (inner.default_variant,) if n]
                pending += [inner.unknown_name] if inner.open else []
    return tags


def _reducer(module: ir.Module, spec: ReducerSpec | None) -> dict[str, list[dict[str, Any]]]:
    """What the reducer does, from the `ReducerSpec` (the annotations as `semantics` read
    them once), not from the raw ``x-acp-*`` keys."""
    if spec is None:
        return {"patch_fields": [], "entities": [], "snapshots": [], "live": []}
    tags = _update_tags(module, spec.union)
    patches: dict[tuple[str, str], dict[str, Any]] = {}
    rules: list[EntityRule | SnapshotRule] = [*spec.entities, *spec.snapshots]
    for rule in rules:
        for f in rule.fields:
            if f.mode != "set":  # set is what a snapshot does with every field
                wire = _wire(module, rule.cls, f.attr)
                patches[rule.cls, f.attr] = {
                    "struct": rule.cls,
                    "field": f.attr,
                    "wire": wire,
                    "patch": f.mode,
                }
    kinds: dict[str, dict[str, Any]] = {}
    for e in spec.entities:
        key = ".".join(w for _, w in e.path) if e.path else _wire(module, e.cls, e.key)
        entry = kinds.setdefault(
            e.kind, {"kind": e.kind, "key": key, "initial": None, "updates": []}
        )
        if e.initial:
            entry["initial"] = dict(e.initial)
        append = {_wire(module, e.cls, e.append[0]): e.append[1]} if e.append else None
        entry["updates"].append(
            {"union": spec.union, "tag": tags[e.cls], "op": e.op, "key": key, "append": append}
        )
    slots = {(tags[s.cls], s.slot): None for s in spec.snapshots}
    return {
        "patch_fields": [patches[k] for k in sorted(patches)],
        "entities": [kinds[k] for k in sorted(kinds)],
        "snapshots": [{"union": spec.union, "tag": t, "slot": slot} for t, slot in slots],
        "live": [{"union": spec.union, "tag": tags[cls]} for cls in spec.live],
    }


def summarize(module: ir.Module, spec: ReducerSpec | None = None) -> dict[str, Any]:
    """The inspect report as JSON-ready data."""
    kinds = Counter(type(d).__name__ for d in module.defs)
    enums = [d for d in module.defs if isinstance(d, ir.Enum)]
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
        "lenient_fields": _lenient(module),
        **_reducer(module, spec),
        "methods": [
            {"method": m.method, "side": m.side, "kind": m.kind, "type": m.type_name}
            for m in module.methods
        ],
    }


def _lenient(module: ir.Module) -> list[dict[str, Any]]:
    """Every field an ``x-deserialize-*`` flag covers, with the flags that cover it."""
    out = []
    for node in module.defs:
        for f in node.fields if isinstance(node, ir.Struct) else ():
            if f.lenient_flags:
                out.append(
                    {
                        "struct": node.name,
                        "field": f.attr,
                        "wire": f.wire,
                        "flags": list(f.lenient_flags),
                    }
                )
    return out


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=True)


def _variant_notes(summary: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(union, tag) -> what the reducer does with that update, from the summary's lists."""
    notes: dict[tuple[str, str], str] = {}
    for e in summary["entities"]:
        for u in e["updates"]:
            text = f"entity {e['kind']} {u['op']} by {u['key']}"
            if u["append"]:
                text += " " + ", ".join(f"{s} -> {t}" for s, t in u["append"].items())
            notes[u["union"], u["tag"]] = text
    for snap in summary["snapshots"]:
        notes[snap["union"], snap["tag"]] = f"snapshot {snap['slot']}"
    for live in summary["live"]:
        notes[live["union"], live["tag"]] = "live"
    return notes


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
    roles = _variant_notes(summary)
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
            note = roles.get((u["name"], v["tag"]), "")
            line = f"    {v['tag']:<{width}}  {cls:<{cls_width}}  {note}"
            lines.append(line.rstrip())
    lines += ["", f"Open enums ({len(summary['open_enums'])})"]
    for e in summary["open_enums"]:
        values = ", ".join(str(v) for v in e["values"])
        lines.append(f"  {e['name']} ({e['base']}): {values}")
    lines += ["", f"Lenient fields ({len(summary['lenient_fields'])})"]
    for f in summary["lenient_fields"]:
        lines.append(f"  {f['struct']}.{f['field']} ({f['wire']}): {', '.join(f['flags'])}")
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
@click.argument("schema", type=click.Path(path_type=Path), required=False)
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
@click.option(
    "--job",
    metavar="NAME",
    help="Without SCHEMA, or with SCHEMA given as 1, v2...: the configured job of several "
    "versions to read.",
)
@output_options(quiet="Print nothing but errors (a bad schema still exits 2).")
@handles_bad_input
def inspect_command(
    schema: Path | None,
    roots: tuple[str, ...],
    take_all: bool,
    as_json: bool,
    overlays: tuple[Path, ...],
    no_builtin_overlay: bool,
    closed_all: bool,
    job: str | None,
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
      acp-codegen inspect             # each version of the configured job
      acp-codegen inspect v2          # one of them
    """
    console = Console.current()
    how = Annotations(overlays, not no_builtin_overlay, closed_all)
    if schema is not None:
        summaries = {"": _summary(version_schema(schema, "SCHEMA", job), roots, take_all, how)}
    else:
        named = versions_job(job)
        summaries = {
            str(number): _summary(path, roots, take_all, how) for number, path in named.job.versions
        }
    if console.verbosity == 0:
        return
    if as_json:
        data = summaries[""] if schema is not None else summaries
        console.output(json.dumps(data, indent=2))
        return
    console.output(
        "\n".join(
            (f"Protocol version {number}\n\n" if number else "") + render_text(summary)
            for number, summary in summaries.items()
        )
    )


def _summary(
    schema: Path, roots: tuple[str, ...], take_all: bool, how: Annotations
) -> dict[str, Any]:
    """Build `schema` and summarise it (the build time goes to --verbose's stderr)."""
    started = time.perf_counter()
    accepted = accept(schema, roots, take_all, how)
    Console.current().detail(f"built {schema} in {time.perf_counter() - started:.2f}s")
    return summarize(accepted.module, accepted.spec)
