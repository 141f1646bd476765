"""Who is asking: the visibility policy of a caller acting as a session (`--as KEY`), over a
snapshot of every agent's session references."""

from __future__ import annotations

from openclaw_sessions import config
from openclaw_sessions.policy import keys, visibility
from openclaw_sessions.store.context import Context
from openclaw_sessions.store.sessions import all_session_refs


def caller_policy(
    ctx: Context, cfg: config.Config, *, as_key: str, visibility_mode: str | None, sandboxed: bool
) -> visibility.Policy:
    """The visibility policy of ``--as KEY`` (shared by search and history)."""
    refs = all_session_refs(ctx)
    key = keys.resolve_caller_key(as_key, ctx.agent, refs, main_key=cfg.main_key)
    caller_agent = keys.agent_of(key) or ctx.agent
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
