"""Counters `status` reads instead of counting rows (table `counts`): each is changed by a
trigger in the write transaction that changes what it counts, so it is exact at every commit
and reading it costs the same at any store size.

- `sessions`, `transcripts`, `quarantine`: rows of those tables;
- `events`: stored lines, the sum of the transcripts' `next_seq` (a transcript's events are
  exactly its seqs 0..next_seq-1, whatever form the rows take);
- `vanished`: transcripts of kind 'vanished';
- `pending`, `dirty`: rows of the pending set (store/pending.py), and those of them that are
  marked for a rebuild;
- `fp:<fingerprint>`: index_state rows per redaction fingerprint (`fp:` alone: never indexed).

Messages in the index are not counted here: FTS5 keeps that figure itself (`fts_rows`).
"""

from __future__ import annotations

import sqlite3

TABLE = """CREATE TABLE counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID"""


def bump(name: str, delta: str) -> str:
    """A trigger statement that adds ``delta`` to counter ``name`` (both SQL expressions)."""
    return (
        f"INSERT INTO counts (name, n) VALUES ({name}, {delta})"
        " ON CONFLICT(name) DO UPDATE SET n = n + excluded.n;"
    )


def trigger(name: str, event: str, body: list[str]) -> str:
    """A CREATE TRIGGER statement running ``body`` (statements, each ending in ';')."""
    return f"CREATE TRIGGER {name} {event} BEGIN\n    " + "\n    ".join(body) + "\nEND"


_VANISHED = "(kind = 'vanished')"


def triggers() -> list[str]:
    new_v, old_v = _VANISHED.replace("kind", "NEW.kind"), _VANISHED.replace("kind", "OLD.kind")
    new_fp, old_fp = "'fp:' || NEW.redaction_fp", "'fp:' || OLD.redaction_fp"
    table = [  # (trigger, when it runs, [(counter, delta)])
        ("counts_sessions_ai", "AFTER INSERT ON sessions", [("'sessions'", "1")]),
        ("counts_sessions_ad", "AFTER DELETE ON sessions", [("'sessions'", "-1")]),
        (
            "counts_transcripts_ai",
            "AFTER INSERT ON transcripts",
            [("'transcripts'", "1"), ("'events'", "NEW.next_seq"), ("'vanished'", new_v)],
        ),
        (
            "counts_transcripts_ad",
            "AFTER DELETE ON transcripts",
            [("'transcripts'", "-1"), ("'events'", "-OLD.next_seq"), ("'vanished'", f"-{old_v}")],
        ),
        (
            "counts_transcripts_au",
            "AFTER UPDATE OF next_seq, kind ON transcripts",
            [("'events'", "NEW.next_seq - OLD.next_seq"), ("'vanished'", f"{new_v} - {old_v}")],
        ),
        ("counts_quarantine_ai", "AFTER INSERT ON quarantine", [("'quarantine'", "1")]),
        ("counts_quarantine_ad", "AFTER DELETE ON quarantine", [("'quarantine'", "-1")]),
        ("counts_state_ai", "AFTER INSERT ON index_state", [(new_fp, "1")]),
        (
            "counts_state_au",
            "AFTER UPDATE OF redaction_fp ON index_state",
            [(old_fp, "-1"), (new_fp, "1")],
        ),
        ("counts_state_ad", "AFTER DELETE ON index_state", [(old_fp, "-1")]),
    ]
    return [trigger(name, when, [bump(c, d) for c, d in bumps]) for name, when, bumps in table]


# What the counters hold, counted: a migration fills them with it, and a test compares.
COUNTED = """SELECT 'sessions', count(*) FROM sessions
UNION ALL SELECT 'transcripts', count(*) FROM transcripts
UNION ALL SELECT 'events', coalesce(sum(next_seq), 0) FROM transcripts
UNION ALL SELECT 'vanished', count(*) FROM transcripts WHERE kind = 'vanished'
UNION ALL SELECT 'quarantine', count(*) FROM quarantine
UNION ALL SELECT 'fp:' || redaction_fp, count(*) FROM index_state GROUP BY redaction_fp"""
FILL = f"INSERT INTO counts (name, n)\n{COUNTED}"


def read(conn: sqlite3.Connection) -> dict[str, int]:
    """Every counter (a missing one is 0 to the caller: use .get(name, 0))."""
    return {str(r[0]): int(r[1]) for r in conn.execute("SELECT name, n FROM counts")}


def fts_rows(conn: sqlite3.Connection, table: str) -> int:
    """Rows in an FTS5 index, from the totals FTS5 keeps in its own `<table>_data` (its
    "averages" record, rowid 1: a varint row count first), as exact as the index itself."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return _varint(bytes(row[0])) if row is not None and row[0] else 0


def _varint(b: bytes) -> int:
    """SQLite's varint (big-endian, 7 bits a byte, a full 9th byte), which FTS5 uses."""
    n = 0
    for i, byte in enumerate(b[:9]):
        if i == 8:
            return (n << 8) | byte
        n = (n << 7) | (byte & 0x7F)
        if byte < 0x80:
            return n
    return n
