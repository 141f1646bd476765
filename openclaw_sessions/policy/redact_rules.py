"""The default redaction rules: key tables, assignment families, whole-text families, anchors.

The facts — prefixes, lengths, alphabets, key names — come from upstream OpenClaw's
``src/logging/redact-patterns.ts`` (its families keep their names and order here), gitleaks'
default rules, trufflehog's detectors and Yelp's detect-secrets plugins; the regexes are ours.
The engine that runs them is ``redact``; the judgement of names and values, ``redact_names``.

Vocabulary: an *assignment family* (``Field``) is matched at a separator (``=`` or ``:``) — its
key is read right to left in the reversed text, its value left to right; a *whole-text family*
(``Rule``) is a regex over the text. Each ``Rule`` has *anchors*: cheap necessary conditions
(a literal and look-arounds, in the text or the reversed text) that say when it must run.
A family may add a Python ``check`` that decides, at a match, what (if anything) is the secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from . import recache
from . import redact_names as names

Span = tuple[int, int]
Hit = tuple[int, int, int]  # start, end, kind (in the folded text)
TOKEN, BLOCK, OPEN = 0, 1, 2  # mask the token; keep a key block's first and last line; its first
FieldCheck = Callable[["re.Match[str]", int], "Span | None"]
RuleCheck = Callable[["re.Match[str]"], "Span | None"]
ASCII = re.ASCII  # JavaScript's \w, \d and \b are ASCII; so are ours
NOCASE = re.ASCII | re.IGNORECASE
# JavaScript's \s is Unicode whitespace while re.ASCII's is not: "§" in a source stands for it.
_JS_SPACES = r"\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def compiled(src: str, flags: int) -> re.Pattern[str]:
    # recache: the compiled code is reused across runs (parsing these costs ~100 ms a run).
    return recache.compile(src.replace("§", _JS_SPACES), flags)


def _spellings(*specs: str) -> tuple[str, ...]:
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


def _caseless(text: str) -> str:
    """A literal as explicit case classes: unlike re.I this keeps ``re``'s fast paths."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in text)


# --- key tables (upstream's, spelled out) -------------------------------------------------------
_K_PAY_Q = _spellings(
    "card[-_]?number", "card[-_]?cvc", "card[-_]?cvv", "cvc", "cvv", "security[-_]?code",
    "payment[-_]?credential", "shared[-_]?payment[-_]?token",
)  # fmt: skip
_K_AWS = _spellings("aws[-_]?secret[-_]?access[-_]?key") + ("awsSecretAccessKey", "SecretAccessKey")
_K_AUTH_HDR = ("authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
               "x-auth-token")  # fmt: skip
_K_ENV = _spellings(
    "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CARD[-_]?NUMBER", "CARD[-_]?CVC",
    "CARD[-_]?CVV", "CVC", "CVV", "SECURITY[-_]?CODE", "PAYMENT[-_]?CREDENTIAL",
    "SHARED[-_]?PAYMENT[-_]?TOKEN",
)  # fmt: skip
_K_JSON = ("apiKey", "api_key", "apiToken", "api_token", "bearerToken", "bearer_token", "token",
        "secret", "password", "passwd", "credential", "accessToken", "access_token",
        "refreshToken", "refresh_token", "idToken", "id_token", "authToken", "auth_token",
        "clientSecret", "client_secret", "privateKey", "private_key", "secret_value",
        "raw_secret", "secret_input", "key_material") + _K_AWS + _K_AUTH_HDR  # fmt: skip
_K_PAY_JSON = ("cardNumber", "card_number", "cardCvc", "card_cvc", "cardCvv", "card_cvv", "cvc",
            "cvv", "securityCode", "security_code", "paymentCredential", "payment_credential",
            "sharedPaymentToken", "shared_payment_token")  # fmt: skip
_K_QUOTED = _spellings(
    "api[-_]key", "access[-_]token", "refresh[-_]token", "id[-_]token", "auth[-_]token",
    "client[-_]secret", "app[-_]secret", "private[-_]key", "secret[-_]value",
    "raw[-_]secret", "secret[-_]input", "key[-_]material",
) + ("authToken", "clientSecret", "appSecret", "credential", "authorization")  # fmt: skip
_K_CLI = _spellings(
    "api[-_]?key", "hook[-_]?token", "access[-_]?token", "refresh[-_]?token",
    "id[-_]?token", "private[-_]?key", "client[-_]?secret",
) + ("token", "secret", "password", "passwd", "credential") + _K_AWS + _K_PAY_Q  # fmt: skip
_K_STANDALONE = ("access_token", "refresh_token", "id_token", "authorization", "jwt", "token",
              "secret", "password", "pass", "passwd", "credential") + _spellings(
              "auth[-_]?token", "hook[-_]?token", "api[-_]?key", "client[-_]?secret",
              "app[-_]?secret", "private[-_]?key") + _K_PAY_Q  # fmt: skip
_K_CONFIG_Q = _spellings(
    "access[-_]?token", "refresh[-_]?token", "id[-_]?token", "auth[-_]?token",
    "hook[-_]?token", "api[-_]?key", "api[-_]?secret", "secret[-_]?key", "key[-_]?material",
) + ("authorization", "jwt", "token", "secret", "password", "passphrase", "pass",
     "passwd") + _K_PAY_Q  # fmt: skip
_K_CONFIG_ALL = _K_CONFIG_Q + _spellings(
    "client[-_]?secret", "app[-_]?secret", "private[-_]?key",
) + ("credential",)  # fmt: skip
_K_CONFIG_DIRECT = ("access-token", "refresh-token", "id-token", "auth-token", "hook-token",
                    "passphrase") + _spellings("api[-_]?key", "api[-_]?secret", "secret[-_]?key",
                    "key[-_]?material")  # fmt: skip
_K_PASSWORDISH = ("password", "passphrase", "pass", "passwd")
_K_FORM = _spellings(
    "access[-_]?token", "auth[-_]?token", "hook[-_]?token", "refresh[-_]?token",
    "id[-_]?token", "api[-_]?key", "client[-_]?secret", "app[-_]?secret",
    "private[-_]?key", "x[-_]?amz[-_]?signature", "x[-_]?amz[-_]?security[-_]?token",
) + ("apikey", "credential", "authorization", "token", "key", "secret", "password", "pass",
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


_UPSTREAM_FIELDS: tuple[Field, ...] = (
    # KEY=value in the environment style: an upper-case name ending in KEY, TOKEN, SECRET…
    Field("env", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*([\"']?)([^§\"'\\]+)\1", ASCII),
    Field("env-escaped", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*\\+([\"'])([^§\"'\\]+)\\+\1", ASCII),
    Field("json", ":", _K_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    Field("json-payment", ":", _K_PAY_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    Field("quoted-field", ":=", _K_QUOTED, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    Field("quoted-auth-field", ":=", _K_AUTH_HDR, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    Field("authorization", ":=", ("authorization",), "[ \t]*" + _SERQ_R, "",
           rf"{_LEG_WS}{_SERQ}(?:Bearer|Basic|Bot){_REQ_WS}{_CRED}"),
    Field("proxy-authorization-opaque", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R,
           _HDR_EDGE, rf"{_OPT_WS}{_SERQ}{_CRED}{_OPAQUE_END}"),
    Field("proxy-authorization", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_SCHEME}{_REQ_WS}{_CRED}"),
    # A whole value on its line is the credential; only otherwise is a first word a scheme
    # (else "Authorization: <token>\n <indented text>" masked the text and kept the token).
    Field("authorization-opaque", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_CRED}{_OPAQUE_END}"),
    Field("authorization-scheme", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_SCHEME}{_REQ_WS}{_CRED}"),
    Field("api-key-header", ":=", ("x-goog-api-key", "api-key", "apikey", "x-api-token",
           "x-access-token"), "[ \t]*" + _SERQ_R, _LOG_EDGE,
           rf"{_OPT_WS}{_SERQ}([^§\\\"',;]+)"),
    Field("gateway-header", ":=", ("X-OpenClaw-Token", "x-pomerium-jwt-assertion", "X-Api-Key",
           "X-Auth-Token"), "[§]*", _LOG_EDGE, r"[§]*([^§\"',;]+)"),
    # Not upstream's: a raw Cookie/Set-Cookie header line keeps no cookie value.
    Field("cookie-header", ":", ("cookie", "set-cookie"), "[ \t]*", r"(?=\Z|[^A-Za-z0-9_-])",
           r"[ \t]*([^\r\n\"'\\]{0,4095}[^§\"'\\])"),
    Field("assignment-quoted", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])", _QUOTED),
    Field("assignment", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])",
           r"([\"'`]?[^§&#\"'`<>]+)"),
    # Upstream's config patterns are case-sensitive; "[ \t]" (theirs: any \s) keeps a line's
    # "password:" from swallowing the next line's first word.
    Field("config-quoted", ":=", _K_CONFIG_Q, "[ \t]*", r"(?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-password-quoted", ":=", _K_PASSWORDISH, "[ \t]*",
           r"[-_][a-z0-9._-]{0,79}[a-z0-9](?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-dotted-quoted", ":=", _K_CONFIG_ALL, "[ \t]*",
           r"\.[a-z0-9_.-]{1,80}(?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-direct", "=", _K_CONFIG_DIRECT, "", r"(?=\Z|[§,{])", r"([^§#\"'`<>]+)", ASCII),
    Field("aws-secret-field", ":=", _K_AWS, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\1"),
)  # fmt: skip

# Upstream's form-body rule: the first pair of ``token=abc&next=1``; an "&" starts the search.
FORM = compiled(rf"{_alt(_K_FORM)}=([^&§]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)", NOCASE)
RUN_R = compiled(r"[^&§]*", ASCII)  # reversed: back from an "&" over its pair
COMMA = re.compile(r"[,;]")
SPACE = frozenset(" \t\n\r\f\v\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)

# --- anchors -----------------------------------------------------------------------------------
# An anchor is a literal plus look-arounds, in the text ("f") or the reversed text ("r"). All
# anchors of one buffer and literal form one pass; ``re`` finds a literal first character at memchr
# speed, while a class or an alternation it must try at every position. A vendor prefix is a word
# after its separator in the reversed text, so one pass branches on one character at a time (a
# trie). Each anchor is a necessary condition of its rule (the tests compare gated and ungated).
_TOKEN = r"[A-Za-z0-9_-]"


class Anchor(NamedTuple):
    buf: str  # "f": the text, "r": the reversed text
    lit: str  # what the pass looks for
    rest: str  # look-arounds after the literal
    word: str = ""  # for prefix anchors: the prefix, reversed (the pass's trie holds it)
    short: bool = False  # the token may have fewer than 8 token characters after ``lit``
    umbrella: str = ""  # in the pass, instead of ``rest``: a cheaper superset several share


def _prefix(
    sep: str, *prefixes: str, bound: bool = False, then: str = "", short: bool = False
) -> tuple[Anchor, ...]:
    """A token that starts ``prefix`` + ``sep``; ``bound``: no word character before it; ``then``:
    a look-behind on the reversed text, i.e. what must follow the separator; ``short``: fewer
    than 8 token characters may follow it (else the pass checks that first, cheaply)."""
    edge = "(?![A-Za-z0-9_])" if bound else ""
    return tuple(
        Anchor("r", sep, f"(?={_caseless(p[::-1])}{edge}){then}", p[::-1].lower(), short)
        for p in prefixes
    )


GUARD_CLS = "[A-Za-z0-9_.=+/~-]"  # 8 of these follow the separator of every non-short prefix


def _plain(lit: str, rest: str) -> tuple[Anchor, ...]:
    return (Anchor("f", lit, rest),)


def _at_least(n: int, sep: str, cls: str = _TOKEN) -> str:
    """``then`` for "at least n token characters follow the separator"."""
    return f"(?<={cls}{{{n}}}{re.escape(sep)})"


_Node = dict[str, "_Node"]


def trie(words: Iterable[str], ci: bool, exact: bool = False) -> str:
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
        alts = [
            (_caseless(c) if ci else re.escape(c)) + emit(n) for c, n in sorted(node.items()) if c
        ]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


# --- whole-text families ------------------------------------------------------------------------
class Rule:
    """One family; a plain slotted class (no dataclasses import) that compiles lazily."""

    __slots__ = ("name", "src", "anchors", "b64", "check", "finder", "need", "_regex")

    def __init__(
        self,
        name: str,
        src: str,
        anchors: tuple[Anchor, ...],
        b64: bool = False,
        check: RuleCheck | None = None,
        finder: Callable[[str], Iterator[Hit]] | None = None,
        need: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.src = src
        self.anchors = anchors
        self.b64 = b64  # upstream skips these inside a data URL's base64 payload
        self.check = check  # given a match: the token's span, or None (not a secret)
        self.finder = finder  # instead of the regex: yields hits itself (key blocks)
        self.need = need  # literals one of which the text must hold (checked after the anchors)
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:  # compiled when first needed: most never are
        if self._regex is None:
            self._regex = compiled(self.src, NOCASE)
        return self._regex


# Key blocks: every PEM kind (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK, SSH2's "---- "
# style). Upstream's lazy BEGIN…END; a BEGIN with no END (a block pasted in half) is masked to
# the end of its body: base64 lines, armor headers, blank lines, escaped "\n"s.
_PEM_SRC = r"-{4,5} ?BEGIN [A-Z0-9 _-]{0,60}?PRIVATE KEY(?: BLOCK)? ?-{4,5}"
PEM_BEGIN = compiled(_PEM_SRC, NOCASE)
PEM_END = compiled(r"-{4,5} ?END [A-Z0-9 _-]{0,60}?PRIVATE KEY(?: BLOCK)? ?-{4,5}", NOCASE)
_PEM_BODY = compiled(
    r"(?:(?:\r?\n|\\r\\n|\\n)[ \t]*(?:(?:[A-Za-z0-9+/=]{16,100}|=[A-Za-z0-9+/]{4}"
    r"|[A-Za-z0-9+/]{1,15}={0,2})(?=[ \t]*(?:\r?\n|\\r|\\n|\Z))"  # whole lines; no padding needed
    r"|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset): ?[^\r\n\\]*)?)+",
    ASCII,
)


def pem_hits(text: str) -> Iterator[Hit]:
    """BEGIN…END blocks (found in linear time: with no END after a BEGIN there is none after
    any later BEGIN either), then blocks whose END is missing."""
    pos, ends = 0, True
    while b := PEM_BEGIN.search(text, pos):
        if ends and (e := PEM_END.search(text, b.end())):
            yield b.start(), e.end(), BLOCK
            pos = e.end()
            continue
        ends = False
        body = _PEM_BODY.match(text, b.end())
        end = body.end() if body else b.end()
        while end > b.end() and (text[end - 1] in " \t\r\n" or text.endswith("\\n", 0, end)):
            end -= 2 if text[end - 1] == "n" and text[end - 2] == "\\" else 1
        if end > b.end():
            yield b.start(), end, OPEN
        pos = max(end, b.end())


_B64 = r"(?:\A|(?<=[^A-Za-z0-9]))"
B64_RUN_R = compiled(r"[A-Za-z0-9+/=]*", ASCII)
_WORD_START = r"(?:\A|(?<=[^A-Za-z0-9_]))"
_TELEGRAM_GATE = (Anchor("r", ":", f"(?=[0-9]{{6}})(?<={_TOKEN}{{20}}:)"),)
_CLI_GATE = _prefix("-", "-", then="(?<=[A-Za-z]-)", short=True)  # "--" and a letter
_URL_GATE = (Anchor("r", ":", "(?=[^/§:@]*//)"),)  # the userinfo colon
# Upstream matches every vendor prefix case-insensitively; the prefixes below that carry no
# separator (AIza, AKIA, ASIA, AKID, LTAI, gAAAA, dapi, eyJ, ATBB, ATATT, ATCTT3) are matched in
# the case their issuers use: a case-free anchor for them would cost ``re`` a pass over every
# letter "a". Real tokens are issued in that case, so only made-up variants go unmasked.
_CASED = "(?-i:{})"


def _rule(name: str, src: str, anchors: tuple[Anchor, ...], b64: bool = False) -> Rule:
    return Rule(name, src, anchors, b64, finder=pem_hits if name == "pem" else None)


# In upstream's order; the token is the last non-empty group.
_UPSTREAM_RULES = tuple(_rule(*row) for row in (
    ("cli", rf"--{_alt(_K_CLI)}=([^§\"']+)", _CLI_GATE),
    ("cli-spaced", rf"--{_alt(_K_CLI)}[§]+(?!(?:or|and)(?![A-Za-z0-9_])(?=[§]+--))"
     r"([\"']?)([^§\"']+)\1", _CLI_GATE),
    ("bearer", r"(?<![A-Za-z0-9_])Bearer[§]+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])",
     tuple(a for b in "bB" for a in _plain(b,
     f"(?=[eE][aA][rR][eE][rR][§]+[-A-Za-z0-9._~+/=]{{18}})"
                                         f"(?<![A-Za-z0-9_]{b})"))),
    ("url-password", r"(?<![A-Za-z0-9_])(?:https?|wss?|ftp)://[^/§:@]*:([^/§@]+)@", _URL_GATE),
    ("db-password",
     r"(?<![A-Za-z0-9_])(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?)://"
     r"[^:§/@]*:([^@§]+)@", _URL_GATE),
    ("pem", _PEM_SRC, _prefix("-", "private key", "private key block", "private key ", short=True)),
    ("openai", r"(?<![A-Za-z0-9_])(sk-[A-Za-z0-9_-]{8,})(?![A-Za-z0-9_])",
     _prefix("-", "sk", bound=True, then=_at_least(8, "-"))),
    ("github", r"(gh[pousr]_[A-Za-z0-9]{10,})", _prefix("_", "ghp", "gho", "ghu", "ghs", "ghr")),
    ("github-pat", r"(github_pat_[A-Za-z0-9_]{10,})", _prefix("_", "github_pat")),
    ("gitlab-pat", r"(glpat-[A-Za-z0-9._=\-]{20,})", _prefix("-", "glpat")),
    ("gitlab-oauth", r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
     _prefix("-", "gloas")),
    ("gitlab-deploy", r"(gldt-[A-Za-z0-9_-]{20,})", _prefix("-", "gldt")),
    ("gitlab-cibuild", r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})", _prefix("-", "glcbt")),
    ("gitlab-trigger", r"(glptt-[A-Za-z0-9_-]{40,})", _prefix("-", "glptt")),
    ("gitlab-feed", r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
     _prefix("-", "glft", short=True)),
    ("gitlab-mail", r"(glimt-[A-Za-z0-9_-]{25,})", _prefix("-", "glimt")),
    ("gitlab-agent", r"(glagent-[A-Za-z0-9_-]{50,})", _prefix("-", "glagent")),
    ("gitlab-workspace", r"(glwt-[A-Za-z0-9_-]{20,})", _prefix("-", "glwt")),
    ("gitlab-scim", r"(glsoat-[A-Za-z0-9_-]{20,})", _prefix("-", "glsoat")),
    ("gitlab-flags", r"(glffct-[A-Za-z0-9_-]{20,})", _prefix("-", "glffct")),
    ("gitlab-runner", r"(glrt-[A-Za-z0-9._-]{20,})", _prefix("-", "glrt")),
    ("gitlab-runner-routed", r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})",
     _prefix("-", "glrt", "glrtr")),
    ("gitlab-runner-reg", r"(GR1348941[A-Za-z0-9_-]{20,})", _plain("1",
     "(?<=[gG][rR]1)(?=348941)")),
    ("gitlab-session", r"(_gitlab_session=[A-Za-z0-9%._-]{20,})", _prefix("_", "_gitlab")),
    ("slack", r"(xox[baprseo]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{10,})",
     _prefix("-", "xoxb", "xoxa", "xoxp", "xoxr", "xoxs", "xoxe", "xoxo") + _prefix(".", "xoxe")),
    ("slack-app", r"(xapp-[A-Za-z0-9-]{10,})", _prefix("-", "xapp")),
    ("slack-webhook", r"(https?://hooks\.slack\.com/(?:services|workflows|triggers)/"
     r"[A-Za-z0-9+/_-]{20,})",
     _prefix(".", "hooks", then=r"(?<=\." + _caseless("kcals") + r"\.)")),
    ("discord-webhook",
     r"(https://discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,})",
     _prefix(".", "discord", "discordapp")),
    ("discord-bot", r"discord[\s\S]{0,40}?(?<![A-Za-z0-9_])([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\."
     r"[A-Za-z0-9_-]{27})(?![A-Za-z0-9_])",
     (Anchor("r", ".", rf"(?<=\.{_TOKEN}{{6}}\.)(?={_TOKEN}{{24}})"),)),
    ("groq", r"(gsk_[A-Za-z0-9_-]{10,})", _prefix("_", "gsk")),
    ("google", _CASED.format(r"(AIza[0-9A-Za-z\-_]{20,})"), _plain("A", f"(?=Iza{_TOKEN}{{20}})")),
    ("google-oauth", r"(ya29\.[0-9A-Za-z_\-./+=]{10,})", _prefix(".", "ya29")),
    ("google-refresh", r"(1//0[0-9A-Za-z_\-./+=]{10,})", _plain("1", "(?=//0)")),
    ("jwt", _CASED.format(r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"),
     (Anchor("r", ".", f"(?<={_TOKEN}\\.)(?<={_TOKEN}{{10}}\\.)(?={_TOKEN}{{10}}{_TOKEN}*Jye)"),)),
    ("perplexity", r"(pplx-[A-Za-z0-9_-]{10,})", _prefix("-", "pplx")),
    ("fal", r"(fal_[A-Za-z0-9_-]{10,})", _prefix("_", "fal")),
    ("firecrawl", _WORD_START + r"(fc-[A-Za-z0-9]{10,})", _prefix("-", "fc", bound=True)),
    ("browserbase", r"(bb_live_[A-Za-z0-9_-]{10,})", _prefix("_", "bb_live")),
    ("fernet", _B64 + _CASED.format(r"(gAAAA[A-Za-z0-9_=-]{20,})"), _plain("A", "(?<=gA)(?=AAA)"),
     True),
    ("stripe", r"(sk_live_[A-Za-z0-9]{10,})", _prefix("_", "sk_live")),
    ("stripe-test", r"(sk_test_[A-Za-z0-9]{10,})", _prefix("_", "sk_test")),
    ("stripe-restricted", r"(rk_live_[A-Za-z0-9]{10,})", _prefix("_", "rk_live")),
    ("sendgrid", r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
     _prefix(".", "sg", then=_at_least(10, "."))),
    ("npm", r"(npm_[A-Za-z0-9]{10,})", _prefix("_", "npm")),
    ("pypi", r"(pypi-[A-Za-z0-9_-]{10,})", _prefix("-", "pypi")),
    ("digitalocean", r"(do[opr]_v1_[A-Za-z0-9]{10,})", _prefix("_", "dop_v1", "doo_v1", "dor_v1")),
    ("doppler", r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})", _prefix(".", "dp")),
    ("doppler-service", r"(dp\.st\.[A-Za-z0-9]{40,44})", _prefix(".", "dp")),
    ("doppler-service-named", r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})", _prefix(".",
     "dp")),
    ("docker", r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})", _prefix("_", "dckr_pat", "dckr_oat")),
    ("buildkite", r"(bkua_[a-z0-9]{40})", _prefix("_", "bkua")),
    ("circleci", r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})", _prefix("_", "ccipat")),
    ("supabase", r"(sbp_[a-z0-9]{40})", _prefix("_", "sbp")),
    ("databricks", _B64 + _CASED.format(r"(dapi[0-9a-f]{32}(?:-[0-9])?)"),
     _plain("p", "(?<=dap)(?=i[0-9a-f]{32})"), True),
    ("datadog", r"(dd[pw]_[A-Za-z0-9]{36})", _prefix("_", "ddp", "ddw")),
    ("grafana-sa", r"(glsa_[A-Za-z0-9_]{41})", _prefix("_", "glsa")),
    ("grafana-cloud", r"(glc_eyJ[A-Za-z0-9+/=]{60,160})", _prefix("_", "glc")),
    ("netlify", r"(nfp_[A-Za-z0-9_]{36})", _prefix("_", "nfp")),
    ("contentful", r"(CFPAT-[A-Za-z0-9_\-]{40,})", _prefix("-", "cfpat")),
    ("atlassian-cloud", _B64 + _CASED.format(r"(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     _plain("A", "(?=TCTT3xFfG)"), True),
    ("atlassian", _B64 + _CASED.format(r"(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     _plain("A", "(?=TATT)"), True),
    ("bitbucket", _B64 + _CASED.format(r"(ATBB[A-Za-z0-9_=.-]{16,})"), _plain("A", "(?=TBB)"),
     True),
    ("bitbucket-dc", r"(BBDC-[A-Za-z0-9+/@_-]{40,50})", _prefix("-", "bbdc")),
    ("heroku", r"(HRKU-AA[A-Za-z0-9_-]{20,})", _prefix("-", "hrku")),
    ("hubspot", r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-"
     r"[A-Za-z0-9]{12})", _prefix("-", "pat-eu1", "pat-na1")),
    ("apify", r"(apify_api_[A-Za-z0-9\-]{20,})", _prefix("_", "apify_api")),
    ("fly", r"(FlyV1 fm[0-9]+_[A-Za-z0-9+/=,_-]{100,})",
     (Anchor("r", "_", "(?=[0-9]+[mM][fF] 1[vV][yY][lL][fF])"),)),
    ("fastly-io", r"(fio-u-[A-Za-z0-9_-]{40,})", _prefix("-", "fio-u")),
    ("agentmail", _WORD_START + r"(am_[A-Za-z0-9_-]{10,})", _prefix("_", "am", bound=True)),
    ("elevenlabs", _WORD_START + r"(sk_[A-Za-z0-9_]{10,})", _prefix("_", "sk", bound=True)),
    ("tavily", r"(tvly-[A-Za-z0-9]{10,})", _prefix("-", "tvly")),
    ("exa", r"(exa_[A-Za-z0-9]{10,})", _prefix("_", "exa")),
    ("matrix", r"(syt_[A-Za-z0-9]{10,})", _prefix("_", "syt")),
    ("retaindb", r"(retaindb_[A-Za-z0-9]{10,})", _prefix("_", "retaindb")),
    ("hsk", r"(hsk-[A-Za-z0-9]{10,})", _prefix("-", "hsk")),
    ("mem0", r"(mem0_[A-Za-z0-9]{10,})", _prefix("_", "mem0")),
    ("brv", r"(brv_[A-Za-z0-9]{10,})", _prefix("_", "brv")),
    ("xai", r"(xai-[A-Za-z0-9]{30,})", _prefix("-", "xai", then=_at_least(30, "-", "[A-Za-z0-9]"))),
    ("fireworks", _WORD_START + r"(fw-[A-Za-z0-9]{30,})", _prefix("-", "fw", bound=True)),
    ("fireworks-2", _WORD_START + r"(fw_[A-Za-z0-9]{30,})", _prefix("_", "fw", bound=True)),
    ("fpk", _WORD_START + r"(fpk_[A-Za-z0-9]{30,})", _prefix("_", "fpk", bound=True)),
    ("aws-access-key", _B64 + _CASED.format(r"((?:A3T[A-Z0-9]|A[KS]IA|ABIA|ACCA)[A-Z0-9]{16})"),
     _plain("A", "(?=(?:3T[A-Z0-9]|[KS]IA|BIA|CCA)[A-Za-z0-9]{16})"), True),
    ("tencent", _CASED.format(r"(AKID[A-Za-z0-9]{10,})"), _plain("A", "(?=KID[A-Za-z0-9]{10})")),
    ("alibaba", _CASED.format(r"(LTAI[A-Za-z0-9]{10,})"), _plain("A",
     "(?<=LTA)(?=I[A-Za-z0-9]{10})")),
    ("huggingface", r"(hf_[A-Za-z0-9]{10,})", _prefix("_", "hf")),
    ("huggingface-org", r"(api_org_[A-Za-z0-9]{20,})", _prefix("_", "api_org")),
    ("replicate", r"(r8_[A-Za-z0-9]{10,})", _prefix("_", "r8")),
    ("telegram-url", r"(?<![A-Za-z0-9_])bot([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])",
     _TELEGRAM_GATE),
    ("telegram", r"(?<![A-Za-z0-9_])([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])",
     _TELEGRAM_GATE),
))  # fmt: skip


# --- beyond upstream: generic assignments, command lines, config files, more vendors ----------
# (facts from gitleaks' default rules, trufflehog's detectors, detect-secrets' plugins)
_NAME_CH = r"[A-Za-z0-9_.\-$@]"
_KEY_TAIL = re.compile(r"(?:\\*[\"'`])?(?:\*\*|__)?[ \t]*\Z")
# NAME: value / NAME=value for any name that ends in a secret word (DB_PASS, SECRET_KEY_BASE,
# db_password, PGPASSWORD, "API Key", пароль…), any case, quoted, escaped, in a YAML block
# scalar, or bare (then ``redact_names`` tells a credential from prose and references).
_KV_CHAIN = trie((w[::-1] for w in names.SUFFIXES), True, True) + r"[_.\- ]"
_KV_GAP = r"[ \t]*(?:\*\*|__)?(?:[\"'`]\\{0,64})?(?:" + _KV_CHAIN + ")*"
_KV_VALUE = (
    r"(?:(?<==)>|(?<=[=:])={1,2})?[ \t]*(?:\*\*|__)?[ \t]*(?:"
    r"\\{1,64}\"([^\"\\\r\n]+)\\{1,64}\"|\\{1,64}'([^'\\\r\n]+)\\{1,64}'"
    r"|\"((?:[^\"\\\r\n]|\\[^\r\n])+)\"|'([^'\r\n]+)'|`([^`\r\n]+)`"
    r"|([|>][-+0-9]{0,2})[ \t]*(?:#[^\r\n]*)?"
    r"(\r?\n(?:[ \t]*\r?\n)*[ \t]+\S[^\r\n]*(?:\r?\n(?:[ \t]*\r?\n)*[ \t]+\S[^\r\n]*)*)"
    # bare: a ";", "," or "&" inside the value is part of it (p@ss;w0rd, Tr0ub&dor) unless a
    # space or the next "name=" / "name:" pair follows it
    r"|([^\s\"'`;,&](?:[^\s\"'`;,&]|[;,&](?=[^\s\"'`;,&])(?![A-Za-z_][\w.-]*[=:]))*))"
)


def _line_indent(text: str, pos: int) -> int:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return len(line) - len(line.lstrip(" \t"))


def _block(text: str, key_start: int, start: int, end: int) -> Span | None:
    """A YAML block scalar's lines, while they are indented more than the key."""
    indent = _line_indent(text, key_start)
    first = last = -1
    for m in re.finditer(r"\n([ \t]*)(\S[^\r\n]*)", text[start:end]):
        if len(m.group(1)) <= indent:
            break
        if first < 0:
            first = start + m.start(2)
        last = start + m.end(2)
    return (first, last) if first >= 0 else None


def _value(m: re.Match[str], key_start: int) -> Span | None:
    g = m.lastindex
    if not g:
        return None
    s, e = m.span(g)
    if g <= 5:
        return names.quoted_value(m.string, s, e)
    if g == 7:
        return _block(m.string, key_start, s, e)
    prose_end = m.string[m.start() - 1] == ":"
    return names.unquoted_value(
        m.string, s, e, trail=names.PROSE_END if prose_end else names.CLOSERS
    )


def _kv_check(m: re.Match[str], key_start: int) -> Span | None:
    text = m.string
    key = _KEY_TAIL.sub("", text[key_start : m.start() - 1]).strip("\"'`\\")
    if not names.secret_name(key) or text.endswith("//", 0, key_start):
        return None  # (a URL's user name is the URL families' business)
    if m.lastindex == 8 and names.phrase_name(key):
        return names.line_value(text, m.start(8))
    return _value(m, key_start)


def _query_check(m: re.Match[str], key_start: int) -> Span | None:
    return names.unquoted_value(m.string, *m.span(1), prose=False)


def _xml_kv_check(m: re.Match[str], key_start: int) -> Span | None:
    k = re.match(r"(?:key|name)[ \t]*=[ \t]*\"([^\"]*)\"", m.string[key_start:], re.I)
    return names.quoted_value(m.string, *m.span(1)) if k and names.secret_name(k[1]) else None


FIELDS: tuple[Field, ...] = _UPSTREAM_FIELDS + (
    # ?key=… &code=… &sig=… (Azure SAS, Google API keys, function keys) in a query string
    Field("query-secret", "=", ("key", "code", "sig", "signature", "sv-sig"), "", r"(?=[?&;])",
          r"([^&#\s\"'<>]+)", check=_query_check),
    # <add key="Password" value="…"/>, <property name="db.password" value="…"/>
    Field("xml-key-value", "=", ("value",), "[ \t]*",
          r"[ \t]+\"[^\"\r\n]{1,80}\"[ \t]*=[ \t]*(?:yek|eman)(?![A-Za-z0-9_:.-])",
          r"[ \t]*\"([^\"\r\n]+)\"", check=_xml_kv_check),
    Field("secret-name", "=:", names.WORDS + names.JOINED, _KV_GAP,
          _NAME_CH + "*+(?!" + _NAME_CH + ")", _KV_VALUE, NOCASE, _kv_check, _KV_CHAIN),
)  # fmt: skip


def _group_value(m: re.Match[str], first: int, *, prose: bool = True) -> Span | None:
    """Groups ``first``, +1 (quoted) and +2 (bare) of a value; the one that matched, judged."""
    for g in (first, first + 1):
        if m.group(g) is not None:
            return names.quoted_value(m.string, *m.span(g))
    if m.group(first + 2) is not None:
        return names.unquoted_value(m.string, *m.span(first + 2), prose=prose)
    return None


def _flag_check(m: re.Match[str]) -> Span | None:
    return _group_value(m, 2) if names.secret_name(m.group(1)) else None


def _placeholder_check(m: re.Match[str]) -> Span | None:
    g = m.lastindex or 0
    return None if names.placeholder(m.group(g)) else m.span(g)


def _prose_check(m: re.Match[str]) -> Span | None:
    if m.group(5) is None:
        return _placeholder_check(m)
    s, e = m.span(5)
    while e - s > 1 and m.string[e - 1] in ".,;:!?)":
        e -= 1
    return (s, e) if names.credential_like(m.string[s:e]) else None


def _line_check(m: re.Match[str]) -> Span | None:
    return names.unquoted_value(m.string, *m.span(1), prose=False)


def _xml_check(m: re.Match[str]) -> Span | None:
    s, e = m.span("v")
    v = m.string[s:e]
    s += len(v) - len(v.lstrip())
    e -= len(v) - len(v.rstrip())
    if e <= s or not names.secret_name(m.group("n").split(":")[-1]):
        return None
    return names.quoted_value(m.string, s, e)


def _config_set_check(m: re.Match[str]) -> Span | None:
    name = re.split(r"[:/]", m.group("n"))[-1]
    return _group_value(m, 2, prose=False) if names.secret_name(name) else None


def _token_user_check(m: re.Match[str]) -> Span | None:
    v = m.group(1)
    tokenish = any(c.isdigit() for c in v) and any(c.isalpha() for c in v) and "." not in v
    return m.span(1) if tokenish or len(v) >= 32 else None


def _htpasswd_check(m: re.Match[str]) -> Span | None:
    flags, args = m.group(1), list(re.finditer(r"\S+", m.group(2)))
    if "b" not in flags:
        return None
    i = 1 if "n" in flags else 2
    if i >= len(args):
        return None
    s, e = m.start(2) + args[i].start(), m.start(2) + args[i].end()
    return None if names.placeholder(m.string[s:e]) else (s, e)


_VAL = r"(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\"|([^\s'\"|;&<>`][^\s|;&`]*))"
# Tools that take a password in a flag: (tool name, more of the name, flag, what follows it).
# One finder runs them, only where a flag follows a tool's name on its line (the anchor).
_TOOLS = (
    ("mysql", "(?:dump|admin|import|show|check|pump|sh|binlog)?", "-p", ""),
    ("mariadb", "(?:-?dump|-?admin)?", "-p", ""),
    ("7z", "[ar]?", "-p", ""),
    ("sshpass", "", "-p", "[ \t]*"),
    ("docker", r"\b[^\n|;&]*?\blogin", "-p", "[ \t]+"),
    ("podman", r"\b[^\n|;&]*?\blogin", "-p", "[ \t]+"),
    ("helm", r"\b[^\n|;&]*?\blogin", "-p", "[ \t]+"),
    ("nerdctl", r"\b[^\n|;&]*?\blogin", "-p", "[ \t]+"),
    ("redis-cli", "", "-a", "[ \t]+"),
    ("mongo", "(?:sh|dump|restore|export|import|stat|top|files)?", "-p", "[ \t]+"),
    ("cqlsh", "", "-p", "[ \t]+"),
    ("sqlcmd", "", "-P", "[ \t]*"),
    ("bcp", "", "-P", "[ \t]*"),
    ("ldap", "(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop|url)", "-[wsa]",
     "[ \t]+"),
    ("mosquitto_", "(?:pub|sub|rr)", "-P", "[ \t]+"),
    ("zip", "", "-P", "[ \t]+"),
    ("unzip", "", "-P", "[ \t]+"),
    ("ssh-keygen", "", "-[NP]", "[ \t]+"),
    ("az", r"\b[^\n|;&]*?\blogin", "-p", "[ \t]+"),
    ("openssl", "", "-k", "[ \t]+"),
    ("openssl", "", "-pass(?:in|out)?[ \t]+pass:", ""),
    ("keytool", "", "-(?:src|dest|new)?(?:store|key)?pass(?:word)?", "[ \t]+"),
    ("jarsigner", "", "-(?:store|key)pass", "[ \t]+"),
    ("gh", r"[ \t]+secret[ \t]+set", "(?:-b|--body)", "(?:=|[ \t]+)"),
)  # fmt: skip
_TOOL = r"{}(?<![A-Za-z0-9_.-]{}){}\b[^\n|;&]*?[ \t]{}{}"
_TOOL_NAMES = ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck",
               "mysqlpump", "mysqlsh", "mysqlbinlog", "mariadb", "mariadb-dump", "mariadbdump",
               "mariadb-admin", "mariadbadmin", "7z", "7za", "7zr", "sshpass", "docker", "podman",
               "helm", "nerdctl", "redis-cli", "mongo", "mongosh", "mongodump", "mongorestore",
               "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles", "cqlsh",
               "sqlcmd", "bcp", "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami",
               "ldappasswd", "ldapcompare", "ldapmodrdn", "ldapexop", "ldapurl", "mosquitto_pub",
               "mosquitto_sub", "mosquitto_rr", "zip", "unzip", "ssh-keygen", "az", "openssl",
               "keytool", "jarsigner", "gh", "curl", "smbclient", "rpcclient", "smbmap",
               "smbget", "mount", "htpasswd", "sudo")  # fmt: skip
# A flag (" -p", "--user") with one of the tools named before it on its line.
_TOOL_GATE = (
    Anchor(
        "r",
        "-",
        r"(?<=[A-Za-z]-)(?=-?[ \t][^\n]{0,200}?"
        + trie((t[::-1] for t in _TOOL_NAMES), False, True)
        + r"(?![A-Za-z0-9_.-]))",
    ),
)
_SECRET_FLAG = (
    r"(?=[A-Za-z0-9_.-]{0,40}?(?i:pass|pwd|secret|token|key|auth|cred|bearer|phrase"
    r"|mnemonic))"
)
# "password", "passwd", "passphrase", "pwd" (and "requirepass", "rootpw", "chpasswd") on the
# existing "p" pass and one for "P", each family with the context it needs, so keyword-heavy
# prose ("the password policy…") runs none of them.
_PW_WORDS = r"(?:[aA][sS][sS](?:[wW](?:[oO][rR])?[dD]|[pP][hH][rR][aA][sS][eE])|[wW][dD])"
_PW_IS = _PW_WORDS + r"[ \t]+(?:(?:[iI][sS]|[wW][aA][sS])[ \t:]|['\"`])"
_LINE = r"[ \t]+[^\s=:'\"`]\S*[ \t]*(?:\r?\n|\Z)"
_PW_UMBRELLA = "(?=[aA][sS][sS]|[wW])"  # the pass checks this; a hit tries each exactly


def _password_at(lit: str, rest: str) -> tuple[Anchor, ...]:
    return (Anchor("f", lit, rest, umbrella=_PW_UMBRELLA),)


_PW_PROSE = _password_at("p", f"(?={_PW_IS})") + _password_at("P", f"(?={_PW_IS})")
_PW_LINE = (
    _password_at("p", rf"(?<![^\s]p)(?={_PW_WORDS}{_LINE})")
    + _password_at("P", rf"(?<![^\s]P)(?={_PW_WORDS}{_LINE})")
    + _password_at("p", rf"(?<=[rR][eE][qQ][uU][iI][rR][eE]p)(?=[aA][sS][sS]{_LINE})")
    + _password_at("p", rf"(?<=[rR][oO][oO][tT]p)(?=[wW]{_LINE})")
)
_PW_NETRC = _password_at("p", r"(?<=\sp)(?=assword[ \t]+\S+(?:[ \t]*(?:\r?\n|\Z)|[ \t]+[a-z]))")
_CHPASSWD = _password_at("p", "(?<=chp)(?=asswd)")
# Tools that take a password in a flag are found by one finder (one rule, one anchor).
_TOOL_SPECS: tuple[tuple[tuple[str, ...], str, RuleCheck], ...] = (
    *(((t,), _TOOL.format(re.escape(t), re.escape(t), more, f, sep) + _VAL, _placeholder_check)
      for t, more, f, sep in _TOOLS),
    (("curl",), r"curl(?<![A-Za-z0-9_.-]curl)\b[^\n|;&]*?[ \t](?:-u|-U|--user|--proxy-user)"
     r"(?:=|[ \t]*)(?:'[^':\r\n]*:([^'\r\n]+)'|\"[^\":\r\n]*:([^\"\r\n]+)\""
     r"|[^\s'\":]*:([^\s'\"]+))", _placeholder_check),
    (("smbclient", "rpcclient", "smbmap", "smbget", "mount"),
     r"(?<![A-Za-z0-9_.-])(?:smbclient|rpcclient|smbmap|smbget|"
     r"mount)\b[^\n|;&]*?[ \t](?:-U|--user(?:name)?)(?:=|[ \t]+)['\"]?[^%\s'\"]+%([^\s'\"]+)",
     _placeholder_check),
    (("htpasswd",), r"htpasswd(?<![A-Za-z0-9_.-]htpasswd)((?:[ \t]+-[A-Za-z]+)+)"
     r"((?:[ \t]+[^\s-]\S*){2,3})", _htpasswd_check),
)  # fmt: skip
_TOOL_RX: list[tuple[tuple[str, ...], re.Pattern[str], RuleCheck]] = []
_TOOL_NAME = compiled(
    "|".join(
        # longest first, then by name: a set's order changes with the hash seed, and the
        # pattern text is the compiled-regex cache's key
        sorted(
            {re.escape(n) for need, _, _ in _TOOL_SPECS for n in need}, key=lambda n: (-len(n), n)
        )
    ),
    ASCII,
)


_TOOL_FLAG = compiled(r"-(?<=[ \t]-)[A-Za-z-]", ASCII)


def _tool_hits(text: str) -> Iterator[Hit]:
    """Passwords given to the tools above: on each line with such a flag, the regexes of the
    tools named on that line."""
    if not _TOOL_RX:
        _TOOL_RX.extend((need, compiled(src, NOCASE), check) for need, src, check in _TOOL_SPECS)
    end = 0
    for f in _TOOL_FLAG.finditer(text):
        if f.start() < end:
            continue  # a line already done
        start = text.rfind("\n", 0, f.start()) + 1
        end = text.find("\n", f.end())
        end = len(text) if end < 0 else end
        named = {m.group() for m in _TOOL_NAME.finditer(text, start, f.start())}
        for need, regex, check in _TOOL_RX if named else ():
            if not named.isdisjoint(need):
                for m in regex.finditer(text, start, end):
                    if span := check(m):
                        yield span[0], span[1], TOKEN


_MORE = (
    Rule("url-userinfo",
         r"(?<=[A-Za-z0-9])://[^/\s:@]*:([^/\s]+?)@(?=[^@/\s]*(?:[/?#\s'\"),;\]]|\Z))",
         _URL_GATE, check=_placeholder_check),
    Rule("url-token-user", r"(?<=[A-Za-z0-9])://([A-Za-z0-9_~%+.\-]{16,})@(?=[A-Za-z0-9\[])",
         (Anchor("r", ":", r"(?<=//:)(?<=[A-Za-z0-9_~%+.\-]{16}//:)"),), check=_token_user_check),
    Rule("cli-secret-flag", r"-(?<![A-Za-z0-9_./-]-)-(" + _SECRET_FLAG
         + r"[A-Za-z][A-Za-z0-9_.-]*)(?:=|[ \t]+(?!-))" + _VAL, _CLI_GATE,
         check=_flag_check),
    Rule("cli-tools", "", _TOOL_GATE, finder=_tool_hits),
    Rule("stdin-secret", r"(?<![A-Za-z0-9_-])(?:echo|printf)[ \t]+(?:-[A-Za-z]+[ \t]+)*"
         r"(?:'%s(?:\\n)?'[ \t]+|\"%s(?:\\n)?\"[ \t]+)?" + _VAL + r"[ \t]*\|[^\n]*?"
         r"(?:--password-stdin|--stdin\b|\bsudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S\b"
         r"|\bchpasswd\b)",
         _CLI_GATE + _TOOL_GATE + _CHPASSWD, check=_placeholder_check, need=("echo", "printf")),
    Rule("aws-configure-set", r"aws[ \t]+configure[ \t]+set[ \t]+(?:--?\S+[ \t]+)*"
         r"(?:aws_secret_access_key|aws_session_token)[ \t]+" + _VAL,
         _prefix("_", "aws_secret_access", then="(?<=yek_)", short=True) + _prefix("_",
         "aws_session",
         then="(?<=nekot_)", short=True), check=_placeholder_check),
    Rule("password-prose", r"p(?<![A-Za-z0-9_]p)(?:assword|asswd|assphrase|wd)"
         r"(?:[ \t]+(is|was)(?:[ \t]*:)?)?[ \t]+(?:'([^'\r\n]{1,200})'|\"([^\"\r\n]{1,200})\""
         r"|`([^`\r\n]{1,200})`|(?<=s |: )(\S+))", _PW_PROSE, check=_prose_check),
    Rule("config-line", r"(?m)^[ \t]*(?:password|passwd|passphrase|pwd|(?-i:requirepass|rootpw))"
         r"[ \t]+([^\s=:'\"`][^\s]*)[ \t]*\r?$", _PW_LINE, check=_line_check),
    Rule("netrc", _CASED.format(r"(?<![A-Za-z0-9_])(?:machine[ \t]+\S+|default)(?:\s+(?:login|"
         r"account|port)[ \t]+\S+)*\s+password[ \t]+(\S+)"), _PW_NETRC, check=_placeholder_check,
         need=("machine", "default")),
    Rule("pgpass", r"(?m)^[ \t]*[^:\s#][^:\s]*:(?:[0-9]{1,5}|\*):[^:\s]+:[^:\s]+:(\S+?)[ \t]*\r?$",
         (Anchor("r", ":", r"(?=(?:[0-9]{1,5}|\*):[^:\s]+[ \t]*(?:\n|\Z))"),),
         check=_placeholder_check),
    Rule("sql-identified", r"(?<![A-Za-z0-9_])(?:identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by"
         r"|password[ \t]+by)[ \t]+(?:password[ \t]*)?(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\")",
         _plain("b", r"(?<=[dD] b)(?=[yY][ \t]+['\"])") + _plain("B",
         r"(?<=[dD] B)(?=[yY][ \t]+['\"])"),
         check=_placeholder_check),
    Rule("xml-secret", r"<(?P<n>[A-Za-z_][A-Za-z0-9_:.-]{0,60})>(?P<v>[^<\r\n]{1,300})</(?P=n)>",
         _plain("<", "(?=/[A-Za-z0-9_:.-]{0,40}?(?:" + "|".join(_caseless(w) for w in (
             "pass", "pwd", "secret", "token", "key", "auth", "cred", "mnemonic")) + "))"),
         check=_xml_check),
    Rule("putty", r"PuTTY-User-Key-File-[0-9]:[^\r\n]*(?:\r?\n[^\r\n]*){0,12}?\r?\n"
         r"Private-Lines:[ \t]*[0-9]+[ \t]*\r?\n"
         r"((?:[A-Za-z0-9+/=]{1,100}\r?\n)*[A-Za-z0-9+/=]{1,100})(?![A-Za-z0-9+/=-])(?=\r?\n|\Z)",
         _prefix("-", "putty")),
    Rule("pem-base64", _CASED.format(r"(?<![A-Za-z0-9+/])(LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?"
         r"(?:UFJJVkFURSBLRV|BSSVZBVEUgS0VZ|QUklWQVRFIEtFWS)[A-Za-z0-9+/=]{16,}"
         r"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{16,})*)"), _plain("1", "(?<=LS0tLS1)(?=CRUdJTi)")),
    Rule("discord-bot-token", r"(?<![A-Za-z0-9_-])([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\."
         r"[A-Za-z0-9_-]{27,38})(?![A-Za-z0-9_-])",
         (Anchor("r", ".", rf"(?<=\.{_TOKEN}{{6}}\.)(?={_TOKEN}{{24}})"),)),
) + tuple(_rule(*row) for row in (
    ("1password", r"(?<![A-Za-z0-9])(ops_eyJ[A-Za-z0-9+/]{250,}={0,3})",
     (Anchor("r", "_", "(?=[sS][pP][oO](?![A-Za-z0-9_]))(?<=[jJ][yY][eE]_)"),)),
    ("1password-key", _CASED.format(r"(?<![A-Za-z0-9])(A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-"
     r"[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})"), _prefix("-", "a3", bound=True)),
    ("adobe", r"(?<![A-Za-z0-9])(p8e-[A-Za-z0-9]{32})", _prefix("-", "p8e", bound=True)),
    ("age", r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
     _prefix("-", "age-secret-key")),
    ("airtable", r"(?<![A-Za-z0-9])(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})",
     (Anchor("r", ".", r"(?<=[a-fA-F0-9]\.)(?<=[a-fA-F0-9]{64}\.)"
                       r"(?=[A-Za-z0-9]{14}[tT][aA][pP])"),)),
    ("artifactory", _CASED.format(r"(?<![A-Za-z0-9])(AKCp[A-Za-z0-9]{69})"),
     _plain("A", "(?=KCp[A-Za-z0-9]{69})")),
    ("azure-ad-secret", r"(?<![A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})",
     _plain("~", "(?<=[0-9][qQ]~)")),
    ("clickhouse", _CASED.format(r"(?<![A-Za-z0-9])(4b1d[A-Za-z0-9]{38})"),
     _plain("b", "(?<=4b)(?=1d[A-Za-z0-9]{38})")),
    ("clojars", r"(CLOJARS_[A-Za-z0-9]{60})", _prefix("_", "clojars")),
    ("clickup", r"(?<![A-Za-z0-9])(pk_[0-9]{6,8}_[A-Z0-9]{32})",
     _prefix("_", "pk", bound=True, then="(?<=[0-9]{6}_)")),
    ("cloudflare-origin-ca", r"(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})", _prefix("-", "v1.0")),
    ("duffel", r"(duffel_(?:test|live)_[A-Za-z0-9_=-]{43})",
     _prefix("_", "duffel_test", "duffel_live")),
    ("dynatrace", r"(dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})", _prefix(".", "dt0c01")),
    ("easypost", _CASED.format(r"(?<![A-Za-z0-9])(EZ[AT]K[A-Za-z0-9]{54})"),
     _plain("K", "(?<=EZ[AT]K)(?=[A-Za-z0-9]{54})")),
    ("facebook", _CASED.format(r"(?<![A-Za-z0-9])(EAA[MC][A-Za-z0-9]{100,})"),
     _plain("A", "(?<=EA)(?=A[MC][A-Za-z0-9]{100})")),
    ("figma", r"(figd_[A-Za-z0-9_-]{40,})", _prefix("_", "figd")),
    ("flutterwave", r"(FLWSECK(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?)", _prefix("-", "flwseck",
     "flwseck_test")),
    ("fly-tokens", r"(?<![A-Za-z0-9])(fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}"
     r"|fm2_[A-Za-z0-9+/]{100,}={0,3})", _prefix("_", "fo1", "fm1a", "fm1r", "fm2", bound=True)),
    ("google-oauth-secret", r"(GOCSPX-[A-Za-z0-9_-]{28})", _prefix("-", "gocspx")),
    ("harness", r"((?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})",
     _prefix(".", "pat", "sat", bound=True, then=r"(?<=[A-Za-z0-9_-]{22}\.)")),
    ("infracost", r"(?<![A-Za-z0-9])(ico-[A-Za-z0-9]{32})", _prefix("-", "ico", bound=True)),
    ("intra42", r"(s-s4t2(?:ud|af)-[a-f0-9]{64})", _prefix("-", "s4t2ud", "s4t2af")),
    ("jwt-base64", _CASED.format(r"(?<![A-Za-z0-9+/])(ZXlK[A-Za-z0-9+/_-]{60,}={0,2})"),
     _plain("K", "(?<=ZXlK)(?=[A-Za-z0-9+/_-]{60})")),
    ("langsmith", r"(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})", _prefix("_", "lsv2_pt",
     "lsv2_sk")),
    ("linear", r"(lin_api_[A-Za-z0-9]{40})", _prefix("_", "lin_api")),
    ("mailchimp", r"(?<![A-Za-z0-9])([a-f0-9]{32}-us[0-9]{1,2})(?![A-Za-z0-9])",
     (Anchor("r", "-", "(?<=[sS][uU]-)(?=[a-fA-F0-9]{32})"),)),
    ("mailgun", r"(?<![A-Za-z0-9_-])(key-[a-f0-9]{32})(?![A-Za-z0-9_-])",
     _prefix("-", "key", bound=True, then="(?<=[a-fA-F0-9]{32}-)")),
    ("mapbox", r"(?<![A-Za-z0-9])(sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,})",
     _prefix(".", "sk", bound=True, then=r"(?<=[jJ][yY][eE]\.)")),
    ("maxmind", r"(?<![A-Za-z0-9])([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?<=[kK][mM][mM]_)(?=[A-Za-z0-9]{29}_)"),)),
    ("ms-teams-webhook",
     r"(https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,})",
     _prefix(".", "webhook")),
    ("neon", r"(napi_[A-Za-z0-9]{40,})", _prefix("_", "napi")),
    ("newrelic", r"(NRAK-[A-Za-z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19})",
     _prefix("-", "nrak", "nrii", "nrjs")),
    ("notion", r"(?<![A-Za-z0-9])(ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})"
     r"(?![A-Za-z0-9])",
     _prefix("_", "ntn") + (Anchor("r", "_", r"(?=[tT][eE][rR][cC][eE][sS](?![A-Za-z0-9_]))"
                          r"(?<=[A-Za-z0-9]{43}_)"),)),
    ("octopus", _CASED.format(r"(?<![A-Za-z0-9])(API-[A-Z0-9]{26})(?![A-Za-z0-9])"),
     _prefix("-", "api", bound=True, then="(?<=[A-Z0-9]{26}-)")),
    ("openshift", r"(sha256~[A-Za-z0-9_-]{43})", _plain("~", "(?<=[sS][hH][aA]256~)")),
    ("paypal-braintree", r"(access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})",
     (Anchor("r", "_", r"(?<=\$nekot_)(?=[sS][sS][eE][cC][cC][aA])"),)),
    ("pinecone", r"(pcsk_[A-Za-z0-9_]{40,})", _prefix("_", "pcsk")),
    ("plaid", r"(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
     r"[0-9a-f]{4}-[0-9a-f]{12})", _prefix("-", "access-sandbox", "access-development",
     "access-production")),
    ("planetscale", r"(pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64})",
     _prefix("_", "pscale_tkn", "pscale_oauth", "pscale_pw")),
    ("postman", r"(PMAK-[a-f0-9]{24}-[a-f0-9]{34})", _prefix("-", "pmak")),
    ("prefect", r"(pnu_[A-Za-z0-9]{36})", _prefix("_", "pnu")),
    ("pulumi", r"(pul-[a-f0-9]{40})", _prefix("-", "pul")),
    ("razorpay", r"(rzp_(?:live|test)_[A-Za-z0-9]{14,})", _prefix("_", "rzp_live", "rzp_test")),
    ("readme", r"(rdme_[a-z0-9]{70})", _prefix("_", "rdme")),
    ("render", r"(?<![A-Za-z0-9])(rnd_[A-Za-z0-9]{32,})", _prefix("_", "rnd", bound=True)),
    ("resend", r"(?<![A-Za-z0-9])(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?=[eE][rR](?![A-Za-z0-9_]))(?<=[A-Za-z0-9]{8}_)"),)),
    ("rubygems", r"(rubygems_[a-f0-9]{48})", _prefix("_", "rubygems")),
    ("scalingo", r"(tk-us-[A-Za-z0-9_-]{48})", _prefix("-", "tk-us")),
    ("brevo", r"(x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16})", _prefix("-", "xkeysib",
     "xsmtpsib")),
    ("sentry", r"(sntrys_eyJ[A-Za-z0-9+/=_]{60,}|sntryu_[a-f0-9]{64})",
     _prefix("_", "sntrys", "sntryu")),
    ("settlemint", r"(sm_(?:aat|pat|sat)_[A-Za-z0-9]{16})",
     _prefix("_", "sm_aat", "sm_pat", "sm_sat")),
    ("shippo", r"(shippo_(?:live|test)_[a-fA-F0-9]{40})", _prefix("_", "shippo_live",
     "shippo_test")),
    ("shopify", r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})", _prefix("_", "shpat", "shpca", "shppa",
     "shpss")),
    ("sonarqube", r"(?<![A-Za-z0-9])(sq[apu]_[a-f0-9]{40})",
     _prefix("_", "sqa", "sqp", "squ", bound=True)),
    ("sourcegraph", r"(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40})",
     _prefix("_", "sgp")),
    ("square", r"(?<![A-Za-z0-9_-])((?-i:EAAA)[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22}"
     r"|sq0csp-[A-Za-z0-9_-]{43})", _plain("A", "(?<=EA)(?=AA[A-Za-z0-9_-]{22})")
     + _prefix("-", "sq0atp", "sq0csp")),
    ("stripe-any", r"((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,})", _prefix("_", "sk_live",
     "sk_test", "sk_prod", "rk_live", "rk_test", "rk_prod")),
    ("stripe-webhook", r"(whsec_[A-Za-z0-9]{24,})", _prefix("_", "whsec")),
    ("supabase-secret", r"(sb_secret_[A-Za-z0-9_-]{20,})", _prefix("_", "sb_secret")),
    ("tailscale", r"(tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,})", _prefix("-", "tskey")),
    ("terraform", r"([A-Za-z0-9]{14}\.(?-i:atlasv1)\.[A-Za-z0-9_=-]{60,70})", _prefix(".",
     "atlasv1")),
    ("twilio", _CASED.format(r"(?<![A-Za-z0-9])(SK[0-9a-fA-F]{32})(?![A-Za-z0-9])"),
     _plain("K", "(?<=SK)(?=[0-9a-fA-F]{32})")),
    ("typeform", r"(tfp_[A-Za-z0-9_.=-]{59})", _prefix("_", "tfp")),
    ("vault", r"(?<![A-Za-z0-9])(hv[sbr]\.[A-Za-z0-9_-]{24,300}|s\.(?=[A-Za-z]*[0-9])"
     r"[A-Za-z0-9]{24})(?![A-Za-z0-9_-])", _prefix(".", "hvs", "hvb", "hvr", bound=True)
     + _prefix(".", "s", bound=True, then=r"(?<=[A-Za-z0-9]{24}\.)")),
    ("woocommerce", r"(?<![A-Za-z0-9])(c[ks]_[a-f0-9]{40})(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?=[kKsS][cC](?![A-Za-z0-9_]))(?<=[a-fA-F0-9]{40}_)"),)),
    ("yandex", r"(?<![A-Za-z0-9])((?-i:AQVN)[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\."
     r"[A-Za-z0-9_-]{86}={0,2})",
     _plain("A", "(?=QVN[A-Za-z0-9_-]{35})") + _prefix(".", "t1", bound=True)),
))  # fmt: skip
RULES = _UPSTREAM_RULES + _MORE


def keyside(f: Field) -> str:
    return f.gap + trie((k[::-1] for k in f.keys), bool(f.flags & re.I), True) + f.edge


# The passes: one per buffer and literal. A hit consumes only the literal, so no anchor hides
# inside another one's match; at a hit every anchor of that literal is tried.
FORM_GATE = "(?=[A-Za-z0-9_.-]*[A-Za-z_]&)"  # reversed: "=" of a pair that follows an "&"
