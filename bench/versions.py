"""Figure 15: one package of protocol versions 1 and 2 against the v1 package alone.

Three things are measured, all on the msgspec target and both packages made with
``--all`` from the newest v1 schema (the two-version one adds the newest v2):

- **import**: a fresh interpreter's ``import`` of the two-version package loads neither
  version (a version's subpackage is imported when first used), so it is timed both
  alone and together with its v1 subpackage, each against ``import`` of the v1 package;
- **decode**: after a `Connection` has watched an ``initialize`` exchange, its
  ``decode_notification`` against the v1 subpackage's own, over the v1 stream;
- **size**: the lines of Python of each package, and of the runtime they carry.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from .cold import import_probe
from .packages import Workspace, newest
from .report import Section
from .timing import Goal, Row, interleave, reported

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
ANSWER = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}


def _lines(folder: Path) -> tuple[int, int]:
    """(lines of every module, lines of the runtime modules at the package's top)."""
    every = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in folder.rglob("*.py"))
    top = [p for p in folder.glob("_*.py") if p.name not in ("__init__.py", "_provenance.py")]
    return every, sum(len(p.read_text(encoding="utf-8").splitlines()) for p in top)


def _connection(both: ModuleType) -> object:
    connection = both.Connection()
    connection.watch(INITIALIZE)
    if connection.watch(ANSWER) != 1:
        raise SystemExit("the two-version package did not settle on protocol version 1")
    return connection


def figure(ws: Workspace, lines: list[bytes], rounds: int) -> Section:
    section = Section("15. Two protocol versions in one package (msgspec, --all)")
    v1_schema, v2_schema = newest("v1"), newest("v2")
    alone = ws.ours("bench_v1", v1_schema, take_all=True)
    both = ws.ours(
        "bench_both", v2_schema, take_all=True, versions=((1, v1_schema), (2, v2_schema))
    )
    assert alone is not None and both is not None, ws.errors
    fig = "15 versions"

    imports = {
        "import bench_v1": import_probe("import bench_v1", ws.root),
        "import bench_both": import_probe("import bench_both", ws.root),
        "import bench_both.v1": import_probe("import bench_both.v1", ws.root),
    }
    for call in imports.values():
        call()  # compile bytecode and warm the file cache once, outside the timing
    samples = interleave(imports, rounds, clock=reported)

    connection = _connection(both)
    own = both.v1.decode_notification
    same = connection.decode_notification is own
    if [connection.decode_notification(x) for x in lines] != [own(x) for x in lines]:
        raise SystemExit("Connection decoded the v1 stream differently from its v1 package")
    samples |= interleave(
        {
            "Connection.decode_notification": lambda: [
                connection.decode_notification(x) for x in lines
            ],
            "v1.decode_notification": lambda: [both.v1.decode_notification(x) for x in lines],
        },
        rounds,
    )
    section.samples = samples
    peer = samples["import bench_v1"]
    section.rows += [
        Row(
            fig,
            "import, versions loaded when first used: vs the v1 package",
            samples["import bench_both"],
            peer,
        ),
        Row(
            fig,
            "import with v1 loaded: vs the v1 package",
            samples["import bench_both.v1"],
            peer,
            Goal("time", 1.3),
        ),
        Row(
            fig,
            f"decode after negotiation, {len(lines)} v1 messages: Connection vs the version's own",
            samples["Connection.decode_notification"],
            samples["v1.decode_notification"],
            Goal("time", 1.05),
        ),
    ]
    v2_alone = ws.ours("bench_v2_all", v2_schema, take_all=True)
    assert v2_alone is not None, ws.errors
    every, runtime = _lines(ws.root / "bench_both")
    v1_every, v1_runtime = _lines(ws.root / "bench_v1")
    v2_every, _ = _lines(ws.root / "bench_v2_all")
    section.notes += [
        "after negotiation, Connection.decode_notification "
        + ("is the version's own function (the same object)" if same else "wraps the version's"),
        f"lines of Python: two-version package {every:,}, its runtime {runtime:,} once at "
        f"the top; v1 package alone {v1_every:,} (runtime {v1_runtime:,}); v2 package alone "
        f"{v2_every:,}; the two single packages together {v1_every + v2_every:,}",
    ]
    return section
