"""Session-state reducer, part two: each update class's handler, compiled from `Rules`.

Copied unchanged beside ``_state.py`` into every generated package that has a
reducer. `compile_rules` turns the tables of ``_state.Rules`` into one handler
factory per update class; `SessionState` builds each handler once per state. Entity
and snapshot handlers are compiled from source with the rule's attribute names
written in, so a streamed chunk costs a handful of dict and list operations.
"""

from __future__ import annotations

import base64
import binascii
import keyword
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from ._state import ERROR_STOP, Entity, EntityRule, Rules, SnapshotRule, _Joined

if TYPE_CHECKING:
    from ._state import SessionState


Handler = Callable[[Any], Any]
#: Builds one update class's handler bound to one `SessionState`.
Factory = Callable[["SessionState"], Handler]


def compile_rules(rules: Rules) -> dict[type[Any], Factory]:
    """One handler factory per update class (see the module's docstring), built once per
    generated subclass."""
    factories: dict[type[Any], Factory] = {}
    for cls, entity_rule in rules.entities.items():
        factories[cls] = _entity_factory(entity_rule, rules)
    for cls, snapshot_rule in rules.snapshots.items():
        factories[cls] = _snapshot_factory(snapshot_rule, rules)
    for cls in rules.live:
        factories[cls] = _live
    if rules.unknown is not None:
        factories[rules.unknown] = _keep_unknown
    return factories


def _live(state: SessionState) -> Handler:
    def live(update: Any) -> Any:
        return update  # delivered to the caller, never stored or replayed

    return live


def _keep_unknown(state: SessionState) -> Handler:
    def keep(update: Any) -> Any:
        state.history.append(update)
        entry = str(state._unknown_count)
        state._unknown_count += 1
        state._entities["unknown", entry] = update
        state._tail = None
        return update

    return keep


def _extend(values: dict[str, Any], target: str, value: Any) -> None:
    """Append `value` to a stored field that is not (yet) our own list of blocks."""
    current = values.get(target)
    if type(value) is str or type(value) is bytes:
        if type(current) is _Joined:
            current.append(value)
        elif current is None:
            values[target] = _Joined(value)
        else:  # text or bytes a full update stored
            values[target] = joined = _Joined(current)
            joined.append(value)
    elif current is None:
        values[target] = [value]
    else:
        values[target] = [*current, value]


_MISS = object()


def _id_getter(rule: EntityRule) -> Callable[[Any], Any]:
    """Reads an update's entity ID through a path into a nested body (``plan.planId``).

    A path also reaches into an unknown member of a nested open union through its raw
    payload; an ID that is absent or not a string there reads as None.
    """
    dotted = attrgetter(".".join(attr for attr, _ in rule.path))

    def get(update: Any) -> Any:
        try:
            return dotted(update)
        except AttributeError:
            pass
        node = update
        for attr, wire in rule.path:
            found = getattr(node, attr, _MISS)
            if found is _MISS:
                raw = getattr(node, "raw", None)
                found = raw.get(wire) if isinstance(raw, dict) else None
            node = found
        return node if isinstance(node, str) else None

    return get


def _b64(text: Any) -> bytes | None:
    """Strictly decoded base64, or None when `text` is not base64."""
    try:  # (what ``binascii.a2b_base64(strict_mode=True)`` reads; Python 3.10 lacks it)
        return base64.b64decode(text, validate=True)
    except (binascii.Error, TypeError, ValueError):
        return None


def _decoder(decode: tuple[tuple[str, str], ...]) -> dict[str, Callable[[Any], bytes | None]]:
    """attribute -> a function from its value to the bytes to store (None: malformed)."""
    out: dict[str, Callable[[Any], bytes | None]] = {}
    for attr, inner in decode:
        if inner:
            out[attr] = _inner_b64(attrgetter(inner))
        else:
            out[attr] = _b64
    return out


def _inner_b64(get: Callable[[Any], Any]) -> Callable[[Any], bytes | None]:
    def decode(value: Any) -> bytes | None:
        try:
            return _b64(get(value))
        except AttributeError:
            return None

    return decode


def _code(
    fields: tuple[tuple[str, str], ...],
    snapshot: bool,
    unset_clears: tuple[str, ...] = (),
    decoded: frozenset[str] = frozenset(),
) -> list[str]:
    """Source lines applying one update's fields to ``values``.

    ``set`` fields take the value (and, in a snapshot, an omitted one is removed);
    ``replace`` patches keep omitted values and clear on null; ``merge`` patches
    update the stored dict by top-level key, in place (our own copy is made when it is
    first stored); ``scoped`` fields are never stored. Lists are copied, so chunks can
    later append to the stored one. A field in `decoded` stores the bytes its base64
    value carries, through ``DECODE[attr]`` (a value that is not base64 counts as
    omitted).
    """
    lines = [f"values.pop({name!r}, None)" for name in unset_clears]
    for attr, mode in fields:
        if mode == "scoped":
            continue
        key = repr(_attr(attr))
        store = [
            "elif v.__class__ is list:",
            f"    values[{key}] = v.copy()",
            "else:",
            f"    values[{key}] = v",
        ]
        if mode == "merge":
            store = [
                "else:",
                f"    stored = values.get({key})",
                "    if stored is None:",
                f"        values[{key}] = dict(v)",
                "    else:",
                "        stored.update(v)",
            ]
        elif attr in decoded:
            store = [
                "else:",
                f"    data = DECODE[{key}](v)",
                "    if data is not None:",
                f"        values[{key}] = data",
            ]
        lines.append(f"v = update.{attr}")
        if snapshot and mode == "set":
            lines += ["if v is UNSET or v is None:", f"    values.pop({key}, None)", *store]
        else:
            lines += [
                "if v is UNSET:",
                "    pass",
                "elif v is None:",
                f"    values.pop({key}, None)",
                *store,
            ]
    return lines


def _attr(name: str) -> str:
    """An attribute name, checked before it is written into handler source."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"not an attribute name: {name!r}")
    return name


def _build(name: str, lines: list[str], namespace: dict[str, Any]) -> Factory:
    """Compile one handler factory. The source holds only `_attr`-checked attribute
    names and ``repr``-quoted strings; every other value comes in through `namespace`."""
    source = "\n".join(["def factory(state):", *(f"    {line}" for line in lines)])
    exec(compile(source, f"<SessionState {name}>", "exec"), namespace)  # noqa: S102
    factory: Factory = namespace["factory"]
    return factory


def _entity_factory(rule: EntityRule, rules: Rules) -> Factory:
    kind, key_attr, unset = rule.kind, _attr(rule.key), rules.unset
    get_id = _id_getter(rule) if rule.path else attrgetter(key_attr)
    decoders = _decoder(rule.decode)

    if rule.op == "remove":

        def remove_factory(state: SessionState) -> Handler:
            def remove(update: Any) -> None:
                state.history.append(update)
                removed = state._entities.pop((kind, get_id(update)), None)
                if removed is not None and removed is state._tail:
                    # Finding the entry before it would walk the dict's deleted slots, so
                    # removals newest first would cost more and more: an unkeyed update
                    # after this starts a new entity instead.
                    state._tail = None

            return remove

        return remove_factory
    # Inline, as this runs per streamed chunk: find the entity, or create it on first
    # sight; an unkeyed update continues the latest timeline entry when it is of this
    # kind, else gets an ID of the reducer's own ("#1", "#2", ...: the session's next
    # number whose ID no entity of this kind holds), stable for the rest of the session.
    values = f"{key_attr!r}: ident" + (", **INITIAL" if rule.initial else "")
    patch = _code(rule.fields, snapshot=False, decoded=frozenset(decoders))
    lines = [
        "history_append = state.history.append",
        "entities = state._entities",
        "get = entities.get",
        "def handler(update):",
        "    history_append(update)",
    ]
    if rule.path:  # an ID inside a nested body; unreadable in an unknown one: no entity
        lines += [
            "    ident = get_id(update)",
            "    if ident is None:",
            "        return update",
        ]
    else:
        lines += [f"    ident = update.{key_attr}"]
    # Most updates go to the latest timeline entry (a streamed message): compare with it
    # before building and hashing a key.
    lines += ["    entity = state._tail"]
    if rule.unkeyed is not None:
        lines += [
            "    if ident is UNSET or ident is None:",
            "        if entity is None or entity._kind != KIND:",
            "            entity = None",
            "            n = state._minted + 1",
            "            ident = f'#{n}'",
            "            while (KIND, ident) in entities:",
            "                n += 1",
            "                ident = f'#{n}'",
            "            state._minted = n",
            "    elif entity is None or entity._id != ident or entity._kind != KIND:",
            "        entity = get((KIND, ident))",
        ]
    else:
        lines += [
            "    if entity is None or entity._id != ident or entity._kind != KIND:",
            "        entity = get((KIND, ident))",
        ]
    lines += [
        "    if entity is None:",
        "        key = (KIND, ident)",
        "        entity = entities[key] = new(Entity)",
        "        entity._kind = KIND",
        "        entity._id = ident",
        "        entity._names = NAMES",
        "        state._tail = entity",
    ]
    source = _attr(rule.append[0]) if rule.append is not None else ""
    target = rule.append[1] if rule.append is not None else ""
    # The appended value; from base64, bytes (a value that is not base64 appends nothing).
    read = [f"value = update.{source}"]
    if source in decoders:
        read = [f"value = DECODE[{source!r}](update.{source})", "if value is None:"]
    if rule.append is not None and not patch:  # a first chunk: store it and be done
        lines += [f"        {line}" for line in read]
        if source in decoders:
            lines += [f"            entity._values = {{{values}}}", "            return entity"]
        lines += [
            "        if value.__class__ is str or value.__class__ is bytes:",
            f"            entity._values = {{{values}, {target!r}: Joined(value)}}",
            "        else:",
            f"            entity._values = {{{values}, {target!r}: [value]}}",
            "        return entity",
        ]
    else:
        lines += [f"        entity._values = {{{values}}}"]
    lines += ["    values = entity._values", *(f"    {line}" for line in patch)]
    if rule.append is not None:
        lines += [f"    {line}" for line in read]
        if source in decoders:
            lines += ["        return entity"]
        lines += [
            "    try:",
            f"        values[{target!r}].append(value)",
            "    except (KeyError, AttributeError):  # none yet, or text a full update stored",
            f"        extend(values, {target!r}, value)",
        ]
    lines += ["    return entity", "return handler"]
    namespace = {
        "KIND": kind,
        "NAMES": rules.kind_fields[kind],
        "INITIAL": dict(rule.initial),
        "Entity": Entity,
        "new": object.__new__,
        "Joined": _Joined,
        "UNSET": unset,
        "extend": _extend,
        "get_id": get_id,
        "DECODE": decoders,
    }
    return _build(f"{kind} {rule.op}", lines, namespace)


class _Body:
    """A snapshot slot's values, read through from the latest update that replaced it.

    A snapshot whose every field takes the incoming value (no patch fields) keeps the
    update itself instead of copying its fields: storing it is O(1) whatever its size,
    and a field reads as the update's value, with an omitted one absent. Each such
    update class gets a subclass naming its fields (`attrs`) and omission (`unset`).
    """

    __slots__ = ("update",)
    update: Any
    attrs: ClassVar[tuple[str, ...]] = ()
    unset: ClassVar[Any] = None

    def get(self, name: str, default: Any = None) -> Any:
        value = getattr(self.update, name, None) if name in self.attrs else None
        return default if value is None or value is self.unset else value

    def items(self) -> Iterator[tuple[str, Any]]:
        for name in self.attrs:
            value = self.get(name)
            if value is not None:
                yield name, value

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.items())


def _snapshot_factory(rule: SnapshotRule, rules: Rules) -> Factory:
    names = rules.slot_fields[rule.slot]
    kept = {attr for attr, _ in rule.fields}
    state_rule = rules.state if rules.state is not None and rule.slot == rules.state.slot else None
    lines = [
        "history_append = state.history.append",
        "slots = state._slots",
        "def handler(update):",
        "    history_append(update)",
        "    slot = slots.get(SLOT)",
        "    if slot is None:",
        "        slot = slots[SLOT] = Entity(SLOT, None, NAMES)",
    ]
    body = None
    if all(mode == "set" for _, mode in rule.fields):  # the slot is this update, whole
        attrs = tuple(_attr(attr) for attr, _ in rule.fields)
        body = type("_Body", (_Body,), {"__slots__": (), "attrs": attrs, "unset": rules.unset})
        lines += ["    values = slot._values = new(BODY)", "    values.update = update"]
    else:
        lines += [
            "    values = slot._values",
            "    if values.__class__ is not dict:  # our own copy of what a whole update held",
            "        values = slot._values = {k: copy(v) for k, v in values.items()}",
            # a snapshot is complete: fields of the slot that this class lacks are gone
            *(
                f"    {line}"
                for line in _code(
                    rule.fields,
                    snapshot=True,
                    unset_clears=tuple(n for n in names if n not in kept),
                )
            ),
        ]
    if state_rule is not None:
        lines += ["    before, state._state_tag = state._state_tag, TAG"]
        if rule.tag == state_rule.idle:
            # A repeated idle without a stop reason is not a new completion: it keeps the
            # last one. Entering idle takes what it carries, None included; the error
            # belongs to the "error" stop reason only.
            carried = "STOP" if rule.stop is not None else "values.get('stop_reason')"
            lines += [
                f"    carried = {carried}",
                "    if before != TAG or carried is not None:",
                "        state.stop_reason = carried",
                "        state.error = values.get('error') if carried == ERROR_STOP else None",
            ]
    lines += ["    return slot", "return handler"]
    namespace = {
        "SLOT": rule.slot,
        "NAMES": names,
        "TAG": rule.tag,
        "Entity": Entity,
        "UNSET": rules.unset,
        "BODY": body,
        "new": object.__new__,
        "ERROR_STOP": ERROR_STOP,
        "STOP": rule.stop,
        "copy": _copy,
    }
    return _build(f"{rule.slot} snapshot", lines, namespace)


def _copy(value: Any) -> Any:
    return value.copy() if type(value) is dict or type(value) is list else value
