"""`export`'s output: Markdown for people, JSON, or the raw JSONL bytes, to stdout, a file or a
directory.

- stdout (no `--output`, or `-`): the document, or the generations' lines one after the other.
  Raw lines are never written to a terminal (they are unredacted and may hold escapes).
- `--output FILE`: written to a temporary file next to it, then renamed over it, so a reader
  never sees half a file and a failed export leaves nothing behind. One killed mid-write
  (`kill -9`) leaves its temporary file (`.<name>.ocs-export.<pid>.<random>.tmp`, mode 0600):
  the next export into that directory removes it once its writer is gone. An existing FILE is kept
  unless `--force` (as zstd and gzip refuse to clobber).
- `--output DIR` (an existing directory, a path ending in `/`, or any path with
  `--all-generations --format jsonl`; created when missing): `jsonl` writes a bundle
  (export_bundle.py): each generation as a file named like the transcript it came from
  (`<id>.jsonl`, `<id>.jsonl.reset.<ISO>`) and the key's entry in `sessions.json`, which
  `import DIR` reads back; `md` and `json` write `<sessionId>.md` or `.json`. Transcripts
  are never concatenated: `--all-generations --format jsonl` needs a directory.

Raw files are created readable by their owner only (0600), as the store is; md and json follow
the umask.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from openclaw_sessions.errors import UsageError
from openclaw_sessions.read import export
from openclaw_sessions.read.export import Export

from .output import field, json_text, safe, write_bytes
from .style import Times

CHUNK = 1 << 20  # raw lines are written in about this many bytes at a time
FORCE = "pass --force to replace it"
_BACKTICKS = re.compile("`+")


def write(exp: Export, output: str | None, *, force: bool, times: Times) -> list[Path]:
    """Write the export where ``output`` says; the files written (none for stdout)."""
    fmt = exp.opts.fmt
    if output is None or output == "-":
        if fmt == "jsonl" and exp.opts.all_generations:
            raise UsageError(
                "--all-generations --format jsonl writes a directory, one file per transcript",
                hint="pass --output DIR/ (each transcript is its own file, never concatenated)",
            )
        if fmt == "jsonl" and sys.stdout.isatty():
            raise UsageError(
                "refusing to write raw transcript lines to a terminal",
                hint="redirect stdout, pass --output FILE, or use --format md",
            )
        for chunk in _stream(exp, times):
            write_bytes(chunk)
        sys.stdout.flush()
        return []
    target = Path(output)
    if to_directory(exp, output):  # md or json: jsonl there is a bundle (export_bundle.place)
        directory(target, private=False)
        name = f"{exp.generations[-1].session_id}.{fmt}"
        return [_save(target / name, _stream(exp, times), force, raw=False)]
    return [_save(target, _stream(exp, times), force, raw=fmt == "jsonl")]


def to_directory(exp: Export, output: str | None) -> bool:
    """Does ``--output`` name a directory: an existing one, a path ending in a slash, or any
    path for `--all-generations --format jsonl` (transcripts are never concatenated)."""
    if output is None or output == "-":
        return False
    if output.endswith(("/", os.sep)) or (exp.opts.fmt == "jsonl" and exp.opts.all_generations):
        return True
    return Path(output).is_dir()


def directory(path: Path, *, private: bool) -> None:
    """``path`` as a directory, created with its parents when missing (raw lines: 0700)."""
    if path.exists() and not path.is_dir():
        raise UsageError(
            f"{path} exists and is not a directory",
            hint="--all-generations --format jsonl writes one file per transcript into a"
            " directory: name a new or existing directory",
        )
    try:
        path.mkdir(mode=0o700 if private else 0o777, parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create directory {path}: {exc.strerror or exc}") from None


def _stream(exp: Export, times: Times) -> Iterator[bytes]:
    """The whole export as one stream of bytes."""
    if exp.opts.fmt == "jsonl":
        for g in exp.generations:
            yield from _chunks(export.lines(exp, g))
    elif exp.opts.fmt == "json":
        yield (json_text(document(exp)) + "\n").encode("utf-8")
    else:
        yield markdown(exp, times).encode("utf-8")


def _chunks(lines: Iterable[bytes]) -> Iterator[bytes]:
    buf: list[bytes] = []
    size = 0
    for line in lines:
        buf.append(line)
        size += len(line)
        if size >= CHUNK:
            yield b"".join(buf)
            buf, size = [], 0
    yield b"".join(buf)


def _save(target: Path, chunks: Iterable[bytes], force: bool, *, raw: bool) -> Path:
    """``chunks`` into ``target`` atomically; an existing target only with ``force``."""
    if target.exists() and not force:
        raise UsageError(f"{target} exists", hint=FORCE)
    import tempfile  # (here: stdout needs none of its ~3 ms of imports)

    sweep(target.parent)
    fd, tmp = tempfile.mkstemp(  # mode 0600
        prefix=f".{target.name}{TEMP_TAG}{os.getpid()}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        if not raw:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        _place(tmp, target, force)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


# A temporary file's name: `.<target>.ocs-export.<writer pid>.<random>.tmp`, next to the target.
TEMP_TAG = ".ocs-export."
_TEMP = re.compile(r"\..*\.ocs-export\.(\d+)\.[^./]+\.tmp\Z", re.DOTALL)


def sweep(directory: Path) -> list[str]:
    """Remove the temporary files an export killed mid-write left in ``directory`` (ours by
    name and owner, their writer process gone); the names removed."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for e in entries:
        m = _TEMP.match(e.name)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            st = e.stat(follow_symlinks=False)
            if e.is_file(follow_symlinks=False) and st.st_uid == os.getuid():
                os.unlink(e.path)
                removed.append(e.name)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process, or not a pid: leave the file alone
    return True


def _place(tmp: str, target: Path, force: bool) -> None:
    if force:
        os.replace(tmp, target)
        return
    try:  # a hard link refuses an existing name atomically (no check-then-write race)
        os.link(tmp, target)
    except FileExistsError:
        raise UsageError(f"{target} exists", hint=FORCE) from None
    except OSError:  # no hard links here (some network and FAT file systems)
        if target.exists():
            raise UsageError(f"{target} exists", hint=FORCE) from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


# --- the documents --------------------------------------------------------------------------


def document(exp: Export) -> dict[str, Any]:
    """`--format json`: the key and each generation's active branch, oldest first."""
    gens = []
    for g in exp.generations:
        page = export.messages(exp, g)
        gens.append(
            {
                "sessionId": g.session_id,
                "kind": g.kind,
                "archivedAt": g.archived_at,
                "messages": list(page.messages),
                "truncated": page.truncated,
                "contentRedacted": page.content_redacted,
            }
        )
    return {"sessionKey": exp.session_key, "generations": gens}


def markdown(exp: Export, times: Times) -> str:
    """`--format md`: a heading per generation and per message (role, time), texts as
    written (code blocks kept), thinking folded, tool calls and results fenced. Control
    characters from the data are visible escapes (the document's own are newlines)."""
    out = [f"# {exp.session_key}\n\n"]
    for g in exp.generations:
        page = export.messages(exp, g)
        kind = g.kind + (f" {g.archived_at}" if g.archived_at else "")
        out.append(f"## Session {g.session_id} ({kind})\n\n")
        for m in page.messages:
            out += _message(m, times)
        if page.truncated:
            out.append("*Some messages or texts were left out (the caps of --as).*\n\n")
    return safe("".join(out).rstrip("\n") + "\n")


def _message(m: dict[str, Any], times: Times) -> list[str]:
    role = str(m.get("role"))
    tool = role in ("toolResult", "tool")
    name = f" · {m['toolName']}" if tool and m.get("toolName") else ""
    out = [f"### {role}{name} · {times(m.get('timestamp'))}\n\n"]
    content = m.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    for b in blocks if isinstance(blocks, list) else []:
        kind = b.get("type") if isinstance(b, dict) else None
        if kind == "text" and isinstance(b.get("text"), str):
            out.append(_fenced(b["text"]) if tool else b["text"].rstrip("\n") + "\n\n")
        elif kind == "thinking":
            thought = str(b.get("thinking", "")).strip("\n")
            out.append(f"<details><summary>thinking</summary>\n\n{thought}\n\n</details>\n\n")
        elif kind == "toolCall":
            args = json_text(b.get("arguments"))
            out.append(f"→ `{b.get('name')}`\n\n" + _fenced(args, "json"))
        elif kind == "image":
            size = f", {b['bytes']} bytes" if "bytes" in b else ""
            out.append(f"*[image {b.get('mimeType', '')}{size} omitted]*\n\n")
    if m.get("errorMessage"):
        out.append(f"> error: {m['errorMessage']}\n\n")
    return out


def _fenced(text: str, lang: str = "") -> str:
    """A code block whose fence is longer than any run of backticks in ``text``."""
    longest = max(map(len, _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}\n\n"


def summary(paths: list[Path]) -> None:
    """Where the files went (stderr)."""
    for p in paths:
        print(f"wrote {field(str(p))}", file=sys.stderr)
