"""The compiled-regex cache changes start-up time only, never behaviour."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

PROBE = r"""
import json, sys
from openclaw_sessions.redact import engine as redact, recache
r = redact.build_redactor(["/acme-[0-9]{4}/i"])
samples = ["OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123", "ACME-1234 and acme-9999",
           "postgres://u:pass-word-long-enough@h/db",
           "Authorization: Bearer abcdefghijklmnopqrstuv",
           "plain prose about a token of appreciation", "ghp_" + "a" * 36, "日本語のテキスト"]
print(json.dumps([r.redact_text(s) for s in samples] + [r.fingerprint,
                 recache.compile(r"(?P<x>a+)b", 2).match("AAb").group("x")]))
"""


def run(env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=REPO, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return out.stdout


@pytest.mark.slow
def test_cached_uncached_and_damaged_cache_agree(tmp_path: Path) -> None:
    env = {**os.environ, "OPENCLAW_SESSIONS_CACHE_DIR": str(tmp_path)}
    plain = run({**env, "OPENCLAW_SESSIONS_NO_REGEX_CACHE": "1"})
    first = run(env)  # fills the cache
    files = list(tmp_path.iterdir())
    assert len(files) == 1
    assert files[0].stat().st_size > 0
    second = run(env)  # reads it
    assert plain == first == second
    files[0].write_bytes(b"\x00garbage" * 10)
    assert run(env) == plain
    files[0].write_bytes(files[0].read_bytes()[:7])
    assert run(env) == plain


def test_unwritable_cache_dir_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a dir")
    env = {**os.environ, "OPENCLAW_SESSIONS_CACHE_DIR": str(blocker / "sub")}
    plain = run({**env, "OPENCLAW_SESSIONS_NO_REGEX_CACHE": "1"})
    assert run(env) == plain


def test_a_warm_cache_is_not_rewritten_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Every pattern's text is the same in every process (no set order leaks into it), so a
    second run finds everything cached and writes nothing."""
    env = {**os.environ, "OPENCLAW_SESSIONS_CACHE_DIR": str(tmp_path)}
    first = run({**env, "PYTHONHASHSEED": "1"})
    (cache,) = tmp_path.iterdir()
    before = (cache.stat().st_mtime_ns, cache.read_bytes())
    for seed in ("2", "3", "4"):
        assert run({**env, "PYTHONHASHSEED": seed}) == first
        assert (cache.stat().st_mtime_ns, cache.read_bytes()) == before


JUNK = r"""
from openclaw_sessions.redact import recache
for i in range(2000):
    recache.compile(f"junk-{i}-[a-z]+")
"""


def test_the_cache_keeps_one_working_set_not_every_pattern_ever(tmp_path: Path) -> None:
    import marshal

    from openclaw_sessions.redact import recache

    env = {**os.environ, "OPENCLAW_SESSIONS_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", JUNK], env=env, cwd=REPO, check=True)
    (cache,) = tmp_path.iterdir()
    junk = [k for k in marshal.loads(cache.read_bytes()) if str(k[0]).startswith("junk-")]
    assert len(junk) == 2000  # (besides what importing the package compiles)
    run(env)  # compiles the redaction rules anew, so it saves: the old patterns make way
    kept = marshal.loads(cache.read_bytes())
    junk = [k for k in kept if str(k[0]).startswith("junk-")]
    assert len(junk) == recache.SPARE_ENTRIES
    assert ("junk-1999-[a-z]+", 0) in kept
    assert ("junk-0-[a-z]+", 0) not in kept  # newest kept
