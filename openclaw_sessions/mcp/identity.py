"""Who the MCP server answers as: resolved once, when it starts, never from a tool call.

``--as KEY`` resolves exactly as ``search --as`` resolves it (aliases, session ids, the
caller's agent, the visibility mode, the sandbox clamp, the agent-to-agent allow list), and
the config it was read under is pinned for the life of the server (config.pin): an edit of
``openclaw.json`` takes effect at the next start. Each call then runs the core with this
identity's canonical key and modes, so the caller's relations (the sessions it spawned) are
read from the store as ``search --as`` reads them at that moment. Without ``--as`` the server
does not start, unless ``--operator`` says on purpose that every session is exposed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, Protocol

from openclaw_sessions import config
from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import visibility
from openclaw_sessions.read.scope import ActingAs, caller_policy
from openclaw_sessions.store import paths
from openclaw_sessions.store.paths import StateScope
from openclaw_sessions.store.sessions import SessionLookup

OPERATOR_WARNING = (
    "warning: mcp --operator: every session of every agent under {root} is exposed to whoever"
    " talks to this server (no visibility rules apply); serve an agent with --as KEY instead"
)


class Asked(ActingAs, Protocol):
    """Who the `mcp` command was asked to serve (its options: cli/commands/mcp.py)."""

    @property
    def operator(self) -> bool: ...
    @property
    def state_dir(self) -> Path | None: ...
    @property
    def agent(self) -> str: ...


class Identity(NamedTuple):
    """The caller of every tool call of one server: fixed at start-up."""

    root: Path
    agent: str
    as_key: str | None  # the canonical session key; None: the operator (--operator)
    visibility: str | None
    sandboxed: bool
    config: config.Config

    @property
    def operator(self) -> bool:
        return self.as_key is None

    def options(self) -> dict[str, Any]:
        """Who asks, as the core's options name it (SearchOptions, HistoryOptions)."""
        return {
            "state_dir": self.root,
            "agent": self.agent,
            "as_key": self.as_key,
            "visibility": self.visibility,
            "sandboxed": self.sandboxed,
        }


def resolve(opts: Asked) -> Identity:
    """The server's caller, or UsageError (exit 2) / StoreError (exit 3) before it starts."""
    _check(opts)
    ctx = StateScope.at(opts.state_dir, paths.check_agent_id(opts.agent))
    cfg = ctx.config  # read once: pinned while the server runs
    if opts.as_key is None:
        return Identity(ctx.root, ctx.agent, None, None, False, cfg)
    with SessionLookup(ctx.root, ctx.agent) as index:
        key = caller_policy(ctx.agent, cfg, index, opts).caller.key
    if key is None:  # caller_policy always names a caller; this keeps mypy honest
        raise UsageError("--as did not name a session")
    return Identity(ctx.root, ctx.agent, key, opts.visibility, opts.sandboxed, cfg)


def _check(opts: Asked) -> None:
    """Who the server is for must be said, once, and on purpose."""
    if opts.as_key is not None and opts.operator:
        raise UsageError(
            "--as and --operator cannot be used together",
            hint="--as KEY serves one session's view; --operator serves every session",
        )
    if opts.as_key is None and not opts.operator:
        raise UsageError(
            "mcp needs --as KEY (the session it answers as, fixed when the server starts)",
            hint="e.g. --as agent:main:main (the agent's main session); --operator exposes"
            " every session, on purpose",
        )
    if opts.operator and (opts.visibility is not None or opts.sandboxed):
        raise UsageError("--visibility and --sandboxed go with --as, not --operator")
    visibility.check_visibility(opts.visibility)
    if opts.as_key is not None and not opts.as_key.strip():
        raise UsageError("--as must not be empty")


def describe(identity: Identity) -> str:
    """One line for the server's instructions and the start-up note on stderr."""
    if identity.operator:
        return "the operator: every session of every agent"  # no path reaches a model
    mode = identity.visibility or identity.config.visibility or visibility.DEFAULT_VISIBILITY
    sandbox = ", sandboxed" if identity.sandboxed else ""
    return f"session {identity.as_key} (visibility {mode}{sandbox})"
