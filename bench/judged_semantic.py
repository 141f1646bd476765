#!/usr/bin/env python3
"""The paraphrase judged set: questions that share no word with their answer, for the
`[semantic]` extra's fallback (read/semantic.py).

bench/judged/semantic.jsonl holds queries written from reading ../shared/corpus/real (the
corpus, not this repository, holds the text), each with the messages that answer it
(``answers``: any of them on the page counts), the query's language (``lang``) and its store
(``source``, ``agent``). A query in another language than its store's is cross-lingual.

Measured, per slice (the query's language, ``cross``, ``all``):
- ``empty_before``: pages empty without vectors (every query: the words match nothing);
- ``hit@1`` and ``recall@10``: the answer first / on a page of 10, with the store embedded;
- ``empty_after``: pages still without an answer with the store embedded;
and, on the real judged set's cases of the same stores (bench/judged/real.jsonl, words that do
match), whether any page changed once the store is embedded (``exact_changed``: must be 0).

Usage::

    nice -n 10 python bench/judged_semantic.py [--model e5-small|static-64] [--json]

tests/test_semantic.py runs it in CI with floors (skipped without ../shared).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus" / "real"
CASES = HERE / "judged" / "semantic.jsonl"
REAL = HERE / "judged" / "real.jsonl"
sys.path.insert(0, str(REPO))  # run as a script

from bench import judged_real  # noqa: E402

# the language of each store's conversations (a query in another one is cross-lingual)
STORE_LANG = {
    "ReinforcementSleeping__openclaw-backup": "zh",
    "akancelik__openclaw": "de",
    "archeoneocode-commits__openclaw-backup": "en",
    "atlasiaagente-alt__openclaw-assistant": "es",
    "zapabob__clawdbot@017d76e": "ja",
    "KushiTdm__openclaw": "fr",
    "juliuss1907__knowledge-base": "vi",
    "KenHSM__kenhsm-Openclaw": "es",
}


def cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text("utf-8").splitlines() if line]


def sources() -> list[str]:
    return sorted({c["source"] for c in cases()})


def build(tmp: Path, embed: bool = True, model: str | None = None) -> dict[str, Path]:
    """Each source imported into a state directory of its own (``embed``: and embedded)."""
    states = judged_real.build(tmp, CORPUS, sources())
    if embed:
        embed_states(states, model)
    return states


def embed_states(states: dict[str, Path], model: str | None = None) -> None:
    from openclaw_sessions.index import embed, embedder

    loaded = embedder.load(model or embedder.DEFAULT)
    for state in states.values():
        for agent_dir in sorted((state / "agents").iterdir()):
            embed.embed_agent(state, agent_dir.name, loaded)


def pages(states: dict[str, Path], limit: int = 10) -> dict[str, list[str]]:
    """Each case's page (message ids), as the operator's search answers it now."""
    from openclaw_sessions.read.search import SearchOptions, search

    out = {}
    for c in cases():
        opts = SearchOptions(c["query"], state_dir=states[c["source"]], agent=c["agent"])
        out[c["query"]] = [h.message_id for h in search(opts._replace(limit=limit)).hits]
    return out


def real_pages(states: dict[str, Path]) -> dict[str, list[str]]:
    """The real judged set's pages for the stores here (its words match: no fallback)."""
    from openclaw_sessions.read.search import SearchOptions, search

    out = {}
    for line in REAL.read_text("utf-8").splitlines():
        c = json.loads(line)
        if c["source"] in states:
            opts = SearchOptions(c["query"], state_dir=states[c["source"]], agent=c["agent"])
            out[c["query"]] = [h.message_id for h in search(opts).hits]
    return out


def slices(case: dict[str, Any]) -> list[str]:
    out = ["all", case["lang"]]
    if case["lang"] != STORE_LANG[case["source"]]:
        out.append("cross")
    return out


def figures(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, Any]:
    """Per slice: n, empty_before, hit@1, recall@10, empty_after; and the misses."""
    out: dict[str, Any] = {}
    misses = []
    for c in cases():
        answers = set(c["answers"])
        page = after[c["query"]]
        first = bool(page) and page[0] in answers
        found = bool(answers & set(page[:10]))
        if not found:
            misses.append(c["query"])
        for s in slices(c):
            f = out.setdefault(s, {"n": 0, "empty_before": 0, "hit@1": 0, "recall@10": 0})
            f["n"] += 1
            f["empty_before"] += not before[c["query"]]
            f["hit@1"] += first
            f["recall@10"] += found
    for f in out.values():
        f["empty_after"] = f["n"] - f["recall@10"]
    return {"slices": out, "misses": misses}


def run(states: dict[str, Path], model: str | None = None) -> dict[str, Any]:
    """The set measured on stores not yet embedded, then embedded (``states`` unembedded)."""
    before, real_before = pages(states), real_pages(states)
    embed_states(states, model)
    after, real_after = pages(states), real_pages(states)
    out = figures(before, after)
    out["exact_n"] = len(real_before)
    out["exact_changed"] = sum(real_before[q] != real_after[q] for q in real_before)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="e5-small (the default) or static-64")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    args = ap.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        result = run(build(Path(d), embed=False), args.model)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    head = ("slice", "n", "empty before", "hit@1", "recall@10", "empty after")
    print("{:<6} {:>3} {:>13} {:>6} {:>10} {:>12}".format(*head))
    for name, f in sorted(result["slices"].items()):
        print(
            f"{name:<6} {f['n']:>3} {f['empty_before']:>13} {f['hit@1']:>6}"
            f" {f['recall@10']:>10} {f['empty_after']:>12}"
        )
    print(
        f"exact queries (real.jsonl, same stores): {result['exact_changed']} of"
        f" {result['exact_n']} pages changed"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
