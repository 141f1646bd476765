"""Line sources for ingest: where a transcript's complete lines come from, and how to resume.

A source yields `(line_no, line)` pairs, each line with its trailing "\\n", after the prefix the
store already holds. It decides whether that stored prefix is still intact (`resume`) from the
store's `bytes_consumed`, `lines_consumed` and fingerprint (the `prefix_sha256` column), and
produces the new fingerprint once consumed. Two kinds exist:

- `FileSource`: a JSONL file, plain or zstd-compressed (`*.zst`, decompressed as a stream): the
  fingerprint is the sha256 of the consumed byte prefix, so an append is told from a rewrite by
  content. A trailing line without "\\n" is held back (`partial`).
- `upstream.EventSource`: rows of an upstream agent database, resumed by `seq`.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, Protocol

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
    import zstandard

    raw = open_regular(path)  # closed by the reader (closefd)
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            raw, read_size=CHUNK, read_across_frames=True, closefd=True
        )
    except BaseException:
        raw.close()
        raise
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
    if not zstd:
        return io.BytesIO(blob)
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(
        io.BytesIO(blob), read_size=CHUNK, read_across_frames=True
    )
    return io.BufferedReader(reader, buffer_size=CHUNK)
