"""Who is asking: the visibility policy of a caller acting as a session (`--as KEY`), or of
the operator (no `--as`: every session but incognito ones), over a snapshot of every agent's
session references."""

from __future__ import annotations

from openclaw_sessions import config
from openclaw_sessions.policy import keys, visibility
from openclaw_sessions.store import paths
from openclaw_sessions.store.context import Context
from openclaw_sessions.store.sessions import all_session_refs


def caller_policy(
    ctx: Context, cfg: config.Config, *, as_key: str, visibility_mode: str | None, sandboxed: bool
) -> visibility.Policy:
    """The visibility policy of ``--as KEY`` (shared by search and history); the config's
    visibility settings are checked here, where they are used."""
    cfg = cfg.visibility_settings()
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


def operator_policy(ctx: Context, cfg: config.Config) -> visibility.Policy:
    """The operator's policy (no `--as`): every session but incognito ones, the Policy's only
    rule without a caller key; it resolves what the operator names (key, id, `main`) as
    `--as` does, so an unknown session is "not found" (exit 2) in every command."""
    caller = visibility.Caller(None, paths.check_agent_id(ctx.agent), main_key=cfg.main_key)
    return visibility.Policy(caller, all_session_refs(ctx))
