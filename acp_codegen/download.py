"""Upgrade stage, transport: bytes from a URL or from inside an archive, bounded.

Used by `sources`, which knows where a schema lives; this module only knows how to
get bytes safely. Every download goes through `get`: https (plain http only to the
loopback interface, which is where tests serve), a size cap checked before and while
reading, and one deadline for the whole transfer, redirects included. Archives are
read in memory and never unpacked to disk: `tar_member` and `zip_member` return one
member's bytes, and refuse an archive with an entry that would land outside it
(``../``, an absolute name) and a member reached through a link. Every failure is a
`UsageError` whose one line names the URL or the member.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import ipaddress
import json
import stat
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any

from . import __version__
from .errors import UsageError, printable
from .load import MAX_SCHEMA_BYTES

#: The most a registry document (npm's package document, PyPI's JSON page) may hold.
DOCUMENT_BYTES = 32 * 1024 * 1024
#: The most a package archive may hold, compressed ...
ARCHIVE_BYTES = 64 * 1024 * 1024
#: ... and unpacked: a small archive that inflates past this is refused.
UNPACKED_BYTES = 512 * 1024 * 1024
#: Seconds a whole transfer may take, unless the command says otherwise.
TIMEOUT = 30.0
_CHUNK = 64 * 1024
_LOOPBACK_NAMES = ("localhost",)


def check_url(url: str, what: str = "URL") -> None:
    """Refuse what `get` would not fetch: anything but https, or http to the loopback."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and parts.hostname and _loopback(parts.hostname):
        return
    if parts.scheme == "http":
        raise UsageError(f"{what} {printable(url)} is plain http; only https is fetched")
    raise UsageError(f"{what} {printable(url)} is not an https URL")


def _loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a URL `get` would fetch itself."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str):  # type: ignore[no-untyped-def]
        check_url(newurl, f"a redirect from {req.full_url} to")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def get(url: str, cap: int, timeout: float = TIMEOUT, accept: str = "*/*") -> bytes:
    """The body at `url`: at most `cap` bytes, all of it within `timeout` seconds."""
    check_url(url)
    shown = printable(url)
    request = urllib.request.Request(
        url, headers={"User-Agent": f"acp-codegen/{__version__}", "Accept": accept}
    )
    opener = urllib.request.build_opener(_Redirects)
    deadline = time.monotonic() + timeout
    try:
        with opener.open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > cap:
                raise UsageError(f"{shown} is {int(length):,} bytes, over the {cap:,}-byte cap")
            body = bytearray()
            while chunk := response.read(_CHUNK):
                body += chunk
                if len(body) > cap:
                    raise UsageError(f"{shown} is over the {cap:,}-byte cap")
                if time.monotonic() > deadline:
                    raise TimeoutError
    except urllib.error.HTTPError as exc:
        raise UsageError(f"{shown} answered HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise UsageError(f"{shown} timed out after {timeout:g} s") from None
        raise UsageError(f"cannot fetch {shown}: {exc.reason}") from None
    except TimeoutError:
        raise UsageError(f"{shown} timed out after {timeout:g} s") from None
    except OSError as exc:  # a connection reset mid-body, say
        raise UsageError(f"cannot fetch {shown}: {exc}") from None
    return bytes(body)


def get_json(url: str, timeout: float = TIMEOUT, accept: str = "application/json") -> Any:
    """The JSON document at `url` (a registry's metadata)."""
    raw = get(url, DOCUMENT_BYTES, timeout, accept)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise UsageError(f"{printable(url)} did not answer with JSON") from None


def check_digest(data: bytes, algorithm: str, expected: bytes, where: str) -> None:
    """Refuse `data` unless its `algorithm` digest is `expected` (the registry's own)."""
    if hashlib.new(algorithm, data).digest() != expected:
        raise UsageError(f"{where} does not match the {algorithm} its registry lists")


def check_integrity(data: bytes, integrity: str, where: str) -> None:
    """npm's ``dist.integrity`` (``sha512-<base64>``, maybe several): the strongest one
    it names must match."""
    known = {}
    for item in integrity.split():
        algorithm, _, value = item.partition("-")
        if algorithm in ("sha256", "sha384", "sha512"):
            try:
                known[algorithm] = base64.b64decode(value, validate=True)
            except ValueError:
                raise UsageError(f"{where}: its registry lists a malformed integrity") from None
    for algorithm in ("sha512", "sha384", "sha256"):
        if algorithm in known:
            check_digest(data, algorithm, known[algorithm], where)
            return


def _unsafe(name: str) -> bool:
    """Whether an archive entry named `name` would land outside the archive's folder."""
    return name.startswith(("/", "\\")) or ".." in name.replace("\\", "/").split("/")


class _Capped(io.RawIOBase):
    """A stream that refuses to yield more than `cap` bytes in all (a gzip bomb)."""

    def __init__(self, inner: IO[bytes], cap: int, where: str) -> None:
        self.inner, self.cap, self.left, self.where = inner, cap, cap, where

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(min(len(buffer), self.left + 1))
        self.left -= len(data)
        if self.left < 0:
            raise UsageError(f"{self.where} unpacks to more than {self.cap:,} bytes")
        buffer[: len(data)] = data
        return len(data)


def _within(name: str, strip_top: bool) -> str:
    """An entry's path inside the package: npm and sdist archives hold one top folder."""
    name = name.removeprefix("./")
    if not strip_top:
        return name
    return name.split("/", 1)[1] if "/" in name else ""


def _pick(
    entries: list[tuple[str, str]], path: str, where: str, strip_top: bool
) -> tuple[str, str] | None:
    """The entry (name, kind) at `path`, after refusing unsafe names and links on the way."""
    found = None
    links = set()
    for name, kind in entries:
        if _unsafe(name):
            raise UsageError(f"{where} holds the entry {printable(name)!r}, outside the archive")
        inner = _within(name, strip_top).rstrip("/")
        if kind == "link":
            links.add(inner)
        if inner == path:
            found = (name, kind)
    parts = path.split("/")
    for end in range(1, len(parts) + 1):
        if "/".join(parts[:end]) in links:
            raise UsageError(
                f"{where}: {'/'.join(parts[:end])} is a link in the archive; "
                "acp-codegen reads no file through a link"
            )
    return found


def tar_member(data: bytes, path: str, where: str) -> bytes:
    """The bytes of `path` inside a gzipped tarball, below its one top folder."""
    try:
        unpacked = _Capped(gzip.GzipFile(fileobj=io.BytesIO(data)), UNPACKED_BYTES, where)
        entries: list[tuple[str, str]] = []
        content: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BufferedReader(unpacked), mode="r|") as archive:
            for member in archive:
                kind = (
                    "file"
                    if member.isfile()
                    else "link"
                    if member.issym() or member.islnk()
                    else "other"
                )
                entries.append((member.name, kind))
                if kind == "file" and _within(member.name, True) == path:  # (_pick vets it)
                    content[member.name] = _read_member(archive.extractfile, member, where, path)
    except gzip.BadGzipFile:
        raise UsageError(f"{where} is not a gzip file") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise UsageError(f"{where} is not a readable tar archive ({exc})") from None
    found = _pick(entries, path, where, True)
    if found is None or found[1] != "file":
        raise UsageError(f"{where} has no file {printable(path)}")
    return content[found[0]]


def _read_member(
    open_member: Callable[[Any], IO[bytes] | None], member: Any, where: str, path: str
) -> bytes:
    handle = open_member(member)
    raw = handle.read(MAX_SCHEMA_BYTES + 1) if handle is not None else b""
    if len(raw) > MAX_SCHEMA_BYTES:
        raise UsageError(f"{where}: {printable(path)} is over the {MAX_SCHEMA_BYTES:,}-byte cap")
    return raw


def zip_member(data: bytes, path: str, where: str, strip_top: bool) -> bytes:
    """The bytes of `path` inside a zip archive (a wheel; an sdist when `strip_top`)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            kinds = [(i.filename, _zip_kind(i)) for i in infos]
            found = _pick(kinds, path, where, strip_top)
            if found is None or found[1] != "file":
                raise UsageError(f"{where} has no file {printable(path)}")
            info = next(i for i in infos if i.filename == found[0])
            if info.file_size > MAX_SCHEMA_BYTES:
                raise UsageError(
                    f"{where}: {printable(path)} is over the {MAX_SCHEMA_BYTES:,}-byte cap"
                )
            return _read_member(archive.open, info, where, path)
    except zipfile.BadZipFile:
        raise UsageError(f"{where} is not a zip archive") from None
    except (zlib.error, OSError, EOFError, NotImplementedError) as exc:
        raise UsageError(f"{where} is not a readable zip archive ({exc})") from None


def _zip_kind(info: zipfile.ZipInfo) -> str:
    if stat.S_ISLNK(info.external_attr >> 16):
        return "link"
    return "other" if info.is_dir() else "file"
