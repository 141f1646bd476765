"""Secrets that chat states in its own words or in code around them (issue 34): "the password
is X" in other languages, a password as a call's positional argument (``connect("db", "admin",
"…")``, ``login(user, "…")``, ``auth=("u", "…")``), ``aws configure``'s prompts answered in a
transcript, one-time recovery and backup codes and app passwords.

Facts: the languages' own words for a password and the copulas that introduce it; the client
libraries' signatures (DB-API ``connect``, JDBC ``getConnection``, ``smtplib``/``imaplib``/
``ftplib`` ``login``, ``ldap`` ``simple_bind_s``, ``requests`` ``HTTPBasicAuth``, .NET
``NetworkCredential``); the AWS CLI's prompt text; the vendors' code formats (GitHub's
``xxxxx-xxxxx`` recovery codes, Google's 8-digit backup codes, Google's and Apple's 16-letter
app passwords). The judgement of a value is ``names``'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from openclaw_sessions.redact.syntax import (
    NOCASE,
    TOKEN,
    WHOLE,
    Anchor,
    Hit,
    Rule,
    Span,
    caseless,
    find_all,
    lazy,
    merge,
    plain,
    trie,
)

from . import names

# --- "the password is X", in other languages ------------------------------------------------------
# The word for a password, then a copula or a colon, then the value (printable ASCII: a password
# is typed on a keyboard; the sentence's own words around it are not).
_PW_LANG = (
    "mot de passe", "mdp", "passwort", "kennwort", "contraseña", "contrasena", "clave", "senha",
    "parola d'ordine", "parola", "wachtwoord", "hasło", "haslo", "heslo", "jelszó", "jelszava",
    "salasana", "lösenord", "lösenordet", "adgangskode", "passord", "passordet", "şifre",
    "şifresi", "пароль", "пароля", "гасло", "κωδικός",
    "סיסמה", "كلمة المرور", "पासवर्ड", "密码", "密碼", "口令", "パスワード", "暗証番号",
    "비밀번호", "암호", "mật khẩu", "kata sandi", "kata laluan", "รหัสผ่าน",
)  # fmt: skip
_COPULA = (
    "est", "c'est", "sera", "ist", "lautet", "es", "era", "é", "è", "är", "er", "on", "je",
    "jest", "to", "это", "είναι", "הוא", "היא", "هي", "है", "là", "adalah", "ialah", "olarak",
    "คือ", "is", "was",
)  # fmt: skip
_PARTICLE = r"(?:[はがをも]|는|은|이|가|是|为|為|คือ)"
_LANG_WORDS = sorted(
    {v for w in _PW_LANG for v in (w, w.capitalize())}, key=lambda w: (-len(w), w)
)  # (re.ASCII folds ASCII letters only)
_LANG_SRC = (
    r"(?<![A-Za-z0-9_${])(?:"
    + "|".join(re.escape(w) for w in _LANG_WORDS)
    # Italian borrows the English word: only before its own copula (English has its family)
    + r"|[pP]assword(?=(?:[ \t]+[^\s\d:=,.;!?]{1,20}){0,4}?[ \t]+è(?![A-Za-z]))"
    + r")"
    # up to four words between ("das Passwort für den Server ist …"), then a copula or a colon
    r"(?:(?:[ \t]+[^\s\d:=,.;!?]{1,20}){0,4}?(?:[ \t]+(?:"
    + "|".join(re.escape(c) for c in sorted(set(_COPULA), key=lambda c: (-len(c), c)))
    + r")(?![A-Za-z])[ \t]*[:：]?|[ \t]*[:：]|[ \t]+[-–—])|"
    + _PARTICLE
    + r"[ \t]*[:：]?|(?=[ \t]))"
    r"[ \t]*[\"'`«「『“]?([!-~]{4,200})"
)


def _lang_check(m: re.Match[str]) -> Span | None:
    s, e = m.span(1)
    if names.placeholder(m.group(1)) or re.search(r"[\w.]\(", m.group(1)):  # (a call)
        return None
    e = s + max(1, len(m.string[s:e].rstrip(".,;:!?)]}>\"'`»」』”")))
    v = m.string[s:e]
    if names.reference(v) or "://" in v or v[0] == "-":
        return None
    return (s, e) if names.credential_like(v) else None


_LOW_WORDS = tuple(sorted({w.lower() for w in _PW_LANG}))


def lang_hits(text: str) -> Iterator[Hit]:
    """The regex tried only where one of the words starts (found in the lower-cased text)."""
    low = text.lower()
    if len(low) != len(text):  # (a character whose lower case is longer: keep offsets exact)
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    rx = lazy(_LANG_SRC, NOCASE)
    for w in _LOW_WORDS + (("password",) if "è" in text else ()):
        for i in find_all(low, w) if w in low else ():
            if (m := rx.match(text, i)) and (span := _lang_check(m)):
                yield span[0], span[1], TOKEN


# Letters whose pass exists anyway first (a shared pass costs nothing more), then rare ones.
_RARE_FIRST = "pkcgzqxjvbyfwmudhlrsnioate"


def _lang_anchors() -> tuple[Anchor, ...]:
    """Each word at its first letter that is not ASCII, else at its rarest letter (a pass per
    literal costs in proportion to how often it occurs), both cases."""
    out: dict[tuple[str, str], None] = {}
    for w in _PW_LANG:
        i = next((k for k, c in enumerate(w) if not c.isascii()), -1)
        if i < 0:
            i = min(range(len(w)), key=lambda k: _RARE_FIRST.find(w[k]) % 99)
        for c in dict.fromkeys((w[i].lower(), w[i].upper())):
            before = caseless(w[:i])
            rest = caseless(w[i + 1 :])
            out[(c, f"(?<={before}{re.escape(c)})(?={rest})")] = None
    return tuple(Anchor("f", c, rest) for c, rest in out) + plain("è", "(?<=[ \t]è)")


# --- a password as a call's positional argument -----------------------------------------------
# (function names, the 1-based position from which a string argument is the password)
_CALLS = (
    (("login", "logon", "log_in", "logIn", "signin", "sign_in", "signIn", "authenticate",
      "simple_bind_s", "simple_bind", "bind_s", "HTTPBasicAuth", "HTTPDigestAuth", "BasicAuth",
      "HTTPProxyAuth", "NetworkCredential", "PasswordAuthentication", "PasswordCredential",
      "UsernamePasswordCredentials", "UsernamePasswordToken", "UsernamePasswordAuthenticationToken",
      "auth", "Auth", "set_password", "setPassword", "add_user", "create_user"), 2),
    (("connect", "Connect", "getConnection", "createConnection", "open_connection", "Client",
      "MongoClient", "Redis", "StrictRedis"), 3),
)  # fmt: skip
# The names first, with no look-behind, so ``re`` skips to their first letters; the character
# before a name is checked at a match.
_CALL_SRC = (
    r"("
    + "|".join(sorted({f for fs, _ in _CALLS for f in fs}, key=lambda f: (-len(f), f)))
    + r")[ \t]?\(([^()\r\n]{1,400})\)"
    r"|auth[ \t]?=[ \t]?[(\[]([^()\[\]\r\n]{1,300})[)\]]"
)
# At the call's "(" (or the tuple's "["), in the reversed text: a name, or "auth=", before it.
_CALL_ANCHORS = (
    Anchor(
        "r",
        "(",
        "(?=[ \t]?(?:"
        + trie((f[::-1] for fs, _ in _CALLS for f in fs), False, True)
        + "|[ \t]?=[ \t]?htua))",
    ),
    Anchor("r", "[", "(?=[ \t]?=[ \t]?htua)"),
)
_POSITION = {f: p for fs, p in _CALLS for f in fs}
_ARG = re.compile(
    r"[ \t]*(?:\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'|`([^`]*)`|[^,]*)[ \t]*(?:,|\Z)"
)


def _string_args(m: re.Match[str], g: int) -> Iterator[tuple[int, int, int]]:
    """(1-based position, start, end) of each quoted argument of group ``g``."""
    pos, end, k = m.start(g), m.end(g), 0
    while pos < end:
        a = _ARG.match(m.string, pos, end)
        if a is None or a.end() == pos:
            return
        k += 1
        q = next((i for i in (1, 2, 3) if a.group(i) is not None), 0)
        if q:
            yield k, a.start(q), a.end(q)
        pos = a.end()


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")


def _secretish(v: str) -> bool:
    """A literal a person typed as a password: a credential, or a long mixed-case token."""
    if names.placeholder(v) or " " in v or "://" in v or "/" in v[:1] or _EMAIL.fullmatch(v):
        return False
    return names.credential_like(v) or (
        len(v) >= 10 and v.lower() != v and v.upper() != v and not v.isidentifier()
    )


def call_hits(text: str) -> Iterator[Hit]:
    for m in lazy(_CALL_SRC, 0).finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_$"):
            continue  # (inside a longer name; "db.connect" is one of them: "." is no word)
        g, first = (2, _POSITION[m.group(1)]) if m.group(1) else (3, 2)
        args = list(_string_args(m, g))
        count = m.group(g).count(",") + 1
        if count < first:
            continue
        for k, s, e in args:
            if k >= first and _secretish(text[s:e]):
                yield s, e, TOKEN


# --- aws configure's prompts ------------------------------------------------------------------
_AWS_PROMPT = (
    r"AWS (?:Secret Access Key|Session Token|Access Key ID) \[[^\]\r\n]{0,60}\]:[ \t]*"
    r"([A-Za-z0-9/+=]{16,})"
)


# --- recovery, backup codes and app passwords -------------------------------------------------
_CODES_HEAD = (
    r"(?:recovery|backup|one[- ]time|emergency|scratch|2fa|mfa|two[- ]factor|verification)"
    r"[ \t]+codes?"
)
_CODE = r"(?:[a-z0-9]{4,6}-[a-z0-9]{4,6}|[0-9]{4}[ -]?[0-9]{4}|[0-9]{6,10}|[A-Z0-9]{4}-[A-Z0-9]{4})"
_CODES_SRC = (
    _CODES_HEAD + r"[^\r\n]{0,80}?(?::|\r?\n|[ \t]+(?:is|are|was|were)[ \t]*:?)"
    r"(?P<list>(?:[ \t]*(?:[-*•>|][ \t]*)?(?:[0-9]{1,2}[.)][ \t]+)?"
    + _CODE
    + r"(?![A-Za-z0-9])[ \t|,;]*(?:\r?\n|\Z|(?=[0-9a-zA-Z]))){1,16})"
)
_CODE_RX = re.compile(_CODE)
_APP_PW_SRC = (
    r"(?:app(?:lication)?[- ]?(?:specific[- ])?password|app[- ]?pass(?:code|word)?)"
    r"[^\r\n]{0,40}?[ \t:=\"'`]([a-z]{4}([ -])[a-z]{4}\2[a-z]{4}\2[a-z]{4})(?![a-z])"
)


def _near(text: str, low: str, word: str, before: int, after: int) -> list[tuple[int, int]]:
    """Windows around each ``word`` in ``low`` (``text`` lower-cased), merged."""
    spans = [(max(0, i - before), min(len(text), i + after)) for i in find_all(low, word)]
    return merge(spans)


def codes_hits(text: str) -> Iterator[Hit]:
    """Each code of a list under a "recovery codes" heading, and app passwords."""
    low = text.lower()
    if len(low) != len(text):
        return
    for start, end in _near(text, low, "code", 30, 600):
        yield from _code_lists(text, start, end)
    for start, end in _near(text, low, "pass", 40, 100):
        for m in lazy(_APP_PW_SRC, NOCASE).finditer(text, start, end):
            v = m.group(1)
            if len(set(v.replace(" ", "").replace("-", ""))) > 4:
                yield m.start(1), m.end(1), WHOLE


def _code_lists(text: str, start: int, end: int) -> Iterator[Hit]:
    for m in lazy(_CODES_SRC, NOCASE).finditer(text, start, end):
        s = m.start("list")
        for c in _CODE_RX.finditer(m.group("list")):
            if any(ch.isdigit() for ch in c.group()):  # (whole: a code is short)
                yield s + c.start(), s + c.end(), WHOLE


def _before(words: tuple[str, ...], lit: str, rest: str) -> tuple[Anchor, ...]:
    """``lit`` (both cases) right after one of ``words``' last four letters and a space."""
    tails = sorted({w[-4:] for w in words})
    return tuple(
        Anchor("f", c, f"(?<={caseless(t)}[ \\t-]{c})(?={rest})")
        for t in tails
        for c in (lit, lit.upper())
    )


_CODES_ANCHORS = _before(
    ("recovery", "backup", "one-time", "emergency", "scratch", "2fa", "mfa", "two-factor",
     "verification"), "c", "[oO][dD][eE]",
) + _before(("app", "specific", "application"), "p", "[aA][sS][sS]")  # fmt: skip

SPOKEN_RULES = (
    Rule("password-in-words", "", _lang_anchors(), finder=lang_hits),
    Rule("call-password", "", _CALL_ANCHORS, finder=call_hits),
    Rule("aws-configure-prompt", _AWS_PROMPT, plain("[", r"(?<=[yYnN] \[)(?=[^\]\r\n]{0,60}\]:)")),
    Rule("codes", "", _CODES_ANCHORS, finder=codes_hits),
)  # fmt: skip
