"""The operator's relevance order (pure): which session answers the question, not only which
message scores best.

bm25 alone rewards short messages that repeat a word: a cron job that posts the same reminder
thirty times, an announce injected ten times, a marathon session that names the topic once in
a short line all outrank the session where the topic was settled. So the best candidates by
bm25 (read/search/ranked.py fetches them) are re-ranked here:

- near-duplicate messages (the same text once case, punctuation, dates, times and long numbers
  are set aside) fold into one hit that carries how many it stands for;
- a hit scores by its own bm25 (relative to the best, square-rooted: a short line's edge
  shrinks) and by its session's evidence: its distinct kinds of matching message (alike but
  for numbers), each worth half the one before;
- automation (a cron, hook or heartbeat key, a session repeating one message, or text OpenClaw
  injects: the session-start prompt of `/new`, a memory preamble, a relayed cron notice or
  heartbeat poll) and a folded hit count half: demoted, never hidden;
- a long session (a marathon that names the topic once among hundreds of messages) counts
  less, by the log of its length past ``LONG_SESSION`` lines, divided by the square of its
  distinct matches (a long session that discusses the topic is barely diluted);
- a small recency bonus, by the session's newest match, breaks near-ties between sessions (a
  newer decision supersedes an older one): inside one session the best hit stays first;
- a question and its reply that both match: the reply comes first (bm25 prefers the shorter
  question, the reply holds the answer);
- at most ``per_session`` hits of one session come before every other session's hits.

`--as` never comes here: the agent tool keeps upstream's order (bm25, then time).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import NamedTuple

from . import keys

HEAD_CHARS = 160  # the part of a message compared for near-duplicates
PER_SESSION = 3  # hits of one session before the others' (operator, no --session)
_AUTOMATION = ("cron:", "hook:", "hooks:", "heartbeat")
# What differs between the runs of one automation: dates, times, long numbers (ids, epochs).
_VARYING = re.compile(
    r"\d{4}-\d\d-\d\d(?:[t ]\d\d?:\d\d(?::\d\d(?:\.\d+)?)?z?)?|\d\d?:\d\d(?::\d\d)?|\d{5,}"
)
# Text OpenClaw injects as a user message: it names common words, no one wrote it.
_INJECTED = re.compile(
    r"\s*(?:a new session was started via /new|note: reference memory below"
    r"|\[cron:|\[openclaw heartbeat poll\]|read heartbeat\.md"
    r"|system: \[[^\]]{0,40}\] (?:cron|heartbeat))",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[\W_]+")
_ANY_DIGITS = re.compile(r"\d+")
_WEIGHTS = (1.0, 0.5, 0.25, 0.125)  # the session's evidence: its distinct matches, best first
AUTOMATION_FACTOR = 0.5
RECENCY = 0.15
LONG_SESSION = 100  # lines; a longer session's evidence is diluted (log of the excess)


class Cand(NamedTuple):
    key: str  # session key
    ts: int
    score: float  # -bm25: higher is better
    head: str  # the start of the message's text
    size: int = 1  # its transcript's length (stored lines: messages, tool results, the rest)
    role: str = ""
    exchange: str = ""  # the user message that opens its exchange ("": unknown)


class Ranked(NamedTuple):
    pos: int  # the candidate shown (its index in the candidates)
    copies: int  # the near-duplicates it stands for (itself included)
    score: float


def fingerprint(text: str) -> str:
    """Near-duplicates share it: case, punctuation, dates, times and long numbers set aside
    (a short number stays: "step 3 of 4" is not "step 1 of 4")."""
    head = _VARYING.sub("0", text[: HEAD_CHARS * 2].lower())
    return " ".join(_NON_WORD.sub(" ", head).split())[:HEAD_CHARS]


def automated_key(key: str) -> bool:
    """A session an automation runs (cron, hooks, heartbeat), by its key."""
    parsed = keys.parse_key(key)
    rest = parsed[1] if parsed else key.lower()
    return rest.startswith(_AUTOMATION) or any(f":{a}" in rest for a in _AUTOMATION)


def injected(head: str) -> bool:
    """Text OpenClaw injects (session start, memory preamble, cron notice, heartbeat)."""
    return _INJECTED.match(head) is not None


def order(cands: list[Cand], *, per_session: int | None = PER_SESSION) -> list[Ranked]:
    """Every distinct hit among ``cands``, best first (``per_session``: None, no cap)."""
    if not cands:
        return []
    top = max(c.score for c in cands) or 1.0
    groups: dict[str, list[int]] = defaultdict(list)  # near-duplicates
    # A session's evidence: its best match per kind of message, alike but for any number (a
    # run counter too); 3+ matches of one kind: a session repeating itself.
    best: dict[tuple[str, str], float] = {}
    alike: dict[tuple[str, str], int] = defaultdict(int)
    size: dict[str, int] = defaultdict(int)
    latest: dict[str, int] = defaultdict(int)  # a session's newest match
    for i, c in enumerate(cands):
        fp = fingerprint(c.head)
        groups[fp].append(i)
        kind = (c.key, _ANY_DIGITS.sub("0", fp))
        alike[kind] += 1
        best[kind] = max(best.get(kind, 0.0), math.sqrt(c.score / top))
        size[c.key] = max(size[c.key], c.size)
        latest[c.key] = max(latest[c.key], c.ts)
    evidence: dict[str, list[float]] = defaultdict(list)
    for (key, _), v in best.items():
        evidence[key].append(v)
    repetitive = {key for (key, _), n in alike.items() if n >= 3}
    strength = {
        key: sum(w * v for w, v in zip(_WEIGHTS, sorted(vals, reverse=True), strict=False))
        for key, vals in evidence.items()
    }
    dilution = {
        key: 1.0 / (1.0 + 0.75 * math.log(max(1.0, n / LONG_SESSION)) / len(evidence[key]) ** 2)
        for key, n in size.items()
    }
    best_strength = max(strength.values()) or 1.0
    t0 = min(c.ts for c in cands)
    span = max(c.ts for c in cands) - t0 or 1
    out = []
    for members in groups.values():
        i = min(members, key=lambda m: (-cands[m].score, -cands[m].ts, cands[m].key))
        c = cands[i]
        auto = automated_key(c.key) or c.key in repetitive or len(members) >= 3
        auto = auto or injected(c.head)
        value = 0.5 * math.sqrt(c.score / top) + 0.5 * strength[c.key] / best_strength
        value *= (AUTOMATION_FACTOR if auto else 1.0) * dilution[c.key]
        value += RECENCY * (latest[c.key] - t0) / span
        out.append(Ranked(i, len(members), value))
    out = _replies_first(out, cands)
    out.sort(key=lambda r: (-r.score, -cands[r.pos].ts, cands[r.pos].key, r.pos))
    return _spread(out, cands, per_session)


def _replies_first(ranked: list[Ranked], cands: list[Cand]) -> list[Ranked]:
    """A reply scores just above the question of its exchange when both match."""
    asked: dict[tuple[str, str], float] = {}
    for r in ranked:
        c = cands[r.pos]
        if c.exchange and c.role == "user":
            asked[(c.key, c.exchange)] = max(asked.get((c.key, c.exchange), 0.0), r.score)
    out = []
    for r in ranked:
        c = cands[r.pos]
        q = asked.get((c.key, c.exchange)) if c.exchange and c.role == "assistant" else None
        out.append(r._replace(score=q + 1e-9) if q is not None and q >= r.score else r)
    return out


def _spread(ranked: list[Ranked], cands: list[Cand], cap: int | None) -> list[Ranked]:
    """The hits past ``cap`` in one session move after every session's first ``cap``."""
    if cap is None:
        return ranked
    seen: dict[str, int] = defaultdict(int)
    first: list[Ranked] = []
    later: list[Ranked] = []
    for r in ranked:
        key = cands[r.pos].key
        seen[key] += 1
        (first if seen[key] <= cap else later).append(r)
    return first + later
