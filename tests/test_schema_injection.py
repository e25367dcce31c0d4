"""Fuzz: schema text and names never become code in the generated package.

hypothesis builds schemas whose title, descriptions, definition names,
property names, tag values and enum values are assembled from fragments that
end string literals, comments and jinja blocks (``\"\"\"``, backslashes, ``{{``,
NUL, line separators, ...) around a statement that would set
``builtins.ACP_FUZZ_RAN``. Each schema must either generate a package whose
files compile, whose import runs none of that text and whose docstrings hold
the text as data, or (for property names msgspec cannot carry) be refused with
one clean line, the same line on every target.

``ACP_INJECTION_EXAMPLES`` sets the examples per test (default 25).
"""

from __future__ import annotations

import builtins
import importlib
import itertools
import os
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_codegen import emit
from acp_codegen.errors import SchemaError, escape_pointer_token
from acp_codegen.pipeline import Job, generate
from acp_codegen.targets import TARGETS
from tests.hostile_cases import SCHEMA_URI

FLAG = "ACP_FUZZ_RAN"
PAYLOAD = f"import builtins; builtins.{FLAG} = True"
FRAGMENTS = [
    '"""', "'''", '"', "'", "\\", "\\n", "{{", "}}", "{%", "%}", "{#", "#}", "#", "(", ")",
    ":", ";", "\n", "\r", "\r\n", "\x00", "\x0b", "\x0c", "\u2028", "\x85", "\t", " ", "a",
    PAYLOAD, f"\n{PAYLOAD}\n", f'"""\n{PAYLOAD}\n"""', f"'); {PAYLOAD} #",
]  # fmt: skip
HOSTILE = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=10).map("".join)
#: Property names without what msgspec refuses in a wire name (quotes, backslashes, controls),
#: which every target therefore refuses.
SAFE_NAME = HOSTILE.map(lambda s: "".join(c for c in s if c not in '"\\' and ord(c) >= 0x20))
EXAMPLES = int(os.environ.get("ACP_INJECTION_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
_COUNTER = itertools.count()


@st.composite
def hostile_schemas(draw: st.DrawFn, names: st.SearchStrategy[str] = SAFE_NAME) -> dict[str, Any]:
    """A session/update schema with hostile text in every slot that carries text."""
    texts = st.shared(HOSTILE, key="text") if draw(st.booleans()) else HOSTILE

    def body(index: int) -> dict[str, Any]:
        props = {f"p{index}{draw(names)}": {"type": "string", "description": draw(texts)}}
        return {"type": "object", "description": draw(texts), "properties": props}

    def_names = [f"D{i}{draw(HOSTILE)}" for i in range(2)]
    variants = [
        {
            "type": "object",
            "description": draw(texts),
            "properties": {"sessionUpdate": {"type": "string", "const": f"t{i}{draw(HOSTILE)}"}},
            "required": ["sessionUpdate"],
            "allOf": [{"$ref": "#/$defs/" + escape_pointer_token(name)}],
        }
        for i, name in enumerate(def_names)
    ]
    defs = {name: body(i) for i, name in enumerate(def_names)}
    defs["SessionUpdate"] = {"description": draw(texts), "oneOf": variants}
    defs["SessionNotification"] = {
        "x-method": "session/update",
        "description": draw(texts),
        "type": "object",
        "properties": {"update": {"$ref": "#/$defs/SessionUpdate"}},
        "required": ["update"],
    }
    consts = [{"const": f"e{i}{draw(HOSTILE)}", "description": draw(texts)} for i in range(2)]
    defs["Choice"] = {"description": draw(texts), "oneOf": consts}
    defs["Alias"] = {"description": draw(texts), "type": "string"}
    return {"$schema": SCHEMA_URI, "title": draw(texts), "$defs": defs}


def _class_docs(document: dict[str, Any]) -> list[str]:
    """Descriptions that become class docstrings: bodies, variants and the enum."""
    defs = document["$defs"]
    bodies = [s["description"] for n, s in defs.items() if n.startswith("D")]
    variants = [v["description"] for v in defs["SessionUpdate"]["oneOf"]]
    return bodies + variants + [defs["Choice"]["description"]]


def _bare(text: str) -> str:
    """The text's non-whitespace characters: what a docstring must keep, in order."""
    return "".join(text.split())


def _generate(document: dict[str, Any], root: Path) -> tuple[str, dict[str, str]]:
    import json

    package = f"fuzz_pkg_{next(_COUNTER)}"
    schema = root / f"{package}.json"
    schema.write_text(json.dumps(document), encoding="utf-8")
    files = generate(Job(schema, root / package, package, take_all=True))
    emit.write_tree(root / package, files)
    return package, files


@FUZZ
@given(document=hostile_schemas())
def test_hostile_text_stays_data(document: dict[str, Any], tmp_path: Path) -> None:
    package, files = _generate(document, tmp_path)
    for path, text in files.items():
        if path.endswith(".py"):
            compile(text, path, "exec")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        module = importlib.import_module(package)
        assert not hasattr(builtins, FLAG), "schema text ran as code"
        assert _bare(document["title"]) in _bare(module.__doc__ or "")
        docs = [_bare(c.__doc__ or "") for c in vars(module.models).values() if isinstance(c, type)]
        for description in _class_docs(document):
            assert _bare(description) in docs or not _bare(description), description
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            del sys.modules[name]


@FUZZ
@given(
    document=hostile_schemas(
        names=HOSTILE.filter(lambda s: any(c in s for c in '"\\\x00\n\r\x0b\x0c'))
    )
)
def test_unrepresentable_property_names_are_refused(
    document: dict[str, Any], tmp_path: Path
) -> None:
    """Refused with one line, and with the same line whatever the target."""
    import json

    schema = tmp_path / f"refused_{next(_COUNTER)}.json"
    schema.write_text(json.dumps(document), encoding="utf-8")
    lines = set()
    for target in TARGETS:
        try:
            generate(Job(schema, tmp_path / "pkg", "pkg", take_all=True, target=target))
        except SchemaError as exc:
            lines.add(str(exc))
        else:
            raise AssertionError(f"{target} accepted a name msgspec cannot rename to")
    (line,) = lines
    assert "\n" not in line and "holds a quote, backslash or control character" in line
    assert not hasattr(builtins, FLAG)
    assert not (tmp_path / "pkg").exists()
