"""`search --count`, `--count --by-session`, `--sessions`, the JSON total, the hint that names
the option that cut the list, and `-C N` (issue #18 §3). Counts go through the same WHERE as
the hits, so they agree with the full result list under every filter and visibility; the
total of a cut list costs at most TOTAL_CAP rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, db_file, installed, json_out, run_cli, write_sessions_json

from openclaw_sessions.policy import fts_query
from openclaw_sessions.read.scope import register
from openclaw_sessions.read.search import counting, fts
from openclaw_sessions.read.search.counting import TOTAL_CAP

T0 = 1_767_225_600_000


def _write(src: Path) -> None:
    """Five sessions (one spawned by main, one incognito) with 'common' in many messages,
    tool results saying it too (never counted), a secret next to a hit."""
    entries: dict[str, dict[str, Any]] = {}
    for i in range(5):
        s = Session(f"c-{i}", ts0=T0 + i * 86_400_000)
        for j in range(2 + i):
            s.user(f"common question {j} of {i}")
            s.tool("common tool output")
            s.assistant(f"answer {j} {'common' if j % 2 else 'other'}")
        if i == 1:
            s.user("here is the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 ok")
            s.assistant("rarewordneighbour reply")
            s.user("after the rare one")
        s.write(src / f"c-{i}.jsonl")
        entries[f"agent:main:k{i}"] = {"sessionId": f"c-{i}", "updatedAt": T0}
    entries["agent:main:k2"]["spawnedBy"] = "agent:main:k1"
    entries["agent:main:dashboard:incognito-9"] = entries.pop("agent:main:k4")
    write_sessions_json(src, entries)


@pytest.fixture
def store(tmp_path: Path, state: Path) -> Path:
    _write(tmp_path / "src")
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    return state


def everything(*args: str) -> list[dict[str, Any]]:
    # upstream's order: one hit per message (the operator's folds near-duplicates)
    order = ("--order", "upstream")
    r = run_cli("search", "common", "--json", "--limit", "25", "--max-bytes", "0", *order, *args)
    assert r.exit_code in (0, 1), r.stderr
    out = json_out(r)
    assert "truncated" not in out, out
    # the agent's view (--as) is upstream's result: no operator total
    assert out.get("total") == (None if "--as" in args else len(out["results"])), out
    return list(out["results"])


FILTERS = [
    [],
    ["--role", "user"],
    ["--role", "assistant"],
    ["--since", "2026-01-02T12:00Z"],
    ["--until", "2026-01-03T12:00Z"],
    ["--session", "agent:main:k1"],
    ["--session", "c-3"],
    ["--as", "agent:main:k1"],  # itself and the session it spawned
    ["--as", "agent:main:k2", "--visibility", "self"],
    ["--as", "main", "--visibility", "agent", "--role", "user"],
]


@pytest.mark.slow
@pytest.mark.parametrize("args", FILTERS)
def test_counts_agree_with_the_full_result_list(store: Path, args: list[str]) -> None:
    hits = everything(*args)
    assert all(h["sessionKey"] != "agent:main:dashboard:incognito-9" for h in hits)
    r = installed("search", "common", "--count", "--json", *args, state=store)
    assert json.loads(r.stdout)["count"] == len(hits)
    assert r.returncode == (0 if hits else 1)
    r = installed("search", "common", "--count", *args, state=store)
    assert r.stdout == f"{len(hits)}\n"
    per: dict[str, int] = {}
    for h in hits:
        per[h["sessionKey"]] = per.get(h["sessionKey"], 0) + 1
    r = installed("search", "common", "--count", "--by-session", "--json", *args, state=store)
    doc = json.loads(r.stdout)
    assert {s["sessionKey"]: s["count"] for s in doc["sessions"]} == per
    assert doc["count"] == len(hits)
    assert all(s["agentId"] == "main" for s in doc["sessions"])
    r = installed("search", "common", "--count", "--by-session", *args, state=store)
    assert sorted(r.stdout.splitlines()) == sorted(f"{k}\t{n}" for k, n in per.items())
    r = installed("search", "common", "--sessions", *args, state=store)
    assert sorted(r.stdout.splitlines()) == sorted(per)
    assert r.returncode == (0 if per else 1)


@pytest.mark.slow
def test_sessions_follow_the_order_of_the_search(store: Path) -> None:
    def listed(*args: str) -> list[str]:
        return installed("search", "common", "-l", *args, state=store).stdout.splitlines()

    newest_first = [f"agent:main:k{i}" for i in (3, 2, 1, 0)]
    assert listed("--order", "recent") == newest_first
    assert sorted(listed()) == sorted(newest_first)
    lines = installed("search", "common", "-l", "--jsonl", state=store).stdout.splitlines()
    assert [json.loads(x)["sessionKey"] for x in lines] == listed()


@pytest.mark.slow
def test_nothing_found_counts_zero_and_exits_1(store: Path) -> None:
    r = installed("search", "zzznothing", "--count", state=store)
    assert (r.returncode, r.stdout) == (1, "0\n")
    r = installed("search", "zzznothing", "--sessions", "--json", state=store)
    assert (r.returncode, json.loads(r.stdout)) == (1, {"sessions": []})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--by-session"], "--by-session counts per session: use it with --count"),
        (["--count", "--sessions"], "--count and --sessions cannot be used together"),
        (["--count", "-C", "2"], "-C/--context shows hits"),
        (["--sessions", "--explain"], "--explain shows hits"),
        (["-C", "-1"], "--context must be an integer from 0"),
    ],
)
def test_modes_that_do_not_combine_are_usage_errors(
    store: Path, args: list[str], message: str
) -> None:
    r = installed("search", "common", *args, state=store)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


@pytest.mark.slow
def test_total_is_exact_when_cheap_and_the_hint_names_what_cut(store: Path) -> None:
    full = len(everything())
    r = installed("search", "common", "--json", "-n", "3", state=store)
    doc = json.loads(r.stdout)
    assert (doc["total"], doc["truncated"], len(doc["results"])) == (full, True, 3)
    r = installed("search", "common", "-n", "3", state=store)
    assert f"more results exist ({full} matches): raise --limit" in r.stderr
    r = installed("search", "common", "-n", "20", "--max-bytes", "900", state=store)
    assert f"more results exist ({full} matches): --max-bytes cut the list at" in r.stderr
    assert "raise --limit" not in r.stderr
    doc = json.loads(installed("search", "common", "--json", "-n", "25", state=store).stdout)
    assert doc["total"] == full
    assert "truncated" not in doc


@pytest.mark.slow
def test_total_of_a_common_word_is_a_bounded_lower_bound(tmp_path: Path, state: Path) -> None:
    src = tmp_path / "src"
    s = Session("big")
    for i in range(TOTAL_CAP + 100):
        s.user(f"plenty {i}")
    s.write(src / "big.jsonl")
    write_sessions_json(src, {"agent:main:big": {"sessionId": "big"}})
    assert run_cli("import", str(src), "--reindex").exit_code == 0
    doc = json_out(run_cli("search", "plenty", "--json", "-n", "5"))
    assert doc["totalAtLeast"] == TOTAL_CAP
    assert "total" not in doc
    assert json_out(run_cli("search", "plenty", "--count", "--json"))["count"] == TOTAL_CAP + 100
    doc = json_out(run_cli("search", "plenty", "--json", "-n", "1200", "--max-bytes", "0"))
    assert doc["total"] == TOTAL_CAP + 100
    assert len(doc["results"]) == TOTAL_CAP + 100
    r = run_cli("search", "plenty", "-n", "5")
    assert f"more results exist ({TOTAL_CAP}+ matches): raise --limit" in r.stderr
    r = run_cli("search", "plenty", "-n", "25", "--as", "agent:main:big")
    assert "--as shows at most 25; narrow the query" in r.stderr, r.stderr
    r = run_cli("search", "plenty", "-n", "20", "--as", "agent:main:big", "-C", "40")
    assert "the 32 KiB cap of --as cut the list at" in r.stderr, r.stderr


def _steps(state: Path, cap: int | None) -> int:
    """SQLite VM steps (in thousands) that count_matches takes."""
    conn = sqlite3.connect(db_file(state), isolation_level=None)
    fp = conn.execute("SELECT redaction_fp FROM index_state LIMIT 1").fetchone()[0]
    ticks = [0]

    def tick() -> int:
        ticks[0] += 1
        return 0

    register(conn, "main", None)  # the operator's per-row visibility
    conn.set_progress_handler(tick, 1000)
    plan = fts_query.build("plenty")
    n = counting.count_matches(conn, plan, fts.Filters(), fp, cap)
    conn.close()
    assert n == (cap if cap is not None else n)
    return ticks[0]


@pytest.mark.slow
def test_a_capped_total_reads_no_more_rows_when_the_store_grows(
    tmp_path: Path, state: Path
) -> None:
    """Work done, not time: the capped count of a word in 2,000 messages and in 8,000 costs
    the same VM steps; the exact count grows with the matches."""
    measured = []
    for n in (2000, 8000):
        src = tmp_path / f"src{n}"
        s = Session(f"g{n}")
        for i in range(n // 2):
            s.user(f"plenty {i}")
            s.assistant(f"plenty again {i}")
        s.write(src / f"g{n}.jsonl")
        write_sessions_json(src, {f"agent:main:g{n}": {"sessionId": f"g{n}"}})
        assert run_cli("import", str(src), "--reindex").exit_code == 0
        measured.append((_steps(state, 500), _steps(state, None)))
    (capped_small, full_small), (capped_big, full_big) = measured
    assert capped_big <= capped_small * 1.2 + 2
    assert full_big >= full_small * 3  # 10,000 matches against 2,000


@pytest.mark.slow
def test_context_is_the_history_window_around_each_hit(store: Path) -> None:
    r = installed("search", "rarewordneighbour", "--json", "-C", "2", state=store)
    (hit,) = json.loads(r.stdout)["results"]
    ctx = hit["context"]
    window = json.loads(installed("history", hit["sessionKey"], "--around", hit["messageId"],
                                  "--limit", "5", "--json", state=store).stdout)  # fmt: skip
    around = window["messages"]
    at = [m["id"] for m in around].index(hit["messageId"])
    assert ctx["before"] == around[at - 2 : at]
    assert ctx["after"] == around[at + 1 :]
    assert len(ctx["before"]) == 2
    assert len(ctx["after"]) == 1  # the session ends after one
    assert all(m["role"] in ("user", "assistant") for m in ctx["before"] + ctx["after"])
    text = json.dumps(ctx)
    assert "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345" not in text
    assert "sk-ant" in text
    lines = installed("search", "rarewordneighbour", "--jsonl", "-C", "1", state=store).stdout
    assert json.loads(lines)["context"]["after"] == ctx["after"]
    r = installed("search", "rarewordneighbour", "-C", "1", state=store)  # the table
    assert r.returncode == 0
    assert "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345" not in r.stdout
    plain = installed("search", "rarewordneighbour", "--json", state=store).stdout
    assert "context" not in plain


def test_context_with_as_stays_inside_the_32_kib_cap(store: Path) -> None:
    r = installed("search", "common", "--json", "-C", "50", "-n", "25", "--as", "main",
                  "--visibility", "agent", state=store)  # fmt: skip
    doc = json.loads(r.stdout)
    size = len(json.dumps(doc["results"], separators=(",", ":"), ensure_ascii=False).encode())
    assert size <= 32768
    assert doc["results"]
    assert all("context" in h for h in doc["results"])


@pytest.mark.slow
def test_json_shapes_match_the_shipped_schema(store: Path) -> None:
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = resources.files("openclaw_sessions.cli").joinpath("schemas/search.schema.json")
    schema = Draft202012Validator(json.loads(text.read_text()))
    for args in (["-n", "2"], ["-n", "2", "-C", "1"], ["--count"], ["--count", "--by-session"],
                 ["--sessions"], ["--count", "--as", "main"]):  # fmt: skip
        doc = json.loads(installed("search", "common", "--json", *args, state=store).stdout)
        errors = list(schema.iter_errors(doc))
        assert not errors, (args, errors[0])


def test_jsonl_lines_match_the_shipped_schemas(store: Path) -> None:
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = resources.files("openclaw_sessions.cli").joinpath("schemas/search-result.schema.json")
    schema = Draft202012Validator(json.loads(text.read_text()))
    lines = installed("search", "common", "--jsonl", "-C", "1", state=store).stdout.splitlines()
    assert lines
    for line in lines:
        assert not list(schema.iter_errors(json.loads(line)))
