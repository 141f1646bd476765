"""The search table on a terminal (issue #37 §3), in a pty through the installed command:
keys stay whole, the snippet gives way, a hit takes two rows at 120 columns and more, the chat's
label sits under its key, and 80 columns stay readable (one block per hit)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CHATS = {  # key → (session id, label): keys as long as real channel and topic keys
    "agent:main:telegram:group:-1001234567890:topic:42": ("t1", "Ops war room"),
    "agent:main:discord:channel:123456789012345678": ("d1", "#deploys"),
    "agent:main:cron:nightly-billing-report": ("c1", None),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("table")
    src = root / "src" / "agents" / "main" / "sessions"
    for i, (sid, _label) in enumerate(CHATS.values()):
        s = Session(sid, ts0=1_767_600_000_000 + i * 3_600_000)
        s.user(
            f"run {i}: why did the billing pipeline stop? "
            + "context words " * 12
            + "the rollout log says the deploy hung"
        )  # fmt: skip  (the match on its 4th line)
        s.assistant(f"run {i}: the deploy failed because migration 0042 timed out waiting for "
                    "a lock on the invoices table; run it with a longer lock timeout before "
                    "the next deploy window, then watch the replication lag")  # fmt: skip
        s.write(src / f"{sid}.jsonl")
    write_sessions_json(src, {k: {"sessionId": sid, **({"label": lb} if lb else {})}
                              for k, (sid, lb) in CHATS.items()})  # fmt: skip
    state = root / "state"
    r = run_cli("import", str(root / "src"), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    return state


def in_pty(store: Path, cols: int, *args: str) -> list[str]:
    """The lines `search` draws on a terminal of ``cols`` columns (stdout only)."""
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "PAGER")}
    env.update({"OPENCLAW_STATE_DIR": str(store), "TERM": "xterm-256color", "TZ": "UTC"})
    line = f"{EXE} search deploy --no-pager {' '.join(args)} 2>/dev/null"
    child = pexpect.spawn("bash", ["-c", line], env=env, encoding="utf-8", timeout=120,
                          dimensions=(200, cols))  # fmt: skip
    out: str = child.read()
    child.close()
    return [ln for ln in ANSI.sub("", out).replace("\r\n", "\n").split("\n") if ln.strip()]


@pytest.mark.parametrize("cols", [120, 160])
def test_a_hit_takes_two_rows_keys_whole_label_under_the_key(store: Path, cols: int) -> None:
    lines = in_pty(store, cols)
    assert lines[0].split()[:4] == ["time", "·", "role", "session"], lines[0]
    rows = lines[2:]  # the header and its rule
    hits = [i for i, ln in enumerate(rows) if re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", ln)]
    assert len(hits) == 6
    assert len(rows) == 12  # two rows a hit, however long the snippet
    assert max(len(ln) for ln in lines) <= cols
    for i in hits:
        first, second = rows[i], rows[i + 1]
        key = next(k for k in CHATS if k in first)  # the key whole on one row
        label = CHATS[key][1]
        assert re.search(r"\b[0-9a-f]{8}\b", second)  # the message id under it ...
        assert (f" · {label}" in second) if label else (" · " not in second)  # ... its label
        assert "deploy" in first + second  # the first match is in sight, even near the end
    cut = [rows[i] + rows[i + 1] for i in hits if "…" in rows[i + 1]]
    assert cut, "no snippet was long enough to be cut"


def test_eighty_columns_stay_readable(store: Path) -> None:
    """Long keys leave a table's snippet too little room: one block per hit, the key whole,
    then id, label, time and role, then at most three lines of snippet."""
    lines = in_pty(store, 80)
    assert max(len(ln) for ln in lines) <= 80
    assert "time · role" not in lines[0]
    keyed = [i for i, ln in enumerate(lines) if ln in CHATS]
    assert len(keyed) == 6
    for i, j in zip(keyed, [*keyed[1:], len(lines)], strict=True):
        label = CHATS[lines[i]][1]
        meta, snippet = lines[i + 1], lines[i + 2 : j]
        assert re.match(r"[0-9a-f]{8}( · .+)? · \d{4}-\d\d-\d\d \d\d:\d\d UTC · (user|assistant)$",
                        meta), meta  # fmt: skip
        assert (f" · {label} · " in meta) if label else meta.count(" · ") == 2
        assert 1 <= len(snippet) <= 3
        assert "deploy" in " ".join(snippet)
        assert all(len(ln) >= 40 for ln in snippet[:-1])  # full lines, not a narrow column


def test_json_and_plain_lines_keep_the_whole_snippet(store: Path) -> None:
    """The table cuts only what it draws: JSON keeps the snippet and carries the label."""
    r = run_cli("search", "deploy", "--json", "--state-dir", str(store))
    doc = json.loads(r.stdout)
    labels = {h["sessionKey"]: h.get("label") for h in doc["results"]}
    assert labels == {k: lb for k, (_sid, lb) in CHATS.items()}
    assert any(len(h["snippet"]) > 200 for h in doc["results"])
    agent = json.loads(run_cli("search", "deploy", "--json", "--as", "agent:main:cron:nightly-"
                               "billing-report", "--state-dir", str(store)).stdout)  # fmt: skip
    assert all("label" not in h for h in agent["results"])  # upstream's shape has none


def test_a_short_key_keeps_its_id_whole_and_cuts_the_label() -> None:
    """Under a key shorter than the message id, the id stays whole; the label gives way."""
    from io import StringIO

    from rich.console import Console

    from openclaw_sessions.cli import render_hits
    from openclaw_sessions.cli.style import Times
    from openclaw_sessions.read.models import Hit, SearchResult

    hit = Hit("main", "s1", "78dde6c6", "user", 1_767_600_000_000, "the deploy " * 40, 1.0,
              highlights=((4, 10),), label="a label far longer than the key")  # fmt: skip
    buf = StringIO()
    out = Console(file=buf, width=120, color_system=None, highlight=False, markup=False)
    render_hits.table(SearchResult((hit,)), Times(utc=True), out)
    rows = buf.getvalue().splitlines()[2:]
    assert len(rows) == 2
    assert "main" in rows[0]
    assert " 78dde6c6 · a label far long…  " in rows[1]  # 28 columns: the id whole, then the label
    assert max(map(len, rows)) <= 120
