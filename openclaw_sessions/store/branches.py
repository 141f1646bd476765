"""Each transcript's active branch as the store gives it: the stored copy (table `branches`), so
`history` does not walk a long transcript's whole tree on every call, else the walk of its
event rows.

Writers keep it: reconcile stores it when it publishes a transcript's index, and an append that
provably extends it (tree.extend) extends it in the same transaction. It is current while its
(revision, next_seq) equal the transcript's; anything else (a rewind, a rewrite, an append that
is not a plain extension) leaves it behind, readers walk the tree instead and the next
`reindex` stores it again.

Format: marshal of plain data (loading it runs no code), as columns: seqs and timestamps as
int64 arrays, ids as a list, roles as codes into a small table, then the other ids and the flat
mode, then (from FORMAT 3) its reset and compaction lines. A FORMAT 2 copy (no such lines
recorded) still serves a transcript that has none. Anything else unexpected in it (a damaged
blob, another Python's marshal, another FORMAT) reads as "not stored".
"""

from __future__ import annotations

import marshal
import sqlite3
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from openclaw_sessions.model import branch
from openclaw_sessions.model.branch import Branch, Messages

from . import rawcodec

FORMAT = 3  # 2: the tree rules of upstream's transcript-tree.ts (tree.py), `flat`; 3: marks
_NO_MARKS = 2  # the format before marks: good for a transcript without boundary lines
_NONE_TS = -(2**63)  # no timestamp (int64 arrays hold no None)


def encode(b: Branch) -> bytes:
    names = list(dict.fromkeys(b.rows.roles))
    codes = {n: i for i, n in enumerate(names)}
    ts = array("q", [_NONE_TS if t is None else t for t in b.rows.ts])
    return marshal.dumps(
        (
            FORMAT,
            array("q", b.rows.seqs).tobytes(),
            b.rows.ids,
            names,
            array("H", [codes[r] for r in b.rows.roles]).tobytes(),
            ts.tobytes(),
            b.others,
            b.flat,
            [tuple(m) for m in b.marks],
        )
    )


def decode(leaf: str | None, blob: bytes) -> Branch | None:
    """The stored branch; None when the blob is not one (a FORMAT 2 one decodes with no marks:
    the caller checks that the transcript has no boundary lines)."""
    found = _decode(leaf, blob)
    return found[0] if found is not None else None


def _decode(leaf: str | None, blob: bytes) -> tuple[Branch, int] | None:
    try:
        fmt, seqs_b, ids, names, codes_b, ts_b, others, flat, *rest = marshal.loads(blob)
        if fmt not in (FORMAT, _NO_MARKS) or flat.__class__ is not bool:
            return None
        marks = rest[0] if fmt == FORMAT and len(rest) == 1 else [] if fmt == _NO_MARKS else None
        if not isinstance(marks, list) or not all(_mark(m) for m in marks):
            return None
        seqs, ts, codes = array("q"), array("q"), array("H")
        seqs.frombytes(seqs_b)
        ts.frombytes(ts_b)
        codes.frombytes(codes_b)
        roles = [names[c] for c in codes]
    except (ValueError, EOFError, TypeError, IndexError):
        return None
    if not (len(seqs) == len(ids) == len(roles) == len(ts)) or not isinstance(others, list):
        return None
    stamps = [None if t == _NONE_TS else t for t in ts.tolist()]
    rows = Messages(seqs.tolist(), list(ids), roles, stamps)
    return Branch(leaf, rows, others, flat, [tuple(m) for m in marks]), fmt


def _mark(m: Any) -> bool:
    return isinstance(m, tuple) and len(m) == 4 and isinstance(m[0], int)



def load_cached(conn: sqlite3.Connection, tid: int) -> Branch | None:
    """The stored copy when it is current (as of the transcript's revision and next_seq)."""
    found = load_at(conn, tid)
    return found[1] if found is not None else None


def store(conn: sqlite3.Connection, tid: int, revision: int, next_seq: int, b: Branch) -> None:
    """Record the active branch as of (revision, next_seq); the caller's write transaction."""
    conn.execute(
        "INSERT INTO branches (transcript_id, revision, next_seq, leaf, messages)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT(transcript_id) DO UPDATE SET"
        " revision = excluded.revision, next_seq = excluded.next_seq, leaf = excluded.leaf,"
        " messages = excluded.messages",
        (tid, revision, next_seq, b.leaf, encode(b)),
    )


def load_at(
    conn: sqlite3.Connection, tid: int, next_seq: int | None = None
) -> tuple[int, Branch] | None:
    """(revision, branch) of the stored copy when it is of the transcript's revision and
    stored as of exactly ``next_seq`` (None: the transcript's); None otherwise."""
    row = conn.execute(
        "SELECT b.revision, b.leaf, b.messages FROM branches b"
        " JOIN transcripts t USING (transcript_id) WHERE b.transcript_id = ?"
        " AND b.revision = t.revision AND b.next_seq = coalesce(?, t.next_seq)",
        (tid, next_seq),
    ).fetchone()
    if row is None:
        return None
    found = _decode(row[1], row[2])
    if found is None or (found[1] == _NO_MARKS and _has_marks(conn, tid)):
        return None  # a copy made before marks were recorded, of a transcript that has some
    return row[0], found[0]


def _has_marks(conn: sqlite3.Connection, tid: int) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM events WHERE transcript_id = ? AND type IN ('reset', 'compaction')"
            " LIMIT 1",
            (tid,),
        ).fetchone()
        is not None
    )


# The whole line only for the controls whose fields no column holds (tree.py).
_TREE_SQL = (
    "SELECT seq, entry_id, parent_id, flags, type,"
    " CASE WHEN type IN ('leaf', 'reset') THEN raw END, role, ts FROM events"
    " WHERE transcript_id = ? ORDER BY seq"
)


def walk_transcript(conn: sqlite3.Connection, tid: int) -> Branch:
    """Walk the whole stored tree (the caller holds a read or write transaction)."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: sqlite3.Row is slower to unpack
    return branch.walk(_controls_decoded(conn, cur.execute(_TREE_SQL, (tid,))))


def _controls_decoded(conn: sqlite3.Connection, rows: Iterable[Any]) -> Iterator[Any]:
    """The rows, with the few control lines they carry decoded (rawcodec.py)."""
    for r in rows:
        yield r if r[5] is None else (*r[:5], rawcodec.unpack_text(conn, r[5]), *r[6:])


def active_messages(conn: sqlite3.Connection, tid: int) -> Messages:
    """The active branch's messages: the stored copy when it is current, else a walk."""
    return active_branch(conn, tid).rows


def active_branch(conn: sqlite3.Connection, tid: int) -> Branch:
    """The active branch: the stored copy when it is current, else a walk."""
    cached = load_cached(conn, tid)
    return cached if cached is not None else walk_transcript(conn, tid)
