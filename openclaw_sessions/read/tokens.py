"""The index's own tokens of a few texts: what makes two query words one (policy/fts_query.py
folds a repeated word into one phrase).

FTS5's verdict, from a scratch table with the primary index's tokenizer: an imitation would
fold case, accents or punctuation differently, and a fold that merges two words the index
tells apart would change an answer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import closing

from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER


def tokens(texts: Iterable[str]) -> list[tuple[str, ...]]:
    """Each text's tokens, in order, as the primary index's tokenizer makes them."""
    texts = list(texts)
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{PRIMARY_TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        db.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(texts, 1))
        found: dict[int, list[str]] = {}
        for term, doc in db.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
            found.setdefault(int(doc), []).append(str(term))
        return [tuple(found.get(i, ())) for i in range(1, len(texts) + 1)]
