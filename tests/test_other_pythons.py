"""`tests/other_pythons.py`: finding the interpreters, and its behaviour module run here.

CI runs the module under Python 3.10 and 3.13 (``.ci/run``); this suite runs the same
behaviour module under its own Python against the same three packages, so a change that
breaks it fails here first.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests import other_pythons


def test_behaviour_module_passes_on_every_target_here(tmp_path: Path) -> None:
    names = other_pythons.write_packages(tmp_path)
    assert sorted(names) == ["acp_dataclasses", "acp_msgspec", "acp_pydantic"]
    assert other_pythons.run_behaviour(sys.executable, tmp_path, names) == 0


def test_oldest_python_runs_the_oldest_pydantic_the_readme_names() -> None:
    readme = (other_pythons.REPO / "README.md").read_text(encoding="utf-8")
    (stated,) = re.findall(r"\(pydantic ([0-9.]+) or newer\)", readme)
    assert other_pythons.OLDEST_PYDANTIC == f"{stated}.0"
    oldest, *others = other_pythons.VERSIONS
    assert f"pydantic=={stated}.0" in other_pythons.libraries(oldest)
    assert all(other_pythons.libraries(v) == other_pythons.LIBRARIES for v in others)


def test_newest_patch_release_is_chosen(tmp_path: Path) -> None:
    for name in ("3.10.2", "3.10.13", "3.13.0"):
        (tmp_path / ".pyenv" / "versions" / name / "bin").mkdir(parents=True)
        (tmp_path / ".pyenv" / "versions" / name / "bin" / "python3").touch()
    found = other_pythons.find_python("3.10", home=tmp_path)
    assert found == tmp_path / ".pyenv" / "versions" / "3.10.13" / "bin" / "python3"


def test_missing_version_is_named_with_what_is_there(tmp_path: Path) -> None:
    (tmp_path / ".pyenv" / "versions" / "3.12.1").mkdir(parents=True)
    with pytest.raises(SystemExit) as exc:
        other_pythons.find_python("3.10", home=tmp_path)
    versions = tmp_path / ".pyenv" / "versions"
    assert str(exc.value) == f"python 3.10 not found in {versions}: 3.12.1"
    with pytest.raises(SystemExit) as none:
        other_pythons.find_python("3.10", home=tmp_path / "nobody")
    assert str(none.value).endswith(": no such folder")
