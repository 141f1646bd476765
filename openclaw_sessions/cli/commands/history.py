"""`history`: a session's conversation on its active branch, a page or a window around a
message, as text (paged on a terminal), JSON, or followed as it grows."""

from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import count, declare, examples, split, text, times
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.read.history import HistoryOptions, history


class Output(NamedTuple):
    """How `history` prints: the core never sees it."""

    as_json: bool = False
    jsonl: bool = False
    no_pager: bool = False
    follow: bool = False  # then what is appended, until Ctrl-C
    utc: bool = False
    time: str = "absolute"  # absolute | relative
    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "history agent:main:main --limit 20",
    "history agent:main:main --around 78dde6c6 --time relative",
    "history agent:main:main --full > conversation.txt",
    "history agent:main:main --follow --limit 5",
    "history agent:main:main --follow --jsonl | jq --unbuffered -r .role",
)


def run(params: dict[str, Any]) -> int:
    """Read a session's conversation on its active branch, paged or around a message."""
    opts, out = split(HistoryOptions, Output, params)
    if out.follow and (out.as_json or opts.around is not None or opts.offset is not None):
        raise UsageError(
            "--follow shows the newest messages, then each new one, as text or JSON lines",
            hint="drop --json (--jsonl: one message a line), --around and --offset",
        )
    if out.as_json and out.jsonl:
        raise UsageError("--json and --jsonl cannot be used together")
    result = history(opts)
    if out.as_json:
        output.echo_json(result.to_json())
    elif out.jsonl:  # one message a line, each as the JSON's messages hold it
        for message in result.messages:
            output.echo_json({"sessionKey": result.session_key, **message})
    else:
        from openclaw_sessions.cli import history_view

        history_view.show(
            result,
            times(out),
            whole=opts.uncapped,
            liftable=opts.as_key is None,
            use_pager=not out.no_pager and not out.follow,
        )
    if out.follow:
        from openclaw_sessions.cli import follow

        follow.follow(opts, result, times(out), jsonl=out.jsonl)
    return int(ExitCode.OK if result.messages else ExitCode.NOTHING)


command = declare(
    run,
    HistoryOptions,
    Output,
    key=options.KEY,
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    limit=typer.Option(
        "--limit",
        "-n",
        metavar="N",
        help="Most messages per page or window (default 200; --full: all).",
        callback=count(),
        show_default=False,
    ),
    offset=typer.Option(
        "--offset",
        metavar="N",
        help="Skip this many newest messages (page back with nextOffset).",
        callback=count(),
        show_default=False,
    ),
    around=typer.Option(
        "--around",
        metavar="MESSAGE_ID",
        help="Window centred on this message id (a search hit's messageId).",
        callback=text(empty_ok=True, named=True),  # empty: the core's own message
    ),
    session_id=typer.Option(
        "--session-id",
        metavar="ID",
        help="Generation that owns the --around message (a hit's sessionId, or a prefix).",
        callback=text(named=True),
    ),
    include_tools=options.INCLUDE_TOOLS,
    full=typer.Option(
        "--full",
        help="Every message, each whole (no text or page caps; still redacted; not with --as).",
    ),
    max_bytes=typer.Option(
        "--max-bytes",
        metavar="BYTES",
        help="Cap on the page's JSON size (0: none, as --full; not with --as).",
        callback=count(least=0),
    ),
    as_key=options.AS,
    visibility=options.VISIBILITY_MODE,
    sandboxed=options.SANDBOXED,
    as_json=options.JSON,
    jsonl=typer.Option(
        "--jsonl",
        help="One message object per line (with --follow: each new one as it comes).",
        rich_help_panel=options.OUTPUT,
    ),
    no_pager=typer.Option(
        "--no-pager",
        help="Never page (default: $PAGER, else less, on a terminal).",
        rich_help_panel=options.OUTPUT,
    ),
    follow=typer.Option(
        "--follow",
        "-f",
        help="Then print new messages as the transcript grows, until Ctrl-C (no pager).",
        rich_help_panel=options.OUTPUT,
    ),
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
)
