"""Where things live: the state root, each agent's sessions dir and our database file."""

from __future__ import annotations

import re
from pathlib import Path

from openclaw_sessions import settings
from openclaw_sessions.errors import UsageError

DB_NAME = "openclaw-sessions.sqlite"
DEFAULT_AGENT = "main"
_AGENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def state_root(explicit: Path | None = None) -> Path:
    """--state-dir, else $OPENCLAW_STATE_DIR, else ~/.openclaw."""
    if explicit is not None:
        return explicit.expanduser()
    return settings.state_dir() or Path.home() / ".openclaw"


def where(root: Path, agent: str = "*") -> str:
    """Where a command looks for transcripts, and why there (which setting chose the state
    root): for messages."""
    if settings.state_dir() == root:
        origin = f"set by ${settings.STATE_DIR}"
    elif root == Path.home() / ".openclaw":
        origin = f"by default (neither --state-dir nor ${settings.STATE_DIR} is set)"
    else:
        origin = "set by --state-dir"
    return f"{root / 'agents' / agent / 'sessions'}; state root {origin}"


def check_agent_id(agent_id: str) -> str:
    """Agent ids become directory names: refuse anything that could escape."""
    if not _AGENT_RE.match(agent_id):
        raise UsageError(
            f"invalid agent id {agent_id!r}",
            hint="agent ids are letters, digits, '.', '_' and '-'",
        )
    return agent_id.lower()


def agent_dir(root: Path, agent_id: str) -> Path:
    return root / "agents" / check_agent_id(agent_id)


def db_path(root: Path, agent_id: str) -> Path:
    return agent_dir(root, agent_id) / DB_NAME


def known_agents(root: Path) -> list[str]:
    """Agents that have our database or an upstream sessions dir, sorted."""
    base = root / "agents"
    if not base.is_dir():
        return []
    found = []
    for child in base.iterdir():
        if not child.is_dir() or not _AGENT_RE.match(child.name):
            continue
        if (child / DB_NAME).exists() or (child / "sessions").is_dir():
            found.append(child.name.lower())
    return sorted(set(found))


def agents_with_db(root: Path) -> list[str]:
    return [a for a in known_agents(root) if db_path(root, a).exists()]
