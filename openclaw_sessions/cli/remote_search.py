"""The remote branch of `search` (`--remote DSN`, `--host H`…), which commands/search.py hands
over to when either is given: the central database instead of the local stores, printed as
local search prints (each hit's session key shown as host/key for people; JSON adds `host`).
The options' declarations are commands/search.py's. Only this module and commands/push.py
reach openclaw_sessions.remote (and psycopg, through it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openclaw_sessions.errors import ExitCode

from .search_forms import Output, show

if TYPE_CHECKING:
    from openclaw_sessions.read.search import SearchOptions


def run_search(opts: SearchOptions, out: Output) -> int:
    """`search --remote DSN`: the central database instead of the local stores: every agent's
    rows unless the caller gave --agent (command line, $OPENCLAW_AGENT or the config file)."""
    from openclaw_sessions.remote.search import operator_json, search_remote, with_hosts

    hosts = list(out.hosts or [])
    agent_given = "agent" in out.given
    found = search_remote(opts, out.remote, hosts, agent_given, trusted_network=out.trusted_network)
    result = found.result
    caller = opts.as_key is not None
    people = result if caller else with_hosts(found)
    show(out, result, operator_json(found), people, caller=caller)
    return int(ExitCode.OK if result.found else ExitCode.NOTHING)
