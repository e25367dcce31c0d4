"""What a bench run prints: the machine and versions, then per section its samples and figures.

`text` is for the terminal; `markdown` renders the figures as the page
`bench/RESULTS.md`: the run's date, machine and versions, then one table.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata

import acp_codegen

from .timing import Row, Sample, clock_name, ms

PEERS = (
    "acp-codegen",
    "msgspec",
    "pydantic",
    "pydantic-core",
    "agent-client-protocol",
    "datamodel-code-generator",
    "ruff",
)


@dataclass
class Section:
    """One numbered figure of the issue: its raw samples, its ratios and any notes."""

    title: str
    samples: dict[str, Sample] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PEERS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["acp-codegen"] = acp_codegen.__version__  # run from the checkout, installed or not
    return found


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}"


def header(rounds: int, smoke: bool) -> str:
    mode = "SMOKE (1 round, figures meaningless)" if smoke else f"{rounds} interleaved rounds"
    pins = ", ".join(f"{k} {v}" for k, v in versions().items())
    return (
        f"machine: {machine()}\nversions: {pins}\nmode: {mode}, {clock_name()} time\n"
        f"command: {command()}"
    )


def command() -> str:
    return "python -m bench " + " ".join(sys.argv[1:])


def verdict(row: Row) -> str:
    return {None: "", True: "met", False: "missed"}[row.met]


def text(sections: list[Section]) -> str:
    out: list[str] = []
    for section in sections:
        out.append(f"\n== {section.title}")
        width = max((len(s.name) for s in section.samples.values()), default=0)
        for sample in section.samples.values():
            out.append(
                f"   {sample.name:<{width}}  median {ms(sample.median):>10}  "
                f"min {ms(sample.min):>10}  ({len(sample.times)} rounds)"
            )
        for row in section.rows:
            goal = f"  goal {row.goal.text()}: {verdict(row)}" if row.goal else ""
            out.append(f"   -> {row.label}: {row.ratio_text()}{goal}")
        out.extend(f"   note: {note}" for note in section.notes)
    return "\n".join(out)


def markdown(sections: list[Section], rounds: int, smoke: bool) -> str:
    """The figures as a page: when and where they were measured, then one table."""
    mode = "smoke run, figures meaningless" if smoke else f"{rounds} interleaved rounds"
    pins = ", ".join(f"{k} {v}" for k, v in versions().items())
    lines = [
        "# Benchmark results",
        "",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {machine()} (`platform`: {platform.platform()}; cpu count {os.cpu_count()})",
        f"- versions: {pins}",
        f"- mode: {mode}, {clock_name()} time",
        f"- command: `{command()}`",
        "",
        "| figure | comparison | result (median; min) | rounds | goal | |",
        "| --- | --- | --- | ---: | --- | --- |",
    ]
    for section in sections:
        for row in section.rows:
            goal = row.goal.text() if row.goal else ""
            lines.append(
                f"| {row.figure} | {row.label} | {row.ratio_text()} | {len(row.ours.times)} "
                f"| {goal} | {verdict(row)} |"
            )
        for note in section.notes:
            lines.append(f"| {section.title.split('.', 1)[0]} | {note} | | | | |")
    return "\n".join(lines)
