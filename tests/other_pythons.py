"""Run `tests/portable_behaviour.py` under the other Pythons generated packages support.

``python -m tests.other_pythons`` (from ``.ci/run``): for Python 3.10 and 3.13, found in
``~/.pyenv/versions``, makes a virtual environment holding only msgspec, pydantic and
pytest (from the package index), and runs the behaviour module there against one package
per target, generated once by this checkout's generator from ``schema/``. The oldest
Python gets the oldest pydantic that generated packages support, the newest the newest
release. Exits 1 when a version is missing or its run fails, naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "session_update.schema.json"
BEHAVIOUR = Path(__file__).resolve().with_name("portable_behaviour.py")
VERSIONS = ("3.10", "3.13")
#: What a user's environment holds besides the package: the targets' libraries, and pytest.
LIBRARIES = ("msgspec", "pydantic", "pytest")
#: The oldest pydantic a generated package runs on (the README's Targets section names it).
OLDEST_PYDANTIC = "2.13.0"


def libraries(version: str) -> tuple[str, ...]:
    """What the environment for Python `version` installs: the oldest Python of `VERSIONS`
    gets `OLDEST_PYDANTIC`, the others the newest release of everything."""
    if version != VERSIONS[0]:
        return LIBRARIES
    return tuple(f"{n}=={OLDEST_PYDANTIC}" if n == "pydantic" else n for n in LIBRARIES)


def find_python(version: str, home: Path | None = None) -> Path:
    """The newest ``~/.pyenv/versions/<version>.N`` interpreter; SystemExit naming what is
    there when there is none."""
    versions = (home or Path.home()) / ".pyenv" / "versions"
    found = sorted(
        versions.glob(f"{version}.*/bin/python3"),
        key=lambda p: int(p.parent.parent.name.split(".")[2]),
    )
    if not found:
        there = sorted(p.name for p in versions.iterdir()) if versions.is_dir() else []
        raise SystemExit(
            f"python {version} not found in {versions}: {', '.join(there) or 'no such folder'}"
        )
    return found[-1]


def write_packages(root: Path) -> list[str]:
    """One package per target, generated from our schema into `root`; their names."""
    names = []
    for target in TARGETS:
        name = f"acp_{target}"
        emit.write_tree(root / name, generate(Job(SCHEMA, root / name, name, target=target)))
        names.append(name)
    shutil.copy(BEHAVIOUR, root / BEHAVIOUR.name)
    return names


def run_behaviour(python: str, root: Path, names: list[str]) -> int:
    """Run the behaviour module with `python` in `root`, where the packages are."""
    env = {**os.environ, "ACP_PACKAGES": ",".join(names), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    args = [
        python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(root),
        BEHAVIOUR.name,
    ]
    return subprocess.run(args, cwd=root, env=env, timeout=300, check=False).returncode


def main() -> int:
    pythons = {version: find_python(version) for version in VERSIONS}
    with tempfile.TemporaryDirectory(prefix="acp-pythons-") as scratch:
        root = Path(scratch) / "packages"
        names = write_packages(root)
        for version, python in pythons.items():
            venv = Path(scratch) / f"venv-{version}"
            subprocess.run([str(python), "-m", "venv", str(venv)], check=True)
            pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *libraries(version)]
            subprocess.run(pip, check=True, env={**os.environ, "PIP_NO_CACHE_DIR": "1"})
            print(f"-- generated packages under {python}", flush=True)
            if run_behaviour(str(venv / "bin" / "python"), root, names) != 0:
                print(f"generated packages fail under python {version} ({python})", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
