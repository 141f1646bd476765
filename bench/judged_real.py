#!/usr/bin/env python3
"""The real-text judged set: questions and their answers in real published transcripts.

bench/judged/real.jsonl holds queries written from reading ../shared/corpus/real (the corpus,
not this repository, holds the text), each with the message that answers it:

- ``reply_first``: a short user question and the reply that answers it both match; the
  answer must be on the first page, above its question (bm25 prefers the shorter question);
- ``exchange``: the user wrote some of the words and the reply the others (no one message
  holds them all); the exchange naming both must be on the first page;
- ``glued``: a Latin word written against CJK text (`做crossfit训练`); the message must be on
  the first page (in both orders: the agent's search finds it too).

Measures, per kind, for the operator's order (``relevance``) and upstream's (``upstream``):
``found`` (the answer on the first page) and ``above`` (found, and above its question).

Usage::

    python bench/judged_real.py          # import the corpus in a temp dir, print the table
    python bench/judged_real.py --check  # and fail (exit 1) unless the operator's order
                                         # finds every answer above its question

tests/test_judged_real.py runs the check in CI (skipped without ../shared).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus" / "real"
CASES = HERE / "judged" / "real.jsonl"
ORDERS = ("relevance", "upstream")
sys.path.insert(0, str(REPO))  # run as a script


def cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text("utf-8").splitlines() if line]


def build(tmp: Path, corpus: Path = CORPUS, sources: list[str] | None = None) -> dict[str, Path]:
    """Each source (default: the cases') imported into a state directory of its own."""
    env = {**os.environ, "OPENCLAW_SESSIONS_NO_BACKGROUND": "1"}
    states = {}
    for source in sources or sorted({c["source"] for c in cases()}):
        state = tmp / source
        cmd = [sys.executable, "-m", "openclaw_sessions", "import", str(corpus / source)]
        cmd += ["--reindex", "--quiet", "--state-dir", str(state)]
        subprocess.run(cmd, check=True, env=env, cwd=REPO)
        states[source] = state
    os.environ["OPENCLAW_SESSIONS_NO_BACKGROUND"] = "1"  # the searches start no reindexer
    return states


def judge(case: dict[str, Any], state: Path, order: str) -> tuple[bool, bool]:
    """(the answer is on the first page, and above its question) in ``order``."""
    from openclaw_sessions.read.search import SearchOptions, search

    opts = SearchOptions(case["query"], state_dir=state, agent=case["agent"], order=order)
    hits = search(opts).hits
    if case["kind"] == "exchange":
        want = {case["question"], case["answer"]}
        found = any(want <= set(getattr(h, "exchange", ())) for h in hits)
        return found, found
    ids = [h.message_id for h in hits]
    if case["answer"] not in ids:
        return False, False
    q = case.get("question")  # a glued word has none
    return True, q not in ids or ids.index(case["answer"]) < ids.index(q)


def run(states: dict[str, Path]) -> dict[str, Any]:
    """Per order and kind: n, found, above; and the cases that miss (the operator's order)."""
    out: dict[str, Any] = {"misses": []}
    for order in ORDERS:
        figures: dict[str, dict[str, int]] = {}
        for case in cases():
            found, above = judge(case, states[case["source"]], order)
            f = figures.setdefault(case["kind"], {"n": 0, "found": 0, "above": 0})
            f["n"] += 1
            f["found"] += found
            f["above"] += above
            if order == "relevance" and not above:
                out["misses"].append(case["query"])
        out[order] = figures
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 unless every answer is above")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    args = ap.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        result = run(build(Path(d)))
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        print(f"{'kind':<12} {'order':<10} {'n':>3} {'found':>6} {'above':>6}")
        for order in ORDERS:
            for kind, f in sorted(result[order].items()):
                print(f"{kind:<12} {order:<10} {f['n']:>3} {f['found']:>6} {f['above']:>6}")
    if args.check and result["misses"]:
        print("misses:", *result["misses"], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
