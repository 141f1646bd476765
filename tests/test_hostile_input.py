"""Hostile values inside transcripts and stores (issue #15 A1, A2): a lone surrogate or an
absurd time is at most that line's reported problem, never the index's or the import's."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import Session, db_file, json_out, query, run_cli, write_sessions_json
from upstream_fixture import UpSession, agent_db, build

from openclaw_sessions.cli import style
from openclaw_sessions.model import transcript, wellformed, when

HEADER = '{"type":"session","version":3,"id":"%s","timestamp":"2026-01-01T00:00:00.000Z"}'
# Lone surrogate escapes as a JSON writer spells them: in an id, a text block, a string content.
LONE = "\n".join([
    HEADER % "lone-1",
    r'{"type":"message","id":"l\udc00","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    r'"message":{"role":"user","content":[{"type":"text",'
    r'"text":"surrogate \ud800 lonely \uD83D"}]}}',
    r'{"type":"message","id":"l2","parentId":"l\udc00","timestamp":"2026-01-01T00:00:02.000Z",'
    r'"message":{"role":"assistant","content":"pairs \ud83d\ude00 stay, \\ud800 is text"}}',
]) + "\n"  # fmt: skip


def _normal(d: Path, n: int) -> dict[str, dict[str, object]]:
    entries: dict[str, dict[str, object]] = {}
    for i in range(n):
        s = Session(f"norm-{i:03d}")
        s.user(f"needle{i} plain words")
        s.assistant(f"reply{i} more words")
        s.write(d / f"norm-{i:03d}.jsonl")
        entries[f"agent:main:n{i}"] = {"sessionId": f"norm-{i:03d}"}
    return entries


@pytest.mark.slow
def test_one_lone_surrogate_among_200_sessions_indexes_all_201(tmp_path: Path, state: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries = _normal(d, 200)
    (d / "lone-1.jsonl").write_text(LONE, encoding="utf-8")
    entries["agent:main:weird\ud800"] = {"sessionId": "lone-1", "label": "lab\ud83d"}
    d.joinpath("sessions.json").write_text(json.dumps(entries), encoding="utf-8")  # escapes
    assert run_cli("import", str(tmp_path / "src"), "--no-reindex").exit_code == 0
    r = run_cli("reindex", "--json")
    assert r.exit_code == 0, r.stderr
    assert json_out(r)["agents"][0]["sessionsIndexed"] == 201
    st = json_out(run_cli("status", "--json"))
    assert (st["pendingSessions"], st["failedSessions"], st["indexedMessages"]) == (0, 0, 402)
    assert st["health"] == "ok"
    assert st["reasons"] == []
    for q in ("needle0", "needle199"):
        assert run_cli("search", q, "--json").exit_code == 0
    r = run_cli("search", "lonely", "--json")
    hit = json.loads(r.stdout_bytes.decode("utf-8"))["results"][0]
    assert hit["sessionKey"] == "agent:main:weird\ufffd"
    assert hit["messageId"] == "l\ufffd"
    assert hit["snippet"] == "surrogate \ufffd lonely \ufffd"
    labels = query(state, "SELECT label FROM sessions WHERE session_id = 'lone-1'")
    assert labels == [("lab\ufffd",)]
    r = run_cli("history", "lone-1", "--json")
    msgs = json.loads(r.stdout_bytes.decode("utf-8"))["messages"]
    assert [m["id"] for m in msgs] == ["l\ufffd", "l2"]
    assert msgs[1]["content"] == "pairs \U0001f600 stay, \\ud800 is text"
    table = run_cli("history", "lone-1", "--utc")
    assert table.exit_code == 0
    assert "lonely \ufffd" in table.stdout
    # the stored lines are the file's, escapes and all
    raws = query(state, "SELECT raw_text(e.raw) FROM events e JOIN transcripts t"
                 " USING (transcript_id) WHERE t.source_name = 'lone-1.jsonl'"
                 " ORDER BY e.seq")  # fmt: skip
    assert "".join(r[0] + "\n" for r in raws) == LONE


def test_appended_lone_surrogates_are_indexed_in_the_same_transaction(
    tmp_path: Path, state: Path
) -> None:
    d = tmp_path / "src"
    s = Session("app-1")
    s.user("first words")
    s.write(d / "app-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "app-1"}})
    assert run_cli("import", str(d), "--reindex").exit_code == 0
    with (d / "app-1.jsonl").open("a", encoding="utf-8") as f:
        line = {"type": "message", "id": "x9", "parentId": s.leaf, "message": {
            "role": "user", "content": "late LONE one"}}  # fmt: skip
        f.write(json.dumps(line).replace("LONE", "\\udfff") + "\n")
    assert run_cli("import", str(d)).exit_code == 0
    r = run_cli("search", "late", "--json")
    assert r.exit_code == 0
    assert "indexing" not in json_out(r)
    assert json_out(r)["results"][0]["snippet"] == "late \ufffd one"


def test_status_blames_redaction_rules_only_for_rows_indexed_under_other_rules(
    tmp_path: Path, state: Path
) -> None:
    d = tmp_path / "src"
    write_sessions_json(d, _normal(d, 2))
    assert run_cli("import", str(d), "--no-reindex").exit_code == 0
    conn = sqlite3.connect(db_file(state))  # a crashed run's claim: never indexed
    conn.execute("INSERT INTO index_state (transcript_id, needs_rebuild, claim_token,"
                 " claim_expires, updated_at) VALUES (1, 1, '1@elsewhere:x', 0, 0)")  # fmt: skip
    conn.commit()
    conn.close()
    st = json_out(run_cli("status", "--json"))
    assert st["pendingSessions"] == 2
    assert "redaction" not in st["reasons"][0]
    assert run_cli("reindex").exit_code == 0
    (state / "openclaw.json").write_text('{logging: {redactPatterns: ["needle\\\\d"]}}')
    st = json_out(run_cli("status", "--json"))
    assert st["pendingSessions"] == 2
    assert "(redaction rules changed)" in st["reasons"][0]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("1e20", "1e+20"),
        ("-1e308", "-1e+308"), ("12345678901234567890", "12345678901234567890"),
        ('"0001-01-01T00:00:00Z"', '"0001-01-01T00:00:00Z"'),
        ('"9999-12-31T23:59:59-14:00"', '"9999-12-31T23:59:59-14:00"'),
        ('"+275760-09-13T00:00:00.000Z"', '"+275760-09-13T00:00:00.000Z"'),
    ],
)  # fmt: skip
@pytest.mark.parametrize("where", ["line", "message"])
def test_an_unusable_time_is_a_reported_line_and_later_files_still_import(
    tmp_path: Path, state: Path, raw: str, shown: str, where: str
) -> None:
    d = tmp_path / "src"
    message = {"role": "user", "content": "badtime words", "timestamp": "RAW"}
    if where == "line":
        del message["timestamp"]
    line = {"type": "message", "id": "b1", "parentId": None, "message": message}
    if where == "line":
        line["timestamp"] = "RAW"
    bad = HEADER % "0-bad" + "\n" + json.dumps(line).replace('"RAW"', raw) + "\n"
    (d / "0-bad.jsonl").parent.mkdir(parents=True)
    (d / "0-bad.jsonl").write_text(bad)
    good = Session("z-good")
    good.user("goodtime words")
    good.write(d / "z-good.jsonl")
    write_sessions_json(d, {"agent:main:bad": {"sessionId": "0-bad"},
                    "agent:main:good": {"sessionId": "z-good"}})  # fmt: skip
    r = run_cli("import", str(d), "--reindex", "--json")
    assert r.exit_code == 4, r.stderr
    rep = json_out(r)
    issues = [i for i in rep["issues"] if i["code"] == "timestamp_invalid"]
    assert len(issues) == 1
    assert issues[0]["line"] == 2
    assert issues[0]["path"].endswith("0-bad.jsonl")
    assert issues[0]["severity"] == "error"
    assert shown in issues[0]["message"]
    assert rep["sessionsImported"] == 2
    assert rep["eventsStored"] == 2 + 2
    assert query(state, "SELECT ts FROM events WHERE entry_id = 'b1'") == [(None,)]
    assert run_cli("search", "goodtime", "--json").exit_code == 0
    hit = json_out(run_cli("search", "badtime", "--json"))["results"][0]
    assert hit["timestamp"] == 0  # no usable time
    h = run_cli("history", "agent:main:bad", "--json")
    assert h.exit_code == 0
    assert json.loads(h.stdout)["messages"][0]["timestamp"] is None
    assert "NaN" not in h.stdout
    assert "Infinity" not in h.stdout  # JSON that jq accepts
    assert run_cli("history", "agent:main:bad").exit_code == 0


@pytest.mark.parametrize("updated", [10**20, -1, "1e400", "NaN"])
def test_an_unusable_updated_at_is_reported_and_stored_as_none(
    tmp_path: Path, state: Path, updated: object
) -> None:
    d = tmp_path / "src"
    s = Session("up-1")
    s.user("store words")
    s.write(d / "up-1.jsonl")
    value = updated if isinstance(updated, int) else updated  # raw JSON spellings below
    text = json.dumps({"agent:main:main": {"sessionId": "up-1", "updatedAt": "X"}})
    (d / "sessions.json").write_text(text.replace('"X"', str(value)))
    r = run_cli("import", str(d), "--json")
    assert r.exit_code == 4
    codes = [(i["code"], i.get("sessionKey")) for i in json_out(r)["issues"]]
    assert codes == [("timestamp_invalid", "agent:main:main")]
    assert query(state, "SELECT updated_at FROM sessions") == [(None,)]


def test_upstream_database_with_absurd_times_imports(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "up"
    lines = [HEADER % "u-1", '{"type":"message","id":"u1","parentId":null,"timestamp":1e300,'
             '"message":{"role":"user","content":"upstream words"}}']  # fmt: skip
    build(agent_db(root), [UpSession("agent:main:main", "u-1", lines, entry={"updatedAt": 10**20})])
    r = run_cli("import", str(root), "--reindex", "--json")
    assert r.exit_code == 4
    assert [i["code"] for i in json_out(r)["issues"]] == ["timestamp_invalid"]
    assert query(state, "SELECT updated_at FROM sessions") == [(None,)]
    assert run_cli("search", "upstream", "--json").exit_code == 0


def test_to_epoch_ms_range() -> None:
    ok = {"2026-01-01T00:00:00Z": 1767225600000, 1767225600: 1767225600000, 0: 0,
          1767225600000: 1767225600000, "9999-12-31T23:59:59Z": 253402300799000}  # fmt: skip
    for value, ms in ok.items():
        assert when.to_epoch_ms(value) == ms
    for value in (float("nan"), float("inf"), -float("inf"), 1e20, -1e308, 10**19, 10**400, -1,
                  True, "0001-01-01T00:00:00Z", "", "soon", None, [], {}):  # fmt: skip
        assert when.to_epoch_ms(value) is None, value
    for ms in (10**18, float("nan"), -(10**15)):
        assert style.fmt_time(ms) == "-"  # type: ignore[arg-type]


def test_wellformed_rewrites_only_lone_surrogate_escapes() -> None:
    cases = {
        r'"a\ud800b"': "a\ufffdb", r'"\uDFFF"': "\ufffd", r'"\ud83d\ude00"': "\U0001f600",
        r'"\\ud800"': "\\ud800", '"\\\\\\ud800"': "\\\ufffd", r'"\udc00\ud800"': "\ufffd\ufffd",
        r'"\ud83d\ud83d\ude00"': "\ufffd\U0001f600", r'{"k\ud800": 1}': {"k\ufffd": 1},
        '"plain \u00e9"': "plain \u00e9",
    }  # fmt: skip
    for text, want in cases.items():
        assert wellformed.loads(text) == want, text
    assert wellformed.text("a\udcffb") == "a\ufffdb"
    assert wellformed.text("abc") == "abc"
    out = wellformed.dumps({"n": float("nan"), "k\ud800": [float("-inf"), "x\udcff"]})
    assert json.loads(out) == {"n": None, "k\ufffd": [None, "x\ufffd"]}
    out.encode("utf-8")
    with pytest.raises(transcript.LineError):  # a 5000-digit number: a malformed line
        transcript.parse_line('{"a": ' + "1" * 5000 + "}")


def test_explain_and_the_tree_read_lone_surrogates_as_import_stored_them(
    tmp_path: Path, state: Path
) -> None:
    """An abandoned branch whose text holds a lone surrogate (counted by --explain), and a
    leaf control whose targetId is spelled with one (matched to the id import stored)."""
    d = tmp_path / "src"
    d.mkdir()
    lines = [
        HEADER % "t-1",
        r'{"type":"message","id":"a\ud800","parentId":null,'
        r'"message":{"role":"user","content":"one zebra"}}',
        r'{"type":"message","id":"b","parentId":"a\ud800",'
        r'"message":{"role":"user","content":"old \udfff gone"}}',
        r'{"type":"leaf","id":"l1","parentId":"b","targetId":"a\ud800"}',
    ]  # fmt: skip
    (d / "t-1.jsonl").write_text("\n".join(lines) + "\n")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "t-1"}})
    assert run_cli("import", str(d), "--reindex").exit_code == 0
    r = run_cli("search", "gone", "--explain", "--json")
    assert r.exit_code == 1
    why = json_out(r)["explain"]["agents"]["main"]["why"][0]
    assert why["abandonedOrUnindexedMatches"] == 1
    ids = [m["id"] for m in json_out(run_cli("history", "main", "--json"))["messages"]]
    assert ids == ["a\ufffd"]  # the control moved the leaf back to a
