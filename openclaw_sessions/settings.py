"""Every OPENCLAW_* environment variable the tool reads, read here and nowhere else.

Each accessor reads the environment when it is called, never at import: tests and callers
that live long change it. The full CLI also lets Click read OPENCLAW_STATE_DIR and
OPENCLAW_AGENT as its options' defaults (cli/app.py declares them with these names).
"""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR = "OPENCLAW_STATE_DIR"
AGENT = "OPENCLAW_AGENT"
CONFIG_PATH = "OPENCLAW_CONFIG_PATH"


def state_dir() -> Path | None:
    """$OPENCLAW_STATE_DIR: the state root when --state-dir is not given (None: unset or empty)."""
    raw = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(raw).expanduser() if raw else None


def agent() -> str | None:
    """$OPENCLAW_AGENT as set, empty included (how Click reads an empty value is Click's)."""
    return os.environ.get("OPENCLAW_AGENT")


def config_path() -> Path | None:
    """$OPENCLAW_CONFIG_PATH: upstream's config file instead of <root>/openclaw.json."""
    raw = os.environ.get("OPENCLAW_CONFIG_PATH", "").strip()
    return Path(os.path.expanduser(raw)) if raw else None


def defaults_file() -> tuple[Path, bool]:
    """Our own config file of option defaults, and whether it was named explicitly:
    $OPENCLAW_SESSIONS_CONFIG (must exist), else $XDG_CONFIG_HOME/openclaw-sessions/config.toml,
    else ~/.config/openclaw-sessions/config.toml (read when it exists)."""
    raw = os.environ.get("OPENCLAW_SESSIONS_CONFIG", "")
    if raw:
        return Path(os.path.expanduser(raw)), True
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "openclaw-sessions" / "config.toml", False


def busy_timeout_ms() -> int | None:
    """$OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS: how long to wait for another writer's lock."""
    raw = os.environ.get("OPENCLAW_SESSIONS_BUSY_TIMEOUT_MS")
    return int(raw) if raw and raw.isdigit() else None


def remote_dsn() -> str | None:
    """$OPENCLAW_SESSIONS_REMOTE: the central database of `push` and `search --remote -`."""
    return os.environ.get("OPENCLAW_SESSIONS_REMOTE") or None


def max_pages() -> int | None:
    """$OPENCLAW_SESSIONS_MAX_PAGES: a size quota per store (also how tests fill a disk)."""
    raw = os.environ.get("OPENCLAW_SESSIONS_MAX_PAGES", "")
    return int(raw) if raw.isdigit() else None


def regex_cache_dir() -> Path:
    """$OPENCLAW_SESSIONS_CACHE_DIR, else $XDG_CACHE_HOME/openclaw-sessions, else ~/.cache/…"""
    if raw := os.environ.get("OPENCLAW_SESSIONS_CACHE_DIR"):
        return Path(raw)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "openclaw-sessions"


def regex_cache() -> bool:
    """False when $OPENCLAW_SESSIONS_NO_REGEX_CACHE is 1: compile the patterns every run."""
    return os.environ.get("OPENCLAW_SESSIONS_NO_REGEX_CACHE") != "1"


def background_reindex() -> bool:
    """False when $OPENCLAW_SESSIONS_NO_BACKGROUND is 1: search starts no reconciler."""
    return os.environ.get("OPENCLAW_SESSIONS_NO_BACKGROUND") != "1"


def plan_workers() -> bool | None:
    """$OPENCLAW_SESSIONS_PLAN_WORKER: "0" never plans in worker processes, "1" always; None
    (unset or anything else): by the size of the backlog."""
    raw = os.environ.get("OPENCLAW_SESSIONS_PLAN_WORKER")
    return {"0": False, "1": True}.get(raw or "")


def completing() -> bool:
    """A shell is asking for completions (Click's _OPENCLAW_SESSIONS_COMPLETE, or any
    *_COMPLETE variable): only the full CLI answers those."""
    return any(k.endswith("_COMPLETE") for k in os.environ)
