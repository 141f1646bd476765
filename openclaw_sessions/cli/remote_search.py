"""The remote branch of `search` (`--remote DSN`, `--host H`…), which commands/search.py hands
over to when either is given: the central database instead of the local stores, printed as
local search prints (each hit's session key shown as host/key for people; JSON adds `host`).
The options' declarations are commands/search.py's. Only this module and commands/push.py
reach openclaw_sessions.remote (and psycopg, through it)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from openclaw_sessions.errors import ExitCode

from . import output

if TYPE_CHECKING:
    from openclaw_sessions.read.search import SearchOptions


def run_search(opts: SearchOptions, out: Any, agent_given: bool) -> int:
    """`search --remote DSN`: the central database instead of the local stores.
    ``agent_given``: --agent was on the command line or in $OPENCLAW_AGENT."""
    from openclaw_sessions.remote.search import operator_json, search_remote, with_hosts

    found = search_remote(
        opts, out.remote, list(out.hosts or []), agent_given, trusted_network=out.trusted_network
    )
    result = found.result
    code = int(ExitCode.OK if result.found else ExitCode.NOTHING)
    caller = opts.as_key is not None
    if out.as_json:
        output.echo_json(result.agent_json() if caller else operator_json(found))
        return code
    from . import render

    if out.jsonl and result.match_count is None and result.sessions is None:
        doc = operator_json(found)
        for h, item in zip(result.hits, doc["results"], strict=True):
            output.echo_json(h.agent_json() if caller else item)
        render.search_footer(result)
        return code
    shown = result if caller else with_hosts(found)
    if shown.match_count is not None or shown.sessions is not None:
        if out.jsonl and not caller:
            for item in operator_json(found).get("sessions", []):
                output.echo_json(item)
        else:
            render.search_counts(shown, jsonl=out.jsonl)
    elif out.layout == "table" or (out.layout == "auto" and sys.stdout.isatty()):
        render.search_table(shown, out.times())
    else:
        render.search_lines(shown, out.times())
    return code
