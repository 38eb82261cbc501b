"""The Python API for notebooks: positions, children, solutions, bounds and pictures."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import sprouts_cli
from sprouts_cli import Position, bounds, draw, solution
from sprouts_cli.engine import Position as EnginePosition
from sprouts_cli.errors import NotationError

EXAMPLES = Path(__file__).resolve().parents[1] / "positions"


def test_importing_the_package_imports_no_heavy_library() -> None:
    code = (
        "import sys, sprouts_cli; from sprouts_cli import Position; Position('0*3').children()\n"
        "print(','.join(m for m in ('matplotlib', 'scipy', 'numba', 'networkx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_position_reads_strings_and_compares_as_the_game_does() -> None:
    p = Position("0.0.0.}]!")
    assert p == Position("0*3") == Position.start(3)
    assert p == EnginePosition.from_string("0*3")
    assert str(p) == p.canonical == "0*3"
    assert repr(p) == "Position('0*3')"
    assert (p.lives, p.spots) == (9, 3)
    assert len({p, Position("0*3"), Position("0*2")}) == 2
    with pytest.raises(NotationError):
        Position("0*3.AB")
    with pytest.raises(AttributeError):
        p.engine = None  # type: ignore[misc]


def test_children_as_positions_and_as_strings() -> None:
    p = Position("0*3")
    kids = p.children()
    assert all(isinstance(k, Position) for k in kids)
    assert [str(k) for k in kids] == p.child_strings() == sorted(p.engine.children())
    assert p.child_strings() == ["0*2.AB|AB", "0.1a1a", "0.AB|0.AB"]
    assert Position("0*2+1a1a").lands() == [Position("0*2"), Position("1a1a")]


def test_solution_agrees_with_published_values() -> None:
    # 0*5 has nimber 1, 0*2 is a loss; in misère play 0*3 is a loss and 0*1 a win
    five = solution("0*5", nimber=True)
    assert (five.win, five.nimber, five.rules, five.outcome) == (True, 1, "normal", "win")
    assert not Position("0*2").solution().win
    assert not solution("0*3", misere=True).win
    assert solution("0*1", misere=True).win
    two = solution("0*2", moves=True)
    assert not two.win and two.winning_moves == []
    three = solution("0*3", moves=True)
    assert (
        three.win and three.winning_moves and set(three.winning_moves) <= set(Position("0*3").child_strings())
    )
    with pytest.raises(ValueError):
        solution("0*3", misere=True, nimber=True)


def test_solution_keeps_what_it_proved_in_a_table(tmp_path: Path) -> None:
    from sprouts_cli.solve.store import Table

    db = tmp_path / "t.sqlite"
    assert solution("0*4", nimber=True, db=db).nimber == 1
    with Table(db) as table:
        assert table.counts()["nimbers"] > 0


def test_bounds_like_the_command() -> None:
    b = bounds("0*5")
    assert (b.lives, b.spots, b.lower, b.upper, b.shortest, b.longest) == (15, 5, 10, 14, 10, 14)
    assert Position("0*2+*3").bounds().heaps == [3]


def test_repr_svg_is_valid_svg_and_reads_back() -> None:
    for text in ("0*2", "0.AB|AB"):
        svg = Position(text)._repr_svg_()
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert text in svg  # the title
        assert "3 lives" in svg  # the legend
        assert Position(text)._repr_svg_() == svg  # deterministic


def test_draw_to_files_and_saved_games(tmp_path: Path) -> None:
    game = Position.load(EXAMPLES / "loop.json")
    assert game == Position("0.AB|AB")
    assert game.picture() is game.picture()  # the game's own picture, not a new layout
    out = tmp_path / "loop.png"
    assert draw(game, out) is None
    assert out.read_bytes().startswith(b"\x89PNG")
    png = game.draw(format="png")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG")
    sharp = game.draw(format="png", dpi=200, scale=2)
    assert isinstance(sharp, bytes) and int.from_bytes(sharp[16:20], "big") == 2 * int.from_bytes(
        png[16:20], "big"
    )
    assert game.bounds().lower <= game.bounds().upper


def test_py_typed_marker_ships() -> None:
    assert (Path(sprouts_cli.__file__).parent / "py.typed").is_file()
