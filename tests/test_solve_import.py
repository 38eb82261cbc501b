"""Importing GLOP/SPOTS databases: keyed by our canonical form, checked against what is known."""

from __future__ import annotations

import gzip

import pytest
from brute import brute_nimber

from sprouts_cli.engine import Position
from sprouts_cli.errors import TableError
from sprouts_cli.solve.importer import import_file
from sprouts_cli.solve.nimbers import NormalSolver
from sprouts_cli.solve.store import Table

# Positions written as GLOP 1 and GLOP 2 would, with their nimbers by brute force.
ENTRIES = ["0.0.0.}]!", "1a1a.}]!", "0.1a1a.AB.}AB.}]!", "0.AB|0*2.AB", "0.2.1a1a.}]!"]


def brute(text: str) -> int:
    return brute_nimber(Position.from_string(text).canonical())


def test_a_nimber_database_is_keyed_by_our_reduced_form(tmp_path) -> None:
    spr = tmp_path / "base.spr"
    spr.write_text("[Positions+Nimber]\n" + "".join(f"{e} {brute(e)}\n" for e in ENTRIES))
    with Table(tmp_path / "t.sqlite") as t:
        report = import_file(spr, t)
        assert report.nimbers == len(ENTRIES) and not report.conflicts
        for e in ENTRIES:
            (land,) = Position.from_string(e).lands()
            assert t.get_nimber(land.reduced()) == brute(e)
        solver = NormalSolver(t)
        assert solver.nimber("0.AB|0*2.AB") == brute("0.AB|0*2.AB")
        assert solver.stats["lands_expanded"] == 0


def test_sums_teach_the_one_unknown_land_and_conflicts_are_reported(tmp_path) -> None:
    spr = tmp_path / "base.spr"
    n3, n4 = brute("0*3"), brute("1a1a.}]!")
    spr.write_text(
        "[Positions+Nimber]\n"
        f"0*3 {n3}\n"
        f"0*3+1a1a {n3 ^ n4}\n"  # teaches 1a1a
        "0*4+0.12 0\n"  # two unknown lands: skipped
        f"0*3 {n3 + 1}\n"  # contradicts the first line
    )
    with Table(tmp_path / "t.sqlite") as t:
        report = import_file(spr, t)
        assert report.nimbers == 2
        assert report.skipped == 1
        assert [line for line, _ in report.conflicts] == [5]
        assert t.get_nimber("1a1a") == n4


def test_the_heap_outcome_format_gzipped(tmp_path) -> None:
    path = tmp_path / "facts.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("0.0.0.}]!0\t1\n0.0.0.}]!1\t0\n1a1a.}]!1\t1\n")
    with Table(tmp_path / "t.sqlite") as t:
        report = import_file(path, t)
        assert report.nimbers == 1 and report.wins == 2
        assert t.get_nimber("0*3") == 1
        assert t.get_normal("1a1a") == (None, 0b10)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[Positions+Nimber]\n0*3 1\n0*3\n", 3),
        ("[Positions+Nimber]\n0*3.]] 1\n", 2),
        ("[Positions]\n0*3 1\n", 1),
        ("0*3 1\n", 1),
        ("0*3!1\t7\n", 1),
    ],
)
def test_bad_lines_are_named(tmp_path, text: str, line: int) -> None:
    spr = tmp_path / "bad.spr"
    spr.write_text(text)
    with Table(tmp_path / "t.sqlite") as t, pytest.raises(TableError) as info:
        import_file(spr, t)
    assert info.value.line == line
