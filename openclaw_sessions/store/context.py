"""The core API the CLI calls once per command: config, redaction, visibility, per-agent stores,
reindex and delete (search: find.py; history: history.py).

Returns values, raises OpenClawError; never prints, never exits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from openclaw_sessions import config
from openclaw_sessions.errors import NotFoundError, StoreError
from openclaw_sessions.index import locks
from openclaw_sessions.policy import visibility

from . import db, paths

if TYPE_CHECKING:
    from openclaw_sessions.reports import ReindexReport
from openclaw_sessions.policy.redact import Redactor, build_redactor


class Context(NamedTuple):
    root: Path
    agent: str
    all_agents: bool = False

    @property
    def config(self) -> config.Config:
        return config.load_config(self.root)

    def redactor(self) -> Redactor:
        return build_redactor(self.config.redact_patterns)

    def agents(self) -> list[str]:
        if self.all_agents:
            found = paths.agents_with_db(self.root)
            if not found:
                raise StoreError(
                    f"no agent databases under {self.root / 'agents'}",
                    hint="run `openclaw-sessions import` first",
                )
            return found
        return [paths.check_agent_id(self.agent)]


@contextmanager
def open_store(root: Path, agent: str, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    path = paths.db_path(root, agent)
    conn = db.connect(path, create=create)
    try:
        yield conn
    except sqlite3.Error as exc:
        raise db.translate(exc, path) from None
    finally:
        conn.close()


def session_refs(conn: sqlite3.Connection, agent: str) -> list[visibility.SessionRef]:
    rows = conn.execute(
        "SELECT session_key, session_id, spawned_by, parent_session_key, owner_session_key"
        " FROM sessions"
    ).fetchall()
    refs = [visibility.SessionRef(r[0], visibility.agent_of(r[0]) or agent, *r[1:]) for r in rows]
    # Older generations' ids also name their key.
    for key, sid in conn.execute(
        "SELECT DISTINCT t.session_key, t.session_id FROM transcripts t JOIN sessions s"
        " ON s.session_key = t.session_key WHERE t.session_id != coalesce(s.session_id, '')"
    ):
        refs.append(visibility.SessionRef(key, visibility.agent_of(key) or agent, sid))
    return refs


def all_session_refs(ctx: Context) -> list[visibility.SessionRef]:
    """Every agent store's session refs: the snapshot visibility decides over."""
    refs: list[visibility.SessionRef] = []
    for agent in paths.agents_with_db(ctx.root) or [ctx.agent]:
        with open_store(ctx.root, agent) as conn:
            refs += session_refs(conn, agent)
    return refs


def caller_policy(
    ctx: Context, cfg: config.Config, *, as_key: str, visibility_mode: str | None, sandboxed: bool
) -> visibility.Policy:
    """The visibility policy of ``--as KEY`` (shared by search and history)."""
    refs = all_session_refs(ctx)
    key = visibility.resolve_caller_key(as_key, ctx.agent, refs, main_key=cfg.main_key)
    caller_agent = visibility.agent_of(key) or ctx.agent
    caller = visibility.Caller(
        key=key,
        agent_id=caller_agent,
        visibility=visibility_mode or cfg.visibility or visibility.DEFAULT_VISIBILITY,
        sandboxed=sandboxed,
        sandbox_visibility=cfg.sandbox_visibility_for(caller_agent),
        agent_to_agent_enabled=cfg.agent_to_agent_enabled,
        agent_to_agent_allow=cfg.agent_to_agent_allow,
        main_key=cfg.main_key,
    )
    return visibility.Policy(caller, refs)


def reindex_agent(
    root: Path,
    agent: str,
    redactor: Redactor,
    *,
    full: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ReindexReport:
    """Reconcile one agent in this process (holding the agent's 'reconciling' lock)."""
    from openclaw_sessions.index.reconcile import reconcile

    with open_store(root, agent) as conn, locks.reconciling(paths.agent_dir(root, agent)):
        return reconcile(conn, agent, redactor, full=full, progress=progress)


def resolve_delete_target(
    conn: sqlite3.Connection, target: str, agent: str
) -> tuple[str, list[int]]:
    """A key, a bare rest of a key, or a session id → (key, transcript ids)."""
    t = target.strip()
    candidates = [t.lower(), f"agent:{agent}:{t.lower()}"]
    for key in candidates:
        rows = conn.execute(
            "SELECT transcript_id FROM transcripts WHERE session_key = ?", (key,)
        ).fetchall()
        exists = conn.execute("SELECT 1 FROM sessions WHERE session_key = ?", (key,)).fetchone()
        if rows or exists:
            return key, [r[0] for r in rows]
    rows = conn.execute(
        "SELECT transcript_id, session_key FROM transcripts WHERE session_id = ?", (t,)
    ).fetchall()
    if rows:
        return rows[0][1], [r[0] for r in rows if r[1] == rows[0][1]]
    raise NotFoundError(f"Session not found: {t}", hint="see `openclaw-sessions status` or search")


def delete_session(
    ctx: Context, target: str, *, generation_only: bool = False
) -> dict[str, object]:
    """Delete a session (or one generation, by session id) and its index rows atomically."""
    agent = paths.check_agent_id(ctx.agent)
    with open_store(ctx.root, agent) as conn:
        with db.transaction(conn):
            key, tids = resolve_delete_target(conn, target, agent)
            n_rows = sum(
                conn.execute(
                    "SELECT count(*) FROM index_rows WHERE transcript_id = ?", (t,)
                ).fetchone()[0]
                for t in tids
            )
            n_events = sum(
                conn.execute(
                    "SELECT count(*) FROM events WHERE transcript_id = ?", (t,)
                ).fetchone()[0]
                for t in tids
            )
            for tid in tids:
                conn.execute("DELETE FROM index_rows WHERE transcript_id = ?", (tid,))
                conn.execute("DELETE FROM transcripts WHERE transcript_id = ?", (tid,))
            conn.execute("DELETE FROM sessions WHERE session_key = ?", (key,))
    return {"sessionKey": key, "transcripts": len(tids), "events": n_events, "indexRows": n_rows}


def preview_delete(ctx: Context, target: str) -> str:
    with open_store(ctx.root, paths.check_agent_id(ctx.agent)) as conn:
        return resolve_delete_target(conn, target, ctx.agent)[0]
