"""`status`: each agent's store and index state, with a health verdict (ok, attention,
error) and the config file of option defaults that was read; `--json` prints a verdict even
for a store that cannot be opened."""

from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import guard, options, output, userconfig
from openclaw_sessions.cli.options import declare, examples, split, times
from openclaw_sessions.errors import OpenClawError, StoreError
from openclaw_sessions.read.status import StatusOptions, status, unusable


class Output(NamedTuple):
    """How `status` prints: the core never sees it."""

    verbose: bool = False  # every detail
    as_json: bool = False
    utc: bool = False
    time: str = "absolute"  # absolute | relative
    color: str = "auto"  # auto | always | never


EPILOG = examples("status --all-agents", "status --problems", "status --json | jq .health")


def run(params: dict[str, Any]) -> int:
    """Show each agent's store and index state, with a health verdict (ok, attention, error)."""
    opts, out = split(StatusOptions, Output, params)
    try:
        stats = status(opts)
    except OpenClawError as exc:  # --json still prints the verdict, on stdout
        if out.as_json:
            output.echo_json(_unusable(opts, exc))
        raise
    config = userconfig.load().path
    for s in stats:  # which config file of defaults was read (null: none)
        s["config"] = str(config) if config else None
    if out.as_json:
        output.echo_json(stats if opts.all_agents else stats[0])
    else:
        from openclaw_sessions.cli import render_status

        render_status.status_view(stats, times(out), verbose=out.verbose, problems=opts.problems)
    return int(max(s["exitCode"] for s in stats))


def _unusable(opts: StatusOptions, exc: OpenClawError) -> Any:
    """`status --json` when the store cannot be opened: the agent's `error` verdict (or, with
    --all-agents and no store at all, the lone verdict in the list)."""
    from openclaw_sessions.store.paths import StateScope

    if opts.all_agents or not isinstance(exc, StoreError):
        message = guard.redacted(exc.message + (f" ({exc.hint})" if exc.hint else ""))
        lone = {"health": "error", "diagnostics": [{"code": exc.code, "message": message}]}
        return [lone] if opts.all_agents else lone
    ctx = StateScope.at(opts.state_dir, opts.agent)
    return unusable(ctx.root, opts.agent.lower(), exc)


command = declare(
    run,
    StatusOptions,
    Output,
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    problems=typer.Option(
        "--problems",
        help="List quarantined lines and known import problems (file:line).",
        rich_help_panel=options.OUTPUT,
    ),
    verbose=typer.Option(
        "--verbose",
        "-v",
        help="Every detail of each agent's store.",
        rich_help_panel=options.OUTPUT,
    ),
    as_json=options.JSON,
    utc=options.UTC,
    time=options.TIME,
    color=options.COLOR,
)
