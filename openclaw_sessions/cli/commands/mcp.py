"""`mcp`: the stdio MCP server's command. The server and the MCP SDK
(the optional ``[mcp]`` extra) are imported only here, when the command runs, so no other
command pays for them; without the extra the command says in one `error:` line how to
install it (exit 2). The caller is resolved before the server starts (mcp/identity.py):
nothing is written on stdout until the server owns it, and a failure to start is an `error:`
line and its exit code, as in every command."""

import sys
from importlib.util import find_spec
from typing import Annotated

import typer

from openclaw_sessions.cli import output
from openclaw_sessions.cli.options import (
    VISIBILITY,
    AgentOpt,
    AsOpt,
    SandboxOpt,
    StateDirOpt,
    VisOpt,
    examples,
)
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.store import paths

INSTALL = "pip install 'openclaw-sessions[mcp]'"
EPILOG = examples("mcp --as agent:main:main", "mcp --as agent:ops:main --agent ops")


def _sdk_missing() -> UsageError | None:
    """Why the server cannot be loaded (the extra is not installed, or not usable)."""
    if find_spec("mcp") is None:
        return UsageError(f"mcp needs the MCP SDK, an optional extra: {INSTALL}")
    try:
        import openclaw_sessions.mcp.server  # noqa: F401 - the SDK, as the server uses it
    except ImportError as exc:
        return UsageError(
            f"mcp cannot load the MCP SDK ({exc}): {INSTALL} installs a version that fits"
        )
    return None


def command(
    as_key: AsOpt = None,
    operator: Annotated[
        bool,
        typer.Option(
            "--operator",
            help="Serve every session of every agent, with no visibility rules (instead of"
            " --as; says so on stderr).",
            rich_help_panel=VISIBILITY,
        ),
    ] = False,
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    visibility: VisOpt = None,
    sandboxed: SandboxOpt = False,
) -> int:
    """Serve sessions_search and sessions_history over MCP (stdio), as one fixed caller."""
    missing = _sdk_missing()
    if missing is not None:
        raise missing
    from openclaw_sessions.mcp import identity as ident
    from openclaw_sessions.mcp.server import serve

    opts = ident.McpOptions(as_key, operator, state_dir, agent, visibility, sandboxed)
    who = ident.resolve(opts)
    if who.operator:
        print(output.safe(ident.OPERATOR_WARNING.format(root=who.root)), file=sys.stderr)
    try:
        serve(who)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK)
