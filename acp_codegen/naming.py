"""Naming: the one place where schema words become Python names.

Every function here is pure and total over strings; the build stage calls them
and stores the results in the IR so templates never compute a name. Nothing is
looked up in a hand-kept table: names come from def names, tag values, property
wire names and enum values by fixed rules, and the only word lists are the ones
Python itself publishes (`keyword.kwlist`, `dir(builtins)`), the names a
generated package binds itself (its imports and public API) and the attributes the
model base classes it derives from define, as each target's folder declares them
(tests check each declaration against the library).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .views import PackageView, View

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+[a-z]*")
_NON_IDENT = re.compile(r"[^0-9A-Za-z_]")


_TARGETS = Path(__file__).parent / "targets"


def declared(keyword: str, folder: Path = _TARGETS) -> frozenset[str]:
    """The names every target's folder declares under `keyword` (``Target(..., keyword=(...))``
    in its ``__init__.py``, a literal tuple).

    Read from the source text, not imported: the targets import this module, and the
    names must be known before any target is built (and whether or not the target's
    library is installed, so that no name depends on it).
    """
    found: set[str] = set()
    for init in sorted(folder.glob("*/__init__.py")):
        for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == keyword:
                found.update(ast.literal_eval(node.value))
    return frozenset(found)


def target_modules(folder: Path = _TARGETS) -> frozenset[str]:
    """The library modules every target's generated code imports (`target.Target.modules`)."""
    return declared("modules", folder)


#: Modules the generated files import by name (the templates' own, then every target's);
#: a class or a struct attribute with one of these names would shadow the module for the
#: code after it.
GENERATED_MODULES = (
    frozenset({"enum", "importlib", "typing", "typing_extensions"}) | target_modules()
)
#: Attributes some target's model base class defines (`target.Target.model_attributes`): a
#: field named like one would hide it, so it moves off the name on every target alike.
MODEL_ATTRIBUTES = declared("model_attributes")
# The generated package's API besides its model classes and variant tables, by module.
# `package_view` is the one place that turns these into imports and ``__all__`` lists,
# and the templates spell every one of them through `API` (``{{ api.decode }}``).


@dataclass(frozen=True)
class ApiNames:
    """The module-level names a generated package defines besides its models."""

    decode: str = "decode"
    encode: str = "encode"
    decode_update: str = "decode_update"
    decode_notification: str = "decode_notification"
    decode_error: str = "DecodeError"
    repair: str = "Repair"
    extra_fields: str = "extra_fields"
    peek: str = "peek"
    route: str = "Route"
    methods: str = "METHODS"
    dispatch: str = "dispatch"
    session_state: str = "SessionState"
    entity: str = "Entity"
    variant_class: str = "VariantClass"
    type_var: str = "T"


API = ApiNames()
#: Re-exported from the copied runtime (see `target.RUNTIME_CONTRACT`).
RUNTIME_API = ("NOTHING", "UNSET", API.decode_error, "UnsetType")
#: ``codec``: always, then the decoders that exist when the schema has an update union
#: and a notification.
CODEC_API = (
    API.decode_error,
    API.repair,
    API.decode,
    API.encode,
    API.extra_fields,
    API.peek,
    API.route,
)
UPDATE_DECODER = API.decode_update
NOTIFICATION_DECODER = API.decode_notification
#: ``dispatch``: the method table, and the dispatcher when there is an update union.
METHOD_TABLE = API.methods
DISPATCHER = API.dispatch
#: ``state``: present when the schema's annotations describe a reducer.
STATE_API = (API.entity, API.session_state)
SUBMODULES = ("models", "codec", "dispatch", "state", "conformance")
#: Other module-level names of a generated package: its public API and submodules.
PACKAGE_NAMES = frozenset(
    {API.type_var, API.variant_class, UPDATE_DECODER, NOTIFICATION_DECODER, METHOD_TABLE}
    | {DISPATCHER}
    | set(RUNTIME_API + CODEC_API + STATE_API + SUBMODULES)
)
#: Names a generated class must not take: Python keywords, builtins and the names above.
RESERVED_CLASS_NAMES = (
    frozenset(keyword.kwlist)
    | frozenset(name for name in dir(builtins) if not name.startswith("_"))
    | GENERATED_MODULES
    | PACKAGE_NAMES
)
#: The dispatch handler method of an open union's unknown members.
UNKNOWN_HANDLER = "on_unknown"


def words(text: str) -> list[str]:
    """Split camelCase, PascalCase, snake_case, kebab-case and spaced text into words."""
    return _WORD.findall(text)


def snake(text: str) -> str:
    """``toolCallId`` -> ``tool_call_id``; ``HTTPHeader`` -> ``http_header``."""
    return "_".join(word.lower() for word in words(text))


def pascal(text: str) -> str:
    """``agent_message_chunk`` -> ``AgentMessageChunk``; ``date-time`` -> ``DateTime``."""
    return "".join(word[:1].upper() + word[1:] for word in words(text))


def constant(text: str) -> str:
    """An UPPER_SNAKE constant for an enum value or title; never empty, never digit-first."""
    name = "_".join(word.upper() for word in words(text))
    if not name:
        return "EMPTY"
    return f"V_{name}" if name[0].isdigit() else name


def folded(text: str) -> str:
    """`text` as Python reads it in an identifier: NFKC-normalized (``ｓｔｒ`` -> ``str``).

    Every name is derived from the folded text, so the reserved-name and collision
    checks see what the interpreter will see.
    """
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def attribute(wire_name: str) -> str:
    """The snake_case attribute for a property's wire name.

    ``_meta`` -> ``meta``; a keyword gets a trailing underscore (``from`` ->
    ``from_``); characters that cannot appear in an identifier split words; a
    name that would start with a digit gets a ``field_`` prefix. A module name the
    class body uses (``msgspec`` -> ``msgspec_``) and an attribute a model base class
    defines (``json`` -> ``json_``, for pydantic's `BaseModel`) get the underscore too,
    on every target, so an attribute is spelled the same whatever the target.
    """
    name = snake(_NON_IDENT.sub(" ", folded(wire_name)))
    if not name:
        name = "field"
    if name[0].isdigit():
        name = "field_" + name
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        name += "_"
    elif name in GENERATED_MODULES or name in MODEL_ATTRIBUTES:
        name += "_"
    return name


def class_name(def_name: str) -> str:
    """The class name for a `$defs` entry: kept when it is a valid, unreserved identifier."""
    def_name = folded(def_name)
    name = def_name if def_name.isidentifier() else pascal(_NON_IDENT.sub(" ", def_name))
    if not name:
        name = "Model"
    if name[0].isdigit():
        name = "Model" + name
    name = name.lstrip("_") or "Model"
    if name in RESERVED_CLASS_NAMES:
        name += "_"
    return name


def variant_class_name(tag: str, union: str, body: str | None) -> str:
    """Name the class of a tagged-union variant from its tag and its body's class name.

    - A body whose name already contains the tag's words names the variant
      (``text`` + ``TextContent`` -> ``TextContent``, ``tool_call_update`` +
      ``ToolCallUpdate`` -> ``ToolCallUpdate``); a body other definitions use too then
      keeps its fields under `fields_class_name`.
    - Otherwise the tag names it when its last word matches the union's or the
      body's last word (``agent_message_chunk`` + ``ContentChunk`` ->
      ``AgentMessageChunk``), and the tag plus the union name otherwise
      (``add`` in ``DiffChange`` -> ``AddDiffChange``).
    """
    tag_name = pascal(tag) or "Empty"
    if body is not None and tag_name in body:
        return class_name(body)
    tag_last = words(tag_name)[-1:]
    related = words(union)[-1:] + (words(body)[-1:] if body else [])
    if tag_last and tag_last[0] in related:
        return class_name(tag_name)
    return class_name(tag_name + union)


def fields_class_name(body: str) -> str:
    """The class of a variant's body that other definitions use too, whose own name the
    variant takes: ``ToolCallUpdate`` -> ``ToolCallUpdateFields`` (its fields alone, with
    no tag: what a permission request's ``toolCall`` holds)."""
    return class_name(body + "Fields")


def unknown_class_name(union: str) -> str:
    """``SessionUpdate`` -> ``UnknownSessionUpdate``."""
    return "Unknown" + union


def variants_table_name(union: str) -> str:
    """``SessionUpdate`` -> ``SESSION_UPDATE_VARIANTS``."""
    return constant(union) + "_VARIANTS"


def handler_method(tag: str) -> str:
    """``agent_message_chunk`` -> ``on_agent_message_chunk``."""
    return "on_" + (attribute(tag).rstrip("_") or "empty")


def handler_class(union: str) -> str:
    """The handler protocol of an update union: ``SessionUpdate`` -> ``SessionUpdateHandler``."""
    return union + "Handler"


def package_view(view: View, state_models: Iterable[str] | None) -> PackageView:
    """Every public name, import and ``__all__`` of the generated package, computed once.

    `state_models` are the model classes ``state.py`` names; None when the package has no
    reducer. Lists meant for ``__all__`` use `isort_key`, lists meant for an import use
    `import_key`, which is the order ruff keeps.
    """
    codec = list(CODEC_API)
    if view.update_union:
        codec.append(UPDATE_DECODER)
    if view.notification:
        codec.append(NOTIFICATION_DECODER)
    dispatch = [t.name for t in view.tables] + [METHOD_TABLE]
    if view.handler:
        dispatch += [view.handler, DISPATCHER]
    state = STATE_API if state_models is not None else ()
    models = set(view.model_names)
    everything = models | set(codec) | set(dispatch) | set(RUNTIME_API) | set(state)
    return PackageView(
        runtime=RUNTIME_API,
        models=_sorted(models, import_key),
        codec=_sorted(codec, isort_key),
        codec_imports=_sorted((n for n in codec if n not in RUNTIME_API), import_key),
        codec_models=_sorted({n for n in (view.update_union, view.notification) if n}, import_key),
        dispatch=_sorted(dispatch, isort_key),
        dispatch_imports=_sorted(dispatch, import_key),
        dispatch_models=_sorted(_dispatch_models(view), import_key),
        state=state,
        state_models=_sorted(state_models or (), import_key),
        all=_sorted(everything, isort_key),
    )


def _dispatch_models(view: View) -> set[str]:
    """The model classes ``dispatch.py`` mentions: table rows, handlers and methods."""
    names: set[str] = set()
    for table in view.tables:
        names.update(table.classes)
    names.update(cls for cls, _ in view.dispatch_rows)
    names.update(h.annotation for h in view.handlers)
    for m in view.methods:
        names.update(n for n in (m.params, m.result) if n != "None")
    if view.handler_union:
        names.add(view.handler_union)
    return names


def _sorted(names: Iterable[str], key: Callable[[str], Any]) -> tuple[str, ...]:
    return tuple(sorted(set(names), key=key))


def module_name(package: str) -> str:
    """The last component of a dotted package name."""
    return package.rsplit(".", 1)[-1]


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part
    )


def isort_key(name: str) -> tuple[int, tuple[tuple[int, int | str], ...]]:
    """Sort key matching ruff's isort/``__all__`` order: CONSTANTS, Classes, others."""
    group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return group, _natural(name)


def import_key(name: str) -> tuple[int, tuple[tuple[int, int | str], ...], str]:
    """Sort key matching ruff's isort order for imported names (case-insensitive)."""
    return isort_key(name)[0], _natural(name.lower()), name
