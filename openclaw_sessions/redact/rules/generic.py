"""The families beyond upstream's: any name that ends in a secret word (``DB_PASS=…``,
``"API Key": …``, ``пароль: …``), query-string and XML keys, secret flags, ``echo … |
--password-stdin``, URLs' user info, passwords in prose and in config lines, netrc, pgpass, SQL,
XML, PuTTY keys, base64 PEM, Discord bot tokens.

The facts come from gitleaks' default rules, trufflehog's detectors and Yelp's detect-secrets
plugins; the regexes are ours. The judgement of names and values is ``names``'.
"""

from __future__ import annotations

import re

from openclaw_sessions.redact.syntax import (
    NOCASE,
    TOKEN_CLS,
    Anchor,
    Field,
    Rule,
    Span,
    caseless,
    plain,
    prefix,
    spellings,
    trie,
)

from . import names
from .tools import TOOL_GATE, VAL, placeholder_check, tool_hits
from .upstream import (
    CASED,
    CLI_GATE,
    URL_GATE,
)

_NAME_CH = r"[A-Za-z0-9_.\-$@]"
_KEY_TAIL = re.compile(r"(?:\\*[\"'`])?(?:\*\*|__)?[ \t]*\Z")
# NAME: value / NAME=value for any name that ends in a secret word (DB_PASS, SECRET_KEY_BASE,
# db_password, PGPASSWORD, "API Key", пароль…), any case, quoted, escaped, in a YAML block
# scalar, or bare (then ``names`` tells a credential from prose and references).
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


def _block(text: str, key_start: int, start: int, end: int) -> Span | None:
    """A YAML block scalar's lines, while they are indented more than the key."""
    key_line = text[text.rfind("\n", 0, key_start) + 1 : key_start]
    indent = len(key_line) - len(key_line.lstrip(" \t"))
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


_FORM_KEYS = spellings(
    "access[-_]?token", "auth[-_]?token", "hook[-_]?token", "refresh[-_]?token", "id[-_]?token",
    "api[-_]?key", "client[-_]?secret", "app[-_]?secret", "private[-_]?key", "x[-_]api[-_]key",
    "aws[-_]?secret[-_]?access[-_]?key", "x[-_]?amz[-_]?security[-_]?token",
    "x[-_]auth[-_]token", "card[-_]?number", "security[-_]?code",
) + ("token", "password", "pass", "passwd", "secret", "credential", "authorization", "jwt",
     "auth", "signature", "sig", "cvc", "cvv")  # fmt: skip


def _form_check(m: re.Match[str], key_start: int) -> Span | None:
    s, e = m.span(1)
    v = m.string[s:e]
    if v[:1] in "\"'" and v[-1:] == v[:1] and len(v) > 1:
        s, e = s + 1, e - 1  # (the quotes stay)
    return names.unquoted_value(m.string, s, e, prose=False)


def _random_key_check(m: re.Match[str], key_start: int) -> Span | None:
    v = m.group(1)
    mixed = any(c.isdigit() for c in v) and any(c.isupper() for c in v) and v.lower() != v
    return m.span(1) if mixed else None


def _xml_kv_check(m: re.Match[str], key_start: int) -> Span | None:
    k = re.match(r"(?:key|name)[ \t]*=[ \t]*\"([^\"]*)\"", m.string[key_start:], re.I)
    return names.quoted_value(m.string, *m.span(1)) if k and names.secret_name(k[1]) else None


GENERIC_FIELDS: tuple[Field, ...] = (
    # ?key=… &code=… &sig=… (Azure SAS, Google API keys, function keys) in a query string
    Field("query-secret", "=", ("key", "code", "sig", "signature", "sv-sig", "x-amz-signature",
          "x-goog-signature", "x-amz-security-token"), "", r"(?=[?&;])",
          r"([^&#\s\"'<>]+)", check=_query_check, whole=True),
    # upstream's form-body secret keys, and the headers' names, as any pair of a query string
    # or form body (upstream masks these values whole)
    Field("form-secret", "=", _FORM_KEYS, "", r"(?=[?&;])",
          r"(\"[^\"&#\s<>]+\"|'[^'&#\s<>]+'|[^&#\s\"'<>]+)",
          check=_form_check, whole=True),
    # <add key="Password" value="…"/>, <property name="db.password" value="…"/>
    Field("xml-key-value", "=", ("value",), "[ \t]*",
          r"[ \t]+\"[^\"\r\n]{1,80}\"[ \t]*=[ \t]*(?:yek|eman)(?![A-Za-z0-9_:.-])",
          r"[ \t]*\"([^\"\r\n]+)\"", check=_xml_kv_check),
    # a zuliprc's "key=…" (and any "key=" alone on its line whose value is a random key)
    Field("key-line", "=", ("key",), "[ \t]*", r"(?=[ \t]*(?:\n|\Z))",
          r"[ \t]*([A-Za-z0-9]{24,64})[ \t]*(?=\r?\n|\Z)", check=_random_key_check),
    Field("secret-name", "=:", names.WORDS + names.JOINED, _KV_GAP,
          _NAME_CH + "*+(?!" + _NAME_CH + ")", _KV_VALUE, NOCASE, _kv_check, _KV_CHAIN),
)  # fmt: skip


def _flag_check(m: re.Match[str]) -> Span | None:
    """A secret's flag: its value is group 2 or 3 (quoted) or 4 (bare), the one that matched."""
    if not names.secret_name(m.group(1)):
        return None
    for g in (2, 3):
        if m.group(g) is not None:
            return names.quoted_value(m.string, *m.span(g))
    return names.unquoted_value(m.string, *m.span(4)) if m.group(4) is not None else None


def _prose_check(m: re.Match[str]) -> Span | None:
    if m.group(5) is None:
        return placeholder_check(m)
    s, e = m.span(5)
    e = s + max(1, len(m.string[s:e].rstrip(".,;:!?)")))
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


def _token_user_check(m: re.Match[str]) -> Span | None:
    v = m.group(1)
    tokenish = any(c.isdigit() for c in v) and any(c.isalpha() for c in v) and "." not in v
    return m.span(1) if tokenish or len(v) >= 32 else None


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
# Only what the rule itself needs: whatever follows the value (a table's "|", a flag) is no
# condition of the rule, so it may be none of the anchor's.
_PW_NETRC = _password_at("p", r"(?<=\sp)(?=assword[ \t]+\S)")
_CHPASSWD = _password_at("p", "(?<=chp)(?=asswd)")


GENERIC_RULES = (
    Rule("url-userinfo",
         r"(?<=[A-Za-z0-9])://[^/\s:@]*:([^/\s]+?)@(?=[^@/\s]*(?:[/?#\s'\"),;\]]|\Z))",
         URL_GATE, check=placeholder_check),
    Rule("url-token-user", r"(?<=[A-Za-z0-9])://([A-Za-z0-9_~%+.\-]{16,})@(?=[A-Za-z0-9\[])",
         (Anchor("r", ":", r"(?<=//:)(?<=[A-Za-z0-9_~%+.\-]{16}//:)"),), check=_token_user_check),
    Rule("cli-secret-flag", r"-(?<![A-Za-z0-9_./-]-)-(" + _SECRET_FLAG
         + r"[A-Za-z][A-Za-z0-9_.-]*)(?:=|[ \t]+(?!-))" + VAL, CLI_GATE,
         check=_flag_check),
    Rule("cli-tools", "", TOOL_GATE, finder=tool_hits),
    Rule("stdin-secret", r"(?<![A-Za-z0-9_-])(?:echo|printf)[ \t]+(?:-[A-Za-z]+[ \t]+)*"
         r"(?:'%s(?:\\n)?'[ \t]+|\"%s(?:\\n)?\"[ \t]+)?" + VAL + r"[ \t]*\|[^\n]*?"
         r"(?:--password-stdin|--stdin\b|--with-token\b"
         r"|\bsudo[ \t]+(?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*S\b|\bchpasswd\b)",
         CLI_GATE + TOOL_GATE + _CHPASSWD, check=placeholder_check, need=("echo", "printf")),
    Rule("stdin-herestring", r"-(?<![A-Za-z0-9_./-]-)-(?:password-stdin|stdin|with-token"
         r"|token-stdin)\b[ \t]*<<<[ \t]*" + VAL, CLI_GATE, check=placeholder_check),
    Rule("aws-configure-set", r"aws[ \t]+configure[ \t]+set[ \t]+(?:--?\S+[ \t]+)*"
         r"(?:aws_secret_access_key|aws_session_token)[ \t]+" + VAL,
         prefix("_", "aws_secret_access", then="(?<=yek_)", short=True) + prefix("_",
         "aws_session",
         then="(?<=nekot_)", short=True), check=placeholder_check),
    Rule("password-prose", r"p(?<![A-Za-z0-9_]p)(?:assword|asswd|assphrase|wd)"
         r"(?:[ \t]+(is|was)(?:[ \t]*:)?)?[ \t]+(?:'([^'\r\n]{1,200})'|\"([^\"\r\n]{1,200})\""
         r"|`([^`\r\n]{1,200})`|(?<=s |: )(\S+))", _PW_PROSE, check=_prose_check),
    Rule("config-line", r"(?m)^[ \t]*(?:password|passwd|passphrase|pwd|(?-i:requirepass|rootpw))"
         r"[ \t]+([^\s=:'\"`][^\s]*)[ \t]*\r?$", _PW_LINE, check=_line_check),
    Rule("netrc", CASED.format(r"(?<![A-Za-z0-9_])(?:machine[ \t]+\S+|default)(?:\s+(?:login|"
         r"account|port)[ \t]+\S+)*\s+password[ \t]+(\S+)"), _PW_NETRC, check=placeholder_check,
         need=("machine", "default")),
    # A .pgpass line, alone on its line or as a one-cell Markdown table row.
    Rule("pgpass", r"(?m)^[ \t]*(?:\|[ \t]*)?[^:\s#|][^:\s]*:(?:[0-9]{1,5}|\*):[^:\s]+:[^:\s]+:"
         r"(\S+?)[ \t]*(?:\|[ \t]*)?\r?$",
         # at the colon before the password: three fields, then the line's start (a timestamp's
         # colons, which the port's colon also has, are not enough)
         (Anchor("r", ":", r"(?=[^:\s]+:[^:\s]+:(?:[0-9]{1,5}|\*):[^:\s]+[ \t]*(?:\|[ \t]*)?"
                           r"(?:\n|\Z))"),),
         check=placeholder_check),
    Rule("sql-identified", r"(?<![A-Za-z0-9_])(?:identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by"
         r"|password[ \t]+by)[ \t]+(?:password[ \t]*)?(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\")",
         plain("b", r"(?<=[dD] b)(?=[yY][ \t]+['\"])") + plain("B",
         r"(?<=[dD] B)(?=[yY][ \t]+['\"])"),
         check=placeholder_check),
    Rule("xml-secret", r"<(?P<n>[A-Za-z_][A-Za-z0-9_:.-]{0,60})>(?P<v>[^<\r\n]{1,300})</(?P=n)>",
         plain("<", "(?=/[A-Za-z0-9_:.-]{0,40}?(?:" + "|".join(caseless(w) for w in (
             "pass", "pwd", "secret", "token", "key", "auth", "cred", "mnemonic")) + "))"),
         check=_xml_check),
    Rule("putty", r"PuTTY-User-Key-File-[0-9]:[^\r\n]*(?:\r?\n[^\r\n]*){0,12}?\r?\n"
         r"Private-Lines:[ \t]*[0-9]+[ \t]*\r?\n"
         r"((?:[A-Za-z0-9+/=]{1,100}\r?\n)*[A-Za-z0-9+/=]{1,100})(?![A-Za-z0-9+/=-])(?=\r?\n|\Z)",
         prefix("-", "putty")),
    Rule("pem-base64", CASED.format(r"(?<![A-Za-z0-9+/])(LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?"
         r"(?:UFJJVkFURSBLRV|BSSVZBVEUgS0VZ|QUklWQVRFIEtFWS)[A-Za-z0-9+/=]{16,}"
         r"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{16,})*)"), plain("1", "(?<=LS0tLS1)(?=CRUdJTi)")),
    Rule("discord-bot-token", r"(?<![A-Za-z0-9_-])([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\."
         r"[A-Za-z0-9_-]{27,38})(?![A-Za-z0-9_-])",
         (Anchor("r", ".", rf"(?<=\.{TOKEN_CLS}{{6}}\.)(?={TOKEN_CLS}{{24}})"),)),
)  # fmt: skip
