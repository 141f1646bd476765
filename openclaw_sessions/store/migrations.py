"""The store's schema: schema.sql (and derived_schema) for a new store, the numbered
migrations that take an older one to it (their SQL frozen in migrations.sql as each version
shipped), and the header (user_version, application_id) that says which. The code that applies
them is db.py's (one transaction per step, with its version bump);
tests/test_store_migrations.py holds a store of every released version to the fresh schema.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from functools import cache

from . import counts, pending, rawcodec

# The tokenizers of the two indexes, as schema.sql declares them: snippets and --explain
# re-tokenize text in scratch tables with the same ones (a test holds them equal).
PRIMARY_TOKENIZER = "unicode61 remove_diacritics 2"
BIGRAM_TOKENIZER = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"


SCHEMA_VERSION = 13


APP_ID = 0x4F43_5353  # "OCSS": marks the file as ours


PAGE_SIZE = 16384


def _text(name: str) -> str:
    # Imported here: only creating or migrating a store reads the SQL files, and the import
    # (zipfile, tempfile…) would cost every command's start-up.
    from importlib import resources

    return resources.files(__package__).joinpath(name).read_text("utf-8")


@cache
def _frozen() -> dict[str, str]:
    """migrations.sql's sections by name: the SQL of each step as it shipped."""
    text = _text("migrations.sql")
    parts = re.split(r"^--- (\S+)\n", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


Migration = str | Callable[[sqlite3.Connection], None]


def step(version: int) -> Migration:
    """The migration from version N-1 to N: it runs in one transaction with its version bump.
    A step is its frozen SQL (migrations.sql), or a function of the connection when it needs
    Python (rawcodec's training, the bigram text re-derived); those run frozen SQL too."""
    if version == 8:
        return _compress_raw
    if version == 9:
        return _derive_bigrams
    return _frozen()[str(version)]


# Steps that rewrite most of the file: VACUUM after them gives the freed pages back.
VACUUM_AFTER = frozenset({8})


def _derive_bigrams(conn: sqlite3.Connection) -> None:
    """v9: index_rows rebuilt without its bigram column (row_ids kept: both FTS5 indexes stay
    as they are), the view and the delete trigger derive it. A row whose stored bigram text is
    not what the function derives (an older rule indexed it) is indexed anew with the derived
    one first, so every later delete removes exactly what is indexed."""
    for stmt in statements(_frozen()["9-table"]):
        conn.execute(stmt)
    differ = conn.execute(
        "SELECT row_id, cjk, derived FROM (SELECT row_id, cjk, ocs_cjk_bigrams(text) AS derived"
        " FROM index_rows_v8) WHERE cjk IS NOT derived"
    ).fetchall()
    for row_id, stored, derived in differ:
        if stored is not None:
            conn.execute(
                "INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', ?, ?)",
                (row_id, stored),
            )
        if derived is not None:
            conn.execute("INSERT INTO index_bigram(rowid, cjk) VALUES (?, ?)", (row_id, derived))
    for stmt in statements(_frozen()["9-derived"]):
        conn.execute(stmt)


def _compress_raw(conn: sqlite3.Connection) -> None:
    """v8: a dictionary trained on a sample of the store's lines, then every line of events and
    archived_events copied compressed into the tables as v8 declared them (rowids
    kept). One transaction; db.py makes the backup before and the VACUUM after."""
    for table in ("events", "archived_events"):
        conn.execute(f"ALTER TABLE {table} RENAME TO {table}_v7")
    for stmt in statements(_frozen()["8"]):
        conn.execute(stmt)
    if rawcodec.lines(conn, "events_v7") >= rawcodec.FIRST_LINES:
        rawcodec.train(conn, "events_v7")
    for table in ("events", "archived_events"):
        rawcodec.recompress(conn, f"{table}_v7", table)
        conn.execute(f"DROP TABLE {table}_v7")


def derived_schema() -> str:
    """The tables and triggers made from store/counts.py and store/pending.py, for a fresh
    store (migration 10 froze them as they were then: a change here needs a migration)."""
    parts = [counts.TABLE, *counts.triggers(), pending.TABLE, pending.INDEX, *pending.triggers()]
    return "".join(f"{p};\n" for p in parts)


def schema_sql() -> str:
    return _text("schema.sql")


def statements(sql: str) -> list[str]:
    """Split a script into complete statements (triggers contain ';')."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if not buf and line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [s for s in out if s]
