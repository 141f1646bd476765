"""The snippet of each hit shown, with bounded work per hit whatever one message holds.

FTS5's ``snippet()`` scores a window at every match of a row against every other match of that
row: quadratic in one row's matches (a message of 80,000 repetitions of a word took 44 s, and a
50 MB line never finished). So:

- a row of at most ``FULL_CHARS`` characters gets FTS5's own snippet (upstream's, exactly);
- a longer row is scanned once, linearly, in its first ``SCAN_CHARS`` characters (FTS5's
  ``highlight()`` in a scratch table with the index's tokenizer): when the whole row is that
  short and holds at most ``MAX_HITS`` matches it still gets FTS5's own snippet; otherwise the
  snippet is FTS5's snippet of an excerpt around the first match of that prefix (or of its
  start when it has none), with the ellipses the whole row would have had.

Upstream's rules hold for both: a window of 48 tokens, `` … `` where text was left out, the
match near the middle; the caller redacts and cuts to 300 UTF-16 units. A CJK-only query gets a
window of characters around its first match (the bigram index cannot make snippets), also
within the bounded prefix.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER

OPEN, CLOSE = "\x02", "\x03"
ELLIPSIS = " … "
TOKENS = 48
FULL_CHARS = 2048  # at most ~1000 tokens: FTS5's quadratic snippet stays under ~5 ms
SCAN_CHARS = 32768  # the prefix scanned (linearly) for the first match of a long row
MAX_HITS = 256  # a long row with this few matches still gets FTS5's snippet of the whole row
EXCERPT = (600, 1400)  # characters kept before and after the first match
_CJK_CONTEXT = (30, 90)  # characters before and after the first CJK match
_SNIPPET_SQL = f"snippet({{t}}, 0, '{OPEN}', '{CLOSE}', '{ELLIPSIS}', {TOKENS})"


class Snippets:
    """Snippets for one search: the store's connection, and a scratch table when needed."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._scratch: sqlite3.Connection | None = None

    def primary(self, expr: str, rowid: int, text: str) -> str | None:
        """The snippet of index row ``rowid`` (whose text is ``text``) for ``expr``."""
        if len(text) <= FULL_CHARS:
            return self._whole(expr, rowid)
        any_expr = expr.replace(" AND ", " OR ")  # phrases hold no spaces: only separators
        # the scanned prefix, backed off to whitespace so no token is cut in two
        prefix = text[: _space_before(text, SCAN_CHARS, 0)] if len(text) > SCAN_CHARS else text
        marked = self._scratch_query("highlight(s, 0, ?, ?)", prefix, any_expr, (OPEN, CLOSE))
        hits = marked.count(OPEN) if marked is not None else 0
        if prefix is text and hits <= MAX_HITS:
            return self._whole(expr, rowid)
        first = marked.index(OPEN) if marked is not None and hits else 0
        return self._excerpt(text, first, any_expr)

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None

    def _whole(self, expr: str, rowid: int) -> str | None:
        got = self.conn.execute(
            f"SELECT {_SNIPPET_SQL.format(t='index_fts')} FROM index_fts"
            " WHERE index_fts MATCH ? AND rowid = ?",
            (expr, rowid),
        ).fetchone()
        return got[0] if got else None

    def _excerpt(self, text: str, first: int, expr: str) -> str:
        before, after = EXCERPT
        start = _space_after(text, max(0, first - before)) if first > before else 0
        end = min(len(text), first + after)
        if end < len(text):
            end = _space_before(text, end, start)
        part = text[start:end]
        snip = self._scratch_query(_SNIPPET_SQL.format(t="s"), part, expr)
        if snip is None:  # no match in the excerpt: its first tokens
            snip = part[: before + after]
        if start > 0 and not snip.startswith(ELLIPSIS):
            snip = ELLIPSIS + snip.lstrip()
        if end < len(text) and not snip.endswith(ELLIPSIS):
            snip = snip.rstrip() + ELLIPSIS
        return snip

    def _scratch_query(
        self, column: str, text: str, expr: str, params: tuple[str, ...] = ()
    ) -> str | None:
        """``column`` of a one-row FTS5 table holding ``text``, when it matches ``expr``."""
        if self._scratch is None:
            self._scratch = sqlite3.connect(":memory:")
            sql = f"CREATE VIRTUAL TABLE s USING fts5(text, tokenize='{PRIMARY_TOKENIZER}')"
            self._scratch.execute(sql)
        db = self._scratch
        db.execute("DELETE FROM s")
        db.execute("INSERT INTO s (rowid, text) VALUES (1, ?)", (text,))
        try:
            got = db.execute(f"SELECT {column} FROM s WHERE s MATCH ?", (*params, expr)).fetchone()
        except sqlite3.OperationalError:  # an expression FTS5 rejects here: no snippet
            return None
        return got[0] if got else None


def _space_before(text: str, end: int, floor: int) -> int:
    """The last whitespace at or before ``end`` (within 64 characters), else ``end``."""
    for i in range(end, max(floor, end - 64), -1):
        if text[i - 1].isspace():
            return i
    return end


def _space_after(text: str, start: int) -> int:
    """The first token start at or after ``start`` (within 64 characters), else ``start``."""
    for i in range(start, min(len(text), start + 64)):
        if text[i - 1].isspace() if i else True:
            return i
    return start


def cjk_snippet(text: str, terms: Sequence[str]) -> str:
    """A window of characters around the first CJK match (within the scanned prefix), with
    markers on every match in it."""
    alts = "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))
    rx = re.compile(alts or "(?!)", re.IGNORECASE)
    found = rx.search(text, 0, SCAN_CHARS)
    first = found.start() if found else 0
    before, after = _CJK_CONTEXT
    start, end = max(0, first - before), min(len(text), first + after)
    window = rx.sub(lambda m: OPEN + m.group() + CLOSE, text[start:end])
    return ("… " if start else "") + window + (" …" if end < len(text) else "")
