"""`history KEY --follow`: like `tail -f`, the conversation as it grows.

After the usual history, the session's transcript file (or, for a session whose transcript the
gateway has not written yet, the file it will write) is watched (its size and mtime, every
half second: one stat, no read); when it changes, its sessions dir is imported through the
normal import path (idempotent: only the appended lines are new) and the messages of the active
branch after the last one printed are printed in history's own format, with a marker line
for each reset or compaction not printed yet (an agent's view shows upstream's Reset).
It runs until Ctrl-C
(exit 130, through the usual SIGINT handler) or until the reader goes away (exit 0): a pipe's
reader that closes is noticed while waiting, not only at the next write.
"""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from openclaw_sessions.errors import UsageError
from openclaw_sessions.store import paths

from . import history_view
from .output import echo_json

if TYPE_CHECKING:
    from openclaw_sessions.read.history import HistoryOptions
    from openclaw_sessions.read.models import HistoryResult

    from .style import Times

POLL_SECONDS = 0.5


def transcript_of(opts: HistoryOptions, result: HistoryResult) -> Path | None:
    """The file the session's shown generation was last read from; for a session whose
    transcript is not written yet, where the gateway writes it (<agent>/sessions/<id>.jsonl);
    None: the key names no session."""
    from openclaw_sessions.store.db import open_readonly

    root = paths.state_root(opts.state_dir)
    agent = _agent(opts, result)
    db = paths.db_path(root, agent)
    if not db.is_file():
        return None
    conn = open_readonly(db)
    try:
        row = conn.execute(
            "SELECT source_path FROM transcripts WHERE session_key = ?"
            " ORDER BY session_id = ? DESC, kind = 'current' DESC, transcript_id DESC LIMIT 1",
            (result.session_key, result.session_id or ""),
        ).fetchone()
        sid = conn.execute(
            "SELECT session_id FROM sessions WHERE session_key = ?", (result.session_key,)
        ).fetchone()
    finally:
        conn.close()
    if row and row[0]:
        return Path(row[0])
    if sid and sid[0] and "/" not in sid[0] and sid[0] not in (".", ".."):
        return paths.agent_dir(root, agent) / "sessions" / f"{sid[0]}.jsonl"
    return None


def _agent(opts: HistoryOptions, result: HistoryResult) -> str:
    """The agent whose store holds the session (a scoped key names it)."""
    from openclaw_sessions.policy import keys

    return keys.agent_of(result.session_key) or opts.agent


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def reader_gone() -> bool:
    """stdout is a pipe whose reader closed (POLLERR on the write end)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return False
    if os.isatty(fd) or not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, 0)
    return any(ev & (select.POLLERR | select.POLLHUP) for _fd, ev in poller.poll(0))


def _import(opts: HistoryOptions, agent: str, sessions_dir: Path) -> None:
    from openclaw_sessions.ingest.importer import ImportOptions, import_sources

    import_sources(ImportOptions(sources=[sessions_dir], state_dir=opts.state_dir, agent=agent))


def _after(result: HistoryResult, last: str | None, marked: set[str]) -> HistoryResult:
    """The messages after ``last`` (all of them when it is gone: the branch moved, or an
    agent's view moved past a reset) and the boundaries not printed yet (``marked``: the
    ids of those that were; updated)."""
    ids = [history_view.msg_id(m) for m in result.messages]
    fresh = tuple(b for b in result.boundaries if _key(b) not in marked)
    marked.update(_key(b) for b in fresh)
    if last in ids:
        return result._replace(
            messages=result.messages[ids.index(last) + 1 :], anchor=None, boundaries=fresh
        )
    return result._replace(anchor=None, boundaries=fresh)


def _key(b: dict[str, object]) -> str:
    return f"{b.get('kind')}:{b.get('id')}:{b.get('timestamp')}"


def stop(signum: int, frame: object) -> None:
    """Ctrl-C is how --follow ends: exit 130 without an error line (an import it cuts short
    rolls back as the exit unwinds)."""
    raise SystemExit(130)


def follow(opts: HistoryOptions, first: HistoryResult, times: Times, *, jsonl: bool) -> None:
    """Print what is appended to the session shown in ``first`` until interrupted (``jsonl``:
    each new message as one JSON line, for alerting through jq)."""
    import signal

    from openclaw_sessions.read.history import history

    signal.signal(signal.SIGINT, stop)
    path = transcript_of(opts, first)
    if path is None:
        raise UsageError(
            f"no session stored for {first.session_key}: nothing to follow",
            hint="import it first (openclaw-sessions import)",
        )
    agent = _agent(opts, first)
    last = history_view.msg_id(first.messages[-1]) if first.messages else None
    marked = {_key(b) for b in first.boundaries}  # printed with the first page
    stamp: tuple[int, int] | None = None  # import at once: lines may have come already
    since = opts._replace(around=None, offset=None, session_id=None, limit=None)
    while True:
        sys.stdout.flush()
        if reader_gone():
            raise BrokenPipeError
        now = _stamp(path)
        if now is not None and now == stamp:
            time.sleep(POLL_SECONDS)
            continue
        stamp = now
        _import(opts, agent, path.parent)
        latest = history(since)
        new = _after(latest, last, marked)
        if new.messages:
            last = history_view.msg_id(new.messages[-1])
        if jsonl:
            for message in new.messages:
                echo_json({"sessionKey": new.session_key, **message})
        elif new.messages or new.boundaries:  # a reset is news too: its marker line
            history_view.more(new, times)
        if now is None:  # reset (renamed away) or moved: follow the key's current transcript
            path = transcript_of(opts, latest) or path
            time.sleep(POLL_SECONDS)
