"""A session's rows in an upstream agent database as a `linesrc.LineSource`, resumed by seq.

Rows are read `ORDER BY seq` in slices of SLICE; `line_no = seq + 1` (the line number of the
same transcript exported as JSONL), so the store's `lines_consumed` is the next seq to read.
Compressed rows (`event_zstd`, upstream ≥ 2026.9.6) are decompressed here, bounded by their
recorded `event_utf8_bytes`; one that cannot be is handed over as a `BadLine` (quarantined).

In WAL mode the whole session is read inside one read transaction (a consistent snapshot;
a WAL reader never blocks the writer). Otherwise each slice is its own short read.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .line_sources import BadLine

if TYPE_CHECKING:
    from .upstream_db import AgentDatabase

SLICE = 512  # rows per query
MAX_EVENT_BYTES = 256 << 20  # decompression bound when event_utf8_bytes is missing
_FP = "upstream1"  # fingerprint format tag


def _digest(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()[:32]


class EventSource:
    """A session's rows as JSONL lines: line_no = seq + 1, resumed at `seq >= lines_consumed`.

    The stored fingerprint is `upstream1 <generation> <rows> <first-row hash> <last-row hash>`:
    a resume re-reads two rows (the first and the last consumed) and counts the rest, so an
    unchanged session costs two row reads, and rewritten, deleted or reordered rows are told
    from appends.
    """

    def __init__(self, db: AgentDatabase, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        layout = db.layout
        assert layout is not None
        self.cols = "CAST(event_json AS BLOB)" + (
            ", event_zstd, event_utf8_bytes" if layout.compressed else "")  # fmt: skip
        self.partial = False
        self.rows, self.first, self.last = 0, "", b""
        self._dctx: Any = None
        self._in_txn = False
        if db.wal:  # one consistent snapshot; a WAL reader never blocks the writer
            db.conn.execute("BEGIN")
            self._in_txn = True
        try:
            self.generation = self._generation()
        except BaseException:
            self.close()
            raise

    def _generation(self) -> str:
        if not self.db.layout or not self.db.layout.watermarks:
            return "-"
        row = self.db.conn.execute(
            "SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?",
            (self.session_id,),
        ).fetchone()
        return str(row[0]).replace(" ", "_") if row else "-"

    def _payload(self, row: tuple[Any, ...]) -> bytes:
        if row[1] is not None:
            return bytes(row[1])
        if len(row) > 2 and row[2] is not None:
            if self._dctx is None:
                import zstandard

                self._dctx = zstandard.ZstdDecompressor()
            return _decompress(self._dctx, bytes(row[2]), row[3])
        return BadLine.of(b"", "event has neither event_json nor event_zstd")

    def _row(self, where: str, *params: Any) -> bytes | None:
        row = self.db.conn.execute(
            f"SELECT seq, {self.cols} FROM transcript_events WHERE session_id = ? {where}",
            (self.session_id, *params),
        ).fetchall()  # all: the statement ends here, with its read lock
        self.db.counters.rows_checked += len(row)
        return self._payload(tuple(row[0])) if row else None

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        parts = fingerprint.split(" ")
        if len(parts) != 5 or parts[0] != _FP or parts[1] != self.generation:
            return False
        n = int(self.db.conn.execute(
            "SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq < ?",
            (self.session_id, lines_consumed)).fetchone()[0])  # fmt: skip
        if n != int(parts[2]) or n == 0:
            return False
        first = self._row("ORDER BY seq LIMIT 1")
        last = self._row("AND seq = ?", lines_consumed - 1)
        if first is None or last is None or _digest(first) != parts[3]:
            return False
        if _digest(last) != parts[4]:
            return False
        self.rows, self.first, self.last = n, parts[3], last
        return True

    def restart(self) -> None:
        self.rows, self.first, self.last = 0, "", b""

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        seq = line_no
        counters = self.db.counters
        while True:
            rows = self.db.conn.execute(
                f"SELECT seq, {self.cols} FROM transcript_events WHERE session_id = ?"
                " AND seq >= ? ORDER BY seq LIMIT ?",
                (self.session_id, seq, SLICE),
            ).fetchall()
            for row in rows:
                payload = self._payload(tuple(row))
                if not self.rows:
                    self.first = _digest(payload)
                self.rows += 1
                self.last = payload
                counters.rows_read += 1
                if isinstance(payload, BadLine):
                    yield int(row[0]) + 1, payload
                else:
                    yield int(row[0]) + 1, payload + b"\n"
            if len(rows) < SLICE:
                return
            seq = int(rows[-1][0]) + 1

    def fingerprint(self) -> str:
        return f"{_FP} {self.generation} {self.rows} {self.first} {_digest(self.last)}"

    def close(self) -> None:
        """End the read transaction (nothing to commit: it only releases the snapshot)."""
        if self._in_txn:
            self._in_txn = False
            if self.db.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.conn.execute("COMMIT")


def _decompress(dctx: Any, blob: bytes, expected: Any) -> bytes:
    import zstandard

    limit = expected if isinstance(expected, int) and expected > 0 else MAX_EVENT_BYTES
    try:
        out: bytes = dctx.decompress(blob, max_output_size=limit)
    except zstandard.ZstdError as exc:
        return BadLine.of(blob, f"undecodable event_zstd: {exc}")
    if isinstance(expected, int) and len(out) != expected:
        return BadLine.of(
            blob, f"event_zstd holds {len(out)} bytes, event_utf8_bytes says {expected}"
        )
    return out
