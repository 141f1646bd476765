"""The view of a text that redaction matches against: disguises undone, offsets kept.

People (and models) paste secrets with look-alike characters: a full-width ``ｇｈｐ＿…``, a
Cyrillic ``ѕ`` in ``ѕk-ant-…``, a zero-width space inside a token. The rules are written for
ASCII, so they match a *folded* copy of the text: compatibility forms that NFKC turns into one
ASCII letter, digit or token punctuation (full-width, mathematical, enclosed, letter-like,
small forms, ligatures), the common Cyrillic/Greek/Lisu/Cherokee homoglyphs of Latin letters,
hyphen look-alikes, and invisible format characters (Unicode category Cf), which are removed.
The masked output is built from the original text, so only the mask itself replaces anything.

Cost: ASCII text (most messages) returns at once. Otherwise one regex search over the text
finds the characters that fold; homoglyphs and format characters fold only next to an ASCII
token character (or another folding character), so prose in Cyrillic, Greek or with emoji
joiners stays on the fast path. Folds that keep the length need no offset map.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from functools import lru_cache

from . import recache
from .syntax import merge

# Compatibility forms whose NFKC form is an ASCII letter or digit (full-width, ligatures,
# letter-like symbols, roman numerals, enclosed alphanumerics): they fold wherever they are.
_ALWAYS = (
    "\uff10-\uff19\uff21-\uff3a\uff3f\uff41-\uff5a\uff0d"
    "\ufb00-\ufb06\u2100-\u214f\u2160-\u217f\u2460-\u24ff"
)
# Format characters (Cf, Unicode 14): invisible, removed where they touch a token.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
# Homoglyphs of ASCII token characters (facts from Unicode's confusables list), and full-width
# or small separators: they fold where they touch an ASCII token character (or each other), so
# Russian, Greek or Chinese prose ("注意：…") stays as it is.
HOMOGLYPHS = {
    **dict(zip("авсеһіјӏкорԛѕԝхуԁүսօհզ", "abcehijlkopqswxydyuohq", strict=True)),  # Cyrillic…
    **dict(zip("АВЕКМНОРСТХУЅІЈԚԜҮӀ", "ABEKMHOPCTXYSIJQWYI", strict=True)),
    **dict(zip("ɑɡıȷɩ", "agiji", strict=True)),  # Latin
    **dict(zip("αονικυχϲϳε", "aovikuxcje", strict=True)),  # Greek
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿ", "ABEZHIKMNOPTYXCJ", strict=True)),
    **dict(zip("ꓮꓐꓚꓓꓰꓝꓖꓧꓲꓙꓗꓡꓟꓠꓳꓑꓣꓢꓔꓴꓦꓪꓫꓬꓜ", "ABCDEFGHIJKLMNOPRSTUVWXYZ", strict=True)),  # Lisu
    **dict(zip("ᎪᏴᏟᎠᎬᏀᎻᏆᎫᏦᏞᎷᏢᎡᏚᎢᏙᏔᎩᏃ", "ABCDEGHIJKLMPRSTVWYZ", strict=True)),  # Cherokee
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2212\u02d7", "-"),
    **dict.fromkeys("\u2236\ua789", ":"),
}
_SEPS = "\uff1a\uff1d\uff0e\uff0f\uff20\uff0b\uff02\uff07\uff40\ufe55\ufe66\ufe63\ufe6b"
_HOMO = "".join(re.escape(c) for c in HOMOGLYPHS)
_TOK = "A-Za-z0-9_\\-"
# A candidate: any of the above, but a separator only next to an ASCII token character (so
# "注意：" in Chinese prose is not one).
_ANY = recache.compile(
    f"[{_ALWAYS}{_FORMAT}{_SEPS}{_HOMO}](?:(?<![{_SEPS}])|(?<=[{_TOK}].)|(?=[{_TOK}]))"
)
# A rare character, or an ASCII letter next to a homoglyph (one scan led by a class:
# fast in Cyrillic or Greek prose). ASCII letters only: a homoglyph among digits and dashes is
# no disguise.
_MIXED = recache.compile(
    f"[{_ALWAYS}{_FORMAT}{_SEPS}A-Za-z](?:(?<=[^\\x00-\\x7f])|(?=[{_HOMO}])|(?<=[{_HOMO}][A-Za-z]))"
)


def _chars(cls: str) -> frozenset[str]:
    """The characters of a class body made of single characters and ``a-b`` ranges."""
    out: set[str] = set()
    for m in re.finditer(r"(.)-(.)|(.)", cls, re.S):
        if m.group(3):
            out.add(m.group(3))
        else:
            out.update(map(chr, range(ord(m.group(1)), ord(m.group(2)) + 1)))
    return frozenset(out)


_ALWAYS_CH = _chars(_ALWAYS)
_SPARSE_CH = _chars(_ALWAYS + _FORMAT + _SEPS)
_NEAR_CH = _chars(_FORMAT + _SEPS) | frozenset(HOMOGLYPHS)
_TOK_CH = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_TOUCH = _TOK_CH | _ALWAYS_CH | _NEAR_CH
_TOKEN_PUNCT = frozenset("-_=:.@/+~$#%&*!?'\"`^|<>()[]{},;")


def _fold_char(c: str) -> str:
    out = HOMOGLYPHS.get(c)
    if out is not None:
        return out
    if unicodedata.category(c) == "Cf":
        return ""
    nf = unicodedata.normalize("NFKC", c)
    if nf.isascii() and (nf.isalnum() or (len(nf) == 1 and nf in _TOKEN_PUNCT)):
        return nf
    return c


@lru_cache(maxsize=4096)
def fold_run(run: str) -> str:
    return "".join(_fold_char(c) for c in run)


class View:
    """``text`` folded for matching, and how to map its offsets back to the original.

    ``marks`` holds, for each folded run whose length changed, ``(n0, n1, t0, t1)``: the run is
    ``text[n0:n1]`` here and ``original[t0:t1]`` there; elsewhere offsets shift by a constant.
    """

    __slots__ = ("text", "marks", "_n0")

    def __init__(self, text: str, marks: tuple[tuple[int, int, int, int], ...] = ()) -> None:
        self.text = text
        self.marks = marks
        self._n0 = [m[0] for m in marks]

    def start(self, n: int) -> int:
        """The original offset of a span that starts at ``n`` (a run it starts in: its start)."""
        k = bisect_right(self._n0, n) - 1
        if k < 0:
            return n
        n0, n1, t0, t1 = self.marks[k]
        return t0 if n < n1 else t1 + (n - n1)

    def end(self, n: int) -> int:
        """The original offset of a span that ends at ``n`` (a run it ends in: its end)."""
        k = bisect_left(self._n0, n) - 1
        if k < 0:
            return n
        n0, n1, t0, t1 = self.marks[k]
        return t1 if n <= n1 else t1 + (n - n1)


def _touches(text: str, s: int, e: int) -> bool:
    """Does the run ``text[s:e]`` touch an ASCII token character or a folding one?"""
    return (s > 0 and text[s - 1] in _TOUCH) or (e < len(text) and text[e] in _TOUCH)


def _rare_run(text: str, s: int, runs: list[tuple[int, int]]) -> int:
    """The run of rare characters from ``text[s]`` (added to ``runs`` when it folds); its end."""
    e = s + 1
    while e < len(text) and text[e] in _SPARSE_CH:
        e += 1
    if _touches(text, s, e) or not _ALWAYS_CH.isdisjoint(text[s:e]):
        runs.append((s, e))
    return e


def _runs(text: str, m: re.Match[str] | None) -> list[tuple[int, int]]:
    """The folding runs of ``text`` in order; ``m`` is its first candidate character."""
    runs: list[tuple[int, int]] = []
    while m is not None and m.group() not in HOMOGLYPHS:  # rare ones, one by one
        e = _rare_run(text, m.start(), runs)
        m = _ANY.search(text, e)
    if m is not None:  # a homoglyph: Cyrillic or Greek text; one scan finds the rest
        n = len(text)
        e = 0
        for a in _MIXED.finditer(text, max(0, m.start() - 1)):
            p = a.start()
            if p < e:
                continue
            if text[p] > "\x7f":  # a rare character
                e = _rare_run(text, p, runs)
                continue
            s = p  # an ASCII token character: the homoglyph runs on either side
            while s > 0 and text[s - 1] in _NEAR_CH:
                s -= 1
            e = p + 1
            while e < n and text[e] in _NEAR_CH:
                e += 1
            if s < p:
                runs.append((s, p))
            if e > p + 1:
                runs.append((p + 1, e))
    return merge(runs) if len(runs) > 1 else runs


def view(text: str) -> View | None:
    """The folded view of ``text``, or None when nothing in it folds (most texts)."""
    if text.isascii() or (m := _ANY.search(text)) is None:
        return None
    parts: list[str] = []
    marks: list[tuple[int, int, int, int]] = []
    cur = n = 0
    for s, e in _runs(text, m):
        run = text[s:e]
        new = fold_run(run)
        if new == run:
            continue
        parts.append(text[cur:s])
        n += s - cur
        if len(new) != len(run):
            marks.append((n, n + len(new), s, e))
        parts.append(new)
        n += len(new)
        cur = e
    if not parts:
        return None
    parts.append(text[cur:])
    return View("".join(parts), tuple(marks))
