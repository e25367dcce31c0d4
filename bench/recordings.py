"""Figure 14: the transcript tools on long recordings, read as a stream.

`write_recording` writes a recording of a given size from one repeating turn: a prompt
whose text carries most of the bytes, ``running``, the user message, the acceptance,
one agent chunk and an idle with a custom stop reason that lacks its ``_`` (one
``stop.custom`` finding a turn). The figure runs the checker (``python -m
<pkg>.conformance --format json``) and the replay (``python -m <pkg>.state``) on a 20 MB
and a 200 MB recording and reports:

- the checker's time per message against the replay's, which decodes every update and
  applies it to a `SessionState` (goal: at most 2x, as figure 13);
- each command's time per message at 200 MB against at 20 MB (goal: at most 1.2x:
  linear); these run in this process, so no interpreter start is counted;
- the peak memory of each command at 200 MB against at 20 MB, in a child process (goal:
  at most 1.5x: memory follows the longest line and the state, not the file).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .packages import OUR_SCHEMA, Workspace
from .report import Section
from .timing import Goal, Row, Sample, interleave

SIZES = (20_000_000, 200_000_000)
SMOKE_SIZES = (2_000_000, 20_000_000)
#: Characters of prompt text a turn carries, and of agent text.
PROMPT_TEXT, AGENT_TEXT = 48_000, 1_000


def _turn(i: int) -> list[dict[str, Any]]:
    def update(body: dict[str, Any]) -> dict[str, Any]:
        params = {"sessionId": "s", "update": body}
        return {"jsonrpc": "2.0", "method": "session/update", "params": params}

    words = f"turn {i} " + "lorem ipsum " * (PROMPT_TEXT // 12)
    user = f"u{i}"
    return [
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": words}]},
        },
        update({"sessionUpdate": "state_update", "state": "running"}),
        update(
            {
                "sessionUpdate": "user_message",
                "messageId": user,
                "content": [{"type": "text", "text": "hi"}],
            }
        ),
        {"jsonrpc": "2.0", "id": i, "result": {"messageId": user}},
        update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": f"a{i}",
                "content": {"type": "text", "text": "x" * AGENT_TEXT},
            }
        ),
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "Stopped by hook"}),
    ]


def write_recording(path: Path, size: int) -> tuple[int, int]:
    """Write whole turns until the file holds at least `size` bytes; (turns, messages)."""
    written = turns = messages = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < size:
            for message in _turn(turns):
                line = json.dumps(message) + "\n"
                out.write(line)
                written += len(line)
                messages += 1
            turns += 1
    return turns, messages


#: Runs a module as ``python -m`` would, then prints the peak resident memory (kB) of this
#: program alone: ``VmHWM`` starts again at exec, while a child's ``ru_maxrss`` would also
#: count the pages of the process that forked it.
_PEAK = """
import runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
except SystemExit:
    pass
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        print(line.split()[1], file=sys.stderr)
"""


def peak_memory(module: str, path: Path, env: dict[str, str]) -> int:
    """The peak resident memory, in bytes, of ``python -m module path``."""
    command = [sys.executable, "-c", _PEAK, module, str(path)]
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
    return int(done.stderr.split()[-1]) * 1024


def _in_process(pkg: Any, tool: str, path: Path) -> Callable[[], None]:
    """One run of a command in this process, its output thrown away (nothing to start)."""
    module = importlib.import_module(f"{pkg.__name__}.{tool}")
    transcript = importlib.import_module(f"{pkg.__name__}._transcript")

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            if tool == "conformance":
                module.main([str(path), "--format", "json"])
            else:
                transcript.replay_command(module.SessionState, [str(path)])

    return run


def figure(ws: Workspace, rounds: int, smoke: bool) -> Section:
    rounds = min(rounds, 3)  # a 200 MB run takes seconds: three rounds are enough
    small, large = SMOKE_SIZES if smoke else SIZES
    section = Section(
        f"14. Transcript tools on long recordings: {large // 10**6} MB against "
        f"{small // 10**6} MB, {rounds} round(s)"
    )
    pkg = ws.ours("bench_v2", OUR_SCHEMA, take_all=False)
    if pkg is None:
        section.notes.append(f"pending: schema/ did not generate: {ws.errors['bench_v2']}")
        return section
    env = {**os.environ, "PYTHONPATH": str(Path(pkg.__file__).parent.parent)}
    big, little = f"@ {large // 10**6} MB", f"@ {small // 10**6} MB"
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for size, label in ((small, little), (large, big)):
            path = Path(folder) / f"{size}.jsonl"
            files[label] = (path, write_recording(path, size)[1])
        cases = {
            f"{tool} {label}": _in_process(pkg, tool, path)
            for label, (path, _) in files.items()
            for tool in ("conformance", "state")
        }
        totals = interleave(cases, rounds)
        peaks: dict[str, list[float]] = {}
        for _ in range(rounds):
            for label, (path, _) in files.items():
                for tool in ("conformance", "state"):
                    peak = peak_memory(f"{pkg.__name__}.{tool}", path, env)
                    peaks.setdefault(f"{tool} {label}", []).append(peak)
    s = {
        key: Sample(key, tuple(t / files[key.split(" ", 1)[1]][1] for t in sample.times))
        for key, sample in totals.items()
    }
    m = {key: Sample(key, tuple(sizes)) for key, sizes in peaks.items()}
    section.rows += [
        Row(
            "14 recordings",
            f"check vs replay, per message {big}",
            s[f"conformance {big}"],
            s[f"state {big}"],
            Goal("time", 2.0),
        ),
        Row(
            "14 recordings",
            f"check per message {big} vs {little}",
            s[f"conformance {big}"],
            s[f"conformance {little}"],
            Goal("time", 1.2),
        ),
        Row(
            "14 recordings",
            f"replay per message {big} vs {little}",
            s[f"state {big}"],
            s[f"state {little}"],
            Goal("time", 1.2),
        ),
    ]
    for tool in ("conformance", "state"):
        section.rows.append(
            Row(
                "14 recordings",
                f"{tool}: peak memory {big} vs {little}",
                m[f"{tool} {big}"],
                m[f"{tool} {little}"],
                Goal("memory", 1.5),
            )
        )
    for key, sample in m.items():
        count = files[key.split(" ", 1)[1]][1]
        section.notes.append(
            f"{key}: {count:,} messages, {s[key].median * 1e6:.1f} us a message, "
            f"peak memory {sample.median / 2**20:.0f} MiB (a child process)"
        )
    return section
