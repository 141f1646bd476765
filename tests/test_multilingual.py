"""CJK substring search, Hangul/Thai routing, diacritics, and --explain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

ZH = "今天我们讨论量子计算机的部署方案和数据库迁移"
JA = "東京のオフィスで量子猫プロジェクトの会議を開きます"
KO = "텔레메트리와 프라이버시 설정을 확인했습니다"
TH = "สวัสดีครับวันนี้อากาศดีมาก"


def sdir(root: Path) -> Path:
    return root / "agents" / "main" / "sessions"


def cjk_state(root: Path) -> None:
    s = Session("cjk-1")
    s.user(ZH)
    s.assistant(JA)
    s.user(KO)
    s.assistant(TH)
    s.user("deploy the Café service")
    s.tool("工具结果里的秘密词汇不应被找到")
    fork = s.leaf
    s.user("被放弃的分支文本内容")
    s.assistant("确认的回答内容", parent=fork)
    s.write(sdir(root) / "cjk-1.jsonl")
    inc = Session("cjk-2")
    inc.user("隐身模式的会话文本")
    inc.write(sdir(root) / "cjk-2.jsonl")
    write_sessions_json(
        sdir(root),
        {
            "agent:main:main": {"sessionId": "cjk-1"},
            "agent:main:dashboard:incognito-abc": {"sessionId": "cjk-2"},
        },
    )
    assert run_cli("import", str(root), "--reindex").exit_code == 0


def found(q: str, *extra: str) -> list[dict]:
    r = run_cli("search", q, "--json", *extra)
    assert r.exit_code in (0, 1), r.output
    return json_out(r)["results"]


@pytest.mark.slow
@pytest.mark.parametrize("text", [ZH, JA, KO, TH])
def test_substrings_of_every_length_are_found(tmp_path: Path, text: str) -> None:
    cjk_state(tmp_path / "src")
    for n in (1, 2, 3, 8):
        for start in (1, len(text) // 2):
            sub = text[start : start + n].strip()
            if len(sub) < n or " " in sub:
                continue
            hits = found(sub)
            assert hits, (n, sub)
            assert all(sub in h["snippet"] for h in hits), sub


def test_absent_substrings_are_not_found(tmp_path: Path) -> None:
    cjk_state(tmp_path / "src")
    for q in ("猫計", "量子猫計算", "부팅", "ร้อน", "零"):
        assert found(q) == [], q


def test_exclusions_hold_for_cjk(tmp_path: Path) -> None:
    cjk_state(tmp_path / "src")
    assert found("秘密词汇") == []  # tool result
    assert found("放弃的分支") == []  # abandoned branch
    assert found("确认的回答") != []  # the active one
    assert found("隐身模式") == []  # incognito


def test_mixed_script_and_accent_folding(tmp_path: Path) -> None:
    cjk_state(tmp_path / "src")
    assert found("deploy cafe")
    assert found("CAFÉ")
    assert found("café")
    assert found("量子 会議")  # both CJK terms in one message (JA)
    assert found("deploy 量子") == []  # never in the same message
    assert found("量子猫プロジェクト")


def test_explain_says_why(tmp_path: Path) -> None:
    cjk_state(tmp_path / "src")
    r = run_cli("search", "放弃的分支 zzzznothing", "--json", "--explain")
    assert r.exit_code == 1
    ex = json_out(r)["explain"]["agents"]["main"]
    routes = {t["text"]: t["route"] for t in ex["terms"]}
    assert routes == {"放弃的分支": "bigram", "zzzznothing": "primary"}
    why = {w["term"]: w for w in ex["why"]}
    assert why["放弃的分支"]["indexedMatches"] == 0
    assert why["放弃的分支"]["abandonedOrUnindexedMatches"] == 1
    assert why["zzzznothing"]["abandonedOrUnindexedMatches"] == 0
    plain = run_cli("search", "放弃的分支", "--json")
    # default shape, no explain; the operator's absence names the term found nowhere indexed
    doc = json_out(plain)
    assert set(doc) == {"results", "total", "absence"}
    assert doc["absence"]["termsNotFound"] == ["放弃的分支"]
    assert "abandonedOrUnindexed" not in doc["absence"]  # a scan of every line: --explain's
    doc = json_out(run_cli("search", "放弃的分支", "--json", "--explain"))
    assert doc["absence"]["abandonedOrUnindexed"] == {"放弃的分支": 1}


def test_explain_as_caller_reveals_no_branches(tmp_path: Path) -> None:
    cjk_state(tmp_path / "src")
    r = run_cli("search", "放弃的分支", "--json", "--explain", "--as", "agent:main:main")
    ex = json_out(r)["explain"]["agents"]["main"]
    assert "abandonedOrUnindexedMatches" not in json.dumps(ex)


def test_real_japanese_transcript(corpus: Path, tmp_path: Path) -> None:
    src = corpus / "zapabob__clawdbot@017d76e" / ".openclaw-desktop"
    assert run_cli("import", str(src), "--reindex").exit_code in (0, 4)
    from helpers import query

    state = tmp_path / "state"
    sql = "SELECT text FROM index_rows JOIN index_rows_cjk USING (row_id)"  # rows with CJK
    texts = [r[0] for r in query(state, sql)]
    assert texts
    import re

    runs = [m for t in texts for m in re.findall(r"[\u3040-\u30ff\u4e00-\u9fff]{8,}", t)]
    assert runs
    run = runs[0]
    for n in (1, 2, 3, 8):
        sub = run[:n]
        hits = found(sub)
        assert hits, sub
        assert all(sub in h["snippet"] for h in hits), sub
