"""The msgspec target's slow path and hooks (copied in as ``_convert.py``).

Strict msgspec decoding runs first; only when it fails does `convert` walk the
decoded JSON to apply open unions, untagged default variants and the
``x-deserialize-*`` leniency flags, reporting errors with the variant, field
and path at fault. The msgspec hooks for open enums, unknown members and shape
unions live here too, since decoding a shape union is a walk.
"""

from __future__ import annotations

import types
import typing
from typing import Any, NamedTuple

import msgspec
from msgspec import UNSET, UnsetType

from ._base import (
    MAX_DEPTH,
    DecodeError,
    OpenIntEnum,
    OpenStrEnum,
    UnknownVariant,
    json_type,
    pick_member,
)
from ._unions import ShapeUnion, TaggedUnion, find_extra, union_spec

__all__ = ["convert", "dec_hook", "enc_hook"]


def dec_hook(tp: type[Any], obj: Any) -> Any:
    """msgspec decode hook for the custom types above."""
    if issubclass(tp, OpenStrEnum):
        if type(obj) is not str:
            raise TypeError(f"Expected `str`, got `{json_type(obj)}`")
        return tp(obj)
    if issubclass(tp, OpenIntEnum):
        if type(obj) is not int:
            raise TypeError(f"Expected `int`, got `{json_type(obj)}`")
        return tp(obj)
    if issubclass(tp, ShapeUnion):
        try:
            return _walk(obj, tp, "$", 0)
        except DecodeError as exc:
            raise ValueError(exc.message) from None
    raise NotImplementedError(f"no decoder for {tp!r}")


def enc_hook(obj: Any) -> Any:
    """msgspec encode hook: unknown variants write their raw payload back."""
    if isinstance(obj, UnknownVariant):
        return obj.raw
    if isinstance(obj, OpenStrEnum):
        return str.__str__(obj)
    if isinstance(obj, OpenIntEnum):
        return int(obj)
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


# -- slow path ------------------------------------------------------------------------------


class _FieldSpec(NamedTuple):
    attr: str
    wire: str
    type: Any
    required: bool
    lenient: bool
    on_error: Any


_FIELDS: dict[type[Any], tuple[_FieldSpec, ...]] = {}


def _field_specs(cls: type[msgspec.Struct]) -> tuple[_FieldSpec, ...]:
    specs = _FIELDS.get(cls)
    if specs is None:
        out = []
        for info in msgspec.structs.fields(cls):
            meta = find_extra(info.type, "acp_on_error")
            out.append(
                _FieldSpec(
                    info.name,
                    info.encode_name,
                    info.type,
                    info.required,
                    meta is not None,
                    meta.extra["acp_on_error"] if meta is not None and meta.extra else None,
                )
            )
        specs = _FIELDS[cls] = tuple(out)
    return specs


def convert(obj: Any, tp: Any, path: str = "$") -> Any:
    """Convert decoded JSON into `tp`, applying open unions and leniency.

    Tries strict msgspec conversion first and walks the value only where that
    fails, so well-formed parts cost what msgspec costs.
    """
    return _conv(obj, tp, path, 0)


def _conv(obj: Any, tp: Any, path: str, depth: int) -> Any:
    try:
        return msgspec.convert(obj, tp, dec_hook=dec_hook, strict=True)
    except msgspec.ValidationError:
        pass
    except RecursionError:
        raise DecodeError("value nests too deeply", path) from None
    return _walk(obj, tp, path, depth + 1)


def _walk(obj: Any, tp: Any, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise DecodeError("value nests too deeply", path)
    spec = union_spec(tp)
    if spec is not None:
        return _tagged(obj, spec, path, depth)
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        constraints = [m for m in metas if isinstance(m, msgspec.Meta) and not m.extra]
        if constraints and not _walkable(base):
            return _strict(obj, tp, path)
        if find_extra(tp, "acp_skip_invalid") is not None and isinstance(obj, list):
            result = _skip_invalid(obj, base, path, depth)
        else:
            result = _walk(obj, base, path, depth)
        if constraints:
            # Re-check size constraints (minItems and the like) on the walked value.
            shape = list[Any] if isinstance(result, list) else dict[str, Any]
            _strict(result, typing.Annotated[shape, *constraints], path)
        return result
    if origin in (typing.Union, types.UnionType):
        return _union(obj, typing.get_args(tp), path, depth)
    if origin is list:
        if not isinstance(obj, list):
            raise DecodeError(f"Expected `array`, got `{json_type(obj)}`", path)
        (item,) = typing.get_args(tp)
        return [_conv(v, item, f"{path}[{i}]", depth) for i, v in enumerate(obj)]
    if origin is dict:
        if not isinstance(obj, dict):
            raise DecodeError(f"Expected `object`, got `{json_type(obj)}`", path)
        value_type = typing.get_args(tp)[1]
        return {k: _conv(v, value_type, f"{path}.{k}", depth) for k, v in obj.items()}
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _struct(obj, tp, path, depth)
    if isinstance(tp, type) and issubclass(tp, ShapeUnion):
        return _union(obj, tp.MEMBERS, path, depth)
    return _strict(obj, tp, path)


def _walkable(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin in (list, dict, typing.Union, types.UnionType, typing.Annotated):
        return True
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct | ShapeUnion)


def _strict(obj: Any, tp: Any, path: str) -> Any:
    try:
        return msgspec.convert(obj, tp, dec_hook=dec_hook, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `$")
        raise DecodeError(message, path + where.rstrip("`")) from None


def _skip_invalid(obj: list[Any], tp: Any, path: str, depth: int) -> list[Any]:
    (item,) = typing.get_args(tp) or (Any,)
    out = []
    for i, value in enumerate(obj):
        try:
            out.append(_conv(value, item, f"{path}[{i}]", depth))
        except DecodeError:
            continue
    return out


def _union(obj: Any, members: tuple[Any, ...], path: str, depth: int) -> Any:
    return pick_member(obj, members, path, depth, _conv, _keeps_all, UnsetType)


def _keeps_all(obj: Any, value: Any) -> bool:
    """True when `value` encodes back to all of `obj`: no key dropped, no default used."""
    if not isinstance(obj, dict | list):
        return True
    try:
        return bool(msgspec.to_builtins(value, enc_hook=enc_hook) == obj)
    except (TypeError, NotImplementedError):
        return False


def _struct(obj: Any, cls: type[msgspec.Struct], path: str, depth: int) -> Any:
    if not isinstance(obj, dict):
        raise DecodeError(f"Expected `object`, got `{json_type(obj)}`", path)
    config = cls.__struct_config__
    tag_field = config.tag_field
    if tag_field is not None and tag_field in obj and obj[tag_field] != config.tag:
        raise DecodeError(f"Invalid value {obj[tag_field]!r}", f"{path}.{tag_field}")
    kwargs: dict[str, Any] = {}
    for spec in _field_specs(cls):
        if spec.wire not in obj:
            if spec.required:
                raise DecodeError(f"Object missing required field `{spec.wire}`", path)
            continue
        where = f"{path}.{spec.wire}"
        try:
            kwargs[spec.attr] = _conv(obj[spec.wire], spec.type, where, depth)
        except DecodeError:
            if not spec.lenient:
                raise
            if spec.on_error is not UNSET:
                kwargs[spec.attr] = _conv(spec.on_error, spec.type, where, depth)
    return cls(**kwargs)


def _tagged(obj: Any, spec: TaggedUnion, path: str, depth: int) -> Any:
    if not isinstance(obj, dict):
        raise DecodeError(f"Expected `object`, got `{json_type(obj)}`", path)
    if spec.tag_field not in obj:
        if spec.default is not None:
            return _conv(obj, spec.default, path, depth)
        raise DecodeError(f"Object missing required field `{spec.tag_field}`", path)
    tag = obj[spec.tag_field]
    if type(tag) is not str:
        raise DecodeError(f"Expected `str`, got `{json_type(tag)}`", f"{path}.{spec.tag_field}")
    target = spec.variants.get(tag)
    if target is None:
        if spec.unknown is not None:
            return spec.unknown(tag, obj)
        raise DecodeError(f"unknown {spec.name} tag {tag!r}", f"{path}.{spec.tag_field}")
    try:
        if isinstance(target, type) and issubclass(target, msgspec.Struct):
            return _conv(obj, target, path, depth)
        return _walk(obj, target, path, depth)
    except DecodeError as exc:
        label = target.__name__ if isinstance(target, type) else spec.name
        raise DecodeError(f"invalid {tag!r} ({label}): {exc.message}", exc.path) from None
