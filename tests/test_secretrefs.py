"""SecretRefs (issue 33.4): the values openclaw.json's ``env`` and ``file`` refs resolve to are
masked wherever they occur (as written, URL-encoded and JSON-escaped), in every output and the
index, and are never stored or printed; the fingerprint changes with them but holds only a hash."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions import config, secretrefs
from openclaw_sessions.redact import build_redactor

RNG = random.Random(33)


def _word() -> str:  # prose-like values no default rule masks on its own
    return "-".join(RNG.choice(["amber", "river", "cobalt", "maple", "orbit", "quartz"])
                    for _ in range(3)) + str(RNG.randint(10, 99))  # fmt: skip


ENV_VALUE, FILE_VALUE, SINGLE_VALUE, DOTENV_VALUE, VARS_VALUE = (_word() for _ in range(5))
ODD_VALUE = 'p@ss w"rd/' + str(RNG.randint(1000, 9999))  # encodes differently in URLs and JSON
SHORT = "abc12"  # under upstream's 6-character floor


@pytest.fixture
def configured(tmp_path: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    secrets_dir = tmp_path / "secrets"
    secrets_dir.mkdir()
    (secrets_dir / "keys.json").write_text(json.dumps({"providers": {"x": {"key": FILE_VALUE}}}))
    (secrets_dir / "single.txt").write_text(SINGLE_VALUE + "\n")
    (state / ".env").write_text(f"DOTENV_TOKEN={DOTENV_VALUE}\n# comment\n")
    monkeypatch.setenv("OC_TEST_API_KEY", ENV_VALUE)
    monkeypatch.setenv("OC_TEST_ODD", ODD_VALUE)
    monkeypatch.setenv("OC_TEST_SHORT", SHORT)
    cfg = {
        "env": {"vars": {"VARS_TOKEN": VARS_VALUE}},
        "secrets": {"providers": {
            "filemain": {"source": "file", "path": str(secrets_dir / "keys.json")},
            "single": {"source": "file", "path": str(secrets_dir / "single.txt"),
                       "mode": "singleValue"},
        }},
        "models": {"providers": {
            "a": {"apiKey": {"source": "env", "provider": "default", "id": "OC_TEST_API_KEY"}},
            "b": {"apiKey": {"source": "file", "provider": "filemain", "id": "/providers/x/key"}},
            "c": {"apiKey": {"source": "file", "provider": "single", "id": "value"}},
            "d": {"token": "${DOTENV_TOKEN}"},
            "e": {"token": {"source": "env", "id": "VARS_TOKEN"}},
            "f": {"password": {"source": "env", "id": "OC_TEST_ODD"}},
            "g": {"apiKey": {"source": "env", "id": "OC_TEST_SHORT"}},
            "h": {"apiKey": {"source": "env", "id": "OC_TEST_MISSING"}},
            "i": {"apiKey": {"source": "exec", "provider": "vault", "id": "x/y"}},
        }},
    }  # fmt: skip
    (state / "openclaw.json").write_text(json.dumps(cfg))
    return state


ALL = (ENV_VALUE, FILE_VALUE, SINGLE_VALUE, DOTENV_VALUE, VARS_VALUE, ODD_VALUE)


def test_env_and_file_refs_resolve(configured: Path) -> None:
    cfg = config.load_config(configured)
    values = secretrefs.secret_values(cfg, configured)
    assert sorted(values) == sorted(ALL)  # not the short one, the missing one or the exec one


def test_config_vars_in_either_form_and_a_bad_one(state: Path) -> None:
    state.mkdir(parents=True, exist_ok=True)
    path = state / "openclaw.json"
    ref = {"apiKey": {"source": "env", "id": "OC_TEST_VARS_ONLY"}}
    for env, want in (({"OC_TEST_VARS_ONLY": VARS_VALUE}, (VARS_VALUE,)), ({"vars": "x"}, ())):
        path.write_text(json.dumps({"env": env, "models": {"a": ref}}))
        os.utime(path, ns=(len(want), len(want)))  # (the cache keys on the file's version)
        assert secretrefs.secret_values(config.load_config(state), state) == want


def test_every_form_of_a_value_is_masked() -> None:
    red = build_redactor((), (ODD_VALUE, ENV_VALUE, SHORT))
    url = ODD_VALUE.replace("@", "%40").replace(" ", "%20").replace('"', "%22").replace("/", "%2F")
    text = (f"plain {ODD_VALUE} url ?q={url} json {json.dumps({'v': ODD_VALUE})} "
            f"prose {ENV_VALUE}. short {SHORT}")  # fmt: skip
    out = red.redact_text(text)
    for form in (ODD_VALUE, url, json.dumps(ODD_VALUE)[1:-1], ENV_VALUE):
        assert form not in out, (form, out)
    assert f"short {SHORT}" in out
    assert "plain ***" in out
    assert ENV_VALUE not in repr(red)
    assert ODD_VALUE not in repr(red)


def test_the_fingerprint_follows_the_values_and_holds_none() -> None:
    base = build_redactor().fingerprint
    a, b = build_redactor((), (ENV_VALUE,)), build_redactor((), (FILE_VALUE,))
    assert len({base, a.fingerprint, b.fingerprint}) == 3
    assert build_redactor((), (SHORT,)).fingerprint == base  # nothing masked, nothing changes
    assert build_redactor(*a.args).fingerprint == a.fingerprint  # another process builds it


def test_values_never_reach_an_output_the_index_or_the_store(
    configured: Path, tmp_path: Path
) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("ref-1")
    for i, v in enumerate(ALL):
        s.user(f"zzref {i} we deployed with {v} yesterday")
        s.tool(f"zzref {i} GET /cb?state={v.replace(' ', '%20')} and {json.dumps({'k': v})}")
    s.write(d / "ref-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "ref-1"}})
    imp = run_cli("import", str(tmp_path / "src"), "--reindex")
    assert imp.exit_code == 0, imp.stderr
    outs = [
        run_cli("search", "zzref", "--limit", "100", "--json", "--max-bytes", "0").stdout,
        run_cli("history", "agent:main:main", "--limit", "100", "--include-tools", "--json").stdout,
        run_cli("status", "--json").stdout,
        imp.stdout + imp.stderr,
    ]
    assert "zzref" in outs[0]
    assert "deployed with ***" in outs[0]
    db = configured / "agents" / "main" / "openclaw-sessions.sqlite"
    conn = sqlite3.connect(db)
    rows = "\n".join(t for (t,) in conn.execute("SELECT text FROM index_rows"))
    fps = {fp for (fp,) in conn.execute("SELECT redaction_fp FROM index_state")}
    conn.close()
    assert json_out(run_cli("status", "--json"))["redactionCurrent"] is True
    for v in ALL:
        for where in (*outs, rows, " ".join(fps)):
            assert v not in where
    # The resolved values are never written anywhere of ours: not the compiled-regex cache
    # (the raw events are the transcript's own lines, as the user's files hold them).
    from openclaw_sessions import settings
    from openclaw_sessions.redact import recache

    recache._save()  # (what an exit writes)
    caches = list(settings.regex_cache_dir().rglob("*.marshal"))
    for f in caches:
        assert not [v for v in ALL if v.encode() in f.read_bytes()], f


def test_a_changed_value_reindexes(configured: Path, tmp_path: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("ref-2")
    s.user("zzchg hello")
    s.write(d / "ref-2.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "ref-2"}})
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    assert json_out(run_cli("status", "--json"))["redactionCurrent"] is True
    os.environ["OC_TEST_API_KEY"] = _word() + "x"  # (monkeypatch restores it)
    assert json_out(run_cli("status", "--json"))["redactionCurrent"] is False
