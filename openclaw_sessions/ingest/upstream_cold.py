"""Read upstream's cold transcript archives, strictly read-only, as a line source.

OpenClaw's `session.maintenance.coldStorage` (2026.9.6) moves an idle generation's rows out of
`transcript_events` into one archive and records it in `session_transcript_cold_archives`
(session_id PK, generation, archive_name `<sha256>.jsonl.zst`, archive_sha256, event_count,
raw_bytes, archive_bytes, last_seq, archived_at, storage `file`|`sqlite`, archive_blob). The
archive is one zstd stream of JSONL records: a `header` {version 1, sessionId, generation}, then
`event` rows {seq, event_json, created_at} in seq order, then identities, active-branch rows,
index state and FTS rows (upstream's own projections: not needed here). With storage `sqlite`
the bytes are `archive_blob`; with `file` they are `<artifact dir>/cold/<archive_name>`, the
artifact dir being `<root>/agents/<id>/sessions` for `<root>/agents/<id>/agent/
openclaw-agent.sqlite`, else the database's own directory.

Upstream verifies before it restores: the bytes' length and sha256 against the row, then the
decoded records against event_count, last_seq and raw_bytes; so do we, and an archive that
fails is reported with upstream's words (ColdArchiveError: its code is the import issue's),
never read as an empty transcript. The events become the same lines, with the same fingerprint,
as EventSource gives for the rows before they went cold: a generation imported hot stays
unchanged when it goes cold, and again when OpenClaw restores it.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .line_sources import Counters, Fingerprinted
from .regular import open_regular
from .upstream_db import ColdArchive

MAX_ARCHIVE_BYTES = 64 << 20  # upstream's MAX_COLD_ARCHIVE_BYTES (decompressed)
_NAME = re.compile(r"[a-f0-9]{64}\.jsonl\.zst")


class ColdArchiveError(OSError):
    """A cold archive that cannot be read: ``code`` is the import issue's code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def archive_path(database: Path, archive_name: str) -> Path:
    """Where upstream keeps a file-stored cold archive (resolveSessionColdArchivePath)."""
    if not _NAME.fullmatch(archive_name):
        raise ColdArchiveError("cold_archive_unreadable", "Invalid cold transcript archive name")
    store_dir = database.parent
    artifacts = store_dir.parent / "sessions" if store_dir.name == "agent" else store_dir
    return artifacts / "cold" / archive_name


def _missing(a: ColdArchive) -> ColdArchiveError:
    return ColdArchiveError(
        "cold_archive_unreadable",
        f"Cold transcript archive {a.archive_name} is missing or unreadable. Restore it from a"
        " backup; its transcript has not been replaced with empty history.",
    )


def read_verified(database: Path, a: ColdArchive, blob: bytes | None) -> bytes:
    """The archive's bytes, checked against the row (readVerifiedSessionColdArchive)."""
    if a.storage == "sqlite":
        if blob is None:
            raise _missing(a)
        data = blob
    else:
        try:
            with open_regular(archive_path(database, a.archive_name)) as f:
                data = f.read(MAX_ARCHIVE_BYTES + 1)
        except OSError as exc:
            if isinstance(exc, ColdArchiveError):
                raise
            raise _missing(a) from exc
    if len(data) != a.archive_bytes or hashlib.sha256(data).hexdigest() != a.archive_sha256:
        raise ColdArchiveError(
            "cold_archive_unverified",
            f"Cold transcript archive {a.archive_name} failed verification. Restore it from a"
            " verified backup.",
        )
    return data


def _invalid(why: str) -> ColdArchiveError:
    return ColdArchiveError("cold_archive_invalid", why)


def _decompress(data: bytes) -> bytes:
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    out = bytearray()
    try:
        while chunk := reader.read(1 << 20):
            out += chunk
            if len(out) > MAX_ARCHIVE_BYTES:
                raise _invalid("Cold transcript archive exceeds the 64 MiB limit")
    except zstandard.ZstdError as exc:
        raise _invalid(f"Cold transcript archive is not valid zstd data: {exc}") from None
    return bytes(out)


def decode(data: bytes, a: ColdArchive) -> list[tuple[int, bytes]]:
    """The archive's events as (seq, event_json UTF-8), checked as upstream's
    decodeSessionColdRecords checks them."""
    try:
        text = _decompress(data).decode("utf-8")
        records: list[Any] = [json.loads(line) for line in text.rstrip().split("\n")]
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, ColdArchiveError):
            raise
        raise _invalid(f"Cold transcript archive is not valid JSONL: {exc}") from None
    if not all(isinstance(r, dict) for r in records):
        raise _invalid("Cold transcript archive holds a record that is not an object")
    head = records[0] if records else {}
    events: list[tuple[int, bytes]] = []
    for r in records:
        row = r.get("row")
        if r.get("kind") == "event":
            ok = isinstance(row, dict) and isinstance(row.get("event_json"), str)
            seq = row.get("seq") if ok else None
            if not isinstance(seq, int) or isinstance(seq, bool):
                raise _invalid("Cold transcript archive holds a malformed event record")
            events.append((seq, str(row["event_json"]).encode("utf-8", "surrogatepass")))
    raw = sum(len(e) for _, e in events) + len(events) - 1
    if (
        head.get("kind") != "header"
        or head.get("sessionId") != a.session_id
        or head.get("generation") != a.generation
        or any(r.get("kind") == "header" for r in records[1:])
        or len(events) != a.event_count
        or not events
        or events[-1][0] != a.last_seq
        or raw != a.raw_bytes
    ):
        raise _invalid("Cold transcript archive metadata does not match its contents")
    return events


class ColdSource(Fingerprinted):
    """A cold archive's events as EventSource would give the same rows: line_no = seq + 1,
    resumed at ``seq >= lines_consumed``, fingerprinted the same way."""

    def __init__(
        self, events: list[tuple[int, bytes]], generation: str, counters: Counters
    ) -> None:
        self.events, self.generation, self.counters = events, generation, counters

    def resume(self, bytes_consumed: int, lines_consumed: int, fingerprint: str) -> bool:
        parts = self._parts(fingerprint)
        n = sum(1 for seq, _ in self.events if seq < lines_consumed)
        if parts is None or n != int(parts[2]) or n == 0:
            return False
        last = next((p for seq, p in self.events if seq == lines_consumed - 1), None)
        return self._resumed(parts, self.events[0][1], last)

    def lines(self, line_no: int) -> Iterator[tuple[int, bytes]]:
        for seq, payload in self.events:
            if seq < line_no:
                continue
            self._read(payload)
            yield seq + 1, payload + b"\n"

    def close(self) -> None:
        return None
