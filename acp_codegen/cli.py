"""Command-line interface: ``acp-codegen`` (also ``python -m acp_codegen``).

Exit codes: 0 success, 1 generated files are stale (``check``), 2 bad input.
Bad input prints one line naming what and where, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from . import __version__, emit
from .errors import SchemaError, UsageError
from .pipeline import Job, generate

EXIT_STALE = 1
EXIT_BAD_INPUT = 2
DEFAULT_SCHEMA = Path("schema/session_update.schema.json")
DEFAULT_OUT = Path("generated/acp_session")
DEFAULT_PACKAGE = "acp_session"


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(EXIT_BAD_INPUT)


def handles_bad_input(func: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SchemaError as exc:
            _fail(str(exc))
        except UsageError as exc:
            _fail(f"error: {exc}")
        except (FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            _fail(f"error: cannot write output: {exc}")

    return wrapper


def _job(
    schema: Path | None,
    out: Path | None,
    package: str | None,
    roots: tuple[str, ...],
    take_all: bool,
) -> Job:
    if schema is None and out is None and package is None and not roots and not take_all:
        if not DEFAULT_SCHEMA.exists():
            raise UsageError(
                f"no --schema given and the default {DEFAULT_SCHEMA} does not exist "
                "here (run from the acp-codegen checkout, or pass --schema)"
            )
        return Job(DEFAULT_SCHEMA, DEFAULT_OUT, DEFAULT_PACKAGE, command="acp-codegen generate")
    if schema is None:
        raise UsageError("--schema is required when other options are given")
    out = (
        out if out is not None else Path("generated") / (package or DEFAULT_PACKAGE).split(".")[-1]
    )
    return Job(schema, out, package or out.name, roots, take_all)


_options = [
    click.option("--schema", type=click.Path(path_type=Path), help="JSON Schema file to read."),
    click.option("--out", type=click.Path(path_type=Path), help="Package directory to write."),
    click.option("--package", help="Dotted name the package is imported as."),
    click.option(
        "--root", "roots", multiple=True, help="Also generate this definition (repeatable)."
    ),
    click.option("--all", "take_all", is_flag=True, help="Generate every definition."),
]


def job_options(func: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="acp-codegen")
def main() -> None:
    """Generate typed Python bindings for ACP session/update from its JSON Schema."""


@main.command("generate")
@job_options
@click.option("--check", is_flag=True, help="Compare instead of writing; exit 1 when stale.")
@handles_bad_input
def generate_command(
    schema: Path | None,
    out: Path | None,
    package: str | None,
    roots: tuple[str, ...],
    take_all: bool,
    check: bool,
) -> None:
    """Generate a package from a schema.

    \b
    Examples:
      acp-codegen generate
      acp-codegen generate --schema schema.json --out src/app/acp --package app.acp
      acp-codegen generate --schema schema.json --out out/acp --package acp --all
    """
    job = _job(schema, out, package, roots, take_all)
    files = generate(job)
    if check:
        _check(job, files)
        return
    emit.write_tree(job.out, files)
    click.echo(f"wrote {len(files)} files to {job.out}")


@main.command("check")
@job_options
@handles_bad_input
def check_command(
    schema: Path | None,
    out: Path | None,
    package: str | None,
    roots: tuple[str, ...],
    take_all: bool,
) -> None:
    """Regenerate in memory and exit 1 with a diff if the package on disk is stale.

    \b
    Examples:
      acp-codegen check
      acp-codegen check --schema schema.json --out src/app/acp --package app.acp
    """
    job = _job(schema, out, package, roots, take_all)
    _check(job, generate(job))


def _check(job: Job, files: dict[str, str]) -> None:
    diff = emit.diff_tree(job.out, files)
    if not diff:
        click.echo(f"{job.out} is up to date")
        return
    click.echo(diff, nl=False)
    click.echo(f"\n{job.out} is out of date. Run: {job.regenerate_command()}", err=True)
    sys.exit(EXIT_STALE)


if __name__ == "__main__":  # pragma: no cover
    main()
