"""``acp-codegen conformance TRANSCRIPT``: check recorded traffic without a package of one's own.

Generates the package of ``--schema`` (by default the schema that ships with acp-codegen)
into a temporary folder, imports it and runs its ``conformance`` command line, so the
findings, output and exit codes are those of ``python -m <package>.conformance``.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import click

from . import emit
from .config import parse_schemas
from .console import handles_bad_input
from .errors import UsageError
from .pipeline import Job, generate
from .targets import TARGETS

__all__ = ["conformance_command"]

#: The name the temporary package is imported under.
PACKAGE = "acp_conformance_check"


SCHEMA_FILE = "session_update.schema.json"


def default_schema() -> Path:
    """The schema shipped with acp-codegen: in the wheel ``acp_codegen/schema``, in a
    checkout the repository's ``schema/``."""
    packaged = resources.files("acp_codegen").joinpath("schema", SCHEMA_FILE)
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "schema" / SCHEMA_FILE


@click.command("conformance")
@click.argument("transcript", type=click.Path(path_type=Path))
@click.option(
    "--schema",
    "schemas",
    multiple=True,
    metavar="[N=]PATH",
    help="Check with the package of this schema, or (repeated as --schema 1=PATH "
    "--schema 2=PATH) of these versions, picked from the recording's initialize. "
    "[default: the schema acp-codegen ships]",
)
@click.option(
    "--target",
    type=click.Choice(tuple(TARGETS)),
    default="msgspec",
    show_default=True,
    help="Model library of the package that checks.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    help="One finding per line, or one JSON document. [default: text]",
)
@click.option(
    "--protocol",
    type=click.Choice(["1", "2"]),
    help="Protocol version. [default: the transcript's initialize, else the schema's]",
)
@click.option(
    "--partial",
    is_flag=True,
    help="The recording stops mid-work: do not report work still active at its end.",
)
@click.option(
    "--max-line",
    metavar="SIZE",
    default="64M",
    show_default=True,
    help="Refuse a line longer than this (64M, 512k or a number of bytes).",
)
@handles_bad_input
def conformance_command(
    transcript: Path,
    schemas: tuple[str, ...],
    target: str,
    fmt: str,
    protocol: str | None,
    partial: bool,
    max_line: str,
) -> None:
    """Check a JSONL transcript against the rules of the v2 prompt lifecycle.

    \b
    Each line is one JSON-RPC message, or {"direction": ..., "message": ...};
    TRANSCRIPT - reads standard input.
    Exit codes: 0 no MUST broken; 1 a MUST broken; 2 not a recording;
    3 no message.

    \b
    Examples:
      acp-codegen conformance session.jsonl
      acp-codegen conformance session.jsonl --schema schema/v2/schema.json --format json
      acp-codegen conformance session.jsonl --schema 1=v1.json --schema 2=v2.json
    """
    schema, versions = parse_schemas(schemas)
    schema = schema or default_schema()
    argv = [str(transcript), "--format", fmt, *(["--protocol", protocol] if protocol else [])]
    argv += ["--partial"] if partial else []
    argv += ["--max-line", max_line]
    notes: list[str] = []
    job = Job(schema, Path(PACKAGE), PACKAGE, target=target, formatter="none", versions=versions)
    files = generate(job, notes)
    if "conformance.py" not in files:
        why = notes[-1] if notes else "the schema describes no SessionState"
        raise UsageError(f"nothing to check against: {why}")
    with tempfile.TemporaryDirectory() as folder:
        emit.write_tree(Path(folder) / PACKAGE, files)
        sys.path.insert(0, folder)
        try:
            module: Any = importlib.import_module(PACKAGE + ".conformance")
            code = module.main(argv, prog="acp-codegen conformance")
        finally:
            sys.path.remove(folder)
    sys.exit(code)
