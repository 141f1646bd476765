"""The remote branch of `search` (`--remote DSN`, `--host H`…), which commands/search.py hands
over to when either is given: the central database instead of the local stores, printed as
local search prints (each hit's session key shown as host/key for people; JSON adds `host`).
The options' declarations are commands/search.py's. Only this module and commands/push.py
reach openclaw_sessions.remote (and psycopg, through it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openclaw_sessions.errors import ExitCode, UsageError

from . import search_forms

if TYPE_CHECKING:
    from openclaw_sessions.read.search import SearchOptions


def run_search(opts: SearchOptions, out: Any, agent_given: bool) -> int:
    """`search --remote DSN`: the central database instead of the local stores.
    ``agent_given``: --agent was on the command line or in $OPENCLAW_AGENT."""
    from openclaw_sessions.remote.search import operator_json, search_remote, with_hosts

    if opts.kind or opts.not_kind or opts.key:
        raise UsageError(
            "--kind, --not-kind and --key are not read with --remote",
            hint="filter the keys with jq, or search the gateway's own store",
        )
    found = search_remote(
        opts, out.remote, list(out.hosts or []), agent_given, trusted_network=out.trusted_network
    )
    result = found.result
    code = int(ExitCode.OK if result.found else ExitCode.NOTHING)
    caller = opts.as_key is not None
    human = result if caller else with_hosts(found)
    answer = search_forms.Answer(result, lambda: operator_json(found), human, local=False)
    search_forms.emit(answer, out, caller=caller)
    return code
