"""Session keys and the references that name them (pure, no I/O).

Upstream OpenClaw's key grammar (``agent:<id>:<rest>``, process-only incognito keys, subagent
and ACP kinds) and its resolution of what a user or a tool passes (``current``, ``main``, a bare
rest of a key, a full key, a session id) to the canonical key, with upstream's texts for a
reference that names nothing (agents/tools/sessions-resolution.ts). Who may then see that key
is visibility.py's business.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol, runtime_checkable

from openclaw_sessions.errors import NotFoundError, UsageError

DEFAULT_MAIN_KEY = "main"


# Upstream routing/session-key.ts: process-only sessions that session tools never reach.
_INCOGNITO_RE = re.compile(
    r"agent:[^:]+:(?:dashboard|subagent|internal-session-effects):incognito-[^:]+"
)


_NOT_FOUND_HINT = (
    "pass a full session key (agent:<id>:<rest>), a bare key like 'main', or a session id"
)


def is_incognito(key: str) -> bool:
    """True for incognito keys, which no mode (not even operator mode) may see."""
    return _INCOGNITO_RE.fullmatch(key.strip().lower()) is not None


def parse_key(key: str) -> tuple[str, str] | None:
    """``agent:<id>:<rest>`` → (id, rest), lowercased, else None (upstream drops empty
    segments too, so ``agent::main:x`` is agent ``main``, rest ``x``)."""
    parts = [p for p in key.strip().lower().split(":") if p]
    if len(parts) < 3 or parts[0] != "agent" or not parts[1].strip():
        return None
    return parts[1].strip(), ":".join(parts[2:])


def scoped(rest: str, agent_id: str) -> str:
    """The key ``rest`` names in agent ``agent_id``'s store: ``agent:<id>:<rest>``, lowercased."""
    return f"agent:{agent_id.strip().lower()}:{rest.strip().lower()}"


def orphan_key(agent_id: str, session_id: str) -> str:
    """The key a transcript no session store entry names is stored under."""
    return scoped(f"orphan:{session_id}", agent_id)


def agent_of(key: str) -> str | None:
    """The agent id of an ``agent:<id>:...`` key, else None."""
    parsed = parse_key(key)
    return parsed[0] if parsed else None


def _kind_is(key: str, prefix: str) -> bool:
    raw = key.strip().lower()
    return raw.startswith(prefix) or (parse_key(raw) or ("", ""))[1].startswith(prefix)


def is_subagent_key(key: str) -> bool:
    return _kind_is(key, "subagent:")


def is_acp_key(key: str) -> bool:
    return _kind_is(key, "acp:")


# Upstream session-key-utils.ts isCronRunSessionKey: on the rest of an agent key only.
_CRON_RUN_RE = re.compile(r"cron:[^:]+:run:[^:]+(?::|$)")


def is_cron_run_key(key: str) -> bool:
    """One run of a cron job (``agent:<id>:cron:<job>:run:<run>...``): upstream's session
    listing, and so its search, leaves these out unless the caller names one."""
    parsed = parse_key(key)
    return parsed is not None and _CRON_RUN_RE.match(parsed[1]) is not None


class SessionRef(NamedTuple):
    """One session store entry, as far as visibility cares (keys lowercased)."""

    key: str
    agent_id: str
    session_id: str | None = None
    spawned_by: str | None = None
    parent_session_key: str | None = None
    owner_session_key: str | None = None


@runtime_checkable
class SessionIndex(Protocol):
    """What resolution and visibility ask of the session stores, one reference at a time (the
    store answers each with an indexed lookup: store/sessions.py)."""

    def with_key(self, key: str) -> list[SessionRef]:
        """The references whose key is ``key`` (lowercased)."""

    def with_session_id(self, session_id: str) -> list[SessionRef]:
        """The references whose session id equals ``session_id`` ignoring case."""

    def has_agent(self, agent_id: str) -> bool:
        """Does a reference name this agent (a key ``agent:<agent_id>:…``)?"""

    def with_session_id_prefix(self, prefix: str) -> list[SessionRef]:
        """The references whose session id starts with ``prefix`` ignoring case."""


class Snapshot:
    """A SessionIndex over references held in memory (tests, and pure callers)."""

    def __init__(self, refs: Iterable[SessionRef]) -> None:
        self.refs = tuple(refs)
        self._by_key: dict[str, list[SessionRef]] = {}
        self._by_id: dict[str, list[SessionRef]] = {}
        for r in self.refs:
            self._by_key.setdefault(r.key, []).append(r)
            if r.session_id:
                self._by_id.setdefault(r.session_id.lower(), []).append(r)
        self._agents = {r.agent_id for r in self.refs if parse_key(r.key) is not None}

    def with_key(self, key: str) -> list[SessionRef]:
        return list(self._by_key.get(key, ()))

    def with_session_id(self, session_id: str) -> list[SessionRef]:
        return list(self._by_id.get(session_id.lower(), ()))

    def has_agent(self, agent_id: str) -> bool:
        return agent_id in self._agents

    def with_session_id_prefix(self, prefix: str) -> list[SessionRef]:
        low = prefix.lower()
        return [r for r in self.refs if r.session_id and r.session_id.lower().startswith(low)]


def as_index(sessions: Iterable[SessionRef] | SessionIndex) -> SessionIndex:
    return sessions if isinstance(sessions, SessionIndex) else Snapshot(sessions)


class SessionNotFound(NotFoundError):
    """An unresolvable session id or key: ``shown`` as the caller typed it."""

    def __init__(self, shown: str, *, agent: bool = False) -> None:
        # Upstream's text; an agent is pointed to its tool (sessions_list), a person at a
        # shell to the command that lists keys.
        lister = "sessions_list" if agent else "`openclaw-sessions sessions`"
        message = f"Session not found: {shown} (use the full sessionKey from {lister})"
        super().__init__(message, hint=_NOT_FOUND_HINT)
        self.shown = shown


def no_session(shown: str) -> NotFoundError:
    """Upstream's text for a session key it has no session for (its gateway's "No session
    found"), where an unresolvable id gets SessionNotFound's."""
    return NotFoundError(f"No session found: {shown}", hint=_NOT_FOUND_HINT)


def looks_like_key(raw: str) -> bool:
    """Upstream's looksLikeSessionKey: input it reads as a key, not as a session id."""
    v = raw.strip()
    low = v.lower()
    return (
        v in ("main", "global", "unknown", "current")
        or is_acp_key(low)
        or low.startswith(("agent:", "cron:", "hook:", "node-", "node:"))
        or ":group:" in low
        or ":channel:" in low
    )


def resolve_session_key(
    raw: str,
    agent_id: str,
    sessions: Iterable[SessionRef] | SessionIndex,
    *,
    current: str | None = None,
    main_key: str = DEFAULT_MAIN_KEY,
    shown: Callable[[SessionRef], bool] | None = None,
    hidden_ids_resolve: bool = True,
) -> str:
    """A user reference → canonical key (existence of full keys is not checked here).

    ``current`` → the caller's key (else the agent's main); ``main`` → that main key;
    ``agent:...`` → itself; a bare rest → ``agent:<id>:<rest>`` if stored, else a session
    id (keys first, like upstream). Unknown or ambiguous ids raise NotFoundError.

    ``shown`` is what the caller may see: a session id resolves among those sessions first,
    and an error lists only them. When none of the sessions with that id is shown, the id
    still resolves (to one of them, for the caller's policy to deny, as upstream resolves ids
    across the store) unless ``hidden_ids_resolve`` is false (a sandboxed caller's ids resolve
    only among its own sessions, upstream's ``spawnedBy`` lookup).
    """
    text = raw.strip()
    if not text:
        raise UsageError("session key must not be empty", hint=_NOT_FOUND_HINT)
    lower, agent = text.lower(), agent_id.strip().lower()
    index = as_index(sessions)
    main = scoped(main_key, agent)
    if lower == "current":
        return current if current is not None else main
    if lower in ("main", main_key):  # before stored keys: a legacy bare "main" is an alias
        return main
    if index.with_key(lower):  # e.g. the "global" sentinel, when a store has it
        return lower
    parsed = parse_key(lower)
    if parsed is not None:
        return f"agent:{parsed[0]}:{parsed[1]}"
    candidate = scoped(lower, agent)
    if index.with_key(candidate):
        return candidate
    named = index.with_session_id(lower)
    seen = [r for r in named if shown(r)] if shown is not None else named
    matches = sorted({r.key for r in seen})
    if len(matches) > 1:  # ids are per agent upstream; prefer the caller's agent
        matches = [k for k in matches if agent_of(k) == agent] or matches
    if len(matches) == 1:
        return matches[0]
    if matches:  # every key named here is one the caller may see
        raise NotFoundError(
            f"Session id {text} matches several sessions: {', '.join(matches)}",
            hint="pass the full session key instead",
        )
    if named and hidden_ids_resolve:  # hidden only: the policy denies it, naming no key
        owners = sorted({r.key for r in named})
        return next((k for k in owners if agent_of(k) == agent), owners[0])
    if ":" in lower:  # key-shaped: let the policy decide forbidden vs not found
        return candidate
    raise SessionNotFound(text)


MIN_ID_PREFIX = 4  # the shortest prefix of a session id that names it (git's short SHA rule)


def expand_session_id(
    raw: str,
    agent_id: str,
    index: SessionIndex,
    *,
    shown: Callable[[SessionRef], bool],
    main_key: str,
) -> str:
    """A unique prefix (at least 4 characters) of a session id → that id, as git takes a
    short SHA; any other reference comes back as it is. A key, a bare rest of one and a
    whole session id always win over a prefix. Only the sessions ``shown`` to the caller
    count: a prefix never resolves to, or is made ambiguous by, a session the caller cannot
    see. An ambiguous prefix is a usage error that says how many sessions it matches (never
    which)."""
    text = raw.strip()
    lower = text.lower()
    if len(text) < MIN_ID_PREFIX or ":" in text or lower in ("current", "main", main_key):
        return raw
    if (
        index.with_key(lower)
        or index.with_key(scoped(lower, agent_id))
        or index.with_session_id(lower)
    ):
        return raw
    found = index.with_session_id_prefix(lower)
    ids = sorted({r.session_id for r in found if r.session_id and shown(r)})
    if len(ids) == 1:
        return ids[0]
    if ids:
        raise ambiguous(text, len(ids))
    return raw


def ambiguous(prefix: str, count: int) -> UsageError:
    return UsageError(
        f"session id prefix {prefix} is ambiguous: {count} sessions match",
        hint="type more of the session id, or pass the full session key",
    )


def resolve_caller_key(
    raw: str,
    agent_id: str,
    sessions: Iterable[SessionRef] | SessionIndex,
    *,
    main_key: str = DEFAULT_MAIN_KEY,
) -> str:
    """Resolve ``--as``: the caller's own session, which must exist (its main may be empty).

    Upstream's "current" means "the session running this tool"; a shell has no enclosing
    session, so here "current" and "main" both name the agent's main session.
    """
    index = as_index(sessions)
    key = resolve_session_key(
        raw, agent_id, index, main_key=main_key, shown=lambda r: not is_incognito(r.key)
    )
    parsed = parse_key(key)
    if not index.with_key(key) and not (parsed and parsed[1] == main_key):
        raise SessionNotFound(raw.strip())
    return key
