"""Hostile input on the read side (issue #23 part 4): a message nested about
600 levels deep, hidden and missing sessions for a sandboxed caller, absurd terminal widths,
an export killed mid-write."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _nested(depth: int) -> Any:
    v: Any = {"password": SECRET, "note": "bottom words"}
    for i in range(depth):
        v = [v] if i % 2 else {"k": v}
    return v


@pytest.mark.slow
@pytest.mark.parametrize("depth", [600, 900])
def test_a_deeply_nested_unknown_field_keeps_its_session_readable(
    tmp_path: Path, state: Path, depth: int
) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("deep-1")
    s.user("deepneedle before")
    s.add({"message": {"role": "user", "content": [{"type": "text", "text": "deepneedle mid"}],
                       "weird": _nested(depth)}})  # fmt: skip
    s.assistant("deepneedle after")
    s.tool("tool output words")
    s.write(d / "deep-1.jsonl")
    assert sys.getrecursionlimit() < 2 * depth  # the walk would overflow if it recursed
    write_sessions_json(d, {"agent:main:deep": {"sessionId": "deep-1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    r = run_cli("reindex")
    assert r.exit_code == 0, r.stderr
    assert run_cli("reindex", "--full").exit_code == 0
    commands = [
        ["history", "agent:main:deep"],
        ["history", "agent:main:deep", "--json"],
        ["history", "agent:main:deep", "--include-tools", "--json"],
        ["history", "agent:main:deep", "--full"],
        ["export", "agent:main:deep"],
        ["export", "agent:main:deep", "--format", "json"],
        ["search", "deepneedle", "-C", "2"],
        ["search", "deepneedle", "-C", "2", "--json"],
    ]
    for args in commands:
        r = run_cli(*args)
        assert r.exit_code == 0, (args, r.stderr[-300:])
        assert "Traceback" not in r.stderr, args
        assert "deepneedle mid" in r.stdout, args
        assert SECRET not in r.stdout, args
    msgs = json_out(run_cli("history", "agent:main:deep", "--json"))["messages"]
    weird = next(m for m in msgs if "weird" in m)["weird"]
    flat = json.dumps(weird)
    assert "bottom words" in flat
    assert SECRET not in flat
    assert "***" in flat  # a secret key's JSON value is masked whole (upstream's rule)
    # the raw lines still export byte for byte
    r = run_cli("export", "agent:main:deep", "--format", "jsonl", "-o", str(tmp_path / "o.jsonl"))
    assert r.exit_code == 0
    assert (tmp_path / "o.jsonl").read_text() == (d / "deep-1.jsonl").read_text()


def _pty(args: list[str], tmp: Path, columns: str, cols: int) -> tuple[str, int]:
    import os
    import re
    import shutil

    pexpect = pytest.importorskip("pexpect")
    exe = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
    assert exe
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update({"OPENCLAW_STATE_DIR": str(tmp / "state"), "TERM": "xterm", "NO_COLOR": "1"})
    if columns:
        env["COLUMNS"] = columns
    child = pexpect.spawn(exe, args, env=env, encoding="utf-8", timeout=60, dimensions=(50, cols))
    out = child.read()
    child.close()
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out), child.exitstatus


@pytest.mark.slow
@pytest.mark.parametrize(("columns", "cols"), [("0", 80), ("10", 80), ("", 10), ("1", 1)])
def test_output_is_never_lost_to_a_width(tmp_path: Path, columns: str, cols: int) -> None:
    d = tmp_path / "src" / "agents" / "m" / "sessions"
    entries = {}
    for i in range(3):
        s = Session(f"w-{i}")
        s.user(f"widthword w{i}x")
        s.write(d / f"w-{i}.jsonl")
        entries[f"agent:m:k{i}"] = {"sessionId": f"w-{i}"}
    write_sessions_json(d, entries)
    assert run_cli("import", str(tmp_path / "src"), "--reindex", "--state-dir",
                   str(tmp_path / "state")).exit_code == 0  # fmt: skip
    out, code = _pty(["sessions", "--agent", "m"], tmp_path, columns, cols)
    assert code == 0, out
    assert all(f"agent:m:k{i}" in out for i in range(3)), out
    out, code = _pty(["search", "widthword", "--agent", "m", "--format", "table"], tmp_path,
                     columns, cols)  # fmt: skip
    assert code == 0, out
    assert all(f"w{i}x" in out and f"agent:m:k{i}" in out for i in range(3)), out
    out, code = _pty(["status", "--agent", "m"], tmp_path, columns, cols)
    assert code == 0, out
    assert "ok" in out, out
    out, code = _pty(["history", "agent:m:k1", "--no-pager"], tmp_path, columns, cols)
    assert code == 0, out
    assert "w1x" in out, out


def _tree_state(tmp_path: Path, config: dict[str, Any] | None) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    entries: dict[str, Any] = {}
    for key, sid, extra in [
        ("agent:main:main", "m-main", {}),
        ("agent:main:subagent:kid", "m-kid", {"spawnedBy": "agent:main:main"}),
        ("agent:main:subagent:kid2", "m-kid2", {"spawnedBy": "agent:main:main"}),
        ("agent:main:dashboard:incognito-x", "m-inc", {}),
        ("agent:main:telegram:direct:9", "m-tg", {}),
    ]:
        s = Session(sid)
        s.user(f"treeword in {sid}")
        s.write(d / f"{sid}.jsonl")
        entries[key] = {"sessionId": sid, **extra}
    write_sessions_json(d, entries)
    state = Path(str(tmp_path / "state"))
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    if config is not None:
        (state / "openclaw.json").write_text(json.dumps(config))


@pytest.mark.slow
@pytest.mark.parametrize("caller", ["agent:main:subagent:kid", "agent:main:main"])
@pytest.mark.parametrize("config", [None, {
    "agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}}},
    "tools": {"sessions": {"visibility": "tree"}},  # the clamp off: tree is said outright
}])  # fmt: skip
def test_a_sandboxed_caller_gets_one_answer_for_hidden_and_missing_ids(
    tmp_path: Path, caller: str, config: dict[str, Any] | None
) -> None:
    _tree_state(tmp_path, config)
    hidden = {"agent:main:subagent:kid": ["m-tg", "m-inc", "m-kid2"],
              "agent:main:main": ["m-tg", "m-inc"]}[caller]  # fmt: skip
    if caller == "agent:main:main" and config is not None:
        hidden = ["m-inc"]  # the main session sees its agent under tree; incognito never
    acting = ["--as", caller, "--sandboxed"]
    forms = [
        ["history", "{}"],
        ["history", "{}", "--json"],
        ["search", "treeword", "--session", "{}"],
        ["search", "treeword", "--session", "{}", "--json"],
        ["export", "{}", "--format", "json"],
    ]
    for form in forms:
        answers = set()
        for target in [*hidden, "m-missing", "0b5c6f1e-dead-4a4a-9c9c-000000000000"]:
            r = run_cli(*[a.format(target) for a in form], *acting)
            shown = r.stderr.replace(target, "<id>") + r.stdout.replace(target, "<id>")
            answers.add((r.exit_code, shown))
        assert len(answers) == 1, (form, answers)
        assert next(iter(answers))[0] == 2
    # a session it may see still opens
    assert run_cli("history", "m-kid", *acting).exit_code == 0


# Runs the real command, except that the export's fsync of its temporary file first opens a
# FIFO: the export has written everything to the temporary file and blocks there until the
# test opens the FIFO's other end (a rendezvous, no sleep).
_BLOCKING = """
import os, sys
fifo = sys.argv.pop(1)
real = os.fsync
def fsync(fd):
    with open(fifo, "rb") as f:
        f.read()
    real(fd)
os.fsync = fsync
from openclaw_sessions.cli.main import main
sys.argv[0] = "openclaw-sessions"
main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["jsonl", "md"])
def test_an_export_killed_mid_write_leaves_a_temp_file_the_next_one_removes(
    tmp_path: Path, fmt: str
) -> None:
    import os
    import signal
    import stat
    import subprocess

    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("kill-1")
    s.user("secret-ish raw words " * 50)
    s.write(d / "kill-1.jsonl")
    write_sessions_json(d, {"agent:main:kill": {"sessionId": "kill-1"}})
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    assert run_cli("import", str(tmp_path / "src"), "--state-dir",
                   str(tmp_path / "state")).exit_code == 0  # fmt: skip
    out = tmp_path / "out"
    out.mkdir()
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    target = out / f"conv.{fmt}"
    child = subprocess.Popen(
        [sys.executable, "-c", _BLOCKING, str(fifo), "export", "agent:main:kill",
         "--format", fmt, "-o", str(target)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        with open(fifo, "wb"):  # returns once the export has opened the gate: it is blocked
            assert child.poll() is None  # still running when killed
            child.send_signal(signal.SIGKILL)
            assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not target.exists()
    left = list(out.iterdir())
    assert len(left) == 1, left
    temp = left[0]
    assert temp.name.startswith(f".conv.{fmt}.ocs-export.{child.pid}.")
    assert temp.name.endswith(".tmp")
    assert stat.S_IMODE(temp.stat().st_mode) == 0o600
    if fmt == "jsonl":
        assert temp.read_bytes() == (d / "kill-1.jsonl").read_bytes()  # raw lines, left behind
    # the next export into that directory removes it (its writer is gone) and does its job
    other = out / "other.md"
    r = run_cli("export", "agent:main:kill", "-o", str(other), "--state-dir",
                str(tmp_path / "state"))  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["other.md"]
    # a live writer's temporary file is never touched (a process that waits on its stdin)
    writer = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        live = out / f".x.md.ocs-export.{writer.pid}.abc.tmp"
        live.write_bytes(b"in progress")
        assert run_cli("export", "agent:main:kill", "-o", str(out / "third.md"), "--state-dir",
                       str(tmp_path / "state")).exit_code == 0  # fmt: skip
        assert live.exists()
        assert writer.poll() is None
    finally:
        writer.communicate(b"")
    assert run_cli("export", "agent:main:kill", "-o", str(out / "fourth.md"), "--state-dir",
                   str(tmp_path / "state")).exit_code == 0  # fmt: skip
    assert not live.exists()  # its writer is gone now
