"""The real-text judged set (bench/judged_real.py, queries written from ../shared/corpus/real):
the operator's order shows every answer on the first page above its question, and finds the
question and answer split over one exchange, and words written against CJK text; the agent's
order (upstream's) finds no exchange, but finds the glued words too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import judged_real


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not judged_real.CORPUS.is_dir():
        pytest.skip("../shared/corpus/real is not present (the real judged set needs it)")
    states = judged_real.build(Path(tmp_path_factory.mktemp("judged_real")))
    return judged_real.run(states)


def test_the_set_holds_both_kinds() -> None:
    kinds = [c["kind"] for c in judged_real.cases()]
    assert kinds.count("reply_first") >= 15
    assert kinds.count("exchange") >= 2
    assert kinds.count("glued") >= 8


def test_every_answer_above_its_question(figures: dict[str, Any]) -> None:
    assert figures["misses"] == []
    ours = figures["relevance"]
    assert all(f["above"] == f["n"] for f in ours.values())


def test_upstream_order_keeps_bm25(figures: dict[str, Any]) -> None:
    """The agent's order is upstream's: it finds the answers, the shorter question first,
    and no exchange (what the operator's order adds)."""
    theirs = figures["upstream"]
    assert theirs["reply_first"]["found"] == theirs["reply_first"]["n"]
    assert theirs["reply_first"]["above"] < theirs["reply_first"]["n"]
    assert theirs["exchange"]["found"] == 0
    # a word written against CJK text is a word in the agent's search too
    assert theirs["glued"]["found"] == theirs["glued"]["n"]
