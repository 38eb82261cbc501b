"""The command group: every command listed once, aliases beside their command."""

from __future__ import annotations

from click.testing import CliRunner

from sprouts_cli.cli import main


def test_help_lists_each_command_once_with_its_alias() -> None:
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0
    names = [line.split()[0] for line in r.output.split("Commands:")[1].splitlines() if line.strip()]
    assert names == sorted(set(names))  # each once, in order
    known = {"bounds", "canonical", "children", "layout", "moves", "play", "render", "replay-log", "solve"}
    assert known <= set(names)
    assert "replay-log (replay)" in r.output


def test_the_alias_runs_the_command() -> None:
    a = CliRunner().invoke(main, ["replay", "--help"])
    b = CliRunner().invoke(main, ["replay-log", "--help"])
    assert a.exit_code == b.exit_code == 0 and a.output == b.output


def test_an_unknown_command_is_one_clear_error() -> None:
    r = CliRunner().invoke(main, ["slove", "0*3"])
    assert r.exit_code == 2 and "No such command 'slove'" in r.output
