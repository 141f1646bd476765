"""`status`: the state of each agent's store and index, and a health verdict an operator and
cron can act on: `health` is ok, attention (something to do: each reason says what) or error
(the store cannot be used), with exit code 0, 4 or 3."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import ExitCode, StoreError
from openclaw_sessions.index import locks
from openclaw_sessions.index.stale import STALE_FROM, STALE_WHERE, current_failures, params
from openclaw_sessions.policy.redact import Redactor
from openclaw_sessions.store import db, paths
from openclaw_sessions.store.context import Context
from openclaw_sessions.store.migrations import PRIMARY_TOKENIZER

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
    problems: bool = False  # list the quarantined lines and the known import problems


HEALTH = ("ok", "attention", "error")


def status(opts: StatusOptions) -> list[dict[str, Any]]:
    """The state of each agent's store and index, with a verdict and an exit code each. With
    --all-agents a store that cannot be opened is that agent's `error`, not everyone's."""
    ctx = Context.at(opts.state_dir, opts.agent, opts.all_agents)
    redactor = ctx.redactor()
    out = []
    for agent in ctx.agents():
        try:
            out.append(agent_status(ctx.root, agent, redactor, problems=opts.problems))
        except StoreError as exc:
            if not opts.all_agents:
                raise
            out.append(_unusable(ctx.root, agent, exc))
    return out


def _unusable(root: Path, agent: str, exc: StoreError) -> dict[str, Any]:
    return {
        "agentId": agent,
        "database": str(paths.db_path(root, agent)),
        "health": "error",
        "reasons": [exc.message + (f" ({exc.hint})" if exc.hint else "")],
        "exitCode": int(ExitCode.STORE),
    }


def agent_status(
    root: Path, agent: str, redactor: Redactor, *, problems: bool = False
) -> dict[str, Any]:
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
            "sessionsWithoutTranscript": _scalar(
                conn,
                "SELECT count(*) FROM sessions s WHERE NOT EXISTS"
                " (SELECT 1 FROM transcripts t WHERE t.session_key = s.session_key)",
            ),
            "importProblems": known_problems(conn),
        }
        if problems:
            st["problems"] = listed(conn, redactor)
    finally:
        conn.close()
    st["health"], st["reasons"], st["exitCode"] = verdict(st)
    return st


def _db_bytes(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total


def verdict(st: dict[str, Any]) -> tuple[str, list[str], int]:
    """(health, the reasons an operator can act on, the exit code cron can act on)."""
    reasons = []
    if st["pendingSessions"] and not st["indexing"]:
        why = "" if st["redactionCurrent"] else " (redaction rules changed)"
        reasons.append(
            f"{_n(st['pendingSessions'], 'session')} pending{why}: run `openclaw-sessions reindex`"
        )
    if st["failedSessions"]:
        reasons.append(
            f"{_n(st['failedSessions'], 'session')} could not be indexed (`status --verbose`"
            " lists them); retried when the transcript or the redaction rules change"
        )
    if st["malformedLines"]:
        reasons.append(
            f"{_n(st['malformedLines'], 'malformed line')} kept in quarantine (`status"
            " --problems` lists them): fix the line in its file and import again"
        )
    if st["vanishedTranscripts"]:
        reasons.append(
            f"{_n(st['vanishedTranscripts'], 'transcript')} kept after the file vanished without"
            " an archive: restore the file, import its archive, or `delete` its session id"
        )
    if st["importProblems"]:
        reasons.append(
            f"{_n(st['importProblems'], 'known import problem')} (e.g. a missing transcript"
            " file): `status --problems` lists them with file and line"
        )
    if not st["sessions"]:
        reasons.append("no sessions: run `openclaw-sessions import`")
    elif st["sessionsWithoutTranscript"] == st["sessions"]:
        reasons.append(
            f"none of the {_n(st['sessions'], 'session')} has a transcript: nothing to search"
            " (their files are missing: `status --problems`)"
        )
    code = ExitCode.PROBLEMS if reasons else ExitCode.OK
    return ("attention" if reasons else "ok"), reasons, int(code)


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"
