"""`sessions`: the session keys of the selected agent(s), newest update first, with what an
operator asks of each (its label, when it last changed, how long its active branch is, how
many generations it has, whether its text is searchable).

Visibility is the search's: the operator sees every session but incognito ones, `--as KEY`
only what that session may see. The sort, the window (`--since/--until` on the last update)
and `--limit` are one SQL statement per agent; message counts and index states are read for
the rows shown only. Returns values; never prints.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.model.when import parse_window
from openclaw_sessions.policy import keys, kinds, sanitize, visibility
from openclaw_sessions.redact import Redactor
from openclaw_sessions.store import paths, upstream_archived
from openclaw_sessions.store.branches import active_messages
from openclaw_sessions.store.db import open_store, transaction
from openclaw_sessions.store.pending import FROM, current_failure, params, stale_where
from openclaw_sessions.store.sessions import SessionLookup, incognito_keys
from openclaw_sessions.store.state import StateScope

from .generations import generations
from .scope import caller_policy, register, stores_in_scope

# A session's index state, worst first: its text is missing from search (failed: indexing
# raised, see `status`; dirty: rows hidden until rebuilt), or behind (pending: never
# indexed, or lines appended since), or searchable (indexed); none: no transcript stored.
INDEX_STATES = ("failed", "dirty", "pending", "indexed", "none")


class SessionsOptions(NamedTuple):
    """`sessions`' options; each field declares the CLI parameter of its name (type, default)."""

    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    since: str | None = None  # on the last update (when.parse_window)
    until: str | None = None
    limit: int | None = None  # None: every session
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    kind: list[str] | None = None  # --kind: only these kinds of session (policy/kinds.py)
    not_kind: list[str] | None = None  # --not-kind: not these
    key: list[str] | None = None  # --key GLOB: only keys matching one of these


# SessionRow's fields, in order, as JSON names them.
_JSON_NAMES = "sessionKey agentId sessionId label updatedAt messages generations index".split()


class SessionRow(NamedTuple):
    session_key: str
    agent_id: str
    session_id: str | None
    label: str | None
    updated_at: int | None  # the store entry's updatedAt, else its newest message's time
    messages: int  # on the active branch of the current generation, as `history` counts
    generations: int  # transcripts stored under the key (the current one and archives)
    index_state: str  # one of INDEX_STATES (JSON "index")
    # The operator's only: "deleted" in OpenClaw, or its current generation "cold" there
    # (store/upstream_archived.py); JSON "archived", only when set.
    archived: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = dict(zip(_JSON_NAMES, self[: len(_JSON_NAMES)], strict=True))
        if self.archived is not None:
            out["archived"] = self.archived
        return out


class Listed(NamedTuple):
    rows: tuple[SessionRow, ...]
    truncated: bool = False  # --limit cut the list


def list_sessions(opts: SessionsOptions) -> Listed:
    if opts.limit is not None and opts.limit < 1:
        raise UsageError("limit must be a positive integer")
    if opts.visibility not in (None, *visibility.VISIBILITIES):
        raise UsageError(f"visibility must be one of {', '.join(visibility.VISIBILITIES)}")
    kinds.operator_only(opts.as_key, opts.kind, opts.not_kind, opts.key)
    keyed = kinds.key_filter(opts.kind, opts.not_kind, opts.key)
    window = parse_window(opts.since, opts.until)
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    policy = None
    agents = ctx.agents()
    if opts.as_key is not None:
        with SessionLookup(ctx.root, ctx.agent) as index:
            policy = caller_policy(ctx.agent, ctx.config, index, opts)
            agents = stores_in_scope(index, policy)  # every agent the caller may see
    found: list[tuple[Any, ...]] = []
    for agent in agents:
        with open_store(ctx.root, agent) as conn:
            found += _newest(conn, agent, policy, window, opts.limit, keyed)
    found.sort(key=lambda r: (r[3] is None, -(r[3] or 0), r[0]))
    shown = found if opts.limit is None else found[: opts.limit]
    rows = []
    redactor = ctx.redactor()
    for agent in sorted({r[5] for r in shown}):
        with open_store(ctx.root, agent) as conn, transaction(conn, write=False):
            rows += [_row(conn, r, redactor, policy is None) for r in shown if r[5] == agent]
    rows.sort(key=lambda r: (r.updated_at is None, -(r.updated_at or 0), r.session_key))
    return Listed(tuple(rows), len(found) > len(shown))


def _newest(
    conn: sqlite3.Connection,
    agent: str,
    policy: visibility.Policy | None,
    window: tuple[int | None, int | None],
    limit: int | None,
    keyed: kinds.KeyFilter,
) -> list[tuple[Any, ...]]:
    """(key, session id, label, updated, generations, agent) of the newest sessions the
    caller may see, newest first: one statement, every filter before LIMIT."""
    where = ["s.session_key NOT IN (SELECT value FROM json_each(?))"]
    args: list[Any] = [json.dumps(incognito_keys(conn))]
    if policy is not None:
        # The caller's verdict per row, as its search asks it: no cron run but its own.
        register(conn, agent, policy, cron_runs=False)
        where.append(
            "oc_visible(s.session_key, s.spawned_by, s.parent_session_key, s.owner_session_key)"
        )
        where.append(f"s.session_key NOT IN ({upstream_archived.DELETED_KEYS_SQL})")
    clauses, kparams = kinds.where(keyed, "s.session_key")
    where += clauses
    args += kparams
    since, until = window
    if since is not None:
        where.append("updated >= ?")
        args.append(since)
    if until is not None:
        where.append("updated < ?")
        args.append(until)
    sql = (
        "SELECT s.session_key, s.session_id, s.label,"
        " coalesce(s.updated_at, g.last) AS updated, coalesce(g.n, 0) FROM sessions s"
        " LEFT JOIN (SELECT session_key, count(*) AS n, max(coalesce(last_ts, first_ts)) AS last"
        " FROM transcripts GROUP BY session_key) g ON g.session_key = s.session_key"
        f" WHERE {' AND '.join(where)}"
        " ORDER BY updated IS NULL, updated DESC, s.session_key LIMIT ?"
    )
    rows = conn.execute(sql, [*args, -1 if limit is None else limit + 1]).fetchall()
    return [(*tuple(r), agent) for r in rows]


# One row per transcript of a key; ?1, ?2: stale.params, ?3: the key.
_STATE_SQL = (
    f"SELECT EXISTS ({current_failure('?2')}), ({stale_where()}),"
    " s.indexed_seq >= 0 AND s.redaction_fp != '' AND"
    " (s.needs_rebuild != 0 OR s.claim_token IS NOT NULL OR s.redaction_fp != ?1)"
    f" FROM {FROM} WHERE t.session_key = ?3"
)


def _index_state(conn: sqlite3.Connection, key: str, fp: str) -> str:
    """The worst state among the key's transcripts (INDEX_STATES)."""
    states = set()
    for failed, stale, hidden in conn.execute(_STATE_SQL, (*params(fp), key)):
        states.add("failed" if failed else "dirty" if hidden else "pending" if stale else "indexed")
    return next((s for s in INDEX_STATES if s in states), "none")


def _row(
    conn: sqlite3.Connection, r: tuple[Any, ...], redactor: Redactor, operator: bool
) -> SessionRow:
    """One listed session; its label is free text from the store: redacted (keys and ids
    print as typed, as in every other output)."""
    key, sid, label, updated, gens, agent = r
    current = generations(conn, key)
    messages = 0
    if current:
        rows = active_messages(conn, current[0][0])
        messages = len(rows.without_roles(sanitize.TOOL_ROLES))
    return SessionRow(
        key,
        keys.agent_of(key) or agent,
        sid,
        None if label is None else redactor.redact_text(label),
        updated,
        messages,
        gens,
        _index_state(conn, key, redactor.fingerprint),
        upstream_archived.key_state(conn, key, sid) if operator else None,
    )
