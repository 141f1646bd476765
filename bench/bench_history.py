#!/usr/bin/env python3
"""End-to-end `history` latency (process start to exit) on one long session vs the process floor.

Writes one synthetic v3 transcript of ``--messages`` messages (default 10,000: user turns,
assistant turns with thinking and tool calls, tool results with logs, a rewind every 50 turns
whose abandoned branch stays in the file, a few secret-looking strings and a planted word in
the middle), imports and indexes it, finds the planted word with ``search --json`` and then
runs, ``--runs`` times each (interleaved, after a warm-up):

* ``history KEY --around <hit messageId> --session-id <hit sessionId> --json`` (the target);
* ``history KEY --json`` (the newest page) and ``history KEY --around ...`` as a Rich table;
* the process floor: ``python -c "import typer, sqlite3"`` with the same interpreter.

Reports p50/p90 and p50 ratios to the floor. Target (issue #5): ``--around`` p50 ≤ 1.5x floor.

    .venv/bin/python bench/bench_history.py [--messages 10000] [--runs 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

TARGET = 1.5
KEY = "agent:main:main"
SID = "bench-history-0001"
WORD = "zqhistoryanchor"
_WORDS = (
    "deploy cluster latency rollback migration invoice backup certificate pipeline replica "
    "schema index query release hotfix budget meeting travel booking dashboard alert worker"
).split()


def write_session(path: Path, messages: int, seed: int) -> str:
    """One long transcript; returns the id of the message holding the planted word."""
    rng = random.Random(f"bench-history-{seed}")
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": SID,
            "timestamp": "2026-01-05T00:00:00.000Z",
            "cwd": "/work",
        }
    ]
    leaf: str | None = None
    count = turn = 0
    planted = ""
    t0 = 1_767_571_200_000

    def add(message: dict[str, Any], parent: str | None) -> str:
        nonlocal leaf
        eid = f"{len(lines):08x}"
        ms = t0 + len(lines) * 1500
        message["timestamp"] = ms
        lines.append(
            {
                "type": "message",
                "id": eid,
                "parentId": parent,
                "timestamp": f"{ms}",
                "message": message,
            }
        )
        lines[-1]["timestamp"] = _iso(ms)
        leaf = eid
        return eid

    def words(n: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(n))

    while count < messages:
        turn += 1
        text = words(rng.randint(5, 40))
        if not planted and count >= messages // 2:
            text += f" {WORD}"
        uid = add({"role": "user", "content": [{"type": "text", "text": text}]}, leaf)
        if text.endswith(WORD):
            planted = uid
        count += 1
        if turn % 50 == 0 and count + 2 < messages:  # a rewind: two abandoned messages
            fork = uid
            add({"role": "assistant", "content": [{"type": "text", "text": words(20)}]}, leaf)
            add({"role": "user", "content": [{"type": "text", "text": words(10)}]}, leaf)
            count += 2
            leaf = fork
        for _ in range(rng.randint(0, 2)):
            if count >= messages:
                break
            call = {
                "type": "toolCall",
                "id": f"c{count}",
                "name": "exec",
                "arguments": {"command": f"grep -rn {rng.choice(_WORDS)} ."},
            }
            add(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": words(30), "thinkingSignature": "s" * 200},
                        call,
                    ],
                    "usage": {"input": 900, "output": 80},
                    "api": "x",
                    "provider": "p",
                    "model": "m",
                    "stopReason": "toolUse",
                },
                leaf,
            )
            log = "\n".join(f"src/{rng.choice(_WORDS)}.py:{i}: {words(8)}" for i in range(30))
            if rng.random() < 0.05:
                log += "\nDB_PASSWORD=hunter2hunter2hunter2 sk-fakeabcdefghijklmnopqrstuvwxyz0123"
            add(
                {
                    "role": "toolResult",
                    "toolCallId": f"c{count}",
                    "toolName": "exec",
                    "content": [{"type": "text", "text": log}],
                    "isError": False,
                },
                leaf,
            )
            count += 2
        if count < messages:
            add(
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": words(60)}],
                    "usage": {"input": 1000, "output": 200},
                    "stopReason": "stop",
                },
                leaf,
            )
            count += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return planted


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


def _core_ms(state: Path, hit: dict[str, Any], runs: int) -> float:
    """p50 of the core call in this process (store open, tree walk, window, sanitising)."""
    import time

    sys.path.insert(0, str(bl.REPO))
    from openclaw_sessions.read.history import HistoryOptions, history
    from openclaw_sessions.redact import build_redactor
    from openclaw_sessions.store.state import StateScope

    ctx = StateScope(state, "main")
    opts = HistoryOptions(KEY, state, around=hit["messageId"], session_id=hit["sessionId"])
    redactor = build_redactor(ctx.config.redact_patterns)
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        json.dumps(history(opts, redactor).to_json(), ensure_ascii=False)
        times.append((time.perf_counter() - t0) * 1000)
    return bl.percentile(times[1:], 50) or 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args()
    out = bl.Out(args.json)

    src = bl.scratch("ocs-hist-src-")
    sdir = src / "agents" / "main" / "sessions"
    planted = write_session(sdir / f"{SID}.jsonl", args.messages, args.seed)
    (sdir / "sessions.json").write_text(json.dumps({KEY: {"sessionId": SID}}), "utf-8")
    state = bl.scratch("ocs-hist-state-")
    env = bl.cli_env(state)
    bl.run([*bl.cli(), "import", str(src), "--quiet", "--reindex"], env).check((0, 4))
    hit = json.loads(bl.run([*bl.cli(), "search", WORD, "--json"], env).check().stdout)
    hit = hit["results"][0]
    assert hit["messageId"] == planted, (hit, planted)

    around = [
        *bl.cli(),
        "history",
        KEY,
        "--around",
        hit["messageId"],
        "--session-id",
        hit["sessionId"],
        "--json",
    ]
    cases = {
        "floor: python -c 'import typer, sqlite3'": [sys.executable, "-c", "import typer, sqlite3"],
        "history --around HIT --json": around,
        "history KEY --json (newest page)": [*bl.cli(), "history", KEY, "--json"],
        "history --around HIT (Rich table)": around[:-1],
        "imports only (cli, history, redact, typer's pydantic adapters)": [
            sys.executable,
            "-c",
            "import openclaw_sessions.cli.app, openclaw_sessions.read.history",
        ],
    }
    first = json.loads(bl.run(around, env).check().stdout)
    assert planted in [m["id"] for m in first["messages"]]
    walls: dict[str, list[float]] = {k: [] for k in cases}
    for cmd in cases.values():  # warm-up
        bl.run(cmd, env).check()
    for _ in range(args.runs):
        for label, cmd in cases.items():
            walls[label].append(bl.run(cmd, env).check().wall)

    core = _core_ms(state, hit, args.runs)
    floor = bl.percentile(walls[next(iter(cases))], 50)
    rows, figures = [], {}
    for label, w in walls.items():
        p50, p90 = bl.percentile(w, 50), bl.percentile(w, 90)
        r = bl.ratio(p50, floor)
        rows.append((label, (p50 or 0) * 1000, (p90 or 0) * 1000, bl.fmt_ratio(r)))
        figures[label] = {"p50_ms": (p50 or 0) * 1000, "p90_ms": (p90 or 0) * 1000, "ratio": r}
    target = figures["history --around HIT --json"]["ratio"]
    out.print(
        bl.table(
            ["case", "p50 ms", "p90 ms", "p50/floor"],
            rows,
            title=f"history on one {args.messages:,}-message session, {args.runs} runs each",
        )
    )
    out.print(
        f"window: {len(first['messages'])} messages, {first['bytes']:,} bytes, "
        f"totalMessages {first['totalMessages']:,}"
    )
    out.print(
        f"target --around p50 <= {TARGET}x floor: {bl.fmt_ratio(target)} "
        f"{bl.verdict(target, TARGET)}"
    )
    bound = bl.ratio((floor or 0) + core / 1000, floor)
    out.print(
        f"in-process history --around (the work itself, imports excluded): p50 "
        f"{core:.1f} ms; floor + that = {bl.fmt_ratio(bound)} of the floor"
    )
    figures["in-process history --around"] = {"p50_ms": core, "ratio": bound}
    if args.json:
        print(
            json.dumps(
                {
                    "messages": args.messages,
                    "runs": args.runs,
                    "cases": figures,
                    "target": TARGET,
                    "pass": target is not None and target <= TARGET,
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
