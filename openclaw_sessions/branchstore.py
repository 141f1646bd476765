"""The stored copy of each transcript's active branch (table `branches`), so `history` does not
walk a long transcript's whole tree on every call.

Writers keep it: reconcile stores it when it publishes a transcript's index, and an append that
extends the leaf extends it in the same transaction. It is current while its (revision,
next_seq) equal the transcript's; anything else (a rewind, a rewrite, an append that is not a
plain extension) leaves it behind, readers walk the tree instead and the next `reindex` stores
it again.

Format: marshal of plain data (loading it runs no code), as columns: seqs and timestamps as
int64 arrays, ids as a list, roles as codes into a small table. Anything unexpected in it (a
damaged blob, another Python's marshal) reads as "not stored".
"""

from __future__ import annotations

import marshal
import sqlite3
from array import array

from .branch import Branch, Messages

FORMAT = 1
_NONE_TS = -(2**63)  # no timestamp (int64 arrays hold no None)


def encode(b: Branch) -> bytes:
    names = list(dict.fromkeys(b.rows.roles))
    codes = {n: i for i, n in enumerate(names)}
    ts = array("q", [_NONE_TS if t is None else t for t in b.rows.ts])
    return marshal.dumps((
        FORMAT, array("q", b.rows.seqs).tobytes(), b.rows.ids, names,
        array("H", [codes[r] for r in b.rows.roles]).tobytes(), ts.tobytes(), b.others,
    ))  # fmt: skip


def decode(leaf: str | None, blob: bytes) -> Branch | None:
    try:
        fmt, seqs_b, ids, names, codes_b, ts_b, others = marshal.loads(blob)
        if fmt != FORMAT:
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
    return Branch(leaf, Messages(seqs.tolist(), list(ids), roles, stamps), others)


def load_cached(conn: sqlite3.Connection, tid: int) -> Branch | None:
    row = conn.execute(
        "SELECT b.leaf, b.messages FROM branches b JOIN transcripts t USING (transcript_id)"
        " WHERE b.transcript_id = ? AND b.revision = t.revision AND b.next_seq = t.next_seq",
        (tid,),
    ).fetchone()
    return decode(row[0], row[1]) if row is not None else None


def store(conn: sqlite3.Connection, tid: int, revision: int, next_seq: int, b: Branch) -> None:
    """Record the active branch as of (revision, next_seq); the caller's write transaction."""
    conn.execute(
        "INSERT INTO branches (transcript_id, revision, next_seq, leaf, messages)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT(transcript_id) DO UPDATE SET"
        " revision = excluded.revision, next_seq = excluded.next_seq, leaf = excluded.leaf,"
        " messages = excluded.messages",
        (tid, revision, next_seq, b.leaf, encode(b)),
    )


def extend(
    conn: sqlite3.Connection, tid: int, since: tuple[int, str | None], upto: tuple[int, str | None],
    added: Messages, added_others: list[str],
) -> None:  # fmt: skip
    """Entries that extended the leaf moved (next_seq, leaf) from ``since`` to ``upto``: append
    them. A copy that was not exactly at ``since`` is left behind (readers then walk)."""
    row = conn.execute(
        "SELECT b.revision, b.next_seq, b.leaf, b.messages FROM branches b"
        " JOIN transcripts t USING (transcript_id)"
        " WHERE b.transcript_id = ? AND b.revision = t.revision",
        (tid,),
    ).fetchone()
    if row is None or (row[1], row[2]) != since:
        return
    old = decode(row[2], row[3])
    if old is None:
        return
    on_path = set(old.rows.ids).union(old.others)
    new_ids = added.ids + added_others
    if len(set(new_ids)) < len(new_ids) or not on_path.isdisjoint(new_ids):
        return  # a reused id reshapes the tree (a cycle, a moved parent): walk instead
    store(conn, tid, row[0], upto[0], Branch(upto[1], old.rows + added, old.others + added_others))
