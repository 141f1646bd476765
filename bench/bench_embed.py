#!/usr/bin/env python3
"""Embedding throughput of the packaged models of the `[semantic]` extra, on real index rows.

Imports the real published corpus (../shared/corpus/real) into temp stores, takes their
redacted index rows (what `reindex --embed` embeds), and for each installed model reports the
load time, messages and characters per second, and the bytes a message costs in the store.
Run it under ``nice -n 10`` (the machine is shared).

Usage::

    nice -n 10 python bench/bench_embed.py [--models e5-small,static-64] [--limit 600]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script

from bench import judged_semantic  # noqa: E402
from openclaw_sessions.index import embedder  # noqa: E402


def texts(states: dict[str, Path], limit: int) -> list[str]:
    """The stores' redacted index rows, interleaved across stores, ``limit`` at most."""
    per_store = []
    for state in states.values():
        for db in sorted(state.glob("agents/*/openclaw-sessions.sqlite")):
            with sqlite3.connect(db) as conn:
                rows = conn.execute("SELECT text FROM index_rows ORDER BY row_id").fetchall()
            per_store.append([r[0] for r in rows])
    out: list[str] = []
    while len(out) < limit and any(per_store):
        for rows in per_store:
            if rows and len(out) < limit:
                out.append(rows.pop(0))
    return out


def measure(name: str, sample: list[str], batch: int = 32) -> dict[str, float]:
    t0 = time.perf_counter()
    model = embedder.load(name)
    model.passages(sample[:2])  # the first call loads what is loaded lazily
    loaded = time.perf_counter() - t0
    t1 = time.perf_counter()
    for i in range(0, len(sample), batch):
        model.passages(sample[i : i + batch])
    spent = time.perf_counter() - t1
    t2 = time.perf_counter()
    for q in ("a query", "another query", "ein dritter Satz"):
        model.query(q)
    per_query = (time.perf_counter() - t2) / 3
    chars = sum(min(len(t), embedder.MAX_CHARS) for t in sample)
    return {
        "load_s": loaded,
        "msgs_per_s": len(sample) / spent,
        "chars_per_s": chars / spent,
        "query_ms": per_query * 1000,
        "bytes_per_msg": model.model.dim * 2,  # float16 in the store
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(embedder.MODELS))
    ap.add_argument("--limit", type=int, default=600, help="messages embedded per model")
    args = ap.parse_args(argv)
    if not judged_semantic.CORPUS.is_dir():
        print(f"no corpus at {judged_semantic.CORPUS}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        sample = texts(judged_semantic.build(Path(d), embed=False), args.limit)
    mean = sum(min(len(t), embedder.MAX_CHARS) for t in sample) / len(sample)
    print(f"{len(sample)} real index rows, {mean:.0f} characters each on average (clipped)")
    print(f"{'model':<10} {'load s':>7} {'msg/s':>7} {'chars/s':>8} {'query ms':>9} {'B/msg':>6}")
    for name in args.models.split(","):
        if not embedder.available(name):
            print(f"{name:<10} not installed ({embedder.MODELS[name].package})")
            continue
        m = measure(name, sample)
        print(
            f"{name:<10} {m['load_s']:>7.2f} {m['msgs_per_s']:>7.1f} {m['chars_per_s']:>8.0f}"
            f" {m['query_ms']:>9.1f} {m['bytes_per_msg']:>6.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
