"""The words of a text as the local full-text indexes see them, computed in Python so that the
central database matches exactly what local search matches (both ends use this module: push
for the rows, search for the query).

The primary index tokenizes with FTS5's ``unicode61 remove_diacritics 2``; the CJK index reads
the bigram text with ``unicode61 remove_diacritics 0 categories 'L* N* Co M*'``. Rather than
re-implement their character tables, each character is asked of SQLite itself once (a probe
document ``x<c>x`` in an in-memory FTS5 table: one token is a token character and its folded
form, two are a separator) and cached for the process; a text is then folded by one
``str.translate`` and split. unicode61 folds character by character, so this is exact.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable

from openclaw_sessions.store.migrations import BIGRAM_TOKENIZER, PRIMARY_TOKENIZER

__all__ = ["BIGRAM_TOKENIZER", "PRIMARY_TOKENIZER", "Folder", "bigram", "folder", "primary"]


class Folder:
    """One FTS5 tokenizer's view of text: ``tokens(text)`` are the tokens FTS5 would index."""

    def __init__(self, tokenizer: str) -> None:
        self._conn = sqlite3.connect(":memory:")
        quoted = tokenizer.replace('"', '""')
        self._conn.execute(f'CREATE VIRTUAL TABLE p USING fts5(t, tokenize="{quoted}")')
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(p, instance)")
        self._table: dict[int, str] = {}
        self._probe(chr(i) for i in range(128))

    def _probe(self, chars: Iterable[str]) -> None:
        todo = []
        for c in chars:
            if 0xD800 <= ord(c) <= 0xDFFF:  # a lone surrogate: SQLite cannot hold it
                self._table[ord(c)] = " "
            else:
                todo.append(c)
        if not todo:
            return
        conn = self._conn
        conn.execute("DELETE FROM p")
        conn.executemany(
            "INSERT INTO p(rowid, t) VALUES (?, ?)", [(ord(c), f"x{c}x") for c in todo]
        )
        found: dict[int, list[str]] = {}
        for doc, term in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
            found.setdefault(int(doc), []).append(str(term))
        for c in todo:
            terms = found.get(ord(c), [])
            # one token x<fold>x: a token character; x and x (or none): a separator
            self._table[ord(c)] = terms[0][1:-1] if len(terms) == 1 else " "

    def fold(self, text: str) -> str:
        """The text with separators as spaces and token characters folded."""
        if not text.isascii():
            table = self._table
            missing = [c for c in set(text) if ord(c) not in table]
            if missing:
                self._probe(missing)
        return text.translate(self._table)

    def tokens(self, text: str) -> list[str]:
        return self.fold(text).split()


@functools.cache
def folder(tokenizer: str) -> Folder:
    """The process's Folder for a tokenizer (built on first use)."""
    return Folder(tokenizer)


def primary() -> Folder:
    return folder(PRIMARY_TOKENIZER)


def bigram() -> Folder:
    return folder(BIGRAM_TOKENIZER)
