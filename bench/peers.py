"""The peers' decode and encode paths, written the way their users call them.

- The official SDK (``agent-client-protocol``, ACP v1): its own receive path is
  ``json.loads`` of the line and ``SessionNotification.model_validate`` of the
  params (its transport and router); its own send path is ``serialize_params``
  (``model_dump`` in JSON mode) wrapped in the envelope and ``json.dumps``. Its
  best path is pydantic's ``model_validate_json`` / ``model_dump_json`` on an
  envelope model around the SDK's ``SessionNotification``.
- datamodel-code-generator's pydantic v2 output for a v2 schema, called the same
  two ways.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, create_model

Decode = Callable[[bytes], Any]
Encode = Callable[[Any], bytes]


@dataclass(frozen=True)
class PydanticPaths:
    """How one set of pydantic models decodes and encodes a session/update line."""

    own_decode: Decode
    best_decode: Decode
    own_encode: Encode
    best_encode: Encode


def envelope(params: type[BaseModel]) -> type[BaseModel]:
    """A JSON-RPC ``session/update`` notification model around `params`."""
    model: type[BaseModel] = create_model(
        "SessionUpdateEnvelope",
        jsonrpc=(Literal["2.0"], ...),
        method=(Literal["session/update"], ...),
        params=(params, ...),
    )
    return model


def _paths(params: type[BaseModel], dump: Callable[[BaseModel], Any]) -> PydanticPaths:
    env = envelope(params)
    validate = params.model_validate
    validate_json = env.model_validate_json

    def own_decode(line: bytes) -> Any:
        return validate(json.loads(line)["params"])

    def best_decode(line: bytes) -> Any:
        message: Any = validate_json(line)
        return message.params

    def own_encode(obj: Any) -> bytes:
        message = {"jsonrpc": "2.0", "method": "session/update", "params": dump(obj)}
        return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")

    def best_encode(obj: Any) -> bytes:
        message = env(jsonrpc="2.0", method="session/update", params=obj)
        text = message.model_dump_json(by_alias=True, exclude_none=True, exclude_defaults=True)
        return text.encode("utf-8") + b"\n"

    return PydanticPaths(own_decode, best_decode, own_encode, best_encode)


def sdk() -> PydanticPaths:
    """The official SDK's paths (imports ``acp``)."""
    from acp.schema import SessionNotification
    from acp.utils import serialize_params

    return _paths(SessionNotification, serialize_params)


def sdk_import_statement() -> str:
    return "import acp.schema"


def dmc(module: ModuleType) -> PydanticPaths:
    """Paths over datamodel-code-generator output for a v2 schema."""
    params: type[BaseModel] = module.UpdateSessionNotification

    def dump(obj: BaseModel) -> Any:
        return obj.model_dump(mode="json", by_alias=True, exclude_none=True)

    return _paths(params, dump)


def dmc_understands(decoded: Any) -> bool:
    """Whether a decoded v2 notification landed in a known variant, not the catch-all."""
    update = decoded.update
    while "root" in type(update).model_fields:
        update = update.root
    annotation = type(update).model_fields["sessionUpdate"].annotation
    return annotation is not str
