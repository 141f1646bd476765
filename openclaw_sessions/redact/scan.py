"""Where the default rules must run: the anchor passes over a text (engine.py applies what they
find).

Reindex redacts every message, and ``re`` has no multi-literal search, so text without secrets
must not meet ~200 regexes. Each family has cheap necessary conditions ("anchors", declared
with its rule: rules.RULES), checked by a few passes that each start with one literal
character (``-``, ``_``, ``=``…), which ``re`` finds at memchr speed, and test the rest with
look-arounds. An anchor is never narrower than its rule (a test runs every shape in tables and
next to dashes with and without the passes).
Assignment families (``KEY=value``, ``"token": "…"``, headers) are anchored on their separator
in the reversed text, where the key before an ``=``/``:`` is a look-ahead, and are evaluated at
those separators only (``site_hits``). The other families are plain regexes over the text, run
only when one of their anchors holds (``scan`` names them).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from . import rules
from .rules import names, upstream
from .syntax import ASCII, GUARD_CLS, TOKEN, WHOLE, Anchor, Field, Hit, Span, compiled, lazy, trie

# --- the passes ---------------------------------------------------------------------------------
# One per buffer and literal. A hit consumes only the literal, so no anchor hides inside
# another one's match; at a hit every anchor of that literal is tried. Each pass, and each
# anchor, is compiled when first needed: the pass when its literal first occurs in a text, an
# anchor when a hit first tries it (a run that redacts a few texts compiles a few of them).
#
# A pass is a list (the hot loop unpacks it): [its search, or None until its literal first
# occurs; reversed?; the literal; the anchors tried at every hit; those tried when the trie's
# word says so (by word); its source]. An anchor is (its source, its rule).
_Hits = tuple[tuple[str, int], ...]


_FORM_GATE = "(?=[A-Za-z0-9_.-]*[A-Za-z_]&)"  # reversed: "=" of a pair that follows an "&"


def _keyside(f: Field) -> str:
    """A family's key half: read back from its separator in the reversed text."""
    return f.gap + trie((k[::-1] for k in f.keys), bool(f.flags & re.I), True, inline=True) + f.edge


def _field_gate(lit: str) -> str:
    """What must follow an ``=``/``:`` in the reversed text for some family's key to be there."""
    fams = [f for f in rules.FIELDS if lit in f.seps]
    ci = {k.lower() for f in fams if f.flags & re.I for k in f.keys}
    cs = {k for f in fams if not f.flags & re.I for k in f.keys} - ci
    wide = {k for k in ci if not k[-1].isascii()}  # (behind a guard: ASCII keys try fewer branches)
    alts = [
        trie((k[::-1] for k in ci - wide), True, inline=True),
        trie((k[::-1] for k in cs), False),
    ]
    if wide:
        alts.append("(?=[^\\x00-\\x7f])" + trie((k[::-1] for k in wide), True, inline=True))
    alts += dict.fromkeys(f.chain for f in fams if f.chain)  # a key then harmless suffixes
    # Every family's gap is quotes, backslashes, spaces and markdown emphasis.
    return r"(?=[§\\\"'`*_]*(?:" + "|".join(alts) + "))(?P<gate>)"


def _passes() -> list[list[Any]]:
    """The passes and their anchors, as sources (a run that redacts nothing never builds them)."""
    groups: dict[tuple[str, str], list[tuple[Anchor, int]]] = {}
    for i, rule in enumerate(rules.RULES):
        for a in rule.anchors:
            groups.setdefault((a.buf, a.lit), []).append((a, i))
    for sep in "=:":
        groups.setdefault(("r", sep), [])
    out = []
    for (buf, lit), items in groups.items():
        alts, anchors = [], []
        merged: dict[str, list[tuple[str, int]]] = {}
        worded = [(a, i) for a, i in items if a.word]
        lit_rx = re.escape(lit)
        for short in (False, True):  # prefix anchors: a trie of the reversed prefixes, captured
            words = {a.word for a, _ in worded if a.short == short}
            if not words:
                continue
            keys = prefix_free(words)
            g = GUARD_CLS  # the near character first: a look-behind reads left to right
            guard = "" if short else f"(?<={g}{lit_rx})(?<={g}{{8}}{lit_rx})"
            # A short anchor's own condition is part of the hit: "--" then a letter is a flag,
            # a run of dashes (a Markdown table's rule) is no hit at all. (A key holds its own
            # words' conditions only: keys are prefix-free, so at most one matches at a place.)
            then = "|".join(dict.fromkeys(a.rest for a, _ in worded if a.short)) if short else ""
            alts.append(
                f"{guard}(?=({trie(keys, True, inline=True)})){f'(?:{then})' if then else ''}"
            )
            for k in keys:  # a captured key stands for every word it starts, of either trie
                merged.setdefault(k, []).extend(
                    (lit_rx + a.rest, i) for a, i in worded if a.word.startswith(k)
                )
        for a, i in items:
            if not a.word:
                alts.append(f"(?:{a.umbrella or a.rest})")
                anchors.append((lit_rx + a.rest, i))
        if buf == "r" and lit in "=:":  # assignment families: a key before the separator
            alts.append(_field_gate(lit))
            if lit == "=":  # a capture, so the hit itself tells that a form pair follows
                alts.insert(0, _FORM_GATE.replace("(?=", "(?=(?P<amp>", 1).replace("&)", ")&)"))
        src = lit_rx + "(?:" + "|".join(dict.fromkeys(alts)) + ")"
        by_word: dict[str, _Hits] = {k: tuple(v) for k, v in merged.items()}
        out.append([None, buf == "r", lit, tuple(anchors), by_word, src])
    return out


def prefix_free(words: set[str]) -> list[str]:
    """The words that no other word starts, sorted. In sorted order the words a word starts
    follow it at once, so one pass keeps a word unless the last one kept starts it."""
    keys: list[str] = []
    for w in sorted(words):
        if not keys or not w.startswith(keys[-1]):
            keys.append(w)
    return keys


_FAMILIES = {sep: tuple(i for i, f in enumerate(rules.FIELDS) if sep in f.seps) for sep in "=:"}


_CALLS: list[list[Any]] = []  # the passes, built on first use (the hot loop reads a global)


@lru_cache(maxsize=2)
def _keyside_rx(sep: str) -> re.Pattern[str]:
    """One match tells which families have their key before ``sep`` (group i+1: family i)."""
    alts = (f"(?:(?=({_keyside(f)})))?" if sep in f.seps else "()" for f in rules.FIELDS)
    return compiled("".join(alts), ASCII)


def reference(text: str, span: Span) -> bool:
    """A token that is a reference (``$TOKEN``, ``${{ secrets.X }}``, ``process.env.X``)."""
    return span[1] > span[0] and names.reference(text[span[0] : span[1]])


def last_group(m: re.Match[str]) -> Span:
    g = next((i for i in range(len(m.groups()), 0, -1) if m.group(i)), 0)
    return m.span(g)


def scan(text: str, rev: str) -> tuple[set[int], list[int], list[int]]:
    """Run the passes: the rules whose anchor holds, the separators with a key before them, and
    the "&" before a form pair (unordered: site_hits orders them)."""
    wanted: set[int] = set()
    seps: list[int] = []
    amps: list[int] = []
    n1 = len(text) - 1
    if not _CALLS:
        _CALLS.extend(_passes())
    for call in _CALLS:
        search, reverse, lit, anchors, by_word, _ = call
        if lit not in text:  # "in" is a memchr without the cost of a regex call
            continue
        if search is None:
            search = call[0] = compiled(call[5], ASCII).search
        buf = rev if reverse else text
        m = search(buf)
        while m:
            p = m.start()
            if reverse and lit in "=:":  # an assignment separator
                seps.append(n1 - p)
                if lit == "=":  # "=" carries no anchors
                    if m.group("amp") is not None:
                        amps.append(n1 - m.end("amp"))
                    m = search(buf, p + 1)
                    continue
            if lit == ":" and reverse and m.group("gate") is not None:  # only a key: no anchor
                m = search(buf, p + 1)
                continue
            cands = anchors
            if m.lastindex:
                cands += by_word.get(m.group(m.lastindex).lower(), ())
            for src, i in cands:
                if i not in wanted and lazy(src, ASCII).match(buf, p):
                    wanted.add(i)
            m = search(buf, p + 1)
    return wanted, seps, amps


def site_hits(text: str, rev: str, seps: list[int], amps: list[int]) -> list[Hit]:
    """Assignment families at their separators and form pairs at their "&", left to right;
    at a separator every family that fits adds its token; nothing starts inside an earlier
    match."""
    hits: list[Hit] = []
    last = 0
    for pos, is_amp in sorted([(q, False) for q in seps] + [(a, True) for a in amps]):
        if pos < last:
            continue
        found = _form_at(text, rev, pos) if is_amp else _field_at(text, rev, pos)
        if found and found[0] >= last:
            last = found[2]
            hits += [h for h in found[1] if h[1] > h[0]]
    return hits


def _quoted(text: str, s: int, e: int) -> bool:
    """Is ``text[s:e]`` a whole quoted value (``"…"``, ``'…'``, ``\"…\"``)?"""
    q = text[s - 1] if s else ""
    if not (q in "\"'`" and q != "" and text.startswith(q, e)):
        return False
    return _SCHEME.match(text, s, e) is None  # ("Bearer …" keeps its scheme readable)


_SCHEME = compiled(r"(?:Bearer|Basic|Bot|Token|Digest)[ \t]", ASCII | re.I)
_NEXT_PAIR = compiled(r"[\"']?&[A-Za-z_][A-Za-z0-9_.%-]*=", ASCII)


def _form_pair(text: str, key: int, end: int) -> bool:
    """A pair of a query string or form body: after "?" or "&", or before "&next=" (upstream
    masks those values whole)."""
    return text[key - 1 : key] in ("?", "&") or bool(_NEXT_PAIR.match(text, end))


def _field_at(text: str, rev: str, q: int) -> tuple[int, list[Hit], int] | None:
    """(the first key's start, the tokens, the values' end) of the families that fit at ``q``."""
    n = len(text)
    km = _keyside_rx(text[q]).match(rev, n - q)
    if not km or not km.lastindex:
        return None
    regs = km.regs
    found: list[Hit] = []
    key = stop = -1
    if text.startswith(":", q + 1):
        return None  # (``Secret::get``: a path, no separator)
    for i in _FAMILIES[text[q]]:
        start, end = regs[i + 1]
        if end <= start:
            continue
        f = rules.FIELDS[i]  # its value half (the key halves: ``_keyside_rx``)
        vm = lazy(f.value, f.flags).match(text, q + 1)
        if vm and not _inside_reference(text, n - end):
            check = f.check
            span = check(vm, n - end) if check else last_group(vm)
            if span and not reference(text, span):
                # A secret's quoted value is masked whole, as upstream masks it.
                whole = f.whole or _quoted(text, *span) or _form_pair(text, n - end, span[1])
                found.append((span[0], span[1], WHOLE if whole else TOKEN))
                key = n - end if key < 0 else key
                stop = max(stop, vm.end())
    return (key, found, stop) if found else None


# A key that is part of a reference: ``${NAME:?message}``, an ARN's ``…:secret:name``.
_ARN_BEFORE = compiled(r"arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:\Z", ASCII)


def _inside_reference(text: str, key: int) -> bool:
    if text.endswith("${", 0, key):
        return True
    return text.endswith(":", 0, key) and bool(_ARN_BEFORE.search(text, max(0, key - 120), key))


def _form_at(text: str, rev: str, a: int) -> tuple[int, list[Hit], int] | None:
    """The first pair of a run that goes on with "&key=": upstream's form-body rule."""
    back = upstream.RUN_R.match(rev, len(text) - a)
    run = a - (back.end() - back.start()) if back else a
    cands = [run] if run == 0 or text[run - 1] in upstream.SPACE else []
    cands += [c.end() for c in upstream.COMMA.finditer(text, run, a)]
    for c in cands:
        if fm := upstream.FORM.match(text, c):
            return c, [(*last_group(fm), WHOLE)], fm.end()
    return None
