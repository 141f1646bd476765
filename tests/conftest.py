"""Shared fixtures: an isolated state root per test, the sample store, the real corpus. What tests
import (transcript builders, run_cli, REPO) lives in tests/helpers.py: no test imports conftest."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CORPUS, REPO, Session, run_cli


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


@pytest.fixture
def make_session() -> type[Session]:
    return Session


os.environ.setdefault("OPENCLAW_SESSIONS_NO_BACKGROUND", "1")
# the compiled-regex cache goes to a temp dir, not the user's ~/.cache; removed at exit
if "OPENCLAW_SESSIONS_CACHE_DIR" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="ocs-cache-")
    os.environ["OPENCLAW_SESSIONS_CACHE_DIR"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
