"""The operator's order (policy/rank.py) on what bm25 gets wrong inside a conversation: the
reply after its matching question, injected text, recency inside one session."""

from __future__ import annotations

from openclaw_sessions.policy import rank

_DAY = 86_400_000


def _keys(cands: list[rank.Cand]) -> list[tuple[str, str]]:
    return [(cands[r.pos].key, cands[r.pos].head) for r in rank.order(cands, per_session=None)]


def test_the_reply_comes_before_its_shorter_question() -> None:
    cands = [
        rank.Cand("agent:main:a", 1000, 9.0, "how do I rotate the zorb key?", 10, "user", "1:4"),
        rank.Cand("agent:main:a", 2000, 2.0, "rotate the zorb key with", 10, "assistant", "1:4"),
        rank.Cand("agent:main:b", 500, 1.0, "zorb elsewhere", 10, "assistant", "2:0"),
    ]
    assert [h for _, h in _keys(cands)][:2] == [
        "rotate the zorb key with",
        "how do I rotate the zorb key?",
    ]


def test_a_question_and_a_reply_of_another_exchange_keep_their_order() -> None:
    cands = [
        rank.Cand("agent:main:a", 1000, 6.0, "how do I rotate the zorb key?", 10, "user", "1:4"),
        rank.Cand("agent:main:a", 2000, 3.0, "zorb, later on", 10, "assistant", "1:9"),
    ]
    assert [h for _, h in _keys(cands)] == ["how do I rotate the zorb key?", "zorb, later on"]


def test_injected_text_ranks_like_automation() -> None:
    for injected in (
        "A new session was started via /new or /reset. Execute your Session Startup sequence",
        "Note: Reference memory below. Build on past successes; deploy",
        "[cron:b563dae7 daily] deploy the report",
        "System: [2026-04-18 16:07:01 GMT+8] Cron: deploy finished",
    ):
        assert rank.injected(injected)
        cands = [
            rank.Cand("agent:main:a", 1000, 5.0, injected, 10, "user", "1:1"),
            rank.Cand("agent:main:b", 1000, 4.0, "we decided the deploy goes at noon", 10, "user"),
        ]
        assert _keys(cands)[0][0] == "agent:main:b", injected
    assert not rank.injected("a new session of the deploy")


def test_recency_does_not_reorder_one_session() -> None:
    """Inside one long session the best hit stays first; newer breaks ties between sessions."""
    cands = [
        rank.Cand("agent:main:a", 0, 5.0, "the settled zorb decision, at length", 10, "assistant"),
        rank.Cand("agent:main:a", 100 * _DAY, 4.5, "zorb again, in passing", 10, "assistant"),
    ]
    assert [h for _, h in _keys(cands)][0] == "the settled zorb decision, at length"
    tie = [
        rank.Cand("agent:main:old", 0, 5.0, "zorb decided one way", 10, "assistant"),
        rank.Cand("agent:main:new", 100 * _DAY, 5.0, "zorb decided another way", 10, "assistant"),
    ]
    assert _keys(tie)[0][0] == "agent:main:new"
