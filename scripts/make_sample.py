"""Regenerate the bundled sample state dir (synthetic conversations, no real data)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent / "sample" / "state"
T0 = 1_767_600_000_000  # 2026-01-05


class T:
    def __init__(self, sid: str, day: int) -> None:
        self.sid, self.lines, self.leaf, self.t = sid, [], None, T0 + day * 86_400_000
        self.lines.append(
            {
                "type": "session",
                "version": 3,
                "id": sid,
                "timestamp": self.iso(),
                "cwd": "/home/demo/work",
            }
        )

    def iso(self) -> str:
        from datetime import UTC, datetime

        self.t += 37_000
        return datetime.fromtimestamp(self.t / 1000, tz=UTC).isoformat(timespec="milliseconds")

    def add(self, body: dict[str, Any], parent: Any = True) -> str:
        eid = f"{len(self.lines) * 2654435761 % 0xFFFFFFFF:08x}"
        p = self.leaf if parent is True else parent
        self.lines.append({"id": eid, "parentId": p, "timestamp": self.iso(), **body})
        self.leaf = eid
        return eid

    def say(self, role: str, text: str, parent: Any = True) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if role == "assistant":
            content.insert(0, {"type": "thinking", "thinking": "Consider the request."})
        return self.add({"type": "message", "message": {"role": role, "content": content}}, parent)

    def tool(self, text: str) -> str:
        return self.add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "call_1",
                    "toolName": "exec",
                    "content": [{"type": "text", "text": text}],
                    "isError": False,
                },
            }
        )

    def write(self, d: Path, name: str | None = None) -> None:
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines)
        (d / (name or f"{self.sid}.jsonl")).write_text(body, encoding="utf-8")


def main() -> None:
    main_dir, ops_dir = ROOT / "agents/main/sessions", ROOT / "agents/ops/sessions"
    for d in (main_dir, ops_dir):
        d.mkdir(parents=True, exist_ok=True)
    a = T("0b5c6f1e-1111-4a4a-9c9c-000000000001", 0)
    a.add({"type": "model_change", "provider": "demo", "modelId": "demo-1"}, None)
    a.say("user", "Can you check why the nightly deploy of the billing service failed?")
    a.tool("deploy.log: error: migration 0042 timed out after 300s")
    a.say(
        "assistant",
        "The deploy failed because migration 0042 timed out. "
        "I suggest running it with a longer lock timeout before the next deploy.",
    )
    u = a.say("user", "Draft the postgres command for that, please.")
    a.say("assistant", "Old draft: VACUUM FULL invoices; (abandoned on regeneration)", u)
    a.say(
        "assistant",
        "Use: SET lock_timeout = '10min'; then re-run the migration. "
        "Connection string: postgres://deploy:hunter2-very-secret-pw@db.internal/billing",
        u,
    )
    a.say("user", "Merci ! Le café était prêt quand le déploiement a fini.")
    a.say("assistant", "Parfait, le déploiement est terminé et les factures sont à jour.")
    a.write(main_dir)

    b = T("0b5c6f1e-2222-4a4a-9c9c-000000000002", 1)
    b.say("user", "東京のオフィスで量子猫プロジェクトの会議は何時ですか？", None)
    b.say("assistant", "量子猫プロジェクトの会議は明日の午前十時です。")
    b.say(
        "user",
        "Remind me: OPENAI_API_KEY=sk-demo0123456789abcdefghijklmnopqrstuv is the staging key",
    )
    b.say("assistant", "Noted. I will not repeat the key; rotate it after the demo.")
    b.write(main_dir)

    c = T("0b5c6f1e-3333-4a4a-9c9c-000000000003", 2)
    c.say("user", "Summarise the kubernetes incident for the weekly report.", None)
    c.say("assistant", "Incident summary: a node pool ran out of memory; pods were rescheduled.")
    c.write(main_dir)

    old = T("0b5c6f1e-0000-4a4a-9c9c-00000000000a", -3)
    old.say("user", "Book the train to Lyon for the invoice audit.", None)
    old.say("assistant", "Booked: the 08:04 train to Lyon, seat 42.")
    old.write(main_dir, f"{old.sid}.jsonl.reset.2026-01-04T10-00-00.000Z")

    store = {
        "agent:main:main": {"sessionId": a.sid, "updatedAt": T0 + 3_600_000, "chatType": "direct"},
        "agent:main:telegram:direct:4242": {
            "sessionId": b.sid,
            "updatedAt": T0 + 90_000_000,
            "label": "Telegram DM",
        },
        "agent:main:subagent:6f7e": {
            "sessionId": c.sid,
            "updatedAt": T0 + 180_000_000,
            "spawnedBy": "agent:main:main",
            "spawnDepth": 1,
        },
    }
    (main_dir / "sessions.json").write_text(json.dumps(store, indent=2) + "\n", encoding="utf-8")

    d = T("0b5c6f1e-4444-4a4a-9c9c-000000000004", 3)
    d.say("user", "Rotate the grafana dashboards and archive last quarter's alerts.", None)
    d.say("assistant", "Done: dashboards rotated, alerts archived to cold storage.")
    d.write(ops_dir)
    (ops_dir / "sessions.json").write_text(
        json.dumps({"agent:ops:main": {"sessionId": d.sid, "updatedAt": T0}}, indent=2) + "\n",
        "utf-8",
    )
    print(f"wrote {ROOT}", file=sys.stderr)


if __name__ == "__main__":
    main()
