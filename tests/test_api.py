"""The Python API for notebooks: positions, children, solutions, bounds and pictures."""

from __future__ import annotations

import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import sprouts_cli
import sprouts_cli.api
from sprouts_cli import Position, SavedGame, bounds, draw, load, solution
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


def test_the_api_position_is_the_engine_position() -> None:
    assert Position is EnginePosition
    p = Position("0.0.0.}]!")
    assert p == Position("0*3") == Position.start(3) == EnginePosition.from_string("0*3")
    assert str(p) == "0*3" and p.canonical() == "0*3"
    assert repr(p) == "Position('0*3')"
    assert (p.total_lives, p.spot_count) == (9, 3)
    assert len({p, Position("0*3"), Position("0*2")}) == 2
    q = Position("0*2+1a1a")
    assert Position(q.regions, list(q.lives)) == q
    assert Position([[(0,), (1,)]], [3, 3], [2]) == Position("0*2+*2")
    with pytest.raises(NotationError, match="column"):
        Position("0*3.AB")
    with pytest.raises(TypeError):
        Position("0*3", [3, 3, 3])
    with pytest.raises(TypeError):
        Position([[(0,)]])
    with pytest.raises(AttributeError):
        p.lives = ()  # type: ignore[misc]


def test_children_as_positions_and_as_strings() -> None:
    p = Position("0*3")
    kids = p.child_positions()
    assert all(isinstance(k, Position) for k in kids)
    assert [k.canonical() for k in kids] == sorted(p.children()) == ["0*2.AB|AB", "0.1a1a", "0.AB|0.AB"]
    assert Position("0*2+1a1a").lands() == [Position("0*2"), Position("1a1a")]


def test_solution_agrees_with_published_values() -> None:
    # 0*5 has nimber 1, 0*2 is a loss; in misère play 0*3 is a loss and 0*1 a win
    five = solution("0*5", nimber=True)
    assert (five.win, five.nimber, five.rules, five.outcome) == (True, 1, "normal", "win")
    assert not solution(Position("0*2")).win
    assert not solution("0*3", misere=True).win
    assert solution("0*1", misere=True).win
    two = solution("0*2", moves=True)
    assert not two.win and two.winning_moves == []
    three = solution("0*3", moves=True)
    assert three.win and three.winning_moves and set(three.winning_moves) <= Position("0*3").children()
    with pytest.raises(ValueError):
        solution("0*3", misere=True, nimber=True)
    with pytest.raises(TypeError, match="not int"):
        solution(3)  # type: ignore[arg-type]


def test_solution_keeps_what_it_proved_in_a_table(tmp_path: Path) -> None:
    from sprouts_cli.solve.store import Table

    db = tmp_path / "t.sqlite"
    assert solution("0*4", nimber=True, db=db).nimber == 1
    with Table(db) as table:
        assert table.counts()["nimbers"] > 0


def test_bounds_like_the_command() -> None:
    b = bounds("0*5")
    assert (b.lives, b.spots, b.lower, b.upper, b.shortest, b.longest) == (15, 5, 10, 14, 10, 14)
    assert bounds(Position("0*2+*3")).heaps == [3]


def test_a_notebook_shows_a_position_as_its_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    for text in ("0*2", "0.AB|AB"):
        svg = sprouts_cli.api.notebook_svg(Position(text))
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        assert text in svg  # the title
        assert "3 lives" in svg  # the legend
        assert sprouts_cli.api.notebook_svg(Position(text)) == svg  # deterministic
    registered: dict[type, object] = {}

    class Formatter:
        def for_type(self, kind: type, func: object) -> None:
            registered[kind] = func

    class Shell:
        display_formatter = types.SimpleNamespace(formatters={"image/svg+xml": Formatter()})

    assert not sprouts_cli.api.show_in_notebooks()  # no IPython here: nothing to register
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: Shell()))
    assert sprouts_cli.api.show_in_notebooks()
    assert registered == {Position: sprouts_cli.api.notebook_svg}


def test_draw_to_files_and_saved_games(tmp_path: Path) -> None:
    game = load(EXAMPLES / "loop.json")
    assert isinstance(game, SavedGame) and game.position == Position("0.AB|AB")
    out = tmp_path / "loop.png"
    assert draw(game, out) is None
    assert out.read_bytes().startswith(b"\x89PNG")
    png = draw(game, format="png")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG")
    sharp = draw(game, format="png", dpi=200, scale=2)
    assert isinstance(sharp, bytes) and int.from_bytes(sharp[16:20], "big") == 2 * int.from_bytes(
        png[16:20], "big"
    )
    svg = draw(game)
    assert isinstance(svg, str) and svg == draw(game)  # the game's own picture, not a new layout
    assert bounds(game).lower <= bounds(game).upper


def test_py_typed_marker_ships() -> None:
    assert (Path(sprouts_cli.__file__).parent / "py.typed").is_file()
