"""`status`: the state of one agent's store and index, and a health verdict."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import ExitCode
from openclaw_sessions.index import locks
from openclaw_sessions.index.stale import STALE_FROM, STALE_WHERE, current_failures, params
from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.store import db, paths
from openclaw_sessions.store.context import Context
from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER

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


def _index_sizes(conn: sqlite3.Connection) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (table, tokenizer) in _INDEX_TABLES.items():
        try:
            size = _scalar(conn, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ?", f"{table}_%")
        except sqlite3.OperationalError:  # dbstat not compiled in
            size = None
        rows = _scalar(conn, f"SELECT count(*) FROM {table}_docsize")
        out[name] = {"tokenizer": tokenizer, "rows": rows, "bytes": size}
    return out


class StatusOptions(NamedTuple):
    """`status`'s options, named as the CLI's parameters."""

    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False


def status(opts: StatusOptions) -> list[dict[str, Any]]:
    """The state of each agent's store and index, with a verdict and an exit code each."""
    ctx = Context.at(opts.state_dir, opts.agent, opts.all_agents)
    redactor = ctx.redactor()
    return [agent_status(ctx.root, a, redactor) for a in ctx.agents()]


def agent_status(root: Path, agent: str, redactor: Redactor) -> dict[str, Any]:
    path = paths.db_path(root, agent)
    conn = db.connect(path)
    try:
        fp = redactor.fingerprint
        stale = conn.execute(
            "SELECT count(*) AS pending, sum(s.needs_rebuild != 0) AS dirty,"
            f" min(coalesce(s.updated_at, t.imported_at)) AS oldest FROM {STALE_FROM}"
            f" WHERE {STALE_WHERE}",
            params(fp),
        ).fetchone()
        # Indexed under other rules; '' is a transcript that was never indexed at all.
        mismatched = _scalar(
            conn, "SELECT count(*) FROM index_state WHERE redaction_fp NOT IN ('', ?)", fp
        )
        failed = current_failures(conn, fp)
        st: dict[str, Any] = {
            "agentId": agent,
            "database": str(path),
            "schemaVersion": int(_scalar(conn, "PRAGMA user_version")),
            "tokenizer": PRIMARY_TOKENIZER,
            "sessions": _scalar(conn, "SELECT count(*) FROM sessions"),
            "transcripts": _scalar(conn, "SELECT count(*) FROM transcripts"),
            "events": _scalar(conn, "SELECT count(*) FROM events"),
            "indexedMessages": _scalar(conn, "SELECT count(*) FROM index_rows"),
            "pendingSessions": stale["pending"] or 0,
            "dirtySessions": stale["dirty"] or 0,
            "oldestPendingAt": stale["oldest"],
            "oldestPendingAgeSeconds": (
                None if stale["oldest"] is None else max(0, (db.now_ms() - stale["oldest"]) // 1000)
            ),
            "indexing": locks.is_running(paths.agent_dir(root, agent)),
            "lastImportAt": _meta(conn, "last_import_at"),
            "lastReconcileAt": _meta(conn, "last_reconcile_at"),
            "databaseBytes": _db_bytes(path),
            "malformedLines": _scalar(conn, "SELECT count(*) FROM quarantine"),
            "vanishedTranscripts": _scalar(
                conn, "SELECT count(*) FROM transcripts WHERE kind = 'vanished'"
            ),
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
        }
    finally:
        conn.close()
    st["health"], st["exitCode"] = verdict(st)
    return st


def _db_bytes(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total


def verdict(st: dict[str, Any]) -> tuple[str, int]:
    """One line an operator can act on, and the exit code cron can act on."""
    if st["pendingSessions"] and not st["indexing"]:
        n = st["pendingSessions"]
        why = "" if st["redactionCurrent"] else " (redaction rules changed)"
        return (
            f"{n} session{'s' if n != 1 else ''} pending{why}: run `openclaw-sessions reindex`",
            int(ExitCode.PROBLEMS),
        )
    if st["failedSessions"]:
        n = st["failedSessions"]
        return (
            f"{n} session{'s' if n != 1 else ''} could not be indexed (see `status --json`"
            " failures); retried when the transcript or the redaction rules change",
            int(ExitCode.PROBLEMS),
        )
    if st["malformedLines"]:
        return (
            f"{st['malformedLines']} malformed line(s) kept in quarantine: see "
            "`openclaw-sessions import --json` issues",
            int(ExitCode.PROBLEMS),
        )
    if st["vanishedTranscripts"]:
        n = st["vanishedTranscripts"]
        files = "transcripts kept after their files" if n != 1 else "transcript kept after its file"
        return (
            f"{n} {files} vanished without an archive: see `openclaw-sessions import --json`",
            int(ExitCode.PROBLEMS),
        )
    if st["indexing"]:
        return "reconciliation running", int(ExitCode.OK)
    return "healthy", int(ExitCode.OK)
