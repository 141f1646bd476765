"""Relevance centrally is local's (issue 39): a search of one host through the central
database answers local's first page in local's order, with local's bm25 scores, in the
operator's order and under --as; the whole fleet's merged order is bm25 under each store's
own statistics. Generated hosts, a real PostgreSQL (tests/remote_env.py)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from openclaw_sessions.remote import stats
from openclaw_sessions.store import paths
from tests import remote_env as env

# rare, common and very common words, two-word queries, accents, CJK runs and a single CJK
# character (the bigram index scores those); then words of the store's own vocabulary
QUERIES = ["deploy", "the", "migration timeout", "Ärger", "数据", "据", "fleetrank"]


def _vocabulary(state: Path) -> list[str]:
    """Words of every frequency in the host's index (the most common, then down the ranks),
    pairs of them, and its most common CJK pairs of characters."""
    conn = sqlite3.connect(paths.db_path(state, "main"))
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, index_fts, row)")
        terms = [str(t) for (t,) in conn.execute("SELECT term FROM v ORDER BY doc DESC, term")]
        texts = [str(t) for (t,) in conn.execute("SELECT text FROM index_rows")]
    finally:
        conn.close()
    words = [terms[i] for i in (0, 1, 3, 8, 20, 50, 120, 300) if i < len(terms)]
    pairs = [f"{words[0]} {words[3]}", f"{words[2]} {words[5]}"]
    cjk = Counter(
        a + b
        for t in texts
        for a, b in zip(t, t[1:], strict=False)
        if "\u4e00" <= a <= "\u9fff" and "\u4e00" <= b <= "\u9fff"
    )
    return [*words, *pairs, *(w for w, _n in cjk.most_common(3))]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env.server()
    root = tmp_path_factory.mktemp("rank")
    a, _ = env.make_host(root, 11, ["fleetrank"], messages=600)
    b, _ = env.make_host(root, 12, ["fleetrank"], messages=300)
    target = env.new_db()
    env.push(target, a, "gw-a")
    env.push(target, b, "gw-b")
    queries = {h: [*QUERIES, *_vocabulary(s)] for h, s in (("gw-a", a), ("gw-b", b))}
    return {"dsn": target, "hosts": {"gw-a": a, "gw-b": b}, "queries": queries}


def _hits(*args: str) -> list[tuple[str, str, float]]:
    r = env.cli("search", *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return [
        (h["sessionKey"], h["messageId"], float(h["score"]))
        for h in json.loads(r.stdout)["results"]
    ]


def _same(local: list[tuple[str, str, float]], remote: list[tuple[str, str, float]]) -> None:
    """The same scores in the same order, the same hit at each place but where scores tie
    exactly (those may swap)."""
    assert [s for *_x, s in remote] == pytest.approx([s for *_x, s in local], rel=1e-9)
    scores = [s for *_x, s in local]
    for (lk, lm, ls), (rk, rm, _rs) in zip(local, remote, strict=True):
        if scores.count(ls) == 1:
            assert (rk, rm) == (lk, lm)


def test_pushed_totals_are_fts5s(fleet: dict[str, Any]) -> None:
    """The N and tokens pushed are those bm25() reads: FTS5's averages record, checked
    against a count of the rows and tokens the index holds (fts5vocab)."""
    state = fleet["hosts"]["gw-a"]
    conn = sqlite3.connect(paths.db_path(state, "main"))
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, index_fts, row)")
        tokens = conn.execute("SELECT sum(cnt) FROM v").fetchone()[0]
        rows = conn.execute("SELECT count(*) FROM index_fts").fetchone()[0]
        assert stats.local_totals(conn, "index_fts") == (rows, tokens)
    finally:
        conn.close()
    got = env.admin(
        "SELECT nrows, ntokens FROM openclaw_sessions.ocs_stats WHERE host = 'gw-a'"
        " AND agent = 'main' AND fts = 'index_fts'",
        db=fleet["dsn"].split("dbname=")[1],
    )
    assert got == [(rows, tokens)]


@pytest.mark.slow
@pytest.mark.parametrize("host", ["gw-a", "gw-b"])
@pytest.mark.parametrize("order", ["relevance", "upstream"])
def test_one_host_is_local_first_page_in_local_order(
    fleet: dict[str, Any], host: str, order: str
) -> None:
    state = str(fleet["hosts"][host])
    overlap = []
    for q in fleet["queries"][host]:
        local = _hits(q, "--state-dir", state, "--all-agents", "--literal", "--order", order)
        remote = _hits(q, "--remote", fleet["dsn"], "--host", host, "--order", order)
        _same(local, remote)
        if local:
            shared = {(k, m) for k, m, _ in local} & {(k, m) for k, m, _ in remote}
            overlap.append(len(shared) / len(local))
    assert len(overlap) >= 12
    assert min(overlap) >= 0.95


@pytest.mark.slow
@pytest.mark.parametrize("host", ["gw-a", "gw-b"])
def test_as_is_the_agent_tools_answer(fleet: dict[str, Any], host: str) -> None:
    state = fleet["hosts"][host]
    for key in ("agent:main:main",):
        for q in fleet["queries"][host]:
            local = env.cli("search", q, "--state-dir", str(state), "--as", key, "--json")
            remote = env.cli("search", q, "--remote", fleet["dsn"], "--host", host, "--as", key,
                             "--json")  # fmt: skip
            assert (remote.exit_code, remote.stderr) == (local.exit_code, local.stderr), q
            ld, rd = json.loads(local.stdout), json.loads(remote.stdout)
            lr, rr = ld["results"], rd["results"]
            assert [h["score"] for h in rr] == pytest.approx([h["score"] for h in lr]), q
            ties = {h["score"] for h in lr if [x["score"] for x in lr].count(h["score"]) > 1}
            for lh, rh in zip(lr, rr, strict=True):
                if lh["score"] not in ties:
                    assert rh == lh, q


@pytest.mark.slow
def test_the_fleet_merges_by_each_stores_bm25(fleet: dict[str, Any]) -> None:
    """Without --host, `upstream` order is bm25 (each row under its own host's statistics)
    then time: every host's own first page, merged."""
    for q in ("deploy", "the", "数据"):
        whole = _hits(q, "--remote", fleet["dsn"], "--order", "upstream", "-n", "30")
        assert [s for _k, _m, s in whole] == sorted((s for _k, _m, s in whole), reverse=True)
        mine = []
        for host, state in fleet["hosts"].items():
            args = ("--state-dir", str(state), "--all-agents", "--literal", "--order", "upstream")
            mine += [(host, *h) for h in _hits(q, *args, "-n", "30")]
        best = sorted((s for *_x, s in mine), reverse=True)[: len(whole)]
        assert [s for _k, _m, s in whole] == pytest.approx(best), q


def _answer(*args: str) -> tuple[int, Any]:
    r = env.cli("search", *args, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip() else None


def _filters(fleet: dict[str, Any]) -> list[tuple[str, ...]]:
    """Filters that leave out many rows, each applied before a store's first k."""
    mid = env.admin(
        "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ts) FROM openclaw_sessions.ocs_rows",
        db=fleet["dsn"].split("dbname=")[1],
    )[0][0]
    when = datetime.fromtimestamp(int(mid) / 1000, UTC).isoformat()
    return [(), ("--role", "user"), ("--since", when), ("--until", when), ("--kind", "main"),
            ("--not-kind", "main"), ("--key", "*:direct:*"), ("--agent", "ops")]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("order", ["relevance", "upstream"])
def test_postings_answer_what_scoring_every_match_answers(
    fleet: dict[str, Any], order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store's best rows for one word are read from the postings (issue 39): the whole
    fleet's answer (hits, scores, order, `truncated`, the total) is the one scoring every
    match gives, for common and rare words, with filters, page sizes down to one (a tf
    group's first k by length and time, then exact ties), under --as too; queries the
    postings do not answer (two words, a prefix, a phrase, CJK) are unchanged."""
    from openclaw_sessions.remote import postings, ranking

    monkeypatch.setattr(ranking, "RARE", 0)  # several words always joined from postings
    words = fleet["queries"]["gw-a"]
    queries = [*words, "the fleetrank", "the deploy", "migration-timeout", "数据 the"]
    cases = [(q, f, n) for q in queries for f in _filters(fleet)[:1] for n in ("1", "10")]
    cases += [(q, f, "3") for q in words[3:6] for f in _filters(fleet)[1:]]
    cases += [(q, ("--prefix",), "5") for q in ("deplo", "th")]
    cases += [(q, ("--host", h, "--as", "agent:main:main"), n) for q in words[3:8]
              for h in fleet["hosts"] for n in ("1", "10")]  # fmt: skip
    posted = 0
    used: Counter[str] = Counter()  # the postings answered the word index, the bigram one
    real = postings.best

    def counted(c: Any, b: Any, *a: Any) -> Any:
        used.update([b.fts, "several" if len(postings.terms(b) or ()) > 1 else "one"])
        return real(c, b, *a)

    monkeypatch.setattr(postings, "best", counted)
    for q, extra, n in cases:
        args = (q, "--remote", fleet["dsn"], "--order", order, "-n", n, *extra)
        new = _answer(*args)
        with monkeypatch.context() as m:
            m.setattr(postings, "terms", lambda b: None)  # score every match, as before
            old = _answer(*args)
        assert new == old, (q, extra, n)
        posted += bool(new[1] and new[1].get("results")) and " " not in q
    assert posted >= 20
    assert used["index_fts"] >= 20, used
    assert used["index_bigram"] >= 5, used
    assert used["several"] >= 10, used


@pytest.mark.slow
@pytest.mark.parametrize("first", [1, 3])
def test_recent_windows_answer_what_sorting_every_match_answers(
    fleet: dict[str, Any], first: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--order recent` looks at the newest rows first (ranking.recent): small windows, cut
    in every place, give the answer sorting every match gives, filters and --as too."""
    from openclaw_sessions.remote import ranking

    words = fleet["queries"]["gw-a"]
    cases = [(q, f, n) for q in words[:6] for f in _filters(fleet) for n in ("1", "4")]
    cases += [(q, ("--host", "gw-b", "--as", "agent:main:main"), "3") for q in words[:6]]
    for q, extra, n in cases:
        args = (q, "--remote", fleet["dsn"], "--order", "recent", "-n", n, *extra)
        with monkeypatch.context() as m:
            m.setattr(ranking, "RECENT_FIRST", first)
            new = _answer(*args)
        with monkeypatch.context() as m:
            m.setattr(ranking, "RECENT_STEPS", 0)  # every match sorted, as before
            assert _answer(*args) == new, (q, extra, n)


@pytest.mark.slow
@pytest.mark.parametrize("order", ["relevance", "upstream", "recent"])
def test_the_total_is_locals(fleet: dict[str, Any], order: str) -> None:
    """The total of a page that leaves matches out is local's, counted while the matches
    are scored (relevance) or by a capped count (recent)."""
    state = str(fleet["hosts"]["gw-a"])
    for q in ("the", "deploy", "数据"):
        args = ("--order", order, "-n", "3", "--json")
        local = env.cli("search", q, "--state-dir", state, "--all-agents", "--literal", *args)
        remote = env.cli("search", q, "--remote", fleet["dsn"], "--host", "gw-a", *args)
        ld, rd = json.loads(local.stdout), json.loads(remote.stdout)
        assert ld["truncated"], q
        assert rd["truncated"], q
        got = [(d.get("total"), d.get("totalAtLeast")) for d in (ld, rd)]
        assert got[0] == got[1], (q, got)
        assert got[0] != (None, None), (q, got)


@pytest.mark.slow
def test_words_beside_cjk_text_score_as_locally(tmp_path: Path) -> None:
    """A word written against CJK text is found through the bigram index and scored by its
    bm25 (over each distinct word), a word on its own by the word index's: the same hits,
    scores and order as local search, in both orders, a query word repeated too."""
    from helpers import Session, write_sessions_json

    env.server()
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("s1")
    texts = [
        "修改youer服务端 then restart",
        "youer on its own",
        "请检查youer配置 youer",
        "Éclair服务 ready",
        "eclair plain",
        "数据youer数据 and more words here",
        "nothing to see",
        "youer youer youer",
        "Éclair服务 and eclair too",  # beside CJK text, and among its words folded: word index
    ]
    for i, text in enumerate(texts):
        (s.user if i % 2 == 0 else s.assistant)(text)
    s.write(sdir / "s1.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1", "updatedAt": 1}})
    r = env.cli("import", "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code in (0, 4), r.stderr
    target = env.new_db()
    env.push(target, state, "gw")
    for q in ("youer", "youer youer", "youer 服务", "Éclair", "eclair", "ready", "数据"):
        for order in ("relevance", "upstream"):
            local = _hits(q, "--state-dir", str(state), "--literal", "--order", order)
            remote = _hits(q, "--remote", target, "--host", "gw", "--order", order)
            assert (
                len(local) == {"youer": 5, "youer youer": 5, "youer 服务": 1}.get(q, len(local)) > 0
            )
            _same(local, remote)


@pytest.mark.slow
def test_postings_keep_locals_order_among_ties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows of one word count and one length tie on bm25; the sessions' j-th messages tie on
    time too (key, then message id decide): every page size cuts a tf group somewhere in them, and
    the answer is still local's and scoring every match's."""
    from helpers import Session, write_sessions_json

    from openclaw_sessions.remote import postings, ranking

    monkeypatch.setattr(ranking, "RARE", 0)
    env.server()
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    index = {}
    for i in range(6):
        s = Session(f"s{i}")  # the j-th messages of every session at one time
        for j in range(8):
            text = ("zeta one two", f"two zeta {i}", "zeta zeta one", "one two three")[j % 4]
            (s.user if j % 2 == 0 else s.assistant)(text)
        s.write(sdir / f"s{i}.jsonl")
        # keys in the opposite order to the transcripts (the index's own order after ts)
        index[f"agent:main:direct:p{9 - i}"] = {"sessionId": f"s{i}", "updatedAt": i + 1}
    write_sessions_json(sdir, index)
    r = env.cli("import", "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code in (0, 4), r.stderr
    target = env.new_db()
    env.push(target, state, "gw")
    for q, order in [(q, o) for q in ("zeta", "zeta one") for o in ("relevance", "upstream")]:
        for n in ("1", "2", "3", "5", "8", "13", "40"):
            local = _hits(q, "--state-dir", str(state), "--literal", "--order", order, "-n", n)
            args = (q, "--remote", target, "--order", order, "-n", n)
            remote = _answer(*args)
            with monkeypatch.context() as m:
                m.setattr(postings, "terms", lambda b: None)
                assert _answer(*args) == remote, (q, order, n)
            got = [
                (h["sessionKey"], h["messageId"], float(h["score"])) for h in remote[1]["results"]
            ]
            assert got == local, (q, order, n)
