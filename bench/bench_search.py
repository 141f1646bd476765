#!/usr/bin/env python3
"""End-to-end `search --json` latency (process start to exit) against the process floor and rg.

On an imported and indexed corpus (kept with ``--keep``), for several queries picked from the
data (a planted rare word, a common word, a two-word query, a CJK 3+ character term, CJK 1 and
2 character terms, and a Latin word whose match count is close to the CJK 3+ term's), runs
``openclaw-sessions search Q --json`` ``--runs`` times each (interleaved, after a warm-up) and
reports p50/p90. Baselines measured in the same invocation:

* the process floor: ``python -c "import typer, sqlite3"`` with the same interpreter;
* ``rg --json -F WORD`` over the same agent's raw JSONL directory (two-word query: the regex
  ``a.*b|b.*a``, i.e. both words on one line); skipped with a note when rg is missing.

Also: a no-op ``reindex`` (nothing stale), the in-process cost of ``read.search.search`` (what is
left once imports are done), and ``python -X importtime -m openclaw_sessions search x --json``.

Targets (issue): search p50 ≤ 1.5x the floor and faster than rg on 1M messages; no-op reindex
≤ 2x the floor; CJK query p50 within 1.5x of a Latin query of similar selectivity.

    .venv/bin/python bench/bench_search.py [--messages 20000] [--runs 15] [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import _benchlib as bl  # noqa: E402

TARGET_FLOOR = 1.5
TARGET_NOOP_REINDEX = 2.0
TARGET_CJK = 1.5
AGENT = "main"

# Terms from gen_corpus's zh vocabulary ("database", "service", the last character of "password").
CJK3 = ("数据库", "服务器", "截止日期")
CJK2 = ("服务", "会议", "预算")
CJK1 = ("码", "库", "单")
TWO_WORDS = ("root cause", "budget around", "please before")


def _conn(state: Path) -> sqlite3.Connection:
    f = state / "agents" / AGENT / bl.DB_NAME
    return sqlite3.connect(f"file:{f}?mode=ro", uri=True)


def match_count(conn: sqlite3.Connection, q: str) -> int:
    """Index rows matching the query the way the search routes it (no visibility filters)."""
    from openclaw_sessions.policy import fts_query

    plan = fts_query.build(q)
    where, params = [], []
    for table, expr in (
        ("index_fts", plan.primary),
        ("index_bigram", plan.bigram),
    ):
        if expr is not None:
            where.append(f"row_id IN (SELECT rowid FROM {table} WHERE {table} MATCH ?)")
            params.append(expr)
    if not where:
        return 0
    sql = "SELECT count(*) FROM index_rows WHERE " + " AND ".join(where)
    return int(conn.execute(sql, params).fetchone()[0])


def pick_queries(c: bl.Corpus, state: Path) -> list[tuple[str, str, int]]:
    """(label, query, matching index rows) for each query kind."""
    conn = _conn(state)
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'index_fts', 'row')")
    vocab = conn.execute(
        "SELECT term, doc FROM temp.v WHERE length(term) >= 4 AND term GLOB '[a-z]*'"
        " AND NOT term GLOB '*[^a-z]*' ORDER BY doc DESC"
    ).fetchall()
    out: list[tuple[str, str, int]] = []
    planted = c.planted_in(AGENT)
    if planted:
        w = planted[0]["word"]
        out.append(("planted rare word", w, match_count(conn, w)))
    common = vocab[0][0]
    out.append(("common word", common, match_count(conn, common)))

    def first_hit(label: str, cands: tuple[str, ...]) -> None:
        for q in cands:
            n = match_count(conn, q)
            if n:
                out.append((label, q, n))
                return
        out.append((label, cands[0], 0))

    first_hit("two words", TWO_WORDS)
    first_hit("CJK 3+ chars", CJK3)
    first_hit("CJK 2 chars", CJK2)
    first_hit("CJK 1 char", CJK1)
    target = next(n for lbl, _, n in out if lbl == "CJK 3+ chars")
    if target:
        term, doc = min(vocab, key=lambda r: (abs(r[1] - target), r[0]))
        out.append(("Latin, CJK-3-like count", term, match_count(conn, term)))
    conn.close()
    return out


def rg_cmd(q: str, directory: Path) -> list[str]:
    words = q.split()
    if len(words) == 1:
        return ["rg", "--json", "-F", "--", q, str(directory)]
    a, b = (re.escape(w) for w in words[:2])
    return ["rg", "--json", "--", f"{a}.*{b}|{b}.*{a}", str(directory)]


def stats(walls: list[float]) -> dict[str, float | None]:
    return {
        "p50": bl.percentile(walls, 50),
        "p90": bl.percentile(walls, 90),
        "min": min(walls) if walls else None,
        "n": len(walls),
    }


def in_process(state: Path, q: str, runs: int) -> float | None:
    """Median ms of read.search.search in this (already warm) process."""
    from openclaw_sessions.read.search import SearchOptions, search

    opts = SearchOptions(query=q, state_dir=state, agent=AGENT)
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        search(opts)
        walls.append(time.perf_counter() - t0)
    return bl.percentile(walls, 50)


def importtime(state: Path) -> dict[str, Any]:
    env = bl.cli_env(state)
    p = bl.run(
        [sys.executable, "-X", "importtime", "-m", "openclaw_sessions", "search", "x", "--json"],
        env,
    )
    entries = []
    for line in p.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3:
            continue
        name_part = parts[2]
        depth = (len(name_part) - len(name_part.lstrip()) - 1) // 2
        entries.append(
            {
                "module": name_part.strip(),
                "self_us": int(parts[0]),
                "cum_us": int(parts[1]),
                "depth": depth,
            }
        )
    top = sorted((e for e in entries if e["depth"] == 0), key=lambda e: -e["cum_us"])
    by_pkg: dict[str, int] = {}
    for e in entries:
        pkg = e["module"].split(".")[0]
        by_pkg[pkg] = by_pkg.get(pkg, 0) + e["self_us"]
    total = sum(e["cum_us"] for e in entries if e["depth"] == 0)
    ours = sorted(
        (e for e in entries if e["module"].startswith("openclaw_sessions")),
        key=lambda e: -e["cum_us"],
    )
    return {
        "wallSeconds": p.wall,
        "totalImportUs": total,
        "modules": len(entries),
        "topLevel": top[:15],
        "byPackageSelfUs": dict(sorted(by_pkg.items(), key=lambda kv: -kv[1])[:15]),
        "projectModules": [e["module"] for e in ours],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bl.common_args(ap, 20_000)
    ap.add_argument("--runs", type=int, default=15, help="timed runs per command")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--no-rg", action="store_true", help="skip the ripgrep column")
    args = ap.parse_args(argv)
    out = bl.Out(args.json)
    res: dict[str, Any] = {"bench": "search", "runs": args.runs}

    c = bl.corpus(args.keep, args.messages, seed=args.seed, agents=args.agents, out=out)
    state, prep = bl.prepared_store(c, out)
    res["messages"] = c.messages
    res["prepare"] = prep
    sdir = c.path / "agents" / AGENT / "sessions"
    env = bl.cli_env(state)
    queries = pick_queries(c, state)
    rg = shutil.which("rg")
    rg_note = None
    if args.no_rg:
        rg, rg_note = None, "rg skipped (--no-rg)"
    elif rg is None:
        rg_note = "rg not found (apt-get install -y ripgrep): rg column skipped"

    py = sys.executable
    commands: dict[str, list[str]] = {
        "floor: python -c pass": [py, "-c", "pass"],
        "floor: python -c 'import typer, sqlite3'": [py, "-c", "import typer, sqlite3"],
        "openclaw-sessions --version": [*bl.cli(), "--version"],
        "reindex (no-op)": [*bl.cli(), "reindex", "--quiet"],
    }
    for label, q, _ in queries:
        commands[f"search: {label}"] = [*bl.cli(), "search", q, "--json"]
        if rg:
            commands[f"rg: {label}"] = rg_cmd(q, sdir)
    walls: dict[str, list[float]] = {k: [] for k in commands}
    last: dict[str, bl.Proc] = {}
    errors: list[str] = []
    out.log(f"{len(commands)} commands x ({args.warmup} warm-up + {args.runs}) runs ...")
    for i in range(args.warmup + args.runs):
        for name, cmd in commands.items():
            p = bl.run(cmd, env, timeout=600, keep_stdout=1 << 16)
            ok = (0, 1) if name.startswith(("search", "rg")) else (0,)
            if p.rc not in ok:
                errors.append(f"{name}: exit {p.rc}: {p.stderr.decode(errors='replace')[-300:]}")
            if i >= args.warmup:
                walls[name].append(p.wall)
            last[name] = p
    st = {k: stats(v) for k, v in walls.items()}
    floor = st["floor: python -c 'import typer, sqlite3'"]["p50"]
    res["commands"] = {k: {**v, "cmd": commands[k]} for k, v in st.items()}
    res["floorP50"] = floor
    out.log("in-process search ...")
    os.environ["OPENCLAW_SESSIONS_NO_BACKGROUND"] = "1"

    rows = []
    qres = []
    for label, q, n in queries:
        s = st[f"search: {label}"]
        p = last[f"search: {label}"]
        try:
            doc = json.loads(p.stdout or b"{}")
        except json.JSONDecodeError:
            doc = {}
        hits = len(doc.get("results", []))
        r = st.get(f"rg: {label}") if rg else None
        rg_bytes = last[f"rg: {label}"].stdout_bytes if rg else None
        inproc = in_process(state, q, 5)
        vs_floor = bl.ratio(s["p50"], floor)
        vs_rg = bl.ratio(s["p50"], r["p50"]) if r else None
        qres.append(
            {
                "label": label,
                "query": q,
                "matches": n,
                "hits": hits,
                "exitCode": p.rc,
                "indexing": bool(doc.get("indexing")),
                "ours": s,
                "rg": r,
                "rgOutputBytes": rg_bytes,
                "inProcessP50": inproc,
                "vsFloor": vs_floor,
                "vsRg": vs_rg,
            }
        )
        rows.append(
            (
                label,
                q,
                n,
                hits,
                1000 * s["p50"],
                1000 * s["p90"],
                bl.fmt_ratio(vs_floor),
                bl.verdict(vs_floor, TARGET_FLOOR),
                1000 * r["p50"] if r else None,
                1000 * r["p90"] if r else None,
                bl.fmt_ratio(vs_rg),
                bl.verdict(vs_rg, 1.0) if r else "n/a",
                1000 * inproc if inproc is not None else None,
            )
        )
    res["queries"] = qres
    out.print()
    out.print(
        bl.table(
            [
                "query",
                "text",
                "matches",
                "hits",
                "p50 ms",
                "p90 ms",
                "vs floor",
                f"<= {TARGET_FLOOR}x",
                "rg p50",
                "rg p90",
                "vs rg",
                "< rg",
                "in-proc ms",
            ],
            rows,
            title=f"search --json: {c.messages:,} messages, agent {AGENT}, {args.runs} runs each "
            f"(floor p50 {1000 * floor:.0f} ms)",
        )
    )
    if rg_note:
        out.print(rg_note)
    frows = []
    for name in (
        "floor: python -c pass",
        "floor: python -c 'import typer, sqlite3'",
        "openclaw-sessions --version",
        "reindex (no-op)",
    ):
        s = st[name]
        target = ""
        if name == "reindex (no-op)":
            v = bl.ratio(s["p50"], floor)
            target = f"<= {TARGET_NOOP_REINDEX}x  {bl.verdict(v, TARGET_NOOP_REINDEX)}"
        frows.append(
            (
                name,
                1000 * s["p50"],
                1000 * s["p90"],
                1000 * s["min"],
                bl.fmt_ratio(bl.ratio(s["p50"], floor)),
                target,
                last[name].maxrss_mb,
            )
        )
    out.print()
    heads = ["process", "p50 ms", "p90 ms", "min ms", "vs floor", "target", "RSS MB"]
    out.print(bl.table(heads, frows, title="process floors and the no-op reindex"))
    res["noopReindexVsFloor"] = bl.ratio(st["reindex (no-op)"]["p50"], floor)

    cjk = next((q for q in qres if q["label"] == "CJK 3+ chars"), None)
    lat = next((q for q in qres if q["label"].startswith("Latin")), None)
    if cjk and lat:
        v = bl.ratio(cjk["ours"]["p50"], lat["ours"]["p50"])
        res["cjkVsLatin"] = v
        out.print(
            f"\nCJK '{cjk['query']}' ({cjk['matches']:,} matches) p50 "
            f"{1000 * cjk['ours']['p50']:.0f} ms vs Latin '{lat['query']}' "
            f"({lat['matches']:,} matches) {1000 * lat['ours']['p50']:.0f} ms: "
            f"{bl.fmt_ratio(v)} (target <= {TARGET_CJK}x: {bl.verdict(v, TARGET_CJK)})"
        )
    out.log("importtime ...")
    it = importtime(state)
    res["importtime"] = it
    out.print()
    out.print(
        bl.table(
            ["top-level import", "cumulative ms", "self ms"],
            [(e["module"], e["cum_us"] / 1000, e["self_us"] / 1000) for e in it["topLevel"]],
            title=f"python -X importtime -m openclaw_sessions search x --json: "
            f"{it['modules']} modules, {it['totalImportUs'] / 1000:.0f} ms of imports "
            f"(process {1000 * it['wallSeconds']:.0f} ms under -X importtime)",
        )
    )
    out.print()
    out.print(
        bl.table(
            ["package", "self ms (all its modules)"],
            [(k, v / 1000) for k, v in it["byPackageSelfUs"].items()],
        )
    )
    out.print("project modules imported: " + ", ".join(it["projectModules"]))
    if errors:
        res["errors"] = errors
        out.print("\nERRORS:\n" + "\n".join(errors[:20]))
    out.print(f"\n{bl.load_note()}")
    if args.json:
        print(json.dumps(res, indent=2))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
