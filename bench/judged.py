#!/usr/bin/env python3
"""The judged query set: does the first page answer the question?

Builds (deterministically, from fixed seeds) a state directory that holds what real stores
hold, and 300+ queries with the sessions that answer them (qrels), then measures hit@1, MRR@10
and nDCG@10 per slice for the operator's order (``relevance``) and upstream's (``upstream``:
bm25, then time). Relevance is by session id (a generation of a key).

The store: the bundled sample, a generated background (bench/gen_corpus.py: ops, coding,
travel chat in eight languages, 30% CJK) and these situations, each with a topic of its own
(a made-up word, or a CJK term for about a third of the queries):

- ``exact``: a session mentions the topic once (the sample's own words too);
- ``flood_cron``: the session that settled the topic, and an automation that repeats a short
  reminder about it thirty times (a cron or hook key, or a session repeating itself:
  OpenClaw issues #20202 and #105131);
- ``flood_announce``: the subagent session that did the work, and its announce injected 5-10
  times into a channel session;
- ``marathon``: the session that discussed the topic, and a 400-message session that names it
  in passing in one short line;
- ``long_settled``: the same long sessions settle other topics in several messages, and a
  short session names each once (the long session answers: length alone must not bury it);
- ``superseded``: an old session decided the topic one way, a newer one changed it (the newer
  answers);
- ``passing``: the session that discussed the topic, and three others that name it once;
- ``operators``: ``"phrase"``, ``OR``, ``-word``, ``word*`` and parentheses over the topics
  above, Latin and CJK.

Usage::

    python bench/judged.py              # build in a temp dir, print the table
    python bench/judged.py --check      # and fail (exit 1) below bench/judged/floors.json
    python bench/judged.py --write-qrels  # rewrite bench/judged/qrels.jsonl

tests/test_judged.py runs the check in CI. Stdlib and openclaw_sessions only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from bench import gen_corpus  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QRELS = HERE / "judged" / "qrels.jsonl"
FLOORS = HERE / "judged" / "floors.json"
SLICES = (
    "exact",
    "flood_cron",
    "flood_announce",
    "marathon",
    "long_settled",
    "superseded",
    "passing",
    "operators",
)
ORDERS = ("relevance", "upstream")
_T0 = 1_768_000_000_000  # 2026-01-09
_DAY = 86_400_000
_HAN = (
    "数据库连接超时服务器部署配置迁移账单发票客户预算合同会议日程航班酒店签证护照报告"
    "缓存队列集群节点镜像容器网络证书域名监控告警日志备份恢复索引查询权限密钥令牌接口"
)
_KANA = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモラリルレロ"
_SYL = "ba be bi bo bu da de di do du fa fe fi fo ga ge gi go ka ke ki ko la le li lo lu".split()
_FILLER = (
    "we looked at the logs and the numbers again",
    "the team agreed after a long back and forth",
    "this follows the review from last week",
    "the dashboard shows the same pattern as before",
    "I checked the configuration and the notes",
    "there were a few open questions about the rollout",
)
_ZH_FILLER = (
    "我们又看了一遍日志和数字",
    "团队讨论了很久之后达成一致",
    "这是上周评审的后续",
    "仪表盘显示的规律和之前一样",
)


def _cjk_term(rng: random.Random) -> str:
    pool = _HAN if rng.random() < 0.75 else _KANA
    return "".join(rng.choice(pool) for _ in range(3)) + rng.choice(_HAN)


def _latin_term(rng: random.Random, i: int) -> str:
    return (
        "".join(rng.choice(_SYL) for _ in range(3))
        + "x"
        + "".join(rng.choice(_SYL) for _ in range(1))
        + str(i % 10)
    )


class _Writer:
    """Transcripts and session store entries of one agent's sessions directory."""

    def __init__(self, sdir: Path) -> None:
        self.sdir = sdir
        self.entries: dict[str, Any] = {}
        self.n = 0

    def session(self, key: str, ts0: int, turns: list[tuple[str, str]], **meta: Any) -> str:
        self.n += 1
        sid = f"7a11d9e0-0000-4000-8000-{self.n:012d}"
        iso = datetime.fromtimestamp(ts0 / 1000, tz=UTC).isoformat(timespec="milliseconds")
        lines = [{"type": "session", "version": 3, "id": sid, "timestamp": iso, "cwd": "/w"}]
        parent = None
        for j, (role, text) in enumerate(turns):
            ms = ts0 + (j + 1) * 60_000
            eid = f"{self.n:04x}{j:04x}"
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if role == "assistant":
                content.insert(0, {"type": "thinking", "thinking": "Consider the request."})
            lines.append(
                {
                    "type": "message",
                    "id": eid,
                    "parentId": parent,
                    "timestamp": datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(
                        timespec="milliseconds"
                    ),
                    "message": {"role": role, "content": content},
                }
            )
            parent = eid
        path = self.sdir / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
        self.entries[key] = {"sessionId": sid, "updatedAt": ts0 + len(turns) * 60_000, **meta}
        return sid


def _says(rng: random.Random, cjk: bool) -> str:
    return rng.choice(_ZH_FILLER) if cjk else rng.choice(_FILLER)


def _discussion(rng: random.Random, t: str, cjk: bool, n: int = 4) -> list[tuple[str, str]]:
    """The session that settles a topic: several longer messages that name it."""
    if cjk:
        lines = [
            ("user", f"关于{t}的问题，{_says(rng, True)}，我们应该怎么处理？"),
            ("assistant", f"{t}的情况是这样：{_says(rng, True)}，建议先检查配置再决定。"),
            ("user", f"好的，{t}就按这个方案来，{_says(rng, True)}。"),
            ("assistant", f"已确定：{t}采用新的方案，{_says(rng, True)}，下周复查。"),
        ]
    else:
        lines = [
            ("user", f"What should we do about {t}? {_says(rng, False)}, and it keeps coming up."),
            ("assistant", f"For {t} the cause is clear: {_says(rng, False)}. I suggest the fix."),
            ("user", f"Fine, let us settle {t} that way; {_says(rng, False)}."),
            ("assistant", f"Settled: {t} uses the new approach now, {_says(rng, False)}."),
        ]
    return lines[:n]


def _chatter(rng: random.Random, n: int, cjk: bool) -> list[tuple[str, str]]:
    return [
        ("user" if j % 2 == 0 else "assistant", _says(rng, cjk and j % 3 == 0)) for j in range(n)
    ]


def build(root: Path, background: int = 1500) -> list[dict[str, Any]]:
    """Write the state directory under ``root`` and return the queries with their qrels."""
    gen_corpus.generate(root, background, agents=1, seed=27, cjk_ratio=0.3, force=True)
    sdir = root / "agents" / "main" / "sessions"
    store = json.loads((sdir / "sessions.json").read_text("utf-8"))
    w = _Writer(sdir)
    queries: list[dict[str, Any]] = []
    rng = random.Random("judged:27")
    used: set[str] = set()

    def topic(i: int, cjk: bool) -> str:
        while True:
            t = _cjk_term(rng) if cjk else _latin_term(rng, i)
            if t not in used:
                used.add(t)
                return t

    def q(slice_: str, text: str, rel: list[str], cjk: bool, op: str | None = None) -> None:
        item = {"slice": slice_, "query": text, "relevant": rel, "cjk": cjk}
        queries.append({**item, "op": op} if op else item)

    def when() -> int:
        return _T0 + rng.randint(0, 120) * _DAY + rng.randint(0, _DAY)

    topics: dict[str, list[tuple[str, str, bool]]] = {}  # slice -> (topic, relevant sid, cjk)

    def cjk_of(i: int) -> bool:
        return i % 20 < 7  # 35%

    for i in range(70):  # exact
        cjk = cjk_of(i)
        t = topic(i, cjk)
        turns = _chatter(rng, 3, cjk)
        turns.append(("assistant", f"备注：{t}。" if cjk else f"Note for later: {t} is the name."))
        turns += _chatter(rng, 2, cjk)
        sid = w.session(f"agent:main:telegram:direct:{9000 + i}", when(), turns)
        topics.setdefault("exact", []).append((t, sid, cjk))
        q("exact", t, [sid], cjk)
    for i in range(50):  # flood_cron
        cjk = cjk_of(i)
        t = topic(i, cjk)
        sid = w.session(f"agent:main:discord:channel:{7000 + i}", when(), _discussion(rng, t, cjk))
        start = when()
        kind = i % 3
        reminder = f"提醒：检查{t}" if cjk else f"Reminder: check {t} status"
        flood = []
        for j in range(30):
            stamp = datetime.fromtimestamp((start + j * _DAY) / 1000, tz=UTC).strftime(
                "%Y-%m-%d %H:%M"
            )
            line = f"[{stamp}] {reminder}" if i % 4 else f"{reminder} (run {j + 1})"
            flood += [("user", line), ("assistant", "OK" if j % 2 else "Done.")]
        key = (
            f"agent:main:cron:job{i}"
            if kind == 0
            else f"agent:main:hook:watch{i}"
            if kind == 1
            else f"agent:main:slack:channel:bot{i}"
        )
        w.session(key, start, flood)
        topics.setdefault("flood_cron", []).append((t, sid, cjk))
        q("flood_cron", t, [sid], cjk)
    for i in range(45):  # flood_announce
        cjk = cjk_of(i)
        t = topic(i, cjk)
        ts = when()
        sid = w.session(
            f"agent:main:subagent:{i:04x}aa",
            ts,
            _discussion(rng, t, cjk),
            spawnedBy=f"agent:main:discord:channel:{8000 + i}",
        )
        ann = f"[公告] 子任务完成：{t}" if cjk else f"[announce] subagent finished: {t} done"
        turns = _chatter(rng, 2, cjk) + [("user", ann)] * (5 + i % 6) + _chatter(rng, 2, cjk)
        w.session(f"agent:main:discord:channel:{8000 + i}", ts + 3_600_000, turns)
        topics.setdefault("flood_announce", []).append((t, sid, cjk))
        q("flood_announce", t, [sid], cjk)
    marathon_terms: list[list[str]] = [[] for _ in range(5)]
    for i in range(45):  # marathon
        cjk = cjk_of(i)
        t = topic(i, cjk)
        sid = w.session(f"agent:main:telegram:group:{6000 + i}", when(), _discussion(rng, t, cjk))
        marathon_terms[i % 5].append(t)
        topics.setdefault("marathon", []).append((t, sid, cjk))
        q("marathon", t, [sid], cjk)
    for m, terms in enumerate(marathon_terms):
        turns = _chatter(rng, 400, m % 2 == 0)
        for k, t in enumerate(terms):
            turns[20 + k * 40] = (
                "user",
                f"顺便{t}" if any(c in _HAN + _KANA for c in t) else f"also {t}?",
            )
        settled = []  # topics this long session really settles (and others only name)
        for k in range(6):
            cjk = cjk_of(m * 6 + k)
            u = topic(k, cjk)
            turns[30 + k * 40 : 34 + k * 40] = _discussion(rng, u, cjk)
            passing = [("user", f"还有{u}" if cjk else f"and {u} too")]
            w.session(f"agent:main:signal:group:{3000 + m * 6 + k}", when(), passing)
            settled.append((u, cjk))
        long_sid = w.session(
            f"agent:main:main{'' if m == 0 else f'-{m}'}", _T0 + m * 7 * _DAY, turns
        )
        for u, cjk in settled:
            q("long_settled", u, [long_sid], cjk)
    for i in range(40):  # superseded
        cjk = cjk_of(i)
        t = topic(i, cjk)
        old_ts = when()
        if cjk:
            old = [
                ("user", f"{t}用哪个方案？"),
                ("assistant", f"决定：{t}用旧方案A，{_says(rng, True)}。"),
            ]
            new = [("user", f"{t}要改吗？"), ("assistant", f"决定更新：{t}改用方案B，不再用A。")]
            query = f"{t} 决定"
        else:
            old = [
                ("user", f"Which store for {t}?"),
                ("assistant", f"Decision: {t} goes with plan A, {_says(rng, False)}."),
            ]
            new = [
                ("user", f"Revisit {t}?"),
                ("assistant", f"New decision: {t} moves to plan B, plan A is dropped."),
            ]
            query = f"{t} decision"
        if i % 2:  # the old decision was confirmed once more: more evidence than the new one
            old.append(("user", old[1][1].replace("A", "A (confirmed)")))
        w.session(f"agent:main:telegram:direct:{5000 + i}", old_ts, _chatter(rng, 2, cjk) + old)
        sid = w.session(
            f"agent:main:telegram:direct:{5500 + i}",
            old_ts + 60 * _DAY,
            new + _chatter(rng, 2, cjk),
        )
        topics.setdefault("superseded", []).append((t, sid, cjk))
        q("superseded", query, [sid], cjk)
    for i in range(45):  # passing
        cjk = cjk_of(i)
        t = topic(i, cjk)
        sid = w.session(f"agent:main:signal:direct:{4000 + i}", when(), _discussion(rng, t, cjk))
        for k in range(3):
            turns = _chatter(rng, 3, cjk) + [("user", f"还有{t}" if cjk else f"and {t} too")]
            w.session(f"agent:main:signal:direct:{4100 + i * 3 + k}", when(), turns)
        topics.setdefault("passing", []).append((t, sid, cjk))
        q("passing", t, [sid], cjk)
    _operators(topics, q)
    _sample(root, store, queries)
    store.update(w.entries)
    (sdir / "sessions.json").write_text(json.dumps(store, ensure_ascii=False), "utf-8")
    return queries


def _operators(topics: dict[str, list[tuple[str, str, bool]]], q: Callable[..., None]) -> None:
    """Each operator over the situations above: the relevant sessions follow from them."""
    for i in range(6):
        for cjk in (False, True):
            t, sid, _ = [x for x in topics["flood_cron"] if x[2] == cjk][i]
            t2, sid2, _ = [x for x in topics["passing"] if x[2] == cjk][i]
            e, esid, _ = [x for x in topics["exact"] if x[2] == cjk][i]
            settle = "采用新的方案" if cjk else "uses the new approach"
            minus = "提醒" if cjk else "reminder"
            q("operators", f'{t} "{settle}"', [sid], cjk, op="phrase")
            q("operators", f"{t} OR {t2}", [sid, sid2], cjk, op="or")
            q("operators", f"{t} -{minus}", [sid], cjk, op="exclude")
            q("operators", f"({t} OR {e}) -{minus}", [sid, esid], cjk, op="parentheses")
            prefix = f"{t[:2]}* {t[2:]}" if cjk else f"{t[:-3]}*"  # a CJK run: a substring
            q("operators", prefix, [sid], cjk, op="prefix")


def _sample(root: Path, store: dict[str, Any], queries: list[dict[str, Any]]) -> None:
    """The bundled sample, its sessions renamed into this store, with its own exact words."""
    src = REPO / "sample" / "state" / "agents" / "main" / "sessions"
    sdir = root / "agents" / "main" / "sessions"
    for f in sorted(src.iterdir()):
        if f.name != "sessions.json":
            shutil.copy(f, sdir / f.name)
    store.update(json.loads((src / "sessions.json").read_text("utf-8")))
    sid = "0b5c6f1e-{}-4a4a-9c9c-00000000000{}".format
    for text, rel in (
        ("migration 0042", sid("1111", "1")),
        ("nightly deploy", sid("1111", "1")),
        ("量子猫プロジェクト", sid("2222", "2")),
        ("node pool ran out", sid("3333", "3")),
        ("Lyon invoice audit", sid("0000", "a")),  # a reset archive
    ):
        cjk = not text.isascii()
        queries.append({"slice": "exact", "query": text, "relevant": [rel], "cjk": cjk})


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


def _ranked_sessions(hits: Any) -> list[str]:
    out: list[str] = []
    for h in hits:
        if h.session_id not in out:
            out.append(h.session_id)
    return out


def metrics(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    top = ranked[:10]
    rr = next((1.0 / (i + 1) for i, s in enumerate(top) if s in relevant), 0.0)
    dcg = sum(1.0 / math.log2(i + 2) for i, s in enumerate(top) if s in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return {
        "hit@1": float(bool(top) and top[0] in relevant),
        "top3": float(any(s in relevant for s in top[:3])),
        "mrr@10": rr,
        "ndcg@10": dcg / ideal if ideal else 0.0,
    }


def run(queries: list[dict[str, Any]], state: Path) -> dict[str, dict[str, dict[str, float]]]:
    """order -> slice -> metric -> mean (and `spread`: queries whose first page shows fewer
    than 3 sessions although 3 or more match)."""
    from openclaw_sessions.read.search import SearchOptions, search

    sums: dict[str, dict[str, dict[str, float]]] = {}
    for order in ORDERS:
        per: dict[str, dict[str, float]] = {}
        for item in queries:
            res = search(SearchOptions(item["query"], state_dir=state, order=order, limit=10))
            ranked = _ranked_sessions(res.hits)
            m = metrics(ranked, set(item["relevant"]))
            matching = (
                _ranked_sessions(
                    search(
                        SearchOptions(item["query"], state_dir=state, order=order, limit=50)
                    ).hits
                )
                if order == "relevance" and len(ranked) < 3
                else ranked
            )
            m["narrow"] = float(len(matching) >= 3 and len(ranked) < 3)
            for key in (item["slice"], "all", "cjk" if item["cjk"] else "latin"):
                acc = per.setdefault(key, {"n": 0.0})
                acc["n"] += 1
                for name, v in m.items():
                    acc[name] = acc.get(name, 0.0) + v
        sums[order] = {
            s: {k: (v if k in ("n", "narrow") else v / acc["n"]) for k, v in acc.items()}
            for s, acc in per.items()
        }
    return sums


def table(result: dict[str, dict[str, dict[str, float]]]) -> Iterator[str]:
    yield (
        f"{'slice':<15}{'n':>4}  {'order':<10}{'hit@1':>7}{'top3':>7}{'MRR@10':>8}{'nDCG@10':>9}"
        f"{'narrow':>7}"
    )
    keys = [*SLICES, "latin", "cjk", "all"]
    for s in keys:
        for order in ORDERS:
            m = result[order].get(s)
            if m is None:
                continue
            yield (
                f"{s:<15}{int(m['n']):>4}  {order:<10}{m['hit@1']:>7.3f}{m['top3']:>7.3f}"
                f"{m['mrr@10']:>8.3f}{m['ndcg@10']:>9.3f}{int(m['narrow']):>7}"
            )


def below_floors(
    result: dict[str, dict[str, dict[str, float]]], floors: dict[str, Any]
) -> list[str]:
    bad = []
    for order, slices in floors.items():
        for s, metrics_ in slices.items():
            for name, floor in metrics_.items():
                got = result[order][s][name]
                if got + 1e-9 < floor:
                    bad.append(f"{order} {s} {name}: {got:.3f} < floor {floor:.3f}")
    return bad


def floors_of(result: dict[str, dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Today's figures, rounded down to 0.01: the floors CI holds them to."""
    return {
        order: {
            s: {
                k: math.floor(result[order][s][k] * 100) / 100
                for k in ("hit@1", "mrr@10", "ndcg@10")
            }
            for s in (*SLICES, "cjk", "all")
        }
        for order in ORDERS
    }


def qrels_text(queries: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(x, ensure_ascii=False, sort_keys=True) + "\n" for x in queries)


def build_and_index(tmp: Path) -> tuple[list[dict[str, Any]], Path]:
    src, state = tmp / "src", tmp / "state"
    queries = build(src)
    env = {**os.environ, "OPENCLAW_SESSIONS_NO_BACKGROUND": "1"}
    cmd = [sys.executable, "-m", "openclaw_sessions", "import", str(src), "--reindex", "--quiet"]
    subprocess.run([*cmd, "--state-dir", str(state)], check=True, env=env, cwd=REPO)
    os.environ["OPENCLAW_SESSIONS_NO_BACKGROUND"] = "1"  # the searches below start no reindexer
    return queries, state


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 below the recorded floors")
    ap.add_argument("--write-qrels", action="store_true", help="rewrite bench/judged/qrels.jsonl")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    ap.add_argument(
        "--write-floors", action="store_true", help="record today's figures as the floors"
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        queries, state = build_and_index(Path(d))
        if args.write_qrels:
            QRELS.parent.mkdir(parents=True, exist_ok=True)
            QRELS.write_text(qrels_text(queries), "utf-8")
        result = run(queries, state)
    if args.write_floors:
        FLOORS.write_text(json.dumps(floors_of(result), indent=1, sort_keys=True) + "\n", "utf-8")
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        n = len(queries)
        cjk = sum(1 for x in queries if x["cjk"])
        print(f"{n} queries, {cjk} CJK ({100 * cjk / n:.0f}%)")
        print("\n".join(table(result)))
    if args.check:
        bad = below_floors(result, json.loads(FLOORS.read_text("utf-8")))
        for line in bad:
            print("below floor:", line, file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
