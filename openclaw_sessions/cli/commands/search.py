"""`search`: full-text search of the active branch, in every output form (a table, plain
lines, JSON, JSON lines, counts, session keys); with --remote, the fleet's central database
(remote_search.py)."""

from typing import Any

import typer

from openclaw_sessions import settings
from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.completion import complete_agent, complete_session_key, words
from openclaw_sessions.cli.options import count, declare, examples, layout, null, split, text
from openclaw_sessions.cli.search_forms import Output, show
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.read.search import SearchOptions, search

EPILOG = examples(
    "search migration timeout --since 7d",
    "search kubernetes -staging",
    "search '\"rate limit\" OR throttl* -billing'",
    "search '(database OR postgres) timeout' --relax",
    "search deploy --role assistant --format plain | cut -f1 | sort -u",
    "search invoice --json | jq -r '.results[].sessionKey'",
    "search FAILED --all-agents --follow --jsonl | jq --unbuffered -r .sessionKey",
)
WORDS = "query"  # app.Command: a `-word` that is no option of ours is a query word


def run(params: dict[str, Any]) -> int:
    """Full-text search of user and assistant text on the active branch."""
    params["query"] = " ".join(params["query"] or ())
    opts, out = split(SearchOptions, Output, params)
    if out.layout != "auto" and (out.as_json or out.jsonl):
        raise UsageError("--format is for the human output", hint="drop it, or drop --json/--jsonl")
    if out.null:
        from openclaw_sessions.cli import nul  # -0 only: a rare form

        nul.check(params)
    if out.follow and (out.as_json or opts.counts or opts.sessions or opts.as_key or out.remote):
        raise UsageError(
            "--follow prints each new hit as a line (plain or --jsonl)",
            hint="drop --json, --count, --sessions, --as and --remote",
        )
    if out.remote is not None or out.hosts:
        from openclaw_sessions.cli.remote_search import run_search

        return run_search(opts, out)
    result = search(opts)
    code = int(ExitCode.OK if result.found else ExitCode.NOTHING)
    for agent, why in result.skipped:  # what the answer left out, named; exit 3 says it
        output.error(f"agent {agent} skipped: {why}", "see `openclaw-sessions status`")
        code = int(ExitCode.STORE)
    show(out, result, result.to_json(), result, caller=opts.as_key is not None)
    if out.follow:
        from openclaw_sessions.cli.search_follow import follow_search

        follow_search(opts, out, result)
    return code


REMOTE = "Fleet (a central database: see push)"
command = declare(
    run,
    SearchOptions,
    Output,
    query=(
        list[str] | None,
        typer.Argument(
            metavar="QUERY",
            help='Words to find, all of them; "exact phrase", a OR b, -word (leave out),'
            " word* (prefix), parentheses (--literal: every word as text). Several words"
            " need no quotes; after -- every word is query text.",
            callback=text(empty_ok=True),  # empty: the core's own message
            show_default=False,
        ),
    ),
    state_dir=options.STATE_DIR,
    agent=typer.Option(
        "--agent",
        metavar="ID",
        help="Agent id (with --remote: only this agent's rows; default there: every agent).",
        envvar=settings.AGENT,
        autocompletion=complete_agent,
    ),
    all_agents=options.ALL_AGENTS,
    limit=typer.Option(
        "--limit", "-n", metavar="N", help="Most results to return.", callback=count()
    ),
    session=typer.Option(
        "--session",
        metavar="KEY|ID",
        help="Only this session key or id (or a unique prefix of an id).",
        autocompletion=complete_session_key,
        callback=text(named=True),
        rich_help_panel=options.FILTERS,
    ),
    role=options.ROLE,
    kind=options.KIND,
    not_kind=options.NOT_KIND,
    key=options.KEY_GLOB,
    since=options.SINCE,
    until=options.UNTIL,
    order=typer.Option(
        "--order",
        metavar="ORDER",
        help="relevance (by session, near-duplicates folded, automation demoted), recent,"
        " or upstream (bm25 then time, as --as).",
        autocompletion=words("relevance", "recent", "upstream"),
    ),
    prefix=typer.Option("--prefix", help="The last term matches as a prefix."),
    literal=typer.Option(
        "--literal", help="No operators: every word is literal text, as with --as."
    ),
    relax=typer.Option(
        "--relax", help="When nothing matches every word, show (labelled) what matches most."
    ),
    semantic=typer.Option(
        "--semantic",
        help="Show the messages nearest in meaning, labelled, whatever the words match (the"
        " [semantic] extra; without it only an empty page gets them).",
    ),
    as_key=options.AS,
    visibility=options.VISIBILITY_MODE,
    sandboxed=options.SANDBOXED,
    wait=typer.Option("--wait", help="Finish pending indexing first."),
    max_bytes=typer.Option(
        "--max-bytes",
        metavar="BYTES",
        help="Cap on the results' JSON size (default 0: none; fixed at 32768 with --as).",
        callback=count(least=0),
    ),
    explain=typer.Option("--explain", help="Say how the query was routed and why nothing matched."),
    counts=typer.Option(
        "--count",
        "-c",
        help="Print the number of matching messages, no snippets.",
        rich_help_panel=options.OUTPUT,
    ),
    by_session=typer.Option(
        "--by-session", help="With --count: one count per session.", rich_help_panel=options.OUTPUT
    ),
    sessions=typer.Option(
        "--sessions",
        "-l",
        help="Print the session keys with a match (like rg -l).",
        rich_help_panel=options.OUTPUT,
    ),
    context=typer.Option(
        "--context",
        "-C",
        metavar="N",
        help="Show N active-branch messages before and after each hit.",
        callback=count(least=0),
        rich_help_panel=options.OUTPUT,
    ),
    as_json=options.JSON,
    jsonl=typer.Option(
        "--jsonl", help="One result object per line.", rich_help_panel=options.OUTPUT
    ),
    layout=layout("one hit"),
    follow=typer.Option(
        "--follow",
        "-f",
        help="Then print each new hit as it is written (imports every 2 s), until Ctrl-C.",
        rich_help_panel=options.OUTPUT,
    ),
    null=null("each hit's session key and message id (with --sessions: each key)"),
    pick_list=options.PICK_LIST,
    no_pager=options.NO_PAGER,
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
    remote=typer.Option(
        "--remote",
        metavar="DSN",
        help="Search the central PostgreSQL database instead (- : $OPENCLAW_SESSIONS_REMOTE).",
        rich_help_panel=REMOTE,
    ),
    hosts=typer.Option(
        "--host",
        metavar="NAME",
        help="With --remote: only this host (repeatable); with --as, the caller's host.",
        rich_help_panel=REMOTE,
    ),
    trusted_network=typer.Option(
        "--trusted-network",
        help="With --remote: the network is private (allow a DSN to another machine without"
        " sslmode=verify-full or verify-ca).",
        rich_help_panel=REMOTE,
    ),
)
