#!/usr/bin/env python3
"""`openclaw-sessions import` throughput, peak RSS and no-op re-import, against a plain baseline.

For each ``--messages`` size: generate (or reuse with ``--keep``) a corpus, then

* baseline (a subprocess of this script, same interpreter): read every transcript file the
  import reads, line by line, ``json.loads`` each line, and ``executemany`` the raw lines into
  a bare table of a fresh SQLite file (WAL, synchronous=NORMAL, one transaction per file);
* ours: ``openclaw-sessions import CORPUS --quiet`` with ``OPENCLAW_STATE_DIR`` set to a fresh
  temp dir (wall time from spawn to exit, peak RSS from ``wait4``);
* a no-op re-import of the same corpus into the same store.

Targets (issue): import ≤ 1.5x the baseline on 100k messages; peak RSS < 150 MB at any size
(run e.g. ``--messages 10000 100000`` to show it stays flat).

    .venv/bin/python bench/bench_import.py [--messages 20000 ...] [--keep DIR] [--json]
        [--repeat N] [--profile]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import _benchlib as bl  # noqa: E402

TARGET_RATIO = 1.5
TARGET_RSS_MB = 150.0


def baseline(src: Path, dbfile: Path) -> dict[str, Any]:
    """Plain Python + SQLite: the floor an importer of the same lines could reach."""
    t0 = time.perf_counter()
    conn = sqlite3.connect(dbfile, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE lines (file INTEGER NOT NULL, seq INTEGER NOT NULL, raw TEXT)")
    lines = nbytes = 0
    loads = json.loads
    for fid, path in enumerate(bl.transcript_files(src)):
        rows = []
        with open(path, "rb") as f:
            for seq, line in enumerate(f):
                nbytes += len(line)
                text = line.decode("utf-8").rstrip("\n")
                loads(text)
                rows.append((fid, seq, text))
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO lines (file, seq, raw) VALUES (?, ?, ?)", rows)
        conn.execute("COMMIT")
        lines += len(rows)
    conn.close()
    return {"seconds": time.perf_counter() - t0, "lines": lines, "bytes": nbytes}


def measure(c: bl.Corpus, repeat: int, out: bl.Out) -> dict[str, Any]:
    files = bl.transcript_files(c.path)
    tbytes = sum(f.stat().st_size for f in files)
    res: dict[str, Any] = {
        "messages": c.messages,
        "transcriptFiles": len(files),
        "transcriptBytes": tbytes,
        "lines": c.manifest["lines"],
    }
    base_runs, ours_runs, noop_runs = [], [], []
    for i in range(repeat):
        work = bl.scratch("ocs-import-")
        out.log(f"[{c.messages:,}] run {i + 1}/{repeat}: baseline ...")
        p = bl.run([sys.executable, __file__, "--_baseline", str(c.path), str(work / "b.sqlite")])
        p.check()
        inner = json.loads(p.stdout)
        base_runs.append(
            {"wall": p.wall, "inner": inner["seconds"], "rss": p.maxrss_mb, "rows": inner["lines"]}
        )
        state = work / "state"
        env = bl.cli_env(state)
        out.log(f"[{c.messages:,}] run {i + 1}/{repeat}: openclaw-sessions import ...")
        q = bl.run([*bl.cli(), "import", str(c.path), "--quiet"], env).check((0, 4))
        events = bl.scalar(state, "SELECT count(*) FROM events")
        ours_runs.append(
            {
                "wall": q.wall,
                "rss": q.maxrss_mb,
                "rc": q.rc,
                "events": events,
                "user": q.user_s,
                "sys": q.sys_s,
                "dbBytes": bl.db_bytes(state),
            }
        )
        out.log(f"[{c.messages:,}] import {q.wall:.2f}s rc={q.rc}; no-op re-import ...")
        n = bl.run([*bl.cli(), "import", str(c.path), "--quiet"], env).check((0, 4))
        after = bl.scalar(state, "SELECT count(*) FROM events")
        noop_runs.append(
            {"wall": n.wall, "rss": n.maxrss_mb, "rc": n.rc, "newEvents": after - events}
        )
        if q.rc == 4:
            res["importProblems"] = q.stderr.decode(errors="replace")[-1500:]
        bl.shutil.rmtree(work, ignore_errors=True)
    best_b = min(base_runs, key=lambda r: r["wall"])
    best_o = min(ours_runs, key=lambda r: r["wall"])
    best_n = min(noop_runs, key=lambda r: r["wall"])
    res.update(
        baseline={
            "seconds": best_b["wall"],
            "innerSeconds": best_b["inner"],
            "rows": best_b["rows"],
            "peakRssMB": max(r["rss"] for r in base_runs),
            "eventsPerSec": best_b["rows"] / best_b["wall"],
            "MBPerSec": bl.mb(tbytes) / best_b["wall"],
        },
        ours={
            "seconds": best_o["wall"],
            "exitCode": best_o["rc"],
            "events": best_o["events"],
            "peakRssMB": max(r["rss"] for r in ours_runs),
            "userSeconds": best_o["user"],
            "sysSeconds": best_o["sys"],
            "eventsPerSec": best_o["events"] / best_o["wall"],
            "MBPerSec": bl.mb(tbytes) / best_o["wall"],
            "dbBytes": best_o["dbBytes"],
        },
        noopReimport={
            "seconds": best_n["wall"],
            "peakRssMB": max(r["rss"] for r in noop_runs),
            "newEvents": best_n["newEvents"],
            "exitCode": best_n["rc"],
        },
        ratio=best_o["wall"] / best_b["wall"],
        runs={"baseline": base_runs, "ours": ours_runs, "noop": noop_runs},
    )
    return res


def report(r: dict[str, Any], out: bl.Out) -> None:
    b, o, n = r["baseline"], r["ours"], r["noopReimport"]
    out.print()
    out.print(
        bl.table(
            ["metric", "openclaw-sessions", "baseline", "ours/baseline", "target"],
            [
                (
                    "wall time s",
                    o["seconds"],
                    b["seconds"],
                    bl.fmt_ratio(r["ratio"]),
                    f"<= {TARGET_RATIO}x  {bl.verdict(r['ratio'], TARGET_RATIO)}",
                ),
                ("events (rows) stored", o["events"], b["rows"], None, None),
                (
                    "events/s",
                    o["eventsPerSec"],
                    b["eventsPerSec"],
                    bl.fmt_ratio(bl.ratio(o["eventsPerSec"], b["eventsPerSec"])),
                    None,
                ),
                (
                    "MB/s (transcript bytes)",
                    o["MBPerSec"],
                    b["MBPerSec"],
                    bl.fmt_ratio(bl.ratio(o["MBPerSec"], b["MBPerSec"])),
                    None,
                ),
                (
                    "peak RSS MB",
                    o["peakRssMB"],
                    b["peakRssMB"],
                    bl.fmt_ratio(bl.ratio(o["peakRssMB"], b["peakRssMB"])),
                    f"< {TARGET_RSS_MB:.0f} MB  {bl.verdict(o['peakRssMB'], TARGET_RSS_MB)}",
                ),
                ("user+sys CPU s", o["userSeconds"] + o["sysSeconds"], None, None, None),
                (
                    "DB size MB (ours) / input MB",
                    bl.mb(o["dbBytes"]),
                    bl.mb(r["transcriptBytes"]),
                    bl.fmt_ratio(bl.ratio(o["dbBytes"], r["transcriptBytes"])),
                    None,
                ),
                (
                    "no-op re-import s",
                    n["seconds"],
                    None,
                    f"{100 * n['seconds'] / o['seconds']:.1f}% of import",
                    None,
                ),
                ("no-op re-import peak RSS MB", n["peakRssMB"], None, None, None),
            ],
            title=f"import: {r['messages']:,} messages, {r['lines']:,} lines, "
            f"{r['transcriptFiles']:,} files, {bl.mb(r['transcriptBytes']):.1f} MB "
            f"(exit {o['exitCode']}; baseline in-process time {b['innerSeconds']:.2f}s)",
        )
    )
    if n["newEvents"]:
        out.print(f"WARNING: the no-op re-import stored {n['newEvents']} new events")
    if r.get("importProblems"):
        out.print("import reported problems (exit 4):\n" + r["importProblems"])


def profile_import(c: bl.Corpus, out: bl.Out) -> bl.Profile:
    from openclaw_sessions.ingest import importer
    from openclaw_sessions.redact import build_redactor

    state = bl.scratch("ocs-prof-")
    out.log(f"profiling an in-process import of {c.messages:,} messages ...")
    red = build_redactor(())
    prof = bl.profile(
        lambda: importer.run_import(
            state, [c.path], agent="main", redactor=red, options=importer.ImportOptions()
        )
    )
    bl.shutil.rmtree(state, ignore_errors=True)
    return prof


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bl.common_args(ap, 20_000, multi=True)
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; best time is kept")
    ap.add_argument("--profile", action="store_true", help="cProfile an in-process import")
    ap.add_argument("--_baseline", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._baseline:
        print(json.dumps(baseline(*args._baseline)))
        return 0
    out = bl.Out(args.json)
    results = []
    profiles = {}
    for n in args.messages:
        c = bl.corpus(args.keep, n, seed=args.seed, agents=args.agents, out=out)
        r = measure(c, args.repeat, out)
        results.append(r)
        report(r, out)
        if args.profile:
            p = profile_import(c, out)
            profiles[str(n)] = {"seconds": p.seconds, "top": p.rows}
            out.print(
                f"\ncProfile of in-process import ({c.messages:,} messages, "
                f"{p.seconds:.1f}s under the profiler), top by tottime:\n{p.text}"
            )
    if len(results) > 1:
        out.print()
        out.print(
            bl.table(
                [
                    "messages",
                    "import s",
                    "baseline s",
                    "ratio",
                    "events/s",
                    "MB/s",
                    "peak RSS MB",
                    "no-op s",
                ],
                [
                    (
                        r["messages"],
                        r["ours"]["seconds"],
                        r["baseline"]["seconds"],
                        bl.fmt_ratio(r["ratio"]),
                        r["ours"]["eventsPerSec"],
                        r["ours"]["MBPerSec"],
                        r["ours"]["peakRssMB"],
                        r["noopReimport"]["seconds"],
                    )
                    for r in results
                ],
                title="summary (RSS should stay flat as the corpus grows)",
            )
        )
    out.print(f"\n{bl.load_note()}")
    if args.json:
        print(json.dumps({"bench": "import", "results": results, "profiles": profiles}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
