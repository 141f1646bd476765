#!/usr/bin/env python3
"""Full reindex throughput against a bare FTS5 baseline; redaction cost; CJK cost and index sizes.

On a corpus (default 20% CJK) imported through the CLI:

* ours: ``openclaw-sessions reindex --all-agents --full --quiet`` right after the import
  (initial build), again over the built index (rebuild: deletes then inserts), and a no-op
  ``reindex`` (nothing stale);
* baseline: the same extracted text (read back from our ``index_rows``) ``executemany``'d in one
  transaction into a bare ``fts5(text, tokenize='unicode61 remove_diacritics 2')`` table of a
  fresh file; plus, for information, "bare FTS5 x2" (that table + a bigram table fed
  the CJK rows, as our schema does), which is the floor of our three-index design;
* redaction: in-process ``reconcile(conn, agent, redactor, full=True)`` with the real
  ``redact.build_redactor()`` and with a no-op redactor;
* CJK: the same size with 0% CJK, throughput and the bigram index size (``dbstat``)
  relative to the bytes of the indexed text of CJK rows.

Targets (issue): full reindex ≤ 1.5x the baseline on 1M messages; redaction adds ≤ 25%.

    .venv/bin/python bench/bench_reindex.py [--messages 20000] [--keep DIR] [--json]
        [--skip-cjk] [--skip-redaction] [--profile]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import _benchlib as bl  # noqa: E402

TARGET_RATIO = 1.5
TARGET_REDACTION = 0.25
FTS = "fts5(text, tokenize='unicode61 remove_diacritics 2')"


def index_texts(state: Path) -> tuple[list[tuple[str]], list[tuple[str, str]]]:
    """The indexed texts, and (text, bigram text) of those with CJK (derived, as the store
    derives it: the bigram text is not stored)."""
    from openclaw_sessions.policy.cjk import cjk_bigram_text

    texts: list[tuple[str]] = []
    cjk: list[tuple[str, str]] = []
    for f in bl.db_files(state):
        conn = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        for (text,) in conn.execute("SELECT text FROM index_rows ORDER BY row_id"):
            texts.append((text,))
            bigrams = cjk_bigram_text(text)
            if bigrams is not None:
                cjk.append((text, bigrams))
        conn.close()
    return texts, cjk


def baseline(texts: list[tuple[str]], cjk: list[tuple[str, str]] | None) -> dict[str, Any]:
    """executemany into a fresh file: one bare FTS5 table (cjk None) or the two of ours."""
    work = bl.scratch("ocs-fts-base-")
    conn = sqlite3.connect(work / "base.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"CREATE VIRTUAL TABLE t USING {FTS}")
    if cjk is not None:
        conn.execute("CREATE VIRTUAL TABLE bi USING fts5(cjk, tokenize='unicode61')")
    t0 = time.perf_counter()
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t (text) VALUES (?)", texts)
    if cjk is not None:
        conn.executemany("INSERT INTO bi (cjk) VALUES (?)", [(b,) for _, b in cjk])
    conn.execute("COMMIT")
    dt = time.perf_counter() - t0
    size = (work / "base.sqlite").stat().st_size + (work / "base.sqlite-wal").stat().st_size
    conn.close()
    bl.shutil.rmtree(work, ignore_errors=True)
    return {"seconds": dt, "rows": len(texts), "fileBytes": size}


def sizes(state: Path) -> dict[str, int]:
    """Page bytes of each structure (dbstat) and the bytes of the indexed text."""
    out = dict.fromkeys(
        (
            "fts",
            "bigram",
            "indexRows",
            "events",
            "database",
            "rows",
            "textBytes",
            "cjkRows",
            "cjkTextBytes",
            "cjkColumnBytes",
        ),
        0,
    )
    from openclaw_sessions.store.db import register_functions

    for f in bl.db_files(state):
        conn = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        register_functions(conn)  # the bigram text is derived (ocs_cjk_bigrams), not stored

        def q(sql: str, *p: Any, _c: sqlite3.Connection = conn) -> int:
            return int(_c.execute(sql, p).fetchone()[0] or 0)

        like = "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ?"
        out["fts"] += q(like, "index_fts%")
        out["bigram"] += q(like, "index_bigram%")
        out["indexRows"] += q(
            "SELECT sum(pgsize) FROM dbstat WHERE name = 'index_rows'"
            " OR name LIKE 'sqlite_autoindex_index_rows%'"
        )
        out["events"] += q("SELECT sum(pgsize) FROM dbstat WHERE name = 'events'")
        out["database"] += q("SELECT sum(pgsize) FROM dbstat")
        out["rows"] += q("SELECT count(*) FROM index_rows")
        out["textBytes"] += q("SELECT sum(length(CAST(text AS BLOB))) FROM index_rows")
        out["cjkRows"] += q("SELECT count(*) FROM index_rows_cjk")
        out["cjkTextBytes"] += q(
            "SELECT sum(length(CAST(text AS BLOB))) FROM index_rows JOIN index_rows_cjk"
            " USING (row_id)"
        )
        out["cjkColumnBytes"] += q("SELECT sum(length(CAST(cjk AS BLOB))) FROM index_rows_cjk")
        conn.close()
    return out


def cli_reindex(state: Path, *extra: str) -> bl.Proc:
    cmd = [*bl.cli(), "reindex", "--all-agents", "--quiet", *extra]
    return bl.run(cmd, bl.cli_env(state)).check()


def in_process(state: Path, redactor: Any) -> dict[str, Any]:
    from openclaw_sessions.index.reconcile import reconcile
    from openclaw_sessions.store import db

    t0 = time.perf_counter()
    rows = 0
    for f in bl.db_files(state):
        conn = db.connect(f)
        try:
            rows += reconcile(conn, f.parent.name, redactor, full=True).messages
        finally:
            conn.close()
    return {"seconds": time.perf_counter() - t0, "rows": rows}


def migrate(state: Path) -> None:
    """Bring a kept store made by an older version to the current schema before timing."""
    from openclaw_sessions.store import db

    for f in bl.db_files(state):
        db.connect(f).close()


def plan_only(state: Path) -> dict[str, Any]:
    """In-process: what reconcile computes before it writes (read the events, walk the tree,
    parse each message's JSON, extract, redact, CJK bigrams) for every transcript."""
    from openclaw_sessions.index.plan import plan_rows
    from openclaw_sessions.redact import build_redactor
    from openclaw_sessions.store import db

    red = build_redactor(())
    rows = 0
    t0 = time.perf_counter()
    for f in bl.db_files(state):
        conn = db.connect(f)
        try:
            for (tid,) in conn.execute("SELECT transcript_id FROM transcripts").fetchall():
                p = plan_rows(conn, tid, red)
                rows += len(p.rows) if p else 0
        finally:
            conn.close()
    return {"seconds": time.perf_counter() - t0, "rows": rows}


def redaction(snap: Path, texts: list[tuple[str]], repeat: int, out: bl.Out) -> dict[str, Any]:
    """Each run starts from a copy of the same imported, never indexed store."""
    from openclaw_sessions.redact import build_redactor

    real = build_redactor(())
    noop = bl.noop_redactor()
    # Like with like: the no-op redactor cannot be rebuilt in a planning process, so both
    # variants plan in this one.
    os.environ["OPENCLAW_SESSIONS_PLAN_WORKER"] = "0"
    runs: dict[str, list[dict[str, Any]]] = {"noop": [], "real": []}
    for i in range(repeat):
        for name, red in (("noop", noop), ("real", real)):
            out.log(f"in-process full reconcile, {name} redactor ({i + 1}/{repeat}) ...")
            work = bl.scratch("ocs-redact-")
            shutil.copytree(snap, work, dirs_exist_ok=True)
            runs[name].append(in_process(work, red))
            shutil.rmtree(work, ignore_errors=True)
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in runs.items()}
    t0 = time.perf_counter()
    for (t,) in texts:
        real.redact_text(t)
    direct = time.perf_counter() - t0
    overhead = best["real"]["seconds"] / best["noop"]["seconds"] - 1
    return {
        "noop": best["noop"],
        "real": best["real"],
        "overhead": overhead,
        "redactTextOnlySeconds": direct,
        "redactTextUsPerMessage": 1e6 * direct / max(1, len(texts)),
        "fingerprint": real.fingerprint,
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bl.common_args(ap, 20_000)
    ap.add_argument("--repeat", type=int, default=1, help="in-process redaction runs per variant")
    ap.add_argument("--skip-cjk", action="store_true", help="skip the 0%% CJK corpus")
    ap.add_argument("--skip-redaction", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile an in-process full reindex")
    args = ap.parse_args(argv)
    out = bl.Out(args.json)
    res: dict[str, Any] = {"bench": "reindex"}

    c = bl.corpus(args.keep, args.messages, seed=args.seed, agents=args.agents, out=out)
    state, import_s = bl.imported_store(c, out)
    migrate(state)
    snap = bl.scratch("ocs-snap-")
    shutil.copytree(state, snap, dirs_exist_ok=True)
    res["messages"] = c.messages
    res["importSeconds"] = import_s
    out.log("reindex --full (initial build) ...")
    a = cli_reindex(state, "--full")
    rows = bl.scalar(state, "SELECT count(*) FROM index_rows")
    sz20 = sizes(state)
    out.log(f"initial {a.wall:.2f}s, {rows:,} rows; reindex --full (rebuild) ...")
    b = cli_reindex(state, "--full")
    out.log(f"rebuild {b.wall:.2f}s; no-op reindex ...")
    noop = min((cli_reindex(state) for _ in range(3)), key=lambda p: p.wall)
    texts, cjk = index_texts(state)
    out.log("baselines ...")
    base = baseline(texts, None)
    base2 = baseline(texts, cjk)
    out.log("planning only (in-process) ...")
    planned = plan_only(snap)
    expected = c.manifest["indexable"]["total"]
    res.update(
        indexedRows=rows,
        manifestIndexable=expected,
        initial={"seconds": a.wall, "peakRssMB": a.maxrss_mb, "rowsPerSec": rows / a.wall},
        rebuild={"seconds": b.wall, "peakRssMB": b.maxrss_mb, "rowsPerSec": rows / b.wall},
        noopReindexSeconds=noop.wall,
        baseline={**base, "rowsPerSec": rows / base["seconds"]},
        baselineX2={**base2, "rowsPerSec": rows / base2["seconds"]},
        planOnly={**planned, "ratio": planned["seconds"] / base["seconds"]},
        ratioInitial=a.wall / base["seconds"],
        ratioRebuild=b.wall / base["seconds"],
        sizes20=sz20,
    )
    out.print()
    out.print(
        bl.table(
            [
                "run",
                "seconds",
                "index rows/s",
                "corpus msgs/s",
                "peak RSS MB",
                "vs baseline",
                "target",
            ],
            [
                (
                    "reindex --full, initial build",
                    a.wall,
                    rows / a.wall,
                    c.messages / a.wall,
                    a.maxrss_mb,
                    bl.fmt_ratio(res["ratioInitial"]),
                    f"<= {TARGET_RATIO}x  {bl.verdict(res['ratioInitial'], TARGET_RATIO)}",
                ),
                (
                    "reindex --full, rebuild",
                    b.wall,
                    rows / b.wall,
                    c.messages / b.wall,
                    b.maxrss_mb,
                    bl.fmt_ratio(res["ratioRebuild"]),
                    f"<= {TARGET_RATIO}x  {bl.verdict(res['ratioRebuild'], TARGET_RATIO)}",
                ),
                (
                    "reindex, no-op (nothing stale)",
                    noop.wall,
                    None,
                    None,
                    noop.maxrss_mb,
                    None,
                    None,
                ),
                (
                    "baseline: bare FTS5 executemany",
                    base["seconds"],
                    rows / base["seconds"],
                    c.messages / base["seconds"],
                    None,
                    "1.00x",
                    None,
                ),
                (
                    "info: bare FTS5 x2 (fts+bigram)",
                    base2["seconds"],
                    rows / base2["seconds"],
                    c.messages / base2["seconds"],
                    None,
                    bl.fmt_ratio(base2["seconds"] / base["seconds"]),
                    None,
                ),
                (
                    "info: planning only, no writes",
                    planned["seconds"],
                    planned["rows"] / planned["seconds"],
                    c.messages / planned["seconds"],
                    None,
                    bl.fmt_ratio(planned["seconds"] / base["seconds"]),
                    None,
                ),
            ],
            title=f"reindex: {c.messages:,} messages (cjk {c.manifest['params']['cjkRatio']:g}), "
            f"{rows:,} index rows (manifest indexable: {expected:,}), {len(cjk):,} CJK rows",
        )
    )
    if rows != expected:
        out.print(f"note: index rows ({rows:,}) != manifest indexable ({expected:,})")

    if not args.skip_redaction:
        r = redaction(snap, texts, args.repeat, out)
        res["redaction"] = r
        out.print()
        out.print(
            bl.table(
                ["in-process reconcile(full=True)", "seconds", "rows/s", "vs no-op", "target"],
                [
                    (
                        "no-op redactor",
                        r["noop"]["seconds"],
                        r["noop"]["rows"] / r["noop"]["seconds"],
                        "1.00x",
                        None,
                    ),
                    (
                        "real redactor (build_redactor())",
                        r["real"]["seconds"],
                        r["real"]["rows"] / r["real"]["seconds"],
                        bl.fmt_ratio(1 + r["overhead"]),
                        f"<= +{TARGET_REDACTION:.0%}  "
                        f"{bl.verdict(r['overhead'], TARGET_REDACTION)}",
                    ),
                    (
                        "info: redact_text() alone over all rows",
                        r["redactTextOnlySeconds"],
                        len(texts) / max(r["redactTextOnlySeconds"], 1e-9),
                        f"{r['redactTextUsPerMessage']:.1f} us/msg",
                        None,
                    ),
                ],
                title="redaction cost, initial build from copies of one imported store "
                f"(overhead {r['overhead']:+.1%})",
            )
        )

    # Linux carries a forked child's peak RSS over from this process (kept across exec): the
    # 0% CJK import below reports this process's size at least. bench_import measures import
    # RSS from a small parent. Drop the texts (hundreds of MB at 1M) first all the same.
    del texts, cjk
    import gc

    gc.collect()
    if not args.skip_cjk:
        c0 = bl.corpus(
            args.keep, args.messages, cjk_ratio=0.0, seed=args.seed, agents=args.agents, out=out
        )
        state0, _ = bl.imported_store(c0, out)
        out.log("0% CJK: reindex --full (initial build) ...")
        a0 = cli_reindex(state0, "--full")
        sz0 = sizes(state0)
        res["cjk0"] = {
            "messages": c0.messages,
            "seconds": a0.wall,
            "rows": sz0["rows"],
            "rowsPerSec": sz0["rows"] / a0.wall,
            "sizes": sz0,
        }
        res["cjk20"] = {
            "messages": c.messages,
            "seconds": a.wall,
            "rows": sz20["rows"],
            "rowsPerSec": sz20["rows"] / a.wall,
            "sizes": sz20,
        }

        def col(s: dict[str, int], secs: float) -> list[Any]:
            return [
                secs,
                s["rows"] / secs,
                s["rows"],
                s["cjkRows"],
                bl.mb(s["textBytes"]),
                bl.mb(s["cjkTextBytes"]),
                bl.mb(s["fts"]),
                bl.mb(s["bigram"]),
                bl.mb(s["indexRows"]),
                bl.mb(s["events"]),
                bl.mb(s["database"]),
                bl.fmt_ratio(bl.ratio(s["fts"], s["textBytes"])),
                bl.fmt_ratio(bl.ratio(s["bigram"], s["cjkTextBytes"])),
            ]

        names = [
            "full reindex s",
            "index rows/s",
            "index rows",
            "CJK rows",
            "text MB",
            "CJK rows' text MB",
            "index_fts MB",
            "index_bigram MB",
            "index_rows MB",
            "events MB",
            "database MB",
            "fts / all text",
            "bigram / CJK text",
        ]
        v0, v20 = col(sz0, a0.wall), col(sz20, a.wall)
        rows_t = []
        for i, n in enumerate(names):
            rel = None
            if isinstance(v0[i], float) and isinstance(v20[i], float) and i < 2:
                rel = bl.fmt_ratio(bl.ratio(v20[i], v0[i]))
            rows_t.append((n, v0[i], v20[i], rel))
        out.print()
        out.print(
            bl.table(
                ["", "0% CJK", "20% CJK", "20%/0%"],
                rows_t,
                title="CJK cost (initial full reindex; sizes from dbstat)",
            )
        )

    if args.profile:
        from openclaw_sessions.redact import build_redactor

        red = build_redactor(())
        out.log("profiling an in-process full reconcile ...")
        work = bl.scratch("ocs-prof-")
        shutil.copytree(snap, work, dirs_exist_ok=True)
        p = bl.profile(lambda: in_process(work, red))
        res["profile"] = {"seconds": p.seconds, "top": p.rows}
        out.print(
            "\ncProfile of in-process reconcile(full=True), initial build "
            f"({p.seconds:.1f}s under the profiler), top by tottime:\n{p.text}"
        )
    out.print(f"\n{bl.load_note()}")
    if args.json:
        print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
