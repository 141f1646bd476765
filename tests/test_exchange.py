"""The operator's exchange match (read/search/ranked.py): when no single message holds every word,
a user message and its replies that hold them all are found, labelled; the agent's view stays
upstream's (nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, run_cli


def _corpus(root: Path) -> dict[str, str]:
    sdir = root / "agents" / "main" / "sessions"
    s = Session("ex-1")
    ids = {
        "q": s.user("the cron for zorblax keeps failing every night"),
        "a": s.assistant("fixed: the 定时任务 now runs with the right agent for zorblax"),
        "q2": s.user("and the 基础代谢 figure?"),
        "a2": s.assistant("your quuxrate is 1708 kcal"),
        "q3": s.user("thanks, unrelated: grimbleword"),
    }
    s.write(sdir / "ex-1.jsonl")
    t = Session("ex-2")
    t.user("zorblax alone")
    t.assistant("nothing else here")
    t.user("定时任务 in another exchange")  # the same words, split over two exchanges
    t.write(sdir / "ex-2.jsonl")
    return ids


@pytest.fixture
def store(tmp_path: Path, state: Path) -> tuple[Path, dict[str, str]]:
    ids = _corpus(tmp_path / "src")
    r = run_cli("import", str(tmp_path / "src"), "--reindex", "--quiet")
    assert r.exit_code == 0, r.stderr
    return state, ids


def _json(*args: str) -> dict[str, Any]:
    r = run_cli("search", *args, "--json")
    out: dict[str, Any] = json.loads(r.stdout)
    assert r.exit_code == (0 if out["results"] else 1), r.stderr  # no match: 1, as rg
    return out


def test_words_split_over_question_and_reply_are_one_exchange(
    store: tuple[Path, dict[str, str]],
) -> None:
    _, ids = store
    got = _json("cron zorblax 定时任务")["results"]
    assert len(got) == 1  # ex-2 holds the words in two exchanges: not found
    hit = got[0]
    assert hit["sessionId"] == "ex-1"
    assert hit["role"] == "assistant"
    assert hit["messageId"] == ids["a"]  # the reply is shown
    assert hit["exchange"] == {"messageIds": [ids["q"], ids["a"]]}


def test_latin_and_cjk_across_the_exchange(store: tuple[Path, dict[str, str]]) -> None:
    _, ids = store
    got = _json("quuxrate 基础代谢")["results"]
    assert [h["messageId"] for h in got] == [ids["a2"]]
    assert got[0]["exchange"]["messageIds"] == [ids["q2"], ids["a2"]]


def test_one_message_holding_every_word_is_no_exchange(
    store: tuple[Path, dict[str, str]],
) -> None:
    got = _json("zorblax 定时任务")["results"]
    assert got
    assert all("exchange" not in h for h in got)


def test_not_across_exchanges_nor_for_agents_nor_one_role(
    store: tuple[Path, dict[str, str]],
) -> None:
    assert _json("quuxrate grimbleword")["results"] == []  # two exchanges apart
    assert _json("quuxrate 基础代谢", "--role", "assistant")["results"] == []
    assert _json("quuxrate 基础代谢", "--order", "upstream")["results"] == []
    assert _json("quuxrate 基础代谢", "--as", "agent:main:main")["results"] == []
    assert _json("quuxrate 基础代谢 -kcal")["results"] == []  # a -word: no exchange


def test_plain_output_names_the_exchange(store: tuple[Path, dict[str, str]]) -> None:
    _, ids = store
    r = run_cli("search", "quuxrate 基础代谢")
    assert r.exit_code == 0
    assert r.stdout.split("\t")[1] == ids["a2"]
    assert f"exchange: {ids['a2']} answers with {ids['q2']} {ids['a2']}" in r.stderr


def test_exchange_hits_fit_the_schema(store: tuple[Path, dict[str, str]]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    schema = json.loads(
        resources.files("openclaw_sessions.cli")
        .joinpath("schemas/search.schema.json")
        .read_text("utf-8")
    )
    jsonschema.validate(_json("cron zorblax 定时任务"), schema)
