"""Open and lossless by default, on both targets.

- Property test over the newest v1 stable, the newest v2 unstable and our own schema:
  schema-valid params, with undeclared properties added at random object levels, then
  unknown union tags and unknown enum values injected where the decoded value shows a
  tagged struct or an open enum, decode and re-encode to exactly the same JSON
  (integers stay integers: no ``int`` may come back as a ``float``).
- The v1 stable package decodes every update kind of the v1 unstable schema.
- `acp-codegen diff` still reports opening and closing as the schema declares them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_codegen import naming
from tests import corpus
from tests.conftest import OWN_SCHEMA, TARGETS, GenerateFn
from tests.instances import Instances, Variant, dumps, notification_def, union_size
from tests.test_schema_properties import PROPERTY, Drawn


def exact_json(left: Any, right: Any) -> bool:
    """JSON equality where an integer and a float never match (``0`` is not ``0.0``)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(exact_json(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(exact_json, left, right))
    return bool(left == right)


class Subject(NamedTuple):
    key: str
    pkg: Any
    document: dict[str, Any]
    name: str

    def __repr__(self) -> str:
        return f"Subject({self.key!r})"


SCHEMAS = ("v1", "v2-unstable", "own")


@pytest.fixture(
    scope="module",
    params=[(s, t) for s in SCHEMAS for t in TARGETS],
    ids=lambda p: f"{p[0]}-{p[1]}",
)
def subject(request: pytest.FixtureRequest, make_package: GenerateFn) -> Subject:
    key, target = request.param
    if key == "own":
        path = OWN_SCHEMA
    else:
        corpus.require()
        path = corpus.newest(corpus.NEWEST[key])
    pkg = make_package(path, "open_" + key.replace("-", "_"), target=target, take_all=True)
    document = json.loads(path.read_text(encoding="utf-8"))
    name = notification_def(document)
    assert name is not None
    return Subject(f"{key}-{target}", pkg, document, name)


def _wire_attrs(obj: Any) -> dict[str, str] | None:
    """Wire name -> attribute of a generated model instance (either target), else None."""
    fields = getattr(type(obj), "__struct_fields__", None)
    if fields is not None:
        import msgspec

        return {f.encode_name: f.name for f in msgspec.structs.fields(type(obj))}
    model_fields = getattr(type(obj), "model_fields", None)
    if model_fields is not None:
        return {(info.alias or attr): attr for attr, info in model_fields.items()}
    if dataclasses.is_dataclass(obj):
        return {f.metadata.get("acp_wire", f.name): f.name for f in dataclasses.fields(obj)}
    return None


def _tag_field(obj: Any) -> str | None:
    config = getattr(obj, "__struct_config__", None)
    if config is not None:
        return config.tag_field  # type: ignore[no-any-return]
    tag = getattr(type(obj), "__acp_tag__", None)  # the dataclasses target: a class keyword
    if tag is not None:
        return tag[0]  # type: ignore[no-any-return]
    for attr, info in getattr(type(obj), "model_fields", {}).items():
        # the pydantic target writes a variant's tag first, as a one-value Literal field
        if str(info.annotation).startswith("typing.Literal") and info.alias and attr:
            return info.alias  # type: ignore[no-any-return]
        break
    return None


def _spots(raw: Any, decoded: Any, path: tuple[Any, ...], pkg: Any) -> list[tuple[Any, ...]]:
    """Paths in `raw` where an unknown value must be kept: union tags, open enum values."""
    out: list[tuple[Any, ...]] = []
    if isinstance(raw, list) and isinstance(decoded, list) and len(raw) == len(decoded):
        for i, (r, d) in enumerate(zip(raw, decoded, strict=True)):
            out += _spots(r, d, (*path, i), pkg)
        return out
    if isinstance(decoded, pkg._runtime.OpenStrEnum) and isinstance(raw, str):
        return [path]
    attrs = _wire_attrs(decoded)
    if not isinstance(raw, dict) or attrs is None:
        return out
    tag = _tag_field(decoded)
    if tag is not None and isinstance(raw.get(tag), str):
        out.append((*path, tag))
    for wire, attr in attrs.items():
        if wire in raw and wire != tag:
            out += _spots(raw[wire], getattr(decoded, attr), (*path, wire), pkg)
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]
    return {k: _replace(v, rest, new) if k == head else v for k, v in value.items()}


def _round_trip(pkg: Any, cls: Any, params: Any) -> Any:
    decoded = pkg.decode(dumps(params), cls)
    again = json.loads(pkg.encode(decoded))
    assert exact_json(again, params), (params, again)
    return decoded


@PROPERTY
@given(data=st.data())
def test_extras_unknown_tags_and_values_round_trip_exactly(
    subject: Subject, data: st.DataObject
) -> None:
    _, pkg, document, name = subject
    params = Instances(document, Drawn(data, extras=True), max_depth=6).of_def(name)
    cls = getattr(pkg, naming.class_name(name))
    decoded = _round_trip(pkg, cls, params)
    spots = _spots(params, decoded, (), pkg)
    if spots:
        chosen = data.draw(st.lists(st.sampled_from(spots), max_size=3, unique=True))
        mutated = params
        for spot in sorted(chosen, key=len, reverse=True):  # inner spots first
            mutated = _replace(mutated, spot, "_fuzz_future_value")
        _round_trip(pkg, cls, mutated)


def test_v1_package_decodes_every_unstable_update_kind(
    make_package: GenerateFn, target: str
) -> None:
    corpus.require()
    pkg = make_package(
        corpus.newest(corpus.NEWEST["v1"]), "open_v1_all", target=target, take_all=True
    )
    unstable = json.loads(corpus.newest(corpus.NEWEST["v1-unstable"]).read_text("utf-8"))
    seen: dict[str, str] = {}
    for index in range(union_size(unstable, "SessionUpdate")):
        update = Instances(unstable, Variant(index, True)).of_def("SessionUpdate")
        decoded = pkg.decode_update(dumps(update))
        assert exact_json(json.loads(pkg.encode(decoded)), update), update
        tag = update["sessionUpdate"]
        if tag in pkg.SESSION_UPDATE_VARIANTS:
            assert not isinstance(decoded, pkg.UnknownSessionUpdate), tag
        else:
            assert isinstance(decoded, pkg.UnknownSessionUpdate) and decoded.tag == tag
        seen[tag] = type(decoded).__name__
    unknown = [t for t, c in seen.items() if c == "UnknownSessionUpdate"]
    assert unknown, "the unstable schema should have update kinds the stable one lacks"


def test_opt_outs(make_package: GenerateFn, target: str) -> None:
    corpus.require()
    schema = corpus.newest(corpus.NEWEST["v1"])
    closed = make_package(
        schema, "open_v1_closed", target=target, closed_all=True, keep_unknown_fields=False
    )
    with pytest.raises(closed.DecodeError):
        closed.decode_update(b'{"sessionUpdate":"notice","title":"x"}')
    repairs: list[Any] = []
    paused = closed.decode_update(
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t","status":"paused"}', repairs=repairs
    )
    # closed, the unknown status is a bad value of a lenient field: dropped, and reported
    assert paused.status is closed.UNSET
    assert [(r.path, r.action, r.original) for r in repairs] == [
        ("$.status", "defaulted", "paused")
    ]
    kept = closed.decode_update(
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t","acmeNote":"x"}'
    )
    assert closed.extra_fields(kept) == {}
    assert b"acmeNote" not in closed.encode(kept)
    opened = make_package(schema, "open_v1_default", target=target)
    paused = opened.decode_update(
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t",'
        b'"status":"paused","acmeNote":"x","amount":0}'
    )
    assert paused.status == "paused" and paused.status.is_future
    assert opened.extra_fields(paused) == {"acmeNote": "x", "amount": 0}
    assert json.loads(opened.encode(paused))["amount"] == 0


def test_diff_still_reports_the_schema_s_own_openness() -> None:
    """Opening is a generation default, not a schema change: diff compares the schemas as
    they declare themselves, so opening and closing are still told apart."""
    from acp_codegen import build, load
    from acp_codegen.diff import compare

    fixtures = Path(__file__).resolve().parent / "diff_fixtures"
    for case, kind in (("union_opened", "union.opened"), ("enum_opened", "enum.opened")):
        old = build.build(load.load_path(fixtures / case / "old.json"), (), True)
        new = build.build(load.load_path(fixtures / case / "new.json"), (), True)
        assert kind in {c.kind for c in compare(old, new)}
        assert kind.replace("opened", "closed") in {c.kind for c in compare(new, old)}


def test_updates_with_undeclared_properties_dispatch_and_reduce(
    make_package: GenerateFn, target: str
) -> None:
    pkg = make_package(OWN_SCHEMA, "open_own_reduce", target=target)
    update = pkg.decode_update(
        b'{"sessionUpdate":"agent_message_chunk","messageId":"m1",'
        b'"content":{"type":"text","text":"hi","x-new":1},"x-top":[0]}'
    )
    assert isinstance(update, pkg.AgentMessageChunk)
    assert pkg.extra_fields(update) == {"x-top": [0]}
    assert pkg.extra_fields(update.content) == {"x-new": 1}
    seen: list[str] = []

    class Handler(pkg.SessionUpdateHandler):  # type: ignore[name-defined,misc]
        def on_agent_message_chunk(self, u: Any) -> None:
            seen.append(u.message_id)

    pkg.dispatch(update, Handler())
    assert seen == ["m1"]
    state = pkg.SessionState()
    state.apply(update)
    assert [block.text for block in state.get("agent_message", "m1").content] == ["hi"]
