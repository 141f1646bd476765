"""Who is reconciling: lock files per agent, and the detached background reconciler.

`reconcile.lock` is held shared by every running reconciler, so "is one running?" is a
non-blocking exclusive probe. `background.lock` is held exclusively by the background one,
so a search never starts two per agent. Locks die with their process (kill -9 included).
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from openclaw_sessions import settings

RUNNING = "reconcile.lock"
BACKGROUND = "background.lock"


def _open(agent_dir: Path, name: str) -> int:
    agent_dir.mkdir(parents=True, exist_ok=True)
    return os.open(agent_dir / name, os.O_RDWR | os.O_CREAT, 0o644)


@contextmanager
def reconciling(agent_dir: Path) -> Iterator[None]:
    """Mark this process as a running reconciler for the agent."""
    fd = _open(agent_dir, RUNNING)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def is_running(agent_dir: Path) -> bool:
    try:
        fd = os.open(agent_dir / RUNNING, os.O_RDONLY)
    except OSError:  # no lock file (none ever ran here), or one we cannot open
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@contextmanager
def background_slot(agent_dir: Path) -> Iterator[bool]:
    """Yield True when this process is the agent's one background reconciler."""
    fd = _open(agent_dir, BACKGROUND)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def background_busy(agent_dir: Path) -> bool:
    """True when a background reconciler already runs, or none can be started here."""
    try:
        with background_slot(agent_dir) as mine:
            return not mine
    except OSError:  # read-only media: nobody can reconcile, so do not try
        return True


def spawn(state_root: Path, agent_id: str) -> None:
    """Start a detached `reindex --background` that outlives this process."""
    if not settings.background_reindex():
        return
    import subprocess

    args = [sys.executable, "-m", "openclaw_sessions", "reindex", "--background", "--quiet"]
    args += ["--state-dir", str(state_root), "--agent", agent_id]
    subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
