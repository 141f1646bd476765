"""Config loading: upstream's openclaw.json (JSON5), defaults, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from openclaw_sessions import settings
from openclaw_sessions.config import Config, load_config
from openclaw_sessions.errors import ConfigError, UsageError


def write(root: Path, text: str, name: str = "openclaw.json") -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(root: Path) -> ConfigError:
    with pytest.raises(ConfigError) as exc:
        load_config(root)
    err = exc.value
    assert isinstance(err, UsageError)  # exit 2
    assert "\n" not in err.message
    assert err.hint
    return err


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config()
    assert config.visibility is None
    # Upstream 2026.9 (PR #136755): an omitted tools.agentToAgent.enabled means enabled.
    assert config.agent_to_agent_enabled
    assert config.agent_to_agent_allow == ()
    assert config.sandbox_visibility_default == "spawned"
    assert config.sandbox_visibility_by_agent == {}
    assert config.redact_patterns == ()
    assert config.main_key == "main"
    assert config.path is None


def test_json5_comments_trailing_commas_and_all_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        // upstream writes JSON5
        {
          tools: {
            sessions: { visibility: "ALL", },  /* case-insensitive like upstream */
            agentToAgent: { enabled: true, allow: ['main', "ops-*",], },
            exec: { whatever: 1 },  // keys we do not use are ignored
          },
          agents: {
            defaults: { sandbox: { sessionToolsVisibility: "all" } },
            list: [
              { id: "Family", sandbox: { sessionToolsVisibility: "spawned" } },
              { id: "work" },
            ],
            entries: { ops: { sandbox: { sessionToolsVisibility: "spawned" } } },
          },
          session: { mainKey: "Home" },
          logging: { redactPatterns: ["secret-\\\\w+"] },
        }
        """,
    )
    config = load_config(tmp_path)
    assert config.path == path
    assert config.visibility == "all"
    assert config.agent_to_agent_enabled is True
    assert config.agent_to_agent_allow == ("main", "ops-*")
    assert config.sandbox_visibility_default == "all"
    # agent ids lower-cased as upstream's; an agent without its own clamp has no entry
    assert config.sandbox_visibility_by_agent == {"family": "spawned", "ops": "spawned"}
    assert config.redact_patterns == ("secret-\\w+",)
    assert config.main_key == "home"


def test_empty_object_gives_defaults_with_path(tmp_path: Path) -> None:
    path = write(tmp_path, "{}\n")
    assert load_config(tmp_path) == Config(path=path)


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "{\n  tools: {\n    sessions: { visibility: },\n  },\n}\n")
    err = load_error(tmp_path)
    assert err.message.startswith(f"invalid config {path}:3:")
    line_col = err.message.split(f"{path}:")[1].split(":")[:2]
    assert line_col[0] == "3"
    assert line_col[1].isdigit()


def test_unterminated_file_reports_position(tmp_path: Path) -> None:
    path = write(tmp_path, "{ tools: { sessions: {")
    assert load_error(tmp_path).message.startswith(f"invalid config {path}:1:")


@pytest.mark.parametrize("text", ["", "   \n", "\xff\xfe{}"])
def test_empty_or_undecodable_file_is_an_error(tmp_path: Path, text: str) -> None:
    (tmp_path / "openclaw.json").write_bytes(text.encode("latin-1"))
    assert str(tmp_path / "openclaw.json") in load_error(tmp_path).message


def test_bom_is_tolerated(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").write_bytes(
        b"\xef\xbb\xbf{tools: {sessions: {visibility: 'self'}}}"
    )
    assert load_config(tmp_path).visibility == "self"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[]", "the top level must be an object"),
        ('{tools: {sessions: {visibility: "banana"}}}', "tools.sessions.visibility must be one of"),
        ("{tools: {sessions: {visibility: 3}}}", "tools.sessions.visibility"),
        ("{tools: {sessions: []}}", "tools.sessions must be an object, not a list"),
        ('{tools: {agentToAgent: {enabled: "yes"}}}', "tools.agentToAgent.enabled must be true"),
        ('{tools: {agentToAgent: {allow: "main"}}}', "tools.agentToAgent.allow must be a list"),
        ("{tools: {agentToAgent: {allow: [1]}}}", "tools.agentToAgent.allow must be a list"),
        (
            "{agents: {defaults: {sandbox: {sessionToolsVisibility: 'tree'}}}}",
            "agents.defaults.sandbox.sessionToolsVisibility must be one of spawned, all",
        ),
        ("{agents: {list: {}}}", "agents.list must be a list"),
        ("{agents: {list: [3]}}", "agents.list[0] must be an object"),
        (
            "{agents: {list: [{sandbox: {sessionToolsVisibility: 'all'}}]}}",
            "agents.list[0].id must be a non-empty string",
        ),
        (
            "{agents: {entries: {ops: {sandbox: {sessionToolsVisibility: 'x'}}}}}",
            "agents.entries.ops.sandbox.sessionToolsVisibility",
        ),
        ("{logging: {redactPatterns: 'x'}}", "logging.redactPatterns must be a list"),
        ("{session: {mainKey: 7}}", "session.mainKey must be a string"),
    ],
)
def test_wrong_types_are_config_errors(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, text)
    if needle.startswith(("tools", "agents")):  # read only with --as: raised when used
        config = load_config(tmp_path)
        assert config.visibility_error is not None
        with pytest.raises(ConfigError) as exc:
            config.visibility_settings()
        message = exc.value.message
        assert isinstance(exc.value, UsageError)
        assert exc.value.hint
    else:
        message = load_error(tmp_path).message
    assert message.startswith(f"invalid config {path}: ")
    assert needle in message


def test_a_bad_visibility_setting_keeps_the_settings_every_command_reads(tmp_path: Path) -> None:
    write(tmp_path, "{tools: {sessions: {visibility: 'banana'}}, session: {mainKey: 'Home'},"
                    " logging: {redactPatterns: ['needle']}}")  # fmt: skip
    config = load_config(tmp_path)
    assert config.redact_patterns == ("needle",)
    assert config.main_key == "home"
    assert config.visibility is None  # the defaults stand in until --as asks
    with pytest.raises(ConfigError, match="tools.sessions.visibility"):
        config.visibility_settings()
    assert load_config(tmp_path / "none").visibility_settings() == Config()


def test_config_path_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = write(tmp_path, "{tools: {sessions: {visibility: 'agent'}}}", name="elsewhere.json5")
    write(tmp_path, "{tools: {sessions: {visibility: 'self'}}}")
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(other))
    config = load_config(tmp_path)
    assert config.visibility == "agent"
    assert config.path == other
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", "  ")
    assert load_config(tmp_path).path == tmp_path / "openclaw.json"
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", "~/x.json")
    assert settings.config_path() == Path("~/x.json").expanduser()


def test_unreadable_path_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").mkdir()
    assert "cannot read config" in load_error(tmp_path).message
