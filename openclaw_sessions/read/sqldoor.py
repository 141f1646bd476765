"""`sql`: a read-only SQL door for ad-hoc reports (sqlite-utils' and `llm logs`' habit), over
two documented views and nothing else:

- ``sessions``: agent_id, session_key, session_id, label (redacted), updated_at (epoch ms),
  spawned_by, parent_session_key;
- ``messages``: agent_id, session_key, session_id, message_id, role, timestamp (epoch ms),
  text: the indexed user and assistant text of each active branch, as search reads it
  (redacted under the current rules; sessions waiting to be re-indexed are left out).

Incognito sessions are in neither. Each agent's store is attached read-only to a private
in-memory database that holds the views; SQLite's authorizer lets a statement read store
tables only from inside an inner view whose name is drawn at random for this connection (a
statement's own CTE could take a public view's name, never one it cannot know or list), and
do nothing but read: the raw lines, unredacted text and every other table stay out of reach
whatever the statement says.

Returns values, raises OpenClawError; never prints.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import keys
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.pending import fresh

VIEWS = ("sessions", "messages")
_SESSIONS = (
    "SELECT '{agent}' AS agent_id, s.session_key, s.session_id, ocs_redact(s.label) AS label,"
    " s.updated_at, s.spawned_by, s.parent_session_key FROM {db}.sessions s"
    " WHERE NOT ocs_incognito(s.session_key)"
)
_MESSAGES = (
    "SELECT '{agent}' AS agent_id, t.session_key, t.session_id, r.message_id, r.role,"
    " r.ts AS timestamp, r.text FROM {db}.index_rows r"
    " JOIN {db}.transcripts t ON t.transcript_id = r.transcript_id"
    " JOIN {db}.index_state s ON s.transcript_id = r.transcript_id"
    " WHERE " + fresh("ocs_fp()") + " AND NOT ocs_incognito(t.session_key)"
)
# What a statement may do: read (through a view), select, call functions, recurse (WITH).
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}


class SqlOptions(NamedTuple):
    """`sql`'s options; each field declares the CLI parameter of its name (type, default)."""

    statement: str
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False


class Answer(NamedTuple):
    columns: tuple[str, ...]
    rows: Iterator[tuple[Any, ...]]


def door(opts: SqlOptions) -> Answer:
    """The statement's columns and rows (read lazily), over the views of the agent's store
    (or every agent's)."""
    if not opts.statement.strip():
        raise UsageError("the SQL statement must not be empty")
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    agents = ctx.agents()
    if len(agents) > 10:  # SQLite attaches at most ten databases
        raise UsageError("sql reads at most 10 agents at once", hint="name one with --agent")
    redactor = ctx.redactor()
    conn = sqlite3.connect(":memory:")
    conn.create_function("ocs_fp", 0, lambda: redactor.fingerprint, deterministic=True)
    conn.create_function(
        "ocs_redact", 1, lambda v: None if v is None else redactor.redact_text(str(v))
    )
    conn.create_function("ocs_incognito", 1, lambda k: keys.is_incognito(str(k or "")))
    views: dict[str, list[str]] = {v: [] for v in VIEWS}
    for i, agent in enumerate(agents):
        with open_store(ctx.root, agent):  # migrated to the current schema first
            pass
        uri = paths.db_path(ctx.root, agent).resolve().as_uri() + "?mode=ro"
        conn.execute(f"ATTACH DATABASE ? AS a{i}", (uri,))
        views["sessions"].append(_SESSIONS.format(agent=agent, db=f"a{i}"))
        views["messages"].append(_MESSAGES.format(agent=agent, db=f"a{i}"))
    inner = {name: f"ocs_{secrets.token_hex(12)}" for name in VIEWS}
    for name, parts in views.items():
        conn.execute(f"CREATE TEMP VIEW {inner[name]} AS {' UNION ALL '.join(parts)}")
        conn.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM {inner[name]}")
    conn.set_authorizer(_authorizer(frozenset(inner.values())))
    try:
        cur = conn.execute(opts.statement)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise UsageError(
            f"SQL: {exc}", hint=f"the views are {' and '.join(VIEWS)}: see `sql --help`"
        ) from None
    columns = tuple(d[0] for d in cur.description or ())
    return Answer(columns, _rows(conn, cur))


def _rows(conn: sqlite3.Connection, cur: sqlite3.Cursor) -> Iterator[tuple[Any, ...]]:
    try:
        for row in cur:
            yield tuple(row)
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"SQL: {exc}") from None
    finally:
        conn.close()


def _authorizer(inner: frozenset[str]) -> Any:
    """Reads only from inside the inner views (a table read directly, or from a statement's
    own CTE, has another view name or none; the schema tables too), and nothing but reads. The
    inner names change with every connection, and a connection runs one statement."""

    def authorize(action: int, table: str | None, _col: str | None, db: str | None,
                  view: str | None) -> int:  # fmt: skip
        if action == sqlite3.SQLITE_READ:  # the statement reads a public view, which reads
            # its inner one, which alone reads the stores
            public = db == "temp" and table in VIEWS
            ok = public or view in inner or (table in inner and view in VIEWS)
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY

    return authorize
