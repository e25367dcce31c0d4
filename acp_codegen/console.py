"""Terminal output shared by every CLI command: verbosity, colour, progress, bad input.

Commands print through a `Console`, which knows three levels (``--quiet``: errors
and stale notices only; normal; ``--verbose``: also timings and details on
stderr). Colour is used only when the stream is a terminal and ``NO_COLOR`` is
unset or empty (https://no-color.org). `handles_bad_input` turns every
expected failure into one line on stderr and exit code 2.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TextIO

import click

from .errors import SchemaError, UsageError

EXIT_STALE = 1
EXIT_BAD_INPUT = 2
#: What a shell reports for a program that SIGPIPE ended: a closed pipe is no error of ours.
EXIT_CLOSED_PIPE = 141
_META = "acp_codegen.verbosity."


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """`text` with every control character but newline and tab written as ``\\u00XX``,
    so schema text (titles, names, paths) can never send an escape sequence to a
    terminal. The spelling is a JSON escape too, so JSON output stays valid."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def color_enabled(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[_META + str(param.name)] = True
    return value


def overlay_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--overlay FILE`` (repeatable), the same option on every command that reads a schema."""
    return click.option(
        "--overlay",
        "overlays",
        multiple=True,
        type=click.Path(path_type=Path),
        help=f"Apply this x-acp-* annotation overlay to {what} (repeatable).",
    )


def output_options(
    func: Callable[..., Any] | None = None, *, quiet: str = "Print only errors and stale notices."
) -> Any:
    """Add ``-q/--quiet`` and ``-v/--verbose``; accepted on the group and on commands.

    `quiet` says what ``--quiet`` keeps for the command at hand (``@output_options(quiet=...)``).
    """

    def add(func: Callable[..., Any]) -> Callable[..., Any]:
        func = click.option(
            "-v",
            "--verbose",
            is_flag=True,
            expose_value=False,
            callback=_remember,
            help="Also print details and timings (on stderr).",
        )(func)
        return click.option(
            "-q", "--quiet", is_flag=True, expose_value=False, callback=_remember, help=quiet
        )(func)

    return add if func is None else add(func)


class Console:
    """Where commands print; built inside a command so it sees that command's streams."""

    def __init__(self, verbosity: int = 1) -> None:
        self.verbosity = verbosity
        self.stdout = sys.stdout
        self.stderr = sys.stderr
        self.out_color = color_enabled(self.stdout)
        self.err_color = color_enabled(self.stderr)
        self._progress_open = False

    @classmethod
    def current(cls) -> Console:
        meta = click.get_current_context().meta
        quiet, verbose = meta.get(_META + "quiet"), meta.get(_META + "verbose")
        if quiet and verbose:
            raise UsageError("--quiet and --verbose cannot be used together")
        return cls(0 if quiet else 2 if verbose else 1)

    def info(self, message: str, fg: str | None = None) -> None:
        if self.verbosity >= 1:
            self._end_progress()
            click.echo(click.style(safe(message), fg=fg), color=self.out_color)

    def detail(self, message: str) -> None:
        if self.verbosity >= 2:
            self._end_progress()
            click.echo(click.style(safe(message), dim=True), err=True, color=self.err_color)

    def warn(self, message: str) -> None:
        """A line on stderr about the result (not an error); ``--quiet`` drops it."""
        if self.verbosity >= 1:
            self._end_progress()
            click.echo(click.style(message, fg="yellow"), err=True, color=self.err_color)

    def notice(self, message: str, fg: str = "yellow") -> None:
        """A line on stderr that even ``--quiet`` keeps (a stale package)."""
        self._end_progress()
        click.echo(click.style(safe(message), fg=fg), err=True, color=self.err_color)

    def output(self, text: str) -> None:
        """Plain machine-readable output on stdout; printed at every verbosity."""
        click.echo(safe(text), nl=not text.endswith("\n"), color=False)

    def diff(self, text: str) -> None:
        if self.verbosity < 1 or not text:
            return
        self._end_progress()
        for line in text.splitlines(keepends=True):
            fg = None
            if line.startswith(("+++", "---")):
                fg = "bright_white"
            elif line.startswith("+"):
                fg = "green"
            elif line.startswith("-"):
                fg = "red"
            elif line.startswith("@@"):
                fg = "cyan"
            body = safe(line.rstrip("\n"))
            click.echo(
                click.style(body, fg=fg) if fg else body,
                nl=line.endswith("\n"),
                color=self.out_color,
            )

    def progress(self, index: int, total: int, label: str) -> None:
        """``[index/total] label`` on stderr when there is more than one job.

        On a terminal the line is rewritten in place; elsewhere each step gets a line.
        """
        if total < 2 or self.verbosity < 1:
            return
        text = safe(f"[{index}/{total}] {label}")
        if self.stderr.isatty():
            click.echo(f"\r\x1b[2K{text}", nl=False, err=True)
            self._progress_open = True
        else:
            click.echo(text, err=True)

    def _end_progress(self) -> None:
        if self._progress_open:
            click.echo("\r\x1b[2K", nl=False, err=True)
            self._progress_open = False

    def done(self) -> None:
        self._end_progress()


def fail(message: str) -> None:
    """Print one error line on stderr and exit 2."""
    stderr = sys.stderr
    click.echo(click.style(safe(message), fg="red"), err=True, color=color_enabled(stderr))
    sys.exit(EXIT_BAD_INPUT)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file behind stdout (a test runner's buffer)
        pass


def handles_bad_input(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command body so that every expected failure is one line and exit 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SchemaError as exc:
            fail(str(exc))
        except UsageError as exc:
            fail(f"error: {exc}")
        except BrokenPipeError:  # the reader went away (``| head``): end quietly, as cat does
            _silence_stdout()
            sys.exit(EXIT_CLOSED_PIPE)
        except (FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
            fail(f"error: cannot write output: {exc}")
        except OSError as exc:  # a full disk, a read-only file system, ...
            fail(f"error: {exc}")

    return wrapper
