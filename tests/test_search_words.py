"""`search` takes its words as people type them: several words without quotes, `-word` to
leave one out, options before or after the words, `--` to end the options."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import installed, json_out, run_cli


def _keys(result) -> list[tuple[str, str]]:
    return [(h["sessionKey"], h["messageId"]) for h in json_out(result)["results"]]


def test_unquoted_words_are_one_query(sample_store: Path) -> None:
    quoted = run_cli("search", "nightly deploy", "--json", "--state-dir", str(sample_store))
    words = run_cli("search", "nightly", "deploy", "--json", "--state-dir", str(sample_store))
    assert quoted.exit_code == 0
    assert _keys(words) == _keys(quoted)


def test_dash_word_leaves_a_word_out(sample_store: Path) -> None:
    every = _keys(run_cli("search", "deploy", "--json", "--state-dir", str(sample_store)))
    fewer = run_cli("search", "deploy", "-nightly", "--json", "--state-dir", str(sample_store))
    assert fewer.exit_code == 0
    assert 0 < len(_keys(fewer)) < len(every)
    assert _keys(fewer) == _keys(
        run_cli("search", "deploy -nightly", "--json", "--state-dir", str(sample_store))
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["-n", "1", "deploy", "--json"],
        ["deploy", "-n1", "--json"],
        ["deploy", "--limit=1", "--json"],
        ["--json", "deploy", "--limit", "1"],
    ],
)
def test_options_before_and_after_the_words(sample_store: Path, argv: list[str]) -> None:
    result = run_cli("search", *argv, "--state-dir", str(sample_store))
    assert result.exit_code == 0, result.output
    assert len(json_out(result)["results"]) == 1


def test_double_dash_makes_every_word_query_text(sample_store: Path) -> None:
    result = run_cli("search", "--json", "--state-dir", str(sample_store), "--", "deploy", "-n")
    assert result.exit_code == 0, result.output
    # `-n` is a query word here (leave out "n"), not --limit: the hits are deploy's
    assert len(json_out(result)["results"]) >= 2


def test_no_word_is_still_a_usage_error(sample_store: Path) -> None:
    result = run_cli("search", "--state-dir", str(sample_store))
    assert result.exit_code == 2
    assert "missing argument 'QUERY'" in result.output


def test_an_unknown_long_option_is_still_refused(sample_store: Path) -> None:
    result = run_cli("search", "deploy", "--limt", "5", "--state-dir", str(sample_store))
    assert result.exit_code == 2
    assert "--limt" in result.output


def test_installed_command_takes_words(sample_store: Path) -> None:
    proc = installed("search", "deploy", "-nightly", "--format", "plain", state=sample_store)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout
    assert all("nightly" not in line.lower() for line in proc.stdout.splitlines())
