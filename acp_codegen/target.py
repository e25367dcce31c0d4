"""What a target is: one folder under ``acp_codegen/targets/`` plus its templates.

A `Target` names its lowering (IR -> `View`, a `lowering.Lowering` subclass)
and the library the generator needs to produce it. Everything else is found by
convention, so adding a target touches no list here:

- runtime files: every ``*.py`` in ``acp_codegen/targets/<name>/runtime/``, plus
  the shared ones in ``acp_codegen/runtime/`` that the target names in `shared`;
- templates: each generated module ``<file>`` is rendered from ``<file>.j2`` found
  first in a user's ``--templates`` folder, then ``templates/<name>/``, then
  ``templates/common/`` (see `render`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable

from . import installs, ir
from .errors import UsageError
from .views import View

#: The runtime contract: every name generated code (shared templates and `lowering`) reads
#: from ``_runtime.py`` as ``_rt.<name>`` or imports from it, on every target. A target's
#: own templates and lowering may use more; it lists those in `Target.runtime_extras`.
#: tests/test_runtime_contract.py checks both lists against the templates, the lowerings
#: and each target's runtime.
RUNTIME_CONTRACT = {
    "NOTHING": "a repair's replacement where nothing took the value's place (public)",
    "UNSET": "the value of an omitted optional field (public)",
    "UnsetType": "its type (public)",
    "DecodeError": "the one exception decoding raises (public)",
    "Handler": "base of the generated handler class: warns of unused on_* overrides",
    "Method": "a row of the METHODS table: side, params and result types",
    "OpenStrEnum": "base of a string enum that keeps unknown values",
    "OpenIntEnum": "base of an integer enum that keeps unknown values",
    "UnknownVariant": "base of the class holding an unknown tagged-union member",
    "tagged_union": "the runtime type of a tagged union, from its tag table",
    "lenient": "field marker: a bad value becomes the default (x-deserialize-default-on-error)",
    "skip_invalid": "list marker: bad items are dropped (x-deserialize-skip-invalid-items)",
    "null_empty": "field marker: null reads as the given empty array or map "
    "(x-deserialize-default-on-null)",
    "decode": "the slow path: decode with leniency and unknown members kept",
    "convert": "the slow path for an already parsed JSON value",
    "Number": "a JSON number: an int or a float, so integers re-encode as integers",
    "MISS": "what a strict attempt returns when a value does not fit",
    "Repair": "one change leniency made while decoding (public)",
    "extra_fields": "the undeclared properties an object kept (public)",
    "Route": "a message's method, id, session ID and update kind, as `peek` reads them (public)",
    "peek": "the `Route` of a JSON-RPC message, its body left unbuilt (public)",
    "is_request": "whether a JSON-RPC message is a request (it has an id)",
}

#: The generated modules every target renders (`STATE_MODULES` too when the schema has a
#: reducer).
MODULES = ("__init__.py", "models.py", "dispatch.py", "codec.py", "_provenance.py")
STATE_MODULES = ("state.py", "conformance.py")
#: Shared runtime files (in ``acp_codegen/runtime/``) that `STATE_MODULES` import.
STATE_RUNTIME = ("_state.py", "_handlers.py", "_conformance.py", "_transcript.py")


@dataclass(frozen=True)
class WireNames:
    """Characters a target's library cannot hold in a property's wire name.

    A target declares them; `accept` refuses such a name on every target, so that
    every target accepts the same schemas.
    """

    #: A regular expression matching any one of those characters.
    chars: str
    #: The characters in words, for the error line (``a quote or a backslash``).
    what: str
    #: Whole names the target keeps for itself.
    reserved: tuple[str, ...] = ()

    def refuses(self, wire: str) -> bool:
        return re.search(self.chars, wire) is not None


@dataclass(frozen=True)
class Target:
    """One model library the generator can write for."""

    name: str
    #: IR module, keep-unknown-fields flag -> the template view.
    lower: Callable[[ir.Module, bool], View]
    #: Shared runtime files this target's package carries besides `STATE_RUNTIME`.
    shared: tuple[str, ...] = ("_base.py", "_read.py")
    #: A library the generator requires for this target (it refuses the target without it),
    #: and the extra of acp-codegen that pins it.
    requires: tuple[str, str] | None = None
    #: How many levels deep definitions may name one another: the library builds a model
    #: type by recursing once per level. `accept` refuses, on every target, a chain deeper
    #: than the smallest limit any registered target declares (see `limits`).
    max_model_chain: int = 256
    #: Characters the library cannot hold in a property's wire name; `accept` refuses such
    #: a name on every target.
    wire_names: WireNames | None = None
    #: Modules its generated code imports by name, so that no class or attribute shadows
    #: one: `naming.GENERATED_MODULES` reads this keyword from the folder's source, so
    #: write it as a literal tuple.
    modules: tuple[str, ...] = ()
    #: Public attributes the library's model base class defines (for pydantic, `BaseModel`'s
    #: methods): `naming.MODEL_ATTRIBUTES` reads this keyword from the folder's source, like
    #: `modules`, and moves a field of that name on every target, so write a literal tuple.
    #: tests/test_naming.py checks it against the installed library.
    model_attributes: tuple[str, ...] = ()
    #: ``_rt.<name>``s this target's own templates and lowering use beyond `RUNTIME_CONTRACT`.
    runtime_extras: tuple[str, ...] = ()

    def check_installed(self) -> None:
        """Refuse, in one line, a target whose library is not installed."""
        if self.requires is None:
            return
        library, extra = self.requires
        try:
            importlib.import_module(library)
        except ImportError:
            command = installs.install_hint(installs.requirement(extra, library))
            raise UsageError(
                f"--target {self.name} needs {library}, which is not installed; run: {command}"
            ) from None

    def runtime_dir(self) -> Traversable:
        return resources.files("acp_codegen").joinpath("targets", self.name, "runtime")

    def runtime_files(self, with_state: bool) -> dict[str, Traversable]:
        """Package file name -> its hand-written source, the target's own files last."""
        shared = resources.files("acp_codegen").joinpath("runtime")
        names = self.shared + (STATE_RUNTIME if with_state else ())
        files = {name: shared.joinpath(name) for name in names}
        own = sorted(
            (f for f in self.runtime_dir().iterdir() if f.name.endswith(".py")),
            key=lambda f: f.name,
        )
        files.update((f.name, f) for f in own)
        return files
