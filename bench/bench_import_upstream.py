#!/usr/bin/env python3
"""`import` from an upstream agent database next to the JSONL path, on the same corpus.

For each ``--messages`` size: generate (or reuse with ``--keep``) a corpus with gen_corpus.py,
then build the upstream databases holding the same transcripts
(``agents/<id>/agent/openclaw-agent.sqlite``, upstream's DDL from tests/upstream_fixture.py,
user_version 23: events over ``--compress-over`` bytes stored zstd-compressed), and time

* ``openclaw-sessions import <jsonl root>`` into a fresh state dir;
* ``openclaw-sessions import <database root>`` into another fresh state dir;
* a no-op re-import of each, and for the database an incremental one after appending 1% rows
  (how many upstream rows it read: ``upstreamRowsRead`` of the report).

    .venv/bin/python bench/bench_import_upstream.py [--messages 20000 ...] [--keep DIR] [--json]
        [--compress-over BYTES] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

sys.path.insert(0, str(bl.REPO / "tests"))
import upstream_fixture as uf  # noqa: E402


def build_databases(src: Path, dest: Path, compress_over: int | None) -> dict[str, int]:
    """One upstream database per agent of the JSONL corpus, holding the same transcripts."""
    rows = sessions = 0
    for sdir in sorted((src / "agents").glob("*/sessions")):
        agent = sdir.parent.name
        store = {}
        if (sdir / "sessions.json").is_file():
            store = json.loads((sdir / "sessions.json").read_text("utf-8"))
        key_of = {e["sessionId"]: k for k, e in store.items() if isinstance(e, dict)}
        ups = []
        for f in bl.transcript_files(src):
            if f.parent != sdir:
                continue
            sid = f.name.split(".jsonl")[0]
            lines = uf.jsonl_lines(f.read_bytes().decode("utf-8", "replace"))
            key = key_of.get(sid) if f.name.endswith(".jsonl") else None
            entry = store.get(key, {}) if key else {}
            rest = {k: v for k, v in entry.items() if k != "sessionId"}
            key = key or f"agent:{agent}:orphan:{sid.lower()}"
            ups.append(uf.UpSession(key, sid, lines, entry=rest))
            rows += len(lines)
        sessions += len(ups)
        uf.build(uf.agent_db(dest, agent), ups, compress_over=compress_over, agent_id=agent)
    return {"rows": rows, "sessions": sessions}


def _import(root: Path, state: Path) -> tuple[bl.Proc, dict[str, Any]]:
    p = bl.run([*bl.cli(), "import", str(root), "--json"], bl.cli_env(state)).check((0, 4))
    return p, json.loads(p.stdout)


def measure(c: bl.Corpus, compress_over: int | None, repeat: int, out: bl.Out) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {"jsonl": [], "upstream": []}
    res: dict[str, Any] = {"messages": c.messages, "lines": c.manifest["lines"]}
    for i in range(repeat):
        work = bl.scratch("ocs-upstream-")
        dbroot = work / "db"
        t0 = time.perf_counter()
        info = build_databases(c.path, dbroot, compress_over)
        res["databaseBuildSeconds"] = time.perf_counter() - t0
        res["databaseRows"], res["databaseSessions"] = info["rows"], info["sessions"]
        res["databaseBytes"] = sum(f.stat().st_size for f in dbroot.rglob("*.sqlite"))
        with sqlite3.connect(uf.agent_db(dbroot, "main")) as conn:
            zst = "SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL"
            res["compressedRowsMain"] = conn.execute(zst).fetchone()[0]
        for name, root in (("jsonl", c.path), ("upstream", dbroot)):
            state = work / f"state-{name}"
            out.log(f"[{c.messages:,}] run {i + 1}/{repeat}: import {name} ...")
            p, rep = _import(root, state)
            n, again = _import(root, state)
            runs[name].append({"wall": p.wall, "rss": p.maxrss_mb, "rc": p.rc,
                               "events": rep["eventsStored"], "rowsRead": rep["upstreamRowsRead"],
                               "noopWall": n.wall, "noopEvents": again["eventsStored"],
                               "noopRowsRead": again["upstreamRowsRead"],
                               "noopRowsChecked": again["upstreamRowsChecked"]})  # fmt: skip
        # incremental: append 1% rows (copies of existing lines) to the largest sessions
        grow = max(1, info["rows"] // 100)
        with sqlite3.connect(uf.agent_db(dbroot, "main"), isolation_level=None) as conn:
            top = conn.execute("SELECT session_id, max(seq) FROM transcript_events GROUP BY 1"
                               " ORDER BY 2 DESC LIMIT 5").fetchall()  # fmt: skip
            conn.execute("BEGIN")
            for k in range(grow):
                sid = top[k % len(top)][0]
                src = conn.execute("SELECT event_json FROM transcript_events WHERE session_id = ?"
                                   " AND event_json IS NOT NULL ORDER BY seq DESC LIMIT 1",
                                   (sid,)).fetchone()[0]  # fmt: skip
                uf.append(conn, sid, [src])
            conn.execute("COMMIT")
        p, rep = _import(dbroot, work / "state-upstream")
        inc = {"incWall": p.wall, "incRowsRead": rep["upstreamRowsRead"]}
        runs["upstream"][-1].update(appended=grow, incEvents=rep["eventsStored"], **inc)
        bl.shutil.rmtree(work, ignore_errors=True)
    for name in runs:
        best = min(runs[name], key=lambda r: r["wall"])
        res[name] = {**best, "eventsPerSec": best["events"] / best["wall"],
                     "peakRssMB": max(r["rss"] for r in runs[name])}  # fmt: skip
    res["ratio"] = res["upstream"]["wall"] / res["jsonl"]["wall"]
    return res


def report(r: dict[str, Any], out: bl.Out) -> None:
    j, u = r["jsonl"], r["upstream"]
    out.print()
    out.print(
        bl.table(
            ["metric", "upstream database", "JSONL files", "db/jsonl"],
            [
                ("import wall s", u["wall"], j["wall"], bl.fmt_ratio(r["ratio"])),
                ("events stored", u["events"], j["events"], None),
                (
                    "events/s",
                    u["eventsPerSec"],
                    j["eventsPerSec"],
                    bl.fmt_ratio(bl.ratio(u["eventsPerSec"], j["eventsPerSec"])),
                ),
                ("peak RSS MB", u["peakRssMB"], j["peakRssMB"], None),
                ("upstream rows read", u["rowsRead"], None, None),
                ("no-op re-import s", u["noopWall"], j["noopWall"], None),
                (
                    "no-op rows read / checked",
                    f"{u['noopRowsRead']} / {u['noopRowsChecked']}",
                    None,
                    None,
                ),
                (f"incremental (+{u['appended']} rows) s", u["incWall"], None, None),
                ("incremental rows read", u["incRowsRead"], None, None),
            ],
            title=f"import from an upstream database vs JSONL: {r['messages']:,} messages, "
            f"{r['databaseSessions']:,} sessions, {r['databaseRows']:,} rows "
            f"({r['compressedRowsMain']:,} compressed in main), "
            f"database {bl.mb(r['databaseBytes']):.1f} MB",
        )  # fmt: skip
    )
    if u["noopEvents"] or j["noopEvents"] or u["incRowsRead"] != u["appended"]:
        out.print("WARNING: a re-import stored events, or the incremental one read extra rows")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bl.common_args(ap, 20_000, multi=True)
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; best time is kept")
    ap.add_argument(
        "--compress-over",
        type=int,
        default=2048,
        help="store events larger than this many bytes zstd-compressed (0: none)",
    )
    args = ap.parse_args(argv)
    out = bl.Out(args.json)
    results = []
    for n in args.messages:
        c = bl.corpus(args.keep, n, seed=args.seed, agents=args.agents, out=out)
        r = measure(c, args.compress_over or None, args.repeat, out)
        results.append(r)
        report(r, out)
    if args.json:
        print(json.dumps({"bench": "import-upstream", "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
