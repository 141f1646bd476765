"""`status`, once parsed (run.py hands it over): the verdict of each agent's store, with the
config file of option defaults that was read; `--json` prints a verdict even for a store that
cannot be opened."""

from __future__ import annotations

from typing import Any

from openclaw_sessions.errors import OpenClawError
from openclaw_sessions.read.status import StatusOptions, status

from . import guard, output, userconfig
from .run import split


def command(params: dict[str, Any]) -> int:
    opts, out = split(StatusOptions, params)
    try:
        stats = status(opts)
    except OpenClawError as exc:  # --json still prints the verdict, on stdout
        if out.as_json:
            output.echo_json(_unusable(opts, exc))
        guard.fail(exc, out.as_json)
    config = guard.guarded(out.as_json, userconfig.load).path
    for s in stats:  # which config file of defaults was read (null: none)
        s["config"] = str(config) if config else None
    if out.as_json:
        output.echo_json(stats if opts.all_agents else stats[0])
    else:
        from . import render_status

        render_status.status_view(stats, out.times(), verbose=out.verbose, problems=opts.problems)
    return int(max(s["exitCode"] for s in stats))


def _unusable(opts: StatusOptions, exc: OpenClawError) -> Any:
    """`status --json` when the store cannot be opened: the agent's `error` verdict (or, with
    --all-agents and no store at all, the lone verdict in the list)."""
    from openclaw_sessions.errors import StoreError
    from openclaw_sessions.read.status import unusable
    from openclaw_sessions.store.context import Context

    if opts.all_agents or not isinstance(exc, StoreError):
        message = guard.redacted(exc.message + (f" ({exc.hint})" if exc.hint else ""))
        lone = {"health": "error", "diagnostics": [{"code": exc.code, "message": message}]}
        return [lone] if opts.all_agents else lone
    ctx = Context.at(opts.state_dir, opts.agent)
    return unusable(ctx.root, opts.agent.lower(), exc)
