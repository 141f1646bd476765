"""`status`: the state of each agent's store and index, and a health verdict an operator and
cron can act on: `health` is ok, attention (something to do: each reason says what) or error
(the store cannot be used), with exit code 0, 4 or 3.

Every figure costs the same at any store size: counters kept by the writers (store/counts.py),
the pending set (store/pending.py), FTS5's and SQLite's own totals; never a count of rows."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import ExitCode, StoreError
from openclaw_sessions.index import locks
from openclaw_sessions.redact import Redactor, build_redactor
from openclaw_sessions.store import counts, db, paths
from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.pending import current_failures, figures

from .problems import known_problems, listed

_INDEX_TABLES = {
    "primary": ("index_fts", PRIMARY_TOKENIZER),
    "bigram": ("index_bigram", "unicode61 (CJK bigrams)"),
}


def _scalar(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params).fetchone()
    return row[0] if row else None


def _meta(conn: sqlite3.Connection, key: str) -> int | None:
    v = db.get_meta(conn, key)
    return int(v) if v and v.isdigit() else None


_FTS_PARTS = ("data", "idx", "docsize", "config")


def _index_sizes(conn: sqlite3.Connection) -> dict[str, Any]:
    """Rows from FTS5's own totals; bytes from dbstat, which walks the pages of the index's
    own tables only (named exactly, aggregated: not the whole file)."""
    out: dict[str, Any] = {}
    for name, (table, tokenizer) in _INDEX_TABLES.items():
        parts = [f"{table}_{p}" for p in _FTS_PARTS]
        try:
            size = _scalar(
                conn,
                "SELECT sum(pgsize) FROM dbstat WHERE aggregate = TRUE"
                f" AND name IN ({', '.join('?' * len(parts))})",
                *parts,
            )
        except sqlite3.OperationalError:  # dbstat not compiled in
            size = None
        out[name] = {"tokenizer": tokenizer, "rows": counts.fts_rows(conn, table), "bytes": size}
    return out


class StatusOptions(NamedTuple):
    """`status`'s options; each field declares the CLI parameter of its name (type, default)."""

    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    problems: bool = False  # list the quarantined lines and the known import problems


def status(opts: StatusOptions) -> list[dict[str, Any]]:
    """The state of each agent's store and index, with a verdict and an exit code each. With
    --all-agents a store that cannot be opened is that agent's `error`, not everyone's."""
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    redactor = ctx.redactor()
    out = []
    for agent in ctx.agents():
        try:
            out.append(agent_status(ctx.root, agent, redactor, problems=opts.problems))
        except StoreError as exc:
            if not opts.all_agents:
                raise
            out.append(unusable(ctx.root, agent, exc))  # that agent's `error`, not everyone's
    return out


def unusable(root: Path, agent: str, exc: StoreError) -> dict[str, Any]:
    """The status of an agent whose store cannot be opened (health `error`, exit 3); its
    message is redacted, as every string the tool prints (a path may hold anything)."""
    message = build_redactor().redact_text(exc.message + (f" ({exc.hint})" if exc.hint else ""))
    return {
        "agentId": agent,
        "database": str(paths.db_path(root, agent)),
        "health": "error",
        "reasons": [message],
        "diagnostics": [{"code": exc.code, "message": message}],
        "exitCode": int(ExitCode.STORE),
    }


def agent_status(
    root: Path, agent: str, redactor: Redactor, *, problems: bool = False
) -> dict[str, Any]:
    path = paths.db_path(root, agent)
    with closing(db.connect(path)) as conn:
        fp = redactor.fingerprint
        # One read transaction: the figures are of one snapshot of the store.
        conn.execute("BEGIN")
        n = counts.read(conn)
        stale = figures(conn, fp)
        # Indexed under other rules; 'fp:' alone counts transcripts never indexed at all.
        mismatched = sum(
            v for k, v in n.items() if k.startswith("fp:") and k not in ("fp:", f"fp:{fp}")
        )
        failed = current_failures(conn, fp)
        st: dict[str, Any] = {
            "agentId": agent,
            "database": str(path),
            "schemaVersion": int(_scalar(conn, "PRAGMA user_version")),
            "tokenizer": PRIMARY_TOKENIZER,
            "sessions": n.get("sessions", 0),
            "transcripts": n.get("transcripts", 0),
            "events": n.get("events", 0),
            "indexedMessages": counts.fts_rows(conn, "index_fts"),
            "pendingSessions": stale.sessions,
            "dirtySessions": stale.dirty,
            "oldestPendingAt": stale.oldest,
            "oldestPendingAgeSeconds": (
                None if stale.oldest is None else max(0, (db.now_ms() - stale.oldest) // 1000)
            ),
            "indexing": locks.is_running(paths.agent_dir(root, agent)),
            "lastImportAt": _meta(conn, "last_import_at"),
            "lastReconcileAt": _meta(conn, "last_reconcile_at"),
            # its size as SQLite sees it (its pages, those still in the WAL included)
            "databaseBytes": _scalar(conn, "PRAGMA page_count") * _scalar(conn, "PRAGMA page_size"),
            "malformedLines": n.get("quarantine", 0),
            "vanishedTranscripts": n.get("vanished", 0),
            "failedSessions": len(failed),
            "failures": [
                {
                    "sessionKey": f.session_key,
                    "path": f.path,
                    "error": f.error,
                    "failedAt": f.failed_at,
                }
                for f in failed
            ],
            "redactionFingerprint": fp,
            "redactionCurrent": not mismatched,
            "indexes": _index_sizes(conn),
            "importProblems": known_problems(conn),
        }
        if problems:
            st["problems"] = listed(conn, redactor)
        conn.rollback()
    st["health"], found, st["exitCode"] = verdict(st)
    st["reasons"] = [message for _code, message in found]
    st["diagnostics"] = [{"code": code, "message": message} for code, message in found]
    return st


def verdict(st: dict[str, Any]) -> tuple[str, list[tuple[str, str]], int]:
    """(health, the reasons an operator can act on as (code, message), the exit code cron can
    act on). The codes are stable names for scripts; the messages say what to do."""
    found: list[tuple[str, str]] = []
    if st["pendingSessions"] and not st["indexing"]:
        why = "" if st["redactionCurrent"] else " (redaction rules changed)"
        found.append((
            "sessions_pending",
            f"{_n(st['pendingSessions'], 'session')} pending{why}: run `openclaw-sessions reindex`",
        ))  # fmt: skip
    for field, name, what, then in _COUNTED:
        if st[field]:
            found.append((name, f"{_n(st[field], what)} {then}"))
    if not st["sessions"]:
        found.append(("no_sessions", "no sessions: run `openclaw-sessions import`"))
    elif not st["transcripts"]:
        found.append((
            "no_transcripts",
            f"none of the {_n(st['sessions'], 'session')} has a transcript: nothing to search"
            " (their files are missing: `status --problems`)",
        ))  # fmt: skip
    code = ExitCode.PROBLEMS if found else ExitCode.OK
    return ("attention" if found else "ok"), found, int(code)


# (field, code, what it counts, what to do): the reasons that are a count of something
_COUNTED = (
    ("failedSessions", "sessions_failed", "session", "could not be indexed (`status --verbose`"
     " lists them); retried when the transcript or the redaction rules change"),
    ("malformedLines", "lines_malformed", "malformed line", "kept in quarantine (`status"
     " --problems` lists them): fix the line in its file and import again"),
    ("vanishedTranscripts", "transcripts_vanished", "transcript", "kept after the file vanished"
     " without an archive: restore the file, import its archive, or `delete` its session id"),
    ("importProblems", "import_problems", "known import problem", "(e.g. a missing transcript"
     " file): `status --problems` lists them with file and line"),
)  # fmt: skip


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"
