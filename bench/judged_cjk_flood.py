#!/usr/bin/env python3
"""Two-character Chinese words under a flood (issue #38 point 1, "CJK-only hit score").

A two-character word is one bigram: only the CJK bigram index finds it, so its hits are scored
by that index alone. For each word the store holds the session that settles it (4 messages), a
cron job that repeats a short reminder of it 30 times, and a 200-message group chat that names
it in passing every tenth message, over a generated background. The same situations are built
with made-up Latin words. Reported for the operator's order (``relevance``) and upstream's:
hit@1 and MRR@10 of the settling session, per script.

Usage::

    nice -n 10 python bench/judged_cjk_flood.py [--background 300]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import gen_corpus, judged  # noqa: E402

WORDS = (
    "燃气 车位 网关 签证 发票 快递 房租 体检 疫苗 驾照"
    " 护照 年假 工资 股票 基金 贷款 装修 搬家 宠物 牙医"
).split()
DAY = 86_400_000
T0 = 1_767_225_600_000


def build(root: Path, background: int) -> list[dict[str, Any]]:
    gen_corpus.generate(root, background, agents=1, seed=38, cjk_ratio=0.3, force=True)
    sdir = root / "agents" / "main" / "sessions"
    store = json.loads((sdir / "sessions.json").read_text("utf-8"))
    w = judged._Writer(sdir)
    rng = random.Random("flood:38")
    queries = []
    latin = [judged._latin_term(rng, i) for i in range(len(WORDS))]
    for i, (word, cjk) in enumerate([*((t, True) for t in WORDS), *((t, False) for t in latin)]):
        ts = T0 + rng.randint(0, 90) * DAY
        turns = judged._discussion(rng, word, cjk)
        sid = w.session(f"agent:main:discord:channel:{8000 + i}", ts, turns)
        reminder = f"提醒：检查{word}" if cjk else f"Reminder: check {word} status"
        flood = []
        for j in range(30):
            flood += [("user", reminder), ("assistant", "OK" if j % 2 else "Done.")]
        w.session(f"agent:main:cron:job{i}", T0 + rng.randint(0, 90) * DAY, flood)
        chat = [
            ("user" if j % 2 == 0 else "assistant", judged._says(rng, cjk))
            if j % 10
            else ("user", f"还有{word}" if cjk else f"and {word} too")
            for j in range(200)
        ]
        w.session(f"agent:main:telegram:group:{9000 + i}", T0 + rng.randint(0, 90) * DAY, chat)
        queries.append({"query": word, "relevant": sid, "cjk": cjk})
    store.update(w.entries)
    (sdir / "sessions.json").write_text(json.dumps(store), "utf-8")
    env = {**os.environ, "OPENCLAW_SESSIONS_NO_BACKGROUND": "1"}
    cmd = [sys.executable, "-m", "openclaw_sessions", "import", str(root), "--reindex", "--quiet"]
    subprocess.run([*cmd, "--state-dir", str(root / "state")], check=True, env=env)
    os.environ["OPENCLAW_SESSIONS_NO_BACKGROUND"] = "1"
    return queries


def run(queries: list[dict[str, Any]], state: Path) -> dict[str, dict[str, dict[str, float]]]:
    from openclaw_sessions.read.search import SearchOptions, search

    out: dict[str, dict[str, dict[str, float]]] = {}
    for order in ("relevance", "upstream"):
        for q in queries:
            hits = search(SearchOptions(q["query"], state_dir=state, order=order)).hits
            m = judged.metrics(judged._ranked_sessions(hits), {q["relevant"]})
            acc = out.setdefault(order, {}).setdefault("cjk" if q["cjk"] else "latin", {"n": 0})
            acc["n"] += 1
            for k in ("hit@1", "mrr@10"):
                acc[k] = acc.get(k, 0.0) + m[k] / len(WORDS)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--background", type=int, default=300, help="generated sessions around")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        queries = build(root, args.background)
        got = run(queries, root / "state")
    for order, per in got.items():
        for script, m in sorted(per.items()):
            n, hit, mrr = m["n"], m["hit@1"], m["mrr@10"]
            print(f"{order:<10} {script:<6} n={n:>3} hit@1={hit:.2f} mrr={mrr:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
