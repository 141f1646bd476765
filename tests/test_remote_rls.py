"""The README's per-host reader recipe, run on a real PostgreSQL: with row-level security keyed
by host, `search --remote` as that reader finds its host's rows and nothing else, whatever
`--host` says; the default privileges reach a table a later migration adds."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from helpers import REPO, Session, run_cli, write_sessions_json

from tests import remote_env as env


def _host(tmp_path: Path, name: str, word: str) -> Path:
    state = tmp_path / name
    sdir = state / "agents" / "main" / "sessions"
    s = Session(f"s-{name}")
    s.user(f"pelicanword {word}")
    s.write(sdir / f"s-{name}.jsonl")
    write_sessions_json(sdir, {"agent:main:main": {"sessionId": f"s-{name}"}})
    assert run_cli("import", "--quiet", "--state-dir", str(state)).exit_code in (0, 4)
    return state


def _recipe_sql() -> list[str]:
    """The README's RLS block, the 'same two policies' comment spelt out for each table."""
    readme = (REPO / "README.md").read_text("utf-8")
    block = readme.split("**Who reads what.**", 1)[1].split("```sql\n", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        if line.startswith("--") or not line.strip():
            continue
        out.append(line)
        if line.startswith("CREATE POLICY"):
            for table in ("ocs_sessions", "ocs_transcripts", "ocs_hosts"):
                out.append(line.replace("ocs_rows", table))
    return out


def test_a_per_host_reader_reads_its_host_only(tmp_path: Path) -> None:
    target = env.new_db()
    db = target.split("dbname=")[1].split()[0]
    env.push(target, _host(tmp_path, "gw1", "alpha"), "gw1")
    env.push(target, _host(tmp_path, "gw2", "beta"), "gw2")
    suffix = uuid.uuid4().hex[:8]
    names = {"ocs_push": f"ocs_push_{suffix}", "ocs_search": f"ocs_search_{suffix}",
             "ocs_read_gw1": f"ocs_read_gw1_{suffix}"}  # fmt: skip
    env.admin(f"CREATE ROLE {names['ocs_push']} LOGIN", db=db)
    env.admin(f"CREATE ROLE {names['ocs_search']} LOGIN", db=db)
    env.admin(f"GRANT USAGE ON SCHEMA openclaw_sessions TO {names['ocs_search']}", db=db)
    env.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA openclaw_sessions TO {names['ocs_search']}",
              db=db)  # fmt: skip  (the privileges recipe's search role)
    for stmt in _recipe_sql():
        for old, new in names.items():
            stmt = re.sub(rf"\b{old}\b", new, stmt)
        env.admin(stmt, db=db)
    reader = env.dsn(db, user=names["ocs_read_gw1"])
    r = run_cli("search", "pelicanword", "--remote", reader, "--json")
    assert r.exit_code == 0, r.stderr
    assert {h["host"] for h in json.loads(r.stdout)["results"]} == {"gw1"}
    other = run_cli("search", "beta", "--remote", reader, "--host", "gw2", "--json")
    assert other.exit_code == 1
    everyone = run_cli("search", "pelicanword", "--remote", env.dsn(db, user=names["ocs_search"]),
                       "--json")  # fmt: skip
    assert everyone.exit_code == 0, everyone.stderr  # the whole fleet, as before
    assert {h["host"] for h in json.loads(everyone.stdout)["results"]} == {"gw1", "gw2"}


def test_default_privileges_reach_a_table_a_migration_adds(tmp_path: Path) -> None:
    target = env.new_db()
    db = target.split("dbname=")[1].split()[0]
    env.push(target, _host(tmp_path, "gw1", "alpha"), "gw1")
    role = f"ocs_search_{uuid.uuid4().hex[:8]}"
    env.admin(f"CREATE ROLE {role} LOGIN", db=db)
    env.admin(f"GRANT USAGE ON SCHEMA openclaw_sessions TO {role}", db=db)
    default = "ALTER DEFAULT PRIVILEGES IN SCHEMA openclaw_sessions GRANT SELECT ON TABLES TO"
    env.admin(f"{default} {role}", db=db)
    env.admin("CREATE TABLE openclaw_sessions.ocs_later (x int)", db=db)  # a later migration
    import psycopg

    with psycopg.connect(env.dsn(db, user=role)) as conn:
        assert conn.execute("SELECT count(*) FROM openclaw_sessions.ocs_later").fetchone() == (0,)
