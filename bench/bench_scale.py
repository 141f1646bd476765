#!/usr/bin/env python3
"""Read paths at two store sizes: does a command cost the same at 300 and at 30,000 sessions?

Builds two state dirs with the same session shapes (``write_state``: per agent, one 48-message
main session, then direct chats, subagents spawned by the main session, threads under a direct
chat, cron runs and a few incognito sessions of 2 to 4 messages each; a rare word in the same
three sessions per agent at every size), imports and indexes each through the CLI, then runs,
``--runs`` times each (interleaved, after a warm-up), at both sizes:

* ``history agent:main:main -n 20 --json`` and ``history … --around <hit> --json``;
* ``search RARE --json`` (operator), ``search RARE --json --as agent:main:main`` and
  ``search RARE --explain --json``;
* ``status --all-agents --json``;
* the process floor: ``python -c "import typer, sqlite3"`` with the same interpreter;

and a no-op ``import`` (nothing changed since the last one) of the large state dir.

Reports per command the p50 at each size, its ratio to that size's floor, and the ratio
between the sizes. Targets (issue #19): history and search --as p50 <= 1.5x the floor and
within +-20% across sizes; status --all-agents --json <= 2x the floor; no-op import <= 1 s
(the issue's 28,000 files).

    .venv/bin/python bench/bench_scale.py [--small 300] [--large 30000] [--runs 9] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as bl  # noqa: E402

RARE = "zqscalerare"
CALLER = "agent:main:main"
TARGET_FLOOR = 1.5
TARGET_STATUS = 2.0
TARGET_SPREAD = 0.2
TARGET_NOOP_S = 1.0
T0 = 1_767_571_200_000
_VOCAB = (
    "deploy cluster latency rollback migration invoice backup certificate pipeline replica "
    "schema index query release hotfix budget meeting travel booking dashboard alert worker "
    "timeout retry cache token queue shard vacuum checkpoint bucket region quota billing "
    "kernel driver socket thread buffer parser lexer compiler linker module package"
).split()


def _shape(agent: str, i: int) -> tuple[str, dict[str, Any], int]:
    """(key, store entry fields, messages) of an agent's i-th session: the same at any size."""
    a = f"agent:{agent}"
    if i == 0:
        return f"{a}:main", {}, 48
    kind = i % 5
    if i % 50 == 49:
        return f"{a}:dashboard:incognito-{i}", {}, 2
    if kind == 1:
        return f"{a}:telegram:direct:u{i}", {}, 4
    if kind == 2:
        return f"{a}:subagent:s{i}", {"spawnedBy": f"{a}:main"}, 2
    if kind == 3:
        return f"{a}:discord:group:g{i}:thread:t{i}", {"parentSessionKey": f"{a}:main"}, 2
    return f"{a}:cron:job{i % 7}:run:r{i}", {}, 3


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def write_session(path: Path, sid: str, messages: int, rng: random.Random, rare_at: int) -> None:
    ms = T0 + rng.randrange(10**9)
    out = [_line({"type": "session", "version": 3, "id": sid, "timestamp": _iso(ms)})]
    parent = None
    for n in range(messages):
        eid = f"{n + 1:08x}"
        words = " ".join(rng.choice(_VOCAB) for _ in range(rng.randint(6, 18)))
        if n == rare_at:
            words += f" {RARE}"
        role = "user" if n % 2 == 0 else "assistant"
        msg = {"role": role, "content": [{"type": "text", "text": words}], "timestamp": ms}
        out.append(
            _line(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": _iso(ms),
                    "message": msg,
                }
            )
        )
        parent, ms = eid, ms + 1500
    path.write_text("".join(out), "utf-8")


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


def write_state(root: Path, sessions: int, agents: int = 2, seed: int = 1) -> dict[str, Any]:
    """A state dir of ``sessions`` sessions split over ``agents`` agents (main, a1, a2…)."""
    names = ["main", *[f"a{i}" for i in range(1, agents)]]
    per = [sessions // agents + (1 if i < sessions % agents else 0) for i in range(agents)]
    hit: dict[str, Any] = {}
    total = 0
    for agent, n in zip(names, per, strict=True):
        rng = random.Random(f"{seed}-{agent}")
        sdir = root / "agents" / agent / "sessions"
        sdir.mkdir(parents=True, exist_ok=True)
        store = {}
        for i in range(n):
            key, entry, messages = _shape(agent, i)
            sid = f"{agent}-{i:06d}"
            rare_at = {0: 24, 1: 1, 2: 0}.get(i, -1)  # the same three sessions at any size
            write_session(sdir / f"{sid}.jsonl", sid, messages, rng, rare_at)
            store[key] = {"sessionId": sid, "updatedAt": T0 + i, **entry}
            total += messages
        (sdir / "sessions.json").write_text(json.dumps(store, indent=1), "utf-8")
        if agent == "main":
            hit = {"sessionId": f"{agent}-{0:06d}", "messageId": f"{25:08x}"}
    return {"sessions": sessions, "messages": total, "files": sessions, "hit": hit}


def build(root: Path, sessions: int, out: bl.Out) -> dict[str, Any]:
    """Write, import and index a state dir (kept and reused under --keep)."""
    ready = root / ".bench-ready"
    if ready.is_file():
        out.log(f"reusing {root}")
        return dict(json.loads(ready.read_text("utf-8")))
    out.log(f"writing {sessions:,} sessions into {root} ...")
    info = write_state(root, sessions)
    env = bl.cli_env(root)
    imp = bl.run([*bl.cli(), "import", "--quiet"], env).check()
    rei = bl.run([*bl.cli(), "reindex", "--all-agents", "--quiet"], env).check()
    out.log(f"{info['messages']:,} messages; import {imp.wall:.1f}s, reindex {rei.wall:.1f}s")
    info.update(import_s=imp.wall, reindex_s=rei.wall)
    ready.write_text(json.dumps(info), "utf-8")
    return info


def commands(hit: dict[str, Any]) -> dict[str, list[str]]:
    ocs = bl.cli()
    return {
        "floor": [sys.executable, "-c", "import typer, sqlite3"],
        "history -n 20 --json": [*ocs, "history", CALLER, "-n", "20", "--json"],
        "history --around --json": [
            *ocs,
            "history",
            CALLER,
            "--around",
            hit["messageId"],
            "--json",
        ],
        "search RARE --json": [*ocs, "search", RARE, "--json"],
        "search RARE --as --json": [*ocs, "search", RARE, "--json", "--as", CALLER],
        "search RARE --explain --json": [*ocs, "search", RARE, "--explain", "--json"],
        "status --all-agents --json": [*ocs, "status", "--all-agents", "--json"],
    }


def sanity(envs: dict[str, dict[str, str]], cmds: dict[str, list[str]]) -> None:
    """Every size measures the same work: the same hits, the same page."""
    seen = {}
    for size, env in envs.items():
        found = json.loads(bl.run(cmds["search RARE --as --json"], env).check().stdout)
        page = json.loads(bl.run(cmds["history --around --json"], env).check().stdout)
        seen[size] = (len(found["results"]), len(page["messages"]))
    if len(set(seen.values())) != 1 or 0 in next(iter(seen.values())):
        raise RuntimeError(f"the sizes do not measure the same work: {seen}")


def time_all(
    envs: dict[str, dict[str, str]], cmds: dict[str, list[str]], runs: int, warmup: int
) -> dict[tuple[str, str], list[float]]:
    walls: dict[tuple[str, str], list[float]] = {}
    for i in range(warmup + runs):
        for size, env in envs.items():
            for label, cmd in cmds.items():
                p = bl.run(cmd, env, timeout=600, keep_stdout=1 << 16)
                if p.rc not in (0, 1):
                    raise RuntimeError(f"{label} ({size}): exit {p.rc}: {p.stderr[-400:]!r}")
                if i >= warmup:
                    walls.setdefault((size, label), []).append(p.wall)
    return walls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=300, help="sessions of the small store")
    ap.add_argument("--large", type=int, default=30_000, help="sessions of the large store")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--keep", type=Path, metavar="DIR", help="keep and reuse the stores in DIR")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args(argv)
    out = bl.Out(args.json)
    base = args.keep if args.keep is not None else bl.scratch("ocs-scale-")
    sizes = {"small": args.small, "large": args.large}
    infos = {s: build(base / f"s{n}", n, out) for s, n in sizes.items()}
    envs = {s: bl.cli_env(base / f"s{n}") for s, n in sizes.items()}
    cmds = commands(infos["large"]["hit"])
    sanity(envs, cmds)
    out.log(f"{len(cmds)} commands x 2 sizes x ({args.warmup} warm-up + {args.runs}) runs ...")
    walls = time_all(envs, cmds, args.runs, args.warmup)
    # One untimed run first: files written within a second of the build's import have no
    # stat recorded yet (too recent to trust); that run records them.
    noop_cmd = [*bl.cli(), "import", "--quiet"]
    noop = [bl.run(noop_cmd, envs["large"]).check().wall for _ in range(4)][1:]
    p50 = {k: bl.percentile(v, 50) or 0.0 for k, v in walls.items()}
    floor = {s: p50[(s, "floor")] for s in sizes}
    rows, figures = [], {}
    for label in cmds:
        small, large = p50[("small", label)], p50[("large", label)]
        rs, rl = bl.ratio(small, floor["small"]), bl.ratio(large, floor["large"])
        spread = bl.ratio(large, small)
        target = _target(label)
        ok = target is None or (rl is not None and rl <= target and rs is not None and rs <= target)
        if label.startswith(("history", "search RARE --as")):
            ok = ok and spread is not None and abs(spread - 1) <= TARGET_SPREAD
        rows.append(
            (
                label,
                small * 1000,
                large * 1000,
                bl.fmt_ratio(rs),
                bl.fmt_ratio(rl),
                bl.fmt_ratio(spread),
                "-" if target is None else f"{target}x",
                "" if label == "floor" else ("ok" if ok else "MISS"),
            )
        )
        figures[label] = {
            "smallMs": small * 1000,
            "largeMs": large * 1000,
            "smallRatio": rs,
            "largeRatio": rl,
            "largeOverSmall": spread,
            "pass": ok,
        }
    noop_p50 = bl.percentile(noop, 50) or 0.0
    title = (
        f"{bl.load_note()}; {args.runs} runs each; small: {sizes['small']:,} sessions "
        f"({infos['small']['messages']:,} messages), large: {sizes['large']:,} sessions "
        f"({infos['large']['messages']:,} messages)"
    )
    heads = [
        "command",
        "small ms",
        "large ms",
        "small/floor",
        "large/floor",
        "large/small",
        "target",
        "",
    ]
    out.print(bl.table(heads, rows, title=title))
    out.print(
        f"no-op import of the large state dir ({infos['large']['files']:,} files): p50 "
        f"{noop_p50:.2f} s (target <= {TARGET_NOOP_S} s: "
        f"{'ok' if noop_p50 <= TARGET_NOOP_S else 'MISS'})"
    )
    if args.json:
        print(
            json.dumps(
                {"sizes": sizes, "stores": infos, "commands": figures, "noopImportS": noop_p50}
            )
        )
    return 0


def _target(label: str) -> float | None:
    if label.startswith(("history", "search RARE --as")):
        return TARGET_FLOOR
    if label.startswith("status"):
        return TARGET_STATUS
    return None


if __name__ == "__main__":
    raise SystemExit(main())
