"""`import --reindex` with the reconciliation following the import in a second process
(ingest/follow.py): the same index as import then reindex, one report per agent, failures
reported once, and nothing left behind when it is interrupted."""

from __future__ import annotations

import importlib.util
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, json_out, run_cli
from helpers import index_dump, integrity, query
from test_reliability import cli_proc, no_process_left, wait_for

from openclaw_sessions.ingest import follow
from openclaw_sessions.policy.redact import build_redactor


def generate(out: Path, messages: int, **kw: Any) -> None:
    spec = importlib.util.spec_from_file_location("gen_corpus", REPO / "bench" / "gen_corpus.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_corpus"] = mod
    spec.loader.exec_module(mod)
    mod.generate(out, messages, **kw)


def test_the_follower_builds_the_index_import_then_reindex_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert follow.wanted(build_redactor(()))  # more than one CPU here: it is the one tested
    generate(tmp_path / "src", 6_000, agents=2, seed=4, cjk_ratio=0.33)
    followed, apart = tmp_path / "followed", tmp_path / "apart"
    src = str(tmp_path / "src")
    r = run_cli("import", src, "--reindex", "--json", "--state-dir", str(followed))
    assert r.exit_code == 0, r.output
    reports = json_out(r)["reindex"]
    assert [x["agentId"] for x in reports] == ["main", "ops"]
    run_cli("import", str(tmp_path / "src"), "--state-dir", str(apart), "--quiet")
    assert run_cli("reindex", "--all-agents", "--quiet", "--state-dir", str(apart)).exit_code == 0
    for agent, rep in zip(("main", "ops"), reports, strict=True):
        rows = index_dump(followed, agent)
        assert rows == index_dump(apart, agent) and rows
        assert rep["messagesIndexed"] == len(rows)  # every pass counted once
        assert rep["sessionsIndexed"] == query(followed, "SELECT count(*) FROM transcripts",
                                               agent=agent)[0][0]  # fmt: skip
        integrity(followed, agent)
    for state in (followed, apart):
        st = json_out(run_cli("status", "--all-agents", "--json", "--state-dir", str(state)))
        assert [a["pendingSessions"] for a in st] == [0, 0]
    monkeypatch.setenv("OPENCLAW_SESSIONS_PLAN_WORKER", "0")  # one process: import, then reindex
    assert not follow.wanted(build_redactor(()))
    alone = tmp_path / "alone"
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--json", "--state-dir", str(alone))
    assert [x["messagesIndexed"] for x in json_out(r)["reindex"]] == [
        x["messagesIndexed"] for x in reports
    ]


def test_a_transcript_that_fails_to_index_is_reported_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openclaw_sessions.index import plan

    generate(tmp_path / "src", 3_000, agents=1, seed=6)
    real = plan._rows

    def poisoned(conn: Any, tid: int, b: Any, redactor: Any) -> Any:
        if tid == 3:
            raise ValueError("poisoned for the test")
        return real(conn, tid, b, redactor)

    monkeypatch.setattr(plan, "_rows", poisoned)  # the forked follower inherits it
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--json")
    assert r.exit_code == 4, r.output
    (rep,) = json_out(r)["reindex"]
    assert rep["sessionsFailed"] == 1 and rep["knownFailures"] == 0
    assert "poisoned for the test" in rep["issues"][0]["message"]


def test_interrupted_import_reindex_leaves_no_claim_and_no_process(tmp_path: Path) -> None:
    generate(tmp_path / "src", 40_000, agents=1, seed=8)
    state = tmp_path / "state"
    marker = f"OCS_TEST_{uuid.uuid4().hex}"
    p = cli_proc(state, "import", str(tmp_path / "src"), "--reindex", "--quiet", **{marker: "1"})
    wait_for(state, "SELECT count(*) FROM index_rows", 200, p)  # indexed while importing
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode in (0, 130), err
    assert b"Traceback" not in err
    assert no_process_left(marker)
    integrity(state)
    assert query(state, "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL") == [(0,)]
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--json")
    assert r.exit_code == 0
    assert json_out(run_cli("status", "--json"))["pendingSessions"] == 0
