"""Secret redaction for every text this tool indexes or shows.

This module owns the engine: it runs the user patterns of ``logging.redactPatterns`` (first,
on the text as given), then the default rules (``rules``) on a folded view of the text
(``view``: look-alike characters and invisible format characters undone) where the anchor
passes say they may match (``scan``), and masks, in the original text, every span a rule found.
It also owns the fingerprint that tells index rows built under other rules. Cutting redacted
text: policy/cut.py.

Masking (upstream's): the token is the last non-empty capture group of a match, or the whole
match (a family's check may say otherwise); under 18 characters it becomes ``***``, otherwise
its first 6 characters, ``…`` and its last 4. Only the token is replaced; overlapping tokens of
different families are masked as one. A PEM private key keeps its first and last line around
``…redacted…``; one whose END line is missing keeps its first line.

ASCII text skips the fold.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import quote

from openclaw_sessions.errors import ConfigError

from . import recache, rules, scan
from . import view as folding
from .rules import names, upstream
from .scan import last_group
from .syntax import ASCII, BLOCK, OPEN, TOKEN, WHOLE, Hit, merge, sha256

# 2: generic secret names, command lines, config files, key blocks without END, more vendors,
# matching on the folded text.
# 3: whole masks for quoted and form values, name/value pairs, other languages, call arguments,
# codes, auth parameters, bare AWS keys, references kept (ARNs, secret paths, publishable keys).
REDACTION_VERSION = 3
_MIN_LEN, _KEEP_START, _KEEP_END = 18, 6, 4
_PEM_MARK = "…redacted…"


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


def _edit(text: str, start: int, end: int, kind: int) -> _Edit | None:
    """The replacement of ``text[start:end]``: a masked token, or a key block kept at its edges."""
    whole = text[start:end]
    if kind == WHOLE:
        return None if whole == "***" else (start, end, "***", 0, 3)
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
    return _edit(m.string, *last_group(m), TOKEN)


def _in_data_url(text: str, start: int) -> bool:
    """Upstream skips base64-looking tokens inside a ``;base64,`` payload."""
    run = upstream.B64_RUN_R.match(text[start - 1 :: -1]) if start else None
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
    spans[:] = merge(out, touching=False)
    return "".join(parts)


# Upstream registers a resolved secret of 6 characters or more, as written, URL-encoded and
# JSON-escaped (src/logging/secret-redaction-registry.ts).
_MIN_SECRET = 6


def _surface_forms(values: Iterable[str]) -> list[str]:
    forms: set[str] = set()
    for v in values:
        if len(v) >= _MIN_SECRET:
            forms.update((v, quote(v, safe="-_.!~*'()"), json.dumps(v, ensure_ascii=False)[1:-1]))
    return sorted(forms, key=lambda f: (-len(f), f))  # longest first: a form inside another


class Redactor:
    """Compiled user patterns plus the defaults; immutable. Build with ``build_redactor``.

    ``secrets``: the values of the config's SecretRefs, masked wherever they occur; held in
    memory only (never in the regex cache, a repr or the fingerprint, which takes a hash)."""

    def __init__(self, user_patterns: Sequence[str] = (), secrets: Sequence[str] = ()) -> None:
        self.patterns = tuple(user_patterns)  # as given: another process rebuilds the same
        self._user = tuple(_compile_user(p) for p in user_patterns if p.strip())
        forms = _surface_forms(secrets)
        self._secret_args = tuple(secrets)
        # (plain ``re``: recache would write the values to its disk cache)
        self._exact = re.compile("|".join(map(re.escape, forms))) if forms else None
        h = sha256(f"openclaw-sessions redaction v{REDACTION_VERSION}\0".encode())
        for src in _default_sources():
            h.update(src.encode("utf-8", "surrogatepass") + b"\0")
        h.update(b"\1")
        for p in self._user:
            h.update(f"{int(p.flags)}:{p.pattern}".encode("utf-8", "surrogatepass") + b"\0")
        if forms:  # which values are masked changes the index; a hash of them says so
            h.update(b"\2" + sha256("\0".join(forms).encode("utf-8", "surrogatepass")).digest())
        self.fingerprint: str = h.hexdigest()[:16]

    @property
    def args(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What ``build_redactor`` takes to build this redactor again (another process)."""
        return self.patterns, self._secret_args

    def __repr__(self) -> str:
        return f"Redactor(patterns={self.patterns!r}, secrets={len(self._secret_args)})"

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
        if self._exact is not None:  # upstream masks these first
            edits = [(m.start(), m.end(), "***", 0, 3) for m in self._exact.finditer(text)]
            text = _apply(text, spans, edits)
        for p in self._user:
            edits = [e for m in p.finditer(text) if (e := _user_edit(m))]
            text = _apply(text, spans, edits)
        if not text:
            return text
        view = folding.view(text)  # most texts (ASCII ones at once): nothing to fold
        hits = _find(view.text if view else text, gate)
        return _apply(text, spans, _edits(text, view, hits)) if hits else text


def _find(text: str, gate: bool) -> list[Hit]:
    """Every default family's secrets in ``text`` (the folded view), unsorted."""
    rev = text[::-1]
    if gate:
        wanted, seps, amps = scan.scan(text, rev)
    else:  # every rule, every separator: what the anchors must never change
        wanted = set(range(len(rules.RULES)))
        seps = [i for i, c in enumerate(text) if c in "=:"]
        amps = [i for i, c in enumerate(text) if c == "&"]
    hits = scan.site_hits(text, rev, seps, amps) if seps or amps else []
    for i in sorted(wanted) if wanted else ():
        rule = rules.RULES[i]
        if rule.need and not any(n in text for n in rule.need):
            continue
        if rule.finder is not None:
            hits.extend(rule.finder(text))
            continue
        check = rule.check or last_group
        for m in rule.regex.finditer(text):
            if rule.b64 and _in_data_url(text, m.start()):
                continue
            if (span := check(m)) and span[1] > span[0] and not scan.reference(text, span):
                hits.append((span[0], span[1], TOKEN))
    if len(text) >= 40:
        for always in rules.ALWAYS:
            if always.finder is not None:
                hits.extend(always.finder(text))
    return _wrapped(text, hits) if hits else hits


# A token's rest wrapped onto the next line (a terminal's width, a shell's "\" continuation):
# that line is one run of token characters, letters and digits.
_WRAP = re.compile(r"\\?\r?\n([A-Za-z0-9_+/=-]{8,200})[ \t]*[|\"'`]?[ \t]*(?=\r?\n|\Z)", re.ASCII)


def _wrapped(text: str, hits: list[Hit]) -> list[Hit]:
    out = []
    for s, e, kind in hits:
        if kind == TOKEN and e - s >= 16 and e < len(text) and text[e] in "\\\r\n":
            m = _WRAP.match(text, e)
            if m and not m.group(1).isalpha() and not m.group(1).isdigit():
                e = m.end(1)
        out.append((s, e, kind))
    return out


# Which kind wins when hits overlap: a key block over a whole mask over a token.
_RANK = {TOKEN: 0, WHOLE: 1, BLOCK: 2, OPEN: 3}


def _edits(text: str, view: folding.View | None, hits: list[Hit]) -> list[_Edit]:
    """Overlapping hits merge (a key block wins); each is mapped back to ``text`` and masked."""
    hits.sort()
    merged: list[list[int]] = []
    for s, e, kind in hits:
        if merged and s < merged[-1][1]:
            last = merged[-1]
            last[1], last[2] = max(last[1], e), max(last[2], kind, key=_RANK.__getitem__)
        else:
            merged.append([s, e, kind])
    edits = []
    for s, e, kind in merged:
        if view is not None and view.marks:
            s, e = view.start(s), view.end(e)
        if e > s and (ed := _edit(text, s, e, kind)):
            edits.append(ed)
    return edits


def _compile_user(raw: str) -> re.Pattern[str]:
    """Upstream's syntax: ``/source/flags`` or a bare source (then case-insensitive)."""
    m = re.fullmatch(r"/(.+)/([gimsuy]*)", raw)
    src, flags = (m.group(1), m.group(2)) if m else (raw, "gi")
    # JavaScript spellings Python lacks: named groups and their back-references.
    src = re.sub(r"\(\?<(?![=!])", "(?P<", src)
    src = re.sub(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P=\1)", src)
    src = src.replace("[^]", r"[\s\S]")
    fl = ASCII | (re.I if "i" in flags else 0) | (re.M if "m" in flags else 0)
    fl |= re.S if "s" in flags else 0
    try:
        return recache.compile(src, fl)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ConfigError(
            f"invalid redact pattern {raw!r}: {exc}",
            hint="logging.redactPatterns takes JavaScript-style regexes, plain or as /source/flags",
        ) from None


def _default_sources() -> Iterable[str]:
    for f in rules.FIELDS:
        check = f.check.__qualname__ if f.check else ""
        keys = "|".join(f.keys)
        yield (
            f"{f.name}|{f.seps}|{int(f.flags)}|{keys}|{f.gap}|{f.edge}|{f.value}|{check}|{f.whole}"
        )
    yield upstream.FORM.pattern
    for r in rules.RULES:
        check = r.check.__qualname__ if r.check else ""
        finder = r.finder.__qualname__ if r.finder else ""
        # The anchors decide when a rule runs at all: one that is narrower than its rule hides
        # what the rule would mask, so a change of them re-indexes as a change of the rule does.
        yield f"{r.name}|{r.src}|{r.b64}|{check}|{finder}|{r.anchors!r}|{r.need!r}"
    for r in rules.ALWAYS:
        yield f"{r.name}|{r.src}|{r.finder.__qualname__ if r.finder else ''}"
    yield "".join(sorted(f"{k}{v}" for k, v in folding.HOMOGLYPHS.items()))
    yield names._NAME_SRC  # the words that make a name a secret's (every family reads them)
    yield names.DEFAULTED_SRC  # a reference with a literal default is no reference


@lru_cache(maxsize=32)
def _cached(patterns: tuple[str, ...], secrets: tuple[str, ...]) -> Redactor:
    return Redactor(patterns, secrets)


def build_redactor(user_patterns: Sequence[str] = (), secrets: Sequence[str] = ()) -> Redactor:
    """The redactor for these ``logging.redactPatterns`` and resolved SecretRef values; raises
    ConfigError on a bad pattern."""
    return _cached(tuple(user_patterns), tuple(secrets))
