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
from openclaw_sessions.store.db import now_ms, open_store, transaction
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.pending import FROM, current_failure, params, stale_where
from openclaw_sessions.store.sessions import SessionLookup, incognito_keys

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
    visibility.check_visibility(opts.visibility)
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
    keyed: kinds.KeyFilter = kinds.NO_FILTER,
    match: str | None = None,
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
    if match:  # sessions_list's search: a substring of the key, label or display name
        where.append(
            "(instr(lower(s.session_key), ?) OR instr(lower(coalesce(s.label, '')), ?)"
            " OR instr(lower(CASE WHEN json_valid(s.entry_json)"
            " THEN coalesce(json_extract(s.entry_json, '$.displayName'), '') ELSE '' END), ?))"
        )
        args += [match.lower()] * 3
    for bound, condition in zip(window, ("updated >= ?", "updated < ?"), strict=True):
        if bound is not None:  # --since, --until
            where.append(condition)
            args.append(bound)
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


# ---- sessions_list (the MCP tool): upstream's inventory rows, as the caller may see them ----

# Upstream's internal kinds (sessions-helpers SESSION_LIST_KINDS), each named by a key part.
_INTERNAL = ("cron", "hook", "node")


class Page(NamedTuple):
    """One page of the caller's inventory, newest update first."""

    rows: tuple[dict[str, Any], ...]
    has_more: bool
    next_offset: int | None
    visibility: str  # the caller's effective mode (upstream reports one other than "all")
    spawn_restricted: bool = False  # sandboxed: its spawned sessions only


def _object(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _rest(key: str) -> str:
    parsed = keys.parse_key(key)
    return parsed[1] if parsed else key.strip().lower()


def kind_of(key: str, entry: dict[str, Any], main_key: str = "main") -> str:
    """Upstream's kind (main, group, cron, hook, node, other) from what the store keeps: the
    key's shape and the entry's chatType (the gateway's classification is not stored)."""
    rest = _rest(key)
    if key == "global" or rest == main_key:
        return "main"
    head = rest.split(":", 1)[0]
    for kind in _INTERNAL:
        if head == kind or f":{kind}:" in f":{rest}":
            return kind
    if entry.get("chatType") in ("group", "channel") or ":group:" in key or ":channel:" in key:
        return "group"
    return "other"


def channel_of(key: str, kind: str, entry: dict[str, Any]) -> str:
    """Upstream's deriveChannel: internal for cron/hook/node, else the entry's channel, its
    origin's provider, its last delivery channel, the key's channel part, else unknown."""
    if kind in _INTERNAL:
        return "internal"
    origin = _object(entry.get("origin"))
    delivery = _object(entry.get("deliveryContext"))
    for value in (
        entry.get("channel"),
        origin.get("provider"),
        delivery.get("channel"),
        entry.get("lastChannel"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip()
    parts = _rest(key).split(":")
    return parts[0] if len(parts) >= 3 and parts[0] not in ("main", "subagent") else "unknown"


def inventory(
    opts: SessionsOptions, *, offset: int, limit: int, match: str | None, active_minutes: int | None
) -> Page:
    """The sessions ``opts.as_key`` may see (the operator: all but incognito ones), every
    filter in SQL before the page, newest update first, ``limit`` of them from ``offset``,
    shaped as upstream's sessions_list rows (label and display name redacted; a parent
    named only when the caller may see it)."""
    ctx = StateScope.at(opts.state_dir, opts.agent, opts.all_agents)
    since = None if active_minutes is None else now_ms() - active_minutes * 60_000
    found: list[tuple[Any, ...]] = []
    with SessionLookup(ctx.root, ctx.agent) as index:
        policy = None if opts.as_key is None else caller_policy(ctx.agent, ctx.config, index, opts)
        agents = ctx.agents() if policy is None else stores_in_scope(index, policy)
        for agent in agents:
            with open_store(ctx.root, agent) as conn, transaction(conn, write=False):
                rows = _newest(conn, agent, policy, (since, None), offset + limit, match=match)
                found += [(*r, _entry(conn, r[0])) for r in rows]
        found.sort(key=lambda r: (r[3] is None, -(r[3] or 0), r[0]))
        shown = found[offset : offset + limit]
        redactor = ctx.redactor()
        main_key = ctx.config.visibility_settings().main_key
        rows_out = tuple(_inventory_row(r, index, policy, redactor, main_key) for r in shown)
    more = len(found) > offset + limit
    next_offset = offset + limit if more else None
    if policy is None:  # the operator (mcp --operator): everything but incognito sessions
        return Page(rows_out, more, next_offset, "all")
    return Page(rows_out, more, next_offset, policy.visibility, policy.restrict_to_spawned)


def _entry(conn: sqlite3.Connection, key: str) -> tuple[dict[str, Any], str | None]:
    """(the session's store entry, its parent: spawnedBy or parentSessionKey)."""
    got = conn.execute(
        "SELECT entry_json, coalesce(parent_session_key, spawned_by) FROM sessions"
        " WHERE session_key = ?",
        (key,),
    ).fetchone()
    try:
        entry = json.loads(got[0]) if got and got[0] else {}
    except ValueError:
        entry = {}
    return (entry if isinstance(entry, dict) else {}), (got[1] if got else None)


def _inventory_row(
    r: tuple[Any, ...],
    index: SessionLookup,
    policy: visibility.Policy | None,
    redactor: Redactor,
    main_key: str,
) -> dict[str, Any]:
    key, sid, label, updated, _gens, agent, (entry, parent) = r
    kind = kind_of(key, entry, main_key)
    row: dict[str, Any] = {"key": key}
    if sid:
        row["sessionId"] = sid
    row |= {
        "agentId": keys.agent_of(key) or agent,
        "kind": kind,
        "channel": channel_of(key, kind, entry),
        "archived": entry.get("archived") is True,
        "pinned": entry.get("pinned") is True,
    }
    if label:
        row["label"] = redactor.redact_text(label)
    name = entry.get("displayName")
    if isinstance(name, str) and name.strip():
        row["displayName"] = redactor.redact_text(name)
    if parent and (policy is None or any(map(policy.sees, index.with_key(parent)))):
        row["parentSessionKey"] = parent
    if updated is not None:
        row["updatedAt"] = updated
    return row
