"""`history KEY --follow` through the installed command: new lines appended to the transcript
appear on stdout (in a pty and through a pipe), Ctrl-C ends it with 130 and no traceback, a
reader that goes away ends it with 0."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

pexpect = pytest.importorskip("pexpect")

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
KEY = "agent:main:main"
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


class Transcript:
    def __init__(self, state: Path) -> None:
        sessions = state / "agents" / "main" / "sessions"
        self.session = Session("sess-follow")
        self.session.user("first question")
        self.session.assistant("first answer")
        self.path = self.session.write(sessions / "sess-follow.jsonl")
        write_sessions_json(sessions, {KEY: {"sessionId": "sess-follow", "updatedAt": 1}})
        assert run_cli("import", "--quiet").exit_code == 0

    def append(self, text: str, role: str = "assistant") -> None:
        before = len(self.session.lines)
        (self.session.assistant if role == "assistant" else self.session.user)(text)
        with self.path.open("a", encoding="utf-8") as f:
            for line in self.session.lines[before:]:
                f.write(json.dumps(line) + "\n")


def env() -> dict[str, str]:
    return {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}


def piped(*args: str) -> subprocess.Popen[str]:
    """The installed command, its stdout and stderr piped, as text."""
    assert EXE
    return subprocess.Popen([EXE, *args], env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def read_until(
    proc: subprocess.Popen[str], seen: list[str], done: Callable[[list[str]], bool], what: str
) -> None:
    """Read ``proc``'s lines into ``seen`` until ``done(seen)``; stdout closing first fails."""
    assert proc.stdout is not None
    while not done(seen):
        line = proc.stdout.readline()
        assert line, f"stdout closed before {what} came"
        seen.append(line)


@pytest.mark.slow
def test_follow_in_a_pty_prints_appended_messages_until_ctrl_c(state: Path) -> None:
    t = Transcript(state)
    child = pexpect.spawn(EXE, ["history", KEY, "--follow"], env=env(), encoding="utf-8",
                          timeout=20, dimensions=(40, 120))  # fmt: skip
    try:
        child.expect_exact("first answer")
        t.append("the deploy finished")
        child.expect_exact("the deploy finished")
        t.append("and one more question", role="user")
        child.expect_exact("and one more question")
        assert child.isalive()  # still following: the signal lands on a running process
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)
    assert "Traceback" not in (child.before or "")


def test_follow_through_a_pipe_prints_history_format_and_sigint_exits_130(state: Path) -> None:
    t = Transcript(state)
    proc = piped("history", KEY, "--follow", "--utc")
    try:
        seen: list[str] = []
        read_until(proc, seen, lambda seen: "first answer\n" in seen, "the first answer")
        t.append("piped reply")
        read_until(proc, seen, lambda seen: "piped reply\n" in seen, "the appended message")
        header = seen[-3]  # as history prints it: header, thinking, text
        assert header.startswith("assistant  ")
        assert header.rstrip().endswith(t.session.leaf or "")
        assert header.count("UTC") == 1
        assert seen[-2] == "thinking: hmm\n"
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err


def test_follow_ends_quietly_when_the_reader_goes_away(state: Path) -> None:
    Transcript(state)
    proc = piped("history", KEY, "--follow")
    assert proc.stdout is not None
    assert proc.stderr is not None
    while "first answer" not in proc.stdout.readline():
        pass
    proc.stdout.close()  # the reader goes away while nothing new is written
    try:
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill() if proc.poll() is None else None
    assert "Traceback" not in proc.stderr.read()


@pytest.mark.parametrize("extra", [["--json"], ["--around", "x"], ["--offset", "1"]])
def test_follow_refuses_what_it_cannot_follow(state: Path, extra: list[str]) -> None:
    Transcript(state)
    r = run_cli("history", KEY, "--follow", *extra)
    assert r.exit_code == 2
    assert "--follow" in r.stderr


@pytest.mark.slow
def test_follow_moves_to_the_new_transcript_after_a_reset(state: Path) -> None:
    """Upstream's reset renames the transcript to *.reset.<ISO> and starts a new one for the
    key: --follow prints the new generation's messages and keeps following that file."""
    t = Transcript(state)
    child = pexpect.spawn(EXE, ["history", KEY, "--follow"], env=env(), encoding="utf-8",
                          timeout=20, dimensions=(40, 120))  # fmt: skip
    try:
        child.expect_exact("first answer")
        sessions = t.path.parent
        fresh = Session("sess-fresh", ts0=1_767_312_000_000)
        fresh.user("hello after the reset")
        fresh.write(sessions / "sess-fresh.jsonl")
        write_sessions_json(sessions, {KEY: {"sessionId": "sess-fresh", "updatedAt": 2}})
        t.path.rename(sessions / "sess-follow.jsonl.reset.2026-01-02T00-00-00.000Z")
        child.expect_exact("hello after the reset")
        with (sessions / "sess-fresh.jsonl").open("a", encoding="utf-8") as f:
            fresh.assistant("and a reply in the new generation")
            f.write(json.dumps(fresh.lines[-1]) + "\n")
        child.expect_exact("and a reply in the new generation")
        assert child.isalive()  # still following: the signal lands on a running process
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130


def test_follow_waits_for_a_transcript_the_gateway_has_not_written_yet(state: Path) -> None:
    """A key in sessions.json whose transcript does not exist yet (a session just created):
    --follow waits for the file the gateway will write and prints its messages when it comes."""
    sessions = state / "agents" / "main" / "sessions"
    write_sessions_json(sessions, {"agent:main:new": {"sessionId": "sess-new", "updatedAt": 1}})
    run_cli("import", "--quiet")  # exit 4: the transcript is missing, the key is stored
    child = pexpect.spawn(EXE, ["history", "agent:main:new", "--follow"], env=env(),
                          encoding="utf-8", timeout=20, dimensions=(40, 120))  # fmt: skip
    try:
        child.expect_exact("no messages")
        new = Session("sess-new")
        new.user("is the new session followed")
        new.write(sessions / "sess-new.jsonl")
        child.expect_exact("is the new session followed")
        assert child.isalive()
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)


@pytest.mark.slow
def test_follow_marks_an_in_place_reset(state: Path) -> None:
    """A `reset` line appended to the same transcript (2026.7's in-place reset) prints a
    marker line, then what follows it; the marker is printed once."""
    t = Transcript(state)
    proc = piped("history", KEY, "--follow", "--utc")
    try:
        seen: list[str] = []
        read_until(proc, seen, lambda seen: "first answer\n" in seen, "the first answer")
        before = len(t.session.lines)
        reset = t.session.add({"type": "reset"})
        with t.path.open("a", encoding="utf-8") as f:
            for line in t.session.lines[before:]:
                f.write(json.dumps(line) + "\n")
        read_until(
            proc, seen, lambda seen: any(s.startswith("── reset") for s in seen), "the reset marker"
        )
        assert reset in seen[-1]
        t.append("after the reset")
        read_until(proc, seen, lambda seen: "after the reset\n" in seen, "the appended message")
        assert sum(s.startswith("── reset") for s in seen) == 1
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
def test_follow_jsonl_prints_each_new_message_as_one_json_line(state: Path) -> None:
    """For alerting through jq: the history as JSON lines, then each new message."""
    t = Transcript(state)
    proc = piped("history", KEY, "--follow", "--jsonl")
    try:
        assert proc.stdout is not None
        first = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert [m["role"] for m in first] == ["user", "assistant"]
        assert all(m["sessionKey"] == KEY and m["id"] for m in first)
        t.append("FAILED: the nightly job")
        new = json.loads(proc.stdout.readline())
        assert new["role"] == "assistant"
        texts = [b["text"] for b in new["content"] if b.get("type") == "text"]
        assert texts == ["FAILED: the nightly job"]
        assert new["id"] == t.session.lines[-1]["id"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
    finally:
        proc.kill()
        proc.wait()


def test_history_jsonl_is_the_json_messages_one_a_line(state: Path) -> None:
    Transcript(state)
    lines = run_cli("history", KEY, "--jsonl").stdout.splitlines()
    whole = json.loads(run_cli("history", KEY, "--json").stdout)["messages"]
    assert [json.loads(line) for line in lines] == [{"sessionKey": KEY, **m} for m in whole]


def test_search_follow_prints_each_new_hit_across_sessions(state: Path) -> None:
    """"Tell me when any agent says FAILED": the answer, then each new matching message of
    any session as one JSON line, until Ctrl-C."""
    import time as _time

    Transcript(state)
    other = state / "agents" / "main" / "sessions"
    proc = piped("search", "FAILED", "--follow", "--jsonl")
    try:
        assert proc.stdout is not None
        now = int(_time.time() * 1000)
        s = Session("sess-cron", ts0=now)
        s.user("run the nightly job")
        s.assistant("the nightly job FAILED with exit 3")
        s.write(other / "sess-cron.jsonl")
        store = json.loads((other / "sessions.json").read_text())
        store["agent:main:cron:nightly:run:1"] = {"sessionId": "sess-cron", "updatedAt": now}
        write_sessions_json(other, store)
        hit = json.loads(proc.stdout.readline())
        assert hit["sessionKey"] == "agent:main:cron:nightly:run:1"
        assert "FAILED" in hit["snippet"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
    finally:
        proc.kill()
        proc.wait()
