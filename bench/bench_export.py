#!/usr/bin/env python3
"""`history --full` and `export` (md, json, jsonl) on one large transcript, process start to
exit, against the floor of writing the same bytes.

The transcript is the largest file of the real corpus (``../shared/corpus/real``; 2.8 MB, 847
lines, 17 inline images) unless ``--file`` names another. It is imported and indexed, then
each command runs ``--runs`` times, interleaved, with stdout a pipe drained by the parent.
Each command's baseline is the process floor plus the time to write its bytes: a Python that
imports what the floor imports (``typer, sqlite3``) and writes that command's own output,
read from a file, to the same kind of pipe. Target (issue #18): each command's p50 <= 1.5x its
baseline's p50, same run.

    .venv/bin/python bench/bench_export.py [--file PATH] [--runs 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

TARGET = 1.5
CORPUS = bl.REPO.parent / "shared" / "corpus" / "real"
FLOOR = "import typer, sqlite3"


def largest_transcript() -> Path:
    files = [p for p in CORPUS.rglob("*.jsonl*") if p.is_file() and not p.name.endswith(".lock")]
    if not files:
        raise SystemExit(f"no transcript under {CORPUS}: pass --file PATH")
    return max(files, key=lambda p: p.stat().st_size)


def bytecode_compiled() -> None:
    """Compile the measured install's modules, as an installed package ships them: with
    PYTHONDONTWRITEBYTECODE set, an editable install would compile every edited module from
    source on every run (1-6 ms a module)."""
    where = "import openclaw_sessions, os; print(os.path.dirname(openclaw_sessions.__file__))"
    pkg = bl.run([sys.executable, "-c", where]).check().stdout.decode().strip()
    bl.run([sys.executable, "-m", "compileall", "-q", pkg]).check((0, 1))  # 1: read-only


def imported(path: Path) -> tuple[Path, str, str]:
    """(state root, agent, session id) of ``path`` imported and indexed in a scratch store."""
    state = bl.scratch("ocs-export-state-")
    env = bl.cli_env(state)
    bl.run([*bl.cli(), "import", str(path), "--reindex", "--quiet"], env).check((0, 4))
    db = next((state / "agents").glob("*/openclaw-sessions.sqlite"))
    with sqlite3.connect(db) as conn:
        (sid,) = conn.execute("SELECT session_id FROM transcripts").fetchone()
    return state, db.parent.name, str(sid)


def core_ms(state: Path, agent: str, sid: str, runs: int) -> tuple[float, float]:
    """p50 in this process of `history --full`'s core call (imports excluded), with the real
    redactor and with one that changes nothing: the difference is the redaction."""
    import time

    sys.path.insert(0, str(bl.REPO))
    from openclaw_sessions.read.history import HistoryOptions, history
    from openclaw_sessions.redact import build_redactor

    opts = HistoryOptions(sid, state, agent=agent, full=True)
    walls: dict[str, list[float]] = {"real": [], "noop": []}
    for _ in range(runs):
        for name, redactor in (("real", build_redactor()), ("noop", bl.noop_redactor())):
            t0 = time.perf_counter()
            history(opts, redactor)
            walls[name].append((time.perf_counter() - t0) * 1000)
    return bl.percentile(walls["real"], 50) or 0.0, bl.percentile(walls["noop"], 50) or 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="the transcript (default: the corpus' largest)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args()
    out = bl.Out(args.json)
    path = args.file or largest_transcript()
    bytecode_compiled()
    state, agent, sid = imported(path)
    env = bl.cli_env(state)
    base = [*bl.cli()]
    cases = {
        "history --full": [*base, "history", sid, "--agent", agent, "--full"],
        "history --full --json": [*base, "history", sid, "--agent", agent, "--full", "--json"],
        "export --format md": [*base, "export", sid, "--agent", agent],
        "export --format json": [*base, "export", sid, "--agent", agent, "--format", "json"],
        "export --format jsonl": [*base, "export", sid, "--agent", agent, "--format", "jsonl"],
    }
    outputs = bl.scratch("ocs-export-out-")
    baselines: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    for label, cmd in cases.items():  # warm-up, and each command's bytes for its baseline
        proc = bl.run(cmd, env, keep_stdout=1 << 30).check()
        f = outputs / f"{len(baselines)}.out"
        f.write_bytes(proc.stdout)
        sizes[label] = len(proc.stdout)
        write = f"{FLOOR}, sys; sys.stdout.buffer.write(open({str(f)!r}, 'rb').read())"
        baselines[label] = [sys.executable, "-c", write]
    raw = path.read_bytes()
    assert (outputs / "4.out").read_bytes() == raw, "export --format jsonl is not byte-exact"
    floor_cmd = [sys.executable, "-c", FLOOR]
    walls: dict[str, list[float]] = {"floor": []}
    for label in cases:
        walls[label] = []
        walls[f"baseline {label}"] = []
    for _ in range(args.runs):
        walls["floor"].append(bl.run(floor_cmd, env).check().wall)
        for label, cmd in cases.items():
            walls[label].append(bl.run(cmd, env).check().wall)
            walls[f"baseline {label}"].append(bl.run(baselines[label], env).check().wall)

    floor = bl.percentile(walls["floor"], 50) or 0.0
    rows, figures = [], {}
    worst = 0.0
    for label in cases:
        p50 = bl.percentile(walls[label], 50) or 0.0
        p90 = bl.percentile(walls[label], 90) or 0.0
        b50 = bl.percentile(walls[f"baseline {label}"], 50) or 0.0
        r = bl.ratio(p50, b50) or 0.0
        worst = max(worst, r)
        rows.append((label, f"{sizes[label]:,}", p50 * 1000, p90 * 1000, b50 * 1000,
                     bl.fmt_ratio(r), bl.verdict(r, TARGET)))  # fmt: skip
        figures[label] = {"bytes": sizes[label], "p50_ms": p50 * 1000, "p90_ms": p90 * 1000,
                          "baseline_p50_ms": b50 * 1000, "ratio": r}  # fmt: skip
    out.print(
        bl.table(
            ["command", "stdout bytes", "p50 ms", "p90 ms", "floor+write p50 ms", "ratio", ""],
            rows,
            title=f"{path.name} ({len(raw):,} bytes), {args.runs} runs each, interleaved",
        )
    )
    out.print(
        f"process floor (python -c '{FLOOR}'): p50 {floor * 1000:.1f} ms; target: each"
        f" command <= {TARGET}x floor+write: worst {bl.fmt_ratio(worst)}"
        f" {bl.verdict(worst, TARGET)}"
    )
    real, noop = core_ms(state, agent, sid, args.runs)
    out.print(
        f"in-process history --full (imports excluded): p50 {real:.1f} ms, of which redaction"
        f" {real - noop:.1f} ms (the same call with a no-op redactor: {noop:.1f} ms)"
    )
    if args.json:
        print(json.dumps({"file": str(path), "bytes": len(raw), "runs": args.runs,
                          "floor_ms": floor * 1000, "cases": figures, "target": TARGET,
                          "core_ms": real, "core_noop_redactor_ms": noop,
                          "pass": worst <= TARGET}))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
