"""The language the redaction rules are written in: spans and hit kinds, the family types
(``Field``, ``Anchor``, ``Rule``) and the helpers that spell their regexes.

Vocabulary: an *assignment family* (``Field``) is matched at a separator (``=`` or ``:``) — its
key is read right to left in the reversed text, its value left to right; a *whole-text family*
(``Rule``) is a regex over the text. Each ``Rule`` has *anchors*: cheap necessary conditions
(a literal and look-arounds, in the text or the reversed text) that say when it must run.
A family may add a Python ``check`` that decides, at a match, what (if anything) is the secret.

Helpers: ``spellings`` spells out key tables; ``alt`` and ``trie`` turn words into alternations;
``prefix``, ``plain`` and ``at_least`` build anchors; ``compiled`` compiles a source (where "§"
stands for JavaScript's whitespace) through the regex cache, ``lazy`` when it is first needed;
``merge``, ``find_all``, ``line_end`` and ``sha256`` are what the engine and the tables share.
The families themselves are in ``rules/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, NamedTuple

from . import recache

Span = tuple[int, int]
Hit = tuple[int, int, int]  # start, end, kind (in the folded text)
TOKEN, BLOCK, OPEN = 0, 1, 2  # mask the token; keep a key block's first and last line; its first
WHOLE = 3  # mask the token whole ("***"): a quoted value of a secret's key, a form or query value
FieldCheck = Callable[["re.Match[str]", int], "Span | None"]
RuleCheck = Callable[["re.Match[str]"], "Span | None"]
ASCII = re.ASCII  # JavaScript's \w, \d and \b are ASCII; so are ours
NOCASE = re.ASCII | re.IGNORECASE
# JavaScript's \s is Unicode whitespace while re.ASCII's is not: "§" in a source stands for it.
_JS_SPACES = r"\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def compiled(src: str, flags: int) -> re.Pattern[str]:
    # recache: the compiled code is reused across runs (parsing these costs ~100 ms a run).
    return recache.compile(src.replace("§", _JS_SPACES), flags)


@cache
def lazy(src: str, flags: int) -> re.Pattern[str]:
    """``compiled``, once a process, when first needed: a family's regex waits until its cheap
    pre-check (an anchor, a gate word, a tool's name) first holds, so most are never built."""
    return compiled(src, flags)


def merge(spans: Iterable[Span], *, touching: bool = True) -> list[Span]:
    """``spans`` in order, those that overlap (or, ``touching``, meet) joined into one."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and (s <= out[-1][1] if touching else s < out[-1][1]):
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def line_end(text: str, i: int) -> int:
    """Where the line that holds ``text[i]`` ends (its newline, or the end of the text)."""
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def find_all(text: str, word: str) -> Iterator[int]:
    """Where ``word`` occurs in ``text``, occurrences not overlapping."""
    i = text.find(word)
    while i >= 0:
        yield i
        i = text.find(word, i + len(word))


def sha256(data: bytes) -> Any:
    try:  # the builtin module: hashlib's OpenSSL set-up costs ~2 ms of every run
        from _sha256 import sha256 as new  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover
        from hashlib import sha256 as new
    return new(data)


def spellings(*specs: str) -> tuple[str, ...]:
    """Spell out keys: ``[-_]?`` gives three spellings, ``[-_]`` two."""
    out: list[str] = []
    for spec in specs:
        forms = [""]
        for part in re.split(r"(\[-_\]\??)", spec):
            seps = ("-", "_", "") if part == "[-_]?" else ("-", "_") if part == "[-_]" else (part,)
            forms = [f + s for f in forms for s in seps]
        out.extend(forms)
    return tuple(dict.fromkeys(out))


def alt(keys: Iterable[str], reverse: bool = False) -> str:
    # Longest first, so a key that is a prefix of another never ends an alternation early.
    words = sorted({k[::-1] if reverse else k for k in keys}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


def caseless(text: str) -> str:
    """A literal as explicit case classes: unlike re.I this keeps ``re``'s fast paths."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in text)


# --- assignment families, evaluated at their separator --------------------------------------------
class Field(NamedTuple):
    name: str
    seps: str
    keys: tuple[str, ...]
    gap: str  # reversed: from the separator back to the key
    edge: str  # reversed: what precedes the key (a look-ahead, or consumed prefix + look-ahead)
    value: str  # forward, from after the separator; the token is its last non-empty group
    flags: int = NOCASE
    check: FieldCheck | None = None  # given the value match and the key's start: the token
    chain: str = ""  # reversed: what else may sit between the gap and a key (for the gate)
    whole: bool = False  # every value is masked whole (else only a quoted one is)


# --- anchors -----------------------------------------------------------------------------------
# An anchor is a literal plus look-arounds, in the text ("f") or the reversed text ("r"). All
# anchors of one buffer and literal form one pass; ``re`` finds a literal first character at memchr
# speed, while a class or an alternation it must try at every position. A vendor prefix is a word
# after its separator in the reversed text, so one pass branches on one character at a time (a
# trie). Each anchor is a necessary condition of its rule (the tests compare gated and ungated).
TOKEN_CLS = r"[A-Za-z0-9_-]"


class Anchor(NamedTuple):
    buf: str  # "f": the text, "r": the reversed text
    lit: str  # what the pass looks for
    rest: str  # look-arounds after the literal
    word: str = ""  # for prefix anchors: the prefix, reversed (the pass's trie holds it)
    short: bool = False  # the token may have fewer than 8 token characters after ``lit``
    umbrella: str = ""  # in the pass, instead of ``rest``: a cheaper superset several share


def prefix(
    sep: str, *prefixes: str, bound: bool = False, then: str = "", short: bool = False
) -> tuple[Anchor, ...]:
    """A token that starts ``prefix`` + ``sep``; ``bound``: no word character before it; ``then``:
    a look-behind on the reversed text, i.e. what must follow the separator; ``short``: fewer
    than 8 token characters may follow it (else the pass checks that first, cheaply)."""
    edge = "(?![A-Za-z0-9_])" if bound else ""
    return tuple(
        Anchor("r", sep, f"(?={caseless(p[::-1])}{edge}){then}", p[::-1].lower(), short)
        for p in prefixes
    )


GUARD_CLS = "[A-Za-z0-9_.=+/~-]"  # 8 of these follow the separator of every non-short prefix


def plain(lit: str, rest: str) -> tuple[Anchor, ...]:
    return (Anchor("f", lit, rest),)


def at_least(n: int, sep: str, cls: str = TOKEN_CLS) -> str:
    """``then`` for "at least n token characters follow the separator"."""
    return f"(?<={cls}{{{n}}}{re.escape(sep)})"


_Node = dict[str, "_Node"]


def trie(words: Iterable[str], ci: bool, exact: bool = False, *, inline: bool = False) -> str:
    """``words`` as a trie, so ``re`` drops a branch on its first character. Not ``exact``: a
    presence test, that stops at the shortest word. ``inline``: ASCII letters take their case
    from one scoped ``(?i:…)``, not a class each: a fraction of the source for ``re`` to parse,
    for the patterns no fingerprint names (the passes, the key halves; all compiled re.ASCII,
    so ``(?i)`` folds ASCII letters only, as the classes do). Memoised across runs."""
    key = tuple(sorted(set(words)))  # the trie does not depend on order; the cache key must not
    inline = inline and ci
    memo = ("trie", key, ci, exact, inline) if inline else ("trie", key, ci, exact)
    return recache.memo(memo, lambda: _build_trie(key, ci, exact, inline))


def _build_trie(words: Iterable[str], ci: bool, exact: bool, inline: bool) -> str:
    root: _Node = {}
    for w in words:
        node = root
        for ch in w.lower() if ci else w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def char(c: str) -> str:
        if inline and c.isascii() and c.isalpha():
            return c
        return caseless(c) if ci else re.escape(c)

    def emit(node: _Node) -> str:
        if "" in node and not exact:
            return ""
        alts = [char(c) + emit(n) for c, n in sorted(node.items()) if c]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    out = emit(root)
    return f"(?i:{out})" if inline and out else out


# --- whole-text families ------------------------------------------------------------------------
class Rule(NamedTuple):
    """One family; its regex is compiled when first needed (``lazy``): most never are."""

    name: str
    src: str
    anchors: tuple[Anchor, ...]
    b64: bool = False  # upstream skips these inside a data URL's base64 payload
    check: RuleCheck | None = None  # given a match: the token's span, or None (not a secret)
    finder: Callable[[str], Iterator[Hit]] | None = None  # instead of the regex: yields hits
    need: tuple[str, ...] = ()  # literals one of which the text must hold (after the anchors)

    @property
    def regex(self) -> re.Pattern[str]:
        return lazy(self.src, NOCASE)
