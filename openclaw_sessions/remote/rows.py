"""What a push sends of one index row: the redacted text, its folded primary tokens and its
bigram index tokens (fold.py), the tsvector that indexes them centrally, and a hash that tells a
changed row from an unchanged one (pure but for fold's SQLite probe)."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import NamedTuple

from openclaw_sessions.policy.cjk import beside_cjk, cjk_bigram_text

from . import fold

LEXEME_CHARS = 100  # tsvector lexemes are cut here (PostgreSQL allows 2047 bytes)
TSV_CHARS = 500_000  # a larger tsvector (limit: 1 MB) is left NULL: such rows are scanned
BIGRAM_MARK = "~"  # a bigram lexeme's prefix (never in a primary token: a separator)


def lexeme(token: str) -> str:
    cut = token[:LEXEME_CHARS]
    return "'" + cut.replace("\\", "\\\\").replace("'", "''") + "'"


class Folded(NamedTuple):
    words: str  # " w1 w2 … " (primary tokens)
    bigrams: str | None  # " b1 b2 … " (the bigram index's tokens) or None
    ntok: int
    tsv: str | None  # a tsvector literal
    tfmax: int  # the most repeated word's count (0: no word)
    tf: dict[str, int]  # each distinct word's count (its postings: postings.py)
    # each word beside CJK text the words lack: its count among the bigram index's tokens
    # (postings marked ~, with that index's length: nbig; schema.postings_of)
    beside: dict[str, int]
    nbig: int


def storable(text: str | None) -> bool:
    """Can PostgreSQL hold this key or id exactly? (No NUL, no lone surrogate: cleaning
    either would make it another session's name.)"""
    if text is None:
        return True
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean(text: str) -> str:
    """Text PostgreSQL can hold: NUL (a separator to the tokenizer, as U+FFFD is) and lone
    surrogates become U+FFFD."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def fold_text(text: str) -> Folded:
    """A row as the two local indexes hold it: the word index's tokens (``words``: what
    bm25 counts there, tf and length), and the bigram index's (``bigrams``: the CJK bigrams,
    then the row's other words, each on its own: cjk.index_bigram_text). A word
    written against CJK text is found there, folded as that index folds (diacritics kept),
    and scored by that index's bm25, as locally (query.branches)."""
    words = fold.primary().tokens(text)
    cjk = cjk_bigram_text(text)
    pairs = fold.bigram().tokens(cjk) if cjk is not None else []
    beside = fold.bigram().tokens(beside_cjk(text)) if cjk is not None else []
    bigrams = pairs + beside  # cjk.index_bigram_text's tokens
    lexemes = {lexeme(w) for w in words}
    lexemes.update(lexeme(BIGRAM_MARK + b) for b in pairs)
    # a word beside CJK text is marked so only when the words lack it: the bigram branch
    # seeks a word among the rows the word index misses (query.branches), and a common word's
    # marked rows are then few
    held = set(words)
    lexemes.update(lexeme(BIGRAM_MARK + b) for b in beside if b not in held)
    tf = Counter(words)
    big = Counter(bigrams)
    tsv: str | None = " ".join(sorted(lexemes))
    if tsv is not None and len(tsv) > TSV_CHARS:
        tsv = None
    return Folded(
        " " + " ".join(words) + " ",
        (" " + " ".join(bigrams) + " ") if cjk is not None else None,
        len(words),
        tsv,
        max(tf.values(), default=0),
        dict(tf),
        {b: big[b] for b in beside if b not in held},
        len(bigrams),
    )


def row_hash(key: str, sid: str, mid: str, role: str, ts: int, text: str) -> str:
    h = hashlib.blake2b(digest_size=12)
    for part in (key, sid, mid, role, str(ts)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()
