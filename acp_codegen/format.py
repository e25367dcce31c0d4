"""Stage 5, format: run the pinned ruff formatter over rendered sources.

Takes ``relative path -> source`` and returns the same mapping formatted. All
files go through one ``ruff format`` process in a scratch directory, with
``--isolated`` so no configuration on the user's machine changes the bytes.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import SchemaError

LINE_LENGTH = 100


def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def format_sources(files: dict[str, str]) -> dict[str, str]:
    """Format every ``*.py`` entry; other entries pass through unchanged."""
    py = {path: text for path, text in files.items() if path.endswith(".py")}
    if not py:
        return dict(files)
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
            f"--line-length={LINE_LENGTH}",
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
        out = dict(files)
        for path in py:
            out[path] = (root / path).read_text(encoding="utf-8")
    return out


if __name__ == "__main__":  # pragma: no cover - debugging aid
    print(ruff_binary(), file=sys.stderr)
