"""Bad input breaks no command: beyond the limits, missing and unwritable files, binary and deep JSON.

Each case answers with one line on stderr and exit code 2, never a traceback, and
before any long work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main

POSITIONS = Path(__file__).resolve().parent.parent / "positions"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def one_line_error(r, *words: str) -> str:
    """The single stderr line of a refused command, checked to hold ``words``."""
    assert r.exit_code == 2, r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------ hard limits
@pytest.mark.parametrize(
    ("command", "text", "words"),
    [
        ("canonical", "0*99999999", ("20,000",)),
        ("solve", "0*99999999", ("20,000",)),
        ("bounds", "0*99999999", ("20,000",)),
        ("children", "0*99999999", ("20,000",)),
        ("bounds", "0*100000", ("20,000",)),
        ("bounds", "0*1001", ("1,001 spots", "bounds takes at most 1,000")),
        ("children", "0*1001", ("children takes at most 1,000",)),
        ("solve", "0*21", ("63 lives", "at most 60")),
        ("solve", "0+*1001", ("*1,000",)),
        ("canonical", "1m(99999999)m(99999999)", ("letter number",)),
        ("canonical", "0+*12345678901234567890", ("digits",)),
        ("moves", "0*1001", ("moves takes at most 1,000",)),
    ],
)
def test_inputs_beyond_a_commands_limits_are_refused_at_once(command: str, text: str, words) -> None:
    one_line_error(run(command, text), *words)


def test_three_player_solve_has_the_limits_of_solve() -> None:
    one_line_error(run("solve", "--players", "3", "0*99999999"), "20,000")
    one_line_error(run("solve", "--players", "3", "0*21"), "at most 60")


@pytest.mark.parametrize("command", ["layout", "render"])
def test_layout_and_render_refuse_positions_they_cannot_draw_in_time(command: str, tmp_path: Path) -> None:
    one_line_error(run(command, "0*201", "-o", str(tmp_path / "x.svg")), "201 spots", "at most 200")
    assert not list(tmp_path.iterdir())


def test_a_very_long_boundary_is_refused_before_it_is_named() -> None:
    letters = [f"m({i})" for i in range(1, 1502)]  # a path of 1,501 spots between two ends
    text = "1" + "".join(letters) + "1" + "".join(reversed(letters))
    one_line_error(run("canonical", text), "3,004 corners", "2,000")


def test_error_messages_quote_at_most_sixty_characters_of_the_input() -> None:
    text = "0." * 16_500 + "x"  # a 33 KB line with a fault at the end
    line = one_line_error(run("canonical", text), "column 33001")
    assert len(line) < 200
    line = one_line_error(run("canonical", "0." * 60_000), "100,000")
    assert len(line) < 200


def test_a_saved_game_with_too_many_spots_is_refused_before_it_is_analysed(tmp_path: Path) -> None:
    game = json.loads((POSITIONS / "loop.json").read_text())
    game["game"]["spots"] = [{"x": i % 100, "y": i // 100} for i in range(20_000)]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(game))
    for command in ("canonical", "bounds"):
        one_line_error(run(command, str(big)), "20,000 spots", "at most 1,000")


# ------------------------------------------------------------------ reading files
@pytest.mark.parametrize("command", ["canonical", "bounds", "children", "solve", "layout", "render"])
def test_a_mistyped_file_name_is_a_missing_file_not_bad_notation(command: str, tmp_path: Path) -> None:
    extra = ["-o", str(tmp_path / "x.svg")] if command in ("layout", "render") else []
    if command == "solve":
        extra = ["--no-db"]
    line = one_line_error(run(command, "gmae.json", *extra), "gmae.json", "no such file")
    assert "column" not in line


@pytest.mark.parametrize("kind", ["binary", "deep", "broken"])
@pytest.mark.parametrize("command", ["canonical", "bounds", "render"])
def test_binary_deep_or_broken_json_files_give_one_line_naming_the_file_once(
    kind: str, command: str, tmp_path: Path
) -> None:
    f = tmp_path / "loop.json"
    if kind == "binary":
        f.write_bytes(bytes(range(256)) * 4)
    elif kind == "deep":
        f.write_text("[" * 100_000 + "]" * 100_000)
    else:
        game = json.loads((POSITIONS / "loop.json").read_text())
        game["game"]["spots"][0].update(x=game["game"]["spots"][1]["x"], y=game["game"]["spots"][1]["y"])
        f.write_text(json.dumps(game))
    extra = ["-o", str(tmp_path / "x.svg")] if command == "render" else []
    line = one_line_error(run(command, str(f), *extra))
    assert line.count("loop.json") == 1, line


# ------------------------------------------------------------------ writing files
@pytest.mark.parametrize("command", ["render", "layout"])
@pytest.mark.parametrize("where", ["missing", "not a directory"])
def test_an_output_in_a_missing_directory_is_refused_before_any_work(
    command: str, where: str, tmp_path: Path
) -> None:
    parent = tmp_path / "nowhere"
    if where == "not a directory":
        parent.write_text("a file")
    one_line_error(run(command, "0*2", "-o", str(parent / "x.svg")), "x.svg", where.split()[-1])
    assert not (tmp_path / "nowhere").is_dir()


def test_layout_chooses_the_format_by_the_outputs_extension(tmp_path: Path) -> None:
    svg = tmp_path / "x.svg"
    r = run("layout", "0*2", "-o", str(svg), "--jobs", "1")
    assert r.exit_code == 0, r.output
    assert svg.read_text().lstrip().startswith("<?xml")
    one_line_error(run("layout", "0*2", "-o", str(tmp_path / "x.txt")), ".json or .svg or .png")


def test_play_and_replay_refuse_outputs_in_missing_directories(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    base = ["play", "--spots", "2", "--first", "random", "--second", "random", "--seed", "1", "-q"]
    base += ["--jobs", "1"]
    one_line_error(run(*base, "--save", str(missing / "g.json")), "no such directory")
    one_line_error(run(*base, "--svg", str(missing)), "no such directory")
    one_line_error(run(*base, "--log", str(missing / "g.log")), "no such directory")
    assert not missing.exists()
    log = tmp_path / "games.log"
    assert run(*base, "--log", str(log)).exit_code == 0
    one_line_error(run("replay", str(log), "-o", str(missing / "x.svg")), "no such directory")


def test_db_in_a_missing_directory_is_refused_not_created(tmp_path: Path) -> None:
    one_line_error(run("solve", "0*2", "--db", str(tmp_path / "nowhere" / "t.sqlite")), "no such directory")
    assert not (tmp_path / "nowhere").exists()


def test_write_atomic_turns_os_errors_into_one_line(tmp_path: Path) -> None:
    from sprouts_cli.errors import OutputError
    from sprouts_cli.files import write_atomic

    with pytest.raises(OutputError, match="no such directory"):
        write_atomic(tmp_path / "nowhere" / "x.svg", "text")
    (tmp_path / "afile").write_text("")
    with pytest.raises(OutputError, match="cannot write"):
        write_atomic(tmp_path / "afile" / "x.svg", "text")


# ------------------------------------------------------------------ replay
@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("log") / "games.log"
    args = ["play", "--spots", "4", "--first", "random", "--second", "random", "--seed", "3", "-q"]
    assert run(*args, "--jobs", "1", "--log", str(log)).exit_code == 0
    return log


def test_a_move_replaced_by_another_legal_move_is_found_on_its_line(game_log: Path) -> None:
    import re

    from sprouts_cli.engine.naming import distinct_named_moves
    from sprouts_cli.log import replay_log

    lines = game_log.read_text().splitlines(keepends=True)
    game = replay_log(game_log).games[-1]
    tried = 0
    for k in range(1, game.moves + 1):
        at = next(i for i, line in enumerate(lines) if line.startswith(f"move {k} ;"))
        played = re.search(r"; play ([^;]*) ;", lines[at]).group(1)
        for other in distinct_named_moves(game.line_of_play[k - 1].position):
            if other.words == played:
                continue
            swapped = lines[at].replace(f"; play {played} ;", f"; play {other.words} ;")
            edited = [*lines[:at], swapped, *lines[at + 1 :]]
            result = replay_log("edited.log", "".join(edited))
            assert result.error is not None and result.error.line == at + 1, (k, other.words, result.error)
            assert result.games[-1].moves == k - 1  # everything before the line was replayed
            tried += 1
    assert tried > 20


def test_replay_of_a_log_with_a_swapped_move_is_one_line_naming_it(game_log: Path, tmp_path: Path) -> None:
    text = game_log.read_text()
    edited = tmp_path / "edited.log"
    # move 6 of this seeded game is '2 → 8 enclosing 3, 6'; '3 → 8' is legal there too
    assert "; play 2 → 8 enclosing 3, 6 ;" in text
    edited.write_text(text.replace("; play 2 → 8 enclosing 3, 6 ;", "; play 3 → 8 ;"))
    r = run("replay", str(edited))
    assert r.exit_code == 2 and "Traceback" not in r.output
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("move 6 ;"))
    assert f"line {line}: move 6 '3 → 8' does not lead to the recorded position" in r.stderr
    assert "the log records numbered '[" in r.stderr  # quoted as the log writes it
    assert "5. " in r.stdout  # the moves before it were replayed and shown


def test_an_edited_player_field_is_caught(game_log: Path, tmp_path: Path) -> None:
    text = game_log.read_text()
    edited = tmp_path / "edited.log"
    edited.write_text(text.replace("move 3 ; player 1 ;", "move 3 ; player 2 ;"))
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("move 3 ;"))
    r = run("replay", str(edited))
    assert r.exit_code == 2 and f"line {line}:" in r.stderr and "player 2" in r.stderr
    edited.write_text(text.replace("move 3 ; player 1 ; by random", "move 3 ; player 1 ; by parity"))
    assert f"line {line}:" in run("replay", str(edited)).stderr


@pytest.mark.parametrize("junk", [bytes(range(256)) * 8, b"abc\x1cdef\x1cghi" * 300, b"x" * 3000])
def test_binary_junk_with_no_newline_is_not_a_log_not_a_truncated_line(junk: bytes, tmp_path: Path) -> None:
    f = tmp_path / "junk.log"
    f.write_bytes(junk)
    line = one_line_error(run("replay", str(f)), "not a sprouts log", "line 1:")
    assert "truncated" not in line


# ------------------------------------------------------------------ tables of solved positions
def test_our_tables_are_marked_and_old_unmarked_ones_still_open(tmp_path: Path) -> None:
    import sqlite3

    from sprouts_cli.solve.store import APPLICATION_ID, SCHEMA_VERSION, Table

    db = tmp_path / "t.sqlite"
    assert run("solve", "0*3", "--db", str(db)).exit_code == 0
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        con.execute("PRAGMA application_id = 0")  # as written before files were marked
    Table(db).close()
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


@pytest.mark.parametrize("kind", ["other tables", "other application", "not sqlite"])
def test_another_programs_file_is_refused_and_left_as_it_was(kind: str, tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "theirs.db"
    if kind == "not sqlite":
        db.write_bytes(b"this is a text file, not a database\n" * 200)
    else:
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE normal (x)")  # a name we use, with other columns
            con.execute("CREATE TABLE people (name)")
            if kind == "other application":
                con.execute("PRAGMA application_id = 1234")
    before = db.read_bytes()
    one_line_error(run("solve", "0*3", "--db", str(db)), "theirs.db")
    assert db.read_bytes() == before  # not a byte changed, no table added


def test_a_damaged_table_is_one_line(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "t.sqlite"
    assert run("solve", "0*6", "--db", str(db)).exit_code == 0
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    assert len(data) > 3 * 4096
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page but the first
    db.write_bytes(bytes(data))
    one_line_error(run("solve", "0*6", "--db", str(db)), "t.sqlite")


def test_imported_facts_are_kept_apart_flagged_and_verified(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    wrong = tmp_path / "wrong.spr"
    wrong.write_text("[Positions+Nimber]\n0*3 0\n")  # 0*3 has nimber 1
    assert run("solve", "--db", str(db), "--import", str(wrong)).exit_code == 0

    def answer(*extra: str) -> dict:
        r = run("solve", "0*3", "--nimber", "--json", "--db", str(db), *extra)
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)

    trusted = answer()
    assert trusted["nimber"] == 0 and trusted["imported_facts_used"] is True
    proved = answer("--no-imports")
    assert proved["nimber"] == 1 and proved["imported_facts_used"] is False
    r = run("solve", "--db", str(db), "--verify-table")
    assert r.exit_code == 1 and "wrong: 0*3" in r.stdout and "imported nimber 0, proved nimber 1" in r.stdout
    after = answer()
    assert after["nimber"] == 1 and after["imported_facts_used"] is False
    assert run("solve", "--db", str(db), "--verify-table").exit_code == 0  # nothing imported is left


def test_right_imported_facts_become_proved_ones(tmp_path: Path) -> None:
    from sprouts_cli.solve.store import Table

    db = tmp_path / "t.sqlite"
    right = tmp_path / "right.spr"
    right.write_text("[Positions+Nimber]\n0*3 1\n0*2 0\n")
    assert run("solve", "--db", str(db), "--import", str(right)).exit_code == 0
    r = run("solve", "--db", str(db), "--verify-table", "--json")
    assert r.exit_code == 0, r.output
    assert all(json.loads(line)["right"] for line in r.stdout.splitlines())
    with Table(db) as table:
        assert not list(table.normal_items(imported=True))
        assert {land for land, _, _ in table.normal_items()} >= {"0*3", "0*2"}


# ------------------------------------------------------------------ drawability
@pytest.mark.parametrize("text", ["ABCD|ACBD", "1abab"])
def test_a_string_no_drawing_has_is_refused_by_every_command_alike(text: str, tmp_path: Path) -> None:
    lines = set()
    for args in (
        ["canonical", text],
        ["children", text],
        ["solve", "--no-db", text],
        ["bounds", text],
        ["layout", text, "-o", str(tmp_path / "x.json")],
    ):
        line = one_line_error(run(*args), "cannot be drawn on the plane")
        lines.add(line.split("cannot be drawn", 1)[1])
    assert len(lines) == 1  # the same reason everywhere
    r = run("play", text, "--first", "random", "--second", "random", "-q", "--jobs", "1")
    assert r.exit_code == 2 and "cannot be drawn on the plane" in r.stderr


def test_the_drawable_triangle_is_read_by_every_command() -> None:
    for args in (["canonical", "ABC|ACB"], ["solve", "--no-db", "ABC|ACB"], ["bounds", "ABC|ACB"]):
        r = run(*args)
        assert r.exit_code == 0, (args, r.output)
