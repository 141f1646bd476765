"""Where things live: the state root, each agent's sessions dir and our database file; and
where a command runs (StateScope: the root, its agents, its config and redaction rules)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from openclaw_sessions import config, settings
from openclaw_sessions.errors import StoreError, UsageError

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor

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


class StateScope(NamedTuple):
    """Where a command runs: the state root, the agent (or every agent with a store), and the
    config and redaction rules that go with that root."""

    root: Path
    agent: str
    all_agents: bool = False

    @classmethod
    def at(cls, state_dir: Path | None, agent: str, all_agents: bool = False) -> StateScope:
        """--state-dir (else $OPENCLAW_STATE_DIR, else ~/.openclaw) and --agent/--all-agents."""
        return cls(state_root(state_dir), agent, all_agents)

    @property
    def config(self) -> config.Config:
        return config.load_config(self.root)

    def redactor(self) -> Redactor:
        from openclaw_sessions.redact import build_redactor  # its rules take ~10 ms
        from openclaw_sessions.secretrefs import secret_values

        cfg = self.config
        return build_redactor(cfg.redact_patterns, secret_values(cfg, self.root))

    def agents(self) -> list[str]:
        if self.all_agents:
            found = agents_with_db(self.root)
            if not found:
                raise StoreError(
                    f"no agent databases under {self.root / 'agents'}",
                    hint="run `openclaw-sessions import` first, which reads "
                    + where(self.root),
                    code="no_agents",
                )
            return found
        return [check_agent_id(self.agent)]
