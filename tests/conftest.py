"""Shared fixtures: generate packages from schemas during the test run and import them."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS as REGISTRY
from tests import corpus

_CACHE: dict[tuple[object, ...], ModuleType] = {}
OWN_SCHEMA = Path(__file__).resolve().parent.parent / "schema" / "session_update.schema.json"

REPO = OWN_SCHEMA.parent.parent

GenerateFn = Callable[..., ModuleType]
#: Every `--target` of the generator; the behaviour suites run once per target.
TARGETS = tuple(REGISTRY)


def strict_decoder(pkg: ModuleType, tp: Any) -> Callable[[bytes], Any]:
    """`pkg`'s strict fast path for `tp` alone, without the slow path.

    It raises a `ValueError` (msgspec's or pydantic's ``ValidationError``, the dataclasses
    target's ``DecodeError``) wherever the slow path would have to step in: leniency,
    unknown union members needing repair.
    """
    runtime = pkg._runtime
    if hasattr(runtime, "wire_validator"):  # pydantic target
        return runtime.wire_validator(tp)  # type: ignore[no-any-return]
    if hasattr(runtime, "dec_hook"):  # msgspec target
        return msgspec.json.Decoder(tp, dec_hook=runtime.dec_hook).decode
    # dataclasses target: the lenient pass is the decoder; in strict mode a repair is an
    # error (a `DecodeError`, a ValueError)
    return lambda data: runtime.convert(runtime.load_json(data), tp, strict=True)


def home_entries(home: Path, skip: set[Path]) -> set[str]:
    """Every path under `home` but those in `skip`, without following symlinks."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if Path(folder, d) not in skip]
        found.update(os.path.join(folder, name) for name in (*dirs, *files))
    return found


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Tests write only under their temporary folders: every subprocess (pre-commit, pipx,
    pip, virtualenv) gets a scratch HOME and XDG folders, and the real HOME must hold
    nothing new afterwards (the repository and pytest's folders aside)."""
    real = Path.home()
    base = tmp_path_factory.getbasetemp()
    skip = {REPO, base, base.parent}
    before = home_entries(real, skip)
    home = tmp_path_factory.mktemp("home")
    if (real / ".gitconfig").is_file():  # the tests' git commits keep their identity
        shutil.copy(real / ".gitconfig", home / ".gitconfig")
    scratch = {
        "HOME": home,
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
        "PRE_COMMIT_HOME": home / ".cache" / "pre-commit",
        "VIRTUALENV_OVERRIDE_APP_DATA": home / ".cache" / "virtualenv",
        "PIPX_MAN_DIR": home / ".local" / "share" / "man",
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in scratch.items():
            patch.setenv(name, str(value))
        yield home
    new = sorted(home_entries(real, skip) - before)
    assert not new, f"the tests wrote under {real}: {', '.join(new[:20])}"


@pytest.fixture(scope="session")
def generated_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    sys.path.insert(0, str(root))
    return root


@pytest.fixture(scope="session")
def make_package(generated_root: Path) -> GenerateFn:
    """``make_package(schema_path, name, target="msgspec", roots=(), take_all=False, ...)``.

    Generates the package once per session and imports it. A second call for the same
    schema and options, under another name, gets the package made first: the tests read
    packages, never change them, so one generation serves them all.
    """

    def make(schema: Path, name: str, target: str = "msgspec", roots: tuple[str, ...] = (),
             take_all: bool = False, overlays: tuple[Path, ...] = (), closed_all: bool = False,
             closed: tuple[str, ...] = (), keep_unknown_fields: bool = True) -> ModuleType:
        if target != "msgspec":
            name = f"{name}_{target}"  # one importable package per target
        key = (str(schema), target, tuple(roots), take_all, tuple(map(str, overlays)),
               closed_all, closed, keep_unknown_fields)
        if key in _CACHE:
            return _CACHE[key]
        out = generated_root / name
        job = Job(schema, out, name, tuple(roots), take_all, target=target,
                  overlays=tuple(overlays), closed_all=closed_all, closed=closed,
                  keep_unknown_fields=keep_unknown_fields)
        emit.write_tree(out, generate(job))
        importlib.invalidate_caches()
        module = importlib.import_module(name)
        _CACHE[key] = module
        return module

    return make


@pytest.fixture(scope="session", params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    """Each generation target in turn: a behaviour test that takes it (and passes it to
    ``make_package(..., target=target)``) runs once against msgspec and once against pydantic."""
    return str(request.param)


@pytest.fixture(scope="session")
def newest_schema() -> Callable[[str], Path]:
    """``newest_schema("v2-unstable")`` -> path of the newest published revision."""
    corpus.require()
    return lambda key: corpus.newest(corpus.NEWEST[key])


@pytest.fixture(scope="session", params=["v1", "v1-unstable", "v2", "v2-unstable"])
def published(request: pytest.FixtureRequest, make_package: GenerateFn, target: str) -> ModuleType:
    """A package generated with ``--all`` from each newest published schema, per target."""
    corpus.require()
    key = request.param
    return make_package(corpus.newest(corpus.NEWEST[key]), "pub_" + key.replace("-", "_"),
                        target=target, take_all=True)
