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


def _json_lines(text: str) -> list[dict]:
    import json

    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_render_reads_stdin_and_numbers_its_outputs(tmp_path) -> None:
    out = tmp_path / "pic.svg"
    stdin = "0*2\n\n# a comment\n0.AB|AB\nnot a position\n"
    r = CliRunner().invoke(main, ["render", "-", "-o", str(out), "--json", "--jobs", "1"], input=stdin)
    assert r.exit_code == 2  # the bad line, after the good ones were drawn
    lines = _json_lines(r.stdout)
    assert lines[-1]["line"] == 5 and lines[-1]["input"] == "not a position" and lines[-1]["error"]
    lines = lines[:-1]  # the refused line's object, in its place
    assert [(x["line"], x["canonical"]) for x in lines] == [(1, "0*2"), (4, "0.AB|AB")]
    assert [x["output"] for x in lines] == [str(tmp_path / "pic-1.svg"), str(tmp_path / "pic-4.svg")]
    assert all(set(x) == {"input", "position", "canonical", "output", "seconds", "line"} for x in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic-1.svg", "pic-4.svg"]
    assert "line 5:" in r.stderr


def test_render_json_for_an_argument(tmp_path) -> None:
    out = tmp_path / "one.png"
    r = CliRunner().invoke(main, ["render", "0*3", "-o", str(out), "--json", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    (obj,) = _json_lines(r.stdout)
    assert (obj["position"], obj["canonical"], obj["output"]) == ("0*3", "0*3", str(out))
    assert out.read_bytes().startswith(b"\x89PNG")


def test_render_writes_svg_to_stdout() -> None:
    import xml.etree.ElementTree as ET

    from sprouts_cli.picture import analyse_picture, layout_position

    r = CliRunner().invoke(main, ["render", "0.AB|AB", "-o", "-", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    root = ET.fromstring(r.stdout_bytes)
    assert root.tag.endswith("svg") and "0.AB|AB" in r.stdout
    # the same picture as drawn directly: the layout is deterministic
    assert analyse_picture(layout_position("0.AB|AB", jobs=1)).position.canonical() == "0.AB|AB"
    r = CliRunner().invoke(main, ["render", "-", "-o", "-", "--jobs", "1"], input="0*2\n0*3\n")
    assert r.exit_code == 2 and r.stdout.count("<svg") == 1 and "line 2:" in r.stderr
    r = CliRunner().invoke(main, ["render", "0*2", "-o", "-", "--json"])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_layout_reads_stdin_with_json(tmp_path) -> None:
    from sprouts_cli.picture import analyse, load_game

    out = tmp_path / "g.json"
    r = CliRunner().invoke(
        main, ["layout", "-", "-o", str(out), "--json", "--jobs", "1"], input="0*2\n1a1a\n"
    )
    assert r.exit_code == 0, r.output
    lines = _json_lines(r.stdout)
    assert [x["line"] for x in lines] == [1, 2]
    for x in lines:
        assert set(x) == {"input", "position", "canonical", "min_clearance", "seconds", "output", "line"}
        assert analyse(load_game(x["output"])).canonical() == x["canonical"]
    r = CliRunner().invoke(main, ["layout", "-", "-o", str(out), "--jobs", "1"], input="0*2\n")
    assert r.exit_code == 0 and r.stdout.strip().endswith("s)") and "g-1.json" in r.stdout
