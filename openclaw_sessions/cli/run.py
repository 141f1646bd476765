"""Every command once its argv is parsed, the same whichever parser read it (the Typer app,
app.py, or the fast path, fastargs.py): the parameters become the command's options object
(the core's) and the flags that say how to print (Output, the CLI's), the values that need it
are checked at the edge (argcheck.py), the core is called once, its result printed, and the
exit code returned. Typer-free: the fast path runs it too.

A new option is a parameter of the Typer command and a field of the options object (or of
Output) with the same name and default; a test holds them equal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from openclaw_sessions.errors import ExitCode, UsageError

from . import argcheck, guard, nul, output, style

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from openclaw_sessions.reports import Progress
    from openclaw_sessions.store.sessions import DeleteOptions

T = TypeVar("T", bound=tuple[Any, ...])


class Output(NamedTuple):
    """How a command talks to its caller; the core never sees these."""

    as_json: bool = False
    jsonl: bool = False
    utc: bool = False
    quiet: bool = False
    yes: bool = False
    color: str = "auto"  # auto | always | never
    time: str = "absolute"  # absolute | relative
    layout: str = "auto"  # search --format: auto | table | plain
    no_pager: bool = False
    output: str | None = None  # export --output (a str: a trailing "/" says "a directory")
    force: bool = False
    verbose: bool = False  # status: every detail
    remote: str | None = None  # search --remote DSN: the central database (remote_cli.py)
    hosts: list[str] | None = None  # search --host NAME…, with --remote
    follow: bool = False  # history: then what is appended, until Ctrl-C
    null: bool = False  # sessions, search: -0, the names NUL-terminated (nul.py)

    def times(self) -> style.Times:
        return style.Times(utc=self.utc, relative=self.time == "relative")

    def check(self) -> None:
        """The values only the CLI reads, checked before anything runs."""
        argcheck.choice("--color", self.color, style.COLORS)
        argcheck.choice("--time", self.time, style.TIMES)
        argcheck.choice("--format", self.layout, ("auto", "table", "plain"))
        if self.layout != "auto" and (self.as_json or self.jsonl):
            raise UsageError(
                "--format is for the human output", hint="drop it, or drop --json/--jsonl"
            )


def split(kind: type[T], params: dict[str, Any]) -> tuple[T, Output]:
    """The command's options object and its Output, from its parameters by name."""
    fields: tuple[str, ...] = getattr(kind, "_fields")  # noqa: B009 - a NamedTuple class
    unknown = params.keys() - set(fields) - set(Output._fields)
    if unknown:  # a parameter no one reads: the options object lacks a field
        raise TypeError(f"{kind.__name__} has no field for {sorted(unknown)}")
    opts = kind(**{k: v for k, v in params.items() if k in fields})
    return opts, Output(**{k: v for k, v in params.items() if k in Output._fields})


# The core module of each command (load() imports it: the fast path's start-up).
CORE = {
    "search": "openclaw_sessions.read.search",
    "history": "openclaw_sessions.read.history",
    "status": "openclaw_sessions.read.status",
    "reindex": "openclaw_sessions.index.reindex",
    "import": "openclaw_sessions.ingest.importer",
    "delete": "openclaw_sessions.store.sessions",
    "export": "openclaw_sessions.read.export",
    "sessions": "openclaw_sessions.read.listing",
    "pick": "openclaw_sessions.cli.pick",
    "completions": "openclaw_sessions.cli.shells",
}


def load(name: str) -> None:
    """Import what a command runs, before it runs."""
    import_module(CORE[name])


def run_command(name: str, params: dict[str, Any]) -> int:
    """Run one parsed command; its exit code. A reader that goes away (`| head`) ends it
    quietly with 0: what was asked was being printed, and the reader had enough."""
    from . import userconfig

    params = _unescaped(guard.guarded(False, lambda: userconfig.lenient(name, params)))
    out = Output(**{k: v for k, v in params.items() if k in Output._fields})
    guard.guarded(out.as_json, out.check)
    style.use_color(out.color)
    try:
        code = _COMMANDS[name](params)
        sys.stdout.flush()
    except BrokenPipeError:
        reader_gone()
        return int(ExitCode.OK)
    return code


# The parameters that name a session or message: plain output prints them escaped
# (policy/escape.py), and they are read back in that form, so a printed key can be passed on.
_NAMES = ("key", "target", "session", "as_key", "around", "session_id")


def _unescaped(params: dict[str, Any]) -> dict[str, Any]:
    from openclaw_sessions.policy.escape import unescape

    out = dict(params)
    for name in _NAMES:
        if isinstance(out.get(name), str):
            out[name] = unescape(out[name])
    if isinstance(out.get("undelete"), list | tuple):
        out["undelete"] = [unescape(v) if isinstance(v, str) else v for v in out["undelete"]]
    return out


def reader_gone() -> None:
    """stdout's reader went away: point stdout at /dev/null, so that the flushes still to
    come (ours, the interpreter's at exit) cannot fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _search(params: dict[str, Any]) -> int:
    from openclaw_sessions.read.models import SearchResult
    from openclaw_sessions.read.search import SearchOptions, search

    opts, out = split(SearchOptions, params)
    if out.null:
        guard.guarded(out.as_json or out.jsonl, lambda: nul.check(params))
    if out.remote is not None or out.hosts:
        from .remote_search import run_search

        return run_search(opts, out, params)

    def work() -> SearchResult:
        argcheck.text("QUERY", opts.query, empty_ok=True)  # empty: the core's own message
        argcheck.count("--limit", opts.limit)
        argcheck.count("--max-bytes", opts.max_bytes, least=0)
        argcheck.count("--context", opts.context, least=0)
        argcheck.texts(
            [
                ("--session", opts.session),
                ("--since", opts.since),
                ("--until", opts.until),
                ("--as", opts.as_key),
            ]
        )
        return search(opts)

    result = guard.guarded(out.as_json or out.jsonl, work)
    code = int(ExitCode.OK if result.found else ExitCode.NOTHING)
    if out.as_json:
        output.echo_json(result.agent_json() if opts.as_key is not None else result.to_json())
        return code
    from . import render

    if out.null:
        nul.search(result)
        if result.sessions is None:  # --sessions: nothing to add; hits: the notes under them
            render.search_footer(result)
    elif result.match_count is not None or result.sessions is not None:
        render.search_counts(result, jsonl=out.jsonl)
    elif out.jsonl:
        for h in result.hits:
            output.echo_json(h.upstream_json() if opts.as_key is not None else h.to_json())
        render.search_footer(result)
    elif out.layout == "table" or (out.layout == "auto" and sys.stdout.isatty()):
        render.search_table(result, out.times())
    else:
        render.search_lines(result, out.times())
    return code


def _history(params: dict[str, Any]) -> int:
    from openclaw_sessions.read.history import HistoryOptions, history
    from openclaw_sessions.read.models import HistoryResult

    opts, out = split(HistoryOptions, params)

    def work() -> HistoryResult:
        argcheck.text("KEY", opts.key, empty_ok=True)  # empty, --around empty: the core's
        argcheck.text("--around", opts.around, empty_ok=True)
        argcheck.count("--limit", opts.limit)
        argcheck.count("--offset", opts.offset)
        argcheck.count("--max-bytes", opts.max_bytes, least=0)
        argcheck.texts([("--session-id", opts.session_id), ("--as", opts.as_key)])
        if out.follow and (out.as_json or opts.around is not None or opts.offset is not None):
            raise UsageError(
                "--follow shows the newest messages, then each new one, as text",
                hint="drop --json, --around and --offset",
            )
        return history(opts)

    result = guard.guarded(out.as_json, work)
    if out.as_json:
        output.echo_json(result.to_json())
    else:
        from . import history_view

        history_view.show(
            result,
            out.times(),
            whole=opts.uncapped,
            liftable=opts.as_key is None,
            use_pager=not out.no_pager and not out.follow,
        )
    if out.follow:
        from . import follow

        guard.guarded(False, lambda: follow.follow(opts, result, out.times()))
    return int(ExitCode.OK if result.messages else ExitCode.NOTHING)


def _export(params: dict[str, Any]) -> int:
    from openclaw_sessions.read.export import Export, ExportOptions, export

    opts, out = split(ExportOptions, params)
    if out.as_json:
        opts = opts._replace(fmt="json")

    def work() -> Export:
        argcheck.text("KEY", opts.key, empty_ok=True)  # empty: the core's message
        argcheck.texts([("--as", opts.as_key)])
        return export(opts)

    exp = guard.guarded(False, work)
    from . import export_bundle, export_out, render

    if not export_bundle.something(exp, out.output):
        render.info(f"no transcript stored for {output.field(exp.session_key)}: nothing to export")
        return int(ExitCode.NOTHING)
    written = guard.guarded(
        False, lambda: export_bundle.place(exp, out.output, force=out.force, times=out.times())
    )
    export_out.summary(written)
    return int(ExitCode.OK)


def _sessions(params: dict[str, Any]) -> int:
    from openclaw_sessions.read.listing import Listed, SessionsOptions, list_sessions

    opts, out = split(SessionsOptions, params)

    def work() -> Listed:
        argcheck.count("--limit", opts.limit)
        argcheck.texts([("--since", opts.since), ("--until", opts.until), ("--as", opts.as_key)])
        if out.null:
            nul.check(params)
        return list_sessions(opts)

    listed = guard.guarded(out.as_json or out.jsonl, work)
    if out.as_json:
        doc: dict[str, Any] = {"sessions": [r.to_json() for r in listed.rows]}
        if listed.truncated:
            doc["truncated"] = True
        output.echo_json(doc)
    elif out.jsonl:
        for r in listed.rows:
            output.echo_json(r.to_json())
    elif out.null:
        nul.sessions(listed)
    else:
        from . import render_sessions

        render_sessions.sessions_list(listed, out.times())
    if listed.truncated and not out.as_json:
        from . import render

        render.info("more sessions exist: raise --limit")
    return int(ExitCode.OK if listed.rows else ExitCode.NOTHING)


def _bars(out: Output) -> Callable[[str, str], AbstractContextManager[Progress | None]]:
    """Progress bars on a terminal, unless the caller asked for quiet or JSON."""
    from . import render

    return lambda label, unit: render.progress(
        label, enabled=not out.quiet and not out.as_json, unit=unit
    )


def _reindex(params: dict[str, Any]) -> int:
    from openclaw_sessions.index.reindex import ReindexOptions, reindex

    opts, out = split(ReindexOptions, params)
    reports = guard.guarded(out.as_json, lambda: reindex(opts, _bars(out)))
    problems = sum(r.problems for r in reports)
    if out.as_json:
        output.echo_json({"agents": [r.to_json() for r in reports]})
    elif not out.quiet or problems:
        from . import render_reports

        render_reports.reindex_reports(reports)
    return int(ExitCode.PROBLEMS if problems else ExitCode.OK)


def _import(params: dict[str, Any]) -> int:
    from openclaw_sessions.ingest.importer import Imported, ImportOptions, import_sources

    opts, out = split(ImportOptions, params)

    def work() -> Imported:
        argcheck.texts([("--undelete", k) for k in opts.undelete or ()])
        return import_sources(opts, _bars(out))

    done = guard.guarded(out.as_json, work)
    if out.as_json:
        report = done.report.to_json()
        if done.reindexed:
            report["reindex"] = [r.to_json() for r in done.reindexed]
        output.echo_json(report)
    else:
        from . import render_reports

        if out.quiet:  # only what is new since the last run (cron)
            render_reports.new_problems(done.report, done.reindexed, every=out.verbose)
        else:
            render_reports.import_report(done.report, done.reindexed, every=out.verbose)
    return int(ExitCode.PROBLEMS if done.problems else ExitCode.OK)


def _delete(params: dict[str, Any]) -> int:
    from openclaw_sessions.store.sessions import DeleteOptions, delete_session

    opts, out = split(DeleteOptions, params)
    guard.guarded(out.as_json, lambda: argcheck.text("TARGET", opts.target))
    if not out.yes and not _confirmed(opts, out):
        return int(ExitCode.NOTHING)
    done = guard.guarded(out.as_json, lambda: delete_session(opts))
    if out.as_json:
        output.echo_json(done)
    else:
        from . import render

        key = output.field(str(done["sessionKey"]))
        render.info(
            f"deleted {key}: {done['transcripts']} transcript(s), "
            f"{done['events']} events, {done['indexRows']} index rows; import leaves it"
            " deleted while its files are unchanged (`import --undelete KEY` brings it back)"
        )
    return int(ExitCode.OK)


def _confirmed(opts: DeleteOptions, out: Output) -> bool:
    """Ask on the terminal; refuse to ask anything else (a script must pass --yes)."""
    import sys

    import typer

    from openclaw_sessions.store.sessions import preview_delete

    what = guard.guarded(out.as_json, lambda: preview_delete(opts))
    if not sys.stdin.isatty():
        refusal = UsageError(
            "refusing to prompt: stdin is not a terminal",
            hint="pass --yes to delete without asking",
        )
        guard.fail(refusal, out.as_json)
    return bool(typer.confirm(f"Delete {output.field(what)}?"))


def _lazy(module: str) -> Callable[[dict[str, Any]], int]:
    """A command whose handler, ``command(params)``, lives in its own module."""
    return lambda params: int(import_module(module).command(params))


_COMMANDS: dict[str, Callable[[dict[str, Any]], int]] = {
    "search": _search,
    "history": _history,
    "status": _lazy("openclaw_sessions.cli.run_status"),
    "reindex": _reindex,
    "import": _import,
    "delete": _delete,
    "export": _export,
    "sessions": _sessions,
    "pick": _lazy("openclaw_sessions.cli.pick"),
    "completions": _lazy("openclaw_sessions.cli.shells"),
    "schema": _lazy("openclaw_sessions.cli.schema_command"),
}
