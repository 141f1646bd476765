"""Issue #34 point 5 (config): a bad config.toml is one `error:` line (exit 2), never a
traceback, a hang or a megabyte echoed: bytes that are not UTF-8, inline tables nested
thousands deep, a FIFO or a device as the file, a huge bad value."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXE = shutil.which("openclaw-sessions", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(EXE is None, reason="the console script is not installed")


def _cli(path: Path | str) -> subprocess.CompletedProcess[str]:
    assert EXE
    env = {**os.environ, "OPENCLAW_SESSIONS_CONFIG": str(path)}
    # a hang would be the failure: the timeout turns it into one
    return subprocess.run([EXE, "sessions"], capture_output=True, text=True, timeout=60, env=env)


def _one_line(proc: subprocess.CompletedProcess[str], path: Path | str, why: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"error: config file {path}: "), proc.stderr[:300]
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert why in proc.stderr
    assert len(proc.stderr) < 600


def test_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(b'format = "caf\xe9"\n')
    _one_line(_cli(path), path, "not UTF-8 (byte 0xe9 at offset 13)")


def test_deep_inline_tables(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", encoding="utf-8")
    _one_line(_cli(path), path, "nested too deeply")


def test_a_fifo_or_a_device_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    _one_line(_cli(fifo), fifo, "not a regular file")
    _one_line(_cli("/dev/zero"), "/dev/zero", "not a regular file")


def test_a_huge_value_or_file_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('time = "' + "x" * 500_000 + '"\n', encoding="utf-8")
    _one_line(_cli(path), path, "time")
    path.write_text('time = "' + "x" * 2_000_000 + '"\n', encoding="utf-8")
    _one_line(_cli(path), path, "larger than 1 MiB")


def test_dev_null_names_no_config_file() -> None:
    """`OPENCLAW_SESSIONS_CONFIG=/dev/null` means "none", as GIT_CONFIG=/dev/null does (pick
    runs its list and preview so): the one device that is not refused."""
    proc = _cli(os.devnull)
    assert "config file" not in proc.stderr
    assert proc.returncode in (0, 3)  # whatever the store says, never the config's exit 2
