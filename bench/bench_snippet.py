#!/usr/bin/env python3
"""`search` over one pathologically repetitive message vs the same search over a normal corpus.

Builds two state dirs (under /tmp) from the same normal corpus of ``--sessions`` sessions of
``--turns`` user/assistant turns, each mentioning the searched word a few times; the second also
holds one user message of ``'lorem ipsum dolor sit amet ' * --repeat`` (80,000 by default: 2.2
MB, 80,000 matches in one row; FTS5's own snippet() is quadratic there and took 44 s). Both are
imported and indexed, then ``search lorem --json`` runs ``--runs`` times on each (interleaved,
after a warm-up) and, for information, ``search lorem --order recent --json`` and the table
view. Reports p50/p90 and the p50 ratio repetitive/normal. Target (issue #15 B): within the
same order of time, i.e. ratio ≤ 2x.

    .venv/bin/python bench/bench_snippet.py [--repeat 80000] [--sessions 200] [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

TARGET = 2.0
WORD = "lorem"


def _session(sid: str, turns: int, t0: int) -> str:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-05T00:00:00.000Z"}
    ]
    parent = None
    for i in range(turns * 2):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"turn {i} of {sid}: a {WORD} note about deploys, then more words {i * 7}"
        eid = f"{i + 1:08x}"
        ts = t0 + i * 1000
        message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": ts}
        lines.append({"type": "message", "id": eid, "parentId": parent, "message": message})
        parent = eid
    return "".join(json.dumps(x) + "\n" for x in lines)


def build(root: Path, sessions: int, turns: int, repeat: int) -> None:
    sdir = root / "agents" / "main" / "sessions"
    sdir.mkdir(parents=True)
    store = {}
    for n in range(sessions):
        sid = f"bench-normal-{n:04d}"
        (sdir / f"{sid}.jsonl").write_text(_session(sid, turns, 1_767_571_200_000 + n * 10**6))
        store[f"agent:main:s{n}"] = {"sessionId": sid}
    if repeat:
        sid = "bench-repetitive"
        text = "lorem ipsum dolor sit amet " * repeat
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        line = {"type": "message", "id": "0000beef", "parentId": None, "message": message}
        head = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-05T00:00:00Z"}
        (sdir / f"{sid}.jsonl").write_text(json.dumps(head) + "\n" + json.dumps(line) + "\n")
        store["agent:main:repetitive"] = {"sessionId": sid}
    (sdir / "sessions.json").write_text(json.dumps(store))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=80_000, help="repetitions in the one message")
    ap.add_argument("--sessions", type=int, default=200, help="normal sessions (default 200)")
    ap.add_argument("--turns", type=int, default=10, help="user+assistant turns per session")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args()
    out = bl.Out(args.json)
    states = {}
    for name, repeat in (("normal", 0), ("repetitive", args.repeat)):
        state = bl.scratch(f"ocs-snippet-{name}-")
        build(state, args.sessions, args.turns, repeat)
        env = bl.cli_env(state)
        bl.run([*bl.cli(), "import", "--reindex", "--quiet"], env).check()
        states[name] = env
    cases = {
        "relevance --json": [WORD, "--json"],
        "recent --json": [WORD, "--order", "recent", "--json"],
        "table": [WORD],
    }
    times: dict[tuple[str, str], list[float]] = {}
    for i in range(args.runs + 1):
        for case, argv in cases.items():
            for name, env in states.items():
                p = bl.run([*bl.cli(), "search", *argv], env, timeout=600).check()
                if i:  # the first round warms the page cache
                    times.setdefault((case, name), []).append(p.wall)
    rows, figures = [], {}
    for case in cases:
        n50 = bl.percentile(times[(case, "normal")], 50)
        r50 = bl.percentile(times[(case, "repetitive")], 50)
        ratio = bl.ratio(r50, n50)
        figures[case] = {"normal_p50_s": n50, "repetitive_p50_s": r50, "ratio": ratio}
        rows.append([case, n50, bl.percentile(times[(case, "normal")], 90), r50,
                     bl.percentile(times[(case, "repetitive")], 90), bl.fmt_ratio(ratio),
                     bl.verdict(ratio, TARGET)])  # fmt: skip
    out.print(
        bl.table(
            ["search lorem", "normal p50 s", "p90", "repetitive p50 s", "p90", "ratio", "≤2x"],
            rows,
            title=f"one message of 'lorem ipsum dolor sit amet ' x {args.repeat:,} among "
            f"{args.sessions} sessions x {args.turns * 2} messages ({bl.load_note()})",
        )
    )
    if args.json:
        print(json.dumps({"repeat": args.repeat, "sessions": args.sessions, "cases": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
