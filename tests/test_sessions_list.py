"""`sessions` (issue #18 §3): one row per session key the caller may see, newest update first,
with its active branch's length, its generations and its index state; filtered by time and
visibility before the limit; JSON, JSONL, a table on a terminal and tab-separated lines off
one. Through the installed command."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, db_file, installed, run_cli, write_sessions_json

DAY = 86_400_000
T0 = 1_767_225_600_000  # 2026-01-01T00:00Z


def _write(src: Path) -> None:
    """Six keys: plain ones a day apart, a child spawned by main, an incognito one, one whose
    transcript is missing, an orphan transcript (no store entry, no updatedAt)."""
    entries: dict[str, dict[str, Any]] = {}
    for i in range(4):
        s = Session(f"s-{i}", ts0=T0 + i * DAY)
        s.user(f"question {i}")
        s.assistant(f"answer {i}")
        s.tool("tool output")  # not counted: history does not show it by default
        if i == 3:
            s.assistant("one more")
        s.write(src / f"s-{i}.jsonl")
        entries[f"agent:main:k{i}"] = {"sessionId": f"s-{i}", "updatedAt": T0 + i * DAY + 5000,
                                       "label": f"label {i}\tx"}  # fmt: skip
    entries["agent:main:k0"]["spawnedBy"] = "agent:main:k3"
    inc = Session("inc")
    inc.user("hidden")
    inc.write(src / "inc.jsonl")
    entries["agent:main:dashboard:incognito-1"] = {"sessionId": "inc", "updatedAt": T0 + 9 * DAY}
    entries["agent:main:gone"] = {"sessionId": "gone-1", "updatedAt": T0 + 8 * DAY}
    orphan = Session("orph", ts0=T0 - DAY)
    orphan.user("lonely")
    orphan.write(src / "orph.jsonl")
    write_sessions_json(src, entries)


@pytest.fixture
def listed(tmp_path: Path, state: Path) -> Path:
    _write(tmp_path / "src")
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 4  # gone: missing
    return state


def rows(state: Path, *args: str) -> list[dict[str, Any]]:
    r = installed("sessions", "--json", *args, state=state)
    assert r.returncode in (0, 1), r.stderr
    return list(json.loads(r.stdout)["sessions"])


def test_every_visible_key_newest_first_with_counts(listed: Path) -> None:
    got = rows(listed)
    assert [r["sessionKey"] for r in got] == [
        "agent:main:gone",
        "agent:main:k3",
        "agent:main:k2",
        "agent:main:k1",
        "agent:main:k0",
        "agent:main:orphan:orph",
    ]  # fmt: skip   (no incognito key, even for the operator)
    k3 = got[1]
    assert k3 == {"sessionKey": "agent:main:k3", "agentId": "main", "sessionId": "s-3",
                  "label": "label 3\tx", "updatedAt": T0 + 3 * DAY + 5000, "messages": 3,
                  "generations": 1, "index": "indexed"}  # fmt: skip
    history = json.loads(installed("history", "agent:main:k3", "--json", state=listed).stdout)
    assert k3["messages"] == history["totalMessages"]  # counted as history counts
    assert got[0]["generations"] == 0
    assert got[0]["index"] == "none"
    assert got[0]["messages"] == 0
    orphan = got[-1]  # no updatedAt: its newest message's time
    assert orphan["updatedAt"] == T0 - DAY + 1000
    assert orphan["label"] is None


@pytest.mark.slow
def test_index_states_pending_dirty_failed(listed: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    s = Session("s-9")
    s.user("fresh")
    s.write(src / "s-9.jsonl")
    store = json.loads((src / "sessions.json").read_text())
    store["agent:main:k9"] = {"sessionId": "s-9", "updatedAt": T0}
    (src / "sessions.json").write_text(json.dumps(store))
    (src / "s-1.jsonl").write_text((src / "s-1.jsonl").read_text().replace("answer 1", "ANSWER"))
    run_cli("import", str(src), "--no-reindex")
    conn = sqlite3.connect(db_file(listed))  # k2's stored line is no JSON: indexing fails
    conn.execute("UPDATE events SET raw = '{broken' WHERE seq = 1 AND transcript_id ="
                 " (SELECT transcript_id FROM transcripts WHERE session_id = 's-2')")  # fmt: skip
    conn.execute("UPDATE index_state SET needs_rebuild = 1 WHERE transcript_id ="
                 " (SELECT transcript_id FROM transcripts WHERE session_id = 's-2')")  # fmt: skip
    conn.commit()
    conn.close()
    state = {r["sessionKey"]: r["index"] for r in rows(listed)}
    assert (state["agent:main:k9"], state["agent:main:k1"]) == ("pending", "dirty")
    run_cli("reindex")  # k2 fails: reported, not retried
    state = {r["sessionKey"]: r["index"] for r in rows(listed)}
    assert state["agent:main:k2"] == "failed"
    assert {state[k] for k in ("agent:main:k9", "agent:main:k1", "agent:main:k3")} == {"indexed"}


@pytest.mark.slow
def test_since_until_and_limit_filter_before_the_cut(listed: Path) -> None:
    keys = [r["sessionKey"] for r in rows(listed, "--since", "2026-01-02T00:00Z",
                                          "--until", "2026-01-04T00:00Z")]  # fmt: skip
    assert keys == ["agent:main:k2", "agent:main:k1"]
    r = installed("sessions", "--json", "--limit", "2", state=listed)
    doc = json.loads(r.stdout)
    assert [x["sessionKey"] for x in doc["sessions"]] == ["agent:main:gone", "agent:main:k3"]
    assert doc["truncated"] is True
    assert "truncated" not in json.loads(installed("sessions", "--json", state=listed).stdout)
    r = installed("sessions", "--limit", "2", state=listed)
    assert r.stderr == "more sessions exist: raise --limit\n"
    r = installed("sessions", "--since", "2030-01-01", "--json", state=listed)
    assert r.returncode == 1
    assert json.loads(r.stdout) == {"sessions": []}
    assert installed("sessions", "--limit", "0", state=listed).returncode == 2


@pytest.mark.slow
def test_as_lists_only_what_the_caller_may_see(listed: Path) -> None:
    (listed / "openclaw.json").write_text('{"tools": {"sessions": {"visibility": "tree"}}}')
    keys = {r["sessionKey"] for r in rows(listed, "--as", "agent:main:k3")}
    assert keys == {"agent:main:k3", "agent:main:k0"}  # itself and the session it spawned
    keys = {r["sessionKey"] for r in rows(listed, "--as", "agent:main:k1", "--visibility",
                                          "self")}  # fmt: skip
    assert keys == {"agent:main:k1"}
    r = installed("sessions", "--as", "agent:main:nope", state=listed)
    assert r.returncode == 2
    assert "Session not found" in r.stderr


@pytest.mark.slow
def test_jsonl_and_plain_lines_off_a_terminal(listed: Path) -> None:
    r = installed("sessions", "--jsonl", state=listed)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines == rows(listed)
    r = installed("sessions", state=listed)
    assert r.returncode == 0
    assert r.stderr == ""
    first = r.stdout.splitlines()[1].split("\t")
    assert first[0] == "agent:main:k3"
    assert first[1:3] == ["main", "s-3"]
    assert first[4:] == ["3", "1", "indexed", "label 3\\tx"]  # a tab in a label: escaped
    assert all(len(line.split("\t")) == 8 for line in r.stdout.splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("columns", [40, 80, 200])
def test_table_on_a_terminal_never_crops_keys_or_states(listed: Path, columns: int) -> None:
    pexpect = pytest.importorskip("pexpect")
    import os

    env = {**os.environ, "OPENCLAW_STATE_DIR": str(listed), "COLUMNS": str(columns),
           "LINES": "50", "NO_COLOR": "1"}  # fmt: skip
    from helpers import SCRIPT

    child = pexpect.spawn(str(SCRIPT), ["sessions"], env=env, encoding="utf-8",
                          dimensions=(50, columns), timeout=30)  # fmt: skip
    child.expect(pexpect.EOF)
    out = re.sub(r"\x1b\[[0-9;]*m", "", child.before.replace("\r\n", "\n"))  # bold headers
    lines = out.splitlines()
    assert all(len(line) <= columns for line in lines)
    head = next(i for i, line in enumerate(lines) if "session" in line)
    rows_shown = [line.split() for line in lines[head + 2 :] if "agent:" in line]
    keys = [next(c for c in cells if c.startswith("agent:")) for cells in rows_shown]  # whole
    states = [cells[-1] for cells in rows_shown]
    assert keys == [r["sessionKey"] for r in rows(listed)]  # whole, never cropped
    assert states == [r["index"] for r in rows(listed)]
    if columns >= 80:  # keys never fold to make room for the counts or the label
        assert "msgs" in out
        assert "label" in lines[head]  # the label gives way after the counts, not before
    if columns >= 200:
        assert "label 3" in out


@pytest.mark.slow
def test_labels_are_redacted_and_made_safe_in_every_output(tmp_path: Path, state: Path) -> None:
    secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    s = Session("lab-1")
    s.user("hello")
    s.write(tmp_path / "src" / "lab-1.jsonl")
    label = f"token {secret} \x1b]0;pwned\x07 done"
    write_sessions_json(
        tmp_path / "src", {"agent:main:lab": {"sessionId": "lab-1", "label": label}}
    )
    run_cli("import", str(tmp_path / "src"))
    for args in ([], ["--json"], ["--jsonl"]):
        r = installed("sessions", *args, state=state)
        assert secret not in r.stdout, args
        assert "ghp_01" in r.stdout, args
        assert "\x1b" not in r.stdout, args
        assert "\x07" not in r.stdout, args  # raw: never
    assert "\\x1b]0;pwned\\x07" in installed("sessions", state=state).stdout  # visible


LONG = "agent:main:discord:channel:123456789012345678:thread:987654321098765432"


@pytest.mark.parametrize("columns", [160, 100, 80, 60, 40])
def test_a_long_key_is_never_folded_other_columns_go_first(
    tmp_path: Path, state: Path, columns: int
) -> None:
    pexpect = pytest.importorskip("pexpect")
    import os

    entries = {}
    for i, key in enumerate([LONG, "agent:main:main", "agent:main:telegram:direct:4242"]):
        s = Session(f"s-{i}", ts0=T0 + i * DAY)
        s.user(f"question {i}")
        s.write(tmp_path / "src" / f"s-{i}.jsonl")
        entries[key] = {"sessionId": f"s-{i}", "updatedAt": T0 + i * DAY,
                        "label": "a label long enough to fold twice over"}  # fmt: skip
    write_sessions_json(tmp_path / "src", entries)
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "COLUMNS": str(columns),
           "NO_COLOR": "1"}  # fmt: skip
    from helpers import SCRIPT

    child = pexpect.spawn(str(SCRIPT), ["sessions"], env=env, encoding="utf-8",
                          dimensions=(50, columns), timeout=30)  # fmt: skip
    child.expect(pexpect.EOF)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", child.before.replace("\r\n", "\n")).splitlines()
    head = next(line for line in lines if "session" in line).split()
    for key in entries:  # each key whole on one line, with its index state
        assert any(key in line and line.rstrip().endswith("indexed") for line in lines), key
    # what goes first: the label, the generations, the count, then the time
    shown = [c for c in ("updated", "label", "msgs", "gens") if c in head]
    assert shown in (["updated", "label", "msgs", "gens"], ["updated", "msgs", "gens"],
                     ["updated", "msgs"], ["updated"], [])  # fmt: skip
    if len(LONG) + 12 <= columns:  # key and state fit: so does every line
        assert all(len(line) <= columns for line in lines)
    if columns >= 160:
        assert "label" in head
    if columns <= 80:
        assert head == ["session", "index"]
