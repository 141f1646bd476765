"""Shell-completion callbacks: session keys offered from the agent's store, agent ids from the
state root, and the fixed values of the options that take one of a few words.

Owns: finding the store the command line points at (``--state-dir``/``--agent`` already
typed, else ``$OPENCLAW_STATE_DIR``/``$OPENCLAW_AGENT``, else the defaults) and reading its
session keys. This runs on every TAB press, so it imports only the standard library, ``paths``
and ``db``, opens the database read-only (never creating or migrating it, never starting a
reconciliation) and never raises: a missing, locked or corrupt store offers nothing.

Use it as ``typer.Argument(autocompletion=complete_session_key)`` or the same on an Option;
``words(...)`` makes the callback of an option with fixed values.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from openclaw_sessions import settings
from openclaw_sessions.store import paths
from openclaw_sessions.store.db import open_readonly

MAX_CANDIDATES = 500  # a shell menu longer than this is noise, and the query stays fast
_TIMEOUT_MS = 250  # a TAB press must not hang on a writer's lock


def session_keys(root: Path, agent: str, prefix: str = "") -> list[str]:
    """Session keys of one agent's store starting with `prefix`, sorted; [] without a store."""
    path = paths.db_path(root, agent)
    if not path.is_file():
        return []
    conn = open_readonly(path, busy_ms=_TIMEOUT_MS)
    try:
        rows = conn.execute(
            "SELECT session_key FROM sessions WHERE substr(session_key, 1, ?) = ?"
            " ORDER BY session_key LIMIT ?",
            (len(prefix), prefix, MAX_CANDIDATES),
        ).fetchall()
    finally:
        conn.close()
    return [key for (key,) in rows if isinstance(key, str) and key.startswith(prefix)]


def _param(ctx: typer.Context | None, name: str) -> object:
    """The value of `name` on this command line: the command's own, else a parent's."""
    node: Any = ctx  # parents are Click contexts: Typer's vendored class, not typer.Context
    while node is not None:
        value = node.params.get(name)
        if value is not None:
            return value
        node = node.parent
    return None


def _targets(ctx: typer.Context | None) -> tuple[Path, list[str]]:
    state_dir = _param(ctx, "state_dir")
    root = paths.state_root(Path(str(state_dir)) if state_dir else None)
    if _param(ctx, "all_agents"):
        return root, paths.agents_with_db(root)
    agent = _param(ctx, "agent") or settings.agent() or paths.DEFAULT_AGENT
    return root, [paths.check_agent_id(str(agent))]


def complete_session_key(ctx: typer.Context, incomplete: str) -> list[str]:
    """Typer `autocompletion=` callback: the store's session keys starting with `incomplete`,
    in the escaped form KEY arguments read (a key with a line break completes as `\\n`)."""
    from openclaw_sessions.cli.output import escape, unescape

    try:
        root, agents = _targets(ctx)
        keys: set[str] = set()
        for agent in agents:
            keys.update(escape(k) for k in session_keys(root, agent, unescape(incomplete)))
        return sorted(k for k in keys if k.startswith(incomplete))[:MAX_CANDIDATES]
    except Exception:  # completion must never print a traceback into the user's shell
        return []


def complete_agent(ctx: typer.Context, incomplete: str) -> list[str]:
    """Agent ids under the state root: with a store, or an upstream sessions dir."""
    try:
        state_dir = _param(ctx, "state_dir")
        root = paths.state_root(Path(str(state_dir)) if state_dir else None)
        return [a for a in paths.known_agents(root) if a.startswith(incomplete)]
    except Exception:  # never a traceback into the user's shell
        return []


# callback -> its words: scripts/gen_docs.py reads them into the config file's checks
WORDS: dict[Callable[[str], list[str]], tuple[str, ...]] = {}


def words(*values: str) -> Callable[[str], list[str]]:
    """The callback of an option that takes one of ``values``."""

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    WORDS[complete] = values
    return complete
