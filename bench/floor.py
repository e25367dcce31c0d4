"""The floor: a hand-written msgspec tagged union of the ACP v1 ``session/update`` messages.

This is what a careful person would write by hand for speed, and so the least a
typed decode can cost in Python: plain `msgspec.Struct` classes, native tagged
unions on ``sessionUpdate`` and ``type``, plain ``str`` for enum values, no open
unions, no leniency and no slow path. It covers every variant and field of the
v1 schema's ``SessionNotification`` (2026-08-20) that a typed decoder must read;
the embedded resource's text/blob pair is folded into one struct, as msgspec
cannot tell two untagged structs apart.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

Meta = dict[str, Any] | None | UnsetType


class _Base(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    meta: Meta = msgspec.field(default=UNSET, name="_meta")


class Annotations(_Base, kw_only=True):
    audience: list[str] | None | UnsetType = UNSET
    last_modified: str | None | UnsetType = UNSET
    priority: float | None | UnsetType = UNSET


class _Block(_Base, tag_field="type", kw_only=True):
    annotations: Annotations | None | UnsetType = UNSET


class TextContent(_Block, tag="text", kw_only=True):
    text: str


class ImageContent(_Block, tag="image", kw_only=True):
    data: str
    mime_type: str
    uri: str | None | UnsetType = UNSET


class AudioContent(_Block, tag="audio", kw_only=True):
    data: str
    mime_type: str


class ResourceLink(_Block, tag="resource_link", kw_only=True):
    uri: str
    name: str
    description: str | None | UnsetType = UNSET
    mime_type: str | None | UnsetType = UNSET
    size: int | None | UnsetType = UNSET
    title: str | None | UnsetType = UNSET


class ResourceContents(_Base, kw_only=True):
    uri: str
    mime_type: str | None | UnsetType = UNSET
    text: str | UnsetType = UNSET
    blob: str | UnsetType = UNSET


class EmbeddedResource(_Block, tag="resource", kw_only=True):
    resource: ResourceContents


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


class Content(_Base, tag_field="type", tag="content", kw_only=True):
    content: ContentBlock


class Diff(_Base, tag_field="type", tag="diff", kw_only=True):
    path: str
    new_text: str
    old_text: str | None | UnsetType = UNSET


class Terminal(_Base, tag_field="type", tag="terminal", kw_only=True):
    terminal_id: str


ToolCallContent = Content | Diff | Terminal


class ToolCallLocation(_Base, kw_only=True):
    path: str
    line: int | None | UnsetType = UNSET


class _Update(_Base, tag_field="sessionUpdate", kw_only=True):
    pass


class _Chunk(_Update, kw_only=True):
    content: ContentBlock
    message_id: str | None | UnsetType = UNSET


class UserMessageChunk(_Chunk, tag="user_message_chunk", kw_only=True):
    pass


class AgentMessageChunk(_Chunk, tag="agent_message_chunk", kw_only=True):
    pass


class AgentThoughtChunk(_Chunk, tag="agent_thought_chunk", kw_only=True):
    pass


class ToolCall(_Update, tag="tool_call", kw_only=True):
    tool_call_id: str
    title: str
    kind: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    content: list[ToolCallContent] | UnsetType = UNSET
    locations: list[ToolCallLocation] | UnsetType = UNSET
    raw_input: Any = UNSET
    raw_output: Any = UNSET


class ToolCallUpdate(_Update, tag="tool_call_update", kw_only=True):
    tool_call_id: str
    kind: str | None | UnsetType = UNSET
    status: str | None | UnsetType = UNSET
    title: str | None | UnsetType = UNSET
    content: list[ToolCallContent] | None | UnsetType = UNSET
    locations: list[ToolCallLocation] | None | UnsetType = UNSET
    raw_input: Any = UNSET
    raw_output: Any = UNSET


class PlanEntry(_Base, kw_only=True):
    content: str
    priority: str
    status: str


class Plan(_Update, tag="plan", kw_only=True):
    entries: list[PlanEntry]


class CommandInput(_Base, kw_only=True):
    hint: str


class AvailableCommand(_Base, kw_only=True):
    name: str
    description: str
    input: CommandInput | None | UnsetType = UNSET


class AvailableCommandsUpdate(_Update, tag="available_commands_update", kw_only=True):
    available_commands: list[AvailableCommand]


class CurrentModeUpdate(_Update, tag="current_mode_update", kw_only=True):
    current_mode_id: str


class ConfigOptionUpdate(_Update, tag="config_option_update", kw_only=True):
    config_options: list[dict[str, Any]]


class SessionInfoUpdate(_Update, tag="session_info_update", kw_only=True):
    title: str | None | UnsetType = UNSET
    updated_at: str | None | UnsetType = UNSET


class Cost(_Base, kw_only=True):
    amount: float
    currency: str


class UsageUpdate(_Update, tag="usage_update", kw_only=True):
    used: int
    size: int
    cost: Cost | None | UnsetType = UNSET


SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCall
    | ToolCallUpdate
    | Plan
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)


class SessionNotification(_Base, kw_only=True):
    session_id: str
    update: SessionUpdate


class Envelope(msgspec.Struct, kw_only=True):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: SessionNotification


_DECODE = msgspec.json.Decoder(Envelope).decode
_ENCODE = msgspec.json.Encoder().encode


def decode_notification(data: bytes) -> SessionNotification:
    return _DECODE(data).params


def encode_notification(params: SessionNotification) -> bytes:
    """One newline-terminated JSON-RPC line, framed as the SDK and ours frame it."""
    return _ENCODE(Envelope(jsonrpc="2.0", method="session/update", params=params)) + b"\n"
