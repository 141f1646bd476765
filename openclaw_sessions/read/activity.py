"""`log`: what the agents said lately, newest first, with no query (the habit of `llm logs
-n 20`, `atuin history list` and `journalctl --since`): the indexed user and assistant
messages of every session the operator sees (incognito ones never), across sessions, each
as a hit without a score (its opening as the snippet), with the session's label.

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import kinds
from openclaw_sessions.policy.cut import safe_cut
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_store, transaction
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.pending import any_stale

from .models import Hit, SearchResult
from .scope import register, visible_sql
from .search import fts


class LogOptions(NamedTuple):
    """`log`'s options; each field declares the CLI parameter of its name (type, default)."""

    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    limit: int = 20
    since: str | None = None  # an ISO date/time or a span (when.parse_window)
    until: str | None = None
    role: str | None = None
    kind: list[str] | None = None  # --kind: only these kinds of session (policy/kinds.py)
    not_kind: list[str] | None = None  # --not-kind: not these
    key: list[str] | None = None  # --key GLOB: only keys matching one of these


def activity(opts: LogOptions) -> SearchResult:
    """The newest ``limit`` messages of the agent (or every agent), newest first;
    ``truncated`` when older ones exist in the window."""
    if opts.limit < 1:
        raise UsageError("limit must be a positive integer")
    if opts.role not in (None, "user", "assistant"):
        raise UsageError("role must be user or assistant")
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    since_ms, until_ms = parse_window(opts.since, opts.until)
    redactor = ctx.redactor()
    keys = kinds.key_filter(opts.kind, opts.not_kind, opts.key)
    hits: list[Hit] = []
    indexing = False
    for agent in ctx.agents():
        with open_store(ctx.root, agent) as conn:
            register(conn, agent, None)
            f = fts.Filters(
                visible_sql(None), None, opts.role, since_ms, until_ms, agent=agent, keys=keys
            )
            hits += _newest(conn, f, redactor, opts.limit + 1, agent)
            indexing = indexing or any_stale(conn, redactor.fingerprint)
    hits.sort(key=lambda h: (-h.timestamp, h.session_key, h.message_id))
    return SearchResult(
        tuple(hits[: opts.limit]), indexing, len(hits) > opts.limit, total=len(hits)
    )


def _newest(
    conn: sqlite3.Connection, f: fts.Filters, redactor: Redactor, n: int, agent: str
) -> list[Hit]:
    where, params = fts.where_of(f, redactor.fingerprint)
    with transaction(conn, write=False):
        rows = conn.execute(
            "SELECT t.session_key, t.session_id, r.message_id, r.role, r.ts, r.text, ss.label"
            f" FROM index_rows r{fts.JOINS} WHERE {' AND '.join(where)}"
            " ORDER BY r.ts DESC, r.row_id DESC LIMIT ?",
            [*params, n],
        ).fetchall()
    out = []
    for key, sid, mid, role, ts, text, label in rows:
        # index rows were redacted when written; redacting the opening again costs little
        red = redactor.redact(" ".join(text.split()))
        opening = safe_cut(red.text, fts.SNIPPET_UNITS, red.spans)
        shown = redactor.redact_text(label) if label else None
        out.append(Hit(key, sid, mid, role, int(ts), opening, 0.0, agent_id=agent, label=shown))
    return out
