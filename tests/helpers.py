"""What tests share: transcript builders (Session, write_sessions_json), the CLI in-process
(run_cli, json_out), helpers that read a store directly, and that walk JSONL text lines the way
import stores them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from openclaw_sessions.model import branch, transcript, tree
from openclaw_sessions.model.transcript import Entry
from openclaw_sessions.policy.keys import SessionRef
from openclaw_sessions.policy.visibility import Policy
from openclaw_sessions.store import branches, db, rawcodec

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus" / "real"


class Session:
    """Builds a v3 transcript line by line, with the ids and parents upstream writes."""

    def __init__(self, session_id: str = "s1", ts0: int = 1_767_225_600_000) -> None:
        self.session_id = session_id
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": 3, "id": session_id,
             "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
        ]  # fmt: skip
        self.leaf: str | None = None
        self.n = 0
        self.ts0 = ts0

    def _ts(self) -> str:
        from datetime import UTC, datetime

        self.n += 1
        ms = self.ts0 + self.n * 1000
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")

    def add(
        self, entry: dict[str, Any], *, parent: str | None | bool = True, id: str | None = None
    ) -> str:
        eid = id or entry.get("id") or f"{len(self.lines):08x}"
        entry.pop("id", None)
        line = {"type": entry.pop("type", "message"), "id": eid, **entry}
        if parent is True:
            line["parentId"] = self.leaf
        elif parent is not False:
            line["parentId"] = parent
        line.setdefault("timestamp", self._ts())
        self.lines.append(line)
        if line["type"] != "leaf" and line.get("appendMode") != "side":
            self.leaf = eid
        return eid

    def navigate(self, target: str | None, **extra: Any) -> str:
        """A leaf control (upstream's navigation): the leaf moves to `target`."""
        eid = self.add({"type": "leaf", "targetId": target, **extra})
        self.leaf = target
        return eid

    def user(self, text: str, **kw: Any) -> str:
        return self.add({"message": {"role": "user", "content": [{"type": "text", "text": text}]},
                         **kw.pop("extra", {})}, **kw)  # fmt: skip

    def assistant(self, text: str, **kw: Any) -> str:
        content = [{"type": "thinking", "thinking": kw.pop("thinking", "hmm")},
                   {"type": "text", "text": text}]  # fmt: skip
        return self.add({"message": {"role": "assistant", "content": content}}, **kw)

    def tool(self, text: str, **kw: Any) -> str:
        message = {"role": "toolResult", "toolCallId": "c1", "toolName": "exec",
                   "content": [{"type": "text", "text": text}]}  # fmt: skip
        return self.add({"message": message}, **kw)

    def text(self) -> str:
        return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in self.lines)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def write_sessions_json(sessions_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    sessions_dir.mkdir(parents=True, exist_ok=True)
    (sessions_dir / "sessions.json").write_text(json.dumps(entries), encoding="utf-8")


def run_cli(*args: str, input: str | None = None) -> Any:
    """Invoke the real Typer app in-process; stdout and stderr kept apart."""
    from typer.testing import CliRunner

    from openclaw_sessions.cli.app import app

    runner = CliRunner()
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def json_out(result: Any) -> Any:
    return json.loads(result.stdout)


def db_file(state: Path, agent: str = "main") -> Path:
    return state / "agents" / agent / "openclaw-sessions.sqlite"


def connect(path: Path) -> sqlite3.Connection:
    """A plain connection to a store, with the SQL functions its schema names and
    ``raw_text(raw)``: a stored line as text (raw lines are compressed, store/rawcodec.py)."""
    conn = sqlite3.connect(path)
    db.register_functions(conn)
    conn.create_function("raw_text", 1, lambda v: rawcodec.unpack_text(conn, v))
    return conn


def query(state: Path, sql: str, *params: object, agent: str = "main") -> list[tuple]:
    conn = connect(db_file(state, agent))
    try:
        return [tuple(r) for r in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


def events_dump(state: Path, agent: str = "main") -> list[tuple]:
    return query(
        state,
        "SELECT t.source_name, e.seq, e.line_no, raw_text(e.raw) FROM events e JOIN"
        " transcripts t USING (transcript_id) ORDER BY 1, 2",
        agent=agent,
    )


def index_dump(state: Path, agent: str = "main") -> list[tuple]:
    return query(
        state,
        "SELECT t.source_name, r.seq, r.message_id, r.role, r.text FROM index_rows"
        " r JOIN transcripts t USING (transcript_id) ORDER BY 1, 2",
        agent=agent,
    )


def integrity(state: Path, agent: str = "main") -> None:
    conn = connect(db_file(state, agent))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for t in ("index_fts", "index_bigram"):
            conn.execute(f"INSERT INTO {t}({t}, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


def undo_v10(conn: sqlite3.Connection) -> None:
    """Take schema v10's objects out of a fresh store (tests that fake an older one): the
    counters and the pending set with their triggers, the sessions' agent and indexes, the
    stats of the files read; and v13's vectors."""
    for kind, name in conn.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'trigger', 'index')"
        " AND (name GLOB 'counts*' OR name GLOB 'pending_*' OR name = 'index_pending'"
        " OR name GLOB 'sessions_by_*' OR name = 'transcripts_by_session_id_nocase'"
        " OR name = 'source_stats')"
    ).fetchall():
        conn.execute(f"DROP {kind.upper()} IF EXISTS {name}")
    conn.execute("ALTER TABLE sessions DROP COLUMN agent_id")
    conn.execute("DELETE FROM meta WHERE key GLOB 'pending_*' OR key GLOB 'store_stat:*'")
    conn.execute("DROP TRIGGER IF EXISTS index_rows_ad_vec")  # v13's, older than it here
    conn.execute("DROP TABLE IF EXISTS index_vectors")


def parse_entries(lines: Iterable[str]) -> list[Entry]:
    """JSONL text lines -> entries, as import builds them (ingest/store_lines.py streams them)."""
    out: list[Entry] = []
    legacy = False
    for seq, line in enumerate(lines):
        obj = transcript.parse_line(line)
        if seq == 0:
            legacy = transcript.is_legacy(obj)
        out.append(transcript.make_entry(obj, seq, legacy=legacy))
    return out


def visible_keys(policy: Policy, refs: Iterable[SessionRef]) -> list[str]:
    """The sorted keys of ``refs`` the policy's caller sees."""
    return sorted({r.key for r in refs if policy.sees(r)})


def walk(entries: Iterable[Entry]) -> tree.Walk:
    """The one tree walk (tree.walk), over entries."""
    return tree.walk(map(transcript.tree_row, entries))


def active_seqs(entries: Iterable[Entry]) -> list[int]:
    """The seqs of every line on the active branch, in order."""
    return walk(entries).seqs


SCRIPT = Path(sys.executable).parent / "openclaw-sessions"


def installed(
    *args: str, state: Path | None = None, env: dict[str, str] | None = None, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script (a real process: exit codes, pipes, no TTY)."""
    full = {**os.environ, "NO_COLOR": "1", **(env or {})}
    if state is not None:
        full["OPENCLAW_STATE_DIR"] = str(state)
    return subprocess.run(
        [str(SCRIPT), *args], env=full, input=input, capture_output=True, text=True, timeout=300
    )


def as_v6(path: Path) -> None:
    """Turn a store of the current schema into what schema v6 kept (its text is
    tests/fixtures/schema_v6.sql): raw lines as text, the CJK bigram text stored in
    index_rows, no dictionaries, none of the tables and triggers of v7 and v10. Migration
    tests start from it."""
    from openclaw_sessions.store.migrations import statements

    text = (Path(__file__).parent / "fixtures" / "schema_v6.sql").read_text()
    code = [
        "\n".join(ln for ln in s.splitlines() if not ln.startswith("--")) for s in statements(text)
    ]

    def stmt(head: str) -> str:
        return next(s for s in code if s.startswith(head))

    conn = connect(path)
    conn.isolation_level = None
    try:
        conn.execute("BEGIN IMMEDIATE")
        undo_v10(conn)
        for table in ("import_problems", "tombstones"):  # v7
            conn.execute(f"DROP TABLE {table}")
        for name in ("TRIGGER index_rows_ad", "TRIGGER index_rows_ad_cjk", "VIEW index_rows_cjk"):
            conn.execute(f"DROP {name}")
        for table in ("events", "archived_events", "index_rows"):
            conn.execute(f"ALTER TABLE {table} RENAME TO {table}_now")
            conn.execute(stmt(f"CREATE TABLE {table} ("))
        conn.execute(
            "INSERT INTO events SELECT transcript_id, seq, line_no, entry_id, parent_id, flags,"
            " target_id, type, role, ts, raw_text(raw) FROM events_now ORDER BY rowid"
        )
        conn.execute(
            "INSERT INTO archived_events SELECT transcript_id, revision, seq, line_no,"
            " raw_text(raw) FROM archived_events_now ORDER BY rowid"
        )
        conn.execute(
            "INSERT INTO index_rows SELECT row_id, transcript_id, seq, message_id, role, ts,"
            " text, ocs_cjk_bigrams(text) FROM index_rows_now"
        )
        for table in ("events_now", "archived_events_now", "index_rows_now", "raw_dicts"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("DELETE FROM meta WHERE key = ?", (rawcodec.NEXT_KEY,))
        for head in ("CREATE VIEW index_rows_cjk", "CREATE TRIGGER index_rows_ad ",
                     "CREATE TRIGGER index_rows_ad_cjk"):  # fmt: skip
            conn.execute(stmt(head))
        conn.execute("PRAGMA user_version = 6")
        conn.execute("COMMIT")
    finally:
        conn.close()


def generate_corpus(out: Path, messages: int, **kw: Any) -> dict[str, Any]:
    """bench/gen_corpus.py's corpus under ``out`` (agents, seed, cjk_ratio… as it takes
    them); its manifest."""
    from bench.gen_corpus import generate

    return generate(out, messages, **kw)


def expected_ids(s: Session, *, tools: bool = False) -> list[str]:
    """The active branch's message ids, computed from the file independently of the store."""
    entries = parse_entries([json.dumps(x) for x in s.lines])
    by_seq = {e.seq: e for e in entries}
    out = []
    for seq in active_seqs(entries):
        e = by_seq[seq]
        if e.type == "message" and (tools or e.role not in ("toolResult", "tool")):
            out.append(e.entry_id or "")
    return out


def branchy(n_turns: int = 40, sid: str = "s1") -> Session:
    """Turns with tool results, regenerations, a rewind and an abandoned branch."""
    s = Session(sid)
    for i in range(n_turns):
        u = s.user(f"question {i}")
        s.assistant(f"first try {i}")
        if i % 5 == 0:  # regeneration: a second assistant child of the same user message
            s.assistant(f"regenerated {i}", parent=u)
        s.tool(f"tool output {i}")
        if i % 7 == 3:  # rewind: an abandoned excursion, then continue from before it
            fork = s.leaf
            s.user(f"abandoned {i}")
            s.assistant(f"abandoned reply {i}")
            s.navigate(fork)
    return s


def typer_complete(line: str, shell: str = "zsh") -> str:
    """What the app's Typer completion answers for ``line`` in ``shell``."""
    from typer.testing import CliRunner

    from openclaw_sessions.cli.app import app

    env = {"_OPENCLAW_SESSIONS_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": line,
           "_TYPER_COMPLETE_FISH_ACTION": "get-args"}  # fmt: skip
    result = CliRunner().invoke(app, [], env=env, prog_name="openclaw-sessions")
    assert result.exit_code == 0, result.output
    return result.stdout


# The CLI in a child process that stops at a known point of its work: the ``nth`` time
# ``module.name`` returns, it writes GATE_LINE to stderr and blocks reading its stdin (a pipe
# the test holds open) until a signal ends it. A kill or Ctrl-C test then signals a process
# known to be mid-work, inside whatever transaction that call left open, instead of racing it.
_GATED = """
import importlib, sys
module, name, nth = sys.argv[1], sys.argv[2], int(sys.argv[3])
del sys.argv[1:4]
mod = importlib.import_module(module)
real, calls = getattr(mod, name), [0]
def gated(*args, **kwargs):
    out = real(*args, **kwargs)
    calls[0] += 1
    if calls[0] == nth:
        sys.stderr.write(%r)
        sys.stderr.flush()
        sys.stdin.buffer.read()
    return out
setattr(mod, name, gated)
from openclaw_sessions.cli.main import main
sys.argv[0] = "openclaw-sessions"
main()
"""
GATE_LINE = "gate: blocked mid-work\n"


def gated_cli(
    state: Path, gate: tuple[str, str, int], *args: str, **env_extra: str
) -> subprocess.Popen[bytes]:
    """Start ``openclaw-sessions ARGS`` on ``state`` and return once it is blocked at ``gate``
    (module, function name, nth call); fail if it ends before getting there."""
    module, name, nth = gate
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), **env_extra}
    proc = subprocess.Popen(
        [sys.executable, "-c", _GATED % GATE_LINE, module, name, str(nth), *args],
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if line != GATE_LINE.encode():
        proc.kill()
        rest = proc.communicate()[1]
        raise AssertionError(f"never reached {gate}: {(line + rest).decode(errors='replace')}")
    assert proc.poll() is None  # blocked at the gate: a signal sent now lands on it
    return proc


def killed_by(proc: subprocess.Popen[bytes], sig: int) -> bytes:
    """Send ``sig`` to a process blocked at its gate and wait: the rest of its stderr."""
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    return err


def cached_and_walked(state: Path) -> list[tuple[branch.Branch | None, branch.Branch]]:
    """Each transcript's cached active branch (None: not cached) and the one walked again."""
    conn = sqlite3.connect(db_file(state))
    try:
        tids = [r[0] for r in conn.execute("SELECT transcript_id FROM transcripts ORDER BY 1")]
        return [(branches.load_cached(conn, t), branches.walk_transcript(conn, t)) for t in tids]
    finally:
        conn.close()
