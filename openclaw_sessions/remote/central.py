"""A host's sessions and settings as pushed: the references visibility decides over, and the
config snapshot that read/scope.py's caller_policy reads for `search --as KEY --host H`
(the same rules, over central rows instead of local stores)."""

from __future__ import annotations

from typing import Any

from openclaw_sessions import config
from openclaw_sessions.errors import ConfigError, UsageError
from openclaw_sessions.policy import keys, visibility

from . import schema

S = schema.SCHEMA


class HostSessions:
    """The sessions of one host (every store), with older generations' ids, in memory."""

    def __init__(self, conn: Any, host: str) -> None:
        rows = conn.execute(
            "SELECT agent, session_key, session_id, spawned_by, parent_session_key,"
            f" owner_session_key FROM {S}.ocs_sessions WHERE host = %s",
            (host,),
        ).fetchall()
        # (the store it is in, its reference)
        self.stored = [
            (str(a), keys.SessionRef(str(k), keys.agent_of(str(k)) or str(a), *rest))
            for a, k, *rest in rows
        ]
        current = {(a, ref.key): ref.session_id for a, ref in self.stored}
        older = conn.execute(
            f"SELECT DISTINCT agent, session_key, session_id FROM {S}.ocs_transcripts"
            " WHERE host = %s",
            (host,),
        ).fetchall()
        self.index = keys.Snapshot(
            [ref for _a, ref in self.stored]
            + [
                keys.SessionRef(str(k), keys.agent_of(str(k)) or str(a), str(sid))
                for a, k, sid in older
                if (a, k) in current and current[(a, k)] != sid
            ]
        )
        got = conn.execute(f"SELECT config FROM {S}.ocs_hosts WHERE host = %s", (host,)).fetchone()
        if got is None:
            raise UsageError(
                f"host {host!r} has not pushed to this database",
                hint="see the hosts with `search --remote DSN --count --by-session ANYWORD`",
            )
        self.config = from_snapshot(got[0] if isinstance(got[0], dict) else {})


def from_snapshot(snap: dict[str, Any]) -> config.Config:
    """The Config a host pushed (push.config_snapshot), as far as visibility reads it."""
    error = snap.get("visibilityError")
    return config.Config(
        visibility=snap.get("visibility"),
        agent_to_agent_enabled=bool(snap.get("agentToAgentEnabled", True)),
        agent_to_agent_allow=tuple(snap.get("agentToAgentAllow") or ()),
        sandbox_visibility_default=str(
            snap.get("sandboxVisibilityDefault") or visibility.DEFAULT_SANDBOX_VISIBILITY
        ),
        sandbox_visibility_by_agent=dict(snap.get("sandboxVisibilityByAgent") or {}),
        redact_patterns=(),  # never pushed (push.config_snapshot): the rows are redacted
        main_key=str(snap.get("mainKey") or keys.DEFAULT_MAIN_KEY),
        visibility_error=ConfigError(str(error)) if error else None,
    )
