"""`pick` and `completions`: the interactive picker on fzf and the shell set-up (app.py
registers them, with their examples, in their place in --help)."""

from collections.abc import Callable
from typing import Annotated, Any

import typer

from openclaw_sessions.store import paths

from .completion import words
from .options import AgentOpt, AllAgentsOpt, ColorOpt, StateDirOpt, examples, finish

SHELLS = ("bash", "zsh", "fish")


def pick_cmd(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY", help="The first query (then type to search).", show_default=False
        ),
    ] = "",
    state_dir: StateDirOpt = None,
    agent: AgentOpt = paths.DEFAULT_AGENT,
    all_agents: AllAgentsOpt = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="Most hits listed per query.")
    ] = 100,
    whole_words: Annotated[
        bool,
        typer.Option(
            "--whole-words",
            help="Match whole words only as you type (else the word being typed is a prefix"
            " once it has 3 letters: slower on a big store).",
        ),
    ] = False,
    color: ColorOpt = "auto",
) -> None:
    """Search as you type in fzf, the conversation around each hit previewed; enter prints
    the hit's session key and message id (tab-separated), ctrl-o reads it in less, ctrl-e
    exports the session as Markdown to stdout."""
    finish("pick", locals())


def completions_cmd(
    shell: Annotated[
        str,
        typer.Argument(metavar="SHELL", help="bash, zsh or fish.", autocompletion=words(*SHELLS)),
    ],
) -> None:
    """Print the shell completion script (it completes session keys, colons and all)."""
    finish("completions", locals())


# (name, --help examples, function), in --help order.
COMMANDS: list[tuple[str, str, Callable[..., Any]]] = [
    (
        "pick",
        examples(
            "pick deploy",
            "pick --all-agents --limit 200",
            "pick invoice > conversation.md   # then ctrl-e: the session as Markdown",
        ),
        pick_cmd,
    ),
    (
        "completions",
        examples(
            "completions bash > ~/.local/share/bash-completion/completions/openclaw-sessions",
            'completions zsh > "${fpath[1]}/_openclaw-sessions"',
            "completions fish > ~/.config/fish/completions/openclaw-sessions.fish",
        ),
        completions_cmd,
    ),
]
