"""Shared fixtures: an isolated state root per test, transcript builders, the real corpus."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus" / "real"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own state root; no colour, no terminal width surprises."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    monkeypatch.delenv("OPENCLAW_SESSIONS_CONFIG", raising=False)  # never the user's own file
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("OPENCLAW_AGENT", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("OPENCLAW_SESSIONS_NO_BACKGROUND", "1")
    yield


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample state imported and indexed once per test module (read-only use)."""
    root = tmp_path_factory.mktemp("sample") / "state"
    r = run_cli("import", str(REPO / "sample" / "state"), "--reindex", "--state-dir", str(root))
    assert r.exit_code == 0, r.stderr
    return root


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus/real is not present (real-corpus tests need it)")
    return CORPUS


class Session:
    """Builds a v3 transcript line by line, with the ids and parents upstream writes."""

    def __init__(self, session_id: str = "s1", ts0: int = 1_767_225_600_000) -> None:
        self.session_id = session_id
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": 3, "id": session_id,
             "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
        ]  # fmt: skip
        self.leaf: str | None = None
        self.n = 0
        self.ts0 = ts0

    def _ts(self) -> str:
        from datetime import UTC, datetime

        self.n += 1
        ms = self.ts0 + self.n * 1000
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")

    def add(
        self, entry: dict[str, Any], *, parent: str | None | bool = True, id: str | None = None
    ) -> str:
        eid = id or entry.get("id") or f"{len(self.lines):08x}"
        entry.pop("id", None)
        line = {"type": entry.pop("type", "message"), "id": eid, **entry}
        if parent is True:
            line["parentId"] = self.leaf
        elif parent is not False:
            line["parentId"] = parent
        line.setdefault("timestamp", self._ts())
        self.lines.append(line)
        if line["type"] != "leaf" and line.get("appendMode") != "side":
            self.leaf = eid
        return eid

    def navigate(self, target: str | None, **extra: Any) -> str:
        """A leaf control (upstream's navigation): the leaf moves to `target`."""
        eid = self.add({"type": "leaf", "targetId": target, **extra})
        self.leaf = target
        return eid

    def user(self, text: str, **kw: Any) -> str:
        return self.add({"message": {"role": "user", "content": [{"type": "text", "text": text}]},
                         **kw.pop("extra", {})}, **kw)  # fmt: skip

    def assistant(self, text: str, **kw: Any) -> str:
        content = [{"type": "thinking", "thinking": kw.pop("thinking", "hmm")},
                   {"type": "text", "text": text}]  # fmt: skip
        return self.add({"message": {"role": "assistant", "content": content}}, **kw)

    def tool(self, text: str, **kw: Any) -> str:
        message = {"role": "toolResult", "toolCallId": "c1", "toolName": "exec",
                   "content": [{"type": "text", "text": text}]}  # fmt: skip
        return self.add({"message": message}, **kw)

    def text(self) -> str:
        return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def write_sessions_json(sessions_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    sessions_dir.mkdir(parents=True, exist_ok=True)
    (sessions_dir / "sessions.json").write_text(json.dumps(entries), encoding="utf-8")


@pytest.fixture
def make_session() -> type[Session]:
    return Session


def run_cli(*args: str, input: str | None = None) -> Any:
    """Invoke the real Typer app in-process; stdout and stderr kept apart."""
    from typer.testing import CliRunner

    from openclaw_sessions.cli.app import app

    runner = CliRunner()
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def json_out(result: Any) -> Any:
    return json.loads(result.stdout)


os.environ.setdefault("OPENCLAW_SESSIONS_NO_BACKGROUND", "1")
# the compiled-regex cache goes to a temp dir, not the user's ~/.cache; removed at exit
if "OPENCLAW_SESSIONS_CACHE_DIR" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="ocs-cache-")
    os.environ["OPENCLAW_SESSIONS_CACHE_DIR"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
