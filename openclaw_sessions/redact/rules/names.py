"""Which names hold secrets, and which values after them are real ones (redaction's judgement).

The generic families (``NAME: value``, ``NAME=value``, ``--flag value``, ``<name>value</name>``)
find a secret-sounding name cheaply in the regex; this module then decides, in Python and only
at those few places, whether the name really is one and whether the value is a credential or
ordinary text. What it keeps readable (so search still finds it): references and placeholders
(``$DB_PASSWORD``, ``${X}``, ``{{ vault }}``, ``<your-token>``), paths, code (``os.environ[…]``,
``config.token``, ``getToken()``), type names, booleans and other stop words, and prose: a plain
word followed by more words on its line ("the token: it expires hourly", "password: see vault").
What it masks: anything else, quoted or not, including plain words at the end of a line
("password: changeme").

Pure: stdlib ``re`` only (compiled through recache: the compiled code is reused across runs).
"""

from __future__ import annotations

import re
from functools import lru_cache

from openclaw_sessions.redact import recache
from openclaw_sessions.redact.syntax import lazy

Span = tuple[int, int]

# The secret words a name may end with (before an optional chain of harmless suffixes).
KEY_JOINS = ("secret", "access", "account", "auth", "client", "app", "application", "service",
             "master", "encryption", "encrypt", "signing", "sign", "license", "licence", "shared",
             "sharedaccess", "admin", "root", "storage", "db", "database", "consumer", "deploy",
             "subscription", "hmac", "webhook", "api", "private", "priv", "x-api", "functions",
             "host", "session-secret")  # fmt: skip
WORDS = ("password", "passwd", "pass", "passphrase", "passcode", "passkey", "pwd", "pw",
         "secret", "token", "auth", "bearer", "credential", "credentials", "creds", "apikey",
         "psk", "authident", "jwt",
         "privkey", "mnemonic", "seedphrase", "passwort", "kennwort", "contraseña",
         "contrasena", "senha", "motdepasse", "wachtwoord", "parola", "hasło", "haslo", "heslo",
         "jelszó", "salasana", "lösenord", "losenord", "şifre", "пароль", "токен", "密码", "密碼",
         "口令", "令牌", "密钥", "秘钥", "私钥", "パスワード", "トークン", "秘密鍵",
         "비밀번호", "토큰", "mật khẩu", "mot de passe")  # fmt: skip
JOINED = (
    tuple(f"{a}{s}key" for a in KEY_JOINS for s in ("", "_", "-", ".", " "))
    + tuple(f"{a}{s}phrase" for a in ("seed", "recovery", "secret") for s in ("", "_", "-", " "))
    + ("client-key-data", "client_key_data", "apiキー", "api キー")
    + ("key_material", "key-material", "keymaterial", "key material")
)
# Harmless suffixes after the secret word (SECRET_KEY_BASE, JWT_SECRET_B64, DB_PASSWORD_PROD):
# few, because every "=" and ":" of every text tries them.
SUFFIXES = ("key", "base", "b64", "base64", "hex", "value", "data", "hash", "enc", "raw", "old",
            "new", "prod", "dev", "test", "live", "1", "2", "v2")  # fmt: skip

_ALL_WORDS = sorted({w.lower() for w in WORDS + JOINED}, key=lambda w: (-len(w), w))
_NAME_SRC = (  # compiled when a name is first judged (Unicode case: "ПАРОЛЬ" is one)
    r"(?P<pre>.*?)(?P<word>" + "|".join(re.escape(w) for w in _ALL_WORDS) + r")"
    r"(?P<chain>(?:[_.\- ](?:" + "|".join(SUFFIXES) + r"))*)\Z"
)
# Words before the secret word that make the name a count, a switch or a type, not a secret.
_NOT_BEFORE = frozenset(
    "max min num total count input output prompt completion cached reasoning estimated "
    "remaining used show hide is has use uses allow require requires required enable enabled "
    "disable disabled no skip ask public publishable pub bos eos pad unk mask sep cls stop "
    "special start end image audio video vision".split()
)
_NOT_PASS = ("bypass", "compass", "surpass", "trespass", "overpass", "underpass")
_CAMEL = recache.compile(r"(?<=[a-z0-9])(?=[A-Z])")

# Values that are words, not secrets (compared lower-cased, trailing punctuation stripped).
STOP_VALUES = frozenset(
    "none null nil undefined true false yes no on off required optional str string int integer "
    "bool boolean bytes number any object secret secrets password passwords passwd token "
    "tokens key keys apikey api_key redacted hidden masked empty unset todo tbd n/a na see the "
    "a an is it to from in at by of for and or not set here there below above your my our this "
    "that same include omit same-origin inherit env environment file vault prompt ask stdin "
    "default auto basic bearer digest oauth oauth2 jwt plain plaintext md5 sha256 "
    "scram-sha-256 trust peer ident cert ldap kerberos enabled disabled valid invalid expired "
    "missing present ok error fail failed success provided needed configured sensitive "
    "placeholder example xxx changeit".split()
)
_REF = recache.compile(
    r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$[({].*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{.*|\{%.*|<[^<>]*>"
    r"|\[[^\[\]]*\]|\*[A-Za-z_][A-Za-z_-]*|![A-Za-z]+(?:::[A-Za-z]+)?|\{[A-Za-z_][\w.]*\}|[{\[(]"
)
# A Kubernetes object that holds a secret, named as such ("db-credentials", "app-secrets")
_SECRET_OBJECT = recache.compile(
    r"[a-z0-9]+(?:[-.][a-z0-9]+)*[-.](?:creds|credentials?|secrets?|tls|certs?|keys?|auth|env)"
    r"(?:[-.][a-z0-9]+)*|(?:creds|credentials?|secrets?|tls)(?:[-.][a-z0-9]+)+"
)
# A reference to a value held elsewhere, as a whole assignment value: ${X}, $X, $(cmd …),
# ${{ secrets.X }}, process.env.X, import.meta.env.X, os.environ[…], ENV['X'], System.getenv(…)
_REFERENCE = recache.compile(
    r"\$(?:\{\{.*|\(.*|\{[A-Za-z_][^}]*\}?|[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?:process\.env|import\.meta\.env|Deno\.env|os\.environ|os\.getenv|ENV|System\.getenv"
    r"|Environment\.GetEnvironmentVariable|getenv)\b.*"
    # identifiers of a secret held elsewhere, and public ones: a Secrets Manager (any) ARN, a
    # GCP Secret Manager path, a Stripe publishable key, Secret::get('…'), a format field
    r"|arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:.*|projects/[^/\s]+/secrets/.*"
    r"|pk_(?:live|test)_[A-Za-z0-9]+|[A-Z][A-Za-z0-9_]*::[A-Za-z_]\w*\(.*|\{[A-Za-z_][\w.]*\}?"
    # code: a member of a settings object, a call without arguments
    r"|(?:self|this|config|cfg|conf|settings|options|opts|props|params|args|ctx|context|env"
    r"|secrets|credentials|creds|app|request|req|vars|values|keys)\.[A-Za-z_][\w.]*(?:\(.*)?"
    r"|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\(\)",
    re.DOTALL,
)
_TEMPLATE = recache.compile(r"(?i)your[_-]|[_-]here\b|placeholder|changeme[_-]|xxxx|<[a-z_-]+>")
_PATH = recache.compile(r"(?:~|\.\.?)?(?:/[\w.@-]+)+/?|[A-Za-z]:\\.*|\\\\.*")
_CALL = recache.compile(r"[A-Za-z_][\w.]*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PLAIN_WORD = recache.compile(r"[^\W\d_](?:[^\W\d_]|')*")  # a word of letters, in any script
_NEXT_WORD = recache.compile(r"[ \t]+[^\s#]")  # more on the line: the value was a word of prose
_CONSTANT = recache.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # an environment variable's name
CLOSERS = ")]}>"  # a value in code ends before these
PROSE_END = ".,;:" + CLOSERS  # after "key: value" in a sentence, before these too
_B64ISH = recache.compile(r"[A-Za-z0-9+/=_\-]{16,}")
_CONT = recache.compile(r"[ \t]*\r?\n[ \t]*([A-Za-z0-9+/=_\-]{20,})[ \t]*(?=\r?\n|\Z)")


_SEG = recache.compile(r"[^0-9A-Za-z\u0080-\uffff]+")


def segments(name: str) -> list[str]:
    return [s for s in _SEG.split(_CAMEL.sub("_", name).lower()) if s]


@lru_cache(maxsize=4096)  # the same few names come back all the time
def secret_name(name: str) -> bool:
    """Does ``name`` (a key, flag, header or tag, without quotes) name a secret?"""
    m = lazy(_NAME_SRC, re.IGNORECASE | re.DOTALL).match(name.strip(" \t-$@:*_"))
    if m is None:
        return False
    if (m.group("pre") + m.group("word")).lower().endswith(_NOT_PASS):
        return False
    return not any(s in _NOT_BEFORE for s in segments(m.group("pre")))


@lru_cache(maxsize=1024)
def phrase_name(name: str) -> bool:
    """A passphrase or a wallet's words: the whole rest of the line is the secret."""
    low = name.lower()
    return low.endswith(("phrase", "mnemonic")) or "phrase" in segments(name)[-1:]


def placeholder(value: str) -> bool:
    """A reference, template, placeholder or stop word: nothing to hide."""
    v = value.strip()
    return (
        not v
        or v.lower() in STOP_VALUES
        or len(set(v)) == 1
        or bool(_REF.fullmatch(v) or _CONSTANT.fullmatch(v) or _TEMPLATE.search(v))
        or bool(_SECRET_OBJECT.fullmatch(v))
        or reference(v)
    )


# ${NAME:-default}, ${NAME-default}, ${NAME:=default}: the default is a literal value
DEFAULTED_SRC = r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^}]*)\}?"
_DEFAULTED = recache.compile(DEFAULTED_SRC)


def reference(value: str) -> bool:
    """A value that names where the secret is (``${{ secrets.X }}``, ``process.env.X``,
    ``$TOKEN``, ``$(gh auth token)``): kept readable by every family; but not one that
    carries a literal default (``${TOKEN:-s3cr3t…}``: upstream masks it, the default is a
    value)."""
    v = value.strip("\"'` \t")
    d = _DEFAULTED.match(v)
    if d and d.group(1).strip() and not placeholder(d.group(1)):
        return False
    return bool(_REFERENCE.match(v))


def is_code_or_path(v: str) -> bool:
    return bool(_CALL.fullmatch(v)) or _path(v)


def _path(v: str) -> bool:
    if not _PATH.fullmatch(v):
        return False
    return v[0] in "~.\\" or v[1:2] == ":" or v.count("/") > 1 or "." in v


def unquoted_value(
    text: str, start: int, end: int, *, prose: bool = True, trail: str = CLOSERS
) -> Span | None:
    """The span of an unquoted value ``text[start:end]`` to mask, or None to keep it; ``trail``:
    characters that end it rather than belong to it."""
    if placeholder(text[start:end]) or text.endswith(":", 0, end):  # ("{token}" before its
        return None  # "}" is trimmed; "type:" is the next key)
    end = start + max(1, len(text[start:end].rstrip(trail)))
    v = text[start:end]
    if len(v) < 3 or placeholder(v) or _CALL.fullmatch(v) or _path(v) or v.endswith(":"):
        return None
    if prose and _PLAIN_WORD.fullmatch(v) and _NEXT_WORD.match(text, end):
        return None
    if _B64ISH.fullmatch(v):
        while m := _CONT.match(text, end):  # a long token wrapped over more lines
            end = m.end(1)
    return start, end


def line_value(text: str, start: int) -> Span | None:
    """From ``start`` to the end of its line, less trailing spaces and a `` #`` comment."""
    end = text.find("\n", start)
    line = text[start : len(text) if end < 0 else end]
    line = re.sub(r"[ \t]+#.*\Z", "", line).rstrip()
    return None if placeholder(line) else (start, start + len(line))


def quoted_value(text: str, start: int, end: int) -> Span | None:
    return None if placeholder(text[start:end]) else (start, end)


def credential_like(v: str) -> bool:
    """For values after prose ("the password is …"): a digit or a symbol, not a plain word."""
    return len(v) >= 6 and not placeholder(v) and bool(re.search(r"[0-9]|[^\w\s]", v))
