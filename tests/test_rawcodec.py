"""Raw lines compressed with dictionaries trained on the store's own lines (store/rawcodec.py):
every stored line comes back byte for byte, old dictionaries stay readable, a store of the
previous schema migrates in place and answers the same searches; the CJK bigram text is
derived, never stored."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from helpers import (
    Session,
    as_v6,
    connect,
    db_file,
    events_dump,
    generate_corpus,
    integrity,
    json_out,
    query,
    run_cli,
    write_sessions_json,
)

from openclaw_sessions.policy import cjk
from openclaw_sessions.policy.cjk import cjk_bigram_text
from openclaw_sessions.store import db, rawcodec, sessions
from openclaw_sessions.store.migrations import SCHEMA_VERSION


def stored_files(state: Path, agent: str) -> Iterator[tuple[str, bytes]]:
    """(source path, the file as the store gives it back) for each transcript."""
    conn = db.connect(db_file(state, agent))
    try:
        tids = conn.execute("SELECT transcript_id, source_path FROM transcripts").fetchall()
        for tid, path in tids:
            with db.transaction(conn, write=False):
                yield path, b"".join(line + b"\n" for line in sessions.raw_lines(conn, tid))
    finally:
        conn.close()


def frame_dicts(state: Path, agent: str = "main") -> dict[int, int]:
    """Rows per dictionary id named in the frames of events.raw (0: none)."""
    out: dict[int, int] = {}
    for (raw,) in query(state, "SELECT raw FROM events", agent=agent):
        did = zstandard.get_frame_parameters(raw).dict_id
        out[did] = out.get(did, 0) + 1
    return out


def without_blank_lines(data: bytes) -> bytes:
    return b"".join(ln + b"\n" for ln in data.split(b"\n") if ln.strip())


@pytest.mark.slow
def test_generated_corpus_round_trips_through_several_dictionaries(tmp_path: Path) -> None:
    m = generate_corpus(tmp_path / "src", 12_000, agents=1, seed=5, cjk_ratio=0.33)
    state = tmp_path / "state"
    assert run_cli("import", str(tmp_path / "src"), "--quiet").exit_code == 0
    back = dict(stored_files(state, "main"))
    sdir = tmp_path / "src" / "agents" / "main" / "sessions"
    files = [p for p in sdir.iterdir() if p.name != "sessions.json"]
    assert len(back) == len(files) == m["files"]["transcripts"]
    for p in files:
        assert back[str(p)] == p.read_bytes(), p
    dicts = query(state, "SELECT dict_id, trained_at_lines FROM raw_dicts ORDER BY generation")
    used = frame_dicts(state)
    assert len(dicts) >= 2
    assert 0 not in used  # the first dictionary recompressed what came before
    assert set(used) == {d for d, _ in dicts}  # rows of every generation are read back above
    assert dicts[0][1] >= rawcodec.FIRST_LINES
    assert dicts[1][1] >= rawcodec.GROWTH * dicts[0][1]
    stored = query(state, "SELECT sum(length(raw)) FROM events")[0][0]
    assert stored * 3 < sum(len(b) for b in back.values())  # ~4x measured; 3x at the least


@pytest.mark.slow
def test_real_corpus_round_trips_through_raw_lines(corpus: Path, state: Path) -> None:
    assert run_cli("import", str(corpus), "--include-archives", "--quiet").exit_code in (0, 4)
    agents = [p.name for p in (state / "agents").iterdir() if p.is_dir()]
    trained = 0
    for agent in agents:
        for path, data in stored_files(state, agent):
            assert data == without_blank_lines(Path(path).read_bytes()), path
        trained += query(state, "SELECT count(*) FROM raw_dicts", agent=agent)[0][0]
    assert trained >= 1  # the real transcripts went through a dictionary too


def test_quarantined_lines_come_back_in_place(tmp_path: Path, state: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    s = Session("q-1")
    s.user("first words")
    s.assistant("second words")
    good = s.text().encode().splitlines(keepends=True)
    data = good[0] + b"{not json\n" + good[1] + b"\xff\xfe bad utf-8\n" + b"".join(good[2:])
    (d / "q-1.jsonl").write_bytes(data)
    write_sessions_json(d, {"agent:main:main": {"sessionId": "q-1"}})
    assert run_cli("import", str(tmp_path / "src"), "--quiet").exit_code == 4  # reported
    assert dict(stored_files(state, "main")) == {str(d / "q-1.jsonl"): data}


@pytest.mark.slow
def test_lines_stored_before_the_first_dictionary_are_recompressed_with_it(
    tmp_path: Path, state: Path
) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    entries = {}
    for i in range(12):
        s = Session(f"r-{i}")
        for j in range(50):
            s.user(f"question {j} about the deploy of service {i}")
            s.assistant(f"answer {j}: the rollout of service {i} looks healthy")
        s.write(d / f"r-{i}.jsonl")
        entries[f"agent:main:r{i}"] = {"sessionId": f"r-{i}"}
        write_sessions_json(d, entries)
        assert run_cli("import", str(tmp_path / "src"), "--quiet").exit_code == 0
        if i == 0:
            assert frame_dicts(state) == {0: 101}  # too few lines for a dictionary yet
    used = frame_dicts(state)
    assert 0 not in used
    assert sum(used.values()) == 12 * 101
    for path, data in stored_files(state, "main"):
        assert data == Path(path).read_bytes()
    assert run_cli("reindex", "--quiet").exit_code == 0
    assert len(json_out(run_cli("search", "rollout", "--json", "--limit", "5"))["results"]) == 5


@pytest.mark.slow
def test_a_dictionary_id_is_derived_from_its_bytes(tmp_path: Path, state: Path) -> None:
    generate_corpus(tmp_path / "src", 3_000, agents=1, seed=2)
    run_cli("import", str(tmp_path / "src"), "--quiet")
    for did, blob in query(state, "SELECT dict_id, dict FROM raw_dicts"):
        assert zstandard.ZstdCompressionDict(blob).dict_id() == did == rawcodec._id_of(blob)
        assert 32768 <= did < 2**31


def test_too_little_to_train_on_waits_for_twice_the_lines(tmp_path: Path, state: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    s = Session("few")
    s.user("hello")
    s.write(d / "few.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "few"}})
    run_cli("import", str(tmp_path / "src"), "--quiet")
    conn = db.connect(db_file(state))
    try:
        with db.transaction(conn):
            assert rawcodec.train(conn) is False  # two lines: zstd has nothing to learn from
            assert db.get_meta(conn, rawcodec.NEXT_KEY) == str(rawcodec.FIRST_LINES)
    finally:
        conn.close()
    assert query(state, "SELECT count(*) FROM raw_dicts") == [(0,)]


@pytest.mark.slow
def test_a_line_whose_dictionary_is_gone_is_a_store_error(tmp_path: Path, state: Path) -> None:
    generate_corpus(tmp_path / "src", 3_000, agents=1, seed=2)
    run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    key = query(state, "SELECT session_key FROM transcripts ORDER BY next_seq DESC LIMIT 1")[0][0]
    assert run_cli("history", key, "--json").exit_code == 0
    conn = connect(db_file(state))
    conn.execute("DELETE FROM raw_dicts")
    conn.commit()
    conn.close()
    r = run_cli("history", key, "--json")
    assert r.exit_code == 3
    assert "database is corrupt" in r.stderr
    assert "Traceback" not in r.stderr


def _searches(state: Path) -> dict[str, Any]:
    out = {}
    for q in ("deploy", "zqplantalpha", "東京", "データベース", "the report", "서버", "京"):
        r = run_cli("search", q, "--json", "--limit", "50")
        assert r.exit_code in (0, 1), r.output
        out[q] = json_out(r)["results"]
    return out


@pytest.mark.slow
def test_a_v6_store_migrates_in_place_and_answers_the_same(tmp_path: Path) -> None:
    src = tmp_path / "src"
    generate_corpus(src, 4_000, agents=1, seed=9, cjk_ratio=0.33, plant=["zqplantalpha"])
    state = tmp_path / "state"
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    before = _searches(state)
    lines = events_dump(state)
    assert all(before.values())
    path = db_file(state)
    as_v6(path)  # the store as schema v6 kept it: lines as text, bigrams in index_rows
    assert query(state, "SELECT typeof(raw) FROM events LIMIT 1") == [("text",)]
    # A row indexed by an older rule: its stored bigram text is not what the function derives.
    c = sqlite3.connect(path)
    row_id, cjk = c.execute("SELECT row_id, cjk FROM index_rows WHERE cjk IS NOT NULL").fetchone()
    c.execute("INSERT INTO index_bigram(index_bigram, rowid, cjk) VALUES ('delete', ?, ?)",
              (row_id, cjk))  # fmt: skip
    c.execute("UPDATE index_rows SET cjk = ? || ' 旧式' WHERE row_id = ?", (cjk, row_id))
    c.execute("INSERT INTO index_bigram(rowid, cjk) SELECT row_id, cjk FROM index_rows"
              " WHERE row_id = ?", (row_id,))  # fmt: skip
    c.commit()
    c.close()
    v6_bytes = path.stat().st_size
    assert _searches(state) == before  # opening it migrates it: v7 to v9
    integrity(state)  # the older row is indexed as the function derives it now
    assert query(state, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert events_dump(state) == lines
    assert query(state, "SELECT count(*) FROM raw_dicts")[0][0] == 1
    assert 0 not in frame_dicts(state)
    assert path.stat().st_size * 2 < v6_bytes  # VACUUMed: the pages came back
    backup = path.with_name(path.name + ".v6.bak")
    c = sqlite3.connect(backup)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 6
    c.close()
    fresh = tmp_path / "fresh"
    run_cli("import", str(tmp_path / "src"), "--state-dir", str(fresh), "--quiet")
    schema = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
    assert query(state, schema) == query(fresh, schema)
    assert run_cli("reindex", "--full", "--quiet").exit_code == 0  # deletes with derived bigrams
    assert _searches(state) == before
    integrity(state)


def test_the_bigram_text_is_derived_never_stored(tmp_path: Path, state: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    s = Session("cjk")
    s.user("東京の天気はどうですか")
    s.assistant("plain english only")
    s.write(d / "cjk.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "cjk"}})
    run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    cols = [r[1] for r in query(state, "PRAGMA table_info(index_rows)")]
    assert "cjk" not in cols
    assert query(state, "SELECT count(*) FROM index_rows_cjk") == [(1,)]
    assert json_out(run_cli("search", "天気", "--json"))["results"]
    assert run_cli("reindex", "--full", "--quiet").exit_code == 0  # deletes, then inserts
    assert json_out(run_cli("search", "天気", "--json"))["results"]
    integrity(state)  # FTS5 checks both indexes against their content (the derived view)
    r = run_cli("delete", "agent:main:main", "--yes", "--json")
    assert r.exit_code == 0
    integrity(state)
    conn = sqlite3.connect(db_file(state))  # no function: deleting fails, loses nothing
    with pytest.raises(sqlite3.OperationalError, match="ocs_cjk_bigrams"):
        conn.execute("DELETE FROM index_bigram WHERE rowid IN (SELECT row_id FROM index_rows_cjk)")
    conn.close()


def test_the_bigram_function_is_frozen() -> None:
    """Deletes from the CJK index recompute the bigram text from the stored text: if this
    function changed, they would no longer match what was indexed. A change needs a migration
    that rebuilds index_bigram ('rebuild'); then update these values."""
    cases = {
        "東京の天気": "東京 京の の天 天気 気",
        "abc 東 def 京都": "東 京都 都",
        "한국어 텍스트": "한국 국어 어 텍스 스트 트",
        "ｶﾀｶﾅ and ﾃｽﾄ": "ｶﾀ ﾀｶ ｶﾅ ﾅ ﾃｽ ｽﾄ ﾄ",
        "no cjk here": None,
        "\uf900\uf901": "豈更 更",  # compatibility ideographs: NFC maps them
    }
    assert {t: cjk_bigram_text(t) for t in cases} == cases
    ranges = re.findall(r"(.)-(.)", cjk.CJK_CLASS)  # the cheap first look spans them all
    assert ranges
    assert all("\u0e00" <= a <= b <= "\U0003ffff" for a, b in ranges)
    assert json.dumps(cjk_bigram_text("𠀀𠀁"), ensure_ascii=False) == '"𠀀𠀁 𠀁"'
