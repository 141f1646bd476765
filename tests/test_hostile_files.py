"""What is not a regular file, and what cannot be read (issue #15 A4, A5): skipped and reported
with its path and a stable code (exit 4), never a hang, never the whole import's end."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, json_out, query, run_cli, write_sessions_json

from openclaw_sessions.ingest import regular

SCRIPT = Path(sys.executable).parent / "openclaw-sessions"


def _agent(root: Path, agent: str, n: int = 2) -> Path:
    d = root / "agents" / agent / "sessions"
    entries = {}
    for i in range(n):
        s = Session(f"{agent}-{i}")
        s.user(f"word{agent}{i} here")
        s.write(d / f"{agent}-{i}.jsonl")
        entries[f"agent:{agent}:s{i}"] = {"sessionId": f"{agent}-{i}"}
    write_sessions_json(d, entries)
    return d


def _codes(report: dict[str, Any]) -> dict[str, str]:
    """path name → issue code, for problems (errors) only."""
    return {Path(i["path"]).name: i["code"] for i in report["issues"] if i["severity"] == "error"}


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The installed command; a FIFO that blocked a read would hit the timeout."""
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)


def test_special_entries_of_a_sessions_dir_are_reported_and_skipped(tmp_path: Path) -> None:
    d = _agent(tmp_path / "src", "main")
    os.mkfifo(d / "fifo.jsonl")
    (d / "dir.jsonl").mkdir()
    os.symlink("nowhere.jsonl", d / "dangling.jsonl")
    os.symlink("loop-b.jsonl", d / "loop-a.jsonl")
    os.symlink("loop-a.jsonl", d / "loop-b.jsonl")
    os.mkfifo(d / "notes.fifo")  # not named like a transcript: not ours, not reported
    store = json.loads((d / "sessions.json").read_text())
    store["agent:main:looped"] = {"sessionId": "loop-a", "sessionFile": "loop-a.jsonl"}
    (d / "sessions.json").write_text(json.dumps(store))
    state = tmp_path / "state"
    r = _run("import", str(tmp_path / "src"), "--state-dir", str(state), "--json")
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    rep = json.loads(r.stdout)
    codes = _codes(rep)
    assert codes == {"fifo.jsonl": "not_regular", "dir.jsonl": "not_regular",
                     "dangling.jsonl": "link_dangling", "loop-a.jsonl": "link_loop",
                     "loop-b.jsonl": "link_loop"}  # fmt: skip
    messages = {Path(i["path"]).name: i["message"] for i in rep["issues"]}
    assert "FIFO" in messages["fifo.jsonl"]
    assert "directory" in messages["dir.jsonl"]
    assert rep["sessionsImported"] == 2
    assert query(state, "SELECT count(*) FROM transcripts") == [(2,)]


def test_a_fifo_session_store_does_not_hang_import(tmp_path: Path) -> None:
    d = _agent(tmp_path / "src", "ops")
    _agent(tmp_path / "src", "main")
    (d / "sessions.json").unlink()
    os.mkfifo(d / "sessions.json")
    state = tmp_path / "state"
    r = _run("import", str(tmp_path / "src"), "--state-dir", str(state), "--json")
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    rep = json.loads(r.stdout)
    assert _codes(rep) == {"sessions.json": "not_regular"}
    assert rep["sessionsImported"] == 4  # ops' transcripts too, under derived keys
    assert rep["agents"] == ["main", "ops"]


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["fifo", "dangling", "loop", "dir-of-fifos"])
def test_a_special_source_is_reported(tmp_path: Path, shape: str) -> None:
    src = tmp_path / "thing.jsonl"
    want = {"fifo": "not_regular", "dangling": "link_dangling", "loop": "link_loop",
            "dir-of-fifos": "not_regular"}[shape]  # fmt: skip
    if shape == "fifo":
        os.mkfifo(src)
    elif shape == "dangling":
        os.symlink(tmp_path / "gone.jsonl", src)
    elif shape == "loop":
        os.symlink(src, src)
    else:
        src = tmp_path / "dir"
        src.mkdir()
        os.mkfifo(src / "a.jsonl")
    r = _run("import", str(src), "--state-dir", str(tmp_path / "state"), "--json")
    assert r.returncode == 4, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    issues = json.loads(r.stdout)["issues"]
    assert [i["code"] for i in issues] == [want]
    assert issues[0]["path"].endswith("a.jsonl" if shape == "dir-of-fifos" else "thing.jsonl")


def test_open_regular_refuses_a_fifo_swapped_in_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path passed the stat check, then became a FIFO: the non-blocking open and fstat
    refuse it instead of blocking (no writer ever opens this FIFO)."""
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(fifo)
    monkeypatch.setattr(regular, "problem", lambda path, allow_dir=False: None)
    with pytest.raises(regular.NotRegular) as err:
        regular.open_regular(fifo)
    assert err.value.code == "not_regular"
    assert "FIFO" in err.value.message


# ---------------------------------------------------------------------------------------------
# Unreadable directories. Tests run as root, which permission bits do not stop: the OSError a
# non-root user meets is injected at the filesystem boundary (every os call pathlib and the
# importer make), for everything at or under the denied directory, as `chmod 000` would.


@pytest.fixture
def deny(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    def install(denied: Path) -> None:
        base = os.fsencode(denied)

        def blocked(p: Any, listing: bool) -> bool:
            if isinstance(p, int):
                return False
            b = os.fsencode(os.path.abspath(os.fspath(p)))
            return b.startswith(base + b"/") or (listing and b == base)

        def wrap(fn: Callable[..., Any], listing: bool) -> Callable[..., Any]:
            def guarded(p: Any = ".", *a: Any, **k: Any) -> Any:
                if blocked(p, listing):
                    raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
                return fn(p, *a, **k)

            return guarded

        for name in ("stat", "lstat", "open"):
            monkeypatch.setattr(os, name, wrap(getattr(os, name), False))
        for name in ("listdir", "scandir"):
            monkeypatch.setattr(os, name, wrap(getattr(os, name), True))
        monkeypatch.setattr(builtins, "open", wrap(builtins.open, False))
        monkeypatch.setattr(io, "open", wrap(io.open, False))

    return install


@pytest.mark.slow
@pytest.mark.parametrize("level", ["sessions", "agent"])
def test_one_agents_unreadable_dir_is_that_agents_problem(
    tmp_path: Path, state: Path, deny: Callable[[Path], None], level: str
) -> None:
    src = tmp_path / "src"
    for agent in ("alpha", "main", "ops"):
        _agent(src, agent)
    denied = src / "agents" / "ops" / ("sessions" if level == "sessions" else "")
    deny(denied.resolve())
    r = run_cli("import", str(src), "--json")
    assert r.exit_code == 4, r.stderr
    rep = json_out(r)
    problems = [(i["code"], i["path"]) for i in rep["issues"] if i["severity"] == "error"]
    assert problems == [("dir_unreadable", str(denied).rstrip("/"))]
    assert {"alpha", "main"} <= set(rep["agents"])
    assert rep["sessionsImported"] == 4
    for agent in ("alpha", "main"):
        r = run_cli("search", f"word{agent}1", "--agent", agent, "--wait", "--json")
        assert r.exit_code == 0


def _nobody() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root to run a command as an unprivileged user")
    try:
        user = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no 'nobody' user on this machine")
    try:
        probe = subprocess.run([str(SCRIPT), "--version"], user=user.pw_uid, group=user.pw_gid,
                               capture_output=True, timeout=60)  # fmt: skip
    except OSError:
        probe = None
    if probe is None or probe.returncode != 0:
        pytest.skip(f"the interpreter ({sys.executable}) is not usable by 'nobody' here")
    return user


def test_unreadable_sessions_dir_as_an_unprivileged_user() -> None:
    """The same with real permission bits, where an unprivileged user can run this Python."""
    user = _nobody()
    base = Path(tempfile.mkdtemp(prefix="ocs-perm-"))
    try:
        for agent in ("main", "ops"):
            _agent(base / "src", agent)
        for p in [base, *base.rglob("*")]:
            os.chown(p, user.pw_uid, user.pw_gid)
        os.chmod(base / "src" / "agents" / "ops" / "sessions", 0)
        r = subprocess.run([str(SCRIPT), "import", str(base / "src"), "--state-dir",
                            str(base / "state"), "--json"], capture_output=True, text=True,
                           user=user.pw_uid, group=user.pw_gid, timeout=60)  # fmt: skip
        assert r.returncode == 4, r.stderr
        assert "Traceback" not in r.stderr, r.stderr
        rep = json.loads(r.stdout)
        assert _codes(rep) == {"sessions": "dir_unreadable"}
        assert rep["sessionsImported"] == 2
    finally:
        os.chmod(base / "src" / "agents" / "ops" / "sessions", stat.S_IRWXU)
        shutil.rmtree(base)
