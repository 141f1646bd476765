"""Secrets that only the words before them tell: said in plain chat ("wifi pw is …", "the router
login is admin / …", "API key … secret …"), given as a command's positional argument (``cargo
login TOKEN``, ``rabbitmqctl add_user u PASS``, ``net use \\\\h\\s PASS``, ``npm config set
…:_authToken TOKEN``), a wallet's recovery phrase and hex keys introduced by natural phrasing.

Each family is keyed by *trigger* words, one of which its regex needs right before a space; one
anchor pass (the reversed text's spaces, a trie of the triggers) gates the one finder, which runs
only the families whose triggers it saw, on the lines around them. The judgement of a value
(reference, prose word or credential) is ``redact_names``'.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from . import redact_names as names
from .redact_syntax import NOCASE, TOKEN, Hit, Rule, Span, compiled, prefix, trie

_Check = Callable[["re.Match[str]"], "Span | None"]
_VAL = r"(?:'([^'\r\n]{1,200})'|\"([^\"\r\n]{1,200})\"|([^\s'\"|;&<>`][^\s|;&`]{0,200}))"
_STRONG = re.compile(r"[A-Za-z0-9_\-+/=.~%:]{16,300}", re.ASCII)


def _last(m: re.Match[str]) -> Span | None:
    g = next((i for i in range(len(m.groups()), 0, -1) if m.group(i)), 0)
    return m.span(g) if g else None


def _trimmed(m: re.Match[str]) -> Span | None:
    span = _last(m)
    if span is None:
        return None
    s, e = span
    while e - s > 1 and m.string[e - 1] in ".,;:!?)":
        e -= 1
    return s, e


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
    """``<secret name> [is] VALUE``: after "is" a credential, else a token-like value."""
    name = m.group(1).strip()
    if not (names.secret_name(name) or names.secret_name(name.rsplit(" ", 1)[-1])):
        return None
    if m.group(2):
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


def _hex_key(m: re.Match[str]) -> Span | None:
    return m.span(1)


# (trigger words, regex searched on the trigger's line and the next, the check)
_FAMILIES: tuple[tuple[tuple[str, ...], str, _Check], ...] = (
    # "<secret name> VALUE", "<secret name> is VALUE" (API key … secret …, wifi pw is …)
    (("secret", "token", "password", "passwd", "passcode", "pass", "pwd", "pw", "key", "apikey",
      "credential", "psk"),
     r"(?<![A-Za-z0-9_.-])((?:[A-Za-z][A-Za-z0-9_.-]{0,30} )?[A-Za-z0-9_.-]{0,40}?(?:secret|token"
     r"|passwd|password|passcode|pass|pwd|pw|key|apikey|credential|psk)) +(?:(is|was|are) +)?"
     r"(?:'([^'\s]{4,300})'|\"([^\"\s]{4,300})\"|`([^`\s]{4,300})`|([^\s'\"`]{4,300}))", _pair),
    (("use",), r"(?<![A-Za-z0-9_])use +([\"'`]?)(\S{6,200}?)\1 +as +(?:(?:the|my|your|a|new) +)*"
     r"(?:password|passphrase|passcode|pin|token|secret|api key)(?![A-Za-z0-9_])", _said),
    (("login", "logins", "creds", "credentials"),
     r"(?<![A-Za-z0-9_])(?:login|logins|creds|credentials) +(?:(?:is|are) +|: *)?[^\s/:]{1,64} *"
     r"[/:] *([\"'`]?)([^\s\"'`]{4,200})\1", _said),
    (("with",), r"(?<![A-Za-z0-9_])(?:log ?in|sign ?in) +with +\S+ +(?:and|/|,) +(\S+)", _said),
    (("code",), r"(?:alarm|door|gate|garage|safe|entry|lock|wifi|access|pin|unlock|security"
     r"|lockbox|keypad) code +(?:is +|: *)?(\S{4,40})", _said),
    # command lines: a token or a password as a positional argument
    (("login", "auth", "authtoken", "unlock", "token"),
     r"(?-i:(?<![\w.-])(?:cargo|wandb|vault|snyk|ngrok|bw|railway|netlify|doctl|glab|hf|fly"
     r"|flyctl|huggingface-cli|codecov|sentry-cli|heroku|expo|eas|infisical|pulumi|op|gh)\b"
     r"[^\n|;&]*? (?:login|auth|authtoken|add-authtoken|unlock|token) +(?:(?:--?[A-Za-z][\w-]*"
     r"(?:=\S+)?|[^\s'\"-]\S*@\S+) +)*)" + _VAL, _token_arg),
    (("heroku",), r"(?-i:heroku +auth:token[ \t]*\r?\n[ \t]*([0-9a-fA-F-]{36}|[A-Za-z0-9_-]{30,}))",
     _arg),
    (("config", "configure"),
     r"(?-i:(?<![\w-])(?:config|configure) +(?:set +)?(?:--?[A-Za-z][\w-]* +)*"
     r"([^\s'\"=-][^\s'\"=]*) +([\"']?)([^\s'\"]+)\2(?: +([\"']?)([^\s'\"]+)\4)?)", _config_set),
    (("password",), r"(?-i:mysqladmin\b[^\n|;&]*? password +)" + _VAL, _arg),
    (("password", "psk"), r"(?-i:nmcli\b[^\n|;&]*? (?:password|wifi-sec\.psk"
     r"|802-11-wireless-security\.psk) +)" + _VAL, _arg),
    (("add_user", "change_password", "authenticate_user"),
     r"(?-i:rabbitmqctl\b[^\n|;&]*? (?:add_user|change_password|authenticate_user) +"
     r"(?:--?\S+ +)*(?:\"[^\"\n]*\"|'[^'\n]*'|\S+) +)" + _VAL, _arg),
    (("use",), r"(?<![\w-])net +use +(?:[A-Za-z]: +|\* +)?\\\\\S+(?: +/(?:user|u):\S+)? +"
     r"([^\s/*][^\s]*)", _arg),
    (("user",), r"(?<![\w-])net +user +(?:\"[^\"\n]+\"|\S+) +([^\s/*][^\s]*)", _arg),
    (("sqlplus", "sqlldr", "expdp", "impdp", "dgmgrl"),
     r"(?<![\w-])(?:sqlplus|sqlldr|expdp|impdp|dgmgrl)(?: +-[A-Za-z]+)* +(?:userid=)?[\"']?"
     r"[A-Za-z0-9_$#.\\]+/([^\s@/\"']+)", _arg),
    (("using",), r"(?<![\w-])db2 +connect +to +\S+ +user +\S+ +using +" + _VAL, _arg),
    (("wpa_passphrase",), r"wpa_passphrase +(?:\"[^\"\n]*\"|'[^'\n]*'|\S+) +" + _VAL, _arg),
    # wallets: a recovery phrase, a hex key
    (("recovery", "seed", "backup", "secret", "wallet", "mnemonic", "bip39", "12-word",
      "24-word"),
     r"(?<![A-Za-z0-9_])(?:recovery|seed|backup|secret|wallet|mnemonic|bip39|12-word|24-word) "
     r"(?:recovery )?(?:phrase|words|mnemonic|seed)(?: +(?:is|are|was))? *:? *(?:\r?\n[ \t]*)?"
     r"[\"'`]?(" + _WORDS + ")", _phrase),
    (("key", "metamask", "metamask:"),
     r"(?:(?:private|priv|secret|wallet|signing|account|eth|ethereum|solana|bitcoin|btc) key"
     r"|metamask:?) (?:[^\n]{0,30}? )?(?:0x)?([0-9a-fA-F]{64})(?![0-9a-zA-Z])", _hex_key),
)  # fmt: skip

_TRIGGERS = sorted({w for words, _, _ in _FAMILIES for w in words})
_TRIGGER_R = compiled(" (?=" + trie((w[::-1] for w in _TRIGGERS), True) + ")", NOCASE)
_COMPILED: list[tuple[tuple[str, ...], re.Pattern[str], _Check]] = []


def context_hits(text: str) -> Iterator[Hit]:
    """At each space a trigger word ends before, the families it keys, on that line and the
    next (each line once per family)."""
    if not _COMPILED:
        _COMPILED.extend((w, compiled(src, NOCASE), check) for w, src, check in _FAMILIES)
    rev = text[::-1]
    n1 = len(text) - 1
    done: set[tuple[int, int]] = set()
    for t in _TRIGGER_R.finditer(rev):
        q = n1 - t.start()  # the space, in the text
        before = text[max(0, q - 20) : q].lower()
        start = text.rfind("\n", 0, q) + 1
        end = text.find("\n", q)
        end = len(text) if end < 0 else end
        if end < len(text):  # and the next line (a value on the line after its label)
            nxt = text.find("\n", end + 1)
            end = len(text) if nxt < 0 else nxt
        for k, (words, regex, check) in enumerate(_COMPILED):
            if (start, k) in done or not any(before.endswith(w) for w in words):
                continue
            done.add((start, k))
            for m in regex.finditer(text, start, end):
                if span := check(m):
                    yield span[0], span[1], TOKEN


CONTEXT_RULES = (Rule("context", "", prefix(" ", *_TRIGGERS, short=True), finder=context_hits),)
