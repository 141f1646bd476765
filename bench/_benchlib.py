"""Shared helpers of the benchmark scripts (stdlib only): corpora, subprocess timing, tables.

Not a benchmark itself. Corpora and stores always live under /tmp (or wherever ``--keep``
points, but never inside the repository).
"""

from __future__ import annotations

import argparse
import atexit
import cProfile
import functools
import io
import json
import os
import pstats
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import gen_corpus

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
TMP = Path(os.environ.get("OCS_BENCH_TMP", "/tmp"))
DB_NAME = "openclaw-sessions.sqlite"

# Every script plants the same words so one kept corpus serves all of them.
PLANT = ("zqplantalpha", "zqplantbravo", "zqplantcharlie", "zqplantdelta", "zqplantecho")


# --------------------------------------------------------------------------------------------
# Arguments and output
# --------------------------------------------------------------------------------------------


def common_args(ap: argparse.ArgumentParser, default_messages: int, *, multi: bool = False) -> None:
    if multi:
        ap.add_argument(
            "--messages",
            type=int,
            nargs="+",
            default=[default_messages],
            help=f"one or more corpus sizes in messages (default {default_messages})",
        )
    else:
        ap.add_argument(
            "--messages",
            type=int,
            default=default_messages,
            help=f"corpus size in messages (default {default_messages})",
        )
    ap.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep and reuse corpora (and prepared stores) under DIR; DIR may also be one "
        "corpus made by gen_corpus.py (it has a manifest.json)",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--agents", type=int, default=2)


class Out:
    """Human tables go to stdout, unless --json: then they go to stderr and JSON to stdout."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.stream = sys.stderr if as_json else sys.stdout

    def print(self, *parts: Any) -> None:
        print(*parts, file=self.stream, flush=True)

    def log(self, msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "") -> str:
    cells = [[_cell(c) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))

    def line(r: Sequence[str]) -> str:
        out = []
        for i, c in enumerate(r):
            out.append(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]))
        return "  ".join(out).rstrip()

    parts = [title] if title else []
    parts += [line(headers), "  ".join("-" * w for w in widths)]
    parts += [line(r) for r in cells]
    return "\n".join(parts)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}" if abs(v) >= 0.1 else f"{v:.3f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def load_note() -> str:
    """Machine load: other processes make every absolute figure noisier."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def verdict(value: float | None, limit: float, *, below: bool = True) -> str:
    if value is None:
        return "n/a"
    ok = value <= limit if below else value >= limit
    return "PASS" if ok else "FAIL"


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (q in 0..100)."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def mb(n: float) -> float:
    return n / 1e6


# --------------------------------------------------------------------------------------------
# Corpora
# --------------------------------------------------------------------------------------------


def _outside_repo(p: Path) -> Path:
    r = p.expanduser().resolve()
    if r == REPO or REPO in r.parents:
        sys.exit(f"error: {p} is inside the repository; put corpora under /tmp")
    return r


_CLEANUP: list[Path] = []


def _cleanup() -> None:
    for p in _CLEANUP:
        shutil.rmtree(p, ignore_errors=True)


atexit.register(_cleanup)


def scratch(prefix: str) -> Path:
    """A fresh directory under /tmp, removed at exit."""
    TMP.mkdir(parents=True, exist_ok=True)
    p = Path(tempfile.mkdtemp(prefix=prefix, dir=TMP))
    _CLEANUP.append(p)
    return p


@dataclass
class Corpus:
    path: Path
    manifest: dict[str, Any]
    generated: bool
    gen_seconds: float
    cache: Path | None  # where prepared stores may be kept (None: throwaway)

    @property
    def messages(self) -> int:
        return int(self.manifest["messages"]["total"])

    @property
    def transcript_bytes(self) -> int:
        return int(self.manifest["bytes"]["transcripts"])

    def planted_in(self, agent: str = "main") -> list[dict[str, Any]]:
        return [p for p in self.manifest.get("planted", []) if p["agent"] == agent]


def _params_match(m: dict[str, Any], messages: int, cjk: float, seed: int, agents: int) -> bool:
    p = m.get("params", {})
    return (
        p.get("messages") == messages
        and abs(float(p.get("cjkRatio", -1)) - cjk) < 1e-9
        and p.get("seed") == seed
        and p.get("agents") == agents
        and list(p.get("plant", [])) == list(PLANT)
    )


def corpus(
    keep: Path | None,
    messages: int,
    *,
    cjk_ratio: float = 0.2,
    seed: int = 1,
    agents: int = 2,
    out: Out | None = None,
) -> Corpus:
    """Generate (or reuse, with --keep) a corpus; throwaway ones are removed at exit."""
    if keep is not None:
        keep = _outside_repo(keep)
        if (keep / "manifest.json").is_file() and (keep / "agents").is_dir():
            m = json.loads((keep / "manifest.json").read_text("utf-8"))
            if out and m["params"]["messages"] != messages:
                out.log(f"note: {keep} holds {m['params']['messages']} messages; using it as is")
            return Corpus(keep, m, False, 0.0, keep.parent / (keep.name + ".stores"))
        name = f"n{messages}-cjk{cjk_ratio:g}-s{seed}-a{agents}"
        path = keep / name
        mpath = path / "manifest.json"
        if mpath.is_file():
            m = json.loads(mpath.read_text("utf-8"))
            if _params_match(m, messages, cjk_ratio, seed, agents):
                if out:
                    out.log(f"reusing corpus {path}")
                return Corpus(path, m, False, 0.0, keep / (name + ".stores"))
        cache: Path | None = keep / (name + ".stores")
        shutil.rmtree(cache, ignore_errors=True)  # stores of an older corpus are stale
    else:
        path = scratch("ocs-corpus-")
        cache = None
    if out:
        out.log(f"generating {messages:,} messages (cjk {cjk_ratio:g}) into {path} ...")
    t0 = time.perf_counter()
    m = gen_corpus.generate(
        path,
        messages,
        agents=agents,
        seed=seed,
        cjk_ratio=cjk_ratio,
        plant=list(PLANT),
        force=True,
    )
    dt = time.perf_counter() - t0
    if out:
        out.log(
            f"generated {mb(m['bytes']['total']):.1f} MB, {m['files']['transcripts']:,} files"
            f" in {dt:.1f}s"
        )
    return Corpus(path, m, True, dt, cache)


def transcript_files(root: Path) -> list[Path]:
    """The files `import` reads by default: current transcripts and reset archives."""
    out = []
    for sdir in sorted((root / "agents").glob("*/sessions")):
        for f in sorted(sdir.iterdir()):
            n = f.name
            if f.is_file() and (n.endswith(".jsonl") or ".jsonl.reset." in n):
                if not n.endswith(".trajectory.jsonl"):
                    out.append(f)
    return out


# --------------------------------------------------------------------------------------------
# The CLI and subprocesses
# --------------------------------------------------------------------------------------------


def cli() -> list[str]:
    """The `openclaw-sessions` entry point of this interpreter's environment, its package's
    bytecode written first (as pip writes it for an installed tool): an editable checkout run
    with PYTHONDONTWRITEBYTECODE=1 would otherwise compile every changed module in every timed
    process."""
    _compiled()
    exe = Path(sys.executable).parent / "openclaw-sessions"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("openclaw-sessions")
    if found:
        return [found]
    return [sys.executable, "-m", "openclaw_sessions"]


@functools.cache
def _compiled() -> None:
    import compileall

    import openclaw_sessions

    compileall.compile_dir(Path(openclaw_sessions.__file__).parent, quiet=1)


def cli_env(state: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        OPENCLAW_STATE_DIR=str(state),
        OPENCLAW_SESSIONS_NO_BACKGROUND="1",
        NO_COLOR="1",
        COLUMNS="200",
    )
    env.update(extra)
    return env


@dataclass
class Proc:
    cmd: list[str]
    rc: int
    wall: float
    maxrss_mb: float
    user_s: float
    sys_s: float
    stdout: bytes
    stderr: bytes
    stdout_bytes: int
    timed_out: bool = False

    def check(self, ok: Sequence[int] = (0,)) -> Proc:
        if self.rc not in ok:
            err = self.stderr.decode(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(self.cmd)} exited {self.rc}: {err}")
        return self


def run(
    cmd: Sequence[str],
    env: dict[str, str] | None = None,
    *,
    timeout: float = 3600.0,
    keep_stdout: int = 1 << 20,
    cwd: Path | None = None,
) -> Proc:
    """Run a process; wall time from spawn to exit, and its own peak RSS (wait4 rusage).

    stdout and stderr go to pipes drained by threads (so a tool that optimises for /dev/null
    does not get an unfair edge); only the first ``keep_stdout`` bytes are kept.
    """
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    counts = [0]

    def drain(stream: Any, sink: list[bytes], limit: int, count: bool) -> None:
        kept = 0
        while True:
            b = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
            if not b:
                break
            if count:
                counts[0] += len(b)
            if kept < limit:
                sink.append(b[: limit - kept])
                kept += len(b)

    t0 = time.perf_counter()
    p = subprocess.Popen(
        list(cmd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )
    threads = [
        threading.Thread(target=drain, args=(p.stdout, out_chunks, keep_stdout, True)),
        threading.Thread(target=drain, args=(p.stderr, err_chunks, 1 << 20, False)),
    ]
    for t in threads:
        t.daemon = True
        t.start()
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        try:
            p.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.daemon = True
    timer.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    assert p.stdout and p.stderr
    p.stdout.close()
    p.stderr.close()
    return Proc(
        list(cmd),
        p.returncode,
        wall,
        ru.ru_maxrss / 1024.0,
        ru.ru_utime,
        ru.ru_stime,
        b"".join(out_chunks),
        b"".join(err_chunks),
        counts[0],
        timed_out.is_set(),
    )


# --------------------------------------------------------------------------------------------
# Stores
# --------------------------------------------------------------------------------------------


def db_files(state: Path) -> list[Path]:
    return sorted((state / "agents").glob(f"*/{DB_NAME}"))


def db_bytes(state: Path) -> int:
    total = 0
    for f in db_files(state):
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(f) + suffix)
            if p.exists():
                total += p.stat().st_size
    return total


def scalar(state: Path, sql: str, *params: Any) -> int:
    """Sum of one integer query over every agent database."""
    total = 0
    for f in db_files(state):
        conn = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        try:
            total += int(conn.execute(sql, params).fetchone()[0] or 0)
        finally:
            conn.close()
    return total


def import_and_index(c: Corpus, state: Path, out: Out | None = None) -> dict[str, float]:
    """`import CORPUS` then `reindex`, through the CLI; returns the wall times."""
    env = cli_env(state)
    if out:
        out.log(f"importing {c.path} into {state} ...")
    imp = run([*cli(), "import", str(c.path), "--quiet"], env).check((0, 4))
    if out:
        out.log(f"import {imp.wall:.1f}s (peak RSS {imp.maxrss_mb:.0f} MB); reindexing ...")
    rei = run([*cli(), "reindex", "--all-agents", "--quiet"], env).check()
    if out:
        out.log(f"reindex {rei.wall:.1f}s (peak RSS {rei.maxrss_mb:.0f} MB)")
    return {
        "import_s": imp.wall,
        "import_rss_mb": imp.maxrss_mb,
        "reindex_s": rei.wall,
        "reindex_rss_mb": rei.maxrss_mb,
    }


def prepared_store(c: Corpus, out: Out | None = None) -> tuple[Path, dict[str, float] | None]:
    """An imported and indexed store for the corpus: kept next to it with --keep."""
    if c.cache is None:
        state = scratch("ocs-state-")
        return state, import_and_index(c, state, out)
    state = c.cache / "indexed"
    if (state / ".bench-ready").exists():
        if out:
            out.log(f"reusing indexed store {state}; reindex (rules may have changed) ...")
        p = run([*cli(), "reindex", "--all-agents", "--quiet"], cli_env(state)).check()
        if out:
            out.log(f"reindex {p.wall:.1f}s")
        return state, None
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    times = import_and_index(c, state, out)
    (state / ".bench-ready").write_text(json.dumps(times))
    return state, times


def imported_store(c: Corpus, out: Out | None = None) -> tuple[Path, float | None]:
    """A fresh, imported but never indexed store (a copy of a kept one with --keep).

    Returns (state dir, import seconds or None when copied from the cache).
    """
    work = scratch("ocs-state-")
    if c.cache is not None and (c.cache / "imported" / ".bench-ready").exists():
        if out:
            out.log(f"copying the kept imported store {c.cache / 'imported'} ...")
        shutil.copytree(c.cache / "imported", work, dirs_exist_ok=True)
        return work, None
    if out:
        out.log(f"importing {c.path} into {work} ...")
    imp = run([*cli(), "import", str(c.path), "--quiet"], cli_env(work)).check((0, 4))
    if out:
        out.log(f"import {imp.wall:.1f}s (peak RSS {imp.maxrss_mb:.0f} MB)")
    if c.cache is not None:
        dst = c.cache / "imported"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(work, dst)
        (dst / ".bench-ready").write_text(json.dumps({"import_s": imp.wall}))
    return work, imp.wall


# --------------------------------------------------------------------------------------------
# Profiling
# --------------------------------------------------------------------------------------------


@dataclass
class Profile:
    seconds: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""


def profile(fn: Callable[[], Any], top: int = 25, sort: str = "tottime") -> Profile:
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    dt = time.perf_counter() - t0
    st = pstats.Stats(prof)
    rows = []
    stats: dict[Any, Any] = st.stats  # type: ignore[attr-defined]
    for (fname, line, func), (_cc, nc, tt, ct, _callers) in stats.items():
        rows.append(
            {
                "function": f"{_short(fname)}:{line}({func})",
                "calls": nc,
                "tottime": tt,
                "cumtime": ct,
            }
        )
    rows.sort(key=lambda r: r[sort], reverse=True)
    buf = io.StringIO()
    tbl = table(
        ["function", "calls", "tottime s", "% of run", "cumtime s"],
        [
            (
                r["function"],
                r["calls"],
                r["tottime"],
                f"{100 * r['tottime'] / dt:.1f}%",
                r["cumtime"],
            )
            for r in rows[:top]
        ],
    )
    buf.write(tbl)
    return Profile(dt, rows[:top], buf.getvalue())


def _short(fname: str) -> str:
    for marker in ("openclaw_sessions/", "site-packages/", "lib/python3"):
        i = fname.find(marker)
        if i >= 0:
            return fname[i:]
    return fname


def noop_redactor() -> Any:
    """An object with the Redactor interface that changes nothing."""
    from openclaw_sessions.redact import Redacted  # no spans: changed is False

    class NoopRedactor:
        fingerprint = "bench-noop"
        patterns: tuple[str, ...] = ()

        def redact_text(self, text: str) -> str:
            return text

        def redact(self, text: str) -> Redacted:
            return Redacted(text)

    return NoopRedactor()
