"""Session-tool visibility: which sessions a caller may search or read (pure, no I/O).

Owns upstream OpenClaw's policy for ``sessions_search``/``sessions_history``: the
``tools.sessions.visibility`` modes (self/tree/agent/all), the sandbox "spawned" clamp,
``tools.agentToAgent`` allow globs, the absolute incognito ban, resolution of caller and
target references (aliases, bare keys, session ids), and upstream's user-facing denial
texts. Semantics follow upstream's ``createSessionVisibilityDecisionChecker``
(plugin-sdk/session-visibility-internal.ts) and ``resolveVisibleSessionReference``
(agents/tools/sessions-resolution.ts); the texts are upstream's, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from openclaw_sessions.errors import ForbiddenError, NotFoundError, UsageError

from .keys import (
    DEFAULT_MAIN_KEY,
    SessionIndex,
    SessionNotFound,
    SessionRef,
    agent_of,
    as_index,
    expand_session_id,
    is_acp_key,
    is_incognito,
    is_subagent_key,
    looks_like_key,
    no_session,
    parse_key,
    resolve_session_key,
    scoped,
)

VISIBILITIES = ("self", "tree", "agent", "all")
# Upstream 2026.9.6 resolveSessionToolsVisibility: unset means "all" (gateway-wide visibility is
# its stated trust model); older releases said "tree".
DEFAULT_VISIBILITY = "all"
SANDBOX_VISIBILITIES = ("spawned", "all")
DEFAULT_SANDBOX_VISIBILITY = "spawned"
SANDBOX_MODES = ("off", "non-main", "all")  # agents.*.sandbox.mode: whose sessions run sandboxed


def runs_sandboxed(key: str, entry: dict[str, object], mode: str, main_key: str) -> bool:
    """Does session ``key`` run sandboxed (agent sandbox ``mode``), as upstream's
    shouldSandboxSession decides?"""
    if entry.get("sandbox") == "required":
        return True
    if entry.get("sandboxMode") == "off" or mode == "off":
        return False
    agent = agent_of(key)
    return mode == "all" or agent is None or key != scoped(main_key, agent)


_MODES = {(v, s) for v in VISIBILITIES for s in SANDBOX_VISIBILITIES}


def check_visibility(mode: str | None) -> None:
    """A --visibility given (None: the config's) is one of VISIBILITIES."""
    if mode not in (None, *VISIBILITIES):
        raise UsageError(f"visibility must be one of {', '.join(VISIBILITIES)}")


def allow_pattern_matches(pattern: str, agent_id: str) -> bool:
    """One ``tools.agentToAgent.allow`` entry vs an agent id, matched as upstream does.

    Only ``*`` is special (not fnmatch's ``?``/``[]``); blank entries match nothing; exact
    ids are case-sensitive, wildcards are not; a linear scan, so no backtracking.
    """
    raw = pattern.strip()
    if not raw:
        return False
    if raw == "*":
        return True
    if "*" not in raw:
        return raw == agent_id
    parts = raw.lower().split("*")
    first, last = parts[0], parts[-1]
    lower = agent_id.lower()
    pos = len(first)
    if first and not lower.startswith(first):
        return False
    end = len(lower) - len(last)
    if last and (not lower.endswith(last) or end < pos):
        return False
    for part in (p for p in parts[1:-1] if p):
        idx = lower.find(part, pos)
        if idx == -1 or idx + len(part) > end:
            return False
        pos = idx + len(part)
    return True


def agent_pair_allowed(
    requester: str, target: str, *, enabled: bool, allow: tuple[str, ...]
) -> bool:
    """Upstream ``isAllowed``: same agent always; else enabled and both ids match.

    An empty allow list counts as unset (every agent matches), as upstream documents.
    """
    if requester == target:
        return True
    if not enabled:
        return False

    def matches(agent: str) -> bool:
        return not allow or any(allow_pattern_matches(p, agent) for p in allow)

    return matches(requester) and matches(target)


def effective_visibility(visibility: str, *, sandboxed: bool, sandbox_visibility: str) -> str:
    """Apply upstream's sandbox clamp: a sandboxed caller under "spawned" is forced to tree."""
    if sandboxed and sandbox_visibility == "spawned" and visibility != "tree":
        return "tree"
    return visibility


class Caller(NamedTuple):
    """Who is asking; ``key=None`` is operator mode (the shell user, not an agent). Policy
    checks the visibility pair (a NamedTuple cannot validate on construction)."""

    key: str | None
    agent_id: str
    visibility: str = DEFAULT_VISIBILITY
    sandboxed: bool = False
    sandbox_visibility: str = DEFAULT_SANDBOX_VISIBILITY
    agent_to_agent_enabled: bool = True  # upstream: only an explicit `false` turns it off
    agent_to_agent_allow: tuple[str, ...] = ()
    main_key: str = DEFAULT_MAIN_KEY  # upstream session.mainKey


class _Owned:
    """The session index as a caller sees it: an unscoped key (``global``, a legacy bare key)
    is only ever the caller's own agent's; another agent's cannot name its owner, so it is not
    there at all (upstream lists unscoped keys from the requester's agent only)."""

    def __init__(self, index: SessionIndex, owns: Callable[[SessionRef], bool]) -> None:
        self._index, self._owns = index, owns

    def with_key(self, key: str) -> list[SessionRef]:
        return [r for r in self._index.with_key(key) if self._owns(r)]

    def with_session_id(self, session_id: str) -> list[SessionRef]:
        return [r for r in self._index.with_session_id(session_id) if self._owns(r)]

    def has_agent(self, agent_id: str) -> bool:
        return self._index.has_agent(agent_id)

    def with_session_id_prefix(self, prefix: str) -> list[SessionRef]:
        return [r for r in self._index.with_session_id_prefix(prefix) if self._owns(r)]


class Policy:
    """Visibility decisions for one caller over the session stores: a snapshot of their
    references, or a SessionIndex that looks each one up (store/sessions.py)."""

    def __init__(self, caller: Caller, sessions: Iterable[SessionRef] | SessionIndex) -> None:
        # A bad pair is a programming error: config.py validates what users write.
        if (caller.visibility, caller.sandbox_visibility) not in _MODES:
            raise ValueError(f"bad visibility: {caller.visibility!r}/{caller.sandbox_visibility!r}")
        self.caller = caller
        self._key = caller.key.strip().lower() if caller.key is not None else None
        self.agent = caller.agent_id.strip().lower()  # its store holds the unscoped keys
        self._index = _Owned(as_index(sessions), self.owns_unscoped)
        self.visibility = effective_visibility(
            caller.visibility,
            sandboxed=caller.sandboxed,
            sandbox_visibility=caller.sandbox_visibility,
        )
        # Upstream restrictToSpawned: sandboxed subagents are clamped to tree but not
        # restricted to their own spawn list.
        self.restrict_to_spawned = (
            self._key is not None
            and caller.sandboxed
            and caller.sandbox_visibility == "spawned"
            and not is_subagent_key(self._key)
        )
        # The canonical main session of the caller's agent sees its whole agent under
        # tree; upstream drops this widening for spawn-restricted callers.
        self._main = None if self.restrict_to_spawned else scoped(caller.main_key, self.agent)

    def _spawned_by_caller(self, ref: SessionRef) -> bool:
        # Upstream's gateway spawnedBy filter matches spawnedBy or parentSessionKey.
        return self._key in (_norm(ref.spawned_by), _norm(ref.parent_session_key))

    def owns_unscoped(self, ref: SessionRef) -> bool:
        """False for another agent's unscoped key (never visible, never resolved)."""
        return parse_key(ref.key) is not None or ref.agent_id.strip().lower() == self.agent

    def _id_candidate(self, ref: SessionRef) -> bool:
        """A session a session id may name for this caller (see resolve_session_key)."""
        if self.restrict_to_spawned:  # upstream resolves with spawnedBy: own children only
            return ref.key.strip().lower() == self._key or self._spawned_by_caller(ref)
        return self.visible(ref)

    def deny_reason(self, ref: SessionRef) -> str | None:
        """Why ``ref`` is hidden (upstream reason code), or None when visible."""
        key = ref.key.strip().lower()
        if is_incognito(key):
            return "incognito_session"
        if self._key is None:
            return None
        is_self = key == self._key
        target_agent = (ref.agent_id or agent_of(key) or self.agent).strip().lower()
        cross = target_agent != self.agent
        if self.restrict_to_spawned and not is_self and not self._spawned_by_caller(ref):
            # A spawn-restricted caller (sandboxed, no subagent) sees itself and what it
            # spawned; a key beyond is refused with the tree clamp's words, as upstream's
            # history refuses it (its sandboxed text is for session ids: see resolve_target).
            return "cross_agent_visibility_restricted" if cross else "tree_visibility_restricted"
        vis = self.visibility
        owned = self._spawned_by_caller(ref) or self._key == _norm(ref.owner_session_key)
        owned = owned or (vis == "tree" and not cross and self._key == self._main)
        # Ownership (direct children only: upstream does not walk grandchildren) beats
        # agent ids, but only native subagent/ACP children may cross an agent boundary.
        native = is_subagent_key(key) or is_acp_key(key)
        if not is_self and owned and (not cross or native) and vis in ("tree", "all"):
            return None
        if cross:
            if vis != "all":
                return "cross_agent_visibility_restricted"
            if not self.caller.agent_to_agent_enabled:
                return "agent_to_agent_disabled"
            if not agent_pair_allowed(
                self.agent, target_agent, enabled=True, allow=self.caller.agent_to_agent_allow
            ):
                return "agent_to_agent_not_allowed"
            return None
        if vis == "self" and not is_self:
            return "self_visibility_restricted"
        if vis == "tree" and not is_self and not owned:
            return "tree_visibility_restricted"
        return None

    def visible(self, ref: SessionRef) -> bool:
        return self.deny_reason(ref) is None

    def sees(self, ref: SessionRef) -> bool:
        """Visible, and not another agent's unscoped key: a reference found in a store."""
        return self.owns_unscoped(ref) and self.visible(ref)

    def sees_all_of(self, agent_id: str) -> bool:
        """Is every session of this agent visible but incognito ones, whatever its relations
        (the caller's own agent under agent/all, or under tree for its main session; another
        agent under all with agent-to-agent access)? Then a store can be asked for any one of
        them instead of each relation."""
        if self._key is None:
            return True
        agent = agent_id.strip().lower()
        if agent == self.agent:
            return self.visibility in ("agent", "all") or (
                self.visibility == "tree" and self._key == self._main
            )
        return self.visibility == "all" and agent_pair_allowed(
            self.agent,
            agent,
            enabled=self.caller.agent_to_agent_enabled,
            allow=self.caller.agent_to_agent_allow,
        )

    def check_target(
        self, target_key: str, action: str = "history", shown: str | None = None
    ) -> None:
        """Raise ForbiddenError/NotFoundError unless the caller may open ``target_key``.

        Visibility is decided before existence (as upstream, whose missing keys flow into
        the same checks), so a hidden key answers "forbidden" whether or not it exists.
        """
        key = target_key.strip().lower()
        label = shown if shown is not None else target_key
        refs = self._index.with_key(key)
        probe = refs or [SessionRef(key=key, agent_id=agent_of(key) or self.agent)]
        reasons = [self.deny_reason(ref) for ref in probe]
        if None not in reasons:
            raise _forbidden(next(r for r in reasons if r is not None), action, label)
        # Like upstream, a known agent's main session may be read before it has a transcript.
        parsed = parse_key(key)
        if not refs and not (
            parsed
            and parsed[1] == self.caller.main_key
            and (parsed[0] == self.agent or self._index.has_agent(parsed[0]))
        ):
            if looks_like_key(label):
                raise no_session(label)
            raise SessionNotFound(label, agent=self._key is not None)

    def expand_id(self, raw: str) -> str:
        """A unique prefix of a session id this caller may name → that id (else ``raw``)."""
        return expand_session_id(
            raw, self.agent, self._index, shown=self._id_candidate, main_key=self.caller.main_key
        )

    def resolve_target(self, raw: str, action: str = "history") -> str:
        """Resolve a user reference and check it; returns the canonical key.

        A sandboxed caller is never told whether a session id it may not see exists: a
        hidden id and a missing one give the same answer, the one a hidden key gets. (Upstream
        resolves a sandboxed subagent's ids unfiltered, so there a hidden id is "restricted
        to the current session tree" and a missing one "not found": a deliberate difference.)
        """
        sandboxed = self._key is not None and self.caller.sandboxed
        try:
            key = resolve_session_key(
                raw,
                self.agent,
                self._index,
                current=self._key,
                main_key=self.caller.main_key,
                shown=self._id_candidate,
                hidden_ids_resolve=not sandboxed,
            )
        except NotFoundError as exc:
            reason = None
            if sandboxed:
                spawned = self.restrict_to_spawned
                reason = "sandbox_spawned_only" if spawned else _MODE_REASONS.get(self.visibility)
            if reason is not None:
                raise _forbidden(reason, action, raw.strip()) from None
            if isinstance(exc, SessionNotFound):  # an agent is pointed to its own tool
                raise SessionNotFound(exc.shown, agent=self._key is not None) from None
            raise
        self.check_target(key, action, shown=raw.strip())
        return key


# What a sandboxed caller's unresolvable session id answers, by its effective visibility
# (under agent or all, only incognito sessions are hidden: "not found" for both).
_MODE_REASONS = {"self": "self_visibility_restricted", "tree": "tree_visibility_restricted"}


def _norm(value: str | None) -> str | None:
    return value.strip().lower() if value is not None else None


# Upstream's forbidden texts (renderSessionVisibilityDenial and sessions-resolution.ts),
# keyed by its reason codes; {action} is "search" or "history".
_DENIALS = {
    "incognito_session": "Session not visible from session tools: {shown}",
    "sandbox_spawned_only": "Session not visible from this sandboxed agent session: {shown}",
    "cross_agent_visibility_restricted": "Session {action} visibility is restricted. "
    "Set tools.sessions.visibility=all to allow cross-agent access; use tools.agentToAgent "
    "to restrict permitted agent pairs.",
    "agent_to_agent_disabled": "Agent-to-agent {action} is disabled. "
    "Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    "agent_to_agent_not_allowed": "Agent-to-agent {action} denied by tools.agentToAgent.allow.",
    "self_visibility_restricted": "Session {action} visibility is restricted to the current "
    "session (tools.sessions.visibility=self).",
    "tree_visibility_restricted": "Session {action} visibility is restricted to the current "
    "session tree (tools.sessions.visibility=tree).",
}
# Our own guidance (upstream gives none): what a shell user can change.
_HINTS = {
    "incognito_session": "incognito sessions are never searchable or readable",
    "sandbox_spawned_only": "sandboxed callers see only themselves and the sessions they "
    "spawned (agents.defaults.sandbox.sessionToolsVisibility)",
    "agent_to_agent_disabled": "cross-agent access needs tools.agentToAgent.enabled=true",
    "agent_to_agent_not_allowed": "both agent ids must match tools.agentToAgent.allow",
}


def _forbidden(reason: str, action: str, shown: str) -> ForbiddenError:
    hint = _HINTS.get(reason, "widen tools.sessions.visibility, or omit --as to act as operator")
    return ForbiddenError(_DENIALS[reason].format(action=action, shown=shown), hint=hint)
