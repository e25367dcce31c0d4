"""``acp-codegen upgrade``: sources, the lock, bad sources, and a whole upgrade.

Every download comes from a server these tests start on the loopback interface: it
serves registry-shaped documents (npm's package document, PyPI's JSON page) and
archives built here, and plain URLs. No test touches the real network.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import http.server
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from acp_codegen import lock, sources
from acp_codegen.cli import main
from acp_codegen.errors import UsageError
from tests import corpus
from tests.conftest import OWN_SCHEMA

SDK = "@agentclientprotocol/sdk"
PATH = "schema/v2/schema.json"
NO_LINKS = "acp-codegen reads no file through a link"


# --- the loopback server -------------------------------------------------------------


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class Registry:
    """What the loopback server answers, by URL path; `url` makes an address on it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.routes: dict[str, Route] = {}
        self.hits: list[str] = []

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve(self, path: str, body: bytes | str | Any, **kwargs: Any) -> str:
        if not isinstance(body, bytes | str):
            body = json.dumps(body)
        self.routes[path] = Route(body.encode() if isinstance(body, str) else body, **kwargs)
        return self.url(path)

    def npm(self, name: str, version: str, tarball: bytes, **dist: Any) -> None:
        """npm's package document for `name` at `version`, and its tarball."""
        tar_path = f"/{name}/-/{name.rsplit('/', 1)[-1]}-{version}.tgz"
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
        document = {
            "name": name,
            "dist-tags": {"latest": version},
            "versions": {
                version: {"dist": {"tarball": self.url(tar_path), "integrity": integrity, **dist}}
            },
        }
        self.serve("/" + name.replace("/", "%2F"), document)
        self.serve(tar_path, tarball)

    def pypi(self, name: str, version: str, files: dict[str, bytes]) -> None:
        """PyPI's JSON page for `name` with `files` (name -> bytes), linked relatively."""
        urls = []
        for filename, data in files.items():
            kind = "sdist" if filename.endswith(".tar.gz") else "bdist_wheel"
            self.serve(f"/packages/{filename}", data)
            urls.append(
                {
                    "filename": filename,
                    "packagetype": kind,
                    "url": f"../../packages/{filename}",
                    "digests": {"sha256": hashlib.sha256(data).hexdigest()},
                }
            )
        self.serve(f"/pypi/{name}/json", {"info": {"version": version}, "urls": urls})


@pytest.fixture
def registry() -> Iterator[Registry]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            state: Registry = self.server.registry  # type: ignore[attr-defined]
            state.hits.append(self.path)
            route = state.routes.get(self.path, Route(b"not found", 404))
            time.sleep(route.delay)
            self.send_response(route.status)
            headers = {"Content-Length": str(len(route.body)), **route.headers}
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(route.body)
            except OSError:
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.registry = Registry(server.server_address[1])  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.registry  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


# --- archives and schemas ------------------------------------------------------------


def tarball(members: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A gzipped tarball holding `members` (name -> bytes) and symlinks (name -> target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
    return buffer.getvalue()


def wheel(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def own() -> dict[str, Any]:
    return json.loads(OWN_SCHEMA.read_text(encoding="utf-8"))


def revised(kind: str) -> bytes:
    """Our own schema, revised: "additive" (a new optional field), "breaking" (that field
    required, and another optional one) or "refused" (a keyword no target enforces)."""
    document = copy.deepcopy(own())
    entry = document["$defs"]["PlanEntry"]
    entry["properties"]["note"] = {"type": "string"}
    if kind == "breaking":  # and one additive change beside it
        entry["required"] = [*entry.get("required", []), "note"]
        entry["properties"]["hint"] = {"type": "string"}
    if kind == "refused":
        entry["maxProperties"] = 9
    return (json.dumps(document, indent=2) + "\n").encode()


def make_project(root: Path, source: str | None = None, **keys: str) -> Path:
    """A project vendoring our own schema as schema/v2/schema.json, generated."""
    (root / "schema" / "v2").mkdir(parents=True)
    shutil.copy(OWN_SCHEMA, root / PATH)
    lines = [
        "[tool.acp-codegen]",
        f'schema = "{PATH}"',
        'out = "app/acp"',
        'package = "app.acp"',
    ]
    if source is not None:
        lines.append(f"source = {source}")
    lines += [f'{k} = "{v}"' for k, v in keys.items()]
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def run(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.chdir(root)
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project generated once, with no source key, for tests to copy."""
    root = make_project(tmp_path_factory.mktemp("generated") / "proj")
    with pytest.MonkeyPatch.context() as patch:
        assert run(root, "generate", monkeypatch=patch).exit_code == 0
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path / "proj", f'{{ npm = "{SDK}", path = "{PATH}" }}')
    assert run(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    return root


def point_npm_at(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_registry", registry.url("/"))


# --- sources -------------------------------------------------------------------------


SPELLINGS = [
    (f"npm:{SDK}#{PATH}", sources.Source("npm", SDK, PATH)),
    ("pypi:some-project#data/acp.json", sources.Source("pypi", "some-project", "data/acp.json")),
    ("git:../acp#schema/v1/schema.json", sources.Source("git", "../acp", "schema/v1/schema.json")),
    ("https://example.com/s.json", sources.Source("url", "https://example.com/s.json")),
    ("../acp/schema.json", sources.Source("file", "../acp/schema.json")),
    ("file:../acp/schema.json", sources.Source("file", "../acp/schema.json")),
    ({"npm": SDK, "path": PATH, "tag": "next"}, sources.Source("npm", SDK, PATH, tag="next")),
    ({"git": "../acp", "path": PATH, "ref": "v2"}, sources.Source("git", "../acp", PATH, ref="v2")),
]


@pytest.mark.parametrize(("value", "expected"), SPELLINGS)
def test_a_source_reads_from_a_string_or_a_table(value: object, expected: sources.Source) -> None:
    assert sources.parse(value, "source", Path(".")) == expected


BAD_SPELLINGS = [
    (f"npm:{SDK}", "source: a npm source needs the path of the schema inside it"),
    (f"npm:{SDK}#../x.json", "source: '../x.json' is not a plain relative path inside the package"),
    (
        f"npm:{SDK}#/etc/passwd",
        "source: '/etc/passwd' is not a plain relative path inside the package",
    ),
    ("npm:Not A Name#x.json", "source: 'Not A Name' is not an npm package name"),
    (
        "http://example.com/s.json",
        "source: URL http://example.com/s.json is plain http; only https is fetched",
    ),
    ({"npm": SDK}, "source: a npm source needs the path of the schema inside it"),
    ({"npm": SDK, "url": "https://x"}, "source must name exactly one of npm, pypi, url, file, git"),
    (
        {"npm": SDK, "path": PATH, "pth": "x"},
        "source has the unknown key 'pth'; did you mean 'path'?",
    ),
    ({"npm": SDK, "path": PATH, "sha256": "abc"}, "source: sha256 must be 64 lowercase hex digits"),
    ({"file": "x.json", "path": PATH}, "source: a file source takes no path"),
    ({"url": "https://x/s.json", "tag": "next"}, "source: only an npm source takes a tag"),
    ({"npm": SDK, "path": 3}, "source key 'path' must be a non-empty string"),
    (3, "source must be a string or a table"),
]


@pytest.mark.parametrize(("value", "message"), BAD_SPELLINGS)
def test_a_bad_source_is_one_line(value: object, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        sources.parse(value, "source", Path("."))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("name", "family", "path"),
    [
        ("schema.json", "v2", "schema/v2/schema.json"),
        ("schema.unstable.json", "v2", "schema/v2/schema.unstable.json"),
        ("acp.json", "v1", "schema/v1/schema.json"),
        ("acp-v1.unstable.json", "v1", "schema/v1/schema.unstable.json"),
    ],
)
def test_the_default_source_follows_the_protocol_line(name: str, family: str, path: str) -> None:
    assert sources.default_for(Path(name), family) == sources.Source("npm", SDK, path)


def test_npm_pypi_url_file_and_git_sources_fetch(registry: Registry, tmp_path: Path) -> None:
    data = OWN_SCHEMA.read_bytes()
    registry.npm(SDK, "9.1.0", tarball({f"package/{PATH}": data, "package/README.md": b"hi"}))
    npm = sources.parse({"npm": SDK, "path": PATH, "registry": registry.url("/")}, "s", tmp_path)
    fetched = sources.fetch(npm)
    assert (fetched.data, fetched.version) == (data, "9.1.0")
    assert fetched.lock() == {
        "source": f"npm:{SDK}#{PATH}",
        "sha256": hashlib.sha256(data).hexdigest(),
        "version": "9.1.0",
        "url": registry.url(f"/{SDK}/-/sdk-9.1.0.tgz"),
    }
    assert fetched.origin() == f"npm {SDK}@9.1.0 {PATH}"

    registry.pypi(
        "acp-schema", "1.2", {"acp_schema-1.2.tar.gz": tarball({"acp_schema-1.2/d/s.json": data})}
    )
    pypi = {"pypi": "acp-schema", "path": "d/s.json", "registry": registry.url("/pypi")}
    assert sources.fetch(sources.parse(pypi, "s", tmp_path)).data == data
    registry.pypi("acp-wheel", "2.0", {"acp_wheel-2.0-py3-none-any.whl": wheel({"d/s.json": data})})
    pypi = {"pypi": "acp-wheel", "path": "d/s.json", "registry": registry.url("/pypi")}
    assert sources.fetch(sources.parse(pypi, "s", tmp_path)).version == "2.0"

    url = registry.serve("/plain/s.json", data)
    assert sources.fetch(sources.parse({"url": url}, "s", tmp_path)).data == data

    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "s.json").write_bytes(data)
    assert sources.fetch(sources.parse("up/s.json", "s", tmp_path)).data == data

    checkout = tmp_path / "checkout"
    (checkout / "schema" / "v2").mkdir(parents=True)
    (checkout / PATH).write_bytes(data)
    git = ["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "schema"], check=True)
    fetched = sources.fetch(sources.parse(f"git:checkout#{PATH}", "s", tmp_path))
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    assert (fetched.data, fetched.version) == (data, head.stdout.strip())


# --- bad sources: one line, exit 2, nothing written -----------------------------------


def _bad(registry: Registry, case: str, root: Path) -> tuple[str, str]:
    """Set `registry` up for `case`; returns the job's source and the expected line."""
    good = revised("additive")
    tgz = f"/{SDK}/-/sdk-9.0.0.tgz"
    where = f"{SDK}@9.0.0 ({registry.url(tgz)})"
    npm = f'{{ npm = "{SDK}", path = "{PATH}", registry = "{registry.url("/")}" }}'
    if case == "404":
        url = registry.url("/missing.json")
        return f'"{url}"', f"error: {url} answered HTTP 404 Not Found"
    if case == "not gzip":
        registry.npm(SDK, "9.0.0", b"PK\x03\x04 not a tarball")
        return npm, f"error: {where} is not a gzip file"
    if case == "dot-dot entry":
        registry.npm(SDK, "9.0.0", tarball({f"package/{PATH}": good, "package/../../evil": b"x"}))
        return npm, f"error: {where} holds the entry 'package/../../evil', outside the archive"
    if case == "absolute entry":
        outside = str(root.parent / "absolute-evil")
        registry.npm(SDK, "9.0.0", tarball({f"package/{PATH}": good, outside: b"x"}))
        return npm, f"error: {where} holds the entry '{outside}', outside the archive"
    if case == "symlink":
        registry.npm(SDK, "9.0.0", tarball({}, {f"package/{PATH}": "/etc/passwd"}))
        return npm, f"error: {where}: {PATH} is a link in the archive; {NO_LINKS}"
    if case == "symlinked folder":
        registry.npm(
            SDK, "9.0.0", tarball({f"real/{PATH}": good}, {"package/schema": "../real/schema"})
        )
        return npm, f"error: {where}: schema is a link in the archive; {NO_LINKS}"
    if case == "no such file":
        registry.npm(SDK, "9.0.0", tarball({"package/README.md": b"hi"}))
        return npm, f"error: {where} has no file {PATH}"
    if case == "over the cap":
        url = registry.serve("/big.json", b"{}", headers={"Content-Length": str(17 * 1024 * 1024)})
        return f'"{url}"', f"error: {url} is 17,825,792 bytes, over the 16,777,216-byte cap"
    if case == "not JSON":
        url = registry.serve("/s.json", b"<html>hello</html>")
        return (
            f'"{url}"',
            f"error: {url} is not a JSON schema: not valid JSON: Expecting value "
            "(line 1, column 1)",
        )
    if case == "sha256 pin":
        url = registry.serve("/s.json", good)
        pin = "0" * 64
        line = f"error: {url} has sha256 {hashlib.sha256(good).hexdigest()}, not the pinned {pin}"
        return f'{{ url = "{url}", sha256 = "{pin}" }}', line
    if case == "integrity":
        registry.npm(SDK, "9.0.0", tarball({f"package/{PATH}": good}))
        registry.routes[tgz] = Route(tarball({f"package/{PATH}": b"{}"}))
        return npm, f"error: {where} does not match the sha512 its registry lists"
    if case == "registry not JSON":
        registry.serve("/" + SDK.replace("/", "%2F"), b"<html>")
        return npm, f"error: {registry.url('/' + SDK.replace('/', '%2F'))} did not answer with JSON"
    if case == "timeout":
        url = registry.serve("/slow.json", good, delay=3)
        return f'"{url}"', f"error: {url} timed out after 0.5 s"
    if case == "unreadable dialect":
        url = registry.serve("/s.json", revised("refused"))
        return f'"{url}"', (
            f"error: {url} cannot be read by this acp-codegen, so nothing was written: error at "
            f"{url}#/$defs/PlanEntry/maxProperties: keyword 'maxProperties', which no target "
            "enforces; pass --allow-unenforced maxProperties to generate without it"
        )
    raise AssertionError(case)


BAD_SOURCES = [
    "404",
    "not gzip",
    "dot-dot entry",
    "absolute entry",
    "symlink",
    "symlinked folder",
    "no such file",
    "over the cap",
    "not JSON",
    "sha256 pin",
    "integrity",
    "registry not JSON",
    "timeout",
    "unreadable dialect",
]


@pytest.mark.parametrize("case", BAD_SOURCES)
@pytest.mark.parametrize("mode", ["--check", "", "--write"])
def test_a_bad_source_is_one_line_exit_2_and_nothing_written(
    case: str,
    mode: str,
    generated: Path,
    registry: Registry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "proj"
    shutil.copytree(generated, root, symlinks=True)
    source, line = _bad(registry, case, root)
    with open(root / "pyproject.toml", "a", encoding="utf-8") as config:
        config.write(f"source = {source}\n")
    before, around = snapshot(root), sorted(os.listdir(tmp_path))
    args = ["upgrade", *([mode] if mode else []), "--timeout", "0.5"]
    result = run(root, *args, monkeypatch=monkeypatch)
    if case == "unreadable dialect" and mode == "--check":  # --check reads no dialect
        assert result.exit_code == 1, result.output
        return
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr == line + "\n"
    assert snapshot(root) == before
    assert sorted(os.listdir(tmp_path)) == around  # nothing beside the project either


def test_a_redirect_to_plain_http_elsewhere_is_refused(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = registry.serve(
        "/moved", b"", status=302, headers={"Location": "http://example.com/s.json"}
    )
    root = make_project(tmp_path / "proj", f'"{url}"')
    result = run(root, "upgrade", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: a redirect from {url} to http://example.com/s.json is plain http; "
        "only https is fetched\n"
    )


# --- the whole upgrade -----------------------------------------------------------------


def test_current_behind_and_breaking_exit_codes(
    project: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    point_npm_at(registry, monkeypatch)
    registry.npm(SDK, "1.0.0", tarball({f"package/{PATH}": OWN_SCHEMA.read_bytes()}))
    for args in (["upgrade"], ["upgrade", "--check"]):
        result = run(project, *args, monkeypatch=monkeypatch)
        assert result.exit_code == 0, result.output
        assert f"{PATH} is current: npm {SDK}@1.0.0 {PATH}" in result.stdout

    registry.npm(SDK, "1.1.0", tarball({f"package/{PATH}": revised("additive")}))
    assert run(project, "upgrade", monkeypatch=monkeypatch).exit_code == 1
    check = run(project, "upgrade", "--check", monkeypatch=monkeypatch)
    assert check.exit_code == 1
    digest = hashlib.sha256(revised("additive")).hexdigest()[:12]
    assert check.stderr == (
        f"{PATH} is behind: npm {SDK}@1.1.0 {PATH} (sha256 {digest}) differs from it; "
        "run: acp-codegen upgrade\n"
    )

    registry.npm(SDK, "2.0.0", tarball({f"package/{PATH}": revised("breaking")}))
    result = run(project, "upgrade", monkeypatch=monkeypatch)
    assert result.exit_code == 3
    assert "BREAKING (1)" in result.stdout
    assert result.stdout.index("BREAKING") < result.stdout.index("ADDITIVE")
    assert run(project, "upgrade", "--check", monkeypatch=monkeypatch).exit_code == 1


def test_generate_and_check_stay_offline_and_verify_the_lock(
    project: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    point_npm_at(registry, monkeypatch)
    registry.npm(SDK, "1.1.0", tarball({f"package/{PATH}": revised("additive")}))
    assert run(project, "upgrade", "--write", monkeypatch=monkeypatch).exit_code == 0
    hits = len(registry.hits)

    def no_network(*args: Any) -> None:
        raise AssertionError("generate and check must not go to the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    assert run(project, "check", monkeypatch=monkeypatch).exit_code == 0
    assert run(project, "generate", monkeypatch=monkeypatch).exit_code == 0
    assert len(registry.hits) == hits

    (project / PATH).write_bytes(OWN_SCHEMA.read_bytes())  # edited by hand: not the locked file
    result = run(project, "check", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {PATH} is not the file its lock schema.json.lock names"
    )


def test_jobs_reading_one_schema_share_a_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    (root / "schema" / "v2").mkdir(parents=True)
    shutil.copy(OWN_SCHEMA, root / PATH)
    (root / "pyproject.toml").write_text(
        f'[tool.acp-codegen.jobs.a]\nschema = "{PATH}"\nout = "a/acp"\nsource = "one.json"\n'
        f'[tool.acp-codegen.jobs.b]\nschema = "{PATH}"\nout = "b/acp"\nsource = "two.json"\n',
        encoding="utf-8",
    )
    result = run(root, "upgrade", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: jobs a, b read {PATH} but name different sources (file:one.json, "
        "file:two.json); give them one\n"
    )


def test_a_flag_job_upgrades_from_the_default_source(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus.require()
    old, new = corpus.oldest(PATH), corpus.newest(PATH)
    (tmp_path / "schema" / "v2").mkdir(parents=True)
    shutil.copy(old, tmp_path / PATH)
    flags = ["--schema", PATH, "--out", "app/acp", "--package", "app.acp"]
    assert run(tmp_path, "generate", *flags, monkeypatch=monkeypatch).exit_code == 0
    point_npm_at(registry, monkeypatch)
    registry.npm(SDK, "2.3.0", tarball({f"package/{PATH}": new.read_bytes()}))
    result = run(tmp_path, "upgrade", "--write", *flags, monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert (tmp_path / PATH).read_bytes() == new.read_bytes()
    assert run(tmp_path, "check", *flags, monkeypatch=monkeypatch).exit_code == 0


def _old_and_new() -> tuple[Path, Path]:
    """An older v2 revision and the newest, from the corpus."""
    corpus.require()
    revisions = sorted(
        (r for r in corpus.schemas() if r.at(PATH)), key=lambda r: (r.commit_date, r.file)
    )
    return revisions[-2].path, revisions[-1].path


def test_a_vendored_project_upgrades_end_to_end(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _old_and_new()
    root = make_project(tmp_path / "proj", changelog="CHANGELOG.md")
    shutil.copy(old, root / PATH)
    (root / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0\n\n- First.\n", encoding="utf-8")
    assert run(root, "generate", monkeypatch=monkeypatch).exit_code == 0
    point_npm_at(registry, monkeypatch)
    registry.npm(SDK, "2.3.0", tarball({f"package/{PATH}": new.read_bytes()}))
    before = snapshot(root)

    dry = run(root, "upgrade", monkeypatch=monkeypatch)
    diff = run(
        root, "diff", str(old), str(new), "--since-package", "app/acp", monkeypatch=monkeypatch
    )
    breaking = "BREAKING" in diff.stdout
    assert dry.exit_code == (3 if breaking else 1)
    assert snapshot(root) == before
    body = diff.stdout.split("\n", 2)[2]  # the report after its old: and new: lines
    digest = hashlib.sha256(new.read_bytes()).hexdigest()[:12]
    old_digest = hashlib.sha256(old.read_bytes()).hexdigest()[:12]
    assert dry.stdout == (
        f"{PATH} is behind: npm {SDK}@2.3.0 {PATH} (sha256 {digest})\n"
        f"old: {PATH} (sha256 {old_digest}, no lock)\n"
        f"new: npm {SDK}@2.3.0 {PATH} (sha256 {digest})\n{body}"
    )
    assert (
        dry.stderr
        == "dry run, nothing written; take the revision with: acp-codegen upgrade --write\n"
    )

    wrote = run(root, "upgrade", "--write", monkeypatch=monkeypatch)
    assert wrote.exit_code == 0, wrote.output
    assert (root / PATH).read_bytes() == new.read_bytes()
    assert lock.read(root / PATH) == {
        "source": f"npm:{SDK}#{PATH}",
        "version": "2.3.0",
        "url": registry.url(f"/{SDK}/-/sdk-2.3.0.tgz"),
        "sha256": hashlib.sha256(new.read_bytes()).hexdigest(),
    }
    provenance = (root / "app" / "acp" / "_provenance.py").read_text(encoding="utf-8")
    assert "'version': '2.3.0'" in provenance or '"version": "2.3.0"' in provenance
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith(
        f"# Changelog\n\n## [Unreleased]\n\nSchema: `{PATH} (sha256 {old_digest}, no lock)` → "
        f"`npm {SDK}@2.3.0 {PATH} (sha256 {digest})`.\n"
    )
    assert changelog.endswith("## 1.0.0\n\n- First.\n")

    # The regenerated package is what `generate` makes from the same file, on a fresh copy.
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh)
    shutil.rmtree(fresh / "app")
    assert run(fresh, "generate", monkeypatch=monkeypatch).exit_code == 0
    assert snapshot(fresh / "app") == snapshot(root / "app")
    assert run(root, "check", monkeypatch=monkeypatch).exit_code == 0
    again = run(root, "upgrade", monkeypatch=monkeypatch)
    assert again.exit_code == 0 and " is current: " in again.stdout


def test_a_failed_regeneration_puts_the_schema_and_lock_back(
    project: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    point_npm_at(registry, monkeypatch)
    registry.npm(SDK, "1.1.0", tarball({f"package/{PATH}": revised("additive")}))
    (project / "app" / "acp" / "stray.txt").write_text("mine", encoding="utf-8")
    before = snapshot(project)
    result = run(project, "upgrade", "--write", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert "stray.txt" in result.stderr
    assert snapshot(project) == before


def test_help_names_the_sources_and_exit_codes() -> None:
    result = CliRunner().invoke(main, ["upgrade", "--help"])
    assert result.exit_code == 0
    for words in (
        "npm:@agentclientprotocol/sdk#schema/v2/schema.json",
        "3 one is behind",
        "--check",
    ):
        assert words in result.output


def test_tar_bombs_stop_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from acp_codegen import download

    monkeypatch.setattr(download, "UNPACKED_BYTES", 1024 * 1024)
    data = tarball({"package/zeros": bytes(4 * 1024 * 1024), f"package/{PATH}": b"{}"})
    with pytest.raises(UsageError, match="unpacks to more than 1,048,576 bytes"):
        download.tar_member(data, PATH, "bomb.tgz")


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    (root / "next.json").write_bytes(revised("additive"))
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    done = subprocess.run(
        [sys.executable, "-m", "acp_codegen", "upgrade", "--source", "next.json"],
        cwd=root,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "is not JSON"),
        ('{"format": "other", "source": "x", "sha256": "y"}', "is not an acp-codegen-lock/1 lock"),
        ('{"format": "acp-codegen-lock/1", "source": "x"}', "is not an acp-codegen-lock/1 lock"),
        ('{"format": "acp-codegen-lock/1", "source": "x", "sha256": "y", "z": "1"}', "is not an"),
    ],
)
def test_a_malformed_lock_is_one_line(
    text: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "proj")
    (root / f"{PATH}.lock").write_text(text, encoding="utf-8")
    result = run(root, "generate", monkeypatch=monkeypatch)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: lock {PATH}.lock {why}")
    assert result.stderr.count("\n") == 1
    assert not (root / "app").exists()


def test_a_symlinked_schema_is_written_through(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "proj")
    shared = tmp_path / "shared-schema.json"
    shutil.move(root / PATH, shared)
    (root / PATH).symlink_to(shared)
    url = registry.serve("/s.json", revised("additive"))
    result = run(root, "upgrade", "--write", "--source", url, monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert (root / PATH).is_symlink()
    assert shared.read_bytes() == revised("additive")
    assert run(root, "check", monkeypatch=monkeypatch).exit_code == 0


def test_a_registry_cannot_point_the_download_elsewhere(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = {"dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {"dist": {}}}}
    for tarball_url in ("file:///etc/passwd", "http://example.com/sdk.tgz"):
        document["versions"]["1.0.0"]["dist"] = {"tarball": tarball_url}
        registry.serve("/" + SDK.replace("/", "%2F"), document)
        source = {"npm": SDK, "path": PATH, "registry": registry.url("/")}
        with pytest.raises(UsageError) as caught:
            sources.fetch(sources.parse(source, "s", tmp_path))
        kind = (
            "is plain http; only https is fetched"
            if "http:" in tarball_url
            else ("is not an https URL")
        )
        assert str(caught.value) == f"URL {tarball_url} {kind}"
