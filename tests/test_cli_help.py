"""The command group: every command listed once, aliases beside their command, help texts clean."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import click
import pytest
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


# ---------------------------------------------------------------- the help texts themselves


def _commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    """Every command under ``group`` (subgroups' commands too), by its full name."""
    ctx = click.Context(group)
    out: list[tuple[str, click.Command]] = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        full = (*prefix, name)
        out.append((" ".join(full), cmd))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, full))
    return out


def _help_texts() -> list[tuple[str, str]]:
    """(command, text) for every command's help and every option's help, the group's included."""
    texts = [("sprouts", main.help or "")]
    for name, cmd in _commands():
        texts.append((name, cmd.help or ""))
        texts.extend((f"{name} {p.name}", getattr(p, "help", None) or "") for p in cmd.params)
    return texts


def _examples() -> list[tuple[str, str]]:
    """(command, line) for every line of a help text that is a command to paste."""
    return [
        (name, line.strip())
        for name, text in _help_texts()
        for line in text.splitlines()
        if line.strip().startswith("sprouts ")
    ]


def _words(line: str, posix: bool) -> list[str]:
    lex = shlex.shlex(line, posix=posix, punctuation_chars=True)
    lex.whitespace_split = True
    return list(lex)


#: Characters the shell acts on in an unquoted word.
SHELL_SPECIAL = set("*?[]{}~$`!;&()")


def test_help_texts_show_no_restructured_text_markup() -> None:
    marked = [f"{name}: {text.strip()[:60]}" for name, text in _help_texts() if "``" in text]
    assert not marked, marked


def test_the_help_has_examples_to_check() -> None:
    assert len(_examples()) >= 8
    assert {"layout", "render", "solve", "kernels"} <= {name for name, _ in _examples()}


@pytest.mark.parametrize(("name", "line"), _examples())
def test_each_example_is_safe_to_paste(name: str, line: str) -> None:
    """Quoted so that the shell passes each word as written, and parsed by the command."""
    raw, words = _words(line, posix=False), _words(line, posix=True)
    assert raw[0] == "sprouts", line
    for word in raw:
        quoted = word[:1] in "'\"" and word[-1:] == word[:1]
        assert quoted or not SHELL_SPECIAL & set(word), f"{line!r}: quote {word!r}"
    punctuation = [w for w in raw if w in ("|", "<", ">", "&&", ";", "&", "||", "(", ")")]
    assert set(punctuation) <= {"|", "<"}, f"{line!r}: {punctuation}"
    args = _command_args(words)
    ctx = click.Context(main, info_name="sprouts")
    sub = main.get_command(ctx, args[0])
    assert sub is not None and sub.name == name.split()[0], line
    sub.make_context(args[0], args[1:], parent=ctx).close()  # click parses the words the shell gives


def _command_args(words: list[str]) -> list[str]:
    """The words given to sprouts: up to a pipe or a redirection, the program's name left out."""
    end = next((i for i, w in enumerate(words) if w in ("|", "<")), len(words))
    return words[1:end]


#: Examples that need a cluster, a file from elsewhere, a C compiler or minutes: parsed above, not run.
NOT_RUN = ("--cluster", "--import", "--build", "0*8", "0*11")


@pytest.mark.parametrize(("name", "line"), [e for e in _examples() if not any(w in e[1] for w in NOT_RUN)])
def test_each_example_runs(name: str, line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "positions.txt").write_text("0*2\n0.AB|AB\n")
    runner = CliRunner()
    assert runner.invoke(main, ["layout", "0*3", "-o", "game.json"]).exit_code == 0
    words = _words(line, posix=True)
    stdin = None
    if "<" in words:
        stdin = (tmp_path / words[words.index("<") + 1]).read_text()
    r = runner.invoke(main, _command_args(words), input=stdin)
    assert r.exit_code == 0, (line, r.output)


#: Commands whose --json help names the keys of each line in braces, with arguments to run them.
JSON_KEYS_RUN = {
    "children": ["0*2"],
    "moves": ["0*2"],
    "layout": ["0*2", "-o", "g.json"],
    "render": ["0*2", "-o", "g.svg"],
}


@pytest.mark.parametrize("name", sorted(JSON_KEYS_RUN))
def test_json_help_names_the_keys_printed(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys a --json help text lists in braces are the top-level keys of the line printed."""
    monkeypatch.chdir(tmp_path)
    ctx = click.Context(main, info_name="sprouts")
    option = next(p for p in main.get_command(ctx, name).params if "--json" in getattr(p, "opts", ()))
    braces = option.help[option.help.index("{") + 1 : option.help.index("}")]
    named = {k.strip().strip('"') for k in braces.split(",") if ":" not in k and "[" not in k}
    named |= {k.split(":")[0].strip().strip('"') for k in braces.split(",") if ":" in k}
    r = CliRunner().invoke(main, [name, *JSON_KEYS_RUN[name], "--json"])
    assert r.exit_code == 0, r.output
    assert named == set(json.loads(r.output.splitlines()[0])), (option.help, r.output)
