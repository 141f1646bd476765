"""Export → import keeps identity: `export KEY --format jsonl -o DIR/` writes a bundle (the
key's transcripts named as OpenClaw names them, and its `sessions.json` entry) and
`import DIR` restores key, label, links and generations. Whole stores (generated with reset
archives and spawned sessions, and the real corpus) are migrated into an empty state dir and
back, and compared field by field: `sessions --json`, `history --full --json` per key, and
search hits."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from helpers import Session, generate_corpus, installed, json_out, run_cli, write_sessions_json

from openclaw_sessions.policy import bundle

WINDOWS = "C:\\Users\\me\\.openclaw\\agents\\main\\sessions\\"  # another machine's path
WORDS = (
    "deploy",
    "database",
    "backup",
    "invoice",
    "timeout",
    "café",
    "量子",  # generated
    "openclaw",
    "error",
    "file",
    "session",
    "的",
    "です",
    "und",
    "của",
    "що",
)  # real


def cli(*args: str) -> Any:
    r = run_cli(*args)
    assert r.exit_code in (0, 1, 4), (args, r.exit_code, r.stderr)
    return r


def listing(state: Path) -> list[dict[str, Any]]:
    doc = json_out(cli("sessions", "--all-agents", "--json", "--state-dir", str(state)))
    return sorted(doc["sessions"], key=lambda s: (s["agentId"], s["sessionKey"]))


def snapshot(state: Path) -> dict[str, Any]:
    """What a user sees of a state dir: every session's row, every key's history whole, and
    the hits of a few words (key, session id, message id)."""
    rows = listing(state)
    histories = {}
    for s in rows:
        r = run_cli("history", s["sessionKey"], "--full", "--json", "--include-tools",
                    "--agent", s["agentId"], "--state-dir", str(state))  # fmt: skip
        histories[s["sessionKey"]] = (r.exit_code, r.stdout)
    hits = {}
    for w in WORDS:
        r = run_cli("search", w, "--all-agents", "--json", "--limit", "100000",
                    "--state-dir", str(state))  # fmt: skip
        found = json_out(r)["results"] if r.exit_code == 0 else []
        hits[w] = sorted((h["sessionKey"], h["sessionId"], h["messageId"]) for h in found)
    return {"sessions": rows, "history": histories, "hits": hits}


def migrate(state: Path, out: Path, *, layout: str) -> list[Path]:
    """Every key of every agent of ``state``, exported with --all-generations: into
    ``out/agents/<id>/sessions/`` (a state root) or ``out/<id>/`` (lone bundles). The
    bundle dirs."""
    dirs = []
    for s in listing(state):
        agent = s["agentId"]
        d = out / "agents" / agent / "sessions" if layout == "root" else out / agent
        r = run_cli("export", s["sessionKey"], "--agent", agent, "--format", "jsonl",
                    "--all-generations", "-o", f"{d}/", "--state-dir", str(state))  # fmt: skip
        assert r.exit_code == 0, (s["sessionKey"], r.stderr)
        dirs.append(d)
    return sorted(set(dirs))


def import_into(state: Path, src: Path, extra: tuple[str, ...] = ()) -> None:
    cli("import", str(src), "--quiet", "--state-dir", str(state), *extra)
    cli("reindex", "--all-agents", "--quiet", "--state-dir", str(state))


def assert_same(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert [s["sessionKey"] for s in after["sessions"]] == [
        s["sessionKey"] for s in before["sessions"]
    ]
    for a, b in zip(before["sessions"], after["sessions"], strict=True):
        assert a == b, a["sessionKey"]
    for key, got in before["history"].items():
        assert after["history"][key] == got, key
    assert after["hits"] == before["hits"]


def round_trip(state: Path, tmp_path: Path, *, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """``state`` → bundles in a state root → an empty state dir → lone bundles → another
    empty state dir; each compared with the first. The first snapshot."""
    cli("reindex", "--all-agents", "--quiet", "--state-dir", str(state))
    before = snapshot(state)
    there, back = tmp_path / "there", tmp_path / "back"
    assert migrate(state, tmp_path / "mig", layout="root")
    import_into(there, tmp_path / "mig", extra=extra)
    assert_same(before, snapshot(there))
    for d in migrate(there, tmp_path / "mig2", layout="lone"):  # `import DIR --agent ID`
        import_into(back, d, extra=(*extra, "--agent", d.name))
    assert_same(before, snapshot(back))
    return before


@pytest.mark.slow
def test_a_generated_store_round_trips_with_resets_and_spawned_sessions(
    state: Path, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    generate_corpus(src, 3000, agents=2, seed=11)
    cli("import", str(src), "--quiet")
    # two keys go through a /reset after the import: each holds two generations under one key
    sessions = src / "agents" / "main" / "sessions"
    store = json.loads((sessions / "sessions.json").read_text())
    reset_keys = [k for k, e in store.items() if (sessions / f"{e['sessionId']}.jsonl").is_file()]
    for i, key in enumerate(reset_keys[:2]):
        old = store[key]["sessionId"]
        (sessions / f"{old}.jsonl").rename(
            sessions / f"{old}.jsonl.reset.2026-07-0{i + 1}T10-00-00.000Z"
        )
        new = Session(f"after-reset-{i}")
        new.user(f"a new generation {i} deploy")
        new.write(sessions / f"after-reset-{i}.jsonl")
        store[key] = {**store[key], "sessionId": f"after-reset-{i}", "label": f"reset {i} 量子"}
    (sessions / "sessions.json").write_text(json.dumps(store))
    cli("import", str(src), "--quiet")
    before = round_trip(state, tmp_path)
    rows = before["sessions"]
    assert sum(s["generations"] > 1 for s in rows) >= 2
    assert any(":subagent:" in s["sessionKey"] for s in rows)
    assert any(":orphan:" in s["sessionKey"] for s in rows)  # archives no entry names
    assert len({s["agentId"] for s in rows}) == 2
    assert sum(map(len, before["hits"].values()))
    # the links came along: the subagents are spawned by the same keys
    there = tmp_path / "there"
    for agent in ("main", "ops"):
        spawned = {
            k: e.get("spawnedBy")
            for k, e in json.loads(
                (tmp_path / "mig" / "agents" / agent / "sessions" / "sessions.json").read_text()
            ).items()
        }
        src_store = json.loads((src / "agents" / agent / "sessions" / "sessions.json").read_text())
        assert spawned == {k: e.get("spawnedBy") for k, e in src_store.items() if k in spawned}
    assert (there / "agents").is_dir()


@pytest.mark.slow
def test_the_real_corpus_round_trips(corpus: Path, state: Path, tmp_path: Path) -> None:
    dirs = sorted(
        {p.parent for p in corpus.rglob("*") if p.is_file() and ".jsonl" in p.name}
        | {p.parent for p in corpus.rglob("sessions.json")}
    )
    for d in dirs:
        cli("import", str(d), "--quiet", "--include-archives")
    before = round_trip(state, tmp_path, extra=("--include-archives",))
    assert len(before["sessions"]) >= 15
    assert sum(map(len, before["hits"].values())) > 100
    assert any(s["label"] for s in before["sessions"])


# --- the bundle -------------------------------------------------------------------------------


def _reset_key(tmp_path: Path) -> Path:
    """agent:main:main with two generations (a /reset after the first import), a subagent it
    spawned, and an archive no entry names. The source sessions dir."""
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    old, kid = Session("g-old"), Session("kid-1")
    old.user("the old generation walrus")
    kid.user("the child walrus")
    old.write(d / "g-old.jsonl")
    kid.write(d / "kid-1.jsonl")
    stray = Session("stray-1")
    stray.user("nobody names me walrus")
    stray.write(d / "stray-1.jsonl.reset.2026-01-01T00-00-00.000Z")
    entries = {
        "agent:main:main": {"sessionId": "g-old", "label": "Main chat",
                            "updatedAt": 1_767_000_000_000,
                            "sessionFile": WINDOWS + "g-old.jsonl"},
        "agent:main:subagent:k1": {"sessionId": "kid-1", "spawnedBy": "agent:main:main",
                                   "parentSessionKey": "agent:main:main", "label": "kid",
                                   "updatedAt": 1_767_000_100_000},
    }  # fmt: skip
    write_sessions_json(d, entries)
    assert run_cli("import", str(tmp_path / "src")).exit_code in (0, 4)
    (d / "g-old.jsonl").rename(d / "g-old.jsonl.reset.2026-02-01T00-00-00.000Z")
    new = Session("g-new")
    new.user("the current generation walrus")
    new.write(d / "g-new.jsonl")
    write_sessions_json(
        d, {**entries, "agent:main:main": {**entries["agent:main:main"], "sessionId": "g-new"}}
    )
    assert run_cli("import", str(tmp_path / "src")).exit_code in (0, 4)
    return d


@pytest.mark.slow
def test_the_example_in_help_writes_a_private_directory_never_one_file(tmp_path: Path) -> None:
    """`export KEY --format jsonl --all-generations -o backup-dir/`: a directory (created,
    0700), one file per transcript, and the key's entry in sessions.json (0600)."""
    _reset_key(tmp_path)
    os.chdir(tmp_path)
    r = installed("export", "agent:main:main", "--format", "jsonl", "--all-generations",
                  "-o", "backup-dir/", state=tmp_path / "state")  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = tmp_path / "backup-dir"
    assert out.is_dir()
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert sorted(p.name for p in out.iterdir()) == [
        "g-new.jsonl", "g-old.jsonl.reset.2026-02-01T00-00-00.000Z", "sessions.json"
    ]  # fmt: skip
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in out.iterdir())
    entry = json.loads((out / "sessions.json").read_text())["agent:main:main"]
    assert entry["sessionId"] == "g-new"
    assert entry["label"] == "Main chat"
    assert entry["updatedAt"] == 1_767_000_000_000
    assert entry["sessionFile"] == "g-new.jsonl"  # the other machine's path means nothing here
    assert bundle.generation_files(entry) == ["g-old.jsonl.reset.2026-02-01T00-00-00.000Z"]
    # --all-generations with jsonl means a directory, whatever the path ends in
    r = installed("export", "agent:main:main", "--format", "jsonl", "--all-generations",
                  "-o", "more", state=tmp_path / "state")  # fmt: skip
    assert r.returncode == 0
    assert (tmp_path / "more" / "g-new.jsonl").is_file()
    # an existing regular file is no directory (exit 2), and stdout never gets two transcripts
    (tmp_path / "plain").write_text("mine")
    for dest in (["-o", "plain"], []):
        r = installed("export", "agent:main:main", "--format", "jsonl", "--all-generations",
                      *dest, state=tmp_path / "state")  # fmt: skip
        assert r.returncode == 2
        assert r.stderr.startswith("error: ")
        assert r.stdout == ""
    assert (tmp_path / "plain").read_text() == "mine"


def test_a_trailing_slash_makes_a_directory_for_every_format(tmp_path: Path) -> None:
    _reset_key(tmp_path)
    out = tmp_path / "a" / "b"
    assert run_cli("export", "main", "-o", f"{out}/").exit_code == 0
    assert run_cli("export", "main", "--json", "-o", f"{out}/").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["g-new.json", "g-new.md"]
    r = run_cli("export", "main", "--format", "jsonl", "-o", f"{out}/")  # the current only
    assert r.exit_code == 0
    doc = json.loads((out / "sessions.json").read_text())
    assert bundle.generation_files(doc["agent:main:main"]) == []


def test_keys_exported_into_one_directory_share_its_sessions_json(tmp_path: Path) -> None:
    _reset_key(tmp_path)
    out = tmp_path / "b"
    for key in ("main", "agent:main:subagent:k1", "stray-1"):
        r = run_cli("export", key, "--format", "jsonl", "--all-generations", "-o", str(out))
        assert r.exit_code == 0, r.stderr
    doc = json.loads((out / "sessions.json").read_text())
    assert sorted(doc) == ["agent:main:main", "agent:main:subagent:k1"]  # an orphan: no entry
    assert doc["agent:main:subagent:k1"]["spawnedBy"] == "agent:main:main"
    # another entry for a key is kept unless --force; the same one is no conflict
    doc["agent:main:main"]["label"] = "edited"
    (out / "sessions.json").write_text(json.dumps(doc))
    r = run_cli("export", "main", "--format", "jsonl", "-o", f"{out}/")
    assert r.exit_code == 2
    assert "another entry" in r.stderr
    r = run_cli("export", "main", "--format", "jsonl", "-o", f"{out}/", "--force")
    assert r.exit_code == 0
    assert (
        json.loads((out / "sessions.json").read_text())["agent:main:main"]["label"] == "Main chat"
    )
    # one generation exported later keeps the list the earlier export wrote
    assert bundle.generation_files(
        json.loads((out / "sessions.json").read_text())["agent:main:main"]
    )
    (out / "sessions.json").write_text("[1, 2]")
    r = run_cli("export", "main", "--format", "jsonl", "-o", f"{out}/", "--force")
    assert r.exit_code == 2
    assert "not a session store" in r.stderr


def test_import_restores_key_label_links_and_generations(tmp_path: Path) -> None:
    _reset_key(tmp_path)
    out = tmp_path / "b"
    for key in ("main", "agent:main:subagent:k1"):
        assert (
            run_cli(
                "export", key, "--format", "jsonl", "--all-generations", "-o", str(out)
            ).exit_code
            == 0
        )
    other = tmp_path / "other"
    r = run_cli("import", str(out), "--state-dir", str(other), "--json")
    assert r.exit_code == 0, r.stdout  # nothing unreferenced: the archive is the key's
    rows = {
        s["sessionKey"]: s
        for s in json_out(run_cli("sessions", "--json", "--state-dir", str(other)))["sessions"]
    }
    assert rows["agent:main:main"]["generations"] == 2
    assert rows["agent:main:main"]["label"] == "Main chat"
    assert rows["agent:main:main"]["sessionId"] == "g-new"
    r = run_cli(
        "sessions",
        "--as",
        "agent:main:main",
        "--visibility",
        "tree",
        "--json",
        "--state-dir",
        str(other),
    )
    assert {s["sessionKey"] for s in json_out(r)["sessions"]} == {
        "agent:main:main",
        "agent:main:subagent:k1",
    }


def test_import_with_agent_rescopes_keys_and_links(tmp_path: Path) -> None:
    """`import DIR --agent ID`: the lone sessions dir is ID's (as before), and now its keys
    and the links naming its agent are ID's too; a link to another agent stays."""
    _reset_key(tmp_path)
    out = tmp_path / "b"
    for key in ("main", "agent:main:subagent:k1", "stray-1"):
        assert (
            run_cli(
                "export", key, "--format", "jsonl", "--all-generations", "-o", str(out)
            ).exit_code
            == 0
        )
    doc = json.loads((out / "sessions.json").read_text())
    doc["agent:main:subagent:k1"]["ownerSessionKey"] = "agent:ops:main"
    (out / "sessions.json").write_text(json.dumps(doc))
    other = tmp_path / "other"
    r = run_cli("import", str(out), "--agent", "Work", "--state-dir", str(other), "--reindex")
    assert r.exit_code in (0, 4), r.stderr
    rows = {
        s["sessionKey"]: s
        for s in json_out(
            run_cli("sessions", "--agent", "work", "--json", "--state-dir", str(other))
        )["sessions"]
    }
    assert set(rows) == {"agent:work:main", "agent:work:subagent:k1", "agent:work:orphan:stray-1"}
    assert rows["agent:work:main"]["generations"] == 2
    assert rows["agent:work:main"]["label"] == "Main chat"
    assert not (other / "agents" / "main").exists()
    r = run_cli("sessions", "--agent", "work", "--as", "agent:work:main", "--visibility", "tree",
                "--json", "--state-dir", str(other))  # fmt: skip
    assert "agent:work:subagent:k1" in {s["sessionKey"] for s in json_out(r)["sessions"]}
    r = run_cli("export", "agent:work:subagent:k1", "--format", "jsonl",
                "-o", f"{tmp_path / 'c'}/", "--state-dir", str(other))  # fmt: skip
    assert r.exit_code == 0
    kid = json.loads((tmp_path / "c" / "sessions.json").read_text())["agent:work:subagent:k1"]
    assert kid["spawnedBy"] == "agent:work:main"
    assert kid["ownerSessionKey"] == "agent:ops:main"
    hits = json_out(
        run_cli("search", "walrus", "--agent", "work", "--json", "--state-dir", str(other))
    )
    assert {h["sessionKey"] for h in hits["results"]} == set(rows)


def test_a_lone_bundle_goes_to_the_agent_its_keys_name(tmp_path: Path) -> None:
    d = tmp_path / "src" / "agents" / "ops" / "sessions"
    s = Session("o1")
    s.user("ops talk")
    s.write(d / "o1.jsonl")
    write_sessions_json(d, {"agent:ops:main": {"sessionId": "o1"}})
    assert run_cli("import", str(tmp_path / "src")).exit_code == 0
    out = tmp_path / "b"
    assert run_cli("export", "agent:ops:main", "--format", "jsonl", "-o", f"{out}/").exit_code == 0
    other = tmp_path / "other"
    assert run_cli("import", str(out), "--state-dir", str(other)).exit_code == 0
    assert (other / "agents" / "ops").is_dir()
    assert not (other / "agents" / "main").exists()
    # one agent's keys only in a bundle
    r = run_cli("export", "agent:ops:main", "--format", "jsonl", "-o", f"{out}/", "--force")
    assert r.exit_code == 0
    doc = json.loads((out / "sessions.json").read_text())
    (out / "sessions.json").write_text(json.dumps({**doc, "agent:main:x": {"sessionId": "x"}}))
    r = run_cli("export", "agent:ops:main", "--format", "jsonl", "-o", f"{out}/", "--force")
    assert r.exit_code == 2
    assert "one agent" in r.stderr


@pytest.mark.parametrize("key", ["agent:main:main"])
def test_a_key_without_transcript_exports_its_entry(key: str, tmp_path: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    write_sessions_json(d, {key: {"sessionId": "gone", "label": "kept"}})
    run_cli("import", str(tmp_path / "src"))
    out = tmp_path / "b"
    assert run_cli("export", key, "-o", str(tmp_path / "x.md")).exit_code == 1
    assert run_cli("export", key, "--format", "jsonl", "-o", f"{out}/").exit_code == 0
    assert json.loads((out / "sessions.json").read_text())[key]["label"] == "kept"


def test_the_state_roots_own_sessions_dirs_are_never_written(state: Path, tmp_path: Path) -> None:
    _reset_key(tmp_path)
    ours = state / "agents" / "ops" / "sessions"
    r = run_cli("export", "main", "--format", "jsonl", "-o", f"{ours}/")
    assert r.exit_code == 2
    assert "never written" in r.stderr
    assert not ours.exists()


def test_a_bundles_read_store_keeps_its_generations_for_the_next_run(tmp_path: Path) -> None:
    """What import keeps of a read session store (while the file is unchanged it is not read
    again) includes the older generations a bundle entry lists."""
    from openclaw_sessions.ingest import discover

    d = tmp_path / "b"
    entry = bundle.with_generations({"sessionId": "n1"}, ["o1.jsonl.reset.2026-01-01T00-00-00Z"])
    write_sessions_json(d, {"agent:main:main": entry})
    read = discover.SessionsDir("work", d, rescope=True)
    discover.read_sessions_json(read)
    assert [e.key for e in read.entries] == ["agent:work:main"]
    again = discover.SessionsDir("work", d)
    again.load_summary(read.summary(), {})
    assert (
        again.archives
        == read.archives
        == [("agent:work:main", "o1.jsonl.reset.2026-01-01T00-00-00Z")]
    )


def test_the_bundle_policy_follows_no_path_and_rescopes_only_its_own_agents() -> None:
    entry = {
        "sessionId": "n1",
        bundle.FIELD: {bundle.GENERATIONS: ["a.jsonl.reset.x", "../b.jsonl", "/etc/passwd",
                                            "c\\d.jsonl", "..", 7, "e.jsonl"]},
    }  # fmt: skip
    assert bundle.generation_files(entry) == ["a.jsonl.reset.x", "e.jsonl"]
    assert bundle.generation_files({"openclawSessions": "x"}) == []
    assert bundle.without_generations(entry) == {"sessionId": "n1"}
    links = {"spawnedBy": "agent:main:main", "ownerSessionKey": "agent:ops:main", "label": "x"}
    moved = bundle.rescope_entry(links, "work", {"main"})
    assert moved == {**links, "spawnedBy": "agent:work:main"}
    assert bundle.rescope_key("global", "work", {"main"}) == "global"


@pytest.mark.slow
def test_exports_at_once_into_one_directory_all_land(tmp_path: Path) -> None:
    """Real processes racing for one bundle's sessions.json: the read-merge-write holds a lock
    on the directory, so no entry is lost."""
    import subprocess

    from helpers import SCRIPT

    _reset_key(tmp_path)
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    for round_ in range(3):
        out = tmp_path / f"race-{round_}"
        procs = [
            subprocess.Popen(
                [
                    str(SCRIPT),
                    "export",
                    key,
                    "--format",
                    "jsonl",
                    "--all-generations",
                    "-o",
                    str(out),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )  # fmt: skip
            for key in ("agent:main:main", "agent:main:subagent:k1", "stray-1")
        ]
        assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
        doc = json.loads((out / "sessions.json").read_text())
        assert sorted(doc) == ["agent:main:main", "agent:main:subagent:k1"]
        assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temp left
