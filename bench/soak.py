#!/usr/bin/env python3
"""Soak: concurrent appends + imports, searches and reindexes for N minutes; errors must be 0.

Works on a copy (under /tmp) of an imported and indexed corpus. Until the deadline, three kinds
of bounded loops run at the same time:

* writer: appends a user + assistant message pair (each user message carries a unique token
  ``zqsoak…``) to a few random v3 transcripts, sometimes as a rewind (the new message hangs
  under an older entry, abandoning a branch), then runs ``openclaw-sessions import --quiet`` and
  probes with ``search TOKEN --json`` whether the pair was indexed in the same transaction;
* searchers: ``search Q --json`` over a fixed mix of queries, latency measured per process;
* reindexer: ``reindex --all-agents --quiet`` every ``--reindex-interval`` s and
  ``reindex --all-agents --full --quiet`` every ``--full-every`` s.

Searches may start the background reconciler (as in real use) unless ``--no-background``.
An error is any search exit other than 0/1, any other command exiting non-0, a timeout, or
"database is locked" / a traceback on any stderr. The baseline is the same query mix on the
same store with nothing else running, measured first. After the deadline: wait for background
reconcilers, ``reindex``, then check ``status`` (nothing pending or dirty), every token on an
active branch is found, SQLite and FTS5 integrity, and that ``reindex --full`` changes nothing
(no drift).

    .venv/bin/python bench/soak.py [--minutes 1] [--messages 20000] [--keep DIR] [--json]
    issue target: --minutes 10 --messages 100000
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import random
import shutil
import sqlite3
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import _benchlib as bl  # noqa: E402

TIMEOUT = 300.0
QUERIES = ("deploy", "root cause", "数据库", "服务", "invoice")


@dataclass
class Log:
    lock: threading.Lock = field(default_factory=threading.Lock)
    errors: list[str] = field(default_factory=list)
    search: list[float] = field(default_factory=list)
    search_rc: dict[int, int] = field(default_factory=dict)
    indexing: int = 0
    imports: list[float] = field(default_factory=list)
    reindex: list[float] = field(default_factory=list)
    full: list[float] = field(default_factory=list)
    appended: int = 0
    rewinds: int = 0
    fresh: int = 0
    stale: int = 0
    wal_max: int = 0
    tokens: list[tuple[Path, str, str]] = field(default_factory=list)  # file, entry id, token

    def check(self, what: str, p: bl.Proc, ok: tuple[int, ...] = (0,)) -> bool:
        err = p.stderr.decode(errors="replace")
        bad = []
        if p.timed_out:
            bad.append(f"timed out after {TIMEOUT:.0f}s")
        if p.rc not in ok:
            bad.append(f"exit {p.rc}")
        if "database is locked" in err:
            bad.append("'database is locked' on stderr")
        if "Traceback" in err:
            bad.append("traceback on stderr")
        if bad:
            with self.lock:
                self.errors.append(f"{what}: {', '.join(bad)}: {err.strip()[-400:]}")
            return False
        return True


def transcript_entries(lines: list[str]) -> list[Any]:
    from openclaw_sessions.model import transcript

    return transcript.entries(lines)


def _walk(entries: list[Any]) -> Any:
    from openclaw_sessions.model import transcript, tree

    return tree.walk(map(transcript.tree_row, entries))


class Writer:
    """Appends well-formed v3 entries to transcripts, tracking each file's leaf."""

    def __init__(self, root: Path, rng: random.Random, log: Log) -> None:
        self.rng = rng
        self.log = log
        self.pool: list[Path] = []
        self.hidden: set[Path] = set()  # incognito sessions: never searchable
        for sdir in sorted((root / "agents").glob("*/sessions")):
            store = json.loads((sdir / "sessions.json").read_text("utf-8"))
            for key, entry in store.items():
                f = sdir / f"{entry['sessionId']}.jsonl"
                with f.open(encoding="utf-8") if f.exists() else open(os.devnull) as fh:
                    if '"version":3' not in fh.readline():
                        continue
                self.pool.append(f)
                if ":incognito-" in key:
                    self.hidden.add(f)
        self.pool.sort()
        rng.shuffle(self.pool)
        self.pool = self.pool[:200]
        self.ids: dict[Path, list[str]] = {}  # entry ids in file order
        self.leaf: dict[Path, str | None] = {}
        self.n = 0

    def _load(self, f: Path) -> None:
        lines = [ln for ln in f.read_text("utf-8").splitlines() if ln.strip()]
        entries = transcript_entries(lines)
        self.leaf[f] = _walk(entries).leaf
        self.ids[f] = [e.entry_id for e in entries if e.entry_id]

    def append(self, f: Path) -> None:
        if f not in self.leaf:
            self._load(f)
        ids = self.ids[f]
        parent = self.leaf[f]
        rewind = len(ids) > 6 and self.rng.random() < 0.1
        if rewind:
            parent = ids[self.rng.randrange(len(ids) // 2, len(ids) - 2)]
        self.n += 1
        token = f"zqsoak{self.n:05d}x{self.rng.randrange(10**6):06d}"
        now = datetime.now(UTC)
        iso = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
        ms = int(now.timestamp() * 1000)
        uid, aid = uuid.uuid4().hex[:8], uuid.uuid4().hex[:8]
        user = {
            "type": "message",
            "id": uid,
            "parentId": parent,
            "timestamp": iso,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": f"Soak {token}: please check the deploy on db-eu-west-3.",
                    }
                ],
                "timestamp": ms,
            },
        }
        asst = {
            "type": "message",
            "id": aid,
            "parentId": uid,
            "timestamp": iso,
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Checked {token}; the 数据库 backup is fine."}
                ],
                "timestamp": ms + 1,
                "stopReason": "stop",
            },
        }
        data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in (user, asst))
        with open(f, "a", encoding="utf-8") as fh:
            fh.write(data)
        ids += [uid, aid]
        self.leaf[f] = aid
        with self.log.lock:
            self.log.appended += 2
            self.log.rewinds += int(rewind)
            self.log.tokens.append((f, uid, token))

    def active_tokens(self) -> tuple[list[str], list[str], list[str]]:
        """Tokens (on an active branch, abandoned by a later rewind, in incognito sessions)."""
        active_ids: dict[Path, set[str]] = {}
        on, off, hidden = [], [], []
        for f, uid, token in self.log.tokens:
            if f in self.hidden:
                hidden.append(token)
                continue
            if f not in active_ids:
                lines = [ln for ln in f.read_text("utf-8").splitlines() if ln.strip()]
                branch = _walk(transcript_entries(lines))
                active_ids[f] = {m[1] for m in branch.messages}
            (on if uid in active_ids[f] else off).append(token)
        return on, off, hidden


def wait_idle(state: Path, timeout: float) -> bool:
    """Wait until no reconciler holds an agent's reconcile.lock (background ones included)."""
    deadline = time.monotonic() + timeout
    for lock in sorted((state / "agents").glob("*/reconcile.lock")):
        while True:
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.2)
            finally:
                os.close(fd)
    return True


def fingerprint(state: Path) -> list[tuple[Any, ...]]:
    out = []
    for f in bl.db_files(state):
        conn = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        out.append(
            tuple(
                conn.execute(
                    "SELECT count(*), total(seq), total(length(text)), total(transcript_id)"
                    " FROM index_rows"
                ).fetchone()
            )
        )
        conn.close()
    return out


def integrity(state: Path) -> list[str]:
    # The store's own connection: the bigram index reads its text through a function only
    # the tool registers (store/db.py), which a plain sqlite3 connection lacks.
    from openclaw_sessions.store import db

    problems = []
    for f in bl.db_files(state):
        conn = db.connect(f)
        try:
            r = conn.execute("PRAGMA integrity_check").fetchone()[0]
            if r != "ok":
                problems.append(f"{f.parent.name}: integrity_check: {r}")
            for t in ("index_fts", "index_bigram"):
                try:
                    conn.execute(f"INSERT INTO {t}({t}, rank) VALUES ('integrity-check', 1)")
                except sqlite3.DatabaseError as exc:
                    problems.append(f"{f.parent.name}: {t} integrity-check: {exc}")
        finally:
            conn.close()
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    bl.common_args(ap, 20_000)
    ap.add_argument("--minutes", type=float, default=1.0, help="soak duration (issue: 10)")
    ap.add_argument("--searchers", type=int, default=1, help="concurrent search loops")
    ap.add_argument("--append-interval", type=float, default=0.5, help="s between appends")
    ap.add_argument("--files-per-append", type=int, default=2)
    ap.add_argument("--reindex-interval", type=float, default=2.0)
    ap.add_argument(
        "--full-every", type=float, default=45.0, help="s between reindex --full (0: never)"
    )
    ap.add_argument(
        "--no-background",
        action="store_true",
        help="searches do not start the background reconciler",
    )
    ap.add_argument("--baseline-runs", type=int, default=5, help="quiet runs per query")
    args = ap.parse_args(argv)
    out = bl.Out(args.json)
    rng = random.Random(args.seed)

    c = bl.corpus(args.keep, args.messages, seed=args.seed, agents=args.agents, out=out)
    prepared, _ = bl.prepared_store(c, out)
    work = bl.scratch("ocs-soak-")
    out.log(f"copying corpus and store into {work} ...")
    shutil.copytree(c.path / "agents", work / "agents")
    for f in bl.db_files(prepared):
        shutil.copy2(f, work / "agents" / f.parent.name / f.name)
    env = bl.cli_env(work)
    if not args.no_background:
        env.pop("OPENCLAW_SESSIONS_NO_BACKGROUND", None)
    cli = bl.cli()
    log = Log()
    first = bl.run([*cli, "import", "--quiet"], env, timeout=TIMEOUT)
    import_ok = (0, 4) if first.rc == 4 else (0,)
    bl.run([*cli, "reindex", "--all-agents", "--quiet"], env, timeout=TIMEOUT).check()
    planted = c.planted_in("main")
    queries = [*(p["word"] for p in planted[:1]), *QUERIES]

    out.log(f"baseline: {len(queries)} queries x {args.baseline_runs} runs, nothing else running")
    quiet: list[float] = []
    floor: list[float] = []
    for _ in range(args.baseline_runs):
        floor.append(bl.run([sys.executable, "-c", "import typer, sqlite3"], env).wall)
        for q in queries:
            p = bl.run([*cli, "search", q, "--json"], env, timeout=TIMEOUT)
            log.check(f"baseline search {q!r}", p, (0, 1))
            quiet.append(p.wall)
    db_start = bl.db_bytes(work)

    writer = Writer(work, rng, log)
    stop = threading.Event()
    t_end = time.monotonic() + 60 * args.minutes
    out.log(
        f"soak: {args.minutes:g} min, {len(writer.pool)} files in the append pool, "
        f"{args.searchers} searcher(s), background reconciler "
        f"{'off' if args.no_background else 'on'} ..."
    )

    def writer_loop() -> None:
        while not stop.is_set() and time.monotonic() < t_end:
            for f in rng.sample(writer.pool, min(args.files_per_append, len(writer.pool))):
                writer.append(f)
            p = bl.run([*cli, "import", "--quiet"], env, timeout=TIMEOUT)
            if log.check("import", p, import_ok):
                with log.lock:
                    log.imports.append(p.wall)
            token = log.tokens[-1][2]
            s = bl.run([*cli, "search", token, "--json"], env, timeout=TIMEOUT)
            if log.check(f"probe search {token}", s, (0, 1)):
                with log.lock:
                    if s.rc == 0:
                        log.fresh += 1
                    else:
                        log.stale += 1
            stop.wait(args.append_interval)

    def search_loop(i: int) -> None:
        r = random.Random(f"{args.seed}:search:{i}")
        while not stop.is_set() and time.monotonic() < t_end:
            q = r.choice(queries)
            p = bl.run([*cli, "search", q, "--json"], env, timeout=TIMEOUT)
            ok = log.check(f"search {q!r}", p, (0, 1))
            with log.lock:
                log.search_rc[p.rc] = log.search_rc.get(p.rc, 0) + 1
                if ok:
                    log.search.append(p.wall)
                    try:
                        log.indexing += int(bool(json.loads(p.stdout or b"{}").get("indexing")))
                    except json.JSONDecodeError:
                        log.errors.append(f"search {q!r}: stdout is not JSON")

    def reindex_loop() -> None:
        last_full = time.monotonic()
        while not stop.is_set() and time.monotonic() < t_end:
            full = args.full_every > 0 and time.monotonic() - last_full >= args.full_every
            extra = ["--full"] if full else []
            p = bl.run([*cli, "reindex", "--all-agents", "--quiet", *extra], env, timeout=TIMEOUT)
            if log.check("reindex" + (" --full" if full else ""), p):
                with log.lock:
                    (log.full if full else log.reindex).append(p.wall)
            if full:
                last_full = time.monotonic()
            stop.wait(args.reindex_interval)

    threads = [
        threading.Thread(target=writer_loop, name="writer"),
        threading.Thread(target=reindex_loop, name="reindexer"),
    ]
    threads += [
        threading.Thread(target=search_loop, args=(i,), name=f"searcher{i}")
        for i in range(args.searchers)
    ]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    last_note = t0
    while any(t.is_alive() for t in threads):
        for f in bl.db_files(work):
            try:  # the last connection to close removes the WAL: it may go at any moment
                log.wal_max = max(log.wal_max, Path(str(f) + "-wal").stat().st_size)
            except FileNotFoundError:
                pass
        if time.monotonic() - last_note >= 15:
            last_note = time.monotonic()
            with log.lock:
                out.log(
                    f"  {last_note - t0:.0f}s: {len(log.search)} searches, "
                    f"{log.appended} messages appended, {len(log.reindex)}+{len(log.full)} "
                    f"reindexes, {len(log.errors)} errors"
                )
        time.sleep(0.5)
        if time.monotonic() > t_end + 2 * TIMEOUT:
            stop.set()
    stop.set()
    for t in threads:
        t.join(timeout=2 * TIMEOUT)
    elapsed = time.monotonic() - t0

    out.log("final checks: waiting for background reconcilers ...")
    if not wait_idle(work, TIMEOUT):
        log.errors.append("background reconciler still running after the timeout")
    p = bl.run([*cli, "reindex", "--all-agents", "--quiet"], env, timeout=TIMEOUT)
    log.check("final reindex", p)
    pending = []
    for f in bl.db_files(work):
        s = bl.run([*cli, "status", "--agent", f.parent.name, "--json"], env, timeout=TIMEOUT)
        try:
            st = json.loads(s.stdout)
            if st.get("pendingSessions") or st.get("dirtySessions"):
                pending.append(
                    f"{f.parent.name}: pending {st.get('pendingSessions')}, "
                    f"dirty {st.get('dirtySessions')}"
                )
        except json.JSONDecodeError:
            log.errors.append(f"status {f.parent.name}: not JSON (exit {s.rc})")
    log.errors += [f"after the final reindex: {x}" for x in pending]
    on, off, hidden = writer.active_tokens()
    sample = on if len(on) <= 40 else rng.sample(on, 40)
    lost = []
    for token in sample:
        s = bl.run([*cli, "search", token, "--json", "--all-agents"], env, timeout=TIMEOUT)
        if s.rc != 0:
            lost.append(token)
    if lost:
        log.errors.append(
            f"{len(lost)} of {len(sample)} active-branch tokens not found: {lost[:5]}"
        )
    found_off = 0
    for token in off[:20]:
        s = bl.run([*cli, "search", token, "--json", "--all-agents"], env, timeout=TIMEOUT)
        found_off += int(s.rc == 0 and token in s.stdout.decode(errors="replace"))
    if found_off:
        log.errors.append(f"{found_off} tokens of abandoned branches are still found")
    leaked = 0
    for token in hidden[:20]:
        s = bl.run([*cli, "search", token, "--json", "--all-agents"], env, timeout=TIMEOUT)
        leaked += int(s.rc == 0 and token in s.stdout.decode(errors="replace"))
    if leaked:
        log.errors.append(f"{leaked} tokens of incognito sessions are found by search")
    log.errors += integrity(work)
    before = fingerprint(work)
    p = bl.run([*cli, "reindex", "--all-agents", "--full", "--quiet"], env, timeout=2 * TIMEOUT)
    log.check("verification reindex --full", p)
    after = fingerprint(work)
    if before != after:
        log.errors.append(f"index drift: incremental {before} != full rebuild {after}")

    pct = bl.percentile
    q50, s50 = pct(quiet, 50), pct(log.search, 50)
    res = {
        "bench": "soak",
        "messages": c.messages,
        "minutes": elapsed / 60,
        "baseline": {
            "searchP50": q50,
            "searchP99": pct(quiet, 99),
            "floorP50": pct(floor, 50),
            "n": len(quiet),
        },
        "search": {
            "n": len(log.search),
            "p50": s50,
            "p90": pct(log.search, 90),
            "p99": pct(log.search, 99),
            "max": max(log.search, default=None),
            "exitCodes": log.search_rc,
            "indexingTrue": log.indexing,
        },
        "imports": {
            "n": len(log.imports),
            "p50": pct(log.imports, 50),
            "p99": pct(log.imports, 99),
            "messagesAppended": log.appended,
            "rewinds": log.rewinds,
            "probeFresh": log.fresh,
            "probeStale": log.stale,
        },
        "reindex": {
            "n": len(log.reindex),
            "p50": pct(log.reindex, 50),
            "max": max(log.reindex, default=None),
            "full": len(log.full),
            "fullP50": pct(log.full, 50),
            "fullMax": max(log.full, default=None),
        },
        "walMaxBytes": log.wal_max,
        "dbBytes": {"start": db_start, "end": bl.db_bytes(work)},
        "tokens": {
            "active": len(on),
            "abandoned": len(off),
            "incognito": len(hidden),
            "checked": len(sample),
            "lost": len(lost),
            "abandonedFound": found_off,
            "incognitoFound": leaked,
        },
        "errors": log.errors,
    }

    def ms(v: float | None) -> float | None:
        return None if v is None else 1000 * v

    out.print()
    out.print(
        bl.table(
            ["measure", "during soak", "quiet baseline", "soak/baseline"],
            [
                ("search p50 ms", ms(s50), ms(q50), bl.fmt_ratio(bl.ratio(s50, q50))),
                (
                    "search p90 ms",
                    ms(res["search"]["p90"]),
                    ms(pct(quiet, 90)),
                    bl.fmt_ratio(bl.ratio(res["search"]["p90"], pct(quiet, 90))),
                ),
                (
                    "search p99 ms",
                    ms(res["search"]["p99"]),
                    ms(pct(quiet, 99)),
                    bl.fmt_ratio(bl.ratio(res["search"]["p99"], pct(quiet, 99))),
                ),
                ("search max ms", ms(res["search"]["max"]), ms(max(quiet)), None),
                (
                    "search p50 vs process floor",
                    bl.fmt_ratio(bl.ratio(s50, pct(floor, 50))),
                    bl.fmt_ratio(bl.ratio(q50, pct(floor, 50))),
                    None,
                ),
                (
                    "searches (exit codes)",
                    len(log.search),
                    " ".join(f"{k}:{v}" for k, v in sorted(log.search_rc.items())),
                    None,
                ),
                ("searches answering indexing:true", log.indexing, None, None),
                ("imports / messages appended", len(log.imports), log.appended, None),
                ("import p50 / p99 ms", ms(res["imports"]["p50"]), ms(res["imports"]["p99"]), None),
                ("rewinds (branch abandoned)", log.rewinds, None, None),
                ("probe: indexed by the import / not yet", log.fresh, log.stale, None),
                (
                    "reindex runs, p50 / max ms",
                    len(log.reindex),
                    ms(res["reindex"]["p50"]),
                    ms(res["reindex"]["max"]),
                ),
                (
                    "reindex --full runs, p50 / max ms",
                    len(log.full),
                    ms(res["reindex"]["fullP50"]),
                    ms(res["reindex"]["fullMax"]),
                ),
                ("max WAL MB", bl.mb(log.wal_max), None, None),
                ("DB MB start / end", bl.mb(db_start), bl.mb(res["dbBytes"]["end"]), None),
                ("active-branch tokens checked / lost", len(sample), len(lost), None),
                ("abandoned / incognito tokens (found: 0)", len(off), len(hidden), None),
                ("ERRORS (must be 0)", len(log.errors), None, None),
            ],
            title=f"soak: {elapsed / 60:.1f} min on {c.messages:,} messages "
            f"(load avg {os.getloadavg()[0]:.1f})",
        )
    )
    for e in log.errors[:20]:
        out.print("ERROR: " + e)
    if args.json:
        print(json.dumps(res, indent=2, default=str))
    return 1 if log.errors else 0


if __name__ == "__main__":
    sys.exit(main())
