"""`-0/--null` (issue #26): `sessions` and `search` print the names of what they list (keys;
a hit's key and message id), NUL-terminated and unescaped off a terminal, so a key holding a
tab or a newline reaches `xargs -0` and back as itself. Through the installed command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import SCRIPT, Session, installed, run_cli, write_sessions_json

HOSTILE = "agent:main:we\tird\nkey \\n"  # a tab, a newline, and a literal backslash-n
PRINTED = HOSTILE.replace("\\", "\\\\")  # raw but the backslash: KEY arguments read it back


@pytest.fixture
def hostile(tmp_path: Path, state: Path) -> Path:
    for sid in ("h-1", "p-1"):
        s = Session(sid)
        s.user(f"zebrafoo question from {sid}")
        s.assistant("zebrafoo answer")
        s.write(tmp_path / "src" / f"{sid}.jsonl")
    entries = {HOSTILE: {"sessionId": "h-1", "updatedAt": 2},
               "agent:main:plain": {"sessionId": "p-1", "updatedAt": 1}}  # fmt: skip
    write_sessions_json(tmp_path / "src", entries)
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    return state


def test_sessions_null_round_trips_a_key_with_a_tab_and_a_newline(hostile: Path) -> None:
    r = installed("sessions", "-0", state=hostile)
    assert r.returncode == 0
    assert r.stderr == ""
    assert r.stdout.split("\0") == [PRINTED, "agent:main:plain", ""]
    # sessions -0 | xargs -0 -n1 openclaw-sessions history --json
    env = {"OPENCLAW_STATE_DIR": str(hostile), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    listed = subprocess.run([str(SCRIPT), "sessions", "--null"], env=env, capture_output=True,
                            check=True)  # fmt: skip
    xargs = subprocess.run(["xargs", "-0", "-n1", str(SCRIPT), "history", "--json"],
                           input=listed.stdout, env=env, capture_output=True,
                           check=True)  # fmt: skip
    docs = [json.loads(line) for line in xargs.stdout.decode().splitlines()]
    assert [d["sessionKey"] for d in docs] == [HOSTILE, "agent:main:plain"]
    assert [d["messages"][0]["content"] for d in docs][0][0]["text"].endswith("from h-1")


def test_search_null_prints_key_and_message_id_pairs(hostile: Path) -> None:
    hits = json.loads(installed("search", "zebrafoo", "--json", state=hostile).stdout)["results"]
    for args in (("-0",), ("--null", "--format", "plain")):
        r = installed("search", "zebrafoo", *args, state=hostile)
        assert r.returncode == 0, r.stderr
        fields = r.stdout.split("\0")
        assert fields[-1] == ""
        assert len(fields) == 2 * len(hits) + 1
        assert list(zip(fields[0::2], fields[1::2], strict=False)) == [
            (h["sessionKey"].replace("\\", "\\\\"), h["messageId"]) for h in hits
        ]
    r = installed("search", "zebrafoo", "--sessions", "-0", state=hostile)
    assert sorted(r.stdout.split("\0")) == sorted(["", PRINTED, "agent:main:plain"])
    # each pair back into history --around: the same key, the hit in the window
    one = installed("search", "zebrafoo", "-0", "-n", "1", "--session", PRINTED, state=hostile)
    key, mid = one.stdout.split("\0")[:2]
    window = json.loads(installed("history", key, "--around", mid, "--json", state=hostile).stdout)
    assert window["sessionKey"] == HOSTILE
    assert key == PRINTED
    assert mid in {m["id"] for m in window["messages"]}


def test_nothing_found_prints_nothing_and_exits_1(hostile: Path) -> None:
    r = installed("search", "nosuchwordanywhere", "-0", state=hostile)
    assert r.returncode == 1
    assert r.stdout == ""
    r = installed("sessions", "-0", "--since", "2099-01-01", state=hostile)
    assert r.returncode == 1
    assert r.stdout == ""


@pytest.mark.parametrize(
    "args",
    [("search", "x", "-0", "--json"), ("search", "x", "-0", "--count"),
     ("search", "x", "-0", "-C", "1"), ("search", "x", "-0", "--format", "table"),
     ("sessions", "-0", "--jsonl"), ("sessions", "-0", "--json")],
)  # fmt: skip
def test_null_with_another_output_form_is_a_usage_error(
    hostile: Path, args: tuple[str, ...]
) -> None:
    r = installed(*args, state=hostile)
    assert r.returncode == 2
    assert r.stderr.startswith("error: -0/--null")
    assert r.stderr.count("\n") == 1


def test_on_a_terminal_the_names_keep_their_escape(hostile: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(str(SCRIPT), ["sessions", "-0"], env={"OPENCLAW_STATE_DIR": str(hostile),
                          "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}, timeout=30)  # fmt: skip
    child.expect(pexpect.EOF)
    out = child.before.decode()
    assert "agent:main:we\\tird\\nkey \\\\n\0" in out
    assert "\t" not in out
