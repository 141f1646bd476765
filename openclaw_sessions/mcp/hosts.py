"""How an MCP host starts this server: the absolute command, the arguments that name the
caller and the state directory, and each host's configuration text (``mcp --print-config
HOST``). A host does not pass the shell's environment (the SDK passes HOME, PATH and a few
others; a GUI host's PATH often lacks ``~/.local/bin``), so nothing here relies on it: the
command is an absolute path and the state directory is an argument, not
``$OPENCLAW_STATE_DIR``. SDK-free; check.py starts what this writes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from openclaw_sessions.store import paths

from .identity import Identity

HOSTS = ("claude-desktop", "claude-code", "codex")
NAME = "openclaw-sessions"
WHERE = {
    "claude-desktop": "claude_desktop_config.json (Settings > Developer > Edit Config)",
    "claude-code": ".mcp.json at the project's root (or: claude mcp add-json NAME 'JSON')",
    "codex": "~/.codex/config.toml",
}


def command() -> list[str]:
    """This installation's command, absolute: the console script beside the interpreter
    that runs now, else the interpreter with ``-m openclaw_sessions``."""
    script = Path(sys.executable).parent / NAME
    if script.is_file():
        return [str(script)]
    found = shutil.which(NAME)
    if found:
        return [str(Path(found).resolve())]
    return [str(Path(sys.executable).absolute()), "-m", "openclaw_sessions"]


def arguments(who: Identity) -> list[str]:
    """``mcp`` and the options that make the same identity, the state directory included."""
    out = ["mcp", "--operator"] if who.as_key is None else ["mcp", "--as", who.as_key]
    out += ["--state-dir", str(who.root)]
    if who.agent != paths.DEFAULT_AGENT:
        out += ["--agent", who.agent]
    if who.visibility is not None:
        out += ["--visibility", who.visibility]
    if who.sandboxed:
        out.append("--sandboxed")
    return out


def _toml(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string is a JSON string


def config(host: str, who: Identity) -> str:
    """The host's configuration text that starts this server as ``who``."""
    cmd, *pre = command()
    args = [*pre, *arguments(who)]
    if host == "codex":
        return "\n".join(
            [
                f"[mcp_servers.{NAME}]",
                f"command = {_toml(cmd)}",
                f"args = [{', '.join(_toml(a) for a in args)}]",
                "",
            ]
        )
    server: dict[str, object] = {"command": cmd, "args": args}
    if host == "claude-code":
        server = {"type": "stdio", **server}
    return json.dumps({"mcpServers": {NAME: server}}, indent=2, ensure_ascii=False) + "\n"
