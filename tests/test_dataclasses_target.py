"""What only the dataclasses target promises, beyond the shared behaviour suites.

The generated package needs nothing but the standard library: it imports and works in
an interpreter that cannot import msgspec or pydantic (nor anything from site-packages),
and its models are plain keyword-only dataclasses.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from acp_codegen import emit
from acp_codegen.pipeline import Job, generate
from tests.conftest import OWN_SCHEMA, GenerateFn

CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "hi"},
}

#: Run in ``python -I -S``: sys.path is the stdlib, a folder of stubs that refuse to import
#: msgspec and pydantic, and the output folder.
_ISOLATED = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import stdlib_pkg as acp
outside = sorted({m.split(".")[0] for m in sys.modules} - set(sys.stdlib_module_names)
                 - {"stdlib_pkg", "__main__"})
assert outside == [], outside
message = {"jsonrpc": "2.0", "method": "session/update",
           "params": {"sessionId": "s", "update": json.loads(sys.argv[3])}}
params = acp.decode_notification(json.dumps(message))
assert type(params.update) is acp.AgentMessageChunk, params
assert json.loads(acp.encode(params)) == message["params"]
unknown = acp.decode_update(b'{"sessionUpdate": "_later", "x": 1}')
assert json.loads(acp.encode(unknown)) == {"sessionUpdate": "_later", "x": 1}
print("ok", len(acp.SESSION_UPDATE_VARIANTS))
"""


def test_package_imports_with_only_the_stdlib(tmp_path: Path) -> None:
    out = tmp_path / "out"
    files = generate(Job(OWN_SCHEMA, out / "stdlib_pkg", "stdlib_pkg", target="dataclasses"))
    emit.write_tree(out / "stdlib_pkg", files)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in ("msgspec", "pydantic", "pydantic_core", "typing_extensions"):
        (stubs / f"{name}.py").write_text(f"raise ImportError('{name} is not installed')\n")
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _ISOLATED, str(stubs), str(out), json.dumps(CHUNK)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok ")


@pytest.fixture(scope="module")
def pkg(make_package: GenerateFn) -> ModuleType:
    return make_package(OWN_SCHEMA, "dc_own", target="dataclasses")


def test_models_are_keyword_only_dataclasses(pkg: ModuleType) -> None:
    cls = pkg.AgentMessageChunk
    assert dataclasses.is_dataclass(cls)
    wire = {f.name: f.metadata.get("acp_wire", f.name) for f in dataclasses.fields(cls)}
    assert wire["message_id"] == "messageId" and wire["meta"] == "_meta"
    with pytest.raises(TypeError):
        cls("m", pkg.TextContent(text="x"))  # keyword-only
    built = cls(message_id="m", content=pkg.TextContent(text="x"))
    assert built.meta is pkg.UNSET
    assert json.loads(pkg.encode(built)) == {**CHUNK, "content": {"type": "text", "text": "x"}}


def test_unset_null_and_value_stay_apart(pkg: ModuleType) -> None:
    base = {"sessionUpdate": "tool_call_update", "toolCallId": "t"}
    omitted = pkg.decode_update(json.dumps(base))
    nulled = pkg.decode_update(json.dumps({**base, "title": None}))
    given = pkg.decode_update(json.dumps({**base, "title": "x"}))
    assert (omitted.title, nulled.title, given.title) == (pkg.UNSET, None, "x")
    for obj, raw in ((omitted, base), (nulled, {**base, "title": None})):
        assert json.loads(pkg.encode(obj)) == raw


@pytest.mark.parametrize(
    "payload",
    [
        b'{"sessionUpdate":"_x","v":NaN}',
        b'{"sessionUpdate":"_x","v":1e400}',
        b'{"sessionUpdate":"_x","v":"\\ud800"}',
        '{"sessionUpdate":"_x","v":"\ud800"}',
        b'{"sessionUpdate":"_x","\\udfff":1}',
    ],
)
def test_what_json_cannot_write_back_is_refused(pkg: ModuleType, payload: bytes | str) -> None:
    with pytest.raises(pkg.DecodeError):
        pkg.decode_update(payload)


def test_a_surrogate_pair_is_text(pkg: ModuleType) -> None:
    update = pkg.decode_update(b'{"sessionUpdate":"_x","v":"\\ud83d\\ude00"}')
    assert pkg.encode(update) == '{"sessionUpdate":"_x","v":"\U0001f600"}'.encode()
