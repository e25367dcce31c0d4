"""Reducer semantics: read our ``x-acp-*`` annotations off the IR into a typed spec.

Takes an `ir.Module` and returns a `ReducerSpec` (or None when the update union
carries no annotations): for every concrete class an update can decode to, what
the session-state reducer does with it. The annotations are documented in
``docs/annotations.md``; this module only checks their shape and resolves wire
names to attributes, so the generated reducer tables hold nothing to interpret.
Any malformed annotation is a `SchemaError` at the variant's pointer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ir
from .errors import SchemaError
from .naming import attribute

ENTITY = "x-acp-entity"
SNAPSHOT = "x-acp-snapshot"
LIVE = "x-acp-live"
PATCH = "x-acp-patch"
STATE = "x-acp-state"
OPS = ("upsert", "append", "remove")
#: What an update whose key is omitted (or null) does; see docs/annotations.md.
UNKEYED = ("continue",)
PATCH_MODES = ("merge", "scoped", "replace")


@dataclass(frozen=True)
class FieldRule:
    attr: str
    #: "set" (snapshot/required: take the value, omitted clears in snapshots),
    #: "replace" (patch), "merge" (patch by top-level key) or "scoped" (never stored).
    mode: str


@dataclass(frozen=True)
class EntityRule:
    cls: str
    kind: str
    key: str
    op: str
    fields: tuple[FieldRule, ...]
    append: tuple[str, str] | None = None
    initial: tuple[tuple[str, Any], ...] = ()
    #: ``(attr, values)``: the entity is finished once `attr` is one of `values`,
    #: or, with ``values=None``, once `attr` holds any value.
    finished: tuple[str, tuple[Any, ...] | None] | None = None
    #: ``((attr, wire), ...)`` from the body down to a nested ID (``plan.planId``);
    #: empty when the ID is a property of the body itself (then `key` is that property).
    path: tuple[tuple[str, str], ...] = ()
    #: ``(attr, inner)``: the body's `attr` carries base64 bytes, stored decoded; `inner`
    #: names the property holding them when the value is an object, else it is "".
    decode: tuple[tuple[str, str], ...] = ()
    #: What an update without its key does: None (the key is required) or "continue".
    unkeyed: str | None = None


@dataclass(frozen=True)
class SnapshotRule:
    cls: str
    slot: str
    fields: tuple[FieldRule, ...]
    #: The state tag this class carries (None for an open fallback).
    tag: str | None = None
    #: The stop reason this class stands for, where a union keyed by the stop reason
    #: (``stopReason``) names it by the class, not by a field (None: read the field).
    stop: str | None = None


@dataclass(frozen=True)
class StateRule:
    slot: str
    idle: str
    unknown: str
    busy: str
    known: tuple[str, ...]


@dataclass(frozen=True)
class ReducerSpec:
    union: str
    entities: tuple[EntityRule, ...]
    snapshots: tuple[SnapshotRule, ...]
    live: tuple[str, ...]
    unknown: str | None
    state: StateRule | None
    kinds: tuple[str, ...]
    #: kind -> every attribute an entity of that kind can hold
    kind_fields: tuple[tuple[str, tuple[str, ...]], ...]
    #: slot -> every attribute that slot can hold
    slot_fields: tuple[tuple[str, tuple[str, ...]], ...]


def _bare(expr: ir.TypeExpr) -> ir.TypeExpr:
    """`expr` without null and without a one-member union around it."""
    while isinstance(expr, ir.Nullable) or (
        isinstance(expr, ir.UnionOf) and len(expr.members) == 1
    ):
        expr = expr.inner if isinstance(expr, ir.Nullable) else expr.members[0]
    return expr


def _is_base64(expr: ir.TypeExpr) -> bool:
    return isinstance(expr, ir.Prim) and expr.kind == "str" and expr.encoding == "base64"


def _get(annotations: tuple[ir.Annotation, ...], key: str) -> Any:
    for annotation in annotations:
        if annotation.key == key:
            return annotation.value
    return None


class _Reader:
    def __init__(self, module: ir.Module) -> None:
        self.module = module

    def error(self, message: str, pointer: str) -> SchemaError:
        return SchemaError(message, pointer, self.module.source)

    def struct(self, name: str) -> ir.Struct:
        node = self.module.get(name)
        assert isinstance(node, ir.Struct)
        return node

    def wire_to_attr(self, struct: ir.Struct, wire: str, pointer: str) -> ir.Field:
        for field in struct.fields:
            if field.wire == wire and field.fixed is None:
                return field
        raise self.error(f"{struct.name} has no property {wire!r}", pointer)

    def field_rules(
        self, struct: ir.Struct, skip: set[str], snapshot: bool
    ) -> tuple[FieldRule, ...]:
        rules = []
        for field in struct.fields:
            if field.fixed is not None or field.attr in skip:
                continue
            patch = _get(field.annotations, PATCH)
            if patch is not None and patch not in PATCH_MODES:
                raise self.error(f"{PATCH} must be one of {', '.join(PATCH_MODES)}", field.pointer)
            if patch is None:
                patch = "set" if snapshot or field.required else "replace"
            rules.append(FieldRule(field.attr, patch))
        return tuple(rules)

    def entity(self, variant: ir.Variant, value: Any) -> EntityRule:
        where = variant.pointer
        if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
            raise self.error(f"{ENTITY} needs a string 'kind'", where)
        op = value.get("op")
        if op not in OPS:
            raise self.error(f"{ENTITY} 'op' must be one of {', '.join(OPS)}", where)
        if variant.nested:
            raise self.error(f"{ENTITY} cannot sit on a variant whose body is a union", where)
        struct = self.struct(variant.target)
        key_wire = value.get("key")
        if not isinstance(key_wire, str):
            raise self.error(f"{ENTITY} needs a string 'key'", where)
        unkeyed = value.get("unkeyed")
        if unkeyed is not None and (unkeyed not in UNKEYED or op == "remove"):
            raise self.error(
                f"{ENTITY} 'unkeyed' must be one of {', '.join(UNKEYED)} on an upsert or append",
                where,
            )
        key = self.wire_to_attr(struct, key_wire.split(".")[0], where)
        if unkeyed is not None and "." not in key_wire:
            if key.required:
                raise self.error(
                    f"{ENTITY} 'unkeyed' needs a key that is optional in {struct.name}", where
                )
            path: tuple[tuple[str, str], ...] = ((key.attr, key_wire),)
        elif not key.required and "." not in key_wire:
            raise self.error(
                f"{ENTITY} key {key_wire!r} is optional in {struct.name}; say what an update "
                "without it does with 'unkeyed'",
                where,
            )
        else:
            path = self.key_path(struct, key_wire, where)
        append = None
        if op == "append":
            spec = value.get("append")
            if not isinstance(spec, dict) or len(spec) != 1:
                raise self.error(f"{ENTITY} append needs exactly one {{source: target}}", where)
            ((source, target),) = spec.items()
            append = (self.wire_to_attr(struct, source, where).attr, attribute(str(target)))
        initial = value.get("initial", {})
        if not isinstance(initial, dict):
            raise self.error(f"{ENTITY} 'initial' must be an object", where)
        finished = value.get("finished")
        done: tuple[str, tuple[Any, ...] | None] | None = None
        if finished is not None:
            if not isinstance(finished, dict) or len(finished) != 1:
                raise self.error(f"{ENTITY} 'finished' needs exactly one property", where)
            ((prop, values),) = finished.items()
            done = (
                prop,
                None
                if values is True
                else tuple(values)
                if isinstance(values, list)
                else (values,),
            )
        if done is not None:
            done = (attribute(done[0]), done[1])
        skip = set() if len(path) > 1 else {key.attr}
        skip |= {append[0]} if append else set()
        return EntityRule(
            variant.target,
            value["kind"],
            path[-1][0],
            op,
            self.field_rules(struct, skip, snapshot=False),
            append,
            tuple(sorted((attribute(k), v) for k, v in initial.items())),
            done,
            path if len(path) > 1 else (),
            self.byte_fields(struct),
            unkeyed,
        )

    def key_path(self, struct: ir.Struct, key: str, where: str) -> tuple[tuple[str, str], ...]:
        """``(attr, wire)`` per segment of a dotted key; each one a required property."""
        path: list[tuple[str, str]] = []
        bodies = [struct]
        for i, wire in enumerate(key.split(".")):
            fields = [self.wire_to_attr(body, wire, where) for body in bodies]
            if not all(f.required for f in fields):
                raise self.error(f"{ENTITY} key {key!r}: {wire!r} is not always required", where)
            path.append((fields[0].attr, wire))
            if i < key.count("."):
                bodies = self.bodies(fields[0].type, key, where)
        return tuple(path)

    def bodies(self, expr: ir.TypeExpr, key: str, where: str) -> list[ir.Struct]:
        """The structs a key path descends into: one struct, or every member of a union."""
        expr = _bare(expr)
        node = self.module.find(expr.name) if isinstance(expr, ir.Ref) else None
        if isinstance(node, ir.Struct):
            return [node]
        if isinstance(node, ir.TaggedUnion) and not any(v.nested for v in node.variants):
            return [self.struct(v.target) for v in node.variants]
        raise self.error(f"{ENTITY} key {key!r} must descend into objects", where)

    def byte_fields(self, struct: ir.Struct) -> tuple[tuple[str, str], ...]:
        """Properties holding base64 bytes, directly or as an object's one required one."""
        out = []
        for field in struct.fields:
            inner = _bare(field.type)
            if _is_base64(inner):
                out.append((field.attr, ""))
                continue
            node = self.module.find(inner.name) if isinstance(inner, ir.Ref) else None
            if isinstance(node, ir.Struct):
                required = [f for f in node.fields if f.required]
                if len(required) == 1 and _is_base64(required[0].type):
                    out.append((field.attr, required[0].attr))
        return tuple(out)

    def classes(self, variant: ir.Variant) -> list[tuple[str, str | None, str | None]]:
        """Concrete classes a variant decodes to, with their inner tag for nested unions, and
        the tag one level further in (an idle state's stop reason) where there is one."""
        if not variant.nested:
            return [(variant.target, None, None)]
        inner = self.module.get(variant.target)
        assert isinstance(inner, ir.TaggedUnion)
        out: list[tuple[str, str | None, str | None]] = []
        for v in inner.variants:
            if not v.nested:
                out.append((v.target, v.tag, None))
                continue
            deeper = self.module.get(v.target)
            assert isinstance(deeper, ir.TaggedUnion)
            out += [(w.target, v.tag, w.tag) for w in deeper.variants if not w.nested]
            out += [
                (name, v.tag, None)
                for name in (deeper.default_variant, deeper.unknown_name if deeper.open else None)
                if name is not None
            ]
        if inner.open:
            out.append((inner.unknown_name, None, None))
        return out

    def read(self) -> ReducerSpec | None:
        name = self.module.update_union
        if name is None:
            return None
        union = self.module.get(name)
        assert isinstance(union, ir.TaggedUnion)
        entities: list[EntityRule] = []
        snapshots: list[SnapshotRule] = []
        live: list[str] = []
        state: StateRule | None = None
        for variant in union.variants:
            entity = _get(variant.annotations, ENTITY)
            snapshot = _get(variant.annotations, SNAPSHOT)
            if entity is not None:
                entities.append(self.entity(variant, entity))
            elif snapshot is not None:
                if not isinstance(snapshot, str):
                    raise self.error(f"{SNAPSHOT} must be a slot name", variant.pointer)
                for cls, tag, stop in self.classes(variant):
                    node = self.module.find(cls)
                    fields = (
                        self.field_rules(node, set(), snapshot=True)
                        if isinstance(node, ir.Struct)
                        else ()
                    )
                    snapshots.append(SnapshotRule(cls, snapshot, fields, tag, stop))
                if variant.nested:
                    state = self.state_rule(variant, snapshot) or state
            elif _get(variant.annotations, LIVE) is True:
                live.append(variant.target)
        if not (entities or snapshots or live):
            return None
        kinds = sorted({e.kind for e in entities})
        kind_fields = []
        for kind in kinds:
            attrs: set[str] = set()
            for rule in entities:
                if rule.kind == kind:
                    attrs |= {f.attr for f in rule.fields if f.mode != "scoped"} | {rule.key}
                    attrs |= {k for k, _ in rule.initial}
                    attrs |= {rule.append[1]} if rule.append else set()
            kind_fields.append((kind, tuple(sorted(attrs))))
        slot_fields: dict[str, set[str]] = {}
        for snap in snapshots:
            slot_fields.setdefault(snap.slot, set()).update(f.attr for f in snap.fields)
        return ReducerSpec(
            name,
            tuple(entities),
            tuple(snapshots),
            tuple(live),
            union.unknown_name if union.open else None,
            state,
            tuple(kinds),
            tuple(kind_fields),
            tuple((k, tuple(sorted(v))) for k, v in sorted(slot_fields.items())),
        )

    def state_rule(self, variant: ir.Variant, slot: str) -> StateRule | None:
        inner = self.module.get(variant.target)
        assert isinstance(inner, ir.TaggedUnion)
        value = _get(inner.annotations, STATE)
        if value is None:
            return None
        if not isinstance(value, dict) or not all(
            isinstance(value.get(k), str) for k in ("idle", "unknown", "busy")
        ):
            raise self.error(f"{STATE} needs string 'idle', 'unknown' and 'busy'", inner.pointer)
        return StateRule(slot, value["idle"], value["unknown"], value["busy"], inner.tags)


def reducer_spec(module: ir.Module) -> ReducerSpec | None:
    """The reducer spec for a module, or None when it has no annotated update union."""
    return _Reader(module).read()
