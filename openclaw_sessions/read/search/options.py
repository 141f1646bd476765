"""`search`'s options and their own rules, wherever the search runs (here, or --remote's
database: remote/search.py)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import kinds, visibility
from openclaw_sessions.policy.limits import AS_MAX_LIMIT
from openclaw_sessions.store import paths

ORDERS = ("relevance", "recent", "upstream")


class SearchOptions(NamedTuple):
    """`search`'s options; each field declares the CLI parameter of its name (type, default)."""

    query: str
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    limit: int = 10
    session: str | None = None  # a key or a session id
    role: str | None = None
    since: str | None = None  # an ISO date/time or a span (when.parse_window)
    until: str | None = None
    order: str = "relevance"
    prefix: bool = False
    as_key: str | None = None
    visibility: str | None = None
    sandboxed: bool = False
    wait: bool = False
    # 0: no cap. The 32 KiB cap is the agent tool's: --as always has it, the operator on request.
    max_bytes: int = 0
    explain: bool = False
    counts: bool = False  # --count: the number of matching messages instead of hits
    by_session: bool = False  # with --count: per session
    sessions: bool = False  # the sessions with a match instead of hits (like `rg -l`)
    context: int = 0  # -C N: N active-branch messages before and after each hit
    literal: bool = False  # every word literal, as upstream (always so with --as)
    relax: bool = False  # nothing matches every word: show what matches most of them
    semantic: bool = False  # the nearest in meaning, whatever the words match ([semantic] extra)
    kind: list[str] | None = None  # --kind: only these kinds of session (policy/kinds.py)
    not_kind: list[str] | None = None  # --not-kind: not these
    key: list[str] | None = None  # --key GLOB: only keys matching one of these


def validate(opts: SearchOptions) -> None:
    """The options' own rules, wherever the search runs (here, or --remote's database)."""
    if opts.limit < 1 or (opts.as_key is not None and opts.limit > AS_MAX_LIMIT):
        raise UsageError(
            "limit must be a positive integer",
            hint=f"with --as the limit is at most {AS_MAX_LIMIT}",
        )
    if opts.by_session and not opts.counts:
        raise UsageError("--by-session counts per session: use it with --count")
    if opts.counts and opts.sessions:
        raise UsageError(
            "--count and --sessions cannot be used together",
            hint="--count --by-session gives each session's count",
        )
    if opts.context < 0:
        raise UsageError("-C/--context must be 0 or more")
    if (opts.counts or opts.sessions) and (opts.context or opts.explain):
        what = "-C/--context" if opts.context else "--explain"
        raise UsageError(f"{what} shows hits: it does not go with --count or --sessions")
    if opts.role not in (None, "user", "assistant"):
        raise UsageError("role must be user or assistant")
    if opts.order not in ORDERS:
        raise UsageError("order must be relevance, recent or upstream")
    if opts.relax and opts.as_key is not None:
        raise UsageError("--relax is an operator option", hint="--as keeps upstream's query")
    if opts.semantic and (opts.as_key is not None or opts.counts or opts.sessions):
        what = "--as keeps upstream's answer" if opts.as_key else "it shows hits"
        raise UsageError("--semantic is an operator search for hits", hint=what)
    kinds.operator_only(opts.as_key, opts.kind, opts.not_kind, opts.key)
    visibility.check_visibility(opts.visibility)
