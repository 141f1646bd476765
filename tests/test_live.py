"""The live-writer append API: same-transaction indexing, or dirty when the tree moves."""

from __future__ import annotations

from pathlib import Path

from helpers import Session, json_out, query, run_cli, write_sessions_json

from openclaw_sessions import live


def msg(eid: str, parent: str | None, role: str, text: str) -> dict:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-02-01T10:00:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}}  # fmt: skip


def found(word: str) -> dict:
    return json_out(run_cli("search", word, "--json"))


def test_append_indexes_in_the_same_transaction(state: Path) -> None:
    header = {"type": "session", "version": 3, "id": "live-1", "timestamp": "2026-02-01T10:00:00Z"}
    live.append(state, "main", session_key="agent:main:main", session_id="live-1",
                lines=[header, msg("a1", None, "user", "first livewordone")])  # fmt: skip
    assert found("livewordone")["results"] == []  # never indexed yet: the reconciler backfills
    assert run_cli("reindex", "--quiet").exit_code == 0
    res = live.append(state, "main", session_key="agent:main:main", session_id="live-1",
                      lines=[msg("a2", "a1", "assistant", "second livewordtwo")])  # fmt: skip
    assert res.events == 1
    out = found("livewordtwo")
    assert out["results"][0]["messageId"] == "a2"
    assert "indexing" not in out
    # a branch change is not indexed in place: the session is dirty until reconciled
    live.append(state, "main", session_key="agent:main:main", session_id="live-1",
                lines=[msg("a3", "a1", "assistant", "rewound livewordthree")])  # fmt: skip
    out = found("livewordtwo")
    assert out["results"] == []
    assert out["indexing"] is True
    run_cli("reindex", "--quiet")
    assert found("livewordthree")["results"]
    assert not found("livewordtwo")["results"]
    assert query(state, "SELECT count(*) FROM events")[0][0] == 4


def test_append_to_an_imported_session_extends_it(state: Path, tmp_path: Path) -> None:
    """The README's example: a live writer continues a transcript `import` stored."""

    s = Session("imp-1")
    for i in range(3):
        s.user(f"question {i}")
        last = s.assistant(f"answer {i}")
    sessions = state / "agents" / "main" / "sessions"
    s.write(sessions / "imp-1.jsonl")
    write_sessions_json(sessions, {"agent:main:main": {"sessionId": "imp-1", "updatedAt": 1}})
    assert run_cli("import", "--reindex").exit_code == 0
    res = live.append(state, "main", session_key="agent:main:main", session_id="imp-1",
                      lines=[msg("b1", last, "user", "appended liveappendword")])  # fmt: skip
    assert res.events == 1
    out = found("liveappendword")  # indexed in the append's own transaction
    assert [h["messageId"] for h in out["results"]] == ["b1"]
    assert "indexing" not in out
    hist = json_out(run_cli("history", "agent:main:main", "--json"))
    assert len(hist["messages"]) == 7
    assert hist["sessionId"] == "imp-1"
    assert hist["messages"][-1]["id"] == "b1"
    assert query(state, "SELECT count(*) FROM transcripts")[0][0] == 1
    gens = json_out(run_cli("sessions", "--json"))["sessions"]
    assert [(g["sessionKey"], g["generations"], g["messages"]) for g in gens] == [
        ("agent:main:main", 1, 7)
    ]
