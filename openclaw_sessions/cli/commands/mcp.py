"""`mcp`: the stdio MCP server's command. The server and the MCP SDK
(the optional ``[mcp]`` extra) are imported only here, when the command runs, so no other
command pays for them; without the extra the command says in one `error:` line how to
install it (exit 2). The caller is resolved before the server starts (mcp/identity.py):
nothing is written on stdout until the server owns it, and a failure to start is an `error:`
line and its exit code, as in every command."""

import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import NoOutput, declare, examples
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.store.paths import DEFAULT_AGENT

if TYPE_CHECKING:
    from openclaw_sessions.mcp.identity import Identity

class McpOptions(NamedTuple):
    """`mcp`'s options: who the server answers as (mcp/identity.resolve); each field declares
    the CLI parameter of its name (type, default). Here, not in mcp/: no other command loads
    anything of the server's to declare this one."""

    as_key: str | None = None
    operator: bool = False
    state_dir: Path | None = None
    agent: str = DEFAULT_AGENT
    visibility: str | None = None
    sandboxed: bool = False
    check: bool = False  # start the server as a host does, say what it sees, stop
    print_config: str | None = None  # a host's configuration for this server (mcp/hosts.py)


INSTALL = "pip install 'openclaw-sessions[mcp]'"
EPILOG = examples(
    "mcp --as agent:main:main",
    "mcp --as agent:ops:main --agent ops",
    "mcp --as agent:main:main --check",
    "mcp --as agent:main:main --print-config claude-desktop",
)


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


def run(params: dict[str, Any]) -> int:
    """Serve sessions_search and sessions_history over MCP (stdio), as one fixed caller."""
    missing = _sdk_missing()
    if missing is not None:
        raise missing
    from openclaw_sessions.mcp import identity

    opts = McpOptions(**params)
    who = identity.resolve(opts)
    if opts.print_config is not None:
        return _print_config(opts.print_config, who)
    if opts.check:
        from openclaw_sessions.mcp import check

        seen = check.run(who)
        print(output.safe(seen.line), file=sys.stdout if seen.ok else sys.stderr)
        return int(ExitCode.OK if seen.ok else ExitCode.STORE)
    from openclaw_sessions.mcp.server import serve

    if who.operator:
        print(output.safe(identity.OPERATOR_WARNING.format(root=who.root)), file=sys.stderr)
    try:
        serve(who)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    return int(ExitCode.OK)


def _print_config(host: str, who: "Identity") -> int:
    from openclaw_sessions.mcp import hosts

    if host not in hosts.HOSTS:
        raise UsageError(f"--print-config takes one of {', '.join(hosts.HOSTS)}")
    print(f"# {hosts.WHERE[host]}", file=sys.stderr)
    sys.stdout.write(hosts.config(host, who))
    return int(ExitCode.OK)


command = declare(
    run,
    McpOptions,
    NoOutput,
    as_key=options.AS,
    operator=typer.Option(
        "--operator",
        help="Serve every session of every agent, with no visibility rules (instead of"
        " --as; says so on stderr).",
        rich_help_panel=options.VISIBILITY,
    ),
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    visibility=options.VISIBILITY_MODE,
    sandboxed=options.SANDBOXED,
    check=typer.Option(
        "--check",
        help="Start the server as an MCP host does (absolute command, HOME and PATH only),"
        " print what it sees (tools, caller, store, sessions visible) or why it cannot start,"
        " and stop.",
    ),
    print_config=typer.Option(
        "--print-config",
        metavar="HOST",
        help="Print the configuration that starts this server in HOST: claude-desktop,"
        " claude-code or codex (absolute command, caller and state dir as arguments).",
    ),
)
