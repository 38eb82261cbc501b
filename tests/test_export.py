"""Export to GLOP/SPOTS databases and CSV, import back, and the table's move to the data directory."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from sprouts_cli.engine import Position
from sprouts_cli.errors import SproutsError
from sprouts_cli.solve.exporter import CSV_COLUMNS, MISERE_HEADER, NIMBER_HEADER, export_file, export_text
from sprouts_cli.solve.importer import import_file
from sprouts_cli.solve.misere import misere_outcome
from sprouts_cli.solve.session import Session
from sprouts_cli.solve.store import Table, default_path, migrate_table


def _filled(path: Path) -> Table:
    """A table with normal and misère facts proved by the solvers."""
    table = Table(path)
    with Session(table, jobs=1) as normal:
        for text in ("0*4", "0*2.1a1a", "0.AB|AB+*2"):
            normal.nimber(text)
        normal.outcome("0*5")
    with Session(table, jobs=1, misere=True) as misere:
        for text in ("0*4", "0*2.1a1a", "0.1a1a"):
            misere.outcome(text)
    table.flush()
    return table


@pytest.mark.parametrize("name,misere", [("n.spr", False), ("m.spr", True), ("all.csv", False)])
def test_export_then_import_into_an_empty_table_gives_the_same_facts(tmp_path, name, misere) -> None:
    source = _filled(tmp_path / "a.sqlite")
    out = tmp_path / name
    written = export_file(source, out, misere=misere)
    assert written > 0
    with Table(tmp_path / "b.sqlite") as copy:
        report = import_file(out, copy)
        assert not report.conflicts and not report.skipped
        assert export_text(copy, out.suffix, misere) == export_text(source, out.suffix, misere)
        # and importing again only finds what is known
        again = import_file(out, copy)
        assert again.already_known == written and again.nimbers + again.wins + again.misere_losses == 0
    source.close()


def test_the_nimber_database_format(tmp_path) -> None:
    with _filled(tmp_path / "a.sqlite") as table:
        text, count = export_text(table, ".spr")
    lines = text.splitlines()
    assert lines[0] == NIMBER_HEADER and len(lines) == count + 1
    assert lines[1:] == sorted(lines[1:])
    for line in lines[1:]:
        position, nimber = line.split(" ")
        p = Position.from_string(position)
        assert len(p.lands()) == 1 and p.reduced() == position  # each line one land, our key
        assert nimber.isdigit()
    assert "0*4 1" in lines  # the 4-spot start has nimber 1


def test_the_misere_database_lists_losses_only(tmp_path) -> None:
    with _filled(tmp_path / "a.sqlite") as table:
        text, count = export_text(table, ".spr", misere=True)
    lines = text.splitlines()
    assert lines[0] == MISERE_HEADER and len(lines) == count + 1 and count > 0
    for position in lines[1:]:
        assert misere_outcome(position) is False  # each one a misère loss, checked afresh


def test_csv_columns_and_rows(tmp_path) -> None:
    with _filled(tmp_path / "a.sqlite") as table:
        export_file(table, tmp_path / "facts.csv")
    rows = list(csv.DictReader((tmp_path / "facts.csv").open()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert {r["rules"] for r in rows} == {"normal", "misere"}
    assert {r["how"] for r in rows} <= {"proved", "imported"}
    start = next(r for r in rows if r["position"] == "0*4" and r["rules"] == "normal")
    assert (start["nimber"], start["outcome"]) == ("1", "win")
    for r in rows:
        if r["rules"] == "misere":
            assert r["nimber"] == "" and misere_outcome(r["position"]) == (r["outcome"] == "win")
        elif r["nimber"]:
            assert (r["outcome"] == "win") == (r["nimber"] != "0")


def test_misere_database_import(tmp_path) -> None:
    spr = tmp_path / "misere.spr"
    # 0*2 and 0*3 are misère losses; 0*2+0*3 is two lands (skipped); 0*1 is a misère
    # win, and the table knows it: a conflict, not written
    spr.write_text(f"{MISERE_HEADER}\n0.0.}}]!\n0*3\n0*2+0*3\n0*1\n")
    with Table(tmp_path / "t.sqlite") as table:
        with Session(table, misere=True) as session:
            assert session.outcome("0*1") is True
        report = import_file(spr, table)
        assert (report.misere_losses, report.skipped) == (2, 1)
        assert [line for line, _ in report.conflicts] == [5]
        assert table.get_misere_outcome("0*2") is False and table.get_misere_outcome("0*3") is False
        # the solver uses the imported facts
        assert Session(table, misere=True).outcome("0*3") is False


def test_export_refuses_unknown_formats(tmp_path) -> None:
    with Table(tmp_path / "t.sqlite") as table, pytest.raises(SproutsError, match=r"\.spr or \.csv"):
        export_file(table, tmp_path / "x.txt")


def test_the_table_moves_from_the_cache_to_the_data_directory(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    old = tmp_path / "cache" / "sprouts" / "solved.sqlite"
    old.parent.mkdir(parents=True)
    with Table(old) as table:
        table.put_nimber("0*3", 1)
    path = default_path()
    assert path == tmp_path / "data" / "sprouts" / "solved.sqlite"
    with Table(path) as table:
        assert table.get_nimber("0*3") == 1  # what was proved before is still read
        table.put_nimber("0*4", 1)
    assert old.exists()
    assert default_path() == path  # copied once: the new table is not overwritten
    with Table(path) as table:
        assert table.get_nimber("0*4") == 1
    assert not migrate_table(tmp_path / "nowhere.sqlite", tmp_path / "x.sqlite")


def test_a_broken_old_table_is_not_copied(tmp_path) -> None:
    old = tmp_path / "old.sqlite"
    old.write_bytes(b"not a database at all" * 100)
    assert not migrate_table(old, tmp_path / "new" / "t.sqlite")
    assert not (tmp_path / "new" / "t.sqlite").exists()
    assert not list((tmp_path / "new").glob("*.partial"))
    sqlite3.connect(tmp_path / "ok.sqlite").close()


def test_solve_export_and_import_on_the_command_line(tmp_path) -> None:
    from click.testing import CliRunner

    from sprouts_cli.cli import main

    runner = CliRunner()
    db, spr, csv_file = tmp_path / "a.sqlite", tmp_path / "a.spr", tmp_path / "a.csv"
    r = runner.invoke(main, ["solve", "0*4", "--nimber", "--db", str(db), "--export", str(spr)])
    assert r.exit_code == 0, r.output
    assert spr.read_text().startswith(NIMBER_HEADER + "\n") and "0*4 1\n" in spr.read_text()
    r = runner.invoke(
        main, ["solve", "0*3", "--misere", "--db", str(db), "--export", str(tmp_path / "m.spr")]
    )
    assert r.exit_code == 0 and (tmp_path / "m.spr").read_text().startswith(MISERE_HEADER)
    assert runner.invoke(main, ["solve", "--db", str(db), "--export", str(csv_file)]).exit_code == 0
    r = runner.invoke(main, ["solve", "--db", str(tmp_path / "b.sqlite"), "--import", str(csv_file)])
    assert r.exit_code == 0, r.output
    with Table(tmp_path / "b.sqlite") as copy, Table(db) as table:
        # the same facts; in the copy they are imported, not proved there (the two are kept apart)
        original = export_text(table, ".csv")[0]
        assert export_text(copy, ".csv")[0] == original.replace(",proved\n", ",imported\n")
    for bad in (["--export", str(tmp_path / "a.txt")], ["--no-db", "--export", str(spr)]):
        r = runner.invoke(main, ["solve", "--db", str(db), *bad] if "--no-db" not in bad else ["solve", *bad])
        assert r.exit_code == 2 and "Traceback" not in r.output
