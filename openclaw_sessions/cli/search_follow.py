"""`search QUERY --follow`: "tell me when any agent says FAILED". After the usual answer, every
two seconds the state root is imported the usual way (idempotent: only what is new is stored,
and a small import indexes what it stored) and the same search runs again, newest first, for
messages stamped at or after the newest match so far; each hit not printed yet is printed in
the answer's form (plain lines or JSON lines), oldest first. It runs until Ctrl-C (exit 130)
or until the reader goes away (exit 0), as `history --follow` does."""

from __future__ import annotations

import signal
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from . import follow, output, render
from .options import times

if TYPE_CHECKING:
    from openclaw_sessions.read.models import Hit, SearchResult
    from openclaw_sessions.read.search import SearchOptions

    from .search_forms import Output

INTERVAL_SECONDS = 2.0


def follow_search(opts: SearchOptions, out: Output, first: SearchResult) -> None:
    """Print the hits that come after ``first``, until interrupted."""
    from openclaw_sessions.ingest.importer import ImportOptions, import_sources
    from openclaw_sessions.read.search import search

    signal.signal(signal.SIGINT, follow.stop)
    # words only: the nearest in meaning (read/semantic.py) are no new matches
    newest = [h for h in search(opts._replace(order="recent", limit=1)).hits if not h.semantic]
    # what is new: stamped at or after the newest match so far, and not that match itself
    seen = {(h.session_key, h.message_id) for h in (*first.hits, *newest)}
    after_ms = max((h.timestamp for h in newest), default=0)
    while True:
        sys.stdout.flush()
        if follow.reader_gone():
            raise BrokenPipeError
        time.sleep(INTERVAL_SECONDS)
        agent = None if opts.all_agents else opts.agent
        import_sources(ImportOptions(state_dir=opts.state_dir, agent=agent, reindex=True))
        since = datetime.fromtimestamp(after_ms / 1000, tz=UTC).isoformat()
        found = search(opts._replace(order="recent", since=since, until=None))
        new = [
            h
            for h in reversed(found.hits)
            if (h.session_key, h.message_id) not in seen and not h.semantic
        ]
        seen.update((h.session_key, h.message_id) for h in new)
        after_ms = max((h.timestamp for h in new), default=after_ms)
        _print(new, out)


def _print(hits: list[Hit], out: Output) -> None:
    if out.jsonl:
        for h in hits:
            output.echo_json(h.to_json())
    elif hits:
        from openclaw_sessions.read.models import SearchResult

        render.search_lines(SearchResult(tuple(hits)), times(out))
