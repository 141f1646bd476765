"""`status`: each agent's store and index state, with a health verdict (ok, attention,
error) and the config file of option defaults that was read; `--json` prints a verdict even
for a store that cannot be opened.

`--json` is one shape with or without `--all-agents`: an object with `health`, `reasons`,
`exitCode` and an `agents` list. For one agent the object is also that agent's own record (its
fields at the top, as before), so `jq .health` and `jq '.agents[]'` read both forms."""

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
            output.echo_json(_shape(_unusable(opts, exc), opts.all_agents))
        raise
    config = userconfig.load().path
    for s in stats:  # which config file of defaults was read (null: none)
        s["config"] = str(config) if config else None
    if out.as_json:
        output.echo_json(_shape(stats, opts.all_agents))
    else:
        from openclaw_sessions.cli import render_status

        render_status.status_view(stats, times(out), verbose=out.verbose, problems=opts.problems)
    return int(max(s["exitCode"] for s in stats))


_WORST = {"ok": 0, "attention": 1, "error": 2}


def _shape(stats: list[dict[str, Any]], all_agents: bool) -> dict[str, Any]:
    """The one `--json` shape. One agent: its record with `agents: [record]` added (every
    field it had stays where it was). Every agent: the worst health, each agent's reasons
    prefixed by its id, the highest exit code, and the records in `agents`. An entry without
    `agentId` (no store at all) is a verdict, not an agent: it lends its fields, no record."""
    agents = [dict(s) for s in stats if "agentId" in s]
    if not all_agents and len(stats) == 1:
        return {**stats[0], "agents": agents}
    health = max((s["health"] for s in stats), key=_WORST.__getitem__, default="ok")
    doc: dict[str, Any] = {
        "health": health,
        "reasons": [f"{s['agentId']}: {why}" for s in agents for why in s.get("reasons", [])],
        "exitCode": max((int(s.get("exitCode", 3)) for s in stats), default=0),
        "diagnostics": [
            {**d, "agentId": s["agentId"]} for s in agents for d in s.get("diagnostics", [])
        ],
        "agents": agents,
    }
    for lone in (s for s in stats if "agentId" not in s):  # no store: say why at the top
        doc["diagnostics"] = lone["diagnostics"]
        doc["reasons"] = [d["message"] for d in lone["diagnostics"]]
    return doc


def _unusable(opts: StatusOptions, exc: OpenClawError) -> list[dict[str, Any]]:
    """`status --json` when the store cannot be opened: the agent's `error` verdict (or, with
    --all-agents and no store at all, the lone verdict in the list)."""
    from openclaw_sessions.store.paths import StateScope

    if opts.all_agents or not isinstance(exc, StoreError):
        message = guard.redacted(exc.message + (f" ({exc.hint})" if exc.hint else ""))
        return [{"health": "error", "diagnostics": [{"code": exc.code, "message": message}]}]
    ctx = StateScope.at(opts.state_dir, opts.agent)
    return [unusable(ctx.root, opts.agent.lower(), exc)]


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
