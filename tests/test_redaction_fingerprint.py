"""The default rules' fingerprint without the rules (redact/fingerprint.py): always the
Redactor's own, whatever its file holds; and a search of current index rows never builds
the rules (the page was redacted when it was indexed)."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from helpers import REPO, run_cli

from openclaw_sessions.redact import build_redactor, fingerprint


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENCLAW_SESSIONS_CACHE_DIR", str(tmp_path / "cache"))
    name = f"redaction-fingerprint-{zlib.crc32(fingerprint._code_key().encode()):08x}"
    return tmp_path / "cache" / name


def test_it_is_the_redactors_own(cache: Path) -> None:
    want = build_redactor().fingerprint
    assert fingerprint.defaults() == want  # computed, then kept
    assert cache.read_text("utf-8").endswith("\n" + want)
    assert fingerprint.defaults() == want  # read back


def test_a_line_for_other_code_is_not_believed(cache: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text("0.0.0 redact/engine.py:1:1\n0123456789abcdef", "utf-8")
    assert fingerprint.defaults() == build_redactor().fingerprint


def test_a_damaged_file_is_not_believed(cache: Path) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"\xff\xfe")
    assert fingerprint.defaults() == build_redactor().fingerprint


def test_without_a_cache_dir_it_is_computed(cache: Path) -> None:
    cache.parent.parent.mkdir(parents=True, exist_ok=True)
    cache.parent.write_text("a file where the cache dir would be", "utf-8")
    assert fingerprint.defaults() == build_redactor().fingerprint


def test_a_search_of_current_rows_builds_no_rules(tmp_path: Path) -> None:
    root = tmp_path / "state"
    assert run_cli("import", str(REPO / "sample" / "state"), "--reindex").exit_code == 0
    probe = (
        "import sys; sys.argv = ['openclaw-sessions', 'search', 'deploy', '--json']\n"
        "from openclaw_sessions.cli import main\n"
        "try:\n    main.main()\nexcept SystemExit as e:\n    code = e.code\n"
        "print(code, 'openclaw_sessions.redact.engine' in sys.modules, file=sys.stderr)"
    )
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(root)}
    for _ in range(2):  # the first run may compute the fingerprint; the second reads it
        proc = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
        )
    assert '"results": [{' in proc.stdout
    assert proc.stderr.strip().endswith("0 False"), proc.stderr
