"""The values of the SecretRefs in openclaw.json, for redaction to mask wherever they occur.

Upstream masks the exact values of the secrets its config resolves (its secret redaction
registry). This module resolves the two kinds that need no program run: ``{source: "env",
provider, id}`` (the process environment, then ``$STATE_DIR/.env``, then the config's
``env.vars``, upstream's precedence) and ``{source: "file", provider, id}`` (the provider's
``path`` under ``secrets.providers``: a JSON pointer into a JSON file, or the whole file in
``singleValue`` mode), plus the ``"${VAR}"`` shorthand on a field named like a secret. ``exec``
and ``store`` refs are not resolved (running a program, opening upstream's database).

A value is only ever held in memory and handed to ``redact.build_redactor``: it is never
stored, printed or logged, and a ref that does not resolve is skipped without saying what it
holds. Values shorter than 6 characters are not masked (upstream's floor).
"""

from __future__ import annotations

import json
import os
import re
from collections import ChainMap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from openclaw_sessions import config

_MAX_FILE = 1 << 20  # upstream's maxBytes default
_MIN_VALUE = 6
_ENV_ID = re.compile(r"[A-Z][A-Z0-9_]{0,127}")
_SHORTHAND = re.compile(r"\$\{([A-Z][A-Z0-9_]{0,127})\}|\$([A-Z][A-Z0-9_]{0,127})")
_cache: dict[tuple[str, int, int, int], tuple[str, ...]] = {}


def secret_values(cfg: config.Config, state_root: Path) -> tuple[str, ...]:
    """The resolved values of ``cfg``'s file's SecretRefs (cached per file version)."""
    if cfg.path is None:
        return ()
    try:
        st = cfg.path.stat()
        raw = cfg.path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ()
    key = (str(cfg.path), st.st_mtime_ns, st.st_size, hash(tuple(sorted(os.environ.items()))))
    if key not in _cache:
        _cache.clear()  # one config at a time
        _cache[key] = _resolve(raw, state_root)
    return _cache[key]


def _resolve(raw: str, state_root: Path) -> tuple[str, ...]:
    try:
        import json5

        root = json5.loads(raw)
    except (ValueError, RecursionError):
        return ()  # (load_config reports a bad file)
    if not isinstance(root, dict):
        return ()
    secrets = _obj(root.get("secrets"))
    providers, defaults = _obj(secrets.get("providers")), _obj(secrets.get("defaults"))
    lookup = _env_values(state_root, root)
    values: dict[str, None] = {}
    for ref in _refs(root, ""):
        v = _value(ref, providers, defaults, lookup)
        if v is not None and len(v) >= _MIN_VALUE:
            values[v] = None
    return tuple(values)


def _obj(node: object) -> dict[str, Any]:
    return node if isinstance(node, dict) else {}


def _refs(node: Any, key: str, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every SecretRef object in the config, and the ``${VAR}`` shorthand on secret fields."""
    if depth > 64:
        return
    if isinstance(node, dict):
        if node.get("source") in ("env", "file") and isinstance(node.get("id"), str):
            yield node
            return
        for k, v in node.items():
            yield from _refs(v, str(k), depth + 1)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v, key, depth + 1)
    elif isinstance(node, str) and (m := _SHORTHAND.fullmatch(node.strip())):
        from openclaw_sessions.redact.rules import names  # the rules: only for a shorthand

        if names.secret_name(key):
            yield {"source": "env", "id": m.group(1) or m.group(2)}


def _env_values(state_root: Path, root: dict[str, Any]) -> ChainMap[str, str]:
    """Where an env ref's value is looked up, in upstream's precedence: the process
    environment, the global .env, the config's vars (``env.vars``, or the flat form
    ``env: {NAME: "value"}``); an empty value is none."""
    env = _obj(root.get("env"))
    known = env["vars"] if isinstance(env.get("vars"), dict) else env
    found = (os.environ, _read_dotenv(state_root / ".env"), known)
    return ChainMap(*({k: v for k, v in m.items() if isinstance(v, str) and v} for m in found))


def _read_dotenv(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8-sig")[:_MAX_FILE]
    except (OSError, UnicodeDecodeError):
        return out
    for line in text.splitlines():
        m = re.match(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$", line)
        if not m or line.lstrip().startswith("#"):
            continue
        v = m.group(2)
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
            v = v[1:-1]
        elif " #" in v:
            v = v.split(" #", 1)[0].rstrip()
        out[m.group(1)] = v
    return out


def _value(
    ref: dict[str, Any], providers: dict[str, Any], defaults: dict[str, Any], env: Mapping[str, str]
) -> str | None:
    source, ref_id = ref["source"], ref["id"]
    alias = ref.get("provider") or defaults.get(source) or "default"
    entry = providers.get(alias) if isinstance(alias, str) else None
    if not isinstance(entry, dict) or entry.get("source") != source:
        entry = None
    if source == "env":
        allow = entry.get("allowlist") if entry else None
        if not _ENV_ID.fullmatch(ref_id) or (isinstance(allow, list) and ref_id not in allow):
            return None
        return env.get(ref_id)
    if entry is None or not isinstance(entry.get("path"), str):
        return None  # a file ref needs its provider
    return _file_value(Path(entry["path"]).expanduser(), entry.get("mode"), ref_id)


def _file_value(path: Path, mode: object, ref_id: str) -> str | None:
    try:
        with path.open("rb") as f:
            data = f.read(_MAX_FILE + 1)
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    if len(data) > _MAX_FILE:
        return None
    if mode == "singleValue":
        return text.rstrip("\r\n") if ref_id == "value" else None
    try:
        node: Any = json.loads(text)
    except ValueError:
        return None
    if not ref_id.startswith("/"):
        return None
    for part in ref_id[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node if isinstance(node, str) else None
