"""Secrets whose name and value are apart, or that have no name at all (issues 33 and 34): an
environment entry given as a name/value pair (Kubernetes ``- name: DB_PASSWORD`` / ``value:``,
ECS and Compose JSON, ``Name=…,Value=…``), a JWK's private members, the signature parameters of
Digest, Hawk and AWS Signature V4 authorization headers, OpenClaw's media token and a bare AWS
secret access key.

Facts: the Kubernetes EnvVar and ECS KeyValuePair schemas; RFC 7517/7518 (JWK members ``d``,
``p``, ``q``, ``dp``, ``dq``, ``qi``, ``k``); RFC 7616 (Digest ``response``, ``cnonce``),
Hawk (``mac``) and AWS SigV4 (``Signature=``); upstream's own AWS secret access key matcher
(40 characters of ``[A-Za-z0-9/+=]`` with both cases and a digit or symbol, not hex, not
inside a URL) and media token name. The judgement of names and values is ``names``'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from openclaw_sessions.redact.syntax import (
    NOCASE,
    TOKEN,
    WHOLE,
    Anchor,
    Hit,
    Rule,
    Span,
    compiled,
    lazy,
    plain,
    prefix,
)

from . import names

# --- name/value environment pairs ---------------------------------------------------------------
_Q = r"[\"']?"
_PAIR_VAL = r"(?:\"([^\"\r\n]*)\"|'([^'\r\n]*)'|([^\s,}\]#\"'][^\s,}\]]*))"
_NAME = r"(?P<n>[A-Za-z_][A-Za-z0-9_.\-]{0,80})"
_BETWEEN = r"[ \t]*(?:,[ \t]*(?:\r?\n[ \t]*)?|\r?\n[ \t]*(?:-[ \t]+)?)"
_ENV_PAIR = (
    rf"(?<![A-Za-z0-9_]){_Q}name{_Q}[ \t]*[:=][ \t]*{_Q}{_NAME}{_Q}{_BETWEEN}"
    rf"{_Q}value{_Q}[ \t]*[:=][ \t]*{_PAIR_VAL}"
    rf"|(?<![A-Za-z0-9_]){_Q}value{_Q}[ \t]*[:=][ \t]*{_PAIR_VAL}{_BETWEEN}"
    rf"{_Q}name{_Q}[ \t]*[:=][ \t]*{_Q}(?P<n2>[A-Za-z_][A-Za-z0-9_.\-]{{0,80}}){_Q}"
)


def _env_pair_check(m: re.Match[str]) -> Span | None:
    name = m.group("n") or m.group("n2") or ""
    if not names.secret_name(name):
        return None
    # groups: n, its value's three forms, the three forms of the reversed pair's value, n2
    g = next((i for i in (2, 3, 4, 5, 6, 7) if m.group(i) is not None), 0)
    if not g:
        return None
    s, e = m.span(g)
    if g in (4, 7):
        return names.unquoted_value(m.string, s, e, prose=False)
    return names.quoted_value(m.string, s, e) if e > s else None


# --- JWK private members ------------------------------------------------------------------------
_JWK = r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]*:[ \t]*\"([A-Za-z0-9_\-]{16,})\""


def _jwk_check(m: re.Match[str]) -> Span | None:
    """Only inside a JWK: ``"kty"`` within the object around it."""
    text, s = m.string, m.start()
    window = text[max(0, s - 2000) : m.end() + 2000]
    return m.span(1) if '"kty"' in window else None


# --- Digest, Hawk and AWS SigV4 authorization parameters -----------------------------------
_AUTH_LINE = compiled(
    r"(?<![A-Za-z0-9_-])"
    r"(?:(?-i:[Dd]igest|DIGEST|[Hh]awk|HAWK)|AWS4-(?:HMAC|ECDSA-P256)-SHA256)[ \t]+"
    r"[^\r\n]{0,4000}",
    NOCASE,
)
_AUTH_PARAM = (
    r"(?<![A-Za-z0-9_-])(?:response|cnonce|signature|mac)[ \t]*=[ \t]*"
    r"(?:\"([^\"\r\n]+)\"|([^\s,\"]+))"
)


def auth_param_hits(text: str) -> Iterator[Hit]:
    for line in _AUTH_LINE.finditer(text):
        for m in lazy(_AUTH_PARAM, NOCASE).finditer(text, line.start(), line.end()):
            g = 1 if m.group(1) is not None else 2
            yield m.start(g), m.end(g), WHOLE


# --- a bare AWS secret access key ---------------------------------------------------------------
_RUN = compiled(r"(?<![A-Za-z0-9/+=_])[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=_])", re.ASCII)
_AWS_VALUE = compiled(
    r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])(?=[^0-9/+=]*[0-9/+=])(?=[^G-Zg-z/+=]*[G-Zg-z/+=])", re.ASCII
)


def aws_secret_hits(text: str) -> Iterator[Hit]:
    """Upstream's matcher: a 40-character run, not part of a URL, not a data URL's payload."""
    for m in _RUN.finditer(text):
        s = m.start()
        token_start = max(text.rfind(c, 0, s) for c in " \t\r\n\"'`<([{") + 1
        before = text[token_start:s]
        if "://" in before or before.endswith(";base64,"):
            continue
        if _AWS_VALUE.match(m.group()):
            yield s, m.end(), TOKEN


# --- a form or query key spelled with percent escapes ----------------------------------------
_ENCODED_PAIR = compiled(
    r"(?:(?<=[?&;])|(?<![^\s]))((?:[A-Za-z0-9_.\-]|%[0-9A-Fa-f]{2}){1,120})=([^&#\s\"'<>]+)",
    re.ASCII,
)


def encoded_key_hits(text: str) -> Iterator[Hit]:
    """``client%5Fsecret=…``: the key decoded names a secret (upstream decodes form keys)."""
    for m in _ENCODED_PAIR.finditer(text):
        key = m.group(1)
        if "%" not in key:
            continue
        name = unquote(key)
        if names.secret_name(name) or name.lower().replace("-", "_") in ("sig", "jwt"):
            if (v := names.unquoted_value(text, *m.span(2), prose=False)) is not None:
                yield v[0], v[1], WHOLE


# --- OpenClaw's media token -------------------------------------------------------------------
_MMS = (
    r"(?<![A-Za-z0-9])__openclaw_mms_token_[A-Za-z0-9_\-]*[ \t]*[=:][ \t]*[\"']?"
    r"([^\s&#\"'<>,;]+)"
)

PAIR_RULES = (
    Rule("env-pair", _ENV_PAIR, plain("v", r"(?=alue[\"']?[ \t]*[:=])")
         + plain("V", r"(?=[aA][lL][uU][eE][\"']?[ \t]*[:=])"), check=_env_pair_check),
    Rule("jwk-private", _JWK, (Anchor("r", ":", r"(?=[ \t]*\"(?:[dpqk]|pd|qd|iq)\")"),),
         check=_jwk_check, need=('"kty"',)),
    Rule("auth-params", "", plain("g", r"(?<=[dD]ig)(?=est[ \t])")
         + plain("G", r"(?<=DIG)(?=EST[ \t])") + plain("4", r"(?<=[wW][sS]4)(?=-)")
         + plain("w", r"(?<=[hH]aw)(?=k[ \t])") + plain("W", r"(?<=HAW)(?=K[ \t])"),
         finder=auth_param_hits),
    Rule("form-encoded-key", "", plain("%", r"(?=[0-9A-Fa-f]{2}[^=&\s]{0,120}=)"),
         finder=encoded_key_hits),
    Rule("openclaw-media-token", _MMS, prefix("_", "__openclaw_mms", short=True)),
)  # fmt: skip
# Upstream's bare AWS secret access key: no literal to anchor on, so the engine runs it on every
# text of 40 characters or more (one pass over runs of key characters).
AWS_SECRET_RULE = Rule("aws-secret-bare", _RUN.pattern, (), finder=aws_secret_hits)
