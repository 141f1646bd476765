"""Secrets in the shapes of files and codes: credential tables (the CSV a cloud console
downloads, a TSV, a Markdown table) whose header names a secret column, wallet keys (WIF with
its checksum, a key file as a JSON byte array), Wi-Fi QR strings, static key blocks (OpenVPN),
composer's ``auth.json``, Windows-style password switches (``cmdkey /pass:``, ``xfreerdp /p:``)
and environment names with a secret word inside (``JWT_SECRET_B64URL=…``).

Facts from gitleaks' and trufflehog's rules, detect-secrets' plugins and the formats' own
documents (Base58Check, the ZXing Wi-Fi QR syntax); the code is ours.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from openclaw_sessions.redact.syntax import (
    ASCII,
    BLOCK,
    TOKEN,
    Hit,
    Rule,
    Span,
    compiled,
    find_all,
    line_end,
    plain,
    prefix,
    sha256,
)

from . import names
from .context import _gate_anchors
from .tools import placeholder_check
from .upstream import CASED

# --- credential tables ------------------------------------------------------------------------
# A header cell (not the first) that holds one of these words and is a secret's name ("Secret
# access key", "Password", "AccessKey Secret"); its anchors are the gate letters' (context.py).
_COLUMN_WORDS = (
    "secret",
    "password",
    "passwd",
    "pwd",
    "token",
    "key",
    "credential",
    "creds",
    "psk",
)
_RULE_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}")


def _cells(line: str, delim: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of ``line`` (a Markdown row's outer pipes dropped)."""
    spans, start = [], 0
    for part in line.split(delim):
        spans.append((start, start + len(part)))
        start += len(part) + 1
    if delim == "|":
        if spans and not line[spans[0][0] : spans[0][1]].strip():
            spans = spans[1:]
        if spans and not line[spans[-1][0] : spans[-1][1]].strip():
            spans = spans[:-1]
    return spans


def _inner(line: str, s: int, e: int) -> tuple[int, int]:
    cell = line[s:e]
    s += len(cell) - len(cell.lstrip(" \t\"'"))
    return s, s + len(line[s:e].rstrip(" \t\"'\r"))


def _secret_column(name: str) -> bool:
    low = name.lower()
    return any(w in low for w in _COLUMN_WORDS) and names.secret_name(name)


def _delimiter(line: str) -> str:
    if line.lstrip().startswith("|"):
        return "|"
    return "\t" if "\t" in line else "," if "," in line else ""


def table_hits(text: str) -> Iterator[Hit]:
    """The secret columns' cells of the rows under a header line that names them."""
    if not ("," in text or "\t" in text or "|" in text):
        return
    n, low = len(text), text.lower()
    if len(low) != n:
        return
    starts = sorted({text.rfind("\n", 0, i) + 1 for w in _COLUMN_WORDS
                     for i in find_all(low, w)})  # fmt: skip
    done = 0
    for pos in starts:
        if pos < done:
            continue
        le = line_end(text, pos)
        header, pos = text[pos:le], le + 1
        delim = _delimiter(header)
        if not delim:
            continue
        cols = _cells(header, delim)
        secret = {k for k, (s, e) in enumerate(cols) if k and e - s <= 40
                  and _secret_column(header[slice(*_inner(header, s, e))])}  # fmt: skip
        while secret and pos < n:
            end = line_end(text, pos)
            row = text[pos:end]
            cells = _cells(row, delim)
            if delim == "|" and _RULE_LINE.match(row):
                pos = end + 1
                continue
            if not row.strip() or len(cells) != len(cols):
                break
            for k in secret:
                s, e = _inner(row, *cells[k])
                if " " not in row[s:e] and names.credential_like(row[s:e]):
                    yield pos + s, pos + e, TOKEN
            pos = end + 1
        done = pos


# --- wallets ------------------------------------------------------------------------------------
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58)}


def b58check(token: str) -> bytes | None:
    """The payload of a Base58Check string, or None if its checksum does not hold."""
    n = 0
    for c in token:
        n = n * 58 + _B58_INDEX[c]
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(token) - len(token.lstrip("1"))) + raw
    if len(raw) < 5 or sha256(sha256(raw[:-4]).digest()).digest()[:4] != raw[-4:]:
        return None
    return raw[:-4]


def _wif_check(m: re.Match[str]) -> Span | None:
    """A WIF private key (Bitcoin's main net, compressed: K or L): version 0x80, 32 bytes, 0x01.
    (The legacy uncompressed form starts with a 5: a pass over every digit 5 costs too much.)"""
    payload = b58check(m.group(1))
    if payload is None or payload[0] != 0x80:
        return None
    ok = len(payload) == 33 or (len(payload) == 34 and payload[-1] == 1)
    return m.span(1) if ok else None


def _byte_array_check(m: re.Match[str]) -> Span | None:
    values = re.findall(r"[0-9]+", m.group(1))
    return m.span(1) if len(values) == 64 and all(int(v) < 256 for v in values) else None


_B58_CLS = "[1-9A-HJ-NP-Za-km-z]"

# --- the rest -----------------------------------------------------------------------------------
_STATIC_BEGIN = compiled(r"-----BEGIN [A-Za-z0-9 ]{0,40}?Static key V[0-9]-----", ASCII)
_STATIC_END = compiled(r"-----END [A-Za-z0-9 ]{0,40}?Static key V[0-9]-----", ASCII)


def static_key_hits(text: str) -> Iterator[Hit]:
    """OpenVPN's static key blocks, kept at their BEGIN and END lines."""
    for b in _STATIC_BEGIN.finditer(text):
        e = _STATIC_END.search(text, b.end())
        if e:
            yield b.start(), e.end(), BLOCK


_INSIDE_WORDS = ("secret", "token", "password", "passwd", "pass", "pwd")
_NAME_ENDS = frozenset(
    "name file path url uri id type length len ttl count expiry expires min max size limit dir "
    "env ref arn".split()
)


def _inside_check(m: re.Match[str]) -> Span | None:
    """``A_SECRET_B=value``: a secret word inside the name, and a value that is a random key."""
    if m.group(1).lower().rsplit("_", 1)[-1] in _NAME_ENDS:
        return None
    v = m.group(3)
    digits = any(c.isdigit() for c in v)
    if names.placeholder(v) or not (digits or "+" in v or "/" in v):
        return None
    return m.span(3)


FILE_RULES = (
    Rule("credential-table", "", _gate_anchors(list(_COLUMN_WORDS)), finder=table_hits),
    Rule("wif", CASED.format(rf"(?<![A-Za-z0-9])([KL]{_B58_CLS}{{51}})(?![A-Za-z0-9])"),
         tuple(a for c in "KL" for a in plain(
             c, f"(?={_B58_CLS}{{51}}(?![A-Za-z0-9]))(?<![A-Za-z0-9]{c})")), check=_wif_check),
    Rule("key-byte-array", r"\[[ \t]*((?:[0-9]{1,3}[ \t]*,[ \t]*){63}[0-9]{1,3})[ \t]*\]",
         plain("[", r"(?=[ \t]*[0-9]{1,3}[ \t]*,[ \t]*[0-9]{1,3}[ \t]*,)"),
         check=_byte_array_check),
    Rule("wifi-qr", r"WIFI:(?:[^;\r\n]*;)*?P:((?:\\[;,:\\\"]|[^;\\\r\n])+)",
         plain("p", "(?=:)(?<=[;:]p)") + plain("P", "(?=:)(?<=[;:]P)"), check=placeholder_check),
    Rule("static-key", "", prefix("-", "static key v1", "static key v2", short=True),
         finder=static_key_hits),
    Rule("composer-auth", CASED.format(r"\"(?:github-oauth|gitlab-token|gitlab-oauth|bearer)\""
         r"[ \t]*:[ \t]*\{[ \t\r\n]*\"[^\"\r\n]+\"[ \t]*:[ \t]*\"([^\"\r\n]+)\""),
         plain("g", '(?<="g)(?=it(?:hub-oauth|lab-token|lab-oauth)")')
         + plain("b", '(?<="b)(?=earer")'), check=placeholder_check),
    Rule("windows-pass-switch", r"(?<![A-Za-z0-9_-])(?:cmdkey|x?freerdp|wlfreerdp|sdl-freerdp)\b"
         r"[^\n|&]*?[ \t]/(?:pass|p):(?:\"([^\"\r\n]+)\"|([^\s\"]+))",
         plain("p", "(?=(?:[aA][sS][sS])?:)(?<=/p)") + plain("P", "(?=(?:[aA][sS][sS])?:)(?<=/P)"),
         check=placeholder_check),
    Rule("env-secret-inside", CASED.format(
         r"(?<![A-Za-z0-9_])((?:[A-Za-z][A-Za-z0-9]*_)*(?i:secret|token|password|passwd|pass|pwd)"
         r"_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)[ \t]*[=:][ \t]*([\"']?)([A-Za-z0-9+/=_\-.~]{16,})\2"
         r"(?![A-Za-z0-9+/=_\-.~])"), prefix("_", *_INSIDE_WORDS, short=True), check=_inside_check),
)  # fmt: skip
