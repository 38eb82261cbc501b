"""Every command in a pipeline: plain lines into pipes, stdin, --json, SVG to stdout, completion."""

from __future__ import annotations

from click.testing import CliRunner

from sprouts_cli.cli import main


def test_children_prints_plain_lines_into_a_pipe() -> None:
    r = CliRunner().invoke(main, ["children", "0*3"])  # CliRunner's stdout is not a terminal
    assert r.exit_code == 0
    assert r.stdout.splitlines() == ["0*2.AB|AB", "0.1a1a", "0.AB|0.AB"]


def test_shell_completion_lists_commands_and_options() -> None:
    def complete(words: str, index: int) -> list[str]:
        env = {"_SPROUTS_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(index)}
        r = CliRunner().invoke(main, [], env=env, prog_name="sprouts")
        assert r.exit_code == 0, r.output
        return [line.split(",", 1)[1] for line in r.stdout.splitlines()]

    assert complete("sprouts re", 1) == ["render", "replay-log"]
    assert complete("sprouts solve --mi", 2) == ["--misere"]
    env = {"_SPROUTS_COMPLETE": "bash_source"}
    script = CliRunner().invoke(main, [], env=env, prog_name="sprouts").stdout
    assert "_sprouts_completion" in script and "complete " in script
