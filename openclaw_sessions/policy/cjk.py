"""The CJK side of the index's tokeniser (pure): which characters are CJK-like script, the
bigram text the bigram index holds of a row, and the words beside its CJK runs.

Han, kana, Hangul, Thai, Lao, Khmer and Myanmar are written without spaces, and unicode61
keeps a run of them as one token: they go to a second index of overlapping bigrams instead
(fts_query.py routes a query's runs there). What this module derives is frozen: the store
derives it again to delete a row from the bigram index (schema.sql, ocs_cjk_bigrams).
"""

from __future__ import annotations

import re
import unicodedata
from operator import add as _add

CJK_CLASS = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf"  # CJK radicals
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035"  # ideographic marks and numbers
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # halfwidth Katakana
    "\U00020000-\U0003ffff"  # CJK extensions B…
)
# Compiled on first use, by re's own cache: most processes never meet a CJK character, and
# the class costs milliseconds to compile.
CJK_RUN = f"([{CJK_CLASS}]+)"  # a group: re.split keeps the runs


def maybe_cjk(text: str) -> bool:
    return not text.isascii() and max(text) >= "\u0e00"  # the lowest range of CJK_CLASS


def cjk_bigram_text(text: str) -> str | None:
    """The bigram text: each CJK run as overlapping bigrams plus its last character. Frozen
    (a change needs a migration that rebuilds the bigram index); the first two tests only skip
    work (every row is deleted through here)."""
    if not maybe_cjk(text):
        return None
    runs = re.findall(CJK_RUN, text)
    if not runs:
        return None
    parts: list[str] = []
    for run in runs:
        run = unicodedata.normalize("NFC", run)
        if len(run) > 1:  # map(add, …) pairs neighbours in C: ~3x a slice per bigram
            parts.append(" ".join(map(_add, run, run[1:])))
        parts.append(run[-1])
    return " ".join(parts)


def index_bigram_text(text: str) -> str | None:
    """What the bigram index holds of a row (store/db.py's ocs_cjk_bigrams): its bigram text,
    then, for a row with CJK text, its other words. unicode61 fuses a Latin word written
    against CJK characters (`修改youer服务端`) into one token of the word index: here it is a
    token of its own, and a query's Latin words are sought here too (with_glued). Frozen, as
    cjk_bigram_text is (v12 rebuilt the bigram index for it)."""
    cjk = cjk_bigram_text(text)
    if cjk is None:
        return None
    rest = beside_cjk(text)
    return f"{cjk} {rest}" if rest else cjk


# What stands for a CJK run between the other words: a token of both indexes (private use),
# so two words a CJK run separates are no phrase ("migration 迁移 timeout").
GAP = "\ue000"


def beside_cjk(text: str) -> str:
    """The text of a row with CJK text but its CJK runs: its words, each on its own."""
    return " ".join(re.sub(CJK_RUN, f" {GAP} ", text).split())

