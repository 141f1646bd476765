"""The one cut every cap uses: snippets (300 units and an ellipsis), history texts (4000 units
and a marker). Lengths count UTF-16 code units, as JavaScript's ``String.length`` (upstream's
unit), and no cut ends inside a redaction mask, a surrogate pair or a grapheme cluster (pure)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


# --- cutting ------------------------------------------------------------------------------------
def _extends(ch: str) -> bool:
    """A character that belongs to the cluster before it (combining mark, ZWJ, selector…)."""
    o = ord(ch)
    return (
        o == 0x200D
        or 0xFE00 <= o <= 0xFE0F
        or 0xE0100 <= o <= 0xE01EF
        or 0x1F3FB <= o <= 0x1F3FF
        or 0xE0020 <= o <= 0xE007F
        or unicodedata.category(ch) in ("Mn", "Mc", "Me")
    )


def _is_ri(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def utf16_len(text: str) -> int:
    """JavaScript's ``String.length``: astral characters count twice, a lone surrogate once."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def cut_units(text: str, units: int, spans: Sequence[tuple[int, int]] = ()) -> str:
    """The longest prefix of at most ``units`` UTF-16 code units (upstream's unit) that ends
    neither inside a mask span nor inside a surrogate pair nor inside a grapheme cluster (it
    backs off to the cluster's start). Every cap of the tool cuts here: snippets, history texts."""
    cut = min(len(text), max(units, 0))
    if not text.isascii():
        used = utf16_len(text[:cut])
        while used > units:
            cut -= 1
            used -= 2 if ord(text[cut]) > 0xFFFF else 1
    if cut == len(text):
        return text
    moved = True
    while moved and cut > 0:
        before = cut
        for s, e in spans:
            if s < cut < e:
                cut = s
        while cut > 0 and 0xD800 <= ord(text[cut - 1]) <= 0xDBFF:
            cut -= 1
        while cut > 0 and (_extends(text[cut]) or text[cut - 1] == "\u200d"):
            cut -= 1
        if cut > 0 and _is_ri(text[cut]) and _is_ri(text[cut - 1]):
            run = cut
            while run > 0 and _is_ri(text[run - 1]):
                run -= 1
            cut -= (cut - run) % 2
        moved = cut != before
    return text[:cut]


def safe_cut(text: str, limit: int, spans: Sequence[tuple[int, int]] = ()) -> str:
    """``text`` when it has at most ``limit`` UTF-16 code units, else its ``cut_units`` prefix
    plus ``…`` (upstream's snippet rule: 300 units, then the ellipsis)."""
    if utf16_len(text) <= limit:
        return text
    return cut_units(text, limit, spans) + "…"
