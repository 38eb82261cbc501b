"""``sprouts solve`` through the command line (click's CliRunner)."""

from __future__ import annotations

import json

from brute import brute_children, brute_misere_win, brute_nimber
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.solve.store import Table


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, ["solve", *args], input=input)


def test_people_see_who_wins_and_the_nimber(tmp_path) -> None:
    r = run("0*5", "--nimber", "--db", str(tmp_path / "t.sqlite"))
    assert r.exit_code == 0, r.output
    line = r.stdout.strip()
    assert line.startswith("0*5: first player wins (nimber 1), ")
    assert line.endswith(" s")


def test_json_has_every_field(tmp_path) -> None:
    r = run("0*4", "0*6", "--nimber", "--moves", "--json", "--db", str(tmp_path / "t.sqlite"))
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["position"] for row in rows] == ["0*4", "0*6"]
    first, second = rows
    assert first["canonical"] == "0*4" and first["rules"] == "normal"
    assert first["outcome"] == "win" and first["nimber"] == 1
    assert first["winning_moves"] == sorted(c for c in brute_children("0*4") if brute_nimber(c) == 0)
    assert second["outcome"] == "loss" and second["nimber"] == 0 and second["winning_moves"] == []
    assert first["positions_solved"] > 0
    assert isinstance(first["seconds"], float)
    assert set(first) == {
        "input", "position", "canonical", "rules", "outcome", "nimber", "winning_moves", "winning_move_words",
        "seconds", "positions_solved", "imported_facts_used", "kernels", "backend", "workers", "nodes",
        "parallelism",
    }  # fmt: skip
    assert first["kernels"] in ("off", "jit", "aot", "python")  # what coded its lands (`sprouts kernels`)
    assert first["imported_facts_used"] is False
    assert first["backend"] == "local" and first["workers"] >= 1
    assert first["parallelism"] in ("threads", "processes")


def test_misere_play_matches_brute_force(tmp_path) -> None:
    positions = ["0*2", "0*3", "1a1a", "0.12", "0*2.AB|AB"]
    r = run(*positions, "--misere", "--json", "--moves", "--db", str(tmp_path / "t.sqlite"))
    assert r.exit_code == 0, r.output
    for text, line in zip(positions, r.stdout.splitlines(), strict=True):
        row = json.loads(line)
        key = row["canonical"]
        assert row["rules"] == "misere"
        assert row["outcome"] == ("win" if brute_misere_win(key) else "loss"), text
        assert row["winning_moves"] == sorted(c for c in brute_children(key) if not brute_misere_win(c))
        assert "nimber" not in row


def test_misere_json_reports_the_search_nodes() -> None:
    r = run("0*7", "--misere", "--json", "--no-db", "--jobs", "1")
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)
    assert row["outcome"] == "loss"
    assert row["nodes"] > 0 and row["positions_solved"] > 0


def test_misere_play_runs_in_one_process_unless_jobs_are_asked_for(monkeypatch) -> None:
    # its workers share only proved lands through the table: slower than one process
    import sprouts_cli.cli.solve as solve_cli

    monkeypatch.setattr(solve_cli, "usable_cpus", lambda: 4)
    misere = json.loads(run("0*4", "--misere", "--json", "--no-db").stdout)
    normal = json.loads(run("0*4", "--json", "--no-db").stdout)
    asked = json.loads(run("0*4", "--misere", "--json", "--no-db", "--jobs", "2").stdout)
    assert misere["workers"] == 1 and normal["workers"] == 4 and asked["workers"] == 2
    assert misere["outcome"] == asked["outcome"] == "loss"


def test_a_second_run_is_answered_from_the_table(tmp_path) -> None:
    db = str(tmp_path / "t.sqlite")
    first = json.loads(run("0*5", "--json", "--db", db).stdout)
    second = json.loads(run("0*5", "--json", "--db", db).stdout)
    assert first["outcome"] == second["outcome"] == "win"
    assert first["positions_solved"] > 0
    assert second["positions_solved"] == 0
    with Table(db) as t:
        assert t.counts()["nimbers"] > 0


def test_no_db_writes_nothing(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    r = run("0*3", "--no-db", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["outcome"] == "win"
    assert not (tmp_path / "cache").exists()


def test_positions_from_stdin_and_bad_inputs(tmp_path) -> None:
    r = run("-", "--db", str(tmp_path / "t.sqlite"), input="0*3\n0*4.]\n# a comment\n1a1a\n")
    assert r.exit_code == 2
    assert r.stdout.splitlines()[0].startswith("0*3: first player wins")
    assert r.stdout.splitlines()[1].startswith("1a1a: first player wins")
    assert "line 2" in r.stderr and "error" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_winning_moves_for_people(tmp_path) -> None:
    r = run("0*3", "--moves", "--db", str(tmp_path / "t.sqlite"))
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    wins = sorted(c for c in brute_children("0*3") if brute_nimber(c) == 0)
    assert lines[1].strip() == f"winning moves: {len(wins)} of 3 children"
    assert [line.split("→")[-1].strip() for line in lines[2:]] == wins  # each beside its move in words
    assert all(line.strip().startswith(("1 → ", "2 → ", "3 → ")) for line in lines[2:])


def test_option_errors() -> None:
    assert run().exit_code == 2
    r = run("0*3", "--misere", "--nimber", "--no-db")
    assert r.exit_code == 2 and "misère" in r.stderr
    r = run("0*3", "--no-db", "--db", "x.sqlite")
    assert r.exit_code == 2
    r = run("0*3", "--jobs", "0", "--no-db")
    assert r.exit_code == 2


def test_a_bad_table_file_is_one_red_line(tmp_path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"no table here" * 50)
    r = run("0*3", "--db", str(bad))
    assert r.exit_code == 2
    assert "not a usable table" in r.stderr
    assert "Traceback" not in r.output


def test_import_then_solve(tmp_path) -> None:
    db = str(tmp_path / "t.sqlite")
    spr = tmp_path / "base.spr"
    spr.write_text("[Positions+Nimber]\n0.0.0.}]! 1\n1a1a.}]! 2\n")
    r = run("--import", str(spr), "--db", db)
    assert r.exit_code == 0, r.output
    assert "2 nimbers" in r.stderr
    row = json.loads(run("0*3", "--json", "--nimber", "--db", db).stdout)
    assert row["nimber"] == 1 and row["positions_solved"] == 0
    bad = tmp_path / "bad.spr"
    bad.write_text("[Positions+Nimber]\n0.0.0.}]! one\n")
    r = run("--import", str(bad), "--db", db)
    assert r.exit_code == 2 and "line 2" in r.stderr
    assert run("--import", str(tmp_path / "missing.spr"), "--db", db).exit_code == 2


def test_json_names_the_compiled_core_when_it_searched() -> None:
    from sprouts_cli.engine import aot

    r = run("0*10", "--no-db", "--jobs", "1", "--json")
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout.splitlines()[-1])
    assert row["outcome"] == "win"  # 10 mod 6 = 4
    assert row["kernels"] == aot.kernel_path() != "off"  # 30 lives: the core searched, not the reference
