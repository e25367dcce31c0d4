"""Stage 4, render: fill the jinja2 templates from a target view.

Takes the `View` made by a target's lowering step and returns a mapping of
relative file paths to source text. Templates live in the top-level
``templates/`` folder (shipped in the wheel as ``acp_codegen/templates``): a
bare name such as ``models.py.j2`` is looked up in a user's override folder,
then ``templates/<target>/``, then ``templates/common/``; a name with a folder
(``common/models.py.j2``, for a template extending another) is taken as is.
The environment is strict: a missing value is an error (`StrictUndefined`),
never an empty string. Schema text reaches the output only through the
`docstring`, `docline`, `comment` and `pystr` filters, which turn any string
into inert Python string-literal or comment data.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from . import __version__
from .errors import SchemaError, UsageError
from .load import read_capped


@dataclass(frozen=True)
class Provenance:
    """What the headers and ``_provenance.py`` record (only the latter has the hash)."""

    schema_name: str
    command: str
    #: sha256 of the canonical schema and `options` (see `provenance.input_sha256`).
    input_sha256: str = ""
    #: The job options that shape the output, as plain data.
    options: tuple[tuple[str, Any], ...] = ()
    #: ``(keyword, pointer)`` of validation let through unenforced (``--allow-unenforced``).
    unenforced: tuple[tuple[str, str], ...] = ()
    #: What the schema file's lock says it is (source, version, url, sha256); see `lock`.
    lock: tuple[tuple[str, str], ...] = ()
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


def _escaped(text: str) -> str:
    """`text` with every character that is not printable (newline, tab, space aside)
    written as an escape."""
    if text.isprintable():
        return text
    return "".join(_escape_char(ch) for ch in text)


def docstring(text: str, indent: str = "    ") -> str:
    """A triple-quoted docstring holding `text`; nothing in it can end the literal."""
    body = text.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    body = "\n".join(_escaped(line).rstrip() for line in lines)
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
    return "\n".join(("# " + _escaped(line)).rstrip() for line in lines)


def templates_root() -> Path:
    """The folder holding ``common/`` and one folder per target."""
    packaged = resources.files("acp_codegen").joinpath("templates")
    if packaged.joinpath("common").is_dir():
        return Path(str(packaged))
    # A source checkout or editable install: the repository's top-level folder.
    return Path(__file__).resolve().parent.parent / "templates"


class TemplateLoader(jinja2.BaseLoader):
    """Bare names: the override folder, then the target's folder, then ``common``."""

    def __init__(self, target: str, override: Path | None) -> None:
        self.root = templates_root()
        self.search = ([override] if override else []) + [
            self.root / target,
            self.root / "common",
        ]

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        if "/" in template:
            candidates = [self.root / template]
        else:
            candidates = [folder / template for folder in self.search]
        for path in candidates:
            if path.is_file():
                mtime = path.stat().st_mtime
                text = read_template(path)
                return text, str(path), lambda p=path, m=mtime: p.stat().st_mtime == m
        raise jinja2.TemplateNotFound(template)


def read_template(path: Path) -> str:
    """A template's text, read through the capped reader; a fault is a one-line error."""
    try:
        return read_capped(path, "template").decode("utf-8")
    except SchemaError as exc:
        raise UsageError(f"template {path}: {exc.message}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"template {path}: not UTF-8 text (byte {exc.start})") from None


def template_names(target: str) -> list[str]:
    """The file names an override folder may replace for `target`."""
    root = templates_root()
    names = {p.name for folder in (root / target, root / "common") for p in folder.glob("*.j2")}
    return sorted(names)


def check_override(target: str, folder: Path) -> None:
    """Refuse an override folder that is missing or holds a file no template is named."""
    if not folder.is_dir():
        raise UsageError(f"--templates {folder}: not a folder")
    known = template_names(target)
    for path in sorted(folder.iterdir()):
        if path.name not in known:
            raise UsageError(
                f"--templates {folder}: {path.name!r} replaces no {target} template "
                f"(known: {', '.join(known)})"
            )
        if not path.is_file():
            raise UsageError(f"--templates {folder}: {path.name!r} is not a regular file")


def override_digests(target: str, folder: Path) -> dict[str, str]:
    """``file name -> sha256`` of each template an override folder replaces."""
    check_override(target, folder)
    return {
        path.name: hashlib.sha256(read_template(path).encode("utf-8")).hexdigest()
        for path in sorted(folder.iterdir())
    }


@functools.cache
def environment(target: str = "msgspec", override: Path | None = None) -> jinja2.Environment:
    """The strict environment of one target (and override folder); cached, so templates
    compile once per process."""
    env = jinja2.Environment(
        loader=TemplateLoader(target, override),
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


def render(
    modules: tuple[str, ...],
    context: dict[str, Any],
    target: str = "msgspec",
    override: Path | None = None,
) -> dict[str, str]:
    """Render each generated module ``<file>`` from its template ``<file>.j2``."""
    env = environment(target, override)
    out: dict[str, str] = {}
    for name in modules:
        try:
            out[name] = env.get_template(name + ".j2").render(**context)
        except jinja2.TemplateError as exc:
            if override is None:
                raise  # a built-in template is wrong: a generator bug, with its traceback
            where = (
                f"{exc.filename}:{exc.lineno}"
                if isinstance(exc, jinja2.TemplateSyntaxError)
                else name + ".j2"
            )
            raise UsageError(f"template {where}: {exc.message or type(exc).__name__}") from None
    return out


def header(provenance: Provenance, target: str = "msgspec", override: Path | None = None) -> str:
    """The provenance header every generated file starts with."""
    return environment(target, override).get_template("header.j2").render(provenance=provenance)
