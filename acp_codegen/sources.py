"""Upgrade stage, sources: where a job's schema is published, and its newest revision.

Used by `config` (to read a job's ``source`` key) and by `upgrade`. A `Source` is
written one of two ways, read by `parse`: a string, or a table with more keys::

    source = "npm:@agentclientprotocol/sdk#schema/v2/schema.json"
    source = { pypi = "some-package", path = "data/schema.json", sha256 = "..." }

The kinds: ``npm`` and ``pypi`` (a package and a path inside its newest release),
``url`` (an https URL), ``file`` (a local path) and ``git`` (a local checkout, a
path inside it and a ``ref``, ``HEAD`` by default). `fetch` gets the revision through
`download`; nothing else in acp-codegen goes to the network. A job without a source
takes `default_for`: the schema file of the official TypeScript SDK's npm package that
matches the job's protocol line.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import subprocess
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import download
from .errors import SchemaError, UsageError, printable
from .load import MAX_SCHEMA_BYTES, parse_json, read_capped

#: The npm package that vendors every released schema, byte for byte.
SDK_PACKAGE = "@agentclientprotocol/sdk"
NPM_REGISTRY = "https://registry.npmjs.org"
PYPI_REGISTRY = "https://pypi.org/pypi"
KINDS = ("npm", "pypi", "url", "file", "git")
#: Keys a source table may hold besides its kind.
KEYS = ("path", "registry", "tag", "ref", "sha256")
_NPM_NAME = re.compile(r"(@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*")
_PYPI_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_GIT_TIMEOUT = 60


@dataclass(frozen=True)
class Source:
    """One place a schema is published."""

    kind: str
    #: The package, the URL, the file or the checkout folder, as written.
    name: str
    #: The file inside the package or checkout (npm, pypi, git).
    path: str = ""
    #: The registry to ask instead of the public one (npm, pypi).
    registry: str = ""
    #: npm's dist-tag to follow, ``latest`` by default.
    tag: str = ""
    #: The git revision to read, ``HEAD`` by default.
    ref: str = ""
    #: The sha256 the fetched file must have, when pinned.
    sha256: str = ""
    #: The folder a relative `name` starts from (file, git): the config's, or the working one.
    base: Path = field(default=Path("."), compare=False)

    def spec(self) -> str:
        """The one-string spelling of this source (what the lock records)."""
        if self.kind == "url":
            return self.name
        tail = f"#{self.path}" if self.path else ""
        return f"{self.kind}:{self.name}{tail}"


@dataclass(frozen=True)
class Fetched:
    """A revision as fetched: its bytes and where exactly they came from."""

    source: Source
    data: bytes
    #: The release (npm, pypi), the commit (git), or "" (url, file).
    version: str = ""
    #: The URL of the bytes or of the archive holding them ("" for file and git).
    url: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def origin(self) -> str:
        """Who published these bytes, in words: ``npm @scope/pkg@2.4.0 schema/v2/schema.json``."""
        source = self.source
        if source.kind == "url":
            return printable(source.name)
        at = f"@{self.version}" if self.version else ""
        tail = f" {source.path}" if source.path else ""
        return printable(f"{source.kind} {source.name}{at}{tail}")

    def lock(self) -> dict[str, str]:
        """What the lock beside the schema records of this revision."""
        record = {"source": self.source.spec(), "sha256": self.sha256}
        if self.version:
            record["version"] = self.version
        if self.url:
            record["url"] = self.url
        return record


def parse(value: object, where: str, base: Path) -> Source:
    """A source from its string or table spelling; a mistake is one line naming `where`."""
    if isinstance(value, str):
        return _checked(_from_string(value, where, base), where)
    if not isinstance(value, dict):
        raise UsageError(f"{where} must be a string or a table")
    kinds = [k for k in KINDS if k in value]
    if len(kinds) != 1:
        raise UsageError(f"{where} must name exactly one of {', '.join(KINDS)}")
    for key in value:
        if key not in KINDS and key not in KEYS:
            close = difflib.get_close_matches(key, (*KINDS, *KEYS), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UsageError(f"{where} has the unknown key {key!r}{hint}")
    for key, text in value.items():
        if not isinstance(text, str) or not text:
            raise UsageError(f"{where} key {key!r} must be a non-empty string")
    known = {k: value[k] for k in KEYS if k in value}
    return _checked(Source(kinds[0], value[kinds[0]], base=base, **known), where)


def _from_string(text: str, where: str, base: Path) -> Source:
    if text.startswith(("https://", "http://")):
        return Source("url", text, base=base)
    kind, colon, rest = text.partition(":")
    if not colon or kind not in KINDS or kind == "url":
        return Source("file", text, base=base)
    name, _, path = rest.partition("#")
    return Source(kind, name, path, base=base)


def _checked(source: Source, where: str) -> Source:
    """`source` once every key fits its kind."""
    kind, name = source.kind, source.name
    if kind == "npm" and not _NPM_NAME.fullmatch(name):
        raise UsageError(f"{where}: {printable(name)!r} is not an npm package name")
    if kind == "pypi" and not _PYPI_NAME.fullmatch(name):
        raise UsageError(f"{where}: {printable(name)!r} is not a PyPI project name")
    if kind == "url":
        download.check_url(name, f"{where}: URL")
    if kind in ("npm", "pypi", "git"):
        if not source.path:
            raise UsageError(f"{where}: a {kind} source needs the path of the schema inside it")
        check_inner(source.path, where)
    elif source.path:
        raise UsageError(f"{where}: a {kind} source takes no path")
    if source.registry:
        if kind not in ("npm", "pypi"):
            raise UsageError(f"{where}: a {kind} source takes no registry")
        download.check_url(source.registry, f"{where}: registry")
    if source.tag and kind != "npm":
        raise UsageError(f"{where}: only an npm source takes a tag")
    if source.ref and kind != "git":
        raise UsageError(f"{where}: only a git source takes a ref")
    if source.sha256 and not _SHA256.fullmatch(source.sha256):
        raise UsageError(f"{where}: sha256 must be 64 lowercase hex digits")
    if not name or any(ord(c) < 32 or ord(c) == 127 for c in name + source.path):
        raise UsageError(f"{where}: a source may not be empty or hold a control character")
    return source


def check_inner(path: str, where: str) -> None:
    """Refuse a path inside a package that could leave it (``../``, absolute, ``\\``)."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise UsageError(
            f"{where}: {printable(path)!r} is not a plain relative path inside the package"
        )


def default_for(schema: Path, family: str | None) -> Source:
    """The TypeScript SDK's schema file for the protocol line `family` (``v1``, ``v2``),
    the unstable one when the job's own file is named so (``schema.unstable.json``)."""
    if family is None:
        raise UsageError(
            f"{schema} is neither a v1 nor a v2 ACP schema in shape, so there is no default "
            "source: give the job a source key (or --source)"
        )
    unstable = ".unstable" if "unstable" in schema.name else ""
    return Source("npm", SDK_PACKAGE, f"schema/{family}/schema{unstable}.json")


def fetch(source: Source, timeout: float = download.TIMEOUT) -> Fetched:
    """The newest revision `source` publishes: JSON, and of the pinned sha256 if any."""
    fetched = {"npm": _npm, "pypi": _pypi, "url": _url, "file": _file, "git": _git}[source.kind](
        source, timeout
    )
    try:
        parse_json(fetched.data, fetched.origin())
    except SchemaError as exc:
        raise UsageError(f"{fetched.origin()} is not a JSON schema: {exc.message}") from None
    if source.sha256 and fetched.sha256 != source.sha256:
        raise UsageError(
            f"{fetched.origin()} has sha256 {fetched.sha256}, not the pinned {source.sha256}"
        )
    return fetched


def _npm(source: Source, timeout: float) -> Fetched:
    registry = source.registry or os.environ.get("npm_config_registry") or NPM_REGISTRY
    download.check_url(registry, "npm registry")
    page = registry.rstrip("/") + "/" + urllib.parse.quote(source.name, safe="@")
    document = download.get_json(
        page, timeout, "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
    )
    tag = source.tag or "latest"
    version = _dig(document, ("dist-tags", tag), page)
    dist = _dig(document, ("versions", version, "dist"), page, dict)
    tarball = urllib.parse.urljoin(page, _dig(dist, ("tarball",), page))
    where = f"{source.name}@{version} ({printable(tarball)})"
    data = download.get(tarball, download.ARCHIVE_BYTES, timeout)
    integrity = dist.get("integrity")
    if isinstance(integrity, str):
        download.check_integrity(data, integrity, where)
    elif isinstance(dist.get("shasum"), str):
        download.check_digest(data, "sha1", bytes.fromhex(dist["shasum"]), where)
    member = download.tar_member(data, source.path, where)
    return Fetched(source, member, version, tarball)


def _pypi(source: Source, timeout: float) -> Fetched:
    registry = source.registry or PYPI_REGISTRY
    download.check_url(registry, "PyPI registry")
    page = f"{registry.rstrip('/')}/{urllib.parse.quote(source.name)}/json"
    document = download.get_json(page, timeout)
    version = _dig(document, ("info", "version"), page)
    files = [u for u in _dig(document, ("urls",), page, list) if isinstance(u, dict)]
    sdists = [u for u in files if u.get("packagetype") == "sdist"]
    wheels = [u for u in files if u.get("packagetype") == "bdist_wheel"]
    if not sdists and not wheels:
        raise UsageError(f"{page}: release {printable(version)} has no sdist and no wheel")
    chosen = (sdists or wheels)[0]
    url = urllib.parse.urljoin(page, _dig(chosen, ("url",), page))
    where = f"{source.name} {version} ({printable(url)})"
    data = download.get(url, download.ARCHIVE_BYTES, timeout)
    digest = (
        chosen.get("digests", {}).get("sha256") if isinstance(chosen.get("digests"), dict) else None
    )
    if isinstance(digest, str) and _SHA256.fullmatch(digest):
        download.check_digest(data, "sha256", bytes.fromhex(digest), where)
    filename = str(chosen.get("filename") or url)
    if filename.endswith((".tar.gz", ".tgz")):
        member = download.tar_member(data, source.path, where)
    else:  # a wheel holds no top folder; a zip sdist holds one
        member = download.zip_member(data, source.path, where, strip_top=chosen in sdists)
    return Fetched(source, member, version, url)


def _url(source: Source, timeout: float) -> Fetched:
    return Fetched(source, download.get(source.name, MAX_SCHEMA_BYTES, timeout), url=source.name)


def _file(source: Source, timeout: float) -> Fetched:
    try:
        return Fetched(source, read_capped(source.base / source.name))
    except SchemaError as exc:
        raise UsageError(f"source {exc.source}: {exc.message}") from None


def _git(source: Source, timeout: float) -> Fetched:
    folder = source.base / source.name
    ref = source.ref or "HEAD"
    commit = _run_git(folder, ["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"])
    listing = _run_git(folder, ["ls-tree", "-z", commit.decode().strip(), "--", source.path])
    mode, _, rest = listing.partition(b" ")
    if not listing or not rest.startswith(b"blob "):
        raise UsageError(f"git {folder} has no file {printable(source.path)} at {printable(ref)}")
    if mode == b"120000":
        raise UsageError(
            f"git {folder}: {printable(source.path)} is a symlink; acp-codegen reads no file "
            "through a link"
        )
    blob = rest.split(b"\t", 1)[0].split(b" ")[1].decode()
    data = _run_git(folder, ["cat-file", "blob", blob], MAX_SCHEMA_BYTES)
    return Fetched(source, data, commit.decode().strip())


def _run_git(folder: Path, args: list[str], cap: int = 1024 * 1024) -> bytes:
    """git's output for `args` in `folder`, with hooks and the fsmonitor kept out."""
    command = ["git", "-c", "core.fsmonitor=false", "-C", str(folder), *args]
    try:
        done = subprocess.run(command, capture_output=True, timeout=_GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise UsageError("a git source needs git on PATH") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {folder}: {args[0]} took over {_GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {folder}: {printable(why[-1] if why else 'failed')}")
    if len(done.stdout) > cap:
        raise UsageError(f"git {folder}: the file is over the {cap:,}-byte cap")
    return done.stdout


def _dig(document: Any, keys: tuple[str, ...], page: str, kind: type = str) -> Any:
    """``document[k1][k2]...``, of `kind`, or one line saying which key the page lacks."""
    node = document
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            raise UsageError(f"{printable(page)} has no {'.'.join(keys)}")
        node = node[key]
    if not isinstance(node, kind) or (kind is str and not node):
        raise UsageError(f"{printable(page)}: {'.'.join(keys)} is not a {kind.__name__}")
    return node
