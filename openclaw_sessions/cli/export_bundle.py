"""`export KEY --format jsonl -o DIR/`: a bundle, the sessions dir `import DIR` restores the
key from (policy/bundle.py): each generation as a file named like its transcript, and the
key's entry merged into `DIR/sessions.json`.

Several keys exported into one DIR share its `sessions.json`: it is read, the key's entry
merged in, and written to a temporary file renamed over it (0600, as the transcripts), under
an exclusive lock on DIR, so two exports at once both land. A bundle is one agent's sessions
dir, as OpenClaw's are: a key of another agent goes to another directory. What is there
already is kept unless `--force`: a transcript file of the same name, or another entry for
the key (its list of older generations aside: a later export adds to it).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openclaw_sessions.errors import UsageError
from openclaw_sessions.policy import bundle, keys
from openclaw_sessions.read import export
from openclaw_sessions.read.export import Export

from . import export_out
from .export_out import FORCE, _chunks, _save, directory
from .style import Times

STORE = "sessions.json"


def is_bundle(exp: Export, output: str | None) -> bool:
    """Does this export write a bundle: raw lines into a directory?"""
    return exp.opts.fmt == "jsonl" and export_out.to_directory(exp, output)


def something(exp: Export, output: str | None) -> bool:
    """Is there anything to export: a transcript, or a key's store entry into a bundle?"""
    return bool(exp.generations) or (exp.entry is not None and is_bundle(exp, output))


def place(exp: Export, output: str | None, *, force: bool, times: Times) -> list[Path]:
    """The export where ``output`` says: a bundle (write), else export_out.write's."""
    if output is not None and is_bundle(exp, output):
        return write(exp, Path(output), force=force)
    return export_out.write(exp, output, force=force, times=times)


def write(exp: Export, out: Path, *, force: bool) -> list[Path]:
    """The bundle of ``exp`` in directory ``out`` (created when missing, 0700); the files
    written."""
    _not_openclaws(exp, out)
    directory(out, private=True)
    return _write([exp], out, force)


def write_whole(exps: Iterator[Export], out: Path, *, force: bool) -> list[Path]:
    """Every session ``exps`` holds, in ``out`` laid out as a state root
    (``agents/<id>/sessions/``: `import DIR` restores each agent), each agent's store
    written once."""
    written: list[Path] = []
    batch: list[Export] = []
    for exp in exps:
        if batch and batch[0].agent != exp.agent:
            written += _write_agent(batch, out, force)
            batch = []
        batch.append(exp)
    return written + (_write_agent(batch, out, force) if batch else [])


def _write_agent(exps: list[Export], out: Path, force: bool) -> list[Path]:
    where = out / "agents" / exps[0].agent / "sessions"
    _not_openclaws(exps[0], where)
    for d in (out, out / "agents", where.parent, where):
        directory(d, private=True)
    return _write(exps, where, force)


def _not_openclaws(exp: Export, out: Path) -> None:
    """The state root's own sessions dirs are OpenClaw's (the gateway writes their store):
    the tool never writes there."""
    agents = (exp.root / "agents").resolve()
    where = out.resolve()
    if where.name == "sessions" and where.parent.parent == agents:
        raise UsageError(
            f"{out} is an agent's sessions dir in the state root: OpenClaw's, never written",
            hint="export into another directory; `import DIR` reads it from there",
        )


def _write(exps: list[Export], out: Path, force: bool) -> list[Path]:
    """Each export's files into ``out``, and their entries merged into its store, written
    once, under the directory's lock."""
    store = out / STORE
    written: list[Path] = []
    with _locked(out):
        doc = _read(store)
        changed = False
        for exp in exps:
            _same_agent(doc, exp.session_key, store)
            entry = _merged(doc.get(exp.session_key), export.bundle_entry(exp), out, force)
            if not force:
                for g in exp.generations:
                    if (out / g.file_name).exists():
                        raise UsageError(f"{out / g.file_name} exists", hint=FORCE)
            written += [
                _save(out / g.file_name, _chunks(export.lines(exp, g)), force, raw=True)
                for g in exp.generations
            ]
            if entry is not None:
                doc[exp.session_key] = entry
                changed = True
        if changed:
            text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
            written.append(_save(store, [text.encode("utf-8")], True, raw=True))
    return written


def _read(store: Path) -> dict[str, Any]:
    """The bundle's session store so far ({} when there is none yet)."""
    if store.exists() and not store.is_file():  # a FIFO would block, a directory cannot be
        raise UsageError(f"{store} is not a regular file", hint="export into another directory")
    try:
        text = store.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {store}: {exc}") from None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise UsageError(
            f"{store} is not a session store (a JSON object)",
            hint="export into a new directory, or one an export wrote",
        )
    return doc


def _same_agent(doc: dict[str, Any], key: str, store: Path) -> None:
    """A bundle holds one agent's sessions, as an agent's sessions dir does."""
    mine = keys.agent_of(key)
    others = sorted(bundle.agents_named(str(k).strip().lower() for k in doc) - {mine})
    if mine is not None and others:
        raise UsageError(
            f"{store} holds sessions of agent {others[0]}, not {mine}",
            hint="a bundle is one agent's sessions dir: export each agent into its own directory",
        )


def _merged(old: Any, new: dict[str, Any] | None, out: Path, force: bool) -> dict[str, Any] | None:
    """The key's entry to store: ``new``, still listing the older generations an earlier
    export of the same current generation put in ``out``. Another entry for the key
    (the list aside) is replaced only with ``force``."""
    if new is None or not isinstance(old, dict):
        return new
    if bundle.without_generations(old) != bundle.without_generations(new) and not force:
        raise UsageError(f"{out / STORE} holds another entry for this session", hint=FORCE)
    if old.get("sessionId") != new.get("sessionId"):
        return new
    kept = [n for n in bundle.generation_files(old) if (out / n).is_file()]
    return bundle.with_generations(new, kept)


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """An exclusive lock on the directory for the read-merge-write of its store (flock, where
    the platform has it)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one export at a time is the caller's business
        yield
        return
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
