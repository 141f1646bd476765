"""Line sources for ingest: where a transcript's complete lines come from, and how to resume.

A source yields `(line_no, line)` pairs, each line with its trailing "\\n", after the prefix the
store already holds. It decides whether that stored prefix is still intact (`resume`) from the
store's `bytes_consumed`, `lines_consumed` and fingerprint (the `prefix_sha256` column), and
produces the new fingerprint once consumed. Three kinds exist:

- `FileSource`: a JSONL file, plain or zstd-compressed (`*.zst`, decompressed as a stream): the
  fingerprint is the sha256 of the consumed byte prefix, so an append is told from a rewrite by
  content. A trailing line without "\\n" is held back (`partial`).
- `EventSource`: a session's rows in an upstream agent database (upstream_db.py), resumed by
  `seq`. Rows are read `ORDER BY seq` in slices of SLICE; `line_no = seq + 1` (the line number
  of the same transcript exported as JSONL), so the store's `lines_consumed` is the next seq to
  read. Compressed rows (`event_zstd`, upstream ≥ 2026.9.6) are decompressed here, bounded by
  their recorded `event_utf8_bytes`; one that cannot be is handed over as a `BadLine`
  (quarantined). In WAL mode the whole session is read inside one read transaction (a
  consistent snapshot; a WAL reader never blocks the writer); otherwise each slice is its own
  short read.
- `LiveSource`: lines handed over in memory by the append API (live.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from openclaw_sessions.model.wellformed import has_lone_surrogate

from .regular import open_regular

CHUNK = 1 << 20
ZSTD_SUFFIX = ".zst"


class BadLine(bytes):
    """A line a source could not turn into text (e.g. an undecodable compressed event).

    Ingest stores it verbatim in the quarantine with `reason`, never as an event."""

    reason: str = "undecodable"

    @classmethod
    def of(cls, raw: bytes, reason: str) -> BadLine:
        line = cls(raw + b"\n")
        line.reason = reason
        return line


class LineSource(Protocol):
    partial: bool  # a trailing incomplete line was held back

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        """True when the stored prefix is still there: the next lines follow it."""
        ...

    def restart(self) -> None:
        """Read again from the first line (the stored prefix was rewritten)."""
        ...

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        """The lines after the prefix, numbered on from `line_no`, each ending in "\\n"."""
        ...

    def fingerprint(self) -> str:
        """What to store for the prefix consumed so far."""
        ...

    def close(self) -> None: ...


class CorruptSource(OSError):
    """A compressed file that cannot be decompressed (reported as transcript_unreadable)."""


def open_bytes(path: Path) -> IO[bytes]:
    """The file's decompressed bytes: `*.zst` through zstandard (streaming), else as is.
    Only a regular file is opened (regular.NotRegular otherwise: a FIFO would block)."""
    if not path.name.endswith(ZSTD_SUFFIX):
        return open_regular(path)
    raw = open_regular(path)  # closed by the reader (closefd)
    try:
        return _unzstd(raw)
    except BaseException:
        raw.close()
        raise


def _unzstd(raw: IO[bytes]) -> IO[bytes]:
    """The decompressed stream of zstd frames (all of them), closing ``raw`` when closed."""
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(
        raw, read_size=CHUNK, read_across_frames=True, closefd=True
    )
    return io.BufferedReader(reader, buffer_size=CHUNK)


class FileSource:
    """A JSONL file (plain or `.zst`), fingerprinted by the sha256 of its consumed prefix."""

    def __init__(self, path: Path, opener: Callable[[Path], IO[bytes]] = open_bytes) -> None:
        self.path = path
        self._opener = opener
        self.f = opener(path)
        self.hasher: Any = hashlib.sha256()
        self.partial = False

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        h = hashlib.sha256()
        left = bytes_consumed
        while left > 0:
            chunk = self._read(min(CHUNK, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
        if left or h.hexdigest() != fingerprint:
            return False
        self.hasher = h
        return True

    def restart(self) -> None:
        self.f.close()
        self.f = self._opener(self.path)
        self.hasher = hashlib.sha256()
        self.partial = False

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        update = self.hasher.update
        try:
            for line in self.f:
                if not line.endswith(b"\n"):
                    self.partial = True
                    return
                line_no += 1
                update(line)
                yield line_no, line
        except Exception as exc:
            raise self._translate(exc) from None

    def fingerprint(self) -> str:
        return str(self.hasher.hexdigest())

    def close(self) -> None:
        self.f.close()

    def _read(self, n: int) -> bytes:
        try:
            return self.f.read(n)
        except Exception as exc:
            raise self._translate(exc) from None

    def _translate(self, exc: Exception) -> Exception:
        if isinstance(exc, OSError) or type(exc).__name__ != "ZstdError":
            return exc
        return CorruptSource(f"corrupt zstd data in {self.path.name}: {exc}")


def open_blob(blob: bytes, zstd: bool) -> IO[bytes]:
    """An in-memory archive (upstream keeps reclaimed generations as blobs) as a file."""
    return _unzstd(io.BytesIO(blob)) if zstd else io.BytesIO(blob)


@dataclass
class Counters:
    rows_read: int = 0  # transcript_events rows read as new events
    rows_checked: int = 0  # rows read only to verify a stored prefix (and archive blobs)


SLICE = 512  # rows per query
MAX_EVENT_BYTES = 256 << 20  # decompression bound when event_utf8_bytes is missing
_FP = "upstream1"  # fingerprint format tag


def _digest(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()[:32]


class UpstreamUnreadable(OSError):
    """An upstream database's rows cannot be read (a corrupt page, a half-written file): that
    transcript's reported problem, never mistaken for a failure of our store."""


class Fingerprinted:
    """The fingerprint of an upstream session's rows read so far (EventSource, and ColdSource
    for the rows gone cold): `upstream1 <generation> <rows> <first-row hash> <last-row hash>`.
    A resume checks the count and re-reads two rows (the first and the last consumed), so an
    unchanged session costs two row reads, and rewritten, deleted or reordered rows are told
    from appends."""

    generation: str
    counters: Counters
    partial = False
    rows, first, last = 0, "", b""

    def _parts(self, fingerprint: str) -> list[str] | None:
        """The stored fingerprint's fields, if it is one of this generation."""
        parts = fingerprint.split(" ")
        mine = len(parts) == 5 and parts[0] == _FP and parts[1] == self.generation
        return parts if mine else None

    def _resumed(self, parts: list[str], first: bytes | None, last: bytes | None) -> bool:
        """Are the first and last rows consumed the ones fingerprinted? Then resume after them."""
        if first is None or last is None or [_digest(first), _digest(last)] != parts[3:]:
            return False
        self.rows, self.first, self.last = int(parts[2]), parts[3], last
        return True

    def _read(self, payload: bytes) -> None:
        if not self.rows:
            self.first = _digest(payload)
        self.rows += 1
        self.last = payload
        self.counters.rows_read += 1

    def restart(self) -> None:
        self.rows, self.first, self.last = 0, "", b""

    def fingerprint(self) -> str:
        return f"{_FP} {self.generation} {self.rows} {self.first} {_digest(self.last)}"


class EventSource(Fingerprinted):
    """A session's rows as JSONL lines: line_no = seq + 1, resumed at `seq >= lines_consumed`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        session_id: str,
        *,
        compressed: bool,
        watermarks: bool,
        wal: bool,
        counters: Counters,
    ) -> None:
        self.conn, self.session_id, self.counters = conn, session_id, counters
        self.watermarks = watermarks
        self.cols = "CAST(event_json AS BLOB)" + (
            ", event_zstd, event_utf8_bytes" if compressed else ""
        )
        self._dctx: Any = None
        self._in_txn = False
        if wal:  # one consistent snapshot; a WAL reader never blocks the writer
            conn.execute("BEGIN")
            self._in_txn = True
        try:
            self.generation = self._generation()
        except BaseException:
            self.close()
            raise

    def _generation(self) -> str:
        if not self.watermarks:
            return "-"
        rows = self._q(
            "SELECT generation FROM transcript_rewrite_watermarks WHERE session_id = ?",
            (self.session_id,),
        )
        return str(rows[0][0]).replace(" ", "_") if rows else "-"

    def _q(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """Every row of one read; a database that cannot be read is UpstreamUnreadable (a
        lock held past the timeout stays what it is)."""
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if any(w in str(exc).lower() for w in ("locked", "busy")):
                raise
            raise UpstreamUnreadable(f"upstream database unreadable: {exc}") from exc

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
        row = self._q(
            f"SELECT seq, {self.cols} FROM transcript_events WHERE session_id = ? {where}",
            (self.session_id, *params),
        )  # all: the statement ends here, with its read lock
        self.counters.rows_checked += len(row)
        return self._payload(tuple(row[0])) if row else None

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        parts = self._parts(fingerprint)
        if parts is None:
            return False
        count = "SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq < ?"
        n = int(self._q(count, (self.session_id, lines_consumed))[0][0])
        if n != int(parts[2]) or n == 0:
            return False
        first = self._row("ORDER BY seq LIMIT 1")
        return self._resumed(parts, first, self._row("AND seq = ?", lines_consumed - 1))

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        seq = line_no
        while True:
            rows = self._q(
                f"SELECT seq, {self.cols} FROM transcript_events WHERE session_id = ?"
                " AND seq >= ? ORDER BY seq LIMIT ?",
                (self.session_id, seq, SLICE),
            )
            for row in rows:
                payload = self._payload(tuple(row))
                self._read(payload)
                if isinstance(payload, BadLine):
                    yield int(row[0]) + 1, payload
                else:
                    yield int(row[0]) + 1, payload + b"\n"
            if len(rows) < SLICE:
                return
            seq = int(rows[-1][0]) + 1

    def close(self) -> None:
        """End the read transaction (nothing to commit: it only releases the snapshot)."""
        if self._in_txn:
            self._in_txn = False
            if self.conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("COMMIT")


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


class LiveSource:
    """Lines handed over in memory; the stored prefix is always intact by construction."""

    partial = False

    def __init__(self, lines: Iterable[str | Mapping[str, Any]]) -> None:
        self._lines = [ln if isinstance(ln, str) else _dumps(ln) for ln in lines]
        for ln in self._lines:
            if "\n" in ln:
                raise ValueError("a transcript line must not contain a newline")

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        return True

    def restart(self) -> None:
        return None

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        for i, ln in enumerate(self._lines, start=line_no + 1):
            yield i, ln.encode("utf-8") + b"\n"

    def fingerprint(self) -> str:
        return "live"

    def close(self) -> None:
        return None


def _dumps(obj: Mapping[str, Any]) -> str:
    """A line as JSON text; a lone surrogate is kept as its ``\\u`` escape (lossless, and the
    line still encodes as UTF-8), as any JSONL writer spells it."""
    text = json.dumps(obj, ensure_ascii=False)
    return json.dumps(obj) if has_lone_surrogate(text) else text
