"""The remote branch of `search` (`--remote DSN`, `--host H`…), which run.py hands over to
when either is given: the central database instead of the local stores, printed as local
search prints (each hit's session key shown as host/key for people; JSON adds `host`). The
options' declarations are remote_cli.py's."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from openclaw_sessions.errors import ExitCode

from . import guard, output

if TYPE_CHECKING:
    from openclaw_sessions.read.search import SearchOptions

# Was --agent on search's command line (or in $OPENCLAW_AGENT)? The Typer path records it
# here (remote_cli.agent_source, the option's callback); the fast path passes only what was
# given. Typer-free: the fast path runs this module.
AGENT_GIVEN: list[bool] = []


def run_search(opts: SearchOptions, out: Any, params: dict[str, Any]) -> int:
    """`search --remote DSN`: the central database instead of the local stores."""
    from openclaw_sessions.remote.search import operator_json, search_remote, with_hosts

    # Typer passes every parameter (--host's list included: the fast path leaves a list
    # option to Typer, so it never passes one); the fast path only those given
    given = AGENT_GIVEN[0] if "hosts" in params and AGENT_GIVEN else "agent" in params
    hosts = list(out.hosts or [])
    found = guard.guarded(
        out.as_json or out.jsonl, lambda: search_remote(opts, out.remote, hosts, given)
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
            output.echo_json(h.upstream_json() if caller else item)
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
