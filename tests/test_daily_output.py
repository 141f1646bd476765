"""Daily use through the installed command: output that survives a pipe (plain search lines,
history as stored, `| head`), a terminal at 40, 80 and 200 columns, colour, times, the pager,
--help and completion of option values."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-9]|9[0-7]|38;)[0-9;]*m")
MATCH_ON = "\x1b[1;33m"
KEY = "agent:main:main"
LINK = "https://ex.io/d"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One conversation (links, code, a long line, a newline inside a hit) and one long one."""
    root = tmp_path_factory.mktemp("daily")
    s = Session("d1", ts0=1_767_600_000_000)  # 2026-01-05 08:00 UTC: 09:00 CET
    s.user("first line\nthe deploy\tfailed\nthird line")
    s.assistant(f"See [Docs]({LINK}) and ![chart](https://ex.io/c.png) <b>now</b>.\n\n"
                "```sh\nkubectl rollout undo deploy/api\n```\n" + "long " * 120)  # fmt: skip
    s.user("deploy again please")
    long = Session("d2", ts0=1_767_700_000_000)
    for i in range(400):
        long.user(f"message {i} about the deploy " + "filler " * 40)
    src = root / "src" / "agents" / "main" / "sessions"
    s.write(src / "d1.jsonl")
    long.write(src / "d2.jsonl")
    write_sessions_json(src, {KEY: {"sessionId": "d1"}, "agent:main:long": {"sessionId": "d2"}})
    state = root / "state"
    r = run_cli("import", str(root / "src"), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    return state


def env(store: Path, **extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "PAGER")}
    e.update({"OPENCLAW_STATE_DIR": str(store), "TERM": "xterm-256color", "TZ": "UTC", **extra})
    return e


def piped(store: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    assert EXE
    return subprocess.run([EXE, *args], env=env(store, **extra), capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def in_pty(store: Path, args: list[str], cols: int = 120, rows: int = 200, **extra: str) -> str:
    """What the command prints on a terminal of ``cols`` x ``rows`` (stdout only)."""
    pexpect = pytest.importorskip("pexpect")
    line = " ".join(shlex.quote(a) for a in [str(EXE), *args]) + " 2>/dev/null"
    child = pexpect.spawn("bash", ["-c", line], env=env(store, **extra), encoding="utf-8",
                          timeout=120, dimensions=(rows, cols))  # fmt: skip
    out: str = child.read()
    child.close()
    return out.replace("\r\n", "\n")


# --- search in a pipe ------------------------------------------------------------------------


def test_search_off_a_terminal_prints_one_hit_per_line(store: Path) -> None:
    r = piped(store, "search", "deploy", "--limit", "3", "--session", KEY)
    assert r.returncode == 0
    assert not ANSI.search(r.stdout)
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        key, mid, when, role, snippet = line.split("\t")
        assert key == KEY
        assert re.fullmatch(r"[0-9a-f]{8}", mid)
        assert role in ("user", "assistant")
        assert re.fullmatch(r"2026-01-05 \d\d:\d\d UTC", when)
        assert "deploy" in snippet
    # the newlines and the tab inside the hit are collapsed: five fields, one line
    assert any(ln.endswith("first line the deploy failed third line") for ln in lines)
    cut = subprocess.run(f"{EXE} search deploy --session {KEY} | cut -f2", shell=True,
                         env=env(store), capture_output=True, text=True)  # fmt: skip
    assert all(re.fullmatch(r"[0-9a-f]{8}", m) for m in cut.stdout.split())


def test_format_table_and_plain_force_the_layout(store: Path) -> None:
    table = piped(store, "search", "deploy", "--format", "table", "--session", KEY)
    assert table.returncode == 0
    assert "time · role" in table.stdout
    assert "\t" not in table.stdout
    plain = in_pty(store, ["search", "deploy", "--format", "plain", "--session", KEY])
    assert "time · role" not in plain
    assert f"{KEY}\t" in plain
    bad = piped(store, "search", "deploy", "--format", "json")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: --format must be one of")
    both = piped(store, "search", "deploy", "--format", "plain", "--json")
    assert both.returncode == 2
    assert both.stderr.count("\n") == 1


@pytest.mark.slow
def test_color_always_highlights_matches_in_plain_lines(store: Path) -> None:
    r = piped(store, "search", "deploy", "--session", KEY, "--color", "always", NO_COLOR="1")
    assert r.returncode == 0
    assert f"{MATCH_ON}deploy\x1b[0m" in r.stdout
    assert ANSI.sub("", r.stdout) == piped(store, "search", "deploy", "--session", KEY).stdout
    never = in_pty(store, ["search", "deploy", "--color", "never"])
    assert "time · role" in never
    assert not ANSI.search(never)
    auto = in_pty(store, ["search", "deploy"])
    assert ANSI.search(auto)
    assert not COLOUR.search(in_pty(store, ["search", "deploy"], NO_COLOR="1"))
    bad = piped(store, "status", "--color", "sometimes")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: --color must be one of")


@pytest.mark.parametrize("command", ["import", "reindex", "search", "history", "status", "delete",
                                     "export"])  # fmt: skip
def test_every_command_takes_color(command: str) -> None:
    r = run_cli(command, "--help")
    assert "--color WHEN" in r.stdout


def test_json_hits_carry_match_offsets_in_code_points(store: Path) -> None:
    r = piped(store, "search", "deploy", "--json", "--limit", "20")
    hits = json.loads(r.stdout)["results"]
    assert hits
    assert all(h["matches"] for h in hits)
    for h in hits:
        for a, b in h["matches"]:
            assert h["snippet"][a:b].lower() == "deploy"
    if shutil.which("jq"):
        jq = subprocess.run(f"{EXE} search deploy --json | jq -r '.results[] | "
                            ".snippet[.matches[0][0]:.matches[0][1]]' | sort -u", shell=True,
                            env=env(store), capture_output=True, text=True)  # fmt: skip
        assert jq.stdout.split() == ["deploy"]


def test_matches_count_code_points_past_astral_characters(tmp_path: Path) -> None:
    s = Session("e1")
    s.user("🚀🚀 launch the rocket 🚀")
    src = tmp_path / "src" / "agents" / "main" / "sessions"
    s.write(src / "e1.jsonl")
    write_sessions_json(src, {KEY: {"sessionId": "e1"}})
    run_cli("import", str(tmp_path / "src"), "--reindex")
    hit = json.loads(run_cli("search", "rocket", "--json").stdout)["results"][0]
    ((a, b),) = hit["matches"]
    assert hit["snippet"][a:b] == "rocket"
    assert a == hit["snippet"].index("rocket")


# --- a reader that goes away -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        "search deploy --limit 200",
        "search deploy --limit 200 --json",
        "history agent:main:long --full",
        "history agent:main:long --full --json",
        "export agent:main:long",
        "export agent:main:long --format jsonl",
        "search deploy --limit 200 --format table",  # the Typer path
    ],
)
def test_head_ends_quietly_with_exit_0(store: Path, command: str) -> None:
    r = subprocess.run(["bash", "-o", "pipefail", "-c", f"{EXE} {command} | head -c 100"],
                       env=env(store), capture_output=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert len(r.stdout) == 100
    assert b"Traceback" not in r.stderr
    assert b"Error" not in r.stderr
    # A reader gone before the first byte: the very first write fails, still no error.
    r = subprocess.run(["bash", "-o", "pipefail", "-c", f"{EXE} {command} | head -c 0"],
                       env=env(store), capture_output=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr.lower().count(b"error") == 0, r.stderr


# --- history in a pipe and on a terminal -----------------------------------------------------


def test_history_off_a_terminal_is_the_text_as_stored(store: Path) -> None:
    r = piped(store, "history", KEY, COLUMNS="40")
    assert r.returncode == 0
    assert not ANSI.search(r.stdout)
    assert f"See [Docs]({LINK}) and ![chart](https://ex.io/c.png) <b>now</b>." in r.stdout
    assert "```sh\nkubectl rollout undo deploy/api\n```" in r.stdout
    assert ("long " * 120).strip() in r.stdout  # one line of 600 characters: not wrapped
    assert "first line\nthe deploy\tfailed\nthird line" in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("cols", [40, 80, 200])
def test_history_on_a_terminal_renders_markdown_and_keeps_targets(store: Path, cols: int) -> None:
    out = in_pty(store, ["history", KEY, "--no-pager"], cols=cols)
    flat = ANSI.sub("", out)
    assert f"Docs ({LINK})" in flat.replace("\n", "")  # the target survives the rendering
    assert "[image: chart] (https://ex.io/c.png)" in re.sub(r"\s+", " ", flat)
    assert "<b>now</b>" in flat  # raw HTML stays text
    assert "kubectl rollout undo deploy/api" in flat
    assert max(len(ln) for ln in flat.splitlines()) <= cols


@pytest.mark.slow
@pytest.mark.parametrize("cols", [40, 80, 200])
def test_search_fits_the_terminal(store: Path, cols: int) -> None:
    """A table where the snippet keeps 32 columns beside the keys; else one block per hit
    (key; id, time and role; snippet): never a column of one character."""
    out = ANSI.sub("", in_pty(store, ["search", "deploy", "--limit", "3"], cols=cols))
    assert max(len(ln) for ln in out.splitlines()) <= cols
    assert ("time · role" in out) == (cols >= 80)  # 20 + 15 + 6 + 32 columns
    if cols < 80:
        assert f"{KEY}\n00000003 · 2026-01-05 08:00 UTC · user\ndeploy again please" in out
    else:
        assert KEY in out
        assert "00000003" in out


@pytest.mark.slow
@pytest.mark.parametrize("cols", [40, 80, 200])
def test_status_fits_the_terminal_and_never_folds_an_agent(tmp_path: Path, cols: int) -> None:
    """Columns go from the right before an agent name would wrap onto a second line."""
    src = tmp_path / "src" / "agents" / "prospector" / "sessions"
    s = Session("p1")
    s.user("hello")
    s.write(src / "p1.jsonl")
    write_sessions_json(src, {"agent:prospector:main": {"sessionId": "p1"}})
    state = tmp_path / "state"
    assert run_cli("import", str(tmp_path / "src"), "--state-dir", str(state)).exit_code == 0
    out = ANSI.sub("", in_pty(state, ["status", "--all-agents"], cols=cols))
    rows = [ln for ln in out.splitlines() if ln.strip()]
    assert rows[0].split()[0] == "agent", out
    assert rows[1].split()[0] == "prospector", out
    assert max(len(ln) for ln in rows[:2]) <= cols  # the reasons under it are lines of text
    assert ("size" in rows[0]) == (cols >= 100), out
    assert "messages" in rows[0], out


@pytest.mark.slow
def test_long_history_goes_through_the_pager(store: Path, tmp_path: Path) -> None:
    seen, page = tmp_path / "less.txt", tmp_path / "page.txt"
    pager = f'printf %s "$LESS" > {seen}; cat > {page}'
    in_pty(store, ["history", "agent:main:long"], rows=20, PAGER=pager)
    assert seen.read_text() == "FRX"
    assert "message 399 about the deploy" in page.read_text()
    seen.unlink()
    page.unlink()
    in_pty(store, ["history", "agent:main:long"], rows=20, PAGER=pager, LESS="-S")
    assert seen.read_text() == "-S"  # the user's LESS wins
    for skip in (["--no-pager"], ["--limit", "2"]):  # asked not to, or it fits the screen
        page.unlink(missing_ok=True)
        out = in_pty(store, ["history", "agent:main:long", *skip], rows=20, PAGER=pager)
        assert not page.exists()
        assert "message 399" in out
    assert "message 399" in piped(store, "history", "agent:main:long", PAGER=pager).stdout
    assert not page.exists()  # a pipe is never paged
    out = in_pty(store, ["history", "agent:main:long"], rows=20, PAGER="cat")
    assert "message 399" in out  # PAGER=cat: no pager


# --- times -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_times_are_local_with_the_zone_or_utc_or_relative(store: Path) -> None:
    paris = piped(store, "history", KEY, TZ="Europe/Paris").stdout
    assert "2026-01-05 09:00 CET" in paris
    assert "2026-01-05 08:00 UTC" in piped(store, "history", KEY, "--utc",
                                           TZ="Europe/Paris").stdout  # fmt: skip
    rel = piped(store, "search", "deploy", "--time", "relative", "--session", KEY).stdout
    assert all(re.fullmatch(r"\d+(s|m|h|d|mo|y) ago", ln.split("\t")[2]) for ln in
               rel.splitlines())  # fmt: skip
    assert "2026-01-05 09:00 CET" in piped(store, "export", KEY, TZ="Europe/Paris").stdout
    status = piped(store, "status", "--utc", "--verbose").stdout  # the details show times
    assert re.search(r"last import\s+│?\s*20\d\d-\d\d-\d\d \d\d:\d\d UTC", status)
    assert piped(store, "history", KEY, "--time", "yesterday").returncode == 2


def test_ago_reads_like_atuin() -> None:
    from openclaw_sessions.cli.style import ago, fmt_time

    assert [ago(s) for s in (5, 59, 60, 3 * 3600 + 5, 2 * 86400, 65 * 86400, 800 * 86400)] == [
        "5s ago", "59s ago", "1m ago", "3h ago", "2d ago", "2mo ago", "2y ago"
    ]  # fmt: skip
    assert ago(-300) == "in 5m"
    assert fmt_time(None) == "-"
    assert fmt_time(1e30) == "-"
    assert fmt_time(1_767_600_000_000, utc=True) == "2026-01-05 08:00 UTC"


# --- help and completion ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["import", "reindex", "search", "history", "export", "status",
                                     "delete"])  # fmt: skip
def test_help_groups_options_and_shows_examples(command: str) -> None:
    out = run_cli(command, "--help").stdout
    examples = [ln for ln in out.splitlines() if ln.strip().startswith("openclaw-sessions ")]
    assert len(examples) >= (1 if command == "delete" else 2), out
    assert "Output:" in out
    if command in ("search", "history", "export"):
        assert "Visibility (with --as):" in out and "Filters:" in out or command == "history"
    assert "{" not in out.splitlines()[0]  # Usage: ... QUERY, not {QUERY}


def test_search_usage_shows_query() -> None:
    assert run_cli("search", "--help").stdout.startswith(
        "Usage: openclaw-sessions search [OPTIONS] QUERY"
    )


@pytest.mark.parametrize(
    "line, want",
    [
        ("search x --role ", ["assistant", "user"]),
        ("search x --order r", ["recent", "relevance"]),
        ("search x --visibility ", ["agent", "all", "self", "tree"]),
        ("search x --format ", ["auto", "plain", "table"]),
        ("export x --format j", ["json", "jsonl"]),
        ("history x --color ", ["always", "auto", "never"]),
        ("status --time ", ["absolute", "relative"]),
    ],
)
def test_option_values_complete(line: str, want: list[str]) -> None:
    from helpers import typer_complete

    assert sorted(typer_complete(f"openclaw-sessions {line}", "fish").split()) == want


def test_agent_ids_complete_from_the_state_root(store: Path) -> None:
    from helpers import typer_complete

    got = typer_complete(f"openclaw-sessions search x --state-dir {store} --agent ", "fish")
    assert got.split() == ["main"]


def test_raw_lines_are_never_written_to_a_terminal(store: Path, tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    outs = []
    for args, code in ((["--format", "jsonl"], 2), (["--format", "jsonl", "-o", "x.jsonl"], 0)):
        child = pexpect.spawn(EXE, ["export", KEY, *args], env=env(store), encoding="utf-8",
                              timeout=60, cwd=str(tmp_path))  # fmt: skip
        outs.append(child.read())
        child.close()
        assert child.exitstatus == code, outs[-1]
    assert outs[0].startswith("error: refusing to write raw transcript lines to a terminal")
    assert (tmp_path / "x.jsonl").read_bytes().startswith(b'{"type": "session"')
