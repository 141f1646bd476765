"""Secrets that only the words before them tell: said in plain chat ("wifi pw is …", "the router
login is admin / …", "API key … secret …"), given as a command's positional argument (``cargo
login TOKEN``, ``rabbitmqctl add_user u PASS``, ``net use \\\\h\\s PASS``, ``npm config set
…:_authToken TOKEN``), a wallet's recovery phrase and hex keys introduced by natural phrasing.

Each family has *gate* words, one of which every match of its regex holds. The passes over a
text are what costs (reindex redacts every message), so few passes gate them: a gate word's
first ``p`` or ``k`` (either case), ``c`` or ``g`` (lower case: a word whose ``C`` or ``G`` is
upper case is skipped), then what follows it in the word, is the one finder's anchor. The finder
finds the gate words in the lower-cased text and runs each family's regex only in a window
around them (its line and the next, as far as the family's match reaches). The judgement of a
value (reference, prose word or credential) is ``names``'.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from openclaw_sessions.redact.syntax import (
    NOCASE,
    TOKEN,
    Anchor,
    Hit,
    Rule,
    Span,
    caseless,
    compiled,
    find_all,
    lazy,
    merge,
    trie,
)

from . import names

_Check = Callable[["re.Match[str]"], "Span | None"]
_VAL = r"(?:'([^'\r\n]{1,200})'|\"([^\"\r\n]{1,200})\"|([^\s'\"|;&<>`][^\s|;&`]{0,200}))"
_STRONG = re.compile(r"[A-Za-z0-9_\-+/=.~%:]{16,300}", re.ASCII)


def _last(m: re.Match[str], trail: str = "") -> Span | None:
    """The last non-empty group, less ``trail`` characters at its end (None: no group)."""
    g = next((i for i in range(len(m.groups()), 0, -1) if m.group(i)), 0)
    s, e = m.span(g)
    e = s + max(1, len(m.string[s:e].rstrip(trail)))
    return (s, e) if g else None


def _trimmed(m: re.Match[str]) -> Span | None:
    return _last(m, ".,;:!?)]}>\"'`")


def _strong(v: str) -> bool:
    """A token-like value: long, letters and digits, no prose, path or code."""
    return (
        bool(_STRONG.fullmatch(v))
        and any(c.isdigit() for c in v)
        and any(c.isalpha() for c in v)
        and v[0] != "-"
        and "://" not in v
        and not names.placeholder(v)
        and not names.is_code_or_path(v)
    )


def _said(m: re.Match[str]) -> Span | None:
    """A value after prose: a credential (a digit or a symbol), not a word or a reference."""
    span = _trimmed(m)
    if span is None:
        return None
    v = m.string[span[0] : span[1]]
    return span if names.credential_like(v) and "://" not in v and v[0] != "-" else None


def _pair(m: re.Match[str]) -> Span | None:
    """A value after a secret's name: after "is" a credential, else a token-like value."""
    if m.group(1):
        return _said(m)
    span = _trimmed(m)
    return span if span and _strong(m.string[span[0] : span[1]]) else None


def _arg(m: re.Match[str]) -> Span | None:
    span = _last(m)
    if span is None:
        return None
    v = m.string[span[0] : span[1]]
    if names.placeholder(v) or v[0] in "-<" or "://" in v or v[-1] in ")]}" or "$" in v:
        return None
    return span


def _token_arg(m: re.Match[str]) -> Span | None:
    span = _arg(m)
    if span is None:
        return None
    v = m.string[span[0] : span[1]]
    return span if len(v) >= 20 or names.credential_like(v) else None


def _config_set(m: re.Match[str]) -> Span | None:
    """``config [set] NAME VALUE``: NAME a secret's (``//host/:_authToken``, ``github.token``,
    ``pypi-token.x``), or ``http-basic.x USER PASSWORD``."""
    name = m.group(1).rsplit(":", 1)[-1]
    if name.startswith("http-basic.") and m.group(5):
        s, e = m.span(5)
    elif name.startswith("pypi-token.") or names.secret_name(name):
        s, e = m.span(3)
    else:
        return None
    return None if names.placeholder(m.string[s:e]) else (s, e)


_WORDS = r"(?:[a-z]{3,8}(?:[ ,]+|\r?\n[ \t]*)){11,23}[a-z]{3,8}"
_PHRASE_SIZES = (24, 21, 18, 15, 12)


def _phrase(m: re.Match[str]) -> Span | None:
    """A recovery phrase: its first 12, 15, 18, 21 or 24 words."""
    s, e = m.span(1)
    words = list(re.finditer(r"[a-z]+", m.string[s:e]))
    n = next((k for k in _PHRASE_SIZES if len(words) >= k), 0)
    return (s, s + words[n - 1].end()) if n else None


# (gate words, regex, check): every match of the regex holds one of its gate words (any case).
_FAMILIES: tuple[tuple[tuple[str, ...], str, _Check], ...] = (
    (("password", "passphrase", "passcode"),
     r"(?<![A-Za-z0-9_])use +([\"'`]?)(\S{6,200}?)\1 +as +(?:(?:the|my|your|a|new) +)*"
     r"(?:password|passphrase|passcode)(?![A-Za-z0-9_])", _said),
    (("login ", "logins ", "creds ", "credentials "),
     r"(?<![A-Za-z0-9_])(?:login|logins|creds|credentials) +(?:(?:is|are) +|: *)?[^\s/:]{1,64} *"
     r"[/:] *([\"'`]?)([^\s\"'`]{4,200})\1", _said),
    (("log in", "login ", "sign in", "signin "),
     r"(?<![A-Za-z0-9_])(?:log ?in|sign ?in) +with +\S+ +(?:and|/|,) +(\S+)", _said),
    (("code ",), r"(?:alarm|door|gate|garage|safe|entry|lock|wifi|access|pin|unlock|security"
     r"|lockbox|keypad) code +(?:is +|: *)?(\S{4,40})", _said),
    # command lines: a token or a password as a positional argument
    (("login ", "authtoken ", "unlock ", "token "),
     r"(?-i:(?<![\w.-])(?:cargo|wandb|vault|ngrok|bw|railway|netlify|doctl|glab|hf|fly"
     r"|flyctl|huggingface-cli|codecov|sentry-cli|heroku|expo|eas|infisical|pulumi|op|gh)\b"
     r"[^\n|;&]*? (?:login|authtoken|add-authtoken|unlock|token) +(?:(?:--?[A-Za-z][\w-]*"
     r"(?:=\S+)?|[^\s'\"-]\S*@\S+) +)*)" + _VAL, _token_arg),
    (("snyk ",), r"(?-i:(?<![\w.-])snyk +auth +)" + _VAL, _token_arg),
    (("heroku auth",), r"(?-i:heroku auth:token[ \t]*\r?\n[ \t]*([0-9a-fA-F-]{36}"
     r"|[A-Za-z0-9_-]{30,}))", _arg),
    (("config ", "configure "),
     r"(?-i:(?<![\w-])(?:config|configure) +(?:set +)?(?:--?[A-Za-z][\w-]* +)*"
     r"([^\s'\"=-][^\s'\"=]*) +([\"']?)([^\s'\"]+)\2(?: +([\"']?)([^\s'\"]+)\4)?)", _config_set),
    ((" password ",), r"(?-i:mysqladmin\b[^\n|;&]*? password +)" + _VAL, _arg),
    ((" password ", "psk "), r"(?-i:nmcli\b[^\n|;&]*? (?:password|wifi-sec\.psk"
     r"|802-11-wireless-security\.psk) +)" + _VAL, _arg),
    (("rabbitmqctl",),
     r"(?-i:rabbitmqctl\b[^\n|;&]*? (?:add_user|change_password|authenticate_user) +"
     r"(?:--?\S+ +)*(?:\"[^\"\n]*\"|'[^'\n]*'|\S+) +)" + _VAL, _arg),
    (("sqlplus", "expdp", "impdp", "dgmgrl"),
     r"(?<![\w-])(?:sqlplus|expdp|impdp|dgmgrl)(?: +-[A-Za-z]+)* +(?:userid=)?[\"']?"
     r"[A-Za-z0-9_$#.\\]+/([^\s@/\"']+)", _arg),
    (("connect ",), r"(?<![\w-])db2 +connect +to +\S+ +user +\S+ +using +" + _VAL, _arg),
    (("passphrase ",), r"wpa_passphrase +(?:\"[^\"\n]*\"|'[^'\n]*'|\S+) +" + _VAL, _arg),
    (("twitch",), r"twitch[^\n]{0,80}?(?<![A-Za-z0-9_])oauth:([a-z0-9]{30})(?![A-Za-z0-9_])",
     _last),
    # wallets: a recovery phrase, a hex key
    (("phrase", "mnemonic"),
     r"(?<![A-Za-z0-9_])(?:recovery|seed|backup|secret|wallet|mnemonic|bip39|12-word|24-word) "
     r"(?:recovery )?(?:phrase|mnemonic)(?: +(?:is|are|was))? *:? *(?:\r?\n[ \t]*)?"
     r"[\"'`]?(" + _WORDS + ")", _phrase),
    (("key ", "metamask"),
     r"(?:(?:private|priv|secret|wallet|signing|account|eth|ethereum|solana|bitcoin|btc) key"
     r"|metamask:?) (?:[^\n]{0,30}? )?(?:0x)?([0-9a-fA-F]{64})(?![0-9a-zA-Z])", _last),
)  # fmt: skip

# Families the gate letters cannot see, with their own anchor (a UNC path's ``\\\\``).
_OTHERS: tuple[tuple[tuple[str, ...], str, _Check], ...] = (
    ((" \\\\",), r"(?<![\w-])net +use +(?:[A-Za-z]: +|\* +)?\\\\\S+ +(?:/(?:user|u):\S+ +"
     r"([^\s/*]\S*)|([^\s/*]\S*) +/(?:user|u):)", _arg),
)  # fmt: skip
_OTHER_ANCHORS = (Anchor("f", "\\", r"(?<=[ \t]\\)(?=\\[^\s\\])"),)
GATE_LETTERS = "pkcg"


def _gate_at(w: str) -> int:
    return next((k for k, c in enumerate(w.lower()) if c in GATE_LETTERS), -1)


def _gate_anchors(words: list[str]) -> tuple[Anchor, ...]:
    """The anchors of ``words``: each word's first gate letter (``c`` and ``g`` in lower case
    only: their upper case has no pass, and the finder skips such words), then what follows it
    in the word, or for a word that ends there, what precedes it. Necessary, not exact."""
    rests: dict[str, set[str]] = {}
    out: list[Anchor] = []
    for w in words:
        i = _gate_at(w)
        cases = (w[i].lower(),) if w[i].lower() in "cg" else (w[i].lower(), w[i].upper())
        if len(w[i + 1 :].strip()) >= 3:
            for c in cases:
                rests.setdefault(c, set()).add(w[i + 1 :].lower())
        else:  # too little follows the letter to tell: what precedes it too
            before, after = caseless(w[:i]), caseless(w[i + 1 :])
            out += [Anchor("f", c, f"(?<={before}{c})(?={after})") for c in cases]
    for lit, tails in sorted(rests.items()):
        out.append(Anchor("f", lit, "(?=" + trie(tails, True) + ")"))
    return tuple(out)


def gated(text: str, low: str, words: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """Where ``words`` occur (any case), except where a ``c`` or ``g`` that gates the word is
    upper case (no anchor sees it)."""
    for w in words:
        g = _GATE_AT[w]
        for i in find_all(low, w):
            if g < 0 or w[g] not in "cg" or text[i + g] == w[g]:
                yield i, w


_NAME_CH = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PAIR_WORDS = ("secret ", "token ", "passwd ", "password ", "passcode ", "pass ", "pwd ", "pw ",
               "key ", "credential ", "psk ")  # fmt: skip
_PAIR_VALUE = compiled(
    r" +(?:(is|was|are) +)?(?:'([^'\s]{4,300})'|\"([^\"\s]{4,300})\"|`([^`\s]{4,300})`"
    r"|([^\s'\"`]{4,300}))",
    NOCASE,
)


_DIGIT_OR_SYMBOL = compiled(r"[0-9]|[^\w\s]", 0)


def _pair_hits(text: str, low: str, words: tuple[str, ...]) -> Iterator[Hit]:
    """``<secret name> [is] VALUE``: the name read back from the word, the value forward."""
    for i, w in gated(text, low, words):
        end = i + len(w) - 1
        m = _PAIR_VALUE.match(text, end)
        if not m or not _DIGIT_OR_SYMBOL.search(m.group(m.lastindex or 0)):
            continue  # (a plain word: the common case, rejected cheaply)
        span = _pair(m)
        if span is None:
            continue
        j = i
        while j > 0 and i - j < 40 and text[j - 1] in _NAME_CH:
            j -= 1
        if j > 0 and (text[j - 1] in _NAME_CH or not text[j - 1].isspace() and j == i):
            continue  # inside a longer word (bypass, passkeys, …)
        k = j - 1
        while k > 0 and j - k < 30 and text[k - 1] in _NAME_CH:
            k -= 1
        name1, name2 = text[j:end], text[k:end] if k < j - 1 else ""
        if names.secret_name(name1) or (name2 and names.secret_name(name2)):
            yield span[0], span[1], TOKEN


_GATES = sorted({w for words, _, _ in _FAMILIES for w in words} | set(_PAIR_WORDS))
_ALL = _FAMILIES + _OTHERS
_ALL_WORDS = frozenset(_GATES).union(*(words for words, _, _ in _OTHERS))
_GATE_AT = {w: _gate_at(w) for w in _ALL_WORDS}
# How far each family's match reaches before and after its gate word (the window searched).
_REACH = ((220, 20), (5, 300), (10, 300), (20, 60), (120, 260), (5, 220), (5, 120), (5, 320),
          (200, 220), (200, 220), (0, 320), (0, 240), (30, 240), (10, 240), (0, 130), (40, 320),
          (40, 140), (20, 260))  # fmt: skip
assert len(_REACH) == len(_ALL)


def _windows(
    text: str, low: str, words: tuple[str, ...], before: int, after: int
) -> list[tuple[int, int]]:
    """Around each of ``words``: its line (and the line after it) as far as a match reaches."""
    spans: list[tuple[int, int]] = []
    n = len(text)
    for i, w in gated(text, low, words):
        start = max(text.rfind("\n", 0, i) + 1, i - before)
        end = text.find("\n", i + len(w))
        end = n if end < 0 else text.find("\n", end + 1)
        spans.append((start, min(n if end < 0 else end, i + len(w) + after)))
    return merge(spans)


def context_hits(text: str) -> Iterator[Hit]:
    """The pairs, then each family on the lines around its gate words (and the line after)."""
    low = text.lower()
    if len(low) != len(text):  # (a character whose lower case is longer: keep offsets exact)
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    # The anchor that ran this finder is looser than the words: most texts it runs on hold few
    # or none of them. Each word is looked for once, and a family without one is not visited.
    present = {w for w in _ALL_WORDS if w in low}
    if not present:
        return
    yield from _pair_hits(text, low, tuple(w for w in _PAIR_WORDS if w in present))
    for (words, src, check), (before, after) in zip(_ALL, _REACH, strict=True):
        here = tuple(w for w in words if w in present)  # (in the family's order)
        if not here:
            continue
        for start, end in _windows(text, low, here, before, after):
            for m in lazy(src, NOCASE).finditer(text, start, end):
                if span := check(m):
                    yield span[0], span[1], TOKEN


CONTEXT_RULES = (Rule("context", "", _gate_anchors(_GATES) + _OTHER_ANCHORS, finder=context_hits),)
