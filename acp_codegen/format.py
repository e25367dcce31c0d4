"""Stage 5, format: run the chosen formatter over rendered sources.

Takes ``relative path -> source`` and returns the same mapping formatted with
``ruff`` (the default; the pinned ruff, one ``ruff format`` process over a scratch
directory, ``--isolated`` so no configuration on the user's machine changes the
bytes), ``black`` (the optional extra ``acp-codegen[black]``, run in process with
its defaults), or ``none`` (the rendered text as is). Both formatters get the job's
line length and Python 3.11 as the target, so one job always gives the same bytes.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from . import installs
from .errors import SchemaError, UsageError

#: ``ruff`` runs the pinned ruff; ``black`` needs the ``black`` extra; ``none`` formats nothing.
FORMATTERS = ("ruff", "black", "none")
LINE_LENGTH = 100
#: The line lengths a job may ask for.
LINE_LENGTHS = range(40, 321)


def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def require(formatter: str) -> None:
    """Raise a one-line `UsageError` unless `formatter` can run here."""
    if formatter not in FORMATTERS:
        raise UsageError(f"unknown formatter {formatter!r} (available: {', '.join(FORMATTERS)})")
    if formatter == "black" and importlib.util.find_spec("black") is None:
        command = installs.install_hint(installs.requirement("black", "black"))
        raise UsageError(
            f"--formatter black needs black, which is not installed; run: {command} "
            "(or choose --formatter ruff)"
        )


def format_sources(
    files: dict[str, str], formatter: str = "ruff", line_length: int = LINE_LENGTH
) -> dict[str, str]:
    """Format every ``*.py`` entry; other entries pass through unchanged."""
    require(formatter)
    py = {path: text for path, text in files.items() if path.endswith(".py")}
    if not py or formatter == "none":
        return dict(files)
    formatted = _black(py, line_length) if formatter == "black" else _ruff(py, line_length)
    return {**files, **formatted}


def _black(py: dict[str, str], line_length: int) -> dict[str, str]:
    import black
    from black.mode import TargetVersion

    mode = black.Mode(target_versions={TargetVersion.PY311}, line_length=line_length)
    out = {}
    for path, text in py.items():
        try:
            out[path] = black.format_str(text, mode=mode)
        except Exception as exc:  # black raises its own InvalidInput and friends
            raise SchemaError(
                f"generated code did not format (a generator bug): {path}: {exc}"
            ) from None
    return out


def _ruff(py: dict[str, str], line_length: int) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="acp-codegen-fmt-") as scratch:
        root = Path(scratch)
        for path, text in py.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
        command = [
            ruff_binary(),
            "format",
            "--isolated",
            "--no-cache",
            f"--line-length={line_length}",
            "--target-version=py311",
            "--quiet",
            ".",
        ]
        result = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise SchemaError(
                "generated code did not format (a generator bug): "
                + (detail[0] if detail else f"ruff exit {result.returncode}")
            )
        return {path: (root / path).read_text(encoding="utf-8") for path in py}


if __name__ == "__main__":  # pragma: no cover - debugging aid
    print(ruff_binary(), file=sys.stderr)
