"""Corpus sweep: every published ACP schema revision through the real CLI.

For each schema in ``$ACP_SHARED/acp-schemas`` this runs ``acp-codegen generate``
in a worker process, with one job (``all = true``, no formatter) per target the schema
is swept for, so the schema is read once however many targets there are. It imports
each package written, and decodes repeatable sample payloads made by `tests.instances`
from the raw schema: one per union member and a full and a minimal one per other
definition, plus the ``session/update`` envelope. Each decoded sample must encode back
to the same JSON. A revision ends, on each target, as

- ``ok``: generated, imported, every sample decoded and round-tripped;
- ``clean``: the CLI refused it with exit code 2 and one ``error at <file>#<pointer>:``
  line, and wrote nothing;
- ``crash``: anything else (a traceback, another exit code, a failing sample);
- ``hang``: over the per-schema time budget.

Run ``python -m tests.corpus_sweep`` (``--help`` for options); it prints a table
by folder and exits 1 unless every v1/v2 revision is ok, at least 95% of v0
revisions are ok, and the rest are clean errors. `tests/test_corpus.py` runs it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from tests import corpus
from tests.instances import (
    Fixed,
    Instances,
    Unsatisfiable,
    Variant,
    dumps,
    envelope,
    notification_def,
    same_json,
    union_size,
    validator_for,
)

STATUSES = ("ok", "clean", "crash", "hang")
#: A revision whose generation, import and decoding takes longer than this is a hang.
SCHEMA_BUDGET_S = 60
V0_MIN_OK = 0.95
CLEAN_ERROR = re.compile(r"^error at [^\n#]+#(/[^\n:]*): [^\n]+$")


@dataclass
class Outcome:
    file: str
    folder: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    samples: int = 0
    failures: list[str] = field(default_factory=list)
    target: str = "msgspec"
    #: What the package's `SessionState` made of one message chunk (`state_check`).
    state: str = ""


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def sweep_one(file: str, scratch: str, targets: tuple[str, ...] = ("msgspec",)) -> list[Outcome]:
    """Generate, import and exercise one revision on `targets` (runs in a worker process)."""
    started = time.perf_counter()
    folder = file.split("/", 1)[0]
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SCHEMA_BUDGET_S)
    try:
        outcomes = _sweep(file, folder, Path(scratch), targets)
    except _Timeout:
        outcomes = [
            Outcome(file, folder, "hang", f"over the {SCHEMA_BUDGET_S}s budget", target=t)
            for t in targets
        ]
    finally:
        signal.alarm(0)
    for outcome in outcomes:
        outcome.seconds = (time.perf_counter() - started) / len(outcomes)
    return outcomes


def _package_name(file: str, target: str) -> str:
    return f"sweep_{target}_" + re.sub(r"\W", "_", file.rsplit(".json", 1)[0])


def _config(schema: Path, scratch: Path, file: str, targets: tuple[str, ...]) -> Path:
    """A pyproject.toml with one job per target, each generating every definition."""
    lines = []
    for target in targets:
        package = _package_name(file, target)
        lines += [
            f"[tool.acp-codegen.jobs.{target}]",
            f"schema = {json.dumps(str(schema))}",
            f"out = {json.dumps(str(scratch / package))}",
            f'package = "{package}"',
            f'target = "{target}"',
            "all = true",
            # Layout is the goldens' and the determinism tests' concern; the sweep checks
            # what the code does, so it skips the formatter's process per job.
            'formatter = "none"',
        ]
    path = scratch / f"{_package_name(file, 'config')}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _sweep(file: str, folder: str, scratch: Path, targets: tuple[str, ...]) -> list[Outcome]:
    from click.testing import CliRunner

    from acp_codegen.cli import main

    schema = corpus.SCHEMAS / file
    outs = [scratch / _package_name(file, t) for t in targets]
    config = _config(schema, scratch, file, targets)
    result = CliRunner().invoke(main, ["generate", "--config", str(config)])
    config.unlink()
    stderr = result.stderr.strip()

    def every(status: str, detail: str) -> list[Outcome]:
        return [Outcome(file, folder, status, detail, target=t) for t in targets]

    if result.exception is not None and not isinstance(result.exception, SystemExit):
        name = type(result.exception).__name__
        return every("crash", f"traceback: {name}: {result.exception}"[:300])
    if "Traceback" in result.output:
        return every("crash", "a traceback was printed")
    if result.exit_code == 2:
        if CLEAN_ERROR.match(stderr) and not any(out.exists() for out in outs):
            return every("clean", stderr)
        return every("crash", f"unclear refusal: {stderr[:300]!r}")
    if result.exit_code != 0:
        return every("crash", f"exit {result.exit_code}: {stderr[:300]!r}")
    outcomes = []
    for target, out in zip(targets, outs, strict=True):
        package = out.name
        try:
            outcome = _exercise(file, folder, schema, package, scratch)
        finally:
            for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
                del sys.modules[name]
            shutil.rmtree(out, ignore_errors=True)
        outcome.target = target
        outcomes.append(outcome)
    return outcomes


def _exercise(file: str, folder: str, schema: Path, package: str, scratch: Path) -> Outcome:
    if str(scratch) not in sys.path:
        sys.path.insert(0, str(scratch))
    importlib.invalidate_caches()
    try:
        pkg = importlib.import_module(package)
    except Exception as exc:  # the generated package itself is broken
        return Outcome(file, folder, "crash", f"import failed: {type(exc).__name__}: {exc}"[:300])
    document = json.loads(schema.read_text(encoding="utf-8"))
    failures: list[str] = []
    samples = 0
    check = validator_for(document)
    variants = _variant_classes(pkg)
    for name in sorted(document["$defs"]):
        target = _runtime_type(pkg, name)
        if target is None or target in variants:
            # Absent, or a body its union's variant class absorbed (and so carries the
            # union's tag and shared fields): sampled through that union instead.
            continue
        for sample in _samples(document, name, target):
            samples += 1
            problem = _round_trip(pkg, target, sample)
            if problem:
                # Say whether the schema itself rejects the sample (a fault of ours).
                invalid = check(name, sample)
                note = f" (the sample breaks the schema: {invalid[0]})" if invalid else ""
                failures.append(f"{name}: {problem}{note}")
    for sample in _envelopes(document, pkg):
        samples += 1
        try:
            pkg.decode_notification(dumps(sample))
        except Exception as exc:
            failures.append(f"decode_notification: {type(exc).__name__}: {exc}"[:300])
    if failures:
        return Outcome(file, folder, "crash", failures[0][:300], 0, samples, failures[:20])
    return Outcome(file, folder, "ok", "", 0, samples, state=state_check(pkg))


#: An agent message chunk, which every v1 and v2 revision's reducer keeps as an entity.
CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "hi"},
}


def state_check(pkg: ModuleType) -> str:
    """``ok`` when the package's `SessionState` reduces `CHUNK` into an agent message,
    ``none`` when the package has no reducer, else what went wrong."""
    if not hasattr(pkg, "SessionState"):
        return "none"
    try:
        state = pkg.SessionState()
        state.apply(pkg.decode_update(json.dumps(CHUNK)))
        content = [b.text for b in state.get("agent_message", "m").content]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    if state.timeline != [("agent_message", "m")] or content != ["hi"]:
        return f"reduced to {state.timeline!r} holding {content!r}"
    return "ok"


def _runtime_type(pkg: ModuleType, def_name: str) -> Any:
    from acp_codegen import naming

    models = importlib.import_module(pkg.__name__ + ".models")
    return getattr(models, naming.class_name(def_name), None)


def _variant_classes(pkg: ModuleType) -> set[Any]:
    found: set[Any] = set()
    tables = importlib.import_module(pkg.__name__ + ".dispatch")
    for name in dir(tables):
        if name.endswith("_VARIANTS"):
            for cls in getattr(tables, name).values():
                found.update(cls if isinstance(cls, tuple) else (cls,))
    return found


def _samples(document: dict[str, Any], name: str, target: Any) -> list[Any]:
    """One sample per union member, else a full and a minimal one."""
    count = union_size(document, name)
    choosers = [Fixed(v, True) for v in range(count)] if count > 1 else []
    choosers += [Fixed(0, True), Fixed(0, False)] if count == 1 else [Fixed(0, False)]
    out = []
    for chooser in choosers:
        try:
            sample = Instances(document, chooser).of_def(name)
        except Unsatisfiable:
            continue
        out.append(sample)
    return out


def _round_trip(pkg: ModuleType, target: Any, sample: Any) -> str:
    try:
        decoded = pkg.decode(dumps(sample), target)
    except Exception as exc:
        return f"decode raised {type(exc).__name__}: {exc}"[:300]
    try:
        again = json.loads(pkg.encode(decoded))
    except Exception as exc:
        return f"encode raised {type(exc).__name__}: {exc}"[:300]
    if not same_json(again, sample):
        return f"round trip changed {json.dumps(sample)[:120]} into {json.dumps(again)[:120]}"
    return ""


def _envelopes(document: dict[str, Any], pkg: ModuleType) -> list[Any]:
    name = notification_def(document)
    if not hasattr(pkg, "decode_notification") or name is None:
        return []
    return [
        envelope(Instances(document, Variant(variant)).of_def(name))
        for variant in range(_update_members(document, name))
    ]


def _update_members(document: dict[str, Any], notification: str) -> int:
    """Member count of the union a notification carries (flattened in or under ``update``)."""
    node = document["$defs"][notification]
    update = (node.get("properties") or {}).get("update", {})
    refs = [update] + (update.get("allOf") or [])
    names = [r["$ref"].rsplit("/", 1)[-1] for r in refs if isinstance(r, dict) and "$ref" in r]
    return max([union_size(document, notification)] + [union_size(document, n) for n in names])


def _init_worker(scratch: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path.insert(0, scratch)


def sweep(
    files: list[str] | None = None,
    workers: int = 2,
    deadline_s: float = 600,
    targets: Callable[[str], tuple[str, ...]] = lambda file: ("msgspec",),
) -> list[Outcome]:
    """Run the sweep over `files` (default: every schema revision) in `workers` processes,
    generating each for the targets `targets` names for it (``v1/...json``); one outcome
    per file and target, in file order."""
    files = files if files is not None else [r.file for r in corpus.schemas()]
    wanted = {f: targets(f) for f in files}
    scratch = tempfile.mkdtemp(prefix="acp-sweep-")
    outcomes: dict[tuple[str, str], Outcome] = {}
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(workers, _init_worker, (scratch,), maxtasksperchild=24)
    try:
        jobs = pool.imap_unordered(_sweep_star, [(f, scratch, wanted[f]) for f in files])
        end = time.monotonic() + deadline_s
        for _ in files:
            try:
                found = jobs.next(timeout=max(0.0, end - time.monotonic()))
            except multiprocessing.TimeoutError:
                break
            outcomes.update(((o.file, o.target), o) for o in found)
    finally:
        pool.terminate()
        pool.join()
        shutil.rmtree(scratch, ignore_errors=True)
    out = []
    for file in files:
        for target in wanted[file]:
            late = Outcome(
                file,
                file.split("/", 1)[0],
                "hang",
                "not finished before the sweep deadline",
                target=target,
            )
            out.append(outcomes.get((file, target), late))
    return out


def _sweep_star(args: tuple[str, str, tuple[str, ...]]) -> list[Outcome]:
    return sweep_one(*args)


def table(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    by_folder: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        by_folder.setdefault(outcome.folder, Counter())[outcome.status] += 1
    return dict(sorted(by_folder.items()))


def problems(outcomes: list[Outcome]) -> list[str]:
    """Why the sweep fails its acceptance rules (empty when it passes)."""
    found = [f"{o.file}: {o.status}: {o.detail}" for o in outcomes if o.status in ("crash", "hang")]
    for folder, counts in table(outcomes).items():
        total = sum(counts.values())
        if folder != "v0" and counts["ok"] != total:
            found.append(f"{folder}: only {counts['ok']}/{total} revisions generate")
        if folder == "v0" and counts["ok"] < V0_MIN_OK * total:
            found.append(f"v0: {counts['ok']}/{total} generate, under {V0_MIN_OK:.0%}")
    return found


def render(outcomes: list[Outcome], seconds: float) -> str:
    rows = [
        "| folder | revisions | ok | clean error | crash | hang |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    totals: Counter[str] = Counter()
    for folder, counts in table(outcomes).items():
        totals.update(counts)
        cells = " | ".join(str(counts[s]) for s in STATUSES)
        rows.append(f"| {folder} | {sum(counts.values())} | {cells} |")
    cells = " | ".join(str(totals[s]) for s in STATUSES)
    rows.append(f"| all | {sum(totals.values())} | {cells} |")
    samples = sum(o.samples for o in outcomes)
    lines = rows + [f"\n{samples:,} sample payloads decoded and re-encoded; total {seconds:.1f}s"]
    lines += [f"{o.status}: {o.file}: {o.detail}" for o in outcomes if o.status != "ok"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.corpus_sweep", description=__doc__)
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--folder", action="append", help="only this folder (repeatable)")
    parser.add_argument("--file", action="append", help="only this MANIFEST file (repeatable)")
    parser.add_argument("--json", type=Path, help="also write every outcome to this JSON file")
    parser.add_argument(
        "--target", action="append", help="a target to generate for (repeatable; default msgspec)"
    )
    args = parser.parse_args(argv)
    if not corpus.available():
        print(corpus.MISSING, file=sys.stderr)
        return 2
    files = [
        r.file
        for r in corpus.schemas()
        if (not args.folder or r.folder in args.folder) and (not args.file or r.file in args.file)
    ]
    started = time.perf_counter()
    chosen = tuple(args.target or ["msgspec"])
    outcomes = sweep(files, args.workers, targets=lambda file: chosen)
    print(render(outcomes, time.perf_counter() - started))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1), "utf-8")
    found = problems(outcomes)
    for problem in found:
        print("FAIL", problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
