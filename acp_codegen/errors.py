"""Errors shared by every pipeline stage.

A `SchemaError` is the one error type a stage raises for bad input. It carries a
human message and the JSON pointer (RFC 6901) of the schema node at fault, so the
CLI can print a single line such as
``error at schema.json#/$defs/SessionUpdate/anyOf/3: variant has no const "sessionUpdate"``.
"""

from __future__ import annotations


class SchemaError(Exception):
    """Bad input found while loading or building a schema."""

    def __init__(self, message: str, pointer: str = "", source: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.source = source

    def __str__(self) -> str:
        where = f"{self.source}#{self.pointer}" if self.source or self.pointer else ""
        line = f"error at {where}: {self.message}" if where else f"error: {self.message}"
        return printable(line)


def printable(text: str) -> str:
    """`text` with every unprintable character (newline, NUL, lone surrogate, ...) written as
    an escape, so a schema's property names can neither split nor break an error line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class UsageError(Exception):
    """A bad command-line argument or project configuration entry."""


def escape_pointer_token(token: str) -> str:
    """Escape one reference token for use in a JSON pointer."""
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a JSON pointer."""
    for token in tokens:
        text = token if type(token) is str else str(token)
        base += "/" + (escape_pointer_token(text) if "~" in text or "/" in text else text)
    return base
