"""Write tests/fixtures/store_v<N>.sqlite.gz: agent main's store as this release writes it
(schema version N = SCHEMA_VERSION), from the bundled sample plus one CJK session.

Run it once when you add a migration (after bumping SCHEMA_VERSION), and commit the new file
next to the older ones: tests/test_store_migrations.py holds the newest fixture to the schema
a fresh store gets (so a schema or trigger change without a migration fails) and migrates
every older one to it. Never regenerate an existing version's file.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

# A session the sample lacks: CJK text (the bigram index and its view and trigger get rows).
CJK = [
    {"type": "session", "version": 3, "id": "fixture-cjk", "timestamp": "2026-01-06T09:00:00Z"},
    *(
        {"type": "message", "id": f"m{i}", "parentId": f"m{i - 1}" if i else None,
         "timestamp": f"2026-01-06T09:0{i}:00Z",
         "message": {"role": role, "content": [{"type": "text", "text": text}]}}
        for i, (role, text) in enumerate([
            ("user", "数据库迁移失败了吗? the schema migration"),
            ("assistant", "迁移已经完成 (migration done)"),
        ])
    ),
]  # fmt: skip


def main() -> int:
    from openclaw_sessions.store.migrations import SCHEMA_VERSION

    out = FIXTURES / f"store_v{SCHEMA_VERSION}.sqlite.gz"
    if out.exists() and "--force" not in sys.argv:
        print(f"{out} exists: a released version's store is never regenerated", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        shutil.copytree(REPO / "sample" / "state", state)
        sessions = state / "agents" / "main" / "sessions"
        lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in CJK)
        (sessions / "fixture-cjk.jsonl").write_text(lines, "utf-8")
        env = {**os.environ, "OPENCLAW_STATE_DIR": str(state)}
        cmd = [sys.executable, "-m", "openclaw_sessions", "import", "--reindex", "--quiet"]
        subprocess.run(cmd, env=env, check=True)
        store = state / "agents" / "main" / "openclaw-sessions.sqlite"
        conn = sqlite3.connect(store)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the one file
        conn.close()
        with gzip.GzipFile(out, "wb", mtime=0) as gz:
            gz.write(store.read_bytes())
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
