"""Secret redaction for every text this tool indexes or shows, and the safe cut of redacted text.

This module owns the engine: it runs the user patterns of ``logging.redactPatterns`` (first,
on the text as given), then the default rules of ``redact_rules`` on a folded view of the text
(``redact_fold``: look-alike characters and invisible format characters undone), and masks, in
the original text, every span a rule found. It also owns the fingerprint that tells index rows
built under other rules, and the one cut every cap uses (``cut_units``/``safe_cut``, counting
UTF-16 code units as upstream does). It is pure: no I/O, stdlib ``re`` only.

Masking (upstream's): the token is the last non-empty capture group of a match, or the whole
match (a family's check may say otherwise); under 18 characters it becomes ``***``, otherwise
its first 6 characters, ``…`` and its last 4. Only the token is replaced; overlapping tokens of
different families are masked as one. A PEM private key keeps its first and last line around
``…redacted…``; one whose END line is missing keeps its first line.

Speed: reindex redacts every message, and ``re`` has no multi-literal search, so text without
secrets must not meet ~200 regexes. Each family has cheap necessary conditions ("anchors"),
checked by a few passes that each start with one literal character (``-``, ``_``, ``=``…),
which ``re`` finds at memchr speed, and test the rest with look-arounds. Assignment families
(``KEY=value``, ``"token": "…"``, headers) are anchored on their separator in the reversed
text, where the key before an ``=``/``:`` is a look-ahead, and are evaluated at those
separators only. The other families are plain regexes over the text, run only when one of their
anchors holds. ASCII text skips the fold.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from openclaw_sessions.errors import ConfigError

from . import recache, redact_fold
from . import redact_rules as R
from .redact_rules import BLOCK, TOKEN, A, Anchor, Hit, Span

# 2: generic secret names, command lines, config files, key blocks without END, more vendors,
# matching on the folded text.
REDACTION_VERSION = 2
_MIN_LEN, _KEEP_START, _KEEP_END = 18, 6, 4
_PEM_MARK = "…redacted…"


def _sha256(data: bytes) -> Any:
    try:  # the builtin module: hashlib's OpenSSL set-up costs ~2 ms of every run
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover
        from hashlib import sha256
    return sha256(data)


# --- the passes ---------------------------------------------------------------------------------
# One per buffer and literal. A hit consumes only the literal, so no anchor hides inside
# another one's match; at a hit every anchor of that literal is tried.
_Hits = tuple[tuple[re.Pattern[str], int], ...]  # anchors to try at a hit, with their rule
_PassCall = tuple[Callable[..., "re.Match[str] | None"], bool, str, _Hits, dict[str, _Hits]]


class _Pass(NamedTuple):
    buf: str
    lit: str
    regex: re.Pattern[str]
    anchors: _Hits  # tried at every hit
    by_word: dict[str, _Hits]  # tried when the trie's word says so


def _field_gate(lit: str) -> str:
    """What must follow an ``=``/``:`` in the reversed text for some family's key to be there."""
    fams = [f for f in R.FIELDS if lit in f.seps]
    ci = {k.lower() for f in fams if f.flags & re.I for k in f.keys}
    cs = {k for f in fams if not f.flags & re.I for k in f.keys} - ci
    wide = {k for k in ci if not k[-1].isascii()}  # (behind a guard: ASCII keys try fewer branches)
    alts = [R.trie((k[::-1] for k in ci - wide), True), R.trie((k[::-1] for k in cs), False)]
    if wide:
        alts.append("(?=[^\\x00-\\x7f])" + R.trie((k[::-1] for k in wide), True))
    alts += dict.fromkeys(f.chain for f in fams if f.chain)  # a key then harmless suffixes
    # Every family's gap is quotes, backslashes, spaces and markdown emphasis.
    return r"(?=[§\\\"'`*_]*(?:" + "|".join(alts) + "))(?P<gate>)"


@lru_cache(maxsize=1)
def _passes() -> tuple[_Pass, ...]:
    """The passes, compiled on first use (a CLI run that redacts nothing never pays for them)."""
    groups: dict[tuple[str, str], list[tuple[Anchor, int]]] = {}
    for i, rule in enumerate(R.RULES):
        for a in rule.anchors:
            groups.setdefault((a.buf, a.lit), []).append((a, i))
    for sep in "=:":
        groups.setdefault(("r", sep), [])
    out = []
    for (buf, lit), items in groups.items():
        alts, anchors = [], []
        merged: dict[str, list[tuple[re.Pattern[str], int]]] = {}
        worded = [(a, i) for a, i in items if a.word]
        for short in (False, True):  # prefix anchors: a trie of the reversed prefixes, captured
            words = {a.word for a, _ in worded if a.short == short}
            if not words:
                continue
            keys = sorted(w for w in words if not any(w != v and w.startswith(v) for v in words))
            lit_rx, g = re.escape(lit), R.GUARD_CLS  # the near character first: a look-behind
            guard = "" if short else f"(?<={g}{lit_rx})(?<={g}{{8}}{lit_rx})"  # reads left to right
            alts.append(f"{guard}(?=({R.trie(keys, True)}))")
            for k in keys:  # a captured key stands for every word it starts, of either trie
                merged.setdefault(k, []).extend(
                    (R.rx(lit_rx + a.rest, A), i) for a, i in worded if a.word.startswith(k)
                )
        by_word = {k: tuple(v) for k, v in merged.items()}
        for a, i in items:
            if not a.word:
                alts.append(f"(?:{a.umbrella or a.rest})")
                anchors.append((R.rx(re.escape(lit) + a.rest, A), i))
        if buf == "r" and lit in "=:":  # assignment families: a key before the separator
            alts.append(_field_gate(lit))
            if lit == "=":  # a capture, so the hit itself tells that a form pair follows
                alts.insert(0, R.FORM_GATE.replace("(?=", "(?=(?P<amp>", 1).replace("&)", ")&)"))
        regex = R.rx(re.escape(lit) + "(?:" + "|".join(dict.fromkeys(alts)) + ")", A)
        out.append(_Pass(buf, lit, regex, tuple(anchors), by_word))
    return tuple(out)


_FAMILIES = {sep: tuple(i for i, f in enumerate(R.FIELDS) if sep in f.seps) for sep in "=:"}


_CALLS: list[_PassCall] = []  # filled on first use (the hot loop reads a plain global)


def _pass_calls() -> list[_PassCall]:
    if not _CALLS:
        _CALLS.extend(
            (p.regex.search, p.buf == "r", p.lit, p.anchors, p.by_word) for p in _passes()
        )
    return _CALLS


@lru_cache(maxsize=2)
def _keyside_rx(sep: str) -> re.Pattern[str]:
    """One match tells which families have their key before ``sep`` (group i+1: family i)."""
    alts = (f"(?:(?=({R.keyside(f)})))?" if sep in f.seps else "()" for f in R.FIELDS)
    return R.rx("".join(alts), A)


@lru_cache(maxsize=1)
def _site_values() -> tuple[re.Pattern[str], ...]:
    """The assignment families' value halves (the key halves: ``_keyside_rx``)."""
    return tuple(R.rx(f.value, f.flags) for f in R.FIELDS)


# --- the redactor --------------------------------------------------------------------------------
class Redacted(NamedTuple):
    """A redaction result: the text and where each inserted mask is (output coordinates)."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.spans)


# An edit: replace text[start:end] with `new`, whose mask is new[mask_at:mask_at + mask_len].
_Edit = tuple[int, int, str, int, int]


def _mask(token: str) -> str:
    if token == "***" or ("…" in token and len(token) <= _KEEP_START + _KEEP_END + 1):
        return token  # already a mask: redacting redacted text changes nothing
    if len(token) < _MIN_LEN:
        return "***"
    return f"{token[:_KEEP_START]}…{token[-_KEEP_END:]}"


def _last_group(m: re.Match[str]) -> Span:
    g = next((i for i in range(len(m.groups()), 0, -1) if m.group(i)), 0)
    return m.span(g)


def _edit(text: str, start: int, end: int, kind: int) -> _Edit | None:
    """The replacement of ``text[start:end]``: a masked token, or a key block kept at its edges."""
    whole = text[start:end]
    if kind != TOKEN:
        lines = [ln for ln in re.split(r"\r?\n", whole) if ln]
        if len(lines) < 2:
            return None if whole == "***" else (start, end, "***", 0, 3)
        new = f"{lines[0]}\n{_PEM_MARK}" + (f"\n{lines[-1]}" if kind == BLOCK else "")
        at = len(lines[0]) + 1
        return None if new == whole else (start, end, new, at, len(_PEM_MARK))
    new = _mask(whole)
    return None if not whole or new == whole else (start, end, new, 0, len(new))


def _user_edit(m: re.Match[str]) -> _Edit | None:
    """A user pattern's match: a PEM key inside keeps its edge lines, else the token is masked."""
    if "PRIVATE KEY-----" in m.group(0):
        return _edit(m.string, m.start(), m.end(), BLOCK)
    return _edit(m.string, *_last_group(m), TOKEN)


def _in_data_url(text: str, start: int) -> bool:
    """Upstream skips base64-looking tokens inside a ``;base64,`` payload."""
    run = R.B64_RUN_R.match(text[start - 1 :: -1]) if start else None
    j = start - (run.end() if run else 0)
    return text[max(0, j - 8) : j] == ";base64,"


def _apply(text: str, spans: list[tuple[int, int]], edits: list[_Edit]) -> str:
    """Apply sorted, disjoint edits to ``text`` and move ``spans`` (earlier masks) along; an old
    mask that an edit overlaps merges with the new one."""
    if not edits:
        return text
    parts: list[str] = []
    starts: list[int] = []
    shifts = [0]  # shifts[k]: how much the text grew before edit k
    cur = 0
    for start, end, new, _, _ in edits:
        parts += [text[cur:start], new]
        starts.append(start)
        shifts.append(shifts[-1] + len(new) - (end - start))
        cur = end
    parts.append(text[cur:])

    def moved(x: int, is_end: bool) -> int:
        k = bisect_right(starts, x) - 1  # the last edit that starts at or before x
        if k < 0 or x == starts[k]:
            return x + shifts[max(k, 0)]
        if x >= edits[k][1]:
            return x + shifts[k + 1]
        new_start = starts[k] + shifts[k]  # x is inside edit k: take all of its replacement
        return new_start + len(edits[k][2]) if is_end else new_start

    out = [(e[0] + shifts[k] + e[3], e[0] + shifts[k] + e[3] + e[4]) for k, e in enumerate(edits)]
    out += [(moved(s, False), moved(e, True)) for s, e in spans]
    out.sort()
    spans.clear()
    for s, e in out:
        if spans and s < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], e))
        else:
            spans.append((s, e))
    return "".join(parts)


class Redactor:
    """Compiled user patterns plus the defaults; immutable. Build with ``build_redactor``."""

    def __init__(self, user_patterns: Sequence[str] = ()) -> None:
        self.patterns = tuple(user_patterns)  # as given: another process rebuilds the same
        self._user = tuple(_compile_user(p) for p in user_patterns if p.strip())
        h = _sha256(f"openclaw-sessions redaction v{REDACTION_VERSION}\0".encode())
        for src in _default_sources():
            h.update(src.encode("utf-8", "surrogatepass") + b"\0")
        h.update(b"\1")
        for p in self._user:
            h.update(f"{int(p.flags)}:{p.pattern}".encode("utf-8", "surrogatepass") + b"\0")
        self.fingerprint: str = h.hexdigest()[:16]

    def __setattr__(self, name: str, value: object) -> None:
        if name in self.__dict__:
            raise AttributeError("Redactor is immutable")
        super().__setattr__(name, value)

    def redact(self, text: str) -> Redacted:
        spans: list[tuple[int, int]] = []
        out = self._run(text, spans, gate=True)
        return Redacted(out, tuple(spans))

    def redact_text(self, text: str) -> str:
        return self._run(text, [], gate=True)

    def _run(self, text: str, spans: list[tuple[int, int]], *, gate: bool) -> str:
        if self._user:
            for p in self._user:
                edits = [e for m in p.finditer(text) if (e := _user_edit(m))]
                text = _apply(text, spans, edits)
        if not text:
            return text
        if text.isascii():  # most texts: nothing to fold
            hits = _find(text, gate)
            return _apply(text, spans, _edits(text, None, hits)) if hits else text
        view = redact_fold.view(text) if redact_fold.candidate(text) else None
        hits = _find(view.text if view else text, gate)
        return _apply(text, spans, _edits(text, view, hits)) if hits else text


def _find(text: str, gate: bool) -> list[Hit]:
    """Every default family's secrets in ``text`` (the folded view), unsorted."""
    rev = text[::-1]
    if gate:
        rules, seps, amps = _scan(text, rev)
    else:  # every rule, every separator: what the anchors must never change
        rules = set(range(len(R.RULES)))
        seps = [i for i, c in enumerate(text) if c in "=:"]
        amps = [i for i, c in enumerate(text) if c == "&"]
    hits = _site_hits(text, rev, seps, amps) if seps or amps else []
    for i in sorted(rules) if rules else ():
        rule = R.RULES[i]
        if rule.need:
            for n in rule.need:
                if n in text:
                    break
            else:
                continue
        if rule.finder is not None:
            hits.extend(rule.finder(text))
            continue
        check = rule.check or _last_group
        for m in rule.regex.finditer(text):
            if rule.b64 and _in_data_url(text, m.start()):
                continue
            if (span := check(m)) and span[1] > span[0]:
                hits.append((span[0], span[1], TOKEN))
    return hits


def _edits(text: str, view: redact_fold.View | None, hits: list[Hit]) -> list[_Edit]:
    """Overlapping hits merge (a key block wins); each is mapped back to ``text`` and masked."""
    hits.sort()
    merged: list[list[int]] = []
    for s, e, kind in hits:
        if merged and s < merged[-1][1]:
            last = merged[-1]
            last[1], last[2] = max(last[1], e), max(last[2], kind)
        else:
            merged.append([s, e, kind])
    edits = []
    for s, e, kind in merged:
        if view is not None and view.marks:
            s, e = view.start(s), view.end(e)
        if e > s and (ed := _edit(text, s, e, kind)):
            edits.append(ed)
    return edits


def _scan(text: str, rev: str) -> tuple[set[int], list[int], list[int]]:
    """Run the passes: the rules whose anchor holds, the separators with a key before them, and
    the "&" before a form pair."""
    rules: set[int] = set()
    seps: list[int] = []
    amps: list[int] = []
    n1 = len(text) - 1
    for search, reverse, lit, anchors, by_word in _CALLS or _pass_calls():
        if lit not in text:  # "in" is a memchr without the cost of a regex call
            continue
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
            for rx, i in cands:
                if i not in rules and rx.match(buf, p):
                    rules.add(i)
            m = search(buf, p + 1)
    if seps:
        seps.sort()
    if amps:
        amps.sort()
    return rules, seps, amps


def _site_hits(text: str, rev: str, seps: list[int], amps: list[int]) -> list[Hit]:
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
            hits += [(s, e, TOKEN) for s, e in found[1] if e > s]
    return hits


def _field_at(text: str, rev: str, q: int) -> tuple[int, list[Span], int] | None:
    """(the first key's start, the tokens, the values' end) of the families that fit at ``q``."""
    n = len(text)
    km = _keyside_rx(text[q]).match(rev, n - q)
    if not km or not km.lastindex:
        return None
    regs = km.regs
    values = _site_values()
    found: list[Span] = []
    key = stop = -1
    for i in _FAMILIES[text[q]]:
        start, end = regs[i + 1]
        if end > start and (vm := values[i].match(text, q + 1)):
            check = R.FIELDS[i].check
            span = check(vm, n - end) if check else _last_group(vm)
            if span:
                found.append(span)
                key = n - end if key < 0 else key
                stop = max(stop, vm.end())
    return (key, found, stop) if found else None


def _form_at(text: str, rev: str, a: int) -> tuple[int, list[Span], int] | None:
    """The first pair of a run that goes on with "&key=": upstream's form-body rule."""
    back = R.RUN_R.match(rev, len(text) - a)
    run = a - (back.end() - back.start()) if back else a
    cands = [run] if run == 0 or text[run - 1] in R.SPACE else []
    cands += [c.end() for c in R.COMMA.finditer(text, run, a)]
    for c in cands:
        if fm := R.FORM.match(text, c):
            return c, [_last_group(fm)], fm.end()
    return None


def _compile_user(raw: str) -> re.Pattern[str]:
    """Upstream's syntax: ``/source/flags`` or a bare source (then case-insensitive)."""
    m = re.fullmatch(r"/(.+)/([gimsuy]*)", raw)
    src, flags = (m.group(1), m.group(2)) if m else (raw, "gi")
    # JavaScript spellings Python lacks: named groups and their back-references.
    src = re.sub(r"\(\?<(?![=!])", "(?P<", src)
    src = re.sub(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P=\1)", src)
    src = src.replace("[^]", r"[\s\S]")
    fl = A | (re.I if "i" in flags else 0) | (re.M if "m" in flags else 0)
    fl |= re.S if "s" in flags else 0
    try:
        return recache.compile(src, fl)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ConfigError(
            f"invalid redact pattern {raw!r}: {exc}",
            hint="logging.redactPatterns takes JavaScript-style regexes, plain or as /source/flags",
        ) from None


def _default_sources() -> Iterable[str]:
    for f in R.FIELDS:
        check = f.check.__qualname__ if f.check else ""
        keys = "|".join(f.keys)
        yield f"{f.name}|{f.seps}|{int(f.flags)}|{keys}|{f.gap}|{f.edge}|{f.value}|{check}"
    yield R.FORM.pattern
    for r in R.RULES:
        check = r.check.__qualname__ if r.check else ""
        yield f"{r.name}|{r.src}|{r.b64}|{check}"
    yield "".join(sorted(f"{k}{v}" for k, v in redact_fold.HOMOGLYPHS.items()))


@lru_cache(maxsize=32)
def _cached(patterns: tuple[str, ...]) -> Redactor:
    return Redactor(patterns)


def build_redactor(user_patterns: Sequence[str] = ()) -> Redactor:
    """The redactor for these ``logging.redactPatterns``; raises ConfigError on a bad pattern."""
    return _cached(tuple(user_patterns))


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
