"""Who is asking and what they may see: the visibility policy of `--as KEY` or of the operator
(every session but incognito ones), the stores and sessions in the caller's scope, the per-row
predicate a query checks visibility with, and whether a visible session waits to be indexed.

Nothing here reads every session: the caller and a target resolve by indexed lookups, the
stores in scope and a narrow caller's sessions are found from the caller's own relations
(itself, the sessions it spawned, parents or owns) and the agents it sees whole, and each hit
of a query is checked against the policy as the query meets it (as upstream checks each row)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Protocol

from openclaw_sessions import config
from openclaw_sessions.policy import keys, visibility
from openclaw_sessions.store import paths, pending, sessions
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.sessions import SessionLookup


class ActingAs(Protocol):
    """What the options of a reading command say about who is asking (`--as` and its mode)."""

    @property
    def as_key(self) -> str | None: ...
    @property
    def visibility(self) -> str | None: ...
    @property
    def sandboxed(self) -> bool: ...


def caller_policy(
    agent: str, cfg: config.Config, index: keys.SessionIndex, opts: ActingAs
) -> visibility.Policy:
    """The visibility policy of ``--as KEY`` asked in agent ``agent``'s directory (search,
    history, sessions, and --remote over a host's pushed sessions); the config's visibility
    settings are checked here, where they are used."""
    if opts.as_key is None:
        raise ValueError("caller_policy is for --as; the operator's is operator_policy")
    if isinstance(index, SessionLookup):
        index.hide_deleted = True  # deleted in OpenClaw: no session, as upstream answers
    cfg = cfg.visibility_settings()
    key = keys.resolve_caller_key(opts.as_key, agent, index, main_key=cfg.main_key)
    caller_agent = keys.agent_of(key) or agent
    caller = visibility.Caller(
        key=key,
        agent_id=caller_agent,
        visibility=opts.visibility or cfg.visibility or visibility.DEFAULT_VISIBILITY,
        sandboxed=opts.sandboxed or _runs_sandboxed(key, caller_agent, cfg, index),
        # Upstream 2026.9.6's session tools read the clamp from agents.defaults only
        # (resolveSandboxSessionToolsVisibility): an agent's own sandbox setting is not theirs.
        sandbox_visibility=cfg.sandbox_visibility_default,
        agent_to_agent_enabled=cfg.agent_to_agent_enabled,
        agent_to_agent_allow=cfg.agent_to_agent_allow,
        main_key=cfg.main_key,
    )
    return visibility.Policy(caller, index)


def _runs_sandboxed(key: str, agent: str, cfg: config.Config, index: keys.SessionIndex) -> bool:
    """Is the caller sandboxed, as OpenClaw decides it (--sandboxed says so outright)?"""
    entry = index.entry(key) if isinstance(index, SessionLookup) else {}
    return visibility.runs_sandboxed(key, entry, cfg.sandbox_mode_for(agent), cfg.main_key)


def operator_policy(ctx: StateScope, cfg: config.Config, index: SessionLookup) -> visibility.Policy:
    """The operator's policy (no `--as`): every session but incognito ones, the Policy's only
    rule without a caller key; it resolves what the operator names (key, id, `main`) as
    `--as` does, so an unknown session is "not found" (exit 2) in every command."""
    caller = visibility.Caller(None, paths.check_agent_id(ctx.agent), main_key=cfg.main_key)
    return visibility.Policy(caller, index)


def _candidates(
    index: SessionLookup, agent: str, policy: visibility.Policy
) -> Iterator[keys.SessionRef]:
    """The sessions of one store that may be visible to the caller: those related to it, and
    those of each agent it sees whole (all visible but incognito ones)."""
    if policy.caller.key is not None:
        yield from index.related(agent, policy.caller.key.strip().lower())
    for named in index.agents_named(agent):
        if policy.sees_all_of(named):
            yield from index.of_agent(agent, named)
    if policy.sees_all_of(agent):
        yield from index.of_agent(agent, None)


def stores_in_scope(index: SessionLookup, policy: visibility.Policy) -> list[str]:
    """The agent stores that hold at least one session the caller may see."""
    return [a for a in index.agents if any(map(policy.sees, _candidates(index, a, policy)))]


def listed_sessions(
    conn: sqlite3.Connection, agent: str, policy: visibility.Policy | None
) -> tuple[str, ...] | None:
    """The sessions of agent ``agent``'s store (``conn``) that the caller may see, listed when
    it sees no agent of that store whole: then they are its own relations (itself, what it
    spawned, parents or owns), few, and a query keeps to their rows before it scores or joins
    anything. None when the caller sees an agent of the store whole (or is the operator): most
    rows are visible then, and the per-row check alone is cheaper than listing them."""
    if policy is None or policy.caller.key is None:
        return None
    if policy.sees_all_of(agent) or any(map(policy.sees_all_of, sessions.agents_named(conn))):
        return None
    refs = sessions.related(conn, agent, policy.caller.key.strip().lower())
    return tuple(sorted({r.key for r in refs if policy.sees(r)}))


# The per-row visibility of a query's rows: t is the transcript, ss its session row. Operator
# mode hides incognito keys only; the GLOB lets few keys reach the exact rule.
OPERATOR_VISIBLE = (
    "(lower(t.session_key) NOT GLOB '*:incognito-*' OR oc_visible(t.session_key, NULL, NULL, NULL))"
)
CALLER_VISIBLE = (
    "oc_visible(t.session_key, ss.spawned_by, ss.parent_session_key, ss.owner_session_key)"
)
SESSION_JOIN = " JOIN sessions ss ON ss.session_key = t.session_key"


def visible_sql(policy: visibility.Policy | None) -> str:
    """The condition a query puts on its rows for this caller (None: the operator)."""
    return OPERATOR_VISIBLE if policy is None or policy.caller.key is None else CALLER_VISIBLE


def in_caller_list(policy: visibility.Policy, key: str) -> bool:
    """Is ``key`` in the list of sessions an agent searches when it names none? Upstream lists
    them with `sessions.list`, which never returns a cron run (`agent:<id>:cron:<job>:run:<run>`),
    and adds the caller itself, whatever it is. The operator's list has every session."""
    caller = policy.caller.key
    if caller is None or not keys.is_cron_run_key(key):
        return True
    return key.strip().lower() == caller.strip().lower()


def register(
    conn: sqlite3.Connection,
    agent: str,
    policy: visibility.Policy | None,
    *,
    cron_runs: bool = True,
) -> None:
    """Define oc_visible on a connection to agent ``agent``'s store: the policy's verdict on a
    row (the operator's, without one), memoised per session for the life of the query.

    ``cron_runs=False``: the rows are a caller's list of sessions (a search that names none,
    `sessions --as`): no cron run but its own (in_caller_list), so a job repeating a word
    cannot fill an agent's page."""
    if policy is None:
        policy = visibility.Policy(visibility.Caller(None, agent), ())
    skip_runs = not cron_runs and policy.caller.key is not None
    seen: dict[tuple[str, str | None, str | None, str | None], int] = {}

    def oc_visible(key: str, spawned: str | None, parent: str | None, owner: str | None) -> int:
        args = (key, spawned, parent, owner)
        got = seen.get(args)
        if got is None:
            ref = keys.SessionRef(key, keys.agent_of(key) or agent, None, spawned, parent, owner)
            listed = not skip_runs or in_caller_list(policy, key)
            got = seen[args] = int(listed and policy.sees(ref))
        return got

    conn.create_function("oc_visible", 4, oc_visible, deterministic=True)


def visible_pending(
    conn: sqlite3.Connection, fingerprint: str, session: str | None, agent: str
) -> bool:
    """Has a session the caller searches (oc_visible, registered; only ``session`` when one
    is named) lines waiting to be indexed? A caller's `indexing` counts its own sessions only:
    a hidden session being written to is none of its business (#34). The pending set, when it
    is kept for this fingerprint, else the definition (store/pending.py)."""
    where = [CALLER_VISIBLE]
    args: list[str | int] = []
    if session is not None:
        where.append("(t.session_key = ? OR t.session_id = ?)")
        args += [session.lower(), session]
    else:  # the store's own namespace, as the search keeps to (search/fts.Filters.agent)
        prefix = f"agent:{agent}:"
        where.append("(t.session_key NOT GLOB 'agent:*' OR substr(t.session_key, 1, ?) = ?)")
        args += [len(prefix), prefix]
    if pending.kept_for(conn, fingerprint):
        source = "index_pending p JOIN transcripts t ON t.transcript_id = p.transcript_id"
    else:
        source = pending.FROM
        where.append(pending.stale_where("?", "?"))
        args += list(pending.params(fingerprint))
    sql = f"SELECT 1 FROM {source}{SESSION_JOIN} WHERE {' AND '.join(where)} LIMIT 1"
    return conn.execute(sql, args).fetchone() is not None
