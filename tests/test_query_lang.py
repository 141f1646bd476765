"""The operator's query language (policy/query_lang.py) and the order by session
(policy/rank.py): parsing, FTS5 expressions that never error, each operator end to end,
--literal and --as keeping upstream's literal terms and order, --relax and `absence`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_sessions.policy import query_lang, rank
from openclaw_sessions.store.migrations import BIGRAM_TOKENIZER, PRIMARY_TOKENIZER


def test_the_space_binds_tighter_than_or_as_in_fts5() -> None:
    b = query_lang.build
    assert b("a OR b c").primary == '("a" OR ("b" AND "c"))'
    assert b("a b OR c").primary == '(("a" AND "b") OR "c")'
    assert b("(a OR b) c").primary == '(("a" OR "b") AND "c")'
    alts = b("a -b OR c").alternatives  # -b leaves out of its own side only
    assert [p.primary for p in alts] == ['("a") NOT ("b")', '"c"']
    # FTS5 itself reads our queries of plain words the same way: the same rows match
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(t, tokenize='{PRIMARY_TOKENIZER}')")
    docs = ["a", "b", "c", "a b", "b c", "a c", "a b c", "d", "c d"]
    conn.executemany("INSERT INTO f (rowid, t) VALUES (?, ?)", enumerate(docs))

    def rows(expr: str) -> list[int]:
        return [r[0] for r in conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (expr,))]

    for q in ("a OR b c", "a b OR c", "a OR b OR c d", "a b OR c d", "a OR b c OR d"):
        plan = b(q).primary
        assert plan is not None
        assert rows(plan) == rows(q), q


def test_words_that_are_not_operators_stay_literal(tmp_path: Path, state: Path) -> None:
    """NOT, a stray OR or parenthesis, a hyphenated word and a query that only excludes are
    searched as words; what cannot be a query finds nothing (exit 1), never an error."""
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    texts = {"notdeploy": "do NOT deploy on fridays", "deploy": "deploy the fix",
             "orgate": "the OR gate is open", "gate": "the gate is closed",
             "foobar": "foo-bar and baz"}  # fmt: skip
    for name, text in texts.items():
        s = Session(name)
        s.user(text)
        s.write(src / f"{name}.jsonl")
    write_sessions_json(src, {f"agent:main:{k}": {"sessionId": k} for k in texts})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    assert _keys("NOT deploy") == ["agent:main:notdeploy"]
    assert _keys("gate OR") == _keys("OR") == ["agent:main:orgate"]
    assert _keys("baz) (foo") == _keys("foo-bar") == ["agent:main:foobar"]
    assert _keys("bar-foo") == []  # a phrase of its tokens, in order
    only = run_cli("search", "--json", "--", "-gate")
    assert {h["sessionKey"] for h in json_out(only)["results"]} == {
        "agent:main:orgate",
        "agent:main:gate",
    }
    for nothing in ("((", '""'):
        r = run_cli("search", nothing, "--json")
        assert r.exit_code == 1, r.stderr
        assert json_out(r)["results"] == [], r.stderr


def test_too_many_alternatives_is_a_usage_error() -> None:
    from openclaw_sessions.errors import UsageError

    q = " ".join(f"(w{i} OR 字{i}字)" for i in range(6))  # 2**6 alternatives
    with pytest.raises(UsageError, match="too complex"):
        query_lang.build(q)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from('ab 数据-"()*OR NT:^\\'), min_size=1, max_size=40))
def test_no_query_raises_an_fts_error(q: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(t, tokenize='{PRIMARY_TOKENIZER}')")
    conn.execute(f'CREATE VIRTUAL TABLE g USING fts5(t, tokenize="{BIGRAM_TOKENIZER}")')
    try:
        p = query_lang.build(q, prefix=True)
    except Exception as e:  # only the documented usage errors
        assert "query" in str(e)
        return
    for plan in p.branches:
        for table, expr in (
            ("f", plan.primary),
            ("g", plan.bigram),
            ("f", plan.not_primary),
            ("g", plan.not_bigram),
            ("f", plan.highlight),
        ):
            if expr is not None:
                conn.execute(f"SELECT * FROM {table} WHERE {table} MATCH ?", (expr,)).fetchall()


def test_fingerprint_and_automation_keys() -> None:
    f = rank.fingerprint
    assert f("[2026-01-05 08:00] Reminder: rotate KEY") == f(
        "[2026-02-01 09:30] reminder rotate key"
    )
    assert f("step 3 of 4") != f("step 1 of 4")
    assert rank.automated_key("agent:main:cron:abc:run:def")
    assert rank.automated_key("agent:main:hook:gmail")
    assert not rank.automated_key("agent:main:main")


def test_rank_spreads_sessions_and_folds_copies() -> None:
    cands = [
        rank.Cand("agent:main:a", 10 + i, 5.0 - i * 0.01, f"alpha {'bcdefghi'[i]}")
        for i in range(8)
    ]
    cands += [
        rank.Cand("agent:main:b", 5, 1.0, "alpha here"),
        rank.Cand("agent:main:c", 4, 0.9, "x"),
    ]
    cands += [
        rank.Cand("agent:main:cron:j", 50 + i, 9.0, f"alpha [2026-01-0{i + 1}]") for i in range(5)
    ]
    out = rank.order(cands, per_session=3)
    keys = [cands[r.pos].key for r in out]
    assert keys[:3] == ["agent:main:a"] * 3  # at most 3 of one session before the others
    assert set(keys[3:6]) == {"agent:main:b", "agent:main:c", "agent:main:cron:j"}
    cron = [r for r in out if cands[r.pos].key == "agent:main:cron:j"]
    assert [r.copies for r in cron] == [5]  # folded, demoted, still there
    assert len(rank.order(cands, per_session=None)) == len(out)


def _store(root: Path) -> None:
    src = root / "src" / "agents" / "main" / "sessions"
    entries = {}
    texts = {
        "settle": [
            "What do we do about the zorblax rollout? It keeps failing on billing.",
            "The zorblax rollout fails because the deploy order is wrong; fix the order.",
            "Settled: zorblax deploys after billing from now on.",
        ],
        "other": ["The deploy of billing is fine", "zorblax mentioned with 数据库 连接 超时"],
        "cjk": ["数据库连接超时的问题已经解决", "量子猫 deploy"],
    }
    for i, (name, msgs) in enumerate(texts.items()):
        s = Session(name, ts0=1_767_225_600_000 + i * 86_400_000)
        for j, t in enumerate(msgs):
            (s.user if j % 2 == 0 else s.assistant)(t)
        s.write(src / f"{name}.jsonl")
        entries[f"agent:main:{name}"] = {"sessionId": name}
    cron = Session("cronrun", ts0=1_767_225_600_000 + 9 * 86_400_000)
    for j in range(30):
        cron.user(f"[2026-01-{1 + j % 28:02d} 08:00] Reminder: zorblax check")
    cron.write(src / "cronrun.jsonl")
    entries["agent:main:cron:job1"] = {"sessionId": "cronrun"}
    write_sessions_json(src, entries)
    assert run_cli("import", str(root / "src"), "--reindex", "--quiet").exit_code == 0


def _keys(*args: str) -> list[str]:
    r = run_cli("search", *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return [h["sessionKey"] for h in json_out(r)["results"]]


def test_each_operator_end_to_end(tmp_path: Path, state: Path) -> None:
    _store(tmp_path)
    assert set(_keys("deploy -billing")) == {"agent:main:cjk", "agent:main:settle"}
    assert "agent:main:settle" not in _keys('"billing is fine"')
    assert _keys('"billing is fine"') == ["agent:main:other"]
    assert set(_keys("量子猫 OR 超时")) == {"agent:main:cjk", "agent:main:other"}
    assert set(_keys("zorbl*")) == {"agent:main:settle", "agent:main:other", "agent:main:cron:job1"}
    assert _keys("(rollout OR 超时) zorblax")[0] in ("agent:main:settle", "agent:main:other")
    assert _keys("超时 -zorblax") == ["agent:main:cjk"]  # a CJK term, a Latin exclusion
    # --literal: every word is text (upstream's rule): "-billing" is the word billing
    assert set(_keys("deploy -billing", "--literal")) == {"agent:main:other"}
    assert _keys('"billing is fine" OR x', "--literal") == []


def test_flood_order_and_upstream_order(tmp_path: Path, state: Path) -> None:
    _store(tmp_path)
    ours = json_out(run_cli("search", "zorblax", "--json"))["results"]
    assert ours[0]["sessionKey"] == "agent:main:settle"
    cron = [h for h in ours if h["sessionKey"] == "agent:main:cron:job1"]
    assert len(cron) == 1
    assert cron[0]["copies"] == 30  # folded, demoted, still shown
    up = json_out(run_cli("search", "zorblax", "--json", "--order", "upstream"))["results"]
    up_keys = [h["sessionKey"] for h in up]
    assert "agent:main:settle" not in up_keys[:3]  # the flood fills upstream's first page
    assert up_keys.count("agent:main:cron:job1") >= 8
    assert all("copies" not in h for h in up)
    scores = [(-h["score"], -h["timestamp"]) for h in up]
    assert scores == sorted(scores)
    # --as: upstream's literal terms, order and JSON, whatever the operator's order does
    as_ = json_out(run_cli("search", "zorblax", "--json", "--as", "agent:main:cron:job1",
                           "--visibility", "tree"))  # fmt: skip
    assert set(as_) == {"results", "truncated"}  # upstream's keys only
    assert [h["sessionKey"] for h in as_["results"]] == ["agent:main:cron:job1"] * 10
    assert set(_keys("deploy -billing", "--as", "agent:main:other", "--visibility", "all")) == {
        "agent:main:other"
    }


def test_relax_and_absence(tmp_path: Path, state: Path) -> None:
    _store(tmp_path)
    r = run_cli("search", "zorblax nowhereword", "--json")
    doc = json_out(r)
    assert r.exit_code == 1
    assert doc["results"] == []
    assert doc["absence"]["termsNotFound"] == ["nowhereword"]
    assert doc["absence"]["lift"] == ["--relax"]
    r = run_cli("search", "zorblax nowhereword", "--json", "--relax")
    doc = json_out(r)
    assert r.exit_code == 0
    assert doc["results"][0]["relaxed"] is True
    assert doc["results"][0]["sessionKey"] == "agent:main:settle"
    assert "relaxed" in doc["absence"]
    doc = json_out(run_cli("search", "zorblax nowhereword -billing", "--json", "--relax"))
    assert doc["results"]
    assert all("billing" not in h["snippet"] for h in doc["results"])
    doc = json_out(run_cli("search", "zorblax", "--json", "-n", "1"))
    assert doc["absence"]["cut"]["by"] == "limit"
    assert doc["absence"]["lift"][0].startswith("--limit")
    assert "absence" not in json_out(run_cli("search", "rollout", "--json"))
    # --as: upstream's result exactly (its explain says why instead); --relax is the operator's
    as_ = json_out(run_cli("search", "nowhereword", "--json", "--as", "agent:main:settle"))
    assert as_ == {"results": []}
    r = run_cli("search", "zorblax x", "--relax", "--as", "agent:main:settle")
    assert r.exit_code == 2
    assert "--relax" in r.stderr


def test_history_around_reopens_a_hit_kept_in_a_reset_archive(
    sample_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample's reset archive (upstream PR #141437 keeps it searchable): the hit's
    messageId opens a window there."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(sample_store))
    hit = json_out(run_cli("search", "Lyon invoice audit", "--json"))["results"][0]
    assert hit["sessionId"] == "0b5c6f1e-0000-4a4a-9c9c-00000000000a"
    r = run_cli("history", hit["sessionKey"], "--around", hit["messageId"], "--json")
    assert r.exit_code == 0, r.stderr
    texts = [str(m) for m in json_out(r)["messages"]]
    assert any("Lyon" in t for t in texts)


def test_explain_lists_alternatives_and_exclusions(tmp_path: Path, state: Path) -> None:
    _store(tmp_path)
    doc = json_out(run_cli("search", "(deploy OR 超时) -zorblax", "--json", "--explain"))
    expr = doc["explain"]["agents"]["main"]["expressions"]
    assert expr["alternatives"][0] == {"primary": '("deploy") NOT ("zorblax")', "bigram": None}
    assert expr["alternatives"][1]["excludePrimary"] == '"zorblax"'
    # --order upstream goes with --as too (it is the order --as always has)
    r = run_cli("search", "zorblax", "--as", "agent:main:settle", "--order", "upstream")
    assert r.exit_code == 0, r.stderr


def test_a_relaxed_query_leaves_the_minus_words_out_of_every_alternative() -> None:
    from openclaw_sessions.read.search import ranked

    for literal in (False, True):
        loose = ranked.relaxed_plan(query_lang.build("alpha beta gamma -delta"), literal=literal)
        assert loose is not None
        exprs = [p.primary for p in loose.alternatives] or [loose.primary]
        assert all(e is not None and e.endswith('NOT ("delta")') for e in exprs), exprs


def test_relax_leaves_a_group_out_whole_or_keeps_it(tmp_path: Path, state: Path) -> None:
    """A parenthesised group is one part of the query: --relax may leave out the word beside
    it (and find the group's match) but never splits the group's OR into ANDs."""
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    texts = {"pg": "postgres is slow today", "both": "postgres and mysql side by side"}
    for name, text in texts.items():
        s = Session(name)
        s.user(text)
        s.write(src / f"{name}.jsonl")
    write_sessions_json(src, {f"agent:main:{k}": {"sessionId": k} for k in texts})
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet").exit_code == 0
    strict = run_cli("search", "(postgres OR 数据库) 超时", "--json")
    assert strict.exit_code == 1
    assert "--relax" in json_out(strict)["absence"]["lift"]
    r = run_cli("search", "(postgres OR 数据库) 超时", "--relax", "--json")
    assert r.exit_code == 0, r.stderr
    assert {h["sessionKey"] for h in json_out(r)["results"]} == {"agent:main:pg", "agent:main:both"}
    assert all(h["relaxed"] for h in json_out(r)["results"])
    # (postgres OR mysql) alone is not loosened into "postgres mysql"; nothing to leave out
    r = run_cli("search", "(zzq OR mysql)", "--relax", "--json")
    assert {h["sessionKey"] for h in json_out(r)["results"]} == {"agent:main:both"}


def test_sessions_follow_the_chosen_order(tmp_path: Path, state: Path) -> None:
    """--sessions and --count --by-session list sessions in the search's order: in relevance
    order the session that settled the topic before the cron flood, as the hit list has it."""
    _store(tmp_path)

    def listed(*args: str) -> list[str]:
        r = run_cli("search", "zorblax", "--json", *args)
        assert r.exit_code == 0, r.stderr
        return [s["sessionKey"] for s in json_out(r)["sessions"]]

    first_hit = _keys("zorblax")[0]
    bm25_first = _keys("zorblax", "--order", "upstream")[0]
    assert (first_hit, bm25_first) == ("agent:main:settle", "agent:main:other")
    for mode in (["--sessions"], ["--count", "--by-session"]):
        assert listed(*mode)[0] == first_hit
        assert listed(*mode, "--order", "upstream")[0] == bm25_first
        newest = listed(*mode, "--order", "recent")
        assert newest[0] == "agent:main:cron:job1"  # its run is the newest
        assert sorted(listed(*mode)) == sorted(newest)  # every session, whatever the order
