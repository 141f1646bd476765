"""Reading only regular files: what is not one is refused with a stable issue code.

A FIFO blocks a reader forever, a device or a socket is not a transcript, a directory, a
dangling link or a symlink loop cannot be read. Each is checked before opening (``stat``,
symlinks followed), then the file is opened non-blocking and checked again on the open
descriptor (``fstat``), so a path swapped for a FIFO in between cannot hang the import.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from io import BufferedReader
from pathlib import Path

from openclaw_sessions.reports import Issue

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegular(OSError):
    """A path that cannot be read as a regular file; ``code`` is its issue code."""

    def __init__(self, code: str, message: str, path: Path) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path

    def issue(self, session_key: str | None = None) -> Issue:
        return Issue(self.code, self.message, str(self.path), None, session_key)


def _mode_problem(mode: int, path: Path, allow_dir: bool) -> NotRegular | None:
    if stat.S_ISREG(mode) or (allow_dir and stat.S_ISDIR(mode)):
        return None
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return NotRegular("not_regular", f"{what}, not a regular file: skipped", path)


def problem(
    path: Path, *, allow_dir: bool = False, stat: Callable[[], os.stat_result] | None = None
) -> NotRegular | None:
    """Why ``path`` is not a regular file (a directory too, with ``allow_dir``), or None.
    ``stat``: how to stat it, symlinks followed (a directory listing's cached stat).

    A missing path raises FileNotFoundError; other OS errors (permissions) propagate."""
    try:
        st = stat() if stat is not None else os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return NotRegular("link_dangling", "symlink to a missing file: skipped", path)
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return NotRegular("link_loop", "symlink loop: skipped", path)
        raise
    return _mode_problem(st.st_mode, path, allow_dir)


def open_regular(path: Path) -> BufferedReader:
    """Open a regular file for reading, never blocking on what is not one (NotRegular)."""
    bad = problem(path)
    if bad is not None:
        raise bad
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        bad = _mode_problem(os.fstat(fd).st_mode, path, False)
        if bad is not None:
            raise bad
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
