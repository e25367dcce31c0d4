"""Figures 1 and 6, both measured on fresh processes: generator speed and cold import time.

Generator speed runs each generator's command line as a child process, start to
finish, on the same schema file. Cold import time starts a fresh interpreter per
round that times only its ``import`` statement (bytecode already compiled, as
after installation), so interpreter start-up is left out for both sides.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import peers
from .packages import DMC_FORMATTERS, OUR_SCHEMA, Workspace, dmc_command, newest, our_command
from .report import Section
from .timing import Goal, Row, clock_name, interleave, reported, run_child

GENERATOR_SCHEMAS = ("v2-unstable", "v1")


def child_env(*paths: Path) -> dict[str, str]:
    """Environment of a timed child: bytecode may be cached, as after a normal install."""
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if paths:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), os.getcwd()])
    return env


def _run(command: list[str]) -> Callable[[], float]:
    env = child_env()
    return lambda: run_child(command, env=env)[0]


def generators(ws: Workspace, rounds: int, formatters: tuple[str, ...] = DMC_FORMATTERS) -> Section:
    """Figure 1: ``acp-codegen generate --all`` against datamodel-codegen, same schema.

    Both run with bytecode cached (one untimed run first), as installed tools do.

    datamodel-codegen runs once per formatting option in `formatters`, and ours is
    compared with the fastest of them.
    """
    cases: dict[str, Callable[[], float]] = {}
    for key in GENERATOR_SCHEMAS:
        schema = newest(key)
        out = ws.root / "gen" / key.replace("-", "_")
        for formatter in formatters:
            ws.dmc_outputs[(schema, formatter)] = out / f"dmc_{formatter}.py"
        cases[f"acp-codegen generate --all, {key}"] = _run(
            our_command(schema, out / "ours", "gen_" + key.replace("-", "_"))
        )
        for formatter in formatters:
            cases[f"datamodel-codegen pydantic v2 --formatters {formatter}, {key}"] = _run(
                dmc_command(schema, out / f"dmc_{formatter}.py", formatter)
            )
    section = Section("1. Generator speed (whole command, fresh process)")
    for call in cases.values():
        call()  # cache bytecode and warm the file cache once, outside the timing
    section.samples = interleave(cases, rounds, clock=reported)
    for key in GENERATOR_SCHEMAS:
        ours = section.samples[f"acp-codegen generate --all, {key}"]
        theirs = [
            section.samples[f"datamodel-codegen pydantic v2 --formatters {f}, {key}"]
            for f in formatters
        ]
        fastest = min(theirs, key=lambda s: s.median)
        formatter = formatters[theirs.index(fastest)]
        section.rows.append(
            Row(
                "1 generator",
                f"{newest(key).name}: vs datamodel-codegen --formatters "
                f"{formatter} (its fastest formatted configuration)",
                ours,
                fastest,
                Goal("faster", 4),
            )
        )
    return section


IMPORT_PROBE = "import time\nstart = time.{clock}()\n{statement}\nprint(time.{clock}() - start)\n"


def import_probe(statement: str, path: Path) -> Callable[[], float]:
    env = child_env(path)
    clock = "process_time" if clock_name() == "cpu" else "perf_counter"
    code = IMPORT_PROBE.format(statement=statement, clock=clock)

    def call() -> float:
        _, out = run_child([sys.executable, "-c", code], env=env)
        return float(out.strip().splitlines()[-1])

    return call


def imports(ws: Workspace, rounds: int) -> Section:
    """Figure 6: a fresh interpreter's ``import`` of our package against ``import acp.schema``."""
    section = Section("6. Cold import time (fresh interpreter, import statement only)")
    v1 = ws.ours("bench_v1", newest("v1"), take_all=True)
    ours = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    cases = {"import acp.schema (SDK)": import_probe(peers.sdk_import_statement(), ws.root)}
    if v1 is not None:
        cases["import bench_v1 (ours, newest v1 --all)"] = import_probe("import bench_v1", ws.root)
    if ours is not None:
        cases["import bench_v2 (ours, schema/)"] = import_probe("import bench_v2", ws.root)
    else:
        section.notes.append(f"schema/ did not generate: {ws.errors['bench_v2']}")
    for call in cases.values():
        call()  # compile bytecode and warm the file cache once, outside the timing
    section.samples = interleave(cases, rounds, clock=reported)
    sdk = section.samples["import acp.schema (SDK)"]
    fig = "6 import"
    for name, sample in section.samples.items():
        if name == "import acp.schema (SDK)":
            continue
        label = name.removeprefix("import ")
        section.rows += [
            Row(fig, f"{label}: absolute", sample, None, Goal("absolute", 0.150)),
            Row(fig, f"{label}: vs import acp.schema", sample, sdk, Goal("time", 0.2)),
        ]
    return section
