"""`search` and the index lifecycle, through the real CLI on real SQLite files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import (
    REPO,
    Session,
    gated_cli,
    index_dump,
    integrity,
    json_out,
    killed_by,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.index import locks
from openclaw_sessions.store import paths


def sdir(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def planted_state(root: Path) -> dict[str, str]:
    """One session with every kind of content; returns planted word → message id."""
    s = Session("plant-1")
    ids = {}
    s.add({"type": "model_change", "provider": "p", "modelId": "m"})
    ids["zyxuser"] = s.user("the zyxuser word in user text")
    s.add(
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "zyxthinking hidden"},
                    {
                        "type": "toolCall",
                        "id": "c",
                        "name": "exec",
                        "arguments": {"cmd": "zyxtoolcall"},
                    },
                    {"type": "text", "text": "visible zyxassistant answer"},
                ],
            },
        }
    )
    ids["zyxassistant"] = s.leaf or ""
    s.tool("zyxtoolresult output")
    s.add({"type": "custom_message", "customType": "x", "content": "zyxcustom", "display": True})
    s.add({"type": "compaction", "summary": "zyxcompaction", "firstKeptEntryId": "a"})
    s.add(
        {
            "type": "message",
            "message": {
                "role": "user",
                "content": [
                    {"type": "image", "data": "enl4aW1hZ2U=", "mimeType": "image/png"},
                    {"type": "text", "text": "Ünïcödé café crème"},
                ],
            },
        }
    )
    ids["cafe"] = s.leaf or ""
    fork = s.leaf
    s.user("zyxabandoned branch text")
    s.assistant("zyxactive reply", parent=fork)
    ids["zyxactive"] = s.leaf or ""
    s.write(sdir(root) / "plant-1.jsonl")
    write_sessions_json(sdir(root), {"agent:main:main": {"sessionId": "plant-1"}})
    return ids


def search(*args: str) -> tuple[int, dict]:
    r = run_cli("search", *args, "--json")
    return r.exit_code, json_out(r)


def test_planted_words_found_and_excluded(tmp_path: Path) -> None:
    ids = planted_state(tmp_path / "src")
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    for word, role in (
        ("zyxuser", "user"),
        ("zyxassistant", "assistant"),
        ("zyxactive", "assistant"),
        ("cafe", "user"),
    ):
        code, out = search(word)
        assert code == 0, word
        hit = out["results"][0]
        assert (hit["sessionKey"], hit["messageId"], hit["role"]) == (
            "agent:main:main",
            ids[word],
            role,
        )
        assert hit["sessionId"] == "plant-1"
    for word in (
        "zyxthinking",
        "zyxtoolcall",
        "zyxtoolresult",
        "zyxcustom",
        "zyxcompaction",
        "zyxabandoned",
        "enl4aW1hZ2U",
        "CAFÉ crème"[:0] or "zyximage",
    ):
        code, out = search(word)
        assert (code, out["results"]) == (1, []), word
    assert search("CAFÉ")[0] == 0
    assert search("unicode")[0] == 0


def test_fresh_import_is_unindexed_until_reconciled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"), "--no-reindex")
    monkeypatch.delenv("OPENCLAW_SESSIONS_NO_BACKGROUND")
    code, out = search("zyxuser")
    assert code == 1
    assert out["indexing"] is True
    assert "Retry sessions_search" in out["warning"]
    agent_dir = paths.agent_dir(Path(os.environ["OPENCLAW_STATE_DIR"]), "main")
    # the background reconciler was started: wait for it through its lock, never a sleep
    deadline_ok = _wait_background(agent_dir)
    assert deadline_ok
    code, out = search("zyxuser")
    assert code == 0
    assert "indexing" not in out


def _wait_background(agent_dir: Path) -> bool:
    import fcntl
    import time

    end = time.monotonic() + 30
    # the child takes background.lock first thing; wait until it has come and gone
    while time.monotonic() < end:
        fd = os.open(agent_dir / locks.BACKGROUND, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # blocks while the reconciler runs
        finally:
            os.close(fd)
        st = json_out(run_cli("status", "--json"))
        if st["pendingSessions"] == 0:
            return True
    return False


def test_wait_reconciles_first(tmp_path: Path) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"))
    code, out = search("zyxuser", "--wait")
    assert code == 0
    assert "indexing" not in out


def test_append_to_indexed_session_is_found_at_once(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    s = Session("live-1")
    s.user("first words")
    s.write(sdir(src) / "live-1.jsonl")
    run_cli("import", str(src), "--reindex")
    s.assistant("brandnewword arrives")
    s.write(sdir(src) / "live-1.jsonl")
    run_cli("import", str(src))
    code, out = search("brandnewword")
    assert code == 0
    assert "indexing" not in out


def test_rewind_hides_old_branch_at_once(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    s = Session("rw-1")
    root = s.user("root question")
    s.assistant("oldbranchword answer")
    s.write(sdir(src) / "rw-1.jsonl")
    run_cli("import", str(src), "--reindex")
    assert search("oldbranchword")[0] == 0
    s.navigate(root)
    s.assistant("newbranchword answer", parent=root)
    s.write(sdir(src) / "rw-1.jsonl")
    run_cli("import", str(src), "--no-reindex")
    code, out = search("oldbranchword")
    assert code == 1
    assert out["indexing"] is True  # dirty: excluded right away
    run_cli("reindex", "--quiet")
    assert search("oldbranchword")[0] == 1
    assert search("newbranchword")[0] == 0


def test_delete_removes_everything_in_one_transaction(tmp_path: Path, state: Path) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"), "--reindex")
    r = run_cli("delete", "agent:main:main", "--yes", "--json")
    assert r.exit_code == 0
    assert json_out(r)["indexRows"] > 0
    assert search("zyxuser")[0] == 1
    assert query(state, "SELECT count(*) FROM events")[0][0] == 0
    assert query(state, "SELECT count(*) FROM index_rows")[0][0] == 0
    integrity(state)
    assert run_cli("delete", "agent:main:main", "--yes").exit_code == 2


def test_delete_refuses_to_prompt_without_a_terminal(tmp_path: Path) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"))
    r = run_cli("delete", "agent:main:main")
    assert r.exit_code == 2
    assert "refusing to prompt" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "q",
    [
        "OR",
        "NOT x",
        '"',
        "*",
        "(",
        "a:b",
        "-x",
        "@me",
        "0b5c6f1e-1111-4a4a-9c9c-000000000001",
        "/etc/passwd",
        "NEAR(a b)",
        "x' OR 1=1 --",
        "^a",
    ],
)
def test_operators_and_punctuation_never_error(tmp_path: Path, q: str) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"), "--reindex")
    r = run_cli("search", "--json", "--", q)  # "--": a query may start with "-"
    assert r.exit_code in (0, 1), r.output
    assert "results" in json_out(r)


def test_query_validation(tmp_path: Path) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"))
    r = run_cli("search", "   ")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: query must not be empty")
    r = run_cli("search", "a" * 4097)
    assert r.exit_code == 2
    assert "4096" in r.stderr
    assert run_cli("search", "x", "--limit", "0").exit_code == 2
    assert run_cli("search", "x", "--role", "tool").exit_code == 2
    assert run_cli("search", "x", "--since", "yesterday-ish").exit_code == 2


def many(root: Path, n: int = 30) -> None:
    s = Session("many-1")
    for i in range(n):
        s.user(f"common word number {i} " + ("padding " * 80 if i % 2 else ""))
        s.assistant(f"common reply {i}")
    s.write(sdir(root) / "many-1.jsonl")


def test_limit_truncated_order_filters_and_snippet_cap(tmp_path: Path) -> None:
    many(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"), "--reindex")
    code, out = search("common", "--limit", "5")
    assert len(out["results"]) == 5
    assert out["truncated"] is True
    code, out = search("common", "--limit", "100", "--order", "upstream")
    assert len(out["results"]) == 60
    assert "truncated" not in out
    assert all(len(h["snippet"]) <= 301 for h in out["results"])
    assert any(h["snippet"].endswith("…") for h in out["results"])
    scores = [h["score"] for h in out["results"]]
    assert scores == sorted(scores, reverse=True)
    # the operator's order: the same hits (a short number tells messages apart: none folds)
    _, ours = search("common", "--limit", "100")
    assert sorted(h["messageId"] for h in ours["results"]) == sorted(
        h["messageId"] for h in out["results"]
    )
    _, rec = search("common", "--order", "recent", "--limit", "100")
    ts = [h["timestamp"] for h in rec["results"]]
    assert ts == sorted(ts, reverse=True)
    _, users = search("common", "--role", "user", "--limit", "100")
    assert {h["role"] for h in users["results"]} == {"user"}
    assert len(users["results"]) == 30
    mid = sorted(ts)[30]
    from datetime import UTC, datetime

    iso = datetime.fromtimestamp(mid / 1000, tz=UTC).isoformat()
    _, since = search("common", "--since", iso, "--limit", "100")
    assert all(h["timestamp"] >= mid for h in since["results"])
    assert len(since["results"]) == 30
    _, until = search("common", "--until", iso, "--limit", "100")
    assert len(until["results"]) == 30
    _, sess = search("common", "--session", "many-1", "--limit", "1")
    assert sess["results"][0]["sessionId"] == "many-1"
    assert search("common", "--session", "nope")[0] == 2  # unknown: exit 2, as everywhere


def test_byte_cap_counts_like_upstream(tmp_path: Path) -> None:
    many(tmp_path / "src", 80)
    run_cli("import", str(tmp_path / "src"), "--reindex")
    _, out = search("common", "--limit", "200", "--max-bytes", "4000")

    def compact(value: object) -> int:  # JSON.stringify's bytes, as upstream counts them
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())

    def upstream(hits: list[dict[str, object]]) -> list[dict[str, object]]:
        """Upstream's fields: what the cap counts ("matches" is ours; --as gets as many hits
        as sessions_search)."""
        return [{k: v for k, v in h.items() if k not in ("matches", "agentId")} for h in hits]

    assert out["truncated"] is True
    assert 0 < len(out["results"]) < 160
    size = compact(upstream(out["results"]))
    assert size <= 4000
    # Exact: the next result (the uncapped list's) would have overflowed.
    _, whole = search("common", "--limit", "200", "--max-bytes", "0")
    kept = len(out["results"])
    assert whole["results"][:kept] == out["results"]
    assert size + 1 + compact(upstream(whole["results"])[kept]) > 4000


def test_jsonl_and_table_output(tmp_path: Path) -> None:
    planted_state(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"), "--reindex")
    r = run_cli("search", "zyxuser", "--jsonl")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 1
    assert rows[0]["messageId"]
    t = run_cli("search", "zyxuser")
    assert "agent:main:main" in t.stdout
    assert "zyxuser" in t.stdout
    assert "\x1b[" not in t.stdout


def _reindex_proc(state: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state)}
    return subprocess.Popen(
        [sys.executable, "-m", "openclaw_sessions", "reindex", "--quiet"], env=env, cwd=REPO
    )


def bulk(root: Path, sessions: int = 12, msgs: int = 300) -> int:
    for i in range(sessions):
        s = Session(f"bulk-{i:02d}")
        for j in range(msgs):
            s.user(f"bulk text {i} {j} alpha")
        s.write(sdir(root) / f"bulk-{i:02d}.jsonl")
    return sessions * msgs


@pytest.mark.slow
def test_concurrent_reindex_runs_never_duplicate(tmp_path: Path, state: Path) -> None:
    total = bulk(tmp_path / "src")
    run_cli("import", str(tmp_path / "src"))
    procs = [_reindex_proc(state) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    run_cli("reindex", "--quiet")
    assert query(state, "SELECT count(*) FROM index_rows")[0][0] == total
    assert query(state, "SELECT count(*) FROM index_fts_docsize")[0][0] == total
    integrity(state)


@pytest.mark.slow
def test_killed_reconciler_is_taken_over(tmp_path: Path, state: Path) -> None:
    total = bulk(tmp_path / "src", 20, 300)
    run_cli("import", str(tmp_path / "src"), "--no-reindex")
    # Killed inside its first write of index rows, its claims committed before it.
    gate = ("openclaw_sessions.index.index_rows", "insert_rows", 1)
    p = gated_cli(state, gate, "reindex", "--quiet")
    killed_by(p, signal.SIGKILL)
    assert p.returncode == -signal.SIGKILL
    integrity(state)
    held = "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL"
    assert query(state, held)[0][0] > 0
    assert query(state, "SELECT count(*) FROM index_rows")[0][0] == 0
    r = run_cli("reindex", "--json")
    assert r.exit_code == 0
    assert query(state, "SELECT count(*) FROM index_rows")[0][0] == total
    assert query(state, "SELECT count(*) FROM index_state WHERE claim_token IS NOT NULL")[0][0] == 0
    assert index_dump(state) == sorted(index_dump(state))


def test_reset_generations_stay_searchable(tmp_path: Path) -> None:
    d = sdir(tmp_path / "src")
    old = Session("gen-old")
    old.user("ancientgeneration words")
    old.write(d / "gen-old.jsonl.reset.2026-01-01T00-00-00.000Z")
    new = Session("gen-new")
    new.user("currentgeneration words")
    new.write(d / "gen-new.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "gen-new"}})
    # the archive was imported while it was current, under the same key
    os.rename(d / "gen-old.jsonl.reset.2026-01-01T00-00-00.000Z", d / "gen-old.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "gen-old"}})
    run_cli("import", str(tmp_path / "src"))
    os.rename(d / "gen-old.jsonl", d / "gen-old.jsonl.reset.2026-01-01T00-00-00.000Z")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "gen-new"}})
    run_cli("import", str(tmp_path / "src"), "--reindex")
    _, a = search("ancientgeneration")
    _, b = search("currentgeneration")
    assert a["results"][0]["sessionKey"] == b["results"][0]["sessionKey"] == "agent:main:main"
    assert (a["results"][0]["sessionId"], b["results"][0]["sessionId"]) == ("gen-old", "gen-new")


@pytest.mark.slow
def test_searches_answer_while_reindex_writes(tmp_path: Path, state: Path) -> None:
    bulk(tmp_path / "src", 10, 300)
    run_cli("import", str(tmp_path / "src"), "--reindex")
    run_cli("reindex", "--full", "--quiet")
    errors: list[str] = []

    def searcher() -> None:
        for _ in range(15):
            try:
                r = run_cli("search", "alpha", "--json")
            except Exception as exc:  # an exception in a thread must fail the test, not vanish
                errors.append(repr(exc))
                continue
            if r.exit_code not in (0, 1):
                errors.append(r.stderr)

    p = subprocess.Popen(
        [sys.executable, "-m", "openclaw_sessions", "reindex", "--full", "--quiet"],
        env={**os.environ, "OPENCLAW_STATE_DIR": str(state)},
        cwd=REPO,
    )
    t = threading.Thread(target=searcher)
    t.start()
    t.join()
    assert p.wait(timeout=120) == 0
    assert errors == []
