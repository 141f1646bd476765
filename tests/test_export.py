"""`export`: the jsonl round trip (byte for byte, real and generated corpora, hostile files),
md and json (redacted, whole), where the output goes (stdout, a file atomically, a directory),
and who may export what."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, generate_corpus, json_out, query, run_cli, write_sessions_json

from openclaw_sessions.store.db import open_store
from openclaw_sessions.store.sessions import raw_lines

SECRET = "sk-ant-api03-" + "A" * 40


def sdir(root: Path, agent: str = "main") -> Path:
    return root / "agents" / agent / "sessions"


def export(*args: str) -> Any:
    return run_cli("export", *args)


def import_dir(src: Path, *extra: str) -> None:
    r = run_cli("import", str(src), "--quiet", *extra)
    assert r.exit_code in (0, 4), r.stderr


def exported_files(state: Path, agent: str, out: Path) -> dict[str, Path]:
    """Every generation of every key of ``agent``, exported with --all-generations into ``out``
    (a directory per key); file name -> written file."""
    written: dict[str, Path] = {}
    keys = [k for (k,) in query(state, "SELECT DISTINCT session_key FROM transcripts", agent=agent)]
    for i, key in enumerate(keys):
        d = out / f"{agent}-{i}"
        d.mkdir(parents=True)
        r = export(key, "--agent", agent, "--format", "jsonl", "--all-generations", "-o", str(d))
        assert r.exit_code == 0, (key, r.stderr)
        for f in d.iterdir():
            if f.name == "sessions.json":  # the bundle's store entry (tests/test_bundle.py)
                continue
            assert f.name not in written, f"two generations named {f.name}"
            written[f.name] = f
    return written


# --- the jsonl round trip --------------------------------------------------------------------


@pytest.mark.slow
def test_jsonl_round_trip_is_byte_exact_on_the_real_corpus(
    corpus: Path, state: Path, tmp_path: Path
) -> None:
    """Every transcript of the real corpus (current files, reset and deleted archives,
    backups, pi fixtures) comes back byte for byte."""
    sources = sorted(
        p for p in corpus.rglob("*.jsonl*") if p.is_file() and not p.name.endswith(".lock")
    )
    for d in sorted({p.parent for p in sources}):
        import_dir(d, "--include-archives")
    names: dict[str, Path] = {}
    for agent_dir in sorted((state / "agents").iterdir()):
        names.update(exported_files(state, agent_dir.name, tmp_path / "out"))
    assert len(names) == len(sources), sorted({p.name for p in sources} - set(names))
    for src in sources:
        assert names[src.name].read_bytes() == src.read_bytes(), src


def _gen_corpus(out: Path, messages: int) -> Path:
    generate_corpus(out, messages, agents=2, seed=7)
    return out


@pytest.mark.slow
def test_jsonl_round_trip_is_byte_exact_on_a_generated_corpus(state: Path, tmp_path: Path) -> None:
    """Every file of bench/gen_corpus.py's corpus, reset archives included (the older
    generations of their keys, exported with --all-generations), under its own name."""
    src = _gen_corpus(tmp_path / "src", 4000)
    import_dir(src)
    # two keys go through a /reset after the import: their keys now hold two generations
    sessions = sdir(src)
    store = json.loads((sessions / "sessions.json").read_text())
    keys = [k for k, e in store.items() if (sessions / f"{e['sessionId']}.jsonl").is_file()][:2]
    for i, key in enumerate(keys):
        new = Session(f"after-reset-{i}")
        new.user(f"a new generation {i}")
        reset(sessions, key, new)
    import_dir(src)
    multi = query(state, "SELECT session_key FROM transcripts GROUP BY 1 HAVING count(*) > 1")
    assert {k for (k,) in multi} >= set(keys)
    sources = sorted(p for p in src.rglob("*.jsonl*") if p.is_file())
    assert sum(".jsonl.reset." in p.name for p in sources) > 2
    names: dict[str, Path] = {}
    for agent_dir in sorted((state / "agents").iterdir()):
        names.update(exported_files(state, agent_dir.name, tmp_path / "out"))
    assert sorted(names) == sorted(p.name for p in sources)
    for p in sources:
        assert names[p.name].read_bytes() == p.read_bytes(), p


def line(eid: str, parent: str | None, role: str, content: bytes) -> bytes:
    head = {"type": "message", "id": eid, "parentId": parent, "message": {"role": role}}
    return json.dumps(head).encode()[:-2] + b', "content": "' + content + b'"}}'


HOSTILE = (
    b"\xef\xbb\xbf"  # a BOM on the first line
    + json.dumps({"type": "session", "version": 3, "id": "h1"}).encode()
    + b"\n"
    + line("a1", None, "user", b"hi")
    + b"\r\n"
    + b"\n"  # a blank line (import skips it; export gives it back)
    + b"{not json at all\n"  # malformed: quarantined, given back in place
    + line("a2", "a1", "assistant", b"\xff")  # not UTF-8: quarantined
    + b"\n"
    + line("a3", "a1", "assistant", b"ok")
    + b"\n"
    + b"\n\n"
    + b'{"type":"message","id":"a4","parentId":"a3"'  # no newline yet: not imported
)


@pytest.mark.slow
def test_jsonl_gives_back_quarantined_and_blank_lines_in_place(state: Path, tmp_path: Path) -> None:
    path = sdir(tmp_path / "src") / "h1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(HOSTILE)
    write_sessions_json(path.parent, {"agent:main:main": {"sessionId": "h1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 4  # the malformed lines
    consumed = HOSTILE[: HOSTILE.rindex(b"\n") + 1]  # the partial last line waits
    r = export("main", "--format", "jsonl")
    assert r.exit_code == 0, r.stderr
    assert r.stdout_bytes == consumed
    with open_store(state, "main") as conn:
        (tid,) = conn.execute("SELECT transcript_id FROM transcripts").fetchone()
        assert b"".join(line + b"\n" for line in raw_lines(conn, tid)) == consumed
    # the writer finishes the line: the append is given back too
    path.write_bytes(HOSTILE + b"}\n")
    assert run_cli("import", str(tmp_path / "src")).exit_code in (0, 4)
    assert export("main", "--format", "jsonl").stdout_bytes == HOSTILE + b"}\n"


def test_jsonl_refuses_lines_it_cannot_give_back_exactly(state: Path, tmp_path: Path) -> None:
    """A line of blanks other than an empty one is not stored: the export says so (exit 3)
    instead of handing back different bytes, and --output leaves nothing behind."""
    s = Session("w1")
    s.user("hello")
    path = s.write(sdir(tmp_path / "src") / "w1.jsonl")
    path.write_bytes(path.read_bytes() + b"  \t\n")
    write_sessions_json(path.parent, {"agent:main:main": {"sessionId": "w1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    out = tmp_path / "w1.jsonl"
    r = export("main", "--format", "jsonl", "-o", str(out))
    assert r.exit_code == 3
    assert "differ from the file import read" in r.stderr
    assert not out.exists()
    assert list(tmp_path.glob(".w1.jsonl.*")) == []


def test_raw_lines_skips_quarantine_left_from_an_older_revision(
    state: Path, tmp_path: Path
) -> None:
    """A rewritten file is stored again; a quarantined line of its old revision never takes
    the place of a line of the new one."""
    path = sdir(tmp_path / "src") / "r1.jsonl"
    path.parent.mkdir(parents=True)
    head = json.dumps({"type": "session", "version": 3, "id": "r1"}).encode() + b"\n"
    path.write_bytes(head + b"{broken\n")
    write_sessions_json(path.parent, {"agent:main:main": {"sessionId": "r1"}})
    run_cli("import", str(tmp_path / "src"))
    fixed = head + line("b1", None, "user", b"x") + b"\n"
    path.write_bytes(fixed)
    run_cli("import", str(tmp_path / "src"))
    assert export("main", "--format", "jsonl").stdout_bytes == fixed


# --- md and json -----------------------------------------------------------------------------


def _conversation(tmp_path: Path) -> Session:
    s = Session("c1")
    s.user("Please deploy with token " + SECRET)
    long = "word " * 3000  # 15,000 characters: over the 4000-unit cap
    s.assistant(
        "Done. See [the docs](https://example.com/docs).\n\n```sh\nkubectl apply -f x.yaml\n```\n"
        + long,
        thinking="check \x1b[31mred\x1b[0m first",
    )
    s.tool("exec output " + SECRET)
    load = sdir(tmp_path / "src")
    s.write(load / "c1.jsonl")
    write_sessions_json(load, {"agent:main:main": {"sessionId": "c1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    return s


def test_md_is_for_people_whole_and_redacted(tmp_path: Path) -> None:
    _conversation(tmp_path)
    r = export("main", "--utc")
    assert r.exit_code == 0, r.stderr
    md = r.stdout
    assert md.startswith("# agent:main:main\n\n## Session c1 (current)\n")
    assert "### user · 2026-01-01 00:00 UTC" in md
    assert "### assistant · " in md
    assert "```sh\nkubectl apply -f x.yaml\n```" in md  # code blocks kept as written
    assert "[the docs](https://example.com/docs)" in md  # links kept
    assert ("word " * 3000).strip() in md  # whole: no 4000-unit cut
    assert SECRET not in md
    assert "sk-ant" in md  # redacted, upstream's shape
    assert "\x1b" not in md
    assert "\\x1b[31mred" in md  # controls shown, not obeyed
    assert "<details><summary>thinking</summary>" in md
    assert "exec output" not in md  # tool results only with --include-tools
    tools = export("main", "--include-tools").stdout
    assert "### toolResult · exec · " in tools
    assert "```\nexec output sk-ant" in tools


def test_json_is_the_active_branch_whole_and_redacted(tmp_path: Path) -> None:
    _conversation(tmp_path)
    for args in (["--format", "json"], ["--json"]):
        r = export("main", *args)
        assert r.exit_code == 0, r.stderr
        doc = json_out(r)
        assert doc["sessionKey"] == "agent:main:main"
        (gen,) = doc["generations"]
        assert (gen["sessionId"], gen["kind"], gen["archivedAt"]) == ("c1", "current", None)
        assert [m["role"] for m in gen["messages"]] == ["user", "assistant"]
        text = gen["messages"][1]["content"][1]["text"]
        assert ("word " * 3000).strip() in text  # whole: no 4000-unit cut
        assert "…(truncated)…" not in r.stdout
        assert SECRET not in r.stdout
        assert gen["contentRedacted"] is True


def reset(sessions: Path, key: str, new: Session, stamp: str = "2026-03-01T10-00-00.000Z") -> Path:
    """Upstream's legacy /reset: the key's transcript is renamed to a reset archive, a new
    one is started and the store points the key at it. Returns the archive."""
    store = json.loads((sessions / "sessions.json").read_text())
    old = store[key]["sessionId"]
    archive = sessions / f"{old}.jsonl.reset.{stamp}"
    (sessions / f"{old}.jsonl").rename(archive)
    new.write(sessions / f"{new.session_id}.jsonl")
    store[key] = {**store[key], "sessionId": new.session_id}
    (sessions / "sessions.json").write_text(json.dumps(store))
    return archive


def test_all_generations_are_oldest_first(tmp_path: Path) -> None:
    old, cur = Session("g-old", ts0=1_700_000_000_000), Session("g-new")
    old.user("the old generation")
    cur.user("the current one")
    d = sdir(tmp_path / "src")
    old.write(d / "g-old.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "g-old"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    reset(d, "agent:main:main", cur, "2025-11-14T22-13-20.000Z")
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    doc = json_out(export("main", "--json", "--all-generations"))
    assert [(g["sessionId"], g["kind"]) for g in doc["generations"]] == [
        ("g-old", "reset"),
        ("g-new", "current"),
    ]
    assert [g["sessionId"] for g in json_out(export("main", "--json"))["generations"]] == ["g-new"]
    # a session id names its own generation
    assert [g["sessionId"] for g in json_out(export("g-old", "--json"))["generations"]] == ["g-old"]
    # jsonl: one file per transcript, never concatenated (stdout is refused)
    assert export("main", "--format", "jsonl", "--all-generations").exit_code == 2
    out = tmp_path / "gens"
    assert export("main", "--format", "jsonl", "--all-generations", "-o", str(out)).exit_code == 0
    for name in ("g-old.jsonl.reset.2025-11-14T22-13-20.000Z", "g-new.jsonl"):
        assert (out / name).read_bytes() == (d / name).read_bytes()
    md = export("main", "--all-generations").stdout
    assert md.index("## Session g-old (reset 2025-11-14T22-13-20.000Z)") < md.index(
        "## Session g-new (current)"
    )


# --- where it goes ---------------------------------------------------------------------------


def test_output_file_is_atomic_and_never_clobbered_without_force(tmp_path: Path) -> None:
    _conversation(tmp_path)
    out = tmp_path / "chat.md"
    r = export("main", "-o", str(out))
    assert r.exit_code == 0
    assert r.stdout == ""
    assert f"wrote {out}" in r.stderr
    first = out.read_text()
    assert first.startswith("# agent:main:main")
    out.write_text("mine")
    r = export("main", "-o", str(out))
    assert r.exit_code == 2
    assert "exists" in r.stderr
    assert "--force" in r.stderr
    assert out.read_text() == "mine"
    assert export("main", "-o", str(out), "--force").exit_code == 0
    assert out.read_text() == first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left
    assert export("main", "-o", "-").stdout == first  # - is stdout


def test_raw_files_are_private_md_follows_the_umask(tmp_path: Path) -> None:
    _conversation(tmp_path)
    raw, md = tmp_path / "c1.jsonl", tmp_path / "c1.md"
    assert export("main", "--format", "jsonl", "-o", str(raw)).exit_code == 0
    assert stat.S_IMODE(raw.stat().st_mode) == 0o600
    old = os.umask(0o022)
    try:
        assert export("main", "-o", str(md)).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(md.stat().st_mode) == 0o644


def test_output_directory_gets_files_named_like_the_transcripts(tmp_path: Path) -> None:
    _conversation(tmp_path)
    d = tmp_path / "dir"
    d.mkdir()
    assert export("main", "--format", "jsonl", "-o", str(d)).exit_code == 0
    assert export("main", "-o", str(d)).exit_code == 0
    assert export("main", "--format", "json", "-o", str(d)).exit_code == 0
    assert sorted(p.name for p in d.iterdir()) == ["c1.json", "c1.jsonl", "c1.md", "sessions.json"]
    src = sdir(tmp_path / "src") / "c1.jsonl"
    assert (d / "c1.jsonl").read_bytes() == src.read_bytes()
    assert export("main", "--format", "jsonl", "-o", str(d)).exit_code == 2  # exists


def test_missing_directory_and_unknown_key_are_usage_errors(tmp_path: Path) -> None:
    _conversation(tmp_path)
    r = export("main", "-o", str(tmp_path / "no" / "such" / "file.md"))
    assert r.exit_code != 0
    assert r.stderr.startswith("error: ")
    assert "Traceback" not in r.stderr
    r = export("agent:main:nope")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ")
    assert export("main", "--format", "yaml").exit_code == 2


def test_a_session_without_transcript_exports_nothing(state: Path, tmp_path: Path) -> None:
    d = sdir(tmp_path / "src")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "gone"}})
    run_cli("import", str(tmp_path / "src"))
    out = tmp_path / "x.md"
    r = export("main", "-o", str(out))
    assert r.exit_code == 1
    assert "nothing to export" in r.stderr
    assert not out.exists()


# --- who may export what ---------------------------------------------------------------------


def _two_sessions(tmp_path: Path) -> None:
    parent, child = Session("p1"), Session("k1")
    parent.user("parent talk " + "x" * 5000)
    child.user("child talk")
    d = sdir(tmp_path / "src")
    parent.write(d / "p1.jsonl")
    child.write(d / "k1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "p1"},
                    "agent:main:subagent:k1": {"sessionId": "k1",
                                               "spawnedBy": "agent:main:main"}})  # fmt: skip
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0


def test_jsonl_is_for_the_operator_only(tmp_path: Path) -> None:
    _two_sessions(tmp_path)
    r = export("main", "--format", "jsonl", "--as", "agent:main:main")
    assert r.exit_code == 2
    assert "operator" in r.stderr
    assert r.stdout == ""


def test_with_as_visibility_applies_and_the_caps_stay(tmp_path: Path) -> None:
    _two_sessions(tmp_path)
    r = export("main", "--json", "--as", "agent:main:subagent:k1", "--visibility", "self")
    assert r.exit_code == 2
    assert "restricted" in r.stderr
    r = export("agent:main:subagent:k1", "--json", "--as", "agent:main:main")
    assert r.exit_code == 0
    assert json_out(r)["generations"][0]["messages"]
    capped = json_out(export("main", "--json", "--as", "agent:main:main"))["generations"][0]
    assert capped["truncated"] is True
    assert "…(truncated)…" in json.dumps(capped, ensure_ascii=False)
    whole = json_out(export("main", "--json"))["generations"][0]
    assert whole["truncated"] is False
    assert "x" * 5000 in json.dumps(whole)


# --- the store ---------------------------------------------------------------------------------


def test_raw_lines_of_an_unknown_transcript_is_empty(state: Path, tmp_path: Path) -> None:
    _conversation(tmp_path)
    with open_store(state, "main") as conn:
        assert list(raw_lines(conn, 999)) == []


@pytest.mark.slow
def test_installed_command_round_trips_the_largest_real_transcript(
    corpus: Path, tmp_path: Path
) -> None:
    """Through the console script and a pipe, as a migration script would run it."""
    exe = Path(sys.executable).parent / "openclaw-sessions"
    biggest = max(
        (p for p in corpus.rglob("*.jsonl*") if p.is_file()), key=lambda p: p.stat().st_size
    )
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(tmp_path / "st")}
    subprocess.run([exe, "import", str(biggest), "--quiet"], env=env, check=True)
    sid = biggest.name.split(".jsonl")[0]
    out = subprocess.run([exe, "export", sid, "--agent",
                          biggest.parents[1].name, "--format", "jsonl"], env=env,
                         capture_output=True, check=True)  # fmt: skip
    assert out.stdout == biggest.read_bytes()
