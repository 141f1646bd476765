"""Where a command runs: the state root, the agent (or every agent with a store), and the
config and redaction rules that go with that root."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from openclaw_sessions import config
from openclaw_sessions.errors import StoreError

from . import paths

if TYPE_CHECKING:
    from openclaw_sessions.redact import Redactor


class StateScope(NamedTuple):
    root: Path
    agent: str
    all_agents: bool = False

    @classmethod
    def at(cls, state_dir: Path | None, agent: str, all_agents: bool = False) -> StateScope:
        """--state-dir (else $OPENCLAW_STATE_DIR, else ~/.openclaw) and --agent/--all-agents."""
        return cls(paths.state_root(state_dir), agent, all_agents)

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
            found = paths.agents_with_db(self.root)
            if not found:
                raise StoreError(
                    f"no agent databases under {self.root / 'agents'}",
                    hint="run `openclaw-sessions import` first, which reads "
                    + paths.where(self.root),
                    code="no_agents",
                )
            return found
        return [paths.check_agent_id(self.agent)]
