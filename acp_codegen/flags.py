"""The job flags every job command shares, and the jobs they select.

Used by `cli` (``generate``, ``check``) and `upgrade`: `job_options` adds the flags
to a click command, and `select_jobs` turns what they were given into the jobs to
run, from the project's ``[tool.acp-codegen]`` configuration (see `config`) with the
flags overriding its keys, or from the flags alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import config
from .config import NamedJob, Overrides
from .format import LINE_LENGTH, LINE_LENGTHS
from .keywords import ALLOWABLE
from .pipeline import FORMATTERS, TARGETS

__all__ = ["job_options", "select_jobs"]


def _options(verb: str) -> list[Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """The job flags; `verb` says what happens to ``--out`` ("write" or "compare with")."""
    return [
        click.option(
            "--job",
            "job_names",
            multiple=True,
            metavar="NAME",
            help="Run only this configured job (repeatable). [default: every job]",
        ),
        click.option(
            "--config",
            "config_path",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Read jobs from this TOML file. [default: the nearest pyproject.toml]",
        ),
        click.option(
            "--schema",
            "schemas",
            multiple=True,
            metavar="[N=]PATH",
            help="JSON Schema file to read; N=PATH once per protocol version (--schema "
            "1=v1.json --schema 2=v2.json) generates one package of those versions.",
        ),
        click.option(
            "--out",
            type=click.Path(path_type=Path),
            help=f"Package directory to {verb}. [default: the job's out key, else "
            "generated/<last part of --package>, generated/acp without one]",
        ),
        click.option(
            "--package",
            help="Dotted name the package is imported as. [default: the job's package key, "
            "else the last part of --out]",
        ),
        click.option(
            "--root",
            "roots",
            multiple=True,
            metavar="DEF",
            help="Also generate this definition (repeatable).",
        ),
        click.option("--all", "take_all", is_flag=True, help="Generate every definition."),
        click.option(
            "--overlay",
            "overlays",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Apply this x-acp-* annotation overlay to the schema (repeatable); "
            "replaces the built-in overlay.",
        ),
        click.option(
            "--no-builtin-overlay",
            is_flag=True,
            help="Do not annotate a published schema with the built-in v1/v2 overlay "
            "(the package then has no SessionState).",
        ),
        click.option(
            "--templates",
            type=click.Path(path_type=Path),
            metavar="DIR",
            help="Use the templates in DIR in place of the built-in ones of the same file "
            "name (models.py.j2, header.j2, ...).",
        ),
        click.option(
            "--target",
            type=click.Choice(tuple(TARGETS)),
            help="Model library of the package. [default: msgspec]",
        ),
        click.option(
            "--closed",
            "closed_all",
            is_flag=True,
            help="Keep the schema's own openness: unions and enums it closes reject unknown "
            "values. [default: every union and enum is open]",
        ),
        click.option(
            "--closed-type",
            "closed",
            multiple=True,
            metavar="NAME",
            help="Keep the schema's own openness for this union or enum only (repeatable).",
        ),
        click.option(
            "--drop-unknown-fields",
            is_flag=True,
            help="Drop undeclared object properties on decode instead of keeping them.",
        ),
        click.option(
            "--allow-unenforced",
            "allow_unenforced",
            multiple=True,
            type=click.Choice(ALLOWABLE),
            metavar="KEYWORD",
            help="Generate although the schema uses this validation keyword, which no target "
            "enforces (repeatable; each use is warned about and recorded in _provenance.py). "
            f"One of: {', '.join(ALLOWABLE)}.",
        ),
        click.option(
            "--formatter",
            type=click.Choice(FORMATTERS),
            help="Format with the pinned ruff, with the pinned black (installed beside "
            "acp-codegen: the error names the command), or not at all. [default: ruff]",
        ),
        click.option(
            "--line-length",
            type=click.IntRange(LINE_LENGTHS.start, LINE_LENGTHS.stop - 1),
            help=f"Line length the formatter keeps to. [default: {LINE_LENGTH}]",
        ),
    ]


def job_options(verb: str = "write") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(_options(verb)):
            func = option(func)
        return func

    return decorate


def select_jobs(kwargs: dict[str, Any]) -> list[NamedJob]:
    schema, versions = config.parse_schemas(kwargs["schemas"])
    flags = Overrides(
        schema=schema,
        versions=versions,
        out=kwargs["out"],
        package=kwargs["package"],
        roots=kwargs["roots"],
        take_all=kwargs["take_all"],
        target=kwargs["target"],
        formatter=kwargs["formatter"],
        overlays=kwargs["overlays"],
        line_length=kwargs["line_length"],
        no_builtin_overlay=kwargs["no_builtin_overlay"],
        templates=kwargs["templates"],
        closed_all=kwargs["closed_all"],
        closed=kwargs["closed"],
        drop_unknown_fields=kwargs["drop_unknown_fields"],
        allow_unenforced=kwargs["allow_unenforced"],
    )
    loaded = config.load(kwargs["config_path"])
    return config.select(loaded, kwargs["job_names"], flags)
