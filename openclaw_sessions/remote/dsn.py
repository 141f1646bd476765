"""The central database's address: a libpq DSN (a URI or key=value words) given on the command
line or in $OPENCLAW_SESSIONS_REMOTE, checked, shown without its password, and connected to
with every failure turned into one clear error (bad DSN: exit 2; server down, refused, denied:
exit 3)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from openclaw_sessions import settings
from openclaw_sessions.errors import StoreError, UsageError

if TYPE_CHECKING:
    from psycopg import Connection

ENV = "OPENCLAW_SESSIONS_REMOTE"
_URI_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@\s]*:)([^@\s]*)(@)")
_WORD_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


class RemoteError(StoreError):
    """The central database cannot be used: down, refused, denied, or newer (exit 3)."""

    code = "remote_error"


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise UsageError(
            "the central database needs psycopg, which is not installed",
            hint="pip install 'openclaw-sessions[postgres]'",
        ) from None
    return psycopg


def resolve(raw: str | None, *, trusted_network: bool = False) -> str:
    """The DSN to use: ``raw``, else (None or "-") $OPENCLAW_SESSIONS_REMOTE; checked, and
    refused when it would send conversation text to another machine without a checked TLS
    connection (``trusted_network``: the operator says the network is private)."""
    dsn = raw if raw not in (None, "-") else settings.remote_dsn() or ""
    if not dsn or not dsn.strip():
        raise UsageError(
            "no central database given", hint=f"pass a DSN, or set ${ENV} (and pass -)"
        )
    psycopg = _psycopg()
    try:
        psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        raise UsageError(
            f"bad DSN: {scrub(str(exc), dsn)}", hint=f"DSN given: {masked(dsn)}"
        ) from None
    if not trusted_network:
        _check_tls(dsn)
    return dsn


_LOCAL = ("localhost", "::1")
_CHECKED = ("verify-full", "verify-ca")


def _is_local(host: str) -> bool:
    host = host.strip().strip("[]").lower()
    return not host or host.startswith("/") or host in _LOCAL or host.startswith("127.")


def _check_tls(dsn: str) -> None:
    """libpq's default (sslmode=prefer) falls back to plain text silently and checks no
    certificate: a push of conversation text to another machine must ask for a checked one."""
    d = _conninfo(dsn) or {}
    hosts = [h for part in ("host", "hostaddr") for h in str(d.get(part) or "").split(",")]
    if not any(hosts):
        hosts = str(os.environ.get("PGHOST") or "").split(",")
    mode = str(d.get("sslmode") or os.environ.get("PGSSLMODE") or "prefer")
    remote = [h for h in hosts if not _is_local(h)]
    if remote and mode not in _CHECKED:
        raise UsageError(
            f"the central database {remote[0].strip()} is not on this machine and the DSN does"
            f" not ask for a checked TLS connection (sslmode={mode})",
            hint="add sslmode=verify-full (and sslrootcert=...) to the DSN, or say"
            " --trusted-network when the network itself is private",
        )


def _conninfo(dsn: str) -> dict[str, Any] | None:
    """The DSN's parts, None when psycopg cannot read them."""
    try:
        import psycopg

        return dict(psycopg.conninfo.conninfo_to_dict(dsn))
    except Exception:
        return None


def masked(dsn: str) -> str:
    """The DSN as it may be shown: any password replaced by ***."""
    out = _URI_PASSWORD.sub(lambda m: m.group(1) + ("***" if m.group(2) else "") + "@", dsn)
    out = _WORD_PASSWORD.sub(lambda m: m.group(1) + "***", out)
    return scrub(out, dsn)


def scrub(text: str, dsn: str) -> str:
    """``text`` with the DSN's password (and the DSN itself) masked, wherever it appears."""
    pw = str((_conninfo(dsn) or {}).get("password") or "")
    return text.replace(pw, "***") if pw else text


def describe(dsn: str) -> str:
    """Where the DSN points, for messages: user@host/dbname (never the password)."""
    d = _conninfo(dsn)
    if d is None:
        return masked(dsn)
    host = str(d.get("host") or os.environ.get("PGHOST") or "localhost")
    db = str(d.get("dbname") or d.get("user") or "")
    return f"{host}/{db}" if db else host


def translate(exc: BaseException, dsn: str) -> RemoteError:
    """A psycopg failure as one line, with a hint that says what to check."""
    import psycopg

    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    text = scrub(lines[0] if lines else type(exc).__name__, dsn)
    where = describe(dsn)
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return RemoteError(
            f"central database {where}: permission denied: {text}",
            hint="see the README's 'Fleet' section for the privileges push and search need",
            code="remote_denied",
        )
    if isinstance(exc, psycopg.OperationalError):
        return RemoteError(
            f"cannot reach the central database {where}: {text}",
            hint="is the server up, and the DSN right?",
            code="remote_unreachable",
        )
    return RemoteError(f"central database {where}: {text}", code="remote_error")


def connect(dsn: str, *, autocommit: bool = False) -> Connection[Any]:
    psycopg = _psycopg()
    try:
        conn: Connection[Any] = psycopg.connect(
            dsn, autocommit=autocommit, connect_timeout=10, application_name="openclaw-sessions"
        )
    except psycopg.Error as exc:
        raise translate(exc, dsn) from None
    return conn
