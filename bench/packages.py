"""The code under test, made fresh for each bench run.

Our packages are generated into a scratch directory with the library pipeline
(`acp_codegen.pipeline.generate` + `acp_codegen.emit.write_tree`) and imported
from there; the peer's models come from running datamodel-code-generator on the
same published schema. Published schemas are found through `tests.corpus`.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from acp_codegen import emit
from acp_codegen.errors import SchemaError
from acp_codegen.pipeline import Job, generate
from tests import corpus

REPO = Path(__file__).resolve().parent.parent
OUR_SCHEMA = REPO / "schema" / "session_update.schema.json"
STREAM_V2 = REPO / "bench" / "stream_v2.jsonl"

#: datamodel-code-generator's formatting options that still format the output; the
#: generator-speed figure times both and compares against the faster.
DMC_FORMATTERS = ("builtin", "ruff-format")


def newest(key: str) -> Path:
    """Newest published revision: key is ``v1``, ``v1-unstable``, ``v2`` or ``v2-unstable``."""
    return corpus.newest(corpus.NEWEST[key])


def our_command(schema: Path, out: Path, package: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "acp_codegen",
        "generate",
        "--schema",
        str(schema),
        "--out",
        str(out),
        "--package",
        package,
        "--all",
    ]


def dmc_command(schema: Path, out: Path, formatter: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "datamodel_code_generator",
        "--input",
        str(schema),
        "--input-file-type",
        "jsonschema",
        "--output-model-type",
        "pydantic_v2.BaseModel",
        "--formatters",
        formatter,
        "--output",
        str(out),
    ]


@dataclass
class Workspace:
    """A scratch directory on ``sys.path`` holding the generated packages of one run."""

    root: Path
    modules: dict[str, ModuleType] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    #: (schema, formatter) -> where datamodel-code-generator already wrote its models this run.
    dmc_outputs: dict[tuple[Path, str], Path] = field(default_factory=dict)

    def ours(
        self,
        name: str,
        schema: Path,
        take_all: bool,
        target: str = "msgspec",
        versions: tuple[tuple[int, Path], ...] = (),
    ) -> ModuleType | None:
        """Generate, write and import our package; None (and an error) if it fails.

        With `versions` (version, schema) pairs it is one package of those versions, and
        `schema` names the newest of them."""
        if name in self.modules or name in self.errors:
            return self.modules.get(name)
        out = self.root / name
        try:
            job = Job(schema, out, name, take_all=take_all, target=target, versions=versions)
            emit.write_tree(out, generate(job))
        except SchemaError as exc:
            self.errors[name] = str(exc)
            return None
        return self._import(name)

    def dmc(self, name: str, schema: Path, formatter: str = DMC_FORMATTERS[0]) -> ModuleType:
        """Import datamodel-code-generator's pydantic v2 models for `schema`.

        Reuses what the generator-speed figure wrote when it ran; otherwise runs
        datamodel-code-generator once.
        """
        if name not in self.modules:
            out = self.root / f"{name}.py"
            earlier = self.dmc_outputs.get((schema, formatter))
            if earlier is not None and earlier.is_file():
                shutil.copyfile(earlier, out)
            else:
                command = dmc_command(schema, out, formatter)
                subprocess.run(command, check=True, capture_output=True, text=True)
            self._import(name)
        return self.modules[name]

    def _import(self, name: str) -> ModuleType:
        importlib.invalidate_caches()
        module = importlib.import_module(name)
        self.modules[name] = module
        return module


def workspace() -> tuple[Workspace, tempfile.TemporaryDirectory[str]]:
    scratch = tempfile.TemporaryDirectory(prefix="acp-bench-")
    sys.path.insert(0, scratch.name)
    return Workspace(Path(scratch.name)), scratch


def read_lines(path: Path, limit: int | None = None) -> list[bytes]:
    lines = path.read_bytes().splitlines()
    return lines[:limit] if limit else lines
