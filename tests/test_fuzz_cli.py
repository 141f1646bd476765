"""Hostile queries and options through the real CLI: a clean answer or a clean exit 2, never a
traceback or an FTS error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, run_cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

NASTY = st.sampled_from([
    '"', '""', "*", "^", "(", ")", "NEAR(a b, 2)", "a OR b", "NOT", "col:x", "-x", "+", "@",
    "'; DROP TABLE events; --", "%", "_", "\\", "\x00", "\x1b[31m", "\ud800", "\udfff",
    "a" * 4096, "量子", "ก", "😀", "\u0301", "e\u0301", "\u200d", "AND AND", "{}", "[]",
])  # fmt: skip
SCRIPT = Path(sys.executable).parent / "openclaw-sessions"
QUERIES = st.one_of(st.text(max_size=80), NASTY, st.lists(NASTY, max_size=5).map(" ".join))


@pytest.fixture(scope="module")
def store(sample_store: Path) -> Path:
    return sample_store


def _clean(r: object, allowed: tuple[int, ...]) -> None:
    code = r.exit_code
    err = r.stderr
    assert code in allowed, (code, err)
    assert "Traceback" not in err, err
    assert "fts5" not in err.lower(), err
    if code == 2:
        assert err.startswith("error:"), err
        assert err.count("\n") == 1, err


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(q=QUERIES, prefix=st.booleans(), order=st.sampled_from(["relevance", "recent", "x"]),
       limit=st.sampled_from(["1", "10", "0", "-1", "abc", "25", "26"]),
       as_key=st.sampled_from([None, "agent:main:main", "main", "'; --", "\x00"]),
       role=st.sampled_from([None, "user", "assistant", "tool", "'"]),
       since=st.sampled_from([None, "7d", "2026-01-01", "nonsense", "9999999d"]))  # fmt: skip
def test_search_fuzz(store: Path, q: str, prefix: bool, order: str, limit: str,
                     as_key: str | None, role: str | None, since: str | None) -> None:  # fmt: skip
    args = ["search", "--json", "--state-dir", str(store), "--order", order, "--limit", limit]
    if prefix:
        args.append("--prefix")
    if as_key is not None:
        args += ["--as", as_key]
    if role is not None:
        args += ["--role", role]
    if since is not None:
        args += ["--since", since]
    _clean(run_cli(*args, "--", q), (0, 1, 2))


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.one_of(st.text(max_size=40), st.sampled_from(["main", "agent:main:main", "current",
                                                            "0b5c6f1e-1111-4a4a-9c9c-000000000001"])),
       around=st.one_of(st.none(), st.text(max_size=20), st.just("78dde6c6")),
       limit=st.sampled_from([None, "1", "0", "-5", "x", "100000"]),
       offset=st.sampled_from([None, "0", "3", "-1", "y"]))  # fmt: skip
def test_history_fuzz(store: Path, key: str, around: str | None, limit: str | None,
                      offset: str | None) -> None:  # fmt: skip
    args = ["history", "--json", "--state-dir", str(store)]
    if around is not None:
        args += ["--around", around]
    if limit is not None:
        args += ["--limit", limit]
    if offset is not None:
        args += ["--offset", offset]
    _clean(run_cli(*args, "--", key), (0, 1, 2))


# ---------------------------------------------------------------------------------------------
# Every command's options with hostile values (issue #15 A6): no traceback, an exit code of the
# contract, and exit 2 as exactly one `error:` line on stderr.

NOT_UTF8 = os.fsdecode(b"key-\xff\xfe")  # what a shell's non-UTF-8 bytes become in argv
INTS = st.sampled_from(["0", "-1", "1", "25", "26", "2147483647", "2147483648", "abc", "",
                        "99999999999999999999", "-99999999999999999999", "1e3", " 5"])  # fmt: skip
TEXTS = st.one_of(
    st.text(st.characters(blacklist_characters="\x00"), max_size=24),  # NUL: never in argv
    st.sampled_from(["", " ", "main", "agent:main:main", "current", NOT_UTF8, "\ud800", "7d",
                     "2026-01-01", "-", "--json", "9999999999d", "agent:ops:main"]),
)  # fmt: skip
FLAG = st.just(None)
DOCUMENTED = {
    "search": (0, 1, 2, 3), "history": (0, 1, 2, 3), "import": (0, 2, 3, 4),
    "reindex": (0, 2, 3, 4), "status": (0, 2, 3, 4), "delete": (0, 1, 2, 3),
}  # fmt: skip
COMMON = {"--agent": st.sampled_from(["main", "ops", "ghost", "", "../x", NOT_UTF8]),
          "--json": FLAG}  # fmt: skip
OPTIONS: dict[str, dict[str, Any]] = {
    "search": {**COMMON, "--limit": INTS, "-n": INTS, "--session": TEXTS, "--role": TEXTS,
               "--since": TEXTS, "--until": TEXTS, "--order": TEXTS, "--prefix": FLAG,
               "--as": TEXTS, "--visibility": TEXTS, "--sandboxed": FLAG, "--max-bytes": INTS,
               "--explain": FLAG, "--jsonl": FLAG, "--utc": FLAG, "--all-agents": FLAG},
    "history": {**COMMON, "--limit": INTS, "--offset": INTS, "--around": TEXTS,
                "--session-id": TEXTS, "--include-tools": FLAG, "--as": TEXTS,
                "--visibility": TEXTS, "--sandboxed": FLAG, "--utc": FLAG},
    "import": {**COMMON, "--dry-run": FLAG, "--include-archives": FLAG, "--reindex": FLAG,
               "--quiet": FLAG},
    "reindex": {**COMMON, "--all-agents": FLAG, "--full": FLAG, "--quiet": FLAG},
    "status": {**COMMON, "--all-agents": FLAG, "--utc": FLAG},
    "delete": {**COMMON, "--yes": FLAG},
}  # fmt: skip


def _one_error_line(r: Any, allowed: tuple[int, ...]) -> None:
    err = r.stderr
    assert r.exit_code in allowed, (r.exit_code, err)
    assert "Traceback" not in err, err
    assert "Usage:" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) <= 1, err
    if r.exit_code == 2:
        assert err.count("\n") == 1, err
        assert errors, err


@pytest.fixture(scope="module")
def scratch(sample_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sample store that import, reindex and delete may change."""
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(sample_store, root / "state")
    return root


def _base(command: str, scratch: Path, store: Path) -> list[str]:
    """A valid call of ``command`` that the fuzzed value is added to."""
    return {
        "search": ["search", "deploy", "--state-dir", str(store)],
        "history": ["history", "main", "--state-dir", str(store)],
        "import": ["import", str(REPO / "sample"), "--dry-run", "--state-dir", str(scratch)],
        "reindex": ["reindex", "--state-dir", str(scratch / "state")],
        "status": ["status", "--state-dir", str(store)],
        "delete": ["delete", "no-such-session", "--yes", "--state-dir", str(scratch / "state")],
    }[command]


# every option that takes a value, and each command's argument (None)
VALUED = [(c, o) for c in sorted(OPTIONS) for o in [*sorted(OPTIONS[c]), None]
          if (o is None and c not in ("reindex", "status"))
          or (o and OPTIONS[c][o] is not FLAG)]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("command", "option"), VALUED)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.one_of(INTS, TEXTS), as_json=st.booleans())
@example(raw="99999999999999999999", as_json=True)
@example(raw="-99999999999999999999", as_json=False)
@example(raw="-1", as_json=True)
@example(raw="", as_json=True)
@example(raw=NOT_UTF8, as_json=True)
@example(raw="\ud800", as_json=False)
def test_each_option_fuzzed(
    scratch: Path, store: Path, command: str, option: str | None, raw: str, as_json: bool
) -> None:
    args = _base(command, scratch, store)
    if option is None:  # the command's argument
        args = [args[0], *args[2:], "--", raw] if command != "import" else [*args, "--", raw]
    else:
        args += [option, raw]
    _one_error_line(run_cli(*args, *(["--json"] if as_json else [])), DOCUMENTED[command])


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), command=st.sampled_from(sorted(OPTIONS)))
def test_option_combinations_fuzzed(scratch: Path, data: st.DataObject, command: str) -> None:
    state = scratch / "state"
    dirs = [str(state), str(scratch / "nowhere"), "", os.fsdecode(os.fsencode(scratch) + b"/\xff")]
    chosen = data.draw(st.sets(st.sampled_from(sorted(OPTIONS[command])), max_size=4))
    args = [command]
    for name in sorted(chosen):
        value = data.draw(OPTIONS[command][name])
        args += [name] if value is None else [name, value]
    real = data.draw(st.booleans())  # half the time the real store: the deep paths run
    args += ["--state-dir", str(state) if real else data.draw(st.sampled_from(dirs))]
    if command in ("search", "history", "delete"):
        args += ["--", data.draw(TEXTS)]
    elif command == "import":
        args += ["--", *data.draw(st.lists(st.sampled_from(dirs + [str(REPO / "sample")]),
                                           max_size=2))]  # fmt: skip
    _one_error_line(run_cli(*args), DOCUMENTED[command])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "x", "--json", "--limit", "99999999999999999999"],
         "error: --limit must be at most 2147483647"),
        (["search", "x", "--limit", "99999999999999999999"], "error: --limit must be at most"),
        (["search", "x", "--json", "--max-bytes", "-1"],
         "error: --max-bytes must be an integer from 0 to 2147483647"),
        (["search", "x", "--json", "--max-bytes", "99999999999999999999"], "error: --max-bytes"),
        (["search", "x", "--json", "--since", ""], "error: --since must not be empty"),
        (["search", "x", "--json", "--until="], "error: --until must not be empty"),
        (["search", "x", "--json", "--session", ""], "error: --session must not be empty"),
        (["search", "x", "--json", "--as", " "], "error: --as must not be empty"),
        (["search", NOT_UTF8, "--json"], "error: QUERY is not valid UTF-8 text (hint:"),
        (["search", "x", "--json", "--session", NOT_UTF8], "error: --session is not valid UTF-8"),
        (["history", "main", "--json", "--limit", "99999999999999999999"],
         "error: --limit must be at most"),
        (["history", "main", "--json", "--offset", "99999999999999999999"],
         "error: --offset must be at most"),
        (["history", NOT_UTF8, "--json"], "error: KEY is not valid UTF-8 text"),
        (["history", "main", "--json", "--around", NOT_UTF8], "error: --around is not valid"),
        (["history", "main", "--json", "--session-id", ""], "error: --session-id must not be"),
        (["delete", NOT_UTF8, "--yes", "--json"], "error: TARGET is not valid UTF-8 text"),
        (["status", "--state-dir", ""], "error: --state-dir must not be empty"),
        (["import", ""], "error: SOURCES must not be empty"),
        (["search", "x", "--limit", "abc"],
         "error: invalid value for '--limit' / '-n': 'abc' is not a valid int."),
        (["search", "x", "--xyzzy"], "error: no such option: --xyzzy (hint: see"),
        (["search"], "error: missing argument 'QUERY'."),
        (["frobnicate"], "error: no such command 'frobnicate'."),
    ],
)  # fmt: skip
def test_bad_values_are_one_error_line(store: Path, argv: list[str], message: str) -> None:
    """In process (the Typer app) and through the installed command, with argv bytes that are
    not UTF-8 passed as bytes."""
    r = run_cli(*argv, "--state-dir", str(store)) if argv[0] != "status" else run_cli(*argv)
    _one_error_line(r, (2,))
    assert r.stderr.startswith(message), r.stderr
    env = {**os.environ, "OPENCLAW_STATE_DIR": str(store)}
    proc = subprocess.run([SCRIPT, *(os.fsencode(a) for a in argv)], capture_output=True,
                          env=env, timeout=60)  # fmt: skip
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 2, err
    assert err.startswith(message), err
    assert err.count("\n") == 1, err
    assert proc.stdout == b""
