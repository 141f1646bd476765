"""Ranking many matches on two cores: a forked child ranks the upper half of the rowids.

FTS5 computes bm25 for every match before it can return the best k, about 1 µs a match: 60 ms
for a word in 52,000 messages, as much as the whole process floor. bm25 only reads statistics
of the whole index (row count, average length, the term's document count), so the score of a
row does not depend on which other rows are ranked with it: the best k of each half of the
rowid range, merged, are the best k overall. Threads share SQLite's global allocator mutex
(measured: two halves took 46 ms each in threads, 33 ms in two processes), hence a fork.

Both halves must read one snapshot. The parent notes ``PRAGMA data_version`` before the fork;
the child opens its read transaction and says so; then the parent opens its own and reads the
version again. Unchanged means nothing was committed between the first reading and the
parent's snapshot, and the child's snapshot was taken inside that window: the same one. Any
doubt (a commit, a failed or slow child) and the parent ranks the upper half itself.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import sqlite3
import sys
from pathlib import Path

# Below this many matches the fork costs more than it saves (about 2 ms against 1 µs a match).
MIN_MATCHES = 10_000
_TIMEOUT_S = 10.0
Ranked = list[tuple[int, float]]


def _wanted(conn: sqlite3.Connection, table: str, expr: str) -> bool:
    env = os.environ.get("OPENCLAW_SESSIONS_SEARCH_FORK")
    if env == "0" or not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        return False
    # fork() with other threads alive can leave the child on a lock nobody will release.
    if "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
        return False
    if env == "1":
        return True
    # A row at offset MIN_MATCHES-1 exists iff there are enough matches; unlike count(*), this
    # stops there (0.4 ms against 1.6 ms for a word in 52,000 messages).
    sql = f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1 OFFSET ?"
    return conn.execute(sql, (expr, MIN_MATCHES - 1)).fetchone() is not None


def _db_file(conn: sqlite3.Connection) -> str | None:
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return str(file) or None
    return None


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


class Upper:
    """The child ranking rowids above ``mid``. Call ``confirm`` inside the parent's read
    transaction, then ``result``; ``close`` always (it reaps the child)."""

    def __init__(self, pid: int, fd: int, mid: int, version: int) -> None:
        self.pid, self.fd, self.mid, self.version = pid, fd, mid, version
        self.live = True

    def confirm(self, conn: sqlite3.Connection) -> bool:
        """True when the parent's snapshot, just opened, is the child's."""
        if self.live and _data_version(conn) != self.version:
            self.close()
        return self.live

    def result(self) -> Ranked | None:
        """The child's best k above ``mid``, or None when it failed (rank them yourself)."""
        if not self.live:
            return None
        chunks, ended = [], False
        while not ended:
            ready, _, _ = select.select([self.fd], [], [], _TIMEOUT_S)
            chunk = os.read(self.fd, 1 << 16) if ready else b""
            chunks.append(chunk)
            ended = not chunk
        # End of file: the child has sent everything and is exiting (wait for it); a timeout:
        # it is stuck (kill it).
        status = self.close(wait=bool(ready))
        try:
            out = marshal.loads(b"".join(chunks)) if status == 0 else None
        except (EOFError, ValueError, TypeError):
            return None
        return out if isinstance(out, list) else None

    def close(self, *, wait: bool = False) -> int:
        """Reap the child, killing it unless ``wait``; its exit status (-1: killed here)."""
        if not self.live:
            return -1
        self.live = False
        os.close(self.fd)
        if not wait:
            os.kill(self.pid, signal.SIGKILL)
        status = os.waitpid(self.pid, 0)[1]
        return -1 if not wait else os.waitstatus_to_exitcode(status)


def start(
    conn: sqlite3.Connection, table: str, expr: str, sql: str, params: list[object], k: int
) -> Upper | None:
    """Fork a child running ``sql`` with ``params + [mid, k]`` (a ranking query of ``table``
    ending in ``AND rowid > ? ORDER BY rank LIMIT ?``) when ``expr`` has enough matches; None
    when it is not worth it. ``conn`` must be outside a transaction: the snapshot check needs
    a reading taken before the child's."""
    if conn.in_transaction or not _wanted(conn, table, expr):
        return None
    path = _db_file(conn)
    bounds = conn.execute(
        f"SELECT (SELECT min(rowid) FROM {table}), (SELECT max(rowid) FROM {table})"
    ).fetchone()
    if path is None or bounds[0] is None:
        return None
    mid = (int(bounds[0]) + int(bounds[1])) // 2
    version = _data_version(conn)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, checked by the tests' results
        os.close(rfd)
        _child(path, sql, [*params, mid, k], wfd)
    os.close(wfd)
    upper = Upper(pid, rfd, mid, version)
    try:
        ready, _, _ = select.select([rfd], [], [], _TIMEOUT_S)
        if ready and os.read(rfd, 1) == b"r":
            return upper
    except BaseException:  # Ctrl-C while waiting: no child left behind
        upper.close()
        raise
    upper.close()
    return None


def _child(path: str, sql: str, params: list[object], wfd: int) -> None:
    """Open a read transaction, tell the parent, rank, send the rows, exit (never returns)."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        conn.execute("BEGIN")
        conn.execute("SELECT 1 FROM sqlite_schema LIMIT 1").fetchall()  # the snapshot
        os.write(wfd, b"r")
        rows = [(int(r[0]), float(r[1])) for r in conn.execute(sql, params)]
        data = memoryview(marshal.dumps(rows))
        while data:
            data = data[os.write(wfd, data) :]
        code = 0
    finally:
        os._exit(code)
