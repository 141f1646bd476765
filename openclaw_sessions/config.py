"""Reads upstream OpenClaw's config file, ``openclaw.json`` (JSON5), for the keys we honour.

Owns: locating the file (``$OPENCLAW_CONFIG_PATH``, else ``<state_root>/openclaw.json``,
as upstream does), parsing it with line:column errors, and validating the few settings
this tool uses: session-tool visibility, agent-to-agent policy, the sandbox clamp
(defaults and per agent), ``session.mainKey`` and ``logging.redactPatterns``. Every
other key is upstream's business and is ignored. A missing file means defaults; a
malformed one is a ConfigError, never a traceback and never silently skipped.

A setting is validated where it is used: the visibility settings (``tools.*``, ``agents.*``)
only matter with ``--as``, so a bad one is kept in the Config and raised by
``Config.visibility_settings()`` (the caller's policy asks for them), never at load time: an
operator's `search` or `status` does not stop on a setting it does not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from openclaw_sessions import settings
from openclaw_sessions.policy.keys import DEFAULT_MAIN_KEY
from openclaw_sessions.policy.visibility import (
    DEFAULT_SANDBOX_VISIBILITY,
    SANDBOX_MODES,
    SANDBOX_VISIBILITIES,
    VISIBILITIES,
)

from .errors import ConfigError

CONFIG_FILENAME = "openclaw.json"

_SYNTAX_HINT = "fix the JSON5 syntax (comments and trailing commas are fine)"
# json5 reports "<string>:LINE <reason> at column COL"; we re-anchor it on the file.
_JSON5_ERROR = re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)
_NO_AGENTS: Mapping[str, str] = MappingProxyType({})  # read-only, so one is shared
_CLAMP = "sessionToolsVisibility"  # sandbox.<this>: the session tools' visibility when sandboxed


class Config(NamedTuple):
    """The settings we read; every field has upstream's default.

    A NamedTuple, not a frozen dataclass: the ``dataclasses`` import is start-up time."""

    visibility: str | None = None  # tools.sessions.visibility; None = unset (all, as upstream)
    # tools.agentToAgent.enabled: omitted means enabled since upstream 2026.9 (PR #136755)
    agent_to_agent_enabled: bool = True
    agent_to_agent_allow: tuple[str, ...] = ()  # tools.agentToAgent.allow
    sandbox_visibility_default: str = DEFAULT_SANDBOX_VISIBILITY
    # agents.list[].sandbox / agents.entries.<id>.sandbox .sessionToolsVisibility
    sandbox_visibility_by_agent: Mapping[str, str] = _NO_AGENTS
    # agents.defaults.sandbox.mode (agent "") and each agent's own: off | non-main | all
    sandbox_modes: tuple[tuple[str, str], ...] = ()
    redact_patterns: tuple[str, ...] = ()  # logging.redactPatterns
    path: Path | None = None  # the file read, None when there was none
    main_key: str = DEFAULT_MAIN_KEY  # session.mainKey: agent:<id>:<mainKey> is "main"
    # A bad setting that only --as reads (tools.*, agents.*): raised when it is used.
    visibility_error: ConfigError | None = None

    def visibility_settings(self) -> Config:
        """This config, once the settings a caller acting as a session reads (visibility,
        agent-to-agent, sandbox clamp) are known to be valid; else their ConfigError."""
        if self.visibility_error is not None:
            raise self.visibility_error
        return self

    def sandbox_mode_for(self, agent_id: str) -> str:
        """Whose sessions run sandboxed (upstream's resolveSandboxConfigForAgent): the agent's
        own mode, else the defaults', else off."""
        modes = dict(self.sandbox_modes)
        return modes.get(agent_id.strip().lower(), modes.get("", "off"))


# A long-running reader (the MCP server, mcp/identity.py) reads the config once, at its start:
# while it is pinned for a root, that reading is the root's config in this process, so an edit
# of the file takes effect at the server's next start, as upstream's tool settings do.
_PINNED: dict[Path, Config] = {}


def pin(state_root: Path, cfg: Config | None) -> Config | None:
    """Answer ``load_config(state_root)`` with ``cfg`` from now on (None: read the file again);
    returns the pin it replaces, for the caller to put back."""
    before = _PINNED.pop(state_root, None)
    if cfg is not None:
        _PINNED[state_root] = cfg
    return before


def load_config(state_root: Path) -> Config:
    """Read and validate the config (where upstream reads it: ``$OPENCLAW_CONFIG_PATH`` wins);
    a missing file gives the defaults."""
    pinned = _PINNED.get(state_root)
    if pinned is not None:
        return pinned
    path = settings.config_path() or state_root / CONFIG_FILENAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(
            f"cannot read config {path}: {exc.strerror or exc}",
            hint=f"check the file's permissions, or set ${settings.CONFIG_PATH} to another file",
        ) from None
    try:
        text = raw.decode("utf-8-sig")  # tolerate a BOM, as editors on Windows write one
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"invalid config {path}: not UTF-8 (byte {exc.start})", hint="save it as UTF-8"
        ) from None
    return _validate(_parse(text, path), path)


def _parse(text: str, path: Path) -> object:
    if not text.strip():
        raise ConfigError(
            f"invalid config {path}:1:1: the file is empty", hint="write {} or delete it"
        )
    try:
        import json5  # only when a config file exists (start-up time)

        return json5.loads(text)
    except (ValueError, RecursionError) as exc:
        reason = str(exc) or type(exc).__name__
        match = _JSON5_ERROR.match(reason)
        where = f"{path}:{match[1]}:{match[3]}" if match else str(path)
        detail = match[2] if match else reason
        detail = " ".join(detail.split())  # keep the message on one line
        raise ConfigError(f"invalid config {where}: {detail}", hint=_SYNTAX_HINT) from None


class _Checker:
    """Type checks that name the offending setting by its dotted path."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str, hint: str) -> ConfigError:
        return ConfigError(f"invalid config {self.path}: {where} {problem}", hint=hint)

    def obj(self, value: object, where: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object, not {_kind(value)}", "use { ... }")
        return value

    def choice(self, value: object, where: str, allowed: tuple[str, ...]) -> str | None:
        if value is None:
            return None
        norm = value.strip().lower() if isinstance(value, str) else None
        if norm not in allowed:
            raise self.fail(
                where,
                f"must be one of {', '.join(allowed)} (got {value!r})",
                f"use one of: {', '.join(allowed)}",
            )
        return norm

    def boolean(self, value: object, where: str, default: bool) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false (got {value!r})", "use true or false")
        return value

    def sandbox(self, value: object, where: str, key: str) -> str | None:
        """``<where>.sandbox.<key>``, the clamp or the mode (None: not set)."""
        sandbox = self.obj(value, f"{where}.sandbox")
        allowed = SANDBOX_MODES if key == "mode" else SANDBOX_VISIBILITIES
        return self.choice(sandbox.get(key), f"{where}.sandbox.{key}", allowed)

    def strings(self, value: object, where: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(where, "must be a list of strings", 'e.g. ["main", "ops-*"]')
        return tuple(value)


def _validate(data: object, path: Path) -> Config:
    check = _Checker(path)
    root = check.obj(data, "the top level")
    logging = check.obj(root.get("logging"), "logging")
    session = check.obj(root.get("session"), "session")
    main_key = session.get("mainKey")
    if main_key is not None and not isinstance(main_key, str):
        raise check.fail("session.mainKey", "must be a string", 'e.g. "main"')
    common = Config(
        redact_patterns=check.strings(logging.get("redactPatterns"), "logging.redactPatterns"),
        path=path,
        main_key=(main_key or "").strip().lower() or DEFAULT_MAIN_KEY,
    )
    try:
        return _visibility(check, root, common)
    except ConfigError as exc:  # only --as reads these: raised when used
        return common._replace(visibility_error=exc)


def _visibility(check: _Checker, root: dict[str, Any], common: Config) -> Config:
    """``common`` with the settings only a caller acting as a session reads."""
    tools = check.obj(root.get("tools"), "tools")
    sessions = check.obj(tools.get("sessions"), "tools.sessions")
    a2a = check.obj(tools.get("agentToAgent"), "tools.agentToAgent")
    agents = check.obj(root.get("agents"), "agents")
    defaults = check.obj(agents.get("defaults"), "agents.defaults")
    default = ("", defaults.get("sandbox"), "agents.defaults")
    sandbox_default = check.sandbox(default[1], default[2], _CLAMP)
    return common._replace(
        visibility=check.choice(
            sessions.get("visibility"), "tools.sessions.visibility", VISIBILITIES
        ),
        agent_to_agent_enabled=check.boolean(
            a2a.get("enabled"), "tools.agentToAgent.enabled", True
        ),
        agent_to_agent_allow=check.strings(a2a.get("allow"), "tools.agentToAgent.allow"),
        sandbox_visibility_default=sandbox_default or DEFAULT_SANDBOX_VISIBILITY,
        sandbox_visibility_by_agent=MappingProxyType(
            dict(_each(check, _agent_sandboxes(check, agents), _CLAMP))
        ),
        sandbox_modes=_each(check, [default, *_agent_sandboxes(check, agents)], "mode"),
    )


def _agent_sandboxes(check: _Checker, agents: dict[str, Any]) -> list[tuple[str, object, str]]:
    """(agent id, its ``sandbox`` value, where) from both shapes upstream has used.

    ``agents.list[]`` (``{id, sandbox}`` entries) is the long-standing shape;
    ``agents.entries.<id>`` is the newer map. Agent ids are lowercased like upstream's.
    """
    found: list[tuple[object, object, str]] = []
    items = agents.get("list")
    if items is not None and not isinstance(items, list):
        raise check.fail("agents.list", f"must be a list, not {_kind(items)}", "use [ ... ]")
    for i, item in enumerate(items or []):
        entry = check.obj(item, f"agents.list[{i}]")
        found.append((entry.get("id"), entry.get("sandbox"), f"agents.list[{i}]"))
    for name, item in check.obj(agents.get("entries"), "agents.entries").items():
        entry = check.obj(item, f"agents.entries.{name}")
        found.append((name, entry.get("sandbox"), f"agents.entries.{name}"))
    out = []
    for agent_id, sandbox_value, where in found:
        if sandbox_value is None:
            continue
        if not isinstance(agent_id, str) or not agent_id.strip():
            raise check.fail(f"{where}.id", "must be a non-empty string", 'e.g. "main"')
        out.append((agent_id.strip().lower(), sandbox_value, where))
    return out


def _each(
    check: _Checker, found: list[tuple[str, object, str]], key: str
) -> tuple[tuple[str, str], ...]:
    """(agent id, its ``sandbox.<key>``) of each agent of ``found`` that sets it."""
    got = ((agent_id, check.sandbox(value, where, key)) for agent_id, value, where in found)
    return tuple((agent_id, v) for agent_id, v in got if v is not None)


def _kind(value: object) -> str:
    names = {list: "a list", str: "a string", bool: "a boolean", dict: "an object"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")
