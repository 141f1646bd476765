"""push is incremental and idempotent: a second push moves nothing; a delete, a rewind and a
changed redaction rule reach the central tables; an interrupted push resumes; pushes of
different hosts run side by side, two of one host one after the other."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, Session, write_sessions_json

from openclaw_sessions.remote import schema
from tests import remote_env as env


def _state(tmp_path: Path) -> tuple[Path, Session]:
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("s1")
    s.user("first pelicanword message")
    branch = s.assistant("second reply blueberrysecret42 here")
    s.user("third walrusword message")
    s.write(sdir / "s1.jsonl")
    t = Session("s2")
    t.user("another session pelicanword")
    t.write(sdir / "s2.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1", "updatedAt": 1},
                       "agent:main:other": {"sessionId": "s2", "updatedAt": 2}})  # fmt: skip
    _import(state)
    s.branch = branch  # type: ignore[attr-defined]
    return state, s


def _import(state: Path) -> None:
    r = env.cli("import", "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code in (0, 4), r.stderr


def _found(target: str, word: str) -> list[str]:
    r = env.cli("search", word, "--remote", target, "--json")
    assert r.exit_code in (0, 1), r.stderr
    return sorted(h["messageId"] for h in json.loads(r.stdout)["results"])


def _central_rows(target: str) -> int:
    db = target.split("dbname=")[1].split()[0]
    return int(env.admin("SELECT count(*) FROM openclaw_sessions.ocs_rows", db=db)[0][0])


def test_a_second_push_moves_nothing(tmp_path: Path) -> None:
    env.server()
    state, _ = _state(tmp_path)
    target = env.new_db()
    first = env.push(target, state, "gw")
    assert (first["upserted"], first["deleted"], first["unchanged"]) == (4, 0, 0)
    assert first["sessionsUpserted"] == 2
    assert first["migratedFrom"] == 0
    again = env.push(target, state, "gw")
    assert (again["upserted"], again["deleted"], again["unchanged"]) == (0, 0, 4)
    assert (again["sessionsUpserted"], again["sessionsDeleted"]) == (0, 0)
    assert again["migratedFrom"] == schema.VERSION
    assert again["transcriptsPushed"] == 0
    # a full reindex rewrites every local row: their hashes still match, nothing moves
    assert env.cli("reindex", "--full", "--state-dir", str(state), "--quiet").exit_code == 0
    after = env.push(target, state, "gw")
    assert (after["upserted"], after["deleted"], after["unchanged"]) == (0, 0, 4)


def test_delete_reaches_the_central_tables(tmp_path: Path) -> None:
    env.server()
    state, _ = _state(tmp_path)
    target = env.new_db()
    env.push(target, state, "gw")
    assert len(_found(target, "pelicanword")) == 2
    r = env.cli("delete", "agent:main:other", "--yes", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    done = env.push(target, state, "gw")
    assert (done["deleted"], done["sessionsDeleted"], done["upserted"]) == (1, 1, 0)
    assert len(_found(target, "pelicanword")) == 1
    assert _central_rows(target) == 3
    env.assert_postings_match_rows(target)


def test_a_rewind_reaches_the_central_tables(tmp_path: Path) -> None:
    env.server()
    state, s = _state(tmp_path)
    target = env.new_db()
    env.push(target, state, "gw")
    assert len(_found(target, "walrusword")) == 1
    s.navigate(s.branch)  # type: ignore[attr-defined]
    s.user("a new turn after the rewind narwhalword")
    s.write(state / "agents" / "main" / "sessions" / "s1.jsonl")
    _import(state)
    done = env.push(target, state, "gw")
    assert done["deleted"] == 1, done
    assert done["upserted"] == 1, done
    assert _found(target, "walrusword") == []
    assert len(_found(target, "narwhalword")) == 1
    env.assert_postings_match_rows(target)


def test_a_changed_redaction_rule_reaches_the_central_tables(tmp_path: Path) -> None:
    env.server()
    state, _ = _state(tmp_path)
    target = env.new_db()
    env.push(target, state, "gw")
    assert len(_found(target, "blueberrysecret42")) == 1
    rules = {"logging": {"redactPatterns": ["blueberry\\w+"]}}
    (state / "openclaw.json").write_text(json.dumps(rules))
    stale = env.push(target, state, "gw")  # rules changed, not reindexed yet: held back
    assert stale["stale"] == 2
    assert stale["deleted"] == 4
    assert _found(target, "blueberrysecret42") == []
    assert _found(target, "pelicanword") == []
    assert env.cli("reindex", "--state-dir", str(state), "--quiet").exit_code == 0
    done = env.push(target, state, "gw")
    assert done["upserted"] == 4
    assert done["stale"] == 0
    assert _found(target, "blueberrysecret42") == []
    assert len(_found(target, "pelicanword")) == 2
    db = target.split("dbname=")[1].split()[0]
    texts = env.admin("SELECT string_agg(text, ' ') FROM openclaw_sessions.ocs_rows", db=db)
    assert "blueberrysecret42" not in texts[0][0]
    env.assert_postings_match_rows(target)


def test_an_interrupted_push_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env.server()
    state, _ = env.make_host(tmp_path, 5, [], messages=300)
    target = env.new_db()
    from openclaw_sessions.remote import push as push_mod
    from openclaw_sessions.remote import sync

    real = sync._push_batch
    calls: list[int] = []

    def flaky(*args: Any, **kw: Any) -> None:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of a push
        real(*args, **kw)

    monkeypatch.setattr(sync, "BATCH_ROWS", 20)
    monkeypatch.setattr(sync, "_push_batch", flaky)
    opts = push_mod.PushOptions(target, state, "gw")
    with pytest.raises(KeyboardInterrupt):
        push_mod.push(opts)
    kept = _central_rows(target)
    assert kept > 0
    monkeypatch.setattr(sync, "_push_batch", real)
    done = push_mod.push(opts)
    assert done.unchanged == kept
    assert done.upserted > 0
    assert done.deleted == 0
    assert _central_rows(target) == kept + done.upserted
    again = push_mod.push(opts)
    assert (again.upserted, again.deleted) == (0, 0)


def test_pushes_side_by_side(tmp_path: Path) -> None:
    env.server()
    state, _ = env.make_host(tmp_path, 6, [], messages=300)
    target = env.new_db()
    from openclaw_sessions.remote import push as push_mod

    env.push(target, state, "warmup")  # the schema exists: the pushes below race on rows only
    results: dict[str, Any] = {}

    def run(name: str, host: str) -> None:
        try:
            results[name] = push_mod.push(push_mod.PushOptions(target, state, host))
        except Exception as exc:  # noqa: BLE001 - reported below
            results[name] = exc

    threads = [threading.Thread(target=run, args=(n, h))
               for n, h in (("a1", "gw-a"), ("b", "gw-b"), ("a2", "gw-a"))]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(not isinstance(r, Exception) for r in results.values()), results
    a1, a2 = results["a1"], results["a2"]
    # one of the two pushes of gw-a ran first and moved everything, the other nothing
    assert sorted([a1.upserted, a2.upserted]) == [0, results["b"].upserted]
    per_host = env.admin(
        "SELECT host, count(*) FROM openclaw_sessions.ocs_rows GROUP BY host ORDER BY host",
        db=target.split("dbname=")[1].split()[0],
    )
    counts = dict(per_host)
    assert counts["gw-a"] == counts["gw-b"] == counts["warmup"]


def test_push_of_one_agent_keeps_the_others(tmp_path: Path) -> None:
    env.server()
    state, _ = env.make_host(tmp_path, 7, [], messages=200)
    target = env.new_db()
    everything = env.push(target, state, "gw")
    only = env.push(target, state, "gw", "--agent", "main")
    assert only["agents"] == ["main"]
    assert only["deleted"] == 0
    assert only["upserted"] == 0
    assert _central_rows(target) == everything["upserted"]


@pytest.mark.slow
def test_the_readme_fleet_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's fleet section, each DSN pointed at the test server."""
    import re
    import shlex

    readme = (REPO / "README.md").read_text("utf-8")
    section = readme.split("## Fleet", 1)[1].split("\n## ", 1)[0]
    lines = [
        ln.split(" #")[0].strip()
        for block in re.findall(r"```(?:sh|cron)\n(.*?)```", section, flags=re.S)
        for ln in block.splitlines()
    ]
    cmds = [
        re.sub(r"^(\S+\s+){5}", "", ln) if ln.startswith("*/") else ln
        for ln in lines
        if ln and not ln.startswith("export ")  # the DSN: the test server's, below
    ]
    assert any(" push" in c for c in cmds)
    assert any("--remote" in c for c in cmds)
    state, _ = env.make_host(tmp_path, 8, [], messages=200)
    monkeypatch.setenv("OPENCLAW_SESSIONS_REMOTE", env.new_db())
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    for line in cmds:
        for cmd in line.split(";"):
            argv = shlex.split(re.sub(r"'?postgresql://[^\s']+'?", "-", cmd))
            assert argv[0].endswith("openclaw-sessions")  # cron's: by its absolute path
            r = env.cli(*argv[1:])
            assert r.exit_code in (0, 1), (cmd, r.stderr)


def test_an_agent_gone_from_the_host_is_forgotten(tmp_path: Path) -> None:
    env.server()
    state, _ = env.make_host(tmp_path, 9, [], messages=200)
    target = env.new_db()
    first = env.push(target, state, "gw")
    ops = {int(n) for (n,) in env.admin(
        "SELECT count(*) FROM openclaw_sessions.ocs_rows WHERE agent = 'ops'",
        db=target.split("dbname=")[1].split()[0],
    )}  # fmt: skip
    import shutil

    shutil.rmtree(state / "agents" / "ops")
    done = env.push(target, state, "gw")
    assert done["agents"] == ["main"]
    assert done["deleted"] == ops.pop() > 0
    assert _central_rows(target) == first["upserted"] - done["deleted"]
    assert env.push(target, state, "gw")["deleted"] == 0
    env.assert_postings_match_rows(target)


def test_migration_4_pushes_rows_with_cjk_text_again(tmp_path: Path) -> None:
    """Rows pushed before migration 4 held the words beside CJK text among their words: the
    next push folds every row with CJK text again (and only those), as rows.fold_text now
    does, and a word written against CJK text is found through the bigram branch."""
    env.server()
    state = tmp_path / "state"
    sdir = state / "agents" / "main" / "sessions"
    s = Session("s1")
    s.user("修改youer服务端 please")
    s.assistant("plain reply here")
    s.write(sdir / "s1.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": "s1", "updatedAt": 1}})
    _import(state)
    target = env.new_db()
    env.push(target, state, "gw")
    db = target.split("dbname=")[1].split()[0]
    fresh = env.admin("SELECT words, bigrams, ntok FROM openclaw_sessions.ocs_rows"
                      " WHERE bigrams IS NOT NULL", db=db)  # fmt: skip
    bigrams = " 修改 改 服务 务端 端 \ue000 youer \ue000 please "
    assert fresh == [(" 修改youer服务端 please ", bigrams, 2)]
    # as a schema-3 push left it: the glued words among the words
    env.admin("UPDATE openclaw_sessions.ocs_rows SET words = words || '\ue000 youer \ue000 ',"
              " ntok = 5 WHERE bigrams IS NOT NULL", db=db)  # fmt: skip
    env.admin("UPDATE openclaw_sessions.ocs_meta SET value = '3' WHERE key = 'schema_version'",
              db=db)  # fmt: skip
    env.admin("DROP TABLE openclaw_sessions.ocs_postings", db=db)  # none at schema 3
    again = env.push(target, state, "gw")
    assert again["migratedFrom"] == 3
    env.assert_postings_match_rows(target)  # migration 5 posted the rows it found
    assert (again["upserted"], again["unchanged"]) == (1, 1)
    got = env.admin("SELECT words, bigrams, ntok FROM openclaw_sessions.ocs_rows"
                    " WHERE bigrams IS NOT NULL", db=db)  # fmt: skip
    assert got == fresh
    assert len(_found(target, "youer")) == 1
    assert _found(target, "please") == _found(target, "修改")
