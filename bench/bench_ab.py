#!/usr/bin/env python3
"""Two installs of openclaw-sessions against each other, in one run, on the same stores.

A and B are virtualenvs (or any dirs with ``bin/python`` and ``bin/openclaw-sessions``), e.g.
one installed non-editable from ``main`` and one from a branch. On a corpus made by
``gen_corpus.py``:

* first full index: the imported store copied afresh for each run, ``reindex --all-agents
  --quiet``, A and B alternating (``--reindex-runs`` each);
* search: ``search Q --json`` p50 over ``--runs`` runs for queries picked from the indexed
  store (the planted rare word, words with about 1k, 10k and 5% of the indexed messages, two
  words, a CJK term), A and B interleaved with the process floor of each interpreter
  (``python -c "import typer, sqlite3"``);
* start-up through the Typer app: ``search Q`` (table) and ``status``.

The store format must be the same for both (the same schema version); the imported and
indexed stores are made once (by A) under ``--work`` and reused.

    python bench/bench_ab.py --a VENV_A --b VENV_B --corpus DIR --work DIR [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402
from bench_search import match_count  # noqa: E402

AGENT = "main"


def cli(venv: Path) -> list[str]:
    return [str(venv / "bin" / "openclaw-sessions")]


def timed(cmd: list[str], state: Path, ok: tuple[int, ...] = (0, 1)) -> float:
    return bl.run(cmd, bl.cli_env(state)).check(ok).wall


def prepare(a: Path, corpus: Path, work: Path, out: bl.Out) -> tuple[Path, Path]:
    imported, indexed = work / "imported", work / "indexed"
    if not (imported / ".ab-ready").exists():
        shutil.rmtree(imported, ignore_errors=True)
        out.log(f"importing {corpus} with A ...")
        wall = timed([*cli(a), "import", str(corpus), "--quiet"], imported, (0, 4))
        (imported / ".ab-ready").write_text(json.dumps({"import_s": wall}))
    if not (indexed / ".ab-ready").exists():
        shutil.rmtree(indexed, ignore_errors=True)
        shutil.copytree(imported, indexed)
        out.log("indexing a copy with A ...")
        timed([*cli(a), "reindex", "--all-agents", "--quiet"], indexed)
        (indexed / ".ab-ready").write_text("{}")
    return imported, indexed


def first_index(
    venvs: dict[str, Path], imported: Path, work: Path, runs: int, out: bl.Out
) -> dict[str, list[float]]:
    walls: dict[str, list[float]] = {name: [] for name in venvs}
    for r in range(runs):
        for name, venv in venvs.items():
            tmp = work / "first-index"
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(imported, tmp)
            walls[name].append(timed([*cli(venv), "reindex", "--all-agents", "--quiet"], tmp))
            out.log(f"first index, run {r + 1}, {name}: {walls[name][-1]:.2f} s")
            shutil.rmtree(tmp, ignore_errors=True)
    return walls


def pick_queries(c: bl.Corpus, indexed: Path) -> list[tuple[str, str, int]]:
    conn = sqlite3.connect(f"file:{indexed / 'agents' / AGENT / bl.DB_NAME}?mode=ro", uri=True)
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'index_fts', 'row')")
    vocab = conn.execute(
        "SELECT term, doc FROM temp.v WHERE length(term) >= 4 AND NOT term GLOB '*[^a-z]*'"
    ).fetchall()
    out = []
    planted = c.planted_in(AGENT)
    if planted:
        out.append(("planted rare word", planted[0]["word"]))
    for label, want in (("~1k matches", 1000), ("~10k matches", 10_000),
                        ("5% of messages", c.messages // 20)):  # fmt: skip
        term = min(vocab, key=lambda r: (abs(r[1] - want), r[0]))[0]
        out.append((f"{label}", term))
    out += [("two words", "root cause"), ("CJK 3 chars", "数据库")]
    picked = [(label, q, match_count(conn, q)) for label, q in out]
    conn.close()
    return picked


def p50(values: list[float]) -> float:
    return float(bl.percentile(values, 50) or 0.0) * 1000


def latency(venvs: dict[str, Path], cmds: dict[str, list[str]], state: Path, runs: int,
            warmup: int) -> dict[tuple[str, str], list[float]]:  # fmt: skip
    """Every command under every install, interleaved; the floor of each interpreter too."""
    walls: dict[tuple[str, str], list[float]] = {}
    for r in range(warmup + runs):
        for label, args in cmds.items():
            for name, venv in venvs.items():
                if label == "floor":
                    cmd = [str(venv / "bin" / "python"), "-c", "import typer, sqlite3"]
                else:
                    cmd = [*cli(venv), *args]
                t0 = time.perf_counter()
                timed(cmd, state, (0, 1, 4))
                if r >= warmup:
                    walls.setdefault((label, name), []).append(time.perf_counter() - t0)
    return walls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--a", type=Path, required=True, help="the baseline install (a venv)")
    ap.add_argument("--b", type=Path, required=True, help="the install measured against it")
    ap.add_argument("--corpus", type=Path, required=True, help="a gen_corpus.py output")
    ap.add_argument("--work", type=Path, required=True, help="where the stores are kept")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--reindex-runs", type=int, default=2)
    ap.add_argument("--skip-reindex", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = bl.Out(args.json)
    venvs = {"A": args.a.resolve(), "B": args.b.resolve()}
    c = bl.corpus(args.corpus, 0, out=out)
    args.work.mkdir(parents=True, exist_ok=True)
    # One fresh compiled-regex cache for both (their patterns are the same): a cache grown by
    # other versions' rules is slower to load (about 16 ms at 7 MB) and would blur the figures.
    cache = args.work / "regex-cache"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["OPENCLAW_SESSIONS_CACHE_DIR"] = str(cache)
    imported, indexed = prepare(venvs["A"], c.path, args.work, out)
    figures: dict[str, Any] = {"load": bl.load_note()}
    if not args.skip_reindex:
        walls = first_index(venvs, imported, args.work, args.reindex_runs, out)
        best = {n: min(w) for n, w in walls.items()}
        figures["first_index_s"] = walls
        out.print(bl.table(
            ["first full index", "A best s", "B best s", "B/A", "target", ""],
            [["reindex --all-agents", best["A"], best["B"], bl.fmt_ratio(best["B"] / best["A"]),
              "<= 1.2x", bl.verdict(best["B"] / best["A"], 1.2)]],
        ))  # fmt: skip
    queries = pick_queries(c, indexed)
    cmds = {"floor": ["floor"]}
    cmds |= {f"{label}: {q}": ["search", q, "--json"] for label, q, _ in queries}
    cmds["search (table)"] = ["search", queries[0][1]]
    cmds["status"] = ["status"]
    out.log(f"latency: {len(cmds)} commands x 2 installs x {args.runs} runs ...")
    walls = latency(venvs, cmds, indexed, args.runs, args.warmup)
    counts = {f"{label}: {q}": n for label, q, n in queries}
    rows = []
    for label in cmds:
        a, b = p50(walls[(label, "A")]), p50(walls[(label, "B")])
        fa, fb = p50(walls[("floor", "A")]), p50(walls[("floor", "B")])
        # the targets: up to the ~10k query 1.5x the floor, more (to 5%) 2x
        tenk = next(n for name, n in counts.items() if name.startswith("~10k"))
        limit = None if label not in counts else 1.5 if counts[label] <= tenk else 2.0
        rows.append([label, counts.get(label, ""), a, b, bl.fmt_ratio(b / a),
                     bl.fmt_ratio(a / fa), bl.fmt_ratio(b / fb),
                     f"<= {limit}x" if limit else "",
                     bl.verdict(b / fb, limit) if limit else ""])  # fmt: skip
    figures["latency_ms"] = {f"{k[0]} [{k[1]}]": p50(v) for k, v in walls.items()}
    out.print(bl.table(["command", "matches", "A p50 ms", "B p50 ms", "B/A", "A/floor",
                        "B/floor", "target", ""], rows))  # fmt: skip
    out.print(figures["load"])
    if args.json:
        print(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
