"""End to end through the installed command (issue #15 A): one state dir with every hostile
shape of section A among normal sessions. Every normal session is imported, indexed and found,
every command ends with a documented exit code, and nothing prints a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, write_sessions_json

SCRIPT = Path(sys.executable).parent / "openclaw-sessions"
HEADER = '{"type":"session","version":3,"id":"%s","timestamp":"2026-01-01T00:00:00.000Z"}\n'
MESSAGE = '{"type":"message","id":"h1","parentId":null,"timestamp":%s,"message":%s}\n'
BAD_TIMES = {"nan": "NaN", "inf": "Infinity", "big": "1e20", "neg": "-1e308",
             "digits": "12345678901234567890", "year": '"0001-01-01T00:00:00Z"',
             "huge": "1" * 5000}  # fmt: skip


def _normal(root: Path, agent: str, n: int) -> dict[str, str]:
    """n normal sessions; their key → a word only they contain."""
    d = root / "agents" / agent / "sessions"
    entries, words = {}, {}
    for i in range(n):
        sid = f"{agent}-normal-{i:02d}"
        s = Session(sid)
        s.user(f"question{agent}{i} about deploys")
        s.assistant(f"answer{agent}{i} with details")
        s.write(d / f"{sid}.jsonl")
        entries[f"agent:{agent}:s{i}"] = {"sessionId": sid, "updatedAt": 1767225600000}
        words[f"agent:{agent}:s{i}"] = f"answer{agent}{i}"
    write_sessions_json(d, entries)
    return words


def _plant(root: Path) -> None:
    main, ops = root / "agents" / "main" / "sessions", root / "agents" / "ops" / "sessions"
    user = '{"role":"user","content":[{"type":"text","text":"surrogate \\ud800 lonely \\udfff"}]}'
    (main / "lone.jsonl").write_text(HEADER % "lone" + MESSAGE % ('"2026-01-01T00:00:01Z"', user))
    for name, ts in BAD_TIMES.items():
        msg = json.dumps({"role": "user", "content": f"badtime {name}"})
        (main / f"ts-{name}.jsonl").write_text(HEADER % f"ts-{name}" + MESSAGE % (ts, msg))
    store = json.loads((main / "sessions.json").read_text())
    store["agent:main:weird\ud800"] = {"sessionId": "lone", "updatedAt": 10**20, "label": "\ud83d"}
    (main / "sessions.json").write_text(json.dumps(store))
    os.mkfifo(main / "fifo.jsonl")
    (main / "dir.jsonl").mkdir()
    os.symlink("nowhere.jsonl", main / "dangling.jsonl")
    os.symlink("loop-b.jsonl", main / "loop-a.jsonl")
    os.symlink("loop-a.jsonl", main / "loop-b.jsonl")
    (main / "corrupt.jsonl.reset.2026-01-01T00-00-00.000Z.zst").write_bytes(b"not zstd at all")
    (main / "locked.jsonl").write_text(HEADER % "locked")
    os.chmod(main / "locked.jsonl", 0)  # unreadable, unless the tests run as root
    (ops / "sessions.json").unlink()
    os.mkfifo(ops / "sessions.json")


def _run(*args: str) -> tuple[int, Any, str]:
    proc = subprocess.run([str(SCRIPT), *args], capture_output=True, timeout=120)
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in err, (args, err)
    assert "Traceback" not in out, (args, err)
    assert len([ln for ln in err.splitlines() if ln.startswith("error:")]) <= 1, err
    if "--json" in args and out:
        def refuse(token: str) -> Any:
            raise AssertionError(f"not JSON: {token}")

        return proc.returncode, json.loads(out, parse_constant=refuse), err
    return proc.returncode, out, err


@pytest.mark.slow
def test_hostile_state_dir_end_to_end(tmp_path: Path) -> None:
    src, state = tmp_path / "src", tmp_path / "state"
    words = _normal(src, "main", 12)
    # ops' sessions.json becomes a FIFO: its transcripts are kept under derived keys
    words |= {f"agent:ops:orphan:ops-normal-{k.rsplit('s', 1)[1].zfill(2)}": w
              for k, w in _normal(src, "ops", 12).items()}  # fmt: skip
    _plant(src)
    st = ["--state-dir", str(state)]

    code, rep, _ = _run("import", str(src), *st, "--json", "--no-reindex")
    assert code == 4
    problems = {(Path(i["path"]).name.split("#")[0], i["code"]) for i in rep["issues"]
                if i["severity"] == "error"}  # fmt: skip
    assert {("fifo.jsonl", "not_regular"), ("dir.jsonl", "not_regular"),
            ("dangling.jsonl", "link_dangling"), ("loop-a.jsonl", "link_loop"),
            ("sessions.json", "not_regular"), ("sessions.json", "timestamp_invalid"),
            ("ts-huge.jsonl", "line_malformed")} <= problems  # fmt: skip
    assert {n for n, c in problems if c == "timestamp_invalid"} >= {
        f"ts-{n}.jsonl" for n in BAD_TIMES if n != "huge"}  # fmt: skip
    assert any(c == "transcript_unreadable" and "corrupt" in n for n, c in problems)

    # a stored row edited by hand: planning that transcript raises (a poison transcript)
    conn = sqlite3.connect(state / "agents" / "main" / "openclaw-sessions.sqlite")
    conn.execute("UPDATE events SET raw = '{broken' WHERE seq = 1 AND transcript_id ="
                 " (SELECT transcript_id FROM transcripts WHERE source_name = 'ts-nan.jsonl')")
    conn.commit()
    conn.close()
    code, rep, _ = _run("reindex", "--all-agents", *st, "--json")
    assert code == 4
    by_agent = {a["agentId"]: a for a in rep["agents"]}
    assert by_agent["main"]["sessionsFailed"] == 1
    assert by_agent["ops"]["sessionsFailed"] == 0
    assert by_agent["main"]["issues"][0]["path"].endswith("ts-nan.jsonl")

    for key, word in words.items():  # every normal session is indexed and found
        agent = key.split(":")[1]
        code, out, _ = _run("search", word, "--agent", agent, *st, "--json")
        assert code == 0
        assert [h["sessionKey"] for h in out["results"]] == [key]
        assert "indexing" not in out
        code, out, _ = _run("history", key, "--agent", agent, *st, "--json")
        assert code == 0
        assert len(out["messages"]) == 2
    code, out, _ = _run("search", "lonely", *st, "--json")
    assert code == 0
    assert out["results"][0]["snippet"] == "surrogate \ufffd lonely \ufffd"
    assert out["unindexed"] == 1
    assert "indexing" not in out
    code, out, _ = _run("search", "badtime", *st, "--json", "--limit", "50")
    assert code == 0
    assert len(out["results"]) == len(BAD_TIMES) - 2  # the poison, the huge line
    for key in ("agent:main:weird\ufffd", "agent:main:orphan:ts-inf", "agent:main:orphan:ts-nan"):
        code, out, _ = _run("history", key, *st, "--json")
        assert code == 0
        assert all(m["timestamp"] is None or m["timestamp"] > 0 for m in out["messages"])
        assert _run("history", key, *st)[0] == 0
    assert _run("search", "lonely", *st)[0] == 0  # the table

    code, out, _ = _run("status", "--all-agents", *st, "--json")
    assert code == 4
    main = next(a for a in out["agents"] if a["agentId"] == "main")
    assert main["pendingSessions"] == 0
    assert main["failedSessions"] == 1
    assert main["failures"][0]["path"].endswith("ts-nan.jsonl")
    assert _run("status", "--all-agents", *st)[0] == 4
    code, rep, _ = _run("reindex", "--all-agents", *st, "--json")  # nothing retried
    assert code == 0
    assert sum(a["sessionsIndexed"] for a in rep["agents"]) == 0
