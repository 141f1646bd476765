"""`status`: each agent's store and index state, with a health verdict (ok, attention,
error) and the config file of option defaults that was read; `--json` prints a verdict even
for a store that cannot be opened."""

from typing import Any

import typer

from openclaw_sessions.cli import guard, output, userconfig
from openclaw_sessions.cli.options import (
    AGENT,
    ALL_AGENTS,
    COLOR,
    JSON,
    OUTPUT,
    STATE_DIR,
    TIME,
    UTC,
    declare,
    examples,
    split,
)
from openclaw_sessions.errors import OpenClawError, StoreError
from openclaw_sessions.read.status import StatusOptions, status, unusable

EPILOG = examples("status --all-agents", "status --problems", "status --json | jq .health")


def run(params: dict[str, Any]) -> int:
    """Show each agent's store and index state, with a health verdict (ok, attention, error)."""
    opts, out = split(StatusOptions, params)
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

        render_status.status_view(stats, out.times(), verbose=out.verbose, problems=opts.problems)
    return int(max(s["exitCode"] for s in stats))


def _unusable(opts: StatusOptions, exc: OpenClawError) -> Any:
    """`status --json` when the store cannot be opened: the agent's `error` verdict (or, with
    --all-agents and no store at all, the lone verdict in the list)."""
    from openclaw_sessions.store.state import StateScope

    if opts.all_agents or not isinstance(exc, StoreError):
        message = guard.redacted(exc.message + (f" ({exc.hint})" if exc.hint else ""))
        lone = {"health": "error", "diagnostics": [{"code": exc.code, "message": message}]}
        return [lone] if opts.all_agents else lone
    ctx = StateScope.at(opts.state_dir, opts.agent)
    return unusable(ctx.root, opts.agent.lower(), exc)


command = declare(
    run,
    StatusOptions,
    state_dir=STATE_DIR,
    agent=AGENT,
    all_agents=ALL_AGENTS,
    problems=typer.Option(
        "--problems",
        help="List quarantined lines and known import problems (file:line).",
        rich_help_panel=OUTPUT,
    ),
    verbose=typer.Option(
        "--verbose", "-v", help="Every detail of each agent's store.", rich_help_panel=OUTPUT
    ),
    as_json=JSON,
    utc=UTC,
    time=TIME,
    color=COLOR,
)
