"""`push`: a host's redacted index rows and session metadata into the central database,
incrementally and idempotently.

What leaves the machine: the index rows local search searches (active-branch user and
assistant text, redacted, of transcripts whose index is fresh under the current rules), their
folded tokens, and the session fields visibility reads; plus the host's visibility settings.
Never: raw lines, thinking, tool calls or results, incognito sessions.

Incremental: each transcript's fingerprint (revision, index state, rules, its rows' ids) is
kept centrally; an unchanged one moves nothing, a changed one is diffed row by row (a hash of
each row), a gone or stale one is deleted centrally. Each batch commits with the fingerprints
it makes true, so an interrupted push resumes where it stopped. Pushes of one host are
serialised by an advisory lock on the host's name; other hosts' pushes touch other rows.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, NamedTuple

from openclaw_sessions import __version__, config
from openclaw_sessions.errors import UsageError
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.paths import StateScope

from . import dsn as dsns
from . import schema, sync

S = schema.SCHEMA
HOST_LOCK = 0x6F6373  # pg_advisory_lock(HOST_LOCK, hashtext(host))


class PushOptions(NamedTuple):
    """`push`'s options; each field declares the CLI parameter of its name (type, default)."""

    dsn: str | None = None  # None or "-": $OPENCLAW_SESSIONS_REMOTE
    state_dir: Path | None = None
    host: str | None = None  # default: this machine's hostname
    agent: str | None = None  # None: every agent
    all_agents: bool = False
    trusted_network: bool = False  # no TLS check: the network is private (dsn.resolve)
    retire: str | None = None  # instead of pushing: delete this host's rows centrally


class PushReport(NamedTuple):
    host: str
    remote: str  # where, without the password
    agents: tuple[str, ...]
    upserted: int
    deleted: int
    unchanged: int
    sessions_upserted: int
    sessions_deleted: int
    transcripts: int  # transcripts whose rows were pushed (changed or new)
    stale: int  # transcripts not pushed: their index is not fresh (reindex first)
    skipped: tuple[str, ...]  # session keys the central database cannot hold (sync.Counts)
    migrated_from: int

    def to_json(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "remote": self.remote,
            "agents": list(self.agents),
            "upserted": self.upserted,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "sessionsUpserted": self.sessions_upserted,
            "sessionsDeleted": self.sessions_deleted,
            "transcriptsPushed": self.transcripts,
            "stale": self.stale,
            "skipped": list(self.skipped),
            "schemaVersion": schema.VERSION,
            "migratedFrom": self.migrated_from,
        }


def host_name(raw: str | None) -> str:
    name = (raw if raw is not None else socket.gethostname()).strip()
    if not name or any(ord(c) < 32 or c.isspace() for c in name) or len(name) > 255:
        raise UsageError("--host must be a non-empty name without spaces or control characters")
    return name


def config_snapshot(cfg: config.Config, fp: str) -> dict[str, Any]:
    """The settings `search --as` reads on this host, as pushed."""
    return {
        "visibility": cfg.visibility,
        "agentToAgentEnabled": cfg.agent_to_agent_enabled,
        "agentToAgentAllow": list(cfg.agent_to_agent_allow),
        "sandboxVisibilityDefault": cfg.sandbox_visibility_default,
        "sandboxVisibilityByAgent": dict(cfg.sandbox_visibility_by_agent),
        "mainKey": cfg.main_key,
        # what search needs of the host's rules: which they were, never the patterns (a
        # literal an operator listed to mask it must not become readable centrally)
        "redactFingerprint": fp,
        "visibilityError": cfg.visibility_error.message if cfg.visibility_error else None,
    }


class Retired(NamedTuple):
    """`push --retire HOST`: what the central database held of a host, now deleted."""

    host: str
    remote: str
    rows: int
    sessions: int
    transcripts: int
    known: bool  # the host had pushed

    def to_json(self) -> dict[str, Any]:
        return {"retired": self.host, "remote": self.remote, "deleted": self.rows,
                "sessionsDeleted": self.sessions, "transcriptsDeleted": self.transcripts,
                "known": self.known}  # fmt: skip


def retire(opts: PushOptions) -> Retired:
    """Delete every central row of host ``opts.retire`` (a redeployed container's old name),
    in one transaction, under the host's push lock."""
    dsn = dsns.resolve(opts.dsn, trusted_network=opts.trusted_network)
    host = host_name(opts.retire)
    import psycopg

    conn = dsns.connect(dsn, autocommit=True)
    try:
        schema.migrate(conn)
        conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (HOST_LOCK, host))
        counts = {}
        with conn.transaction():
            for table in ("ocs_postings", "ocs_rows", "ocs_transcripts", "ocs_sessions",
                          "ocs_stats", "ocs_terms", "ocs_hosts"):  # fmt: skip
                cur = conn.execute(f"DELETE FROM {S}.{table} WHERE host = %s", (host,))
                counts[table] = cur.rowcount
    except psycopg.Error as exc:
        raise dsns.translate(exc, dsn) from None
    finally:
        conn.close()
    return Retired(
        host,
        dsns.masked(dsn),
        counts["ocs_rows"],
        counts["ocs_sessions"],
        counts["ocs_transcripts"],
        counts["ocs_hosts"] > 0,
    )


def push(opts: PushOptions) -> PushReport:
    dsn = dsns.resolve(opts.dsn, trusted_network=opts.trusted_network)
    host = host_name(opts.host)
    ctx = StateScope.at(
        opts.state_dir, opts.agent or paths.DEFAULT_AGENT, opts.agent is None or opts.all_agents
    )
    agents = ctx.agents()
    cfg = ctx.config
    red = ctx.redactor()  # its SecretRef values too, as the local index was built
    fp = red.fingerprint
    counts = sync.Counts()
    import psycopg

    conn = dsns.connect(dsn, autocommit=True)  # each `with conn.transaction()` commits
    try:
        start = schema.migrate(conn)
        # a larger GIN pending list for this session: COPY's rows reach the index in bigger
        # merges (measured: 1.7x faster inserts than the 4 MB default)
        conn.execute("SET gin_pending_list_limit = '32MB'")
        conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (HOST_LOCK, host))
        with conn.transaction():
            conn.execute(
                f"INSERT INTO {S}.ocs_hosts (host, config, tool) VALUES (%s, %s, %s)"
                " ON CONFLICT (host) DO UPDATE SET config = excluded.config,"
                " tool = excluded.tool, pushed_at = now()",
                (host, json.dumps(config_snapshot(cfg, fp)), __version__),
            )
        for agent in agents:
            with open_store(ctx.root, agent) as local:
                sync.push_agent(conn, local, host, agent, red, counts)
        if opts.agent is None or opts.all_agents:
            _forget_agents(conn, host, agents, counts)
    except psycopg.Error as exc:
        raise dsns.translate(exc, dsn) from None
    finally:
        conn.close()  # the host's lock goes with the session
    figures = {**vars(counts), "skipped": tuple(sorted(counts.skipped))}
    return PushReport(host, dsns.masked(dsn), tuple(agents), migrated_from=start, **figures)


def _forget_agents(conn: Any, host: str, agents: list[str], counts: sync.Counts) -> None:
    """A push of every agent deletes the central rows of agents this host no longer has."""
    # rows come and go with their transcripts: the agents of those (and of the sessions)
    known = conn.execute(
        f"SELECT agent FROM {S}.ocs_transcripts WHERE host = %s UNION"
        f" SELECT agent FROM {S}.ocs_sessions WHERE host = %s",
        (host, host),
    ).fetchall()
    gone = sorted({str(a) for (a,) in known} - set(agents))
    if not gone:
        return
    with conn.transaction():
        for table in ("ocs_postings", "ocs_rows", "ocs_transcripts", "ocs_sessions",
                      "ocs_stats", "ocs_terms"):  # fmt: skip
            cur = conn.execute(
                f"DELETE FROM {S}.{table} WHERE host = %s AND agent = ANY(%s)", (host, gone)
            )
            if table == "ocs_rows":
                counts.deleted += cur.rowcount
            elif table == "ocs_sessions":
                counts.sessions_deleted += cur.rowcount
