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


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Every core by default (``-n auto --dist loadfile``: a module's tests stay in one
    worker, so a module-wide fixture runs once), when pytest-xdist is there. Set here, not
    in addopts, so ``-n 0`` and ``-p no:xdist`` both run the suite in one process."""
    if not config.pluginmanager.has_plugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is None and config.option.dist == "no":
        config.option.numprocesses = "auto"
        config.option.dist = "loadfile"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line for the tests that skipped because the schema corpus is not there (instead
    of one line each), and every other skip on its own line."""
    skipped = terminalreporter.stats.get("skipped", [])
    lost = [r for r in skipped if corpus.MISSING in str(r.longrepr)]
    for report in skipped:
        if report not in lost:
            terminalreporter.write_line(f"SKIPPED {report.nodeid}: {report.longrepr[-1]}")
    if lost:
        terminalreporter.write_line(
            f"{len(lost)} tests need the schema corpus and skipped: {corpus.MISSING} "
            '(README.md, "Tests and the schema corpus")',
            yellow=True,
        )


#: package name -> the options it was made with (see `make_package`)
_NAMES: dict[str, tuple[Any, ...]] = {}
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


#: The flags of an `open` that may create or change a file.
_WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
#: Audit events that make, change or remove paths, by where their paths are in the
#: event's arguments: the first (`os.mkdir`), the second (a copy's or a link's destination),
#: or both (a move takes from one folder and adds to another).
_TOUCHES = {
    **dict.fromkeys(("os.mkdir", "os.remove", "os.rmdir", "shutil.rmtree"), (0,)),
    **dict.fromkeys(("shutil.copyfile", "shutil.copytree", "os.symlink", "os.link"), (1,)),
    **dict.fromkeys(("os.rename", "os.replace"), (0, 1)),
}


_WATCHED = frozenset({"open", "subprocess.Popen", *_TOUCHES})


class HomeWatch:
    """What this process does to the real home folder: a write, or a child process
    started with it as HOME. Told by `sys.addaudithook`, so it sees only the suite's own
    doing, never another program's writing there at the same time."""

    def __init__(self, real: Path, allowed: set[Path]) -> None:
        self.real = os.path.realpath(real)
        self.allowed = [os.path.realpath(p) for p in allowed]
        self.found: list[str] = []
        self.on = False

    def _inside(self, path: object) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, (str, os.PathLike)):
            return False  # a file descriptor: opened by path before
        full = os.path.realpath(os.path.join(os.getcwd(), os.fspath(path)))
        inside = full == self.real or full.startswith(self.real + os.sep)
        return inside and not any(full == a or full.startswith(a + os.sep) for a in self.allowed)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _WATCHED or not self.on:  # every audit event comes here: be quick
            return
        if event == "open":
            if (
                len(args) > 2
                and isinstance(args[2], int)
                and args[2] & _WRITES
                and self._inside(args[0])
            ):
                self.found.append(f"open {args[0]}")
        elif event in _TOUCHES:
            targets = [args[i] for i in _TOUCHES[event] if i < len(args)]
            self.found += [f"{event} {t}" for t in targets if self._inside(t)]
        elif event == "subprocess.Popen":
            env = args[3] if len(args) > 3 else None
            home = (env or os.environ).get("HOME", "")
            if home and os.path.realpath(home) == self.real:
                self.found.append(f"child with the real HOME: {args[1]}")


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Tests write only under their temporary folders: every subprocess (pre-commit, pipx,
    pip, virtualenv) gets a scratch HOME and XDG folders, and nothing the suite does in
    this process writes under the real HOME or starts a child with it (`HomeWatch`)."""
    real = Path.home()
    base = tmp_path_factory.getbasetemp()
    watch = HomeWatch(real, {REPO, base, base.parent})
    sys.addaudithook(watch)  # hooks stay for the process's life; `on` scopes this one
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
        watch.on = True
        try:
            yield home
        finally:
            watch.on = False
    assert not watch.found, f"the tests wrote under {real}: {'; '.join(watch.found[:20])}"


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

    def make(
        schema: Path,
        name: str,
        target: str = "msgspec",
        roots: tuple[str, ...] = (),
        take_all: bool = False,
        overlays: tuple[Path, ...] = (),
        closed_all: bool = False,
        closed: tuple[str, ...] = (),
        keep_unknown_fields: bool = True,
    ) -> ModuleType:
        if target != "msgspec":
            name = f"{name}_{target}"  # one importable package per target
        key = (
            str(schema),
            target,
            tuple(roots),
            take_all,
            tuple(map(str, overlays)),
            closed_all,
            closed,
            keep_unknown_fields,
        )
        if key in _CACHE:
            return _CACHE[key]
        while _NAMES.setdefault(name, key) != key:  # (a name made with other options: the
            name += "_"  # module imported first would be returned for both)
        out = generated_root / name
        job = Job(
            schema,
            out,
            name,
            tuple(roots),
            take_all,
            target=target,
            overlays=tuple(overlays),
            closed_all=closed_all,
            closed=closed,
            keep_unknown_fields=keep_unknown_fields,
        )
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
    return make_package(
        corpus.newest(corpus.NEWEST[key]),
        "pub_" + key.replace("-", "_"),
        target=target,
        take_all=True,
    )
