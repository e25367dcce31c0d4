"""Several protocol versions in one package: ``<package>/v<N>/`` per schema, one runtime.

`pipeline` runs a job with `Job.versions` as one job per version, each generating the
package ``<package>.v<N>``, whose modules import the runtime from their parent (``from ..
import _runtime``). `assemble` puts their files under ``v<N>/`` and writes, once, at the
top: the runtime files, with ``_versions.py``, and the modules that choose a version:
``__init__.py`` (`negotiate`, `Connection`) and, when a version has a reducer, the
``state`` and ``conformance`` commands, which read the version from a recording.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from . import naming, render
from .format import format_sources
from .target import Target

#: The top-level modules of a several-version package, by template (``versions/``).
TOP = {"__init__.py": "__init__.py", "conformance.py": "conformance.py", "state.py": "state.py"}
#: What a `Connection` hands on to the negotiated version's package, where it has them.
DELEGATED = (
    naming.API.decode,
    naming.API.decode_notification,
    naming.API.decode_update,
    naming.API.encode,
    naming.API.dispatch,
    naming.API.session_state,
)
#: Runtime modules only several-version packages carry.
RUNTIME = ("_versions.py",)


def folder(version: int) -> str:
    """The subpackage holding one version: ``v1``, ``v2``, ..."""
    return f"v{version}"


def assemble(
    package: str,
    target: Target,
    parts: dict[int, dict[str, str]],
    record: render.Provenance,
    formatter: str,
    line_length: int,
) -> dict[str, str]:
    """The files of package `package` from `parts`, version -> the files of its
    subpackage: those under ``v<N>/``, the runtime and the top-level modules beside."""
    files = {
        f"{folder(version)}/{name}": text
        for version, generated in parts.items()
        for name, text in generated.items()
    }
    stateful = [version for version, generated in parts.items() if "state.py" in generated]
    header = render.header(record, target.name)
    runtime = target.runtime_files(bool(stateful))
    shared = resources.files("acp_codegen").joinpath("runtime")
    runtime.update((name, shared.joinpath(name)) for name in RUNTIME)
    top = {name: header + source.read_text(encoding="utf-8") for name, source in runtime.items()}
    context: dict[str, Any] = {
        "provenance": record,
        "package": package,
        "versions": list(parts),
        "folders": [folder(v) for v in parts],
        "api": naming.API,
        "delegated": DELEGATED,
    }
    modules = tuple(f"versions/{name}" for name in TOP if name == "__init__.py" or stateful)
    for name, text in render.render(modules, context, target.name).items():
        top[name.removeprefix("versions/")] = text
    top["py.typed"] = ""
    files.update(format_sources(top, formatter, line_length))
    return files
