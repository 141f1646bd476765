"""Secret redaction for every text this tool indexes or shows, and the safe cut of redacted text.

This module owns upstream OpenClaw's masking rule and its default secret families (ported as
facts from its ``src/logging/redact-patterns.ts``), the user patterns of ``logging.redactPatterns``
(run first), the fingerprint that tells index rows built under other rules, and the one cut
every cap uses (``cut_units``/``safe_cut``, counting UTF-16 code units as upstream does).
It is pure: no I/O, stdlib ``re`` only.

Masking (upstream's): the token is the last non-empty capture group of a match, or the whole
match; under 18 characters it becomes ``***``, otherwise its first 6 characters, ``…`` and its
last 4. Only the token is replaced. A PEM private key keeps its first and last line around
``…redacted…``.

Speed: reindex redacts every message, and ``re`` has no multi-literal search, so text without
secrets must not meet ~100 regexes. Each family has cheap necessary conditions ("anchors"),
checked by a few passes that each start with one literal character (``-``, ``_``, ``=``…),
which ``re`` finds at memchr speed, and test the rest with look-arounds. Assignment families
(``KEY=value``, ``"token": "…"``, headers) are anchored on their separator in the reversed
text, where the key before an ``=``/``:`` is a look-ahead, and are evaluated at those
separators only. The other families are plain regexes over the text, run only when one of their
anchors holds.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from . import recache
from .errors import ConfigError

REDACTION_VERSION = 1
_MIN_LEN, _KEEP_START, _KEEP_END = 18, 6, 4
_PEM_MARK = "…redacted…"
_A = re.ASCII  # JavaScript's \w, \d and \b are ASCII; so are ours
_I = re.ASCII | re.IGNORECASE
# JavaScript's \s is Unicode whitespace while re.ASCII's is not: "§" in a source stands for it.
_WS = r"\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _sha256(data: bytes) -> Any:
    try:  # the builtin module: hashlib's OpenSSL set-up costs ~2 ms of every run
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover
        from hashlib import sha256
    return sha256(data)


def _rx(src: str, flags: int) -> re.Pattern[str]:
    # recache: the compiled code is reused across runs (parsing these costs ~100 ms a run).
    return recache.compile(src.replace("§", _WS), flags)


def _x(*specs: str) -> tuple[str, ...]:
    """Spell out keys: ``[-_]?`` gives three spellings, ``[-_]`` two."""
    out: list[str] = []
    for spec in specs:
        forms = [""]
        for part in re.split(r"(\[-_\]\??)", spec):
            seps = ("-", "_", "") if part == "[-_]?" else ("-", "_") if part == "[-_]" else (part,)
            forms = [f + s for f in forms for s in seps]
        out.extend(forms)
    return tuple(dict.fromkeys(out))


def _alt(keys: Iterable[str], reverse: bool = False) -> str:
    # Longest first, so a key that is a prefix of another never ends an alternation early.
    words = sorted({k[::-1] if reverse else k for k in keys}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


def _ci(text: str) -> str:
    """A literal as explicit case classes: unlike re.I this keeps ``re``'s fast paths."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in text)


# --- key tables (upstream's, spelled out) -------------------------------------------------------
_K_PAY_Q = _x("card[-_]?number", "card[-_]?cvc", "card[-_]?cvv", "cvc", "cvv", "security[-_]?code",
           "payment[-_]?credential", "shared[-_]?payment[-_]?token")  # fmt: skip
_K_AWS = _x("aws[-_]?secret[-_]?access[-_]?key") + ("awsSecretAccessKey", "SecretAccessKey")
_K_AUTH_HDR = ("authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
            "x-auth-token")  # fmt: skip
_K_ENV = _x("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CARD[-_]?NUMBER", "CARD[-_]?CVC",
         "CARD[-_]?CVV", "CVC", "CVV", "SECURITY[-_]?CODE", "PAYMENT[-_]?CREDENTIAL",
         "SHARED[-_]?PAYMENT[-_]?TOKEN")  # fmt: skip
_K_JSON = ("apiKey", "api_key", "apiToken", "api_token", "bearerToken", "bearer_token", "token",
        "secret", "password", "passwd", "credential", "accessToken", "access_token",
        "refreshToken", "refresh_token", "idToken", "id_token", "authToken", "auth_token",
        "clientSecret", "client_secret", "privateKey", "private_key", "secret_value",
        "raw_secret", "secret_input", "key_material") + _K_AWS + _K_AUTH_HDR  # fmt: skip
_K_PAY_JSON = ("cardNumber", "card_number", "cardCvc", "card_cvc", "cardCvv", "card_cvv", "cvc",
            "cvv", "securityCode", "security_code", "paymentCredential", "payment_credential",
            "sharedPaymentToken", "shared_payment_token")  # fmt: skip
_K_QUOTED = _x("api[-_]key", "access[-_]token", "refresh[-_]token", "id[-_]token", "auth[-_]token",
            "client[-_]secret", "app[-_]secret", "private[-_]key", "secret[-_]value",
            "raw[-_]secret", "secret[-_]input", "key[-_]material") + (
            "authToken", "clientSecret", "appSecret", "credential", "authorization")  # fmt: skip
_K_CLI = _x("api[-_]?key", "hook[-_]?token", "access[-_]?token", "refresh[-_]?token",
            "id[-_]?token", "private[-_]?key", "client[-_]?secret") + (
            "token", "secret", "password", "passwd", "credential") + _K_AWS + _K_PAY_Q  # fmt: skip
_K_STANDALONE = ("access_token", "refresh_token", "id_token", "authorization", "jwt", "token",
              "secret", "password", "pass", "passwd", "credential") + _x(
              "auth[-_]?token", "hook[-_]?token", "api[-_]?key", "client[-_]?secret",
              "app[-_]?secret", "private[-_]?key") + _K_PAY_Q  # fmt: skip
_K_CONFIG_Q = _x("access[-_]?token", "refresh[-_]?token", "id[-_]?token", "auth[-_]?token",
              "hook[-_]?token", "api[-_]?key", "api[-_]?secret", "secret[-_]?key",
              "key[-_]?material") + ("authorization", "jwt", "token", "secret", "password",
              "passphrase", "pass", "passwd") + _K_PAY_Q  # fmt: skip
_K_CONFIG_ALL = _K_CONFIG_Q + _x("client[-_]?secret", "app[-_]?secret", "private[-_]?key") + (
    "credential",)  # fmt: skip
_K_CONFIG_DIRECT = ("access-token", "refresh-token", "id-token", "auth-token", "hook-token",
                 "passphrase") + _x("api[-_]?key", "api[-_]?secret", "secret[-_]?key",
                 "key[-_]?material")  # fmt: skip
_K_PASSWORDISH = ("password", "passphrase", "pass", "passwd")
_K_FORM = _x("access[-_]?token", "auth[-_]?token", "hook[-_]?token", "refresh[-_]?token",
          "id[-_]?token", "api[-_]?key", "client[-_]?secret", "app[-_]?secret",
          "private[-_]?key", "x[-_]?amz[-_]?signature", "x[-_]?amz[-_]?security[-_]?token") + (
          "apikey", "credential", "authorization", "token", "key", "secret", "password", "pass",
          "passwd", "auth", "jwt", "session", "code", "signature") + _K_AWS + _K_PAY_Q  # fmt: skip

# --- assignment families, evaluated at their separator --------------------------------------------
# Each is upstream's "BOUNDARY KEY GAP SEP VALUE" regex cut at the separator: ``gap`` and ``edge``
# are read right to left in the reversed text (``edge`` is what must precede the key), ``value``
# left to right after the separator. The two halves meet at one character, so together they
# accept exactly what the one regex accepts.
_SERQ = r"(?:\\{1,64}[\"']|[\"'])?"  # a quote, possibly _K_JSON-escaped (up to 6 levels)
_SERQ_R = r"(?:[\"']\\{1,64}|[\"'])?"
_OPT_WS = r"(?:[ \t]*\r?\n[ \t]+|[ \t]*\\{1,64}r\\{1,64}n[ \t]+|[ \t]*\\{1,64}n[ \t]+|[ \t]*)"
_REQ_WS = r"(?:[ \t]*\r?\n[ \t]+|[ \t]*\\{1,64}r\\{1,64}n[ \t]+|[ \t]*\\{1,64}n[ \t]+|[ \t]+)"
_LEG_WS = r"(?:[ \t\r\n]*|[ \t]*\\{1,64}r\\{1,64}n[ \t]*|[ \t]*\\{1,64}n[ \t]*)"
_SCHEME = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_CRED = r"([^§\\\"',;&#?<>)}\]]+)"
_NOT_LEGACY = rf"(?!(?:Bearer|Basic|Bot){_REQ_WS})"
# The value ends at a line end even when the next line is indented: upstream leaves the value
# of a folded header unmasked, which leaked it in transcripts (YAML, logs, indented text).
_OPAQUE_END = rf"[ \t]*(?={_SERQ}(?:\Z|[,;)}}\]]|\r?\n))"
_HDR_EDGE = r"(?=\Z|[^A-Za-z0-9_-]|[rn]\\)"
_LOG_EDGE = r"(?=\Z|[^A-Za-z0-9_?&-]|[rn]\\)"
_QUOTED = r"([\"'`])((?:(?!\1)[^\r\n])+)\1"


class _Field(NamedTuple):
    name: str
    seps: str
    keys: tuple[str, ...]
    gap: str  # reversed: from the separator back to the key
    edge: str  # reversed: what precedes the key (a look-ahead, or consumed prefix + look-ahead)
    value: str  # forward, from after the separator; the token is its last non-empty group
    flags: int = _I


_FIELDS: tuple[_Field, ...] = (
    # KEY=value in the environment style: an upper-case name ending in KEY, TOKEN, SECRET…
    _Field("env", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*([\"']?)([^§\"'\\]+)\1", _A),
    _Field("env-escaped", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*\\+([\"'])([^§\"'\\]+)\\+\1", _A),
    _Field("json", ":", _K_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    _Field("json-payment", ":", _K_PAY_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    _Field("quoted-field", ":=", _K_QUOTED, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    _Field("quoted-auth-field", ":=", _K_AUTH_HDR, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    _Field("authorization", ":=", ("authorization",), "[ \t]*" + _SERQ_R, "",
           rf"{_LEG_WS}{_SERQ}(?:Bearer|Basic|Bot){_REQ_WS}{_CRED}"),
    _Field("proxy-authorization-opaque", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R,
           _HDR_EDGE, rf"{_OPT_WS}{_SERQ}{_CRED}{_OPAQUE_END}"),
    _Field("proxy-authorization", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_SCHEME}{_REQ_WS}{_CRED}"),
    # A whole value on its line is the credential; only otherwise is a first word a scheme
    # (else "Authorization: <token>\n <indented text>" masked the text and kept the token).
    _Field("authorization-opaque", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_CRED}{_OPAQUE_END}"),
    _Field("authorization-scheme", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_SCHEME}{_REQ_WS}{_CRED}"),
    _Field("api-key-header", ":=", ("x-goog-api-key", "api-key", "apikey", "x-api-token",
           "x-access-token"), "[ \t]*" + _SERQ_R, _LOG_EDGE,
           rf"{_OPT_WS}{_SERQ}([^§\\\"',;]+)"),
    _Field("gateway-header", ":=", ("X-OpenClaw-Token", "x-pomerium-jwt-assertion", "X-Api-Key",
           "X-Auth-Token"), "[§]*", _LOG_EDGE, r"[§]*([^§\"',;]+)"),
    # Not upstream's: a raw Cookie/Set-Cookie header line keeps no cookie value.
    _Field("cookie-header", ":", ("cookie", "set-cookie"), "[ \t]*", r"(?=\Z|[^A-Za-z0-9_-])",
           r"[ \t]*([^\r\n\"'\\]{0,4095}[^§\"'\\])"),
    _Field("assignment-quoted", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])", _QUOTED),
    _Field("assignment", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])",
           r"([\"'`]?[^§&#\"'`<>]+)"),
    # Upstream's config patterns are case-sensitive; "[ \t]" (theirs: any \s) keeps a line's
    # "password:" from swallowing the next line's first word.
    _Field("config-quoted", ":=", _K_CONFIG_Q, "[ \t]*", r"(?=\Z|[§,{])", "[ \t]*" + _QUOTED, _A),
    _Field("config-password-quoted", ":=", _K_PASSWORDISH, "[ \t]*",
           r"[-_][a-z0-9._-]{0,79}[a-z0-9](?=\Z|[§,{])", "[ \t]*" + _QUOTED, _A),
    _Field("config-dotted-quoted", ":=", _K_CONFIG_ALL, "[ \t]*",
           r"\.[a-z0-9_.-]{1,80}(?=\Z|[§,{])", "[ \t]*" + _QUOTED, _A),
    _Field("config-direct", "=", _K_CONFIG_DIRECT, "", r"(?=\Z|[§,{])", r"([^§#\"'`<>]+)", _A),
    _Field("aws-secret-field", ":=", _K_AWS, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\1"),
)  # fmt: skip

# Upstream's form-body rule: the first pair of ``token=abc&next=1``; an "&" starts the search.
_FORM = _rx(rf"{_alt(_K_FORM)}=([^&§]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)", _I)
_RUN_R = _rx(r"[^&§]*", _A)  # reversed: back from an "&" over its pair
_COMMA = re.compile(r"[,;]")
_SPACE = frozenset(" \t\n\r\f\v\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)

# --- anchors -----------------------------------------------------------------------------------
# An anchor is a literal plus look-arounds, in the text ("f") or the reversed text ("r"). All
# anchors of one buffer and literal form one pass; ``re`` finds a literal first character at memchr
# speed, while a class or an alternation it must try at every position. A vendor prefix is a word
# after its separator in the reversed text, so one pass branches on one character at a time (a
# trie). Each anchor is a necessary condition of its rule (the tests compare gated and ungated).
_T = r"[A-Za-z0-9_-]"


class _Anchor(NamedTuple):
    buf: str  # "f": the text, "r": the reversed text
    lit: str  # what the pass looks for
    rest: str  # look-arounds after the literal
    word: str = ""  # for prefix anchors: the prefix, reversed (the pass's trie holds it)


def _pre(sep: str, *prefixes: str, bound: bool = False, then: str = "") -> tuple[_Anchor, ...]:
    """A token that starts ``prefix`` + ``sep``; ``bound``: no word character before it; ``then``:
    a look-behind on the reversed text, i.e. what must follow the separator."""
    edge = "(?![A-Za-z0-9_])" if bound else ""
    return tuple(
        _Anchor("r", sep, f"(?={_ci(p[::-1])}{edge}){then}", p[::-1].lower()) for p in prefixes
    )


def _fw(lit: str, rest: str) -> tuple[_Anchor, ...]:
    return (_Anchor("f", lit, rest),)


def _min(n: int, sep: str, cls: str = _T) -> str:
    """``then`` for "at least n token characters follow the separator"."""
    return f"(?<={cls}{{{n}}}{re.escape(sep)})"


_Node = dict[str, "_Node"]


def _trie(words: Iterable[str], ci: bool, exact: bool = False) -> str:
    """``words`` as a trie, so ``re`` drops a branch on its first character. Not ``exact``: a
    presence test, that stops at the shortest word. Memoised across runs (start-up time)."""
    key = tuple(sorted(set(words)))  # the trie does not depend on order; the cache key must not
    return recache.memo(("trie", key, ci, exact), lambda: _build_trie(key, ci, exact))


def _build_trie(words: Iterable[str], ci: bool, exact: bool) -> str:
    root: _Node = {}
    for w in words:
        node = root
        for ch in w.lower() if ci else w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: _Node) -> str:
        if "" in node and not exact:
            return ""
        alts = [(_ci(c) if ci else re.escape(c)) + emit(n) for c, n in sorted(node.items()) if c]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


# --- whole-text families ------------------------------------------------------------------------
class _Rule:
    """One family; a plain slotted class (no dataclasses import) that compiles lazily."""

    __slots__ = ("name", "src", "anchors", "b64", "_regex")

    def __init__(
        self, name: str, src: str, anchors: tuple[_Anchor, ...], b64: bool = False
    ) -> None:
        self.name = name
        self.src = src
        self.anchors = anchors
        self.b64 = b64  # upstream skips these inside a data URL's base64 payload
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:  # compiled when first needed: most never are
        if self._regex is None:
            self._regex = _rx(self.src, _I)
        return self._regex


_PEM_SRC = r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----"
_PEM = _rx(_PEM_SRC, _I)
_PEM_BEGIN = _rx(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", _I)
_PEM_END = _rx(r"-----END [A-Z ]*PRIVATE KEY-----", _I)
_B64 = r"(?:\A|(?<=[^A-Za-z0-9]))"
_B64_RUN_R = _rx(r"[A-Za-z0-9+/=]*", _A)
_ID = r"(?:\A|(?<=[^A-Za-z0-9_]))"
_TG = (_Anchor("r", ":", f"(?=[0-9]{{6}})(?<={_T}{{20}}:)"),)
_CLI_GATE = _pre("-", "-", then="(?<=[A-Za-z]-)")  # "--" and a letter
_URL_GATE = (_Anchor("r", ":", "(?=[^/§:@]*//)"),)  # the userinfo colon
# Upstream matches every vendor prefix case-insensitively; the prefixes below that carry no
# separator (AIza, AKIA, ASIA, AKID, LTAI, gAAAA, dapi, eyJ, ATBB, ATATT, ATCTT3) are matched in
# the case their issuers use: a case-free anchor for them would cost ``re`` a pass over every
# letter "a". Real tokens are issued in that case, so only made-up variants go unmasked.
_CS = "(?-i:{})"


def _r(name: str, src: str, anchors: tuple[_Anchor, ...], b64: bool = False) -> _Rule:
    return _Rule(name, src, anchors, b64)


# In upstream's order; the token is the last non-empty group.
_RULES = tuple(_r(*row) for row in (
    ("cli", rf"--{_alt(_K_CLI)}=([^§\"']+)", _CLI_GATE),
    ("cli-spaced", rf"--{_alt(_K_CLI)}[§]+(?!(?:or|and)(?![A-Za-z0-9_])(?=[§]+--))"
     r"([\"']?)([^§\"']+)\1", _CLI_GATE),
    ("bearer", r"(?<![A-Za-z0-9_])Bearer[§]+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])",
     tuple(a for b in "bB" for a in _fw(b, f"(?=[eE][aA][rR][eE][rR][§]+[-A-Za-z0-9._~+/=]{{18}})"
                                         f"(?<![A-Za-z0-9_]{b})"))),
    ("url-password", r"(?<![A-Za-z0-9_])(?:https?|wss?|ftp)://[^/§:@]*:([^/§@]+)@", _URL_GATE),
    ("db-password", r"(?<![A-Za-z0-9_])(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?)://"
     r"[^:§/@]*:([^@§]+)@", _URL_GATE),
    ("pem", _PEM_SRC, _pre("-", "private key")),  # found by _pem_matches
    ("openai", r"(?<![A-Za-z0-9_])(sk-[A-Za-z0-9_-]{8,})(?![A-Za-z0-9_])",
     _pre("-", "sk", bound=True, then=_min(8, "-"))),
    ("github", r"(gh[pousr]_[A-Za-z0-9]{10,})", _pre("_", "ghp", "gho", "ghu", "ghs", "ghr")),
    ("github-pat", r"(github_pat_[A-Za-z0-9_]{10,})", _pre("_", "github_pat")),
    ("gitlab-pat", r"(glpat-[A-Za-z0-9._=\-]{20,})", _pre("-", "glpat")),
    ("gitlab-oauth", r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
     _pre("-", "gloas")),
    ("gitlab-deploy", r"(gldt-[A-Za-z0-9_-]{20,})", _pre("-", "gldt")),
    ("gitlab-cibuild", r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})", _pre("-", "glcbt")),
    ("gitlab-trigger", r"(glptt-[A-Za-z0-9_-]{40,})", _pre("-", "glptt")),
    ("gitlab-feed", r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))", _pre("-", "glft")),
    ("gitlab-mail", r"(glimt-[A-Za-z0-9_-]{25,})", _pre("-", "glimt")),
    ("gitlab-agent", r"(glagent-[A-Za-z0-9_-]{50,})", _pre("-", "glagent")),
    ("gitlab-workspace", r"(glwt-[A-Za-z0-9_-]{20,})", _pre("-", "glwt")),
    ("gitlab-scim", r"(glsoat-[A-Za-z0-9_-]{20,})", _pre("-", "glsoat")),
    ("gitlab-flags", r"(glffct-[A-Za-z0-9_-]{20,})", _pre("-", "glffct")),
    ("gitlab-runner", r"(glrt-[A-Za-z0-9._-]{20,})", _pre("-", "glrt")),
    ("gitlab-runner-routed", r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})",
     _pre("-", "glrt", "glrtr")),
    ("gitlab-runner-reg", r"(GR1348941[A-Za-z0-9_-]{20,})", _fw("1", "(?<=[gG][rR]1)(?=348941)")),
    ("gitlab-session", r"(_gitlab_session=[A-Za-z0-9%._-]{20,})", _pre("_", "_gitlab")),
    ("slack", r"(xox[baprs]-[A-Za-z0-9-]{10,})", _pre("-", "xoxb", "xoxa", "xoxp", "xoxr", "xoxs")),
    ("slack-app", r"(xapp-[A-Za-z0-9-]{10,})", _pre("-", "xapp")),
    ("slack-webhook", r"(https://hooks\.slack\.com/(?:services/T[A-Z0-9]+/B[A-Z0-9]+"
     r"|workflows/T[A-Z0-9]+/A[A-Z0-9]+/[0-9]{17,19})/[A-Za-z0-9]{20,})",
     _pre(".", "hooks", then=r"(?<=\." + _ci("kcals") + r"\.)")),
    ("discord-webhook", r"(https://discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,})",
     _pre(".", "discord", "discordapp")),
    ("discord-bot", r"discord[\s\S]{0,40}?(?<![A-Za-z0-9_])([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\."
     r"[A-Za-z0-9_-]{27})(?![A-Za-z0-9_])",
     (_Anchor("r", ".", rf"(?<=\.{_T}{{6}}\.)(?={_T}{{24}})"),)),
    ("groq", r"(gsk_[A-Za-z0-9_-]{10,})", _pre("_", "gsk")),
    ("google", _CS.format(r"(AIza[0-9A-Za-z\-_]{20,})"), _fw("A", f"(?=Iza{_T}{{20}})")),
    ("google-oauth", r"(ya29\.[0-9A-Za-z_\-./+=]{10,})", _pre(".", "ya29")),
    ("google-refresh", r"(1//0[0-9A-Za-z_\-./+=]{10,})", _fw("1", "(?=//0)")),
    ("jwt", _CS.format(r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"),
     (_Anchor("r", ".", f"(?<={_T}{{10}}\\.)(?={_T}{{10}}{_T}*Jye)"),)),
    ("perplexity", r"(pplx-[A-Za-z0-9_-]{10,})", _pre("-", "pplx")),
    ("fal", r"(fal_[A-Za-z0-9_-]{10,})", _pre("_", "fal")),
    ("firecrawl", _ID + r"(fc-[A-Za-z0-9]{10,})", _pre("-", "fc", bound=True)),
    ("browserbase", r"(bb_live_[A-Za-z0-9_-]{10,})", _pre("_", "bb_live")),
    ("fernet", _B64 + _CS.format(r"(gAAAA[A-Za-z0-9_=-]{20,})"), _fw("A", "(?<=gA)(?=AAA)"), True),
    ("stripe", r"(sk_live_[A-Za-z0-9]{10,})", _pre("_", "sk_live")),
    ("stripe-test", r"(sk_test_[A-Za-z0-9]{10,})", _pre("_", "sk_test")),
    ("stripe-restricted", r"(rk_live_[A-Za-z0-9]{10,})", _pre("_", "rk_live")),
    ("sendgrid", r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
     _pre(".", "sg", then=_min(10, "."))),
    ("npm", r"(npm_[A-Za-z0-9]{10,})", _pre("_", "npm")),
    ("pypi", r"(pypi-[A-Za-z0-9_-]{10,})", _pre("-", "pypi")),
    ("digitalocean", r"(do[opr]_v1_[A-Za-z0-9]{10,})", _pre("_", "dop_v1", "doo_v1", "dor_v1")),
    ("doppler", r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})", _pre(".", "dp")),
    ("doppler-service", r"(dp\.st\.[A-Za-z0-9]{40,44})", _pre(".", "dp")),
    ("doppler-service-named", r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})", _pre(".", "dp")),
    ("docker", r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})", _pre("_", "dckr_pat", "dckr_oat")),
    ("buildkite", r"(bkua_[a-z0-9]{40})", _pre("_", "bkua")),
    ("circleci", r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})", _pre("_", "ccipat")),
    ("supabase", r"(sbp_[a-z0-9]{40})", _pre("_", "sbp")),
    ("databricks", _B64 + _CS.format(r"(dapi[0-9a-f]{32}(?:-[0-9])?)"),
     _fw("p", "(?<=dap)(?=i[0-9a-f]{32})"), True),
    ("datadog", r"(dd[pw]_[A-Za-z0-9]{36})", _pre("_", "ddp", "ddw")),
    ("grafana-sa", r"(glsa_[A-Za-z0-9_]{41})", _pre("_", "glsa")),
    ("grafana-cloud", r"(glc_eyJ[A-Za-z0-9+/=]{60,160})", _pre("_", "glc")),
    ("netlify", r"(nfp_[A-Za-z0-9_]{36})", _pre("_", "nfp")),
    ("contentful", r"(CFPAT-[A-Za-z0-9_\-]{40,})", _pre("-", "cfpat")),
    ("atlassian-cloud", _B64 + _CS.format(r"(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     _fw("A", "(?=TCTT3xFfG)"), True),
    ("atlassian", _B64 + _CS.format(r"(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     _fw("A", "(?=TATT)"), True),
    ("bitbucket", _B64 + _CS.format(r"(ATBB[A-Za-z0-9_=.-]{16,})"), _fw("A", "(?=TBB)"), True),
    ("bitbucket-dc", r"(BBDC-[A-Za-z0-9+/@_-]{40,50})", _pre("-", "bbdc")),
    ("heroku", r"(HRKU-AA[A-Za-z0-9_-]{20,})", _pre("-", "hrku")),
    ("hubspot", r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-"
     r"[A-Za-z0-9]{12})", _pre("-", "pat-eu1", "pat-na1")),
    ("apify", r"(apify_api_[A-Za-z0-9\-]{20,})", _pre("_", "apify_api")),
    ("fly", r"(FlyV1 fm[0-9]+_[A-Za-z0-9+/=,_-]{100,})",
     (_Anchor("r", "_", "(?=[0-9]+[mM][fF] 1[vV][yY][lL][fF])"),)),
    ("fastly-io", r"(fio-u-[A-Za-z0-9_-]{40,})", _pre("-", "fio-u")),
    ("agentmail", _ID + r"(am_[A-Za-z0-9_-]{10,})", _pre("_", "am", bound=True)),
    ("elevenlabs", _ID + r"(sk_[A-Za-z0-9_]{10,})", _pre("_", "sk", bound=True)),
    ("tavily", r"(tvly-[A-Za-z0-9]{10,})", _pre("-", "tvly")),
    ("exa", r"(exa_[A-Za-z0-9]{10,})", _pre("_", "exa")),
    ("matrix", r"(syt_[A-Za-z0-9]{10,})", _pre("_", "syt")),
    ("retaindb", r"(retaindb_[A-Za-z0-9]{10,})", _pre("_", "retaindb")),
    ("hsk", r"(hsk-[A-Za-z0-9]{10,})", _pre("-", "hsk")),
    ("mem0", r"(mem0_[A-Za-z0-9]{10,})", _pre("_", "mem0")),
    ("brv", r"(brv_[A-Za-z0-9]{10,})", _pre("_", "brv")),
    ("xai", r"(xai-[A-Za-z0-9]{30,})", _pre("-", "xai", then=_min(30, "-", "[A-Za-z0-9]"))),
    ("fireworks", _ID + r"(fw-[A-Za-z0-9]{30,})", _pre("-", "fw", bound=True)),
    ("fireworks-2", _ID + r"(fw_[A-Za-z0-9]{30,})", _pre("_", "fw", bound=True)),
    ("fpk", _ID + r"(fpk_[A-Za-z0-9]{30,})", _pre("_", "fpk", bound=True)),
    ("aws-access-key", _B64 + _CS.format(r"(A[KS]IA[A-Z0-9]{16})"),
     _fw("A", "(?=[KS]IA[A-Za-z0-9]{16})"), True),
    ("tencent", _CS.format(r"(AKID[A-Za-z0-9]{10,})"), _fw("A", "(?=KID[A-Za-z0-9]{10})")),
    ("alibaba", _CS.format(r"(LTAI[A-Za-z0-9]{10,})"), _fw("A", "(?<=LTA)(?=I[A-Za-z0-9]{10})")),
    ("huggingface", r"(hf_[A-Za-z0-9]{10,})", _pre("_", "hf")),
    ("huggingface-org", r"(api_org_[A-Za-z0-9]{20,})", _pre("_", "api_org")),
    ("replicate", r"(r8_[A-Za-z0-9]{10,})", _pre("_", "r8")),
    ("telegram-url", r"(?<![A-Za-z0-9_])bot([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])", _TG),
    ("telegram", r"(?<![A-Za-z0-9_])([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])", _TG),
))  # fmt: skip


@lru_cache(maxsize=1)
def _site_values() -> tuple[re.Pattern[str], ...]:
    """The assignment families' value halves (the key halves: ``_keyside_rx``)."""
    return tuple(_rx(f.value, f.flags) for f in _FIELDS)


def _keyside(f: _Field) -> str:
    return f.gap + _trie((k[::-1] for k in f.keys), bool(f.flags & re.I), True) + f.edge


# The passes: one per buffer and literal. A hit consumes only the literal, so no anchor hides
# inside another one's match; at a hit every anchor of that literal is tried.
_FORM_GATE = "(?=[A-Za-z0-9_.-]*[A-Za-z_]&)"  # reversed: "=" of a pair that follows an "&"
_Hits = tuple[tuple[re.Pattern[str], int], ...]  # anchors to try at a hit, with their rule
_PassCall = tuple[Callable[..., "re.Match[str] | None"], bool, str, _Hits, dict[str, _Hits]]


class _Pass(NamedTuple):
    buf: str
    lit: str
    regex: re.Pattern[str]
    anchors: _Hits  # tried at every hit
    by_word: dict[str, _Hits]  # tried when the trie's word says so


@lru_cache(maxsize=1)
def _passes() -> tuple[_Pass, ...]:
    """The passes, compiled on first use (a CLI run that redacts nothing never pays for them)."""
    groups: dict[tuple[str, str], list[tuple[_Anchor, int]]] = {}
    for i, rule in enumerate(_RULES):
        for a in rule.anchors:
            groups.setdefault((a.buf, a.lit), []).append((a, i))
    for sep in "=:":
        groups.setdefault(("r", sep), [])
    out = []
    for (buf, lit), items in groups.items():
        alts, anchors, by_word = [], [], {}
        words = {a.word for a, _ in items if a.word}
        if words:  # prefix anchors: a trie of the reversed prefixes, its hit a capture
            keys = sorted(w for w in words if not any(w != v and w.startswith(v) for v in words))
            alts.append(f"(?=({_trie(keys, True)}))")
            merged: dict[str, list[tuple[re.Pattern[str], int]]] = {}
            for a, i in items:
                if a.word:
                    k = next(k for k in keys if a.word.startswith(k))
                    merged.setdefault(k, []).append((_rx(re.escape(lit) + a.rest, _A), i))
            by_word = {k: tuple(v) for k, v in merged.items()}
        for a, i in items:
            if not a.word:
                alts.append(f"(?:{a.rest})")
                anchors.append((_rx(re.escape(lit) + a.rest, _A), i))
        if buf == "r" and lit in "=:":  # assignment families: a key before the separator
            fams = [f for f in _FIELDS if lit in f.seps]
            ci = {k.lower() for f in fams if f.flags & re.I for k in f.keys}
            cs = {k for f in fams if not f.flags & re.I for k in f.keys} - ci
            gate = _trie((k[::-1] for k in ci), True) + "|" + _trie((k[::-1] for k in cs), False)
            alts.append(r"(?=[§\\\"'`]*(?:" + gate + "))")
            if lit == "=":  # a capture, so the hit itself tells that a form pair follows
                alts.insert(0, _FORM_GATE.replace("(?=", "(?=(?P<amp>", 1).replace("&)", ")&)"))
        regex = _rx(re.escape(lit) + "(?:" + "|".join(dict.fromkeys(alts)) + ")", _A)
        out.append(_Pass(buf, lit, regex, tuple(anchors), by_word))
    return tuple(out)


_FAMILIES = {sep: tuple(i for i, f in enumerate(_FIELDS) if sep in f.seps) for sep in "=:"}


@lru_cache(maxsize=1)
def _pass_calls() -> tuple[_PassCall, ...]:
    return tuple((p.regex.search, p.buf == "r", p.lit, p.anchors, p.by_word) for p in _passes())


@lru_cache(maxsize=2)
def _keyside_rx(sep: str) -> re.Pattern[str]:
    """One match tells which families have their key before ``sep`` (group i+1: family i)."""
    alts = (f"(?:(?=({_keyside(f)})))?" if sep in f.seps else "()" for f in _FIELDS)
    return _rx("".join(alts), _A)


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


def _token_edit(m: re.Match[str]) -> _Edit | None:
    """Upstream's rule: a match holding a PEM key keeps its edge lines; otherwise mask the last
    non-empty group (or the whole match), in place."""
    whole = m.group(0)
    if "PRIVATE KEY-----" in whole:
        lines = [ln for ln in re.split(r"\r?\n", whole) if ln]
        if len(lines) < 2:
            return (m.start(), m.end(), "***", 0, 3)
        new = f"{lines[0]}\n{_PEM_MARK}\n{lines[-1]}"
        at = len(lines[0]) + 1
        return None if new == whole else (m.start(), m.end(), new, at, len(_PEM_MARK))
    g = next((i for i in range(len(m.groups()), 0, -1) if m.group(i)), 0)
    start, end = m.span(g)
    token = m.string[start:end]
    new = _mask(token)
    return None if not token or new == token else (start, end, new, 0, len(new))


def _in_data_url(text: str, start: int) -> bool:
    """Upstream skips base64-looking tokens inside a ``;base64,`` payload."""
    run = _B64_RUN_R.match(text[start - 1 :: -1]) if start else None
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
        for p in self._user:
            text = _apply(text, spans, [e for m in p.finditer(text) if (e := _token_edit(m))])
        if not text:
            return text
        rev = text[::-1]
        if gate:
            rules, seps, amps = _scan(text, rev)
        else:  # every rule, every separator: what the anchors must never change
            rules = set(range(len(_RULES)))
            seps = [i for i, c in enumerate(text) if c in "=:"]
            amps = [i for i, c in enumerate(text) if c == "&"]
        if seps or amps:
            text = _apply(text, spans, _site_edits(text, rev, seps, amps))
        for i in sorted(rules):
            rule = _RULES[i]
            found = _pem_matches(text) if rule.name == "pem" else rule.regex.finditer(text)
            edits = [
                e
                for m in found
                if not (rule.b64 and _in_data_url(text, m.start())) and (e := _token_edit(m))
            ]
            text = _apply(text, spans, edits)
        return text


def _scan(text: str, rev: str) -> tuple[set[int], list[int], list[int]]:
    """Run the passes: the rules whose anchor holds, the separators with a key before them, and
    the "&" before a form pair."""
    rules: set[int] = set()
    seps: list[int] = []
    amps: list[int] = []
    n1 = len(text) - 1
    for search, reverse, lit, anchors, by_word in _pass_calls():
        if lit not in text:  # "in" is a memchr without the cost of a regex call
            continue
        buf = rev if reverse else text
        m = search(buf)
        while m:
            p = m.start()
            if reverse and lit in "=:":  # an assignment separator
                seps.append(n1 - p)
                if lit == "=":  # "=" carries no anchors
                    if m.lastindex:
                        amps.append(n1 - m.end("amp"))
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


def _site_edits(text: str, rev: str, seps: list[int], amps: list[int]) -> list[_Edit]:
    """Assignment families at their separators and form pairs at their "&", left to right;
    at a separator the first family that fits wins; nothing starts inside an earlier match."""
    edits: list[_Edit] = []
    last = 0
    for pos, is_amp in sorted([(q, False) for q in seps] + [(a, True) for a in amps]):
        if pos < last:
            continue
        found = _form_at(text, rev, pos) if is_amp else _field_at(text, rev, pos)
        if found and found[0] >= last:
            last = found[1].end()
            if e := _token_edit(found[1]):
                edits.append(e)
    return edits


def _field_at(text: str, rev: str, q: int) -> tuple[int, re.Match[str]] | None:
    n = len(text)
    km = _keyside_rx(text[q]).match(rev, n - q)
    if not km or not km.lastindex:
        return None
    regs = km.regs
    values = _site_values()
    for i in _FAMILIES[text[q]]:
        start, end = regs[i + 1]
        if end > start and (vm := values[i].match(text, q + 1)):
            return n - end, vm
    return None


def _form_at(text: str, rev: str, a: int) -> tuple[int, re.Match[str]] | None:
    """The first pair of a run that goes on with "&key=": upstream's form-body rule."""
    back = _RUN_R.match(rev, len(text) - a)
    run = a - (back.end() - back.start()) if back else a
    cands = [run] if run == 0 or text[run - 1] in _SPACE else []
    cands += [c.end() for c in _COMMA.finditer(text, run, a)]
    for c in cands:
        if fm := _FORM.match(text, c):
            return c, fm
    return None


def _pem_matches(text: str) -> Iterable[re.Match[str]]:
    """Upstream's lazy BEGIN…END match, found in linear time: with no END after a BEGIN there
    is none after any later BEGIN either."""
    pos = 0
    while (b := _PEM_BEGIN.search(text, pos)) and (e := _PEM_END.search(text, b.end())):
        if m := _PEM.match(text, b.start(), e.end()):
            yield m
        pos = e.end()


def _compile_user(raw: str) -> re.Pattern[str]:
    """Upstream's syntax: ``/source/flags`` or a bare source (then case-insensitive)."""
    m = re.fullmatch(r"/(.+)/([gimsuy]*)", raw)
    src, flags = (m.group(1), m.group(2)) if m else (raw, "gi")
    # JavaScript spellings Python lacks: named groups and their back-references.
    src = re.sub(r"\(\?<(?![=!])", "(?P<", src)
    src = re.sub(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P=\1)", src)
    src = src.replace("[^]", r"[\s\S]")
    fl = _A | (re.I if "i" in flags else 0) | (re.M if "m" in flags else 0)
    fl |= re.S if "s" in flags else 0
    try:
        return recache.compile(src, fl)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ConfigError(
            f"invalid redact pattern {raw!r}: {exc}",
            hint="logging.redactPatterns takes JavaScript-style regexes, plain or as /source/flags",
        ) from None


def _default_sources() -> Iterable[str]:
    for f in _FIELDS:
        yield f"{f.name}|{f.seps}|{int(f.flags)}|{'|'.join(f.keys)}|{f.gap}|{f.edge}|{f.value}"
    yield _FORM.pattern
    for r in _RULES:
        yield f"{r.name}|{r.src}|{r.b64}"


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
