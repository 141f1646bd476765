"""Notes and flags only when something was cut (issue #37 §3), through the installed command:
`history` says texts were cut only when its output differs from `--full`; dropped metadata
(usage, signatures) is no cut for the operator (the agent's `--as` flag stays upstream's); and
no note reaches stderr once `| head -n1` has closed stdout, even after a short write that met
no EPIPE."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import Session, run_cli, write_sessions_json

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")
META, LONG, IMAGE = "agent:main:meta", "agent:main:long", "agent:main:image"
USAGE = {"input": 10, "output": 20, "totalTokens": 30, "cost": {"total": 0.01}}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three short chats: one whose only removals are metadata (usage, cost, a thinking
    signature), one with a text over the 4000-unit cap, one with an image."""
    root = tmp_path_factory.mktemp("cut")
    src = root / "src" / "agents" / "main" / "sessions"
    meta = Session("m1")
    meta.user("how is the deploy going")
    meta.add({"message": {"role": "assistant", "usage": USAGE, "cost": 0.01,
                          "content": [{"type": "thinking", "thinking": "check",
                                       "thinkingSignature": "c2lnbmF0dXJl"},
                                      {"type": "text", "text": "the deploy is green"}]}},
             )  # fmt: skip
    long = Session("l1")
    long.user("paste the deploy log")
    long.assistant("deploy log: " + "line of log output " * 400)
    image = Session("i1")
    image.add({"message": {"role": "user", "content": [
        {"type": "text", "text": "the deploy dashboard"},
        {"type": "image", "mimeType": "image/png", "data": "aGVsbG8gd29ybGQ="}]}})  # fmt: skip
    image.assistant("the deploy looks fine")
    for s in (meta, long, image):
        s.write(src / f"{s.session_id}.jsonl")
    write_sessions_json(src, {META: {"sessionId": "m1"}, LONG: {"sessionId": "l1"},
                              IMAGE: {"sessionId": "i1"}})  # fmt: skip
    state = root / "state"
    r = run_cli("import", str(root / "src"), "--reindex", "--state-dir", str(state))
    assert r.exit_code == 0, r.stderr
    return state


def env(store: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "PAGER")}
    return {**e, "OPENCLAW_STATE_DIR": str(store), "TZ": "UTC"}


def run(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert EXE
    return subprocess.run([EXE, *args], env=env(store), capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def piped_into(store: Path, reader: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``openclaw-sessions ARGS | READER`` in a real shell pipe (pipefail: our exit code)."""
    line = " ".join([str(EXE), *args]) + f" | {reader} > /dev/null"
    return subprocess.run(["bash", "-o", "pipefail", "-c", line], env=env(store),
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_only_metadata_dropped_is_no_cut_for_the_operator(store: Path) -> None:
    plain = run(store, "history", META)
    assert plain.returncode == 0
    assert "the deploy is green" in plain.stdout
    assert "cut" not in plain.stderr, plain.stderr
    assert "left out" not in plain.stderr, plain.stderr
    assert plain.stdout == run(store, "history", META, "--full").stdout
    for extra in ((), ("--full",)):
        doc = json.loads(run(store, "history", META, "--json", *extra).stdout)
        assert (doc["truncated"], doc["contentTruncated"]) == (False, False), extra
        assert all("usage" not in m for m in doc["messages"])  # still dropped, as upstream
    # the agent's view is upstream's: dropping usage sets its flags
    agent = json.loads(run(store, "history", META, "--json", "--as", META).stdout)
    assert agent["truncated"] is True
    assert agent["contentTruncated"] is True


def test_a_cut_text_is_noted_and_flagged_until_full_lifts_it(store: Path) -> None:
    capped = run(store, "history", LONG)
    assert "long texts were cut (--full lifts the caps)" in capped.stderr
    assert "…(truncated)…" in capped.stdout
    whole = run(store, "history", LONG, "--full")
    assert "cut" not in whole.stderr
    assert whole.stdout != capped.stdout
    assert ("line of log output " * 400).strip() in whole.stdout
    assert json.loads(run(store, "history", LONG, "--json").stdout)["contentTruncated"] is True
    doc = json.loads(run(store, "history", LONG, "--json", "--full").stdout)
    assert (doc["truncated"], doc["contentTruncated"]) == (False, False)


def test_image_data_left_out_is_said_without_promising_full(store: Path) -> None:
    for extra in ((), ("--full",)):
        r = run(store, "history", IMAGE, *extra)
        notes = r.stderr.splitlines()
        assert "image data was left out (export --format jsonl keeps it)" in notes, notes
        assert not any("cut" in n or "--full" in n for n in notes), notes
        doc = json.loads(run(store, "history", IMAGE, "--json", *extra).stdout)
        assert doc["contentTruncated"] is True
        assert doc["truncated"] is True
        (block,) = [b for b in doc["messages"][0]["content"] if b.get("type") == "image"]
        assert block["omitted"] is True
        assert "data" not in block
    assert run(store, "history", IMAGE).stdout == run(store, "history", IMAGE, "--full").stdout


@pytest.mark.parametrize(
    "args",
    [
        ("search", "deploy", "-n", "1"),  # a short write: "more results exist" would follow
        ("search", "deploy", "-n", "1", "--jsonl"),
        ("history", LONG),  # "long texts were cut"
        ("history", IMAGE, "--full"),  # "image data was left out"
    ],
)
def test_no_note_once_head_has_closed_stdout(store: Path, args: tuple[str, ...]) -> None:
    # what `| cat` gets: the note is there, the output fitted the pipe (no EPIPE possible)
    kept = piped_into(store, "cat", *args)
    assert kept.returncode == 0, kept.stderr
    assert kept.stderr.strip(), kept.stderr
    for _ in range(5):  # head -n1 reads it all, prints a line, exits: each time, quiet
        gone = piped_into(store, "head -n1", *args)
        assert (gone.returncode, gone.stderr) == (0, ""), gone.stderr
