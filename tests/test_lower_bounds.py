"""The dependency ranges in pyproject.toml and the lower bounds CI installs agree.

``.ci/run`` makes a second environment with ``pip install -c .ci/lower-bounds.txt`` and
runs the core suites in it; run as a script (``python -m tests.test_lower_bounds``), this
module exits 1 unless the installed versions are exactly those bounds.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata

from tests.userproject import REPO

RANGED = ("click", "jinja2", "msgspec")


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def ranges() -> dict[str, str]:
    """``name -> lower bound`` for each ``name>=X,<Y`` dependency."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = {}
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([a-z0-9_-]+)>=([0-9.]+),<([0-9.]+)", requirement)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def bounds() -> dict[str, str]:
    """``name -> version`` pinned in .ci/lower-bounds.txt."""
    text = (REPO / ".ci" / "lower-bounds.txt").read_text(encoding="utf-8")
    return dict(
        line.split("==", 1) for line in text.splitlines() if line and not line.startswith("#")
    )


def test_the_runtime_dependencies_are_ranges_and_ruff_alone_is_pinned() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = [r for r in project["dependencies"] if "==" in r]
    assert [r.split("==")[0] for r in pinned] == ["ruff"]
    assert sorted(ranges()) == sorted(RANGED)


def test_ci_installs_each_range_at_its_lower_bound() -> None:
    lower = bounds()
    assert sorted(lower) == sorted(RANGED)
    for name, bound in ranges().items():
        assert _release(lower[name]) == _release(bound) + (0,) * (
            len(_release(lower[name])) - len(_release(bound))
        ), (name, bound, lower[name])


def test_ci_runs_the_lower_bounds() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "-c .ci/lower-bounds.txt" in ci
    assert "python -m tests.test_lower_bounds" in ci


def main() -> int:
    wrong = {
        name: metadata.version(name)
        for name, version in bounds().items()
        if _release(metadata.version(name)) != _release(version)
    }
    if wrong:
        print(f"not at the lower bounds: {wrong}", file=sys.stderr)
        return 1
    print("installed at the lower bounds: " + ", ".join(f"{n}=={v}" for n, v in bounds().items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
