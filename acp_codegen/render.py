"""Stage 4, render: fill the jinja2 templates from a target view.

Takes the `View` made by a target's lowering step and returns a mapping of
relative file paths to source text. The environment is strict: a missing value
is an error (`StrictUndefined`), never an empty string. Schema text reaches the
output only through the `docstring`, `docline`, `comment` and `pystr` filters,
which turn any string into inert Python string-literal or comment data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jinja2

from . import __version__


@dataclass(frozen=True)
class Provenance:
    """What the headers and ``_provenance.py`` record (only the latter has the hash)."""

    schema_name: str
    command: str
    #: sha256 of the canonical schema and `options` (see `provenance.input_sha256`).
    input_sha256: str = ""
    #: The job options that shape the output, as plain data.
    options: tuple[tuple[str, Any], ...] = ()
    version: str = __version__


def pystr(text: str) -> str:
    """A Python string literal holding `text` exactly."""
    return repr(text)


def _pyrepr(value: Any) -> str:
    """A Python literal for plain data (tuples of tuples, strings, numbers, None)."""
    if isinstance(value, list):
        value = tuple(tuple(v) if isinstance(v, list | tuple) else v for v in value)
    return repr(value)


def _escape_char(ch: str) -> str:
    if ch in "\n\t " or ch.isprintable():
        return ch
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def docstring(text: str, indent: str = "    ") -> str:
    """A triple-quoted docstring holding `text`; nothing in it can end the literal."""
    body = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    body = "".join(_escape_char(ch) for ch in body.replace("\r\n", "\n").replace("\r", "\n"))
    body = "\n".join(line.rstrip() for line in body.split("\n"))
    if body.endswith('"') and (len(body) - len(body[:-1].rstrip("\\"))) % 2 == 1:
        # A final quote not already escaped (an even run of backslashes before it)
        # would merge with the closing quotes.
        body = body[:-1] + '\\"'
    if "\n" in body:
        body = body.replace("\n", "\n" + indent).replace("\n" + indent + "\n", "\n\n")
        body = body + "\n" + indent
    return f'"""{body}"""'


def docline(text: str) -> str:
    """Schema text for the inside of a one-line docstring: whitespace runs (newlines too)
    become one space and it is escaped as `docstring` escapes, so it cannot end the literal."""
    return docstring(" ".join(text.split()))[3:-3]


def comment(text: str) -> str:
    """Schema text as a ``#`` comment block, one line per input line."""
    lines = text.strip().replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(("# " + "".join(_escape_char(c) for c in line)).rstrip() for line in lines)


@functools.cache
def environment() -> jinja2.Environment:
    """The one strict environment; cached, so templates compile once per process."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("acp_codegen", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["docstring"] = docstring
    env.filters["docline"] = docline
    env.filters["pystr"] = pystr
    env.filters["comment"] = comment
    env.filters["pyrepr"] = _pyrepr
    env.filters["dictrepr"] = lambda pairs: repr(dict(pairs))
    env.filters["zip"] = lambda left, right: zip(left, right, strict=True)
    return env


def runtime_source(name: str = "_runtime.py") -> str:
    """The text of a hand-written runtime file shipped in ``acp_codegen/runtime/``."""
    return resources.files("acp_codegen").joinpath("runtime", name).read_text("utf-8")


def render(templates: dict[str, str], context: dict[str, Any]) -> dict[str, str]:
    """Render each ``output path -> template name`` pair with one shared context."""
    env = environment()
    return {path: env.get_template(name).render(**context) for path, name in templates.items()}


def header(provenance: Provenance) -> str:
    """The provenance header every generated file starts with."""
    return environment().get_template("header.j2").render(provenance=provenance)
