"""Stage 6, emit: write a generated tree, or one file, atomically.

`write_tree` builds the whole package in a sibling temporary directory and swaps
it into place in one step (an atomic exchange on Linux, renames elsewhere), so a
failure at any point leaves the output directory exactly as it was, and two
concurrent runs never leave a mix: each swap replaces the directory whole.
`write_file` is the one way the CLI writes a file (the changelog, and every file of a
staged package). Reading a package back and comparing it is `ondisk`.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import printable
from .ondisk import MARKER, MARKER_LINE, resolve, strays

_STALE = re.compile(r"\.(?:new|old)-(\d+)-")


def write_tree(out: Path, files: dict[str, str], force: bool = False) -> None:
    """Replace directory `out` with exactly `files` (relative path -> text).

    Files in `out` that an earlier run did not write are a `FileExistsError` naming
    them, unless `force`. Each file keeps the permission bits of the file it replaces
    (`write_file`), and the folder those of the folder it replaces.
    """
    out = resolve(out)
    check_writable(out, files, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(out)
    staging = _beside(out.parent, _prefix(out, "new"), lambda name: os.mkdir(name, 0o777))
    try:
        for path, text in sorted(files.items()):
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_file(target, text, like=out / path)
        listing = "".join(f"{line}\n" for line in [MARKER_LINE, *sorted(files)])
        write_file(staging / MARKER, listing, like=out / MARKER)
        kept = _mode(out, stat.S_ISDIR)
        if kept is not None:
            os.chmod(staging, kept)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _check_replaceable(out: Path) -> None:
    """Refuse to replace a file, or a non-empty directory acp-codegen did not write.

    Each check is one system call, so a concurrent writer moving `out` aside for
    a moment reads as "absent", never as "not a directory".
    """
    try:
        mode = os.stat(out).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        raise FileExistsError(f"{out} exists and is not a directory")
    try:
        entries = os.listdir(out)
    except FileNotFoundError:
        return
    if entries and MARKER not in entries:
        raise FileExistsError(
            f"{out} is not empty and was not made by acp-codegen; refusing to replace it"
        )


#: How often a swap retries when concurrent writers keep moving `out` underneath it.
SWAP_ATTEMPTS = 50
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(staging: Path, out: Path) -> bool | None:
    """Atomically trade the two directories (Linux ``renameat2``).

    True when swapped, False when `out` does not exist, None when the platform or
    file system cannot exchange.
    """
    renameat2 = _renameat2()
    if renameat2 is None:
        return None
    result = renameat2(
        _AT_FDCWD, os.fsencode(staging), _AT_FDCWD, os.fsencode(out), _RENAME_EXCHANGE
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code == errno.ENOENT:
        return False
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return None
    raise OSError(code, os.strerror(code), str(out))


@functools.cache
def _renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None


def _swap(staging: Path, out: Path) -> None:
    """Put `staging` at `out` in one step; `out` never holds a mix of two trees.

    With an atomic exchange a reader always sees a whole tree, and of concurrent
    writers the last to exchange wins. Without one, the old tree is renamed aside
    first; a writer that loses a race to a concurrent one retries.
    """
    for _ in range(SWAP_ATTEMPTS):
        swapped = _exchange(staging, out)
        if swapped:
            shutil.rmtree(staging, ignore_errors=True)  # now the old tree
            return
        if swapped is False or not out.exists():
            try:
                os.rename(staging, out)
                return
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                continue  # another writer's tree appeared: replace it
        trash = Path(tempfile.mkdtemp(prefix=_prefix(out, "old"), dir=out.parent))
        try:
            os.rename(out, trash / "tree")
        except FileNotFoundError:
            os.rmdir(trash)
            continue  # another writer moved it aside first
        try:
            os.rename(staging, out)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                os.rename(trash / "tree", out)
                raise
        else:
            return
        finally:
            shutil.rmtree(trash, ignore_errors=True)
    raise OSError(errno.EBUSY, "other writers kept replacing the directory", str(out))


def check_writable(out: Path, files: dict[str, str], force: bool = False) -> None:
    """Refuse, before anything is written, an `out` that a run must not replace."""
    out = resolve(out)
    _check_replaceable(out)
    if force:
        return
    found = strays(out, files)
    if found:
        shown = ", ".join(printable(f) for f in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise FileExistsError(
            f"{out} holds files acp-codegen did not write ({shown}{more}); "
            "move them out, or pass --force to delete them"
        )


def _prefix(out: Path, kind: str) -> str:
    """Staging (``new``) and trash (``old``) folders carry the writer's process id."""
    return f".{out.name}.{kind}-{os.getpid()}-"


def remove_stale(out: Path) -> None:
    """Remove staging and trash folders beside `out` left by runs that were killed.

    A folder counts as stale when the process id in its name no longer runs; a live
    concurrent writer's folders are left alone.
    """
    if os.name != "posix":
        return
    head = f".{out.name}."
    try:
        names = os.listdir(out.parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(head):
            continue
        match = _STALE.match(name, len(head) - 1)
        if match is None or _alive(int(match.group(1))):
            continue
        path = out.parent / name
        if path.is_symlink():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def write_file(path: Path, text: str | bytes, like: Path | None = None) -> None:
    """Replace the file at `path` with `text` (UTF-8, or bytes as they are) in one step:
    every file the CLI writes is written here.

    The text goes to a sibling temporary file, is flushed to disk and renamed over `path`,
    so a reader sees the old file or the new one, never a part. A symlink at `path` is
    written through: its target is replaced and the link stays as it was. The new file
    keeps the permission bits of the one it replaces (of `like` when given: the same file
    in the package a staged one replaces); a file that is new gets what the umask leaves
    of 0o666, as any program's new file does. Something other than a regular file at
    `path` is refused.
    """
    path = Path(os.path.realpath(path))
    if like is None and os.path.lexists(path) and _mode(path, stat.S_ISREG) is None:
        raise FileExistsError(f"{path} exists and is not a regular file")
    kept = _mode(path if like is None else like, stat.S_ISREG)
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fds: list[int] = []  # (the umask applies to the 0o666 here, as for any new file)
    scratch = _beside(
        path.parent, f".{path.name}.", lambda name: fds.append(os.open(name, flags, 0o666))
    )
    try:
        with os.fdopen(fds[0], "wb") as stream:
            stream.write(text.encode("utf-8") if isinstance(text, str) else text)
            stream.flush()
            if kept is not None:
                os.chmod(stream.fileno(), kept)
            os.fsync(stream.fileno())
        os.replace(scratch, path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def _mode(path: Path, kind: Callable[[int], bool]) -> int | None:
    """The permission bits of `path` when it is of `kind` (not followed if a symlink)."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return stat.S_IMODE(info.st_mode) if kind(info.st_mode) else None


def _beside(folder: Path, prefix: str, make: Callable[[str], None]) -> Path:
    """A new entry in `folder` whose name starts with `prefix`, made by `make` (which
    must fail with `FileExistsError` on a name that is taken)."""
    for _ in range(100):
        path = folder / f"{prefix}{secrets.token_hex(4)}"
        try:
            make(str(path))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))
