"""Transcript lines as the store keeps them (events.raw, archived_events.raw): each line one
zstd frame, compressed with a dictionary trained on the store's own lines (table raw_dicts).

The lines of a store repeat the same keys, ids, models and phrasing: one by one, zstd shrinks
them about 1.6x; with a dictionary trained on a sample of them about 4.4x (bench's corpus), and
each line still decodes alone, so history reads a page and search a hit, never a block.

Dictionaries are versioned and never change: every frame names its dictionary (zstd's own
frame header field), so the rows written under an older one stay readable when a newer one is
trained. A dictionary's id is derived from its bytes: a connection that cached one trained in a
transaction later rolled back can never take another for it.

When: the first once the store holds FIRST_LINES lines (those written before it, frames without
a dictionary, are recompressed with it), then each time the store has grown GROWTH times, from
a random sample of its lines. Training runs in the writer's transaction (BEGIN IMMEDIATE).

quarantine.raw keeps the bytes as read: its rows are few, and its UNIQUE (path, line_no, raw)
compares the original bytes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import zstandard

from openclaw_sessions.errors import StoreError

LEVEL = 3  # levels 1-4 give 3.9-4.4x; 5 costs twice the time for 4.5x
DICT_BYTES = 112_640  # zstd's default size: 64 KiB gave 4.28x, 256 KiB 4.50x
FIRST_LINES = 1024
# A store's first lines (a few transcripts) stand for it less well than a sample of all of it.
GROWTH = 8
SAMPLE_BYTES = 1 << 20  # 1 MiB samples gave 4.30x, 4 MiB 4.36x, 16 MiB 4.34x (0.06-0.6 s)
SAMPLE_LINE_BYTES = 16384  # a long line's prefix stands for it in a sample
# fastCover's segment and d-mer sizes, fixed: zstd's search for the best costs 4x the CPU.
TRAIN_K, TRAIN_D = 1024, 8
NEXT_KEY = "raw_dict_next_lines"  # meta: the line count at which to train next
_BATCH = 2000

Packer = Callable[[bytes], bytes]


class Codec:
    """One store's dictionaries, as one connection has met them (by dictionary id)."""

    def __init__(self) -> None:
        self._dicts: dict[int, zstandard.ZstdCompressionDict] = {}
        self._decoders: dict[int, zstandard.ZstdDecompressor] = {0: zstandard.ZstdDecompressor()}
        self._packers: dict[int, Packer] = {}

    def unpack(self, conn: sqlite3.Connection, value: bytes | str) -> bytes:
        if isinstance(value, str):  # a row edited by hand: the line itself
            return value.encode("utf-8", "surrogatepass")
        try:
            did = zstandard.get_frame_parameters(value).dict_id
            dec = self._decoders.get(did)
            if dec is None:
                dec = zstandard.ZstdDecompressor(dict_data=self._dict(conn, did))
                self._decoders[did] = dec
            return dec.decompress(value)
        except zstandard.ZstdError as exc:
            raise StoreError(
                f"database is corrupt: a stored line does not decode ({exc})",
                hint="restore a backup, or delete the file and re-import",
            ) from None

    def packer(self, conn: sqlite3.Connection) -> Packer:
        """Compress with the store's newest dictionary (none before the first)."""
        row = conn.execute(
            "SELECT dict_id FROM raw_dicts ORDER BY generation DESC LIMIT 1"
        ).fetchone()
        did = row[0] if row else 0
        found = self._packers.get(did)
        if found is None:
            d = self._dict(conn, did) if did else None
            comp = zstandard.ZstdCompressor(
                level=LEVEL, dict_data=d, write_checksum=False, write_content_size=True
            )
            found = self._packers[did] = comp.compress
        return found

    def _dict(self, conn: sqlite3.Connection, did: int) -> zstandard.ZstdCompressionDict:
        d = self._dicts.get(did)
        if d is None:
            row = conn.execute("SELECT dict FROM raw_dicts WHERE dict_id = ?", (did,)).fetchone()
            if row is None:
                raise zstandard.ZstdError(f"no dictionary {did} in the store")
            d = self._dicts[did] = zstandard.ZstdCompressionDict(row[0])
        return d


class CodecConnection(sqlite3.Connection):
    """A store connection that keeps its Codec (db.py opens every store connection as one)."""

    codec: Codec | None = None


def codec(conn: sqlite3.Connection) -> Codec:
    """The connection's codec; a fresh one for a plain sqlite3 connection (nothing cached)."""
    if not isinstance(conn, CodecConnection):
        return Codec()
    if conn.codec is None:
        conn.codec = Codec()
    return conn.codec


def unpack(conn: sqlite3.Connection, value: bytes | str) -> bytes:
    """A stored line's bytes (without its "\\n"): every reader of raw lines goes through here."""
    return codec(conn).unpack(conn, value)


def unpack_text(conn: sqlite3.Connection, value: bytes | str) -> str:
    """A stored line as text (import stored only lines that decode as UTF-8)."""
    return unpack(conn, value).decode("utf-8", "surrogatepass")


def packer(conn: sqlite3.Connection) -> Packer:
    """How to compress lines now, in the caller's write transaction."""
    return codec(conn).packer(conn)


def due(conn: sqlite3.Connection) -> bool:
    """Has the store grown enough for a new dictionary? (Two lookups: asked per batch.)"""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (NEXT_KEY,)).fetchone()
    return lines(conn, "events") >= (int(row[0]) if row else FIRST_LINES)


def train(conn: sqlite3.Connection, table: str = "events") -> bool:
    """Train a dictionary on a sample of ``table``'s lines and store it (the caller's write
    transaction); the first one recompresses every line stored without one. False when zstd
    finds too little in the sample to train on (the next try waits for twice the lines)."""
    held = lines(conn, table)
    first = conn.execute("SELECT 1 FROM raw_dicts LIMIT 1").fetchone() is None
    samples = _sample(conn, table, held)
    blob = _trained(samples)
    if blob is not None:
        conn.execute(
            "INSERT INTO raw_dicts (dict_id, trained_at_lines, sample_lines, sample_bytes, dict)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT(dict_id) DO NOTHING",
            (_id_of(blob), held, len(samples), sum(map(len, samples)), blob),
        )
    nxt = max(held, 1) * (GROWTH if blob is not None else 2)
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (NEXT_KEY, str(max(nxt, FIRST_LINES))),
    )
    if blob is not None and first:
        for name in ("events", "archived_events"):
            recompress(conn, name, name)
    return blob is not None


def recompress(conn: sqlite3.Connection, source: str, target: str) -> None:
    """Every line of ``source`` packed anew (with the newest dictionary) into ``target``: the
    same table (its rows updated) or a new one with the same columns (the rows copied)."""
    pack = packer(conn)
    cols = [r[1] for r in conn.execute(f"PRAGMA table_info({source})")]
    names = ", ".join(["rowid", *cols])
    at = cols.index("raw") + 1
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT {names} FROM {source} WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, _BATCH),
        ).fetchall()
        if not rows:
            return
        if source == target:
            conn.executemany(
                f"UPDATE {target} SET raw = ? WHERE rowid = ?",
                [(pack(unpack(conn, r[at])), r[0]) for r in rows],
            )
        else:
            marks = ", ".join("?" * (len(cols) + 1))
            conn.executemany(
                f"INSERT INTO {target} ({names}) VALUES ({marks})",
                [(*r[:at], pack(unpack(conn, r[at])), *r[at + 1 :]) for r in rows],
            )
        last = rows[-1][0]


def lines(conn: sqlite3.Connection, table: str) -> int:
    """Lines ever stored in ``table``, near enough: its largest rowid (O(1))."""
    return int(conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0)


def _sample(
    conn: sqlite3.Connection, table: str, lines: int
) -> list[bytes | bytearray | memoryview]:
    """Lines picked at random (by rowid) up to SAMPLE_BYTES, long ones by their prefix."""
    import random  # (here: a reader never trains, and never pays for the import)

    rng = random.Random(lines)  # the same store gives the same sample
    ids = rng.sample(range(1, lines + 1), min(lines, 8192)) if lines else []
    out: list[bytes | bytearray | memoryview] = []
    total = 0
    sql = f"SELECT raw FROM {table} WHERE rowid = ?"
    for (value,) in (row for i in ids for row in conn.execute(sql, (i,))):
        line = unpack(conn, value)[:SAMPLE_LINE_BYTES]
        out.append(line)
        total += len(line)
        if total >= SAMPLE_BYTES:
            break
    return out


def _trained(samples: list[bytes | bytearray | memoryview]) -> bytes | None:
    """A dictionary trained on the samples, with an id derived from its bytes; None when zstd
    cannot make one of them (too few, too small)."""
    total = sum(map(len, samples))
    size = min(DICT_BYTES, total // 8)
    if len(samples) < 16 or size < 1024:
        return None
    try:
        d = zstandard.train_dictionary(size, samples, k=TRAIN_K, d=TRAIN_D, level=LEVEL)
    except zstandard.ZstdError:
        return None
    blob = d.as_bytes()
    return blob[:4] + _id_of(blob).to_bytes(4, "little") + blob[8:]


def _id_of(blob: bytes) -> int:
    """The dictionary's id: from its content (bytes 8 on; 0-3 are the magic, 4-7 the id),
    above zstd's reserved ids (< 32768) and below 2**31."""
    import hashlib  # (here: OpenSSL's set-up costs ~2 ms of every reader's start-up)

    h = int.from_bytes(hashlib.sha256(blob[8:]).digest()[:4], "little")
    return 32768 + h % (2**31 - 32768)
