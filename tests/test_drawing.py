"""Strings whose regions are read in directions of their own (``engine/drawing.py``).

A string names a position when some choice of direction per region can be drawn; the
engine turns the regions to agree, and every caller reads the same position.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from games import random_game_position, reachable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sprouts_cli.api import Position as ApiPosition
from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.drawing import drawing_problem, orient_land
from sprouts_cli.engine.parts import land_groups
from sprouts_cli.errors import NotationError, PictureError
from sprouts_cli.picture.planar_map import realise
from sprouts_cli.solve.misere import misere_outcome
from sprouts_cli.solve.nimbers import NormalSolver

DATA = Path(__file__).parent / "data"


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def drawn(p: Position) -> bool:
    """The picture layer's verdict: whether ``realise`` draws ``p`` exactly as written."""
    try:
        realise(p.with_heaps(()))
    except PictureError:
        return False
    return True


def turned(p: Position, chosen: list[bool]) -> Position:
    """``p`` with every boundary of the chosen regions reversed (kept as written: no reader)."""
    regions = tuple(tuple(b[::-1] for b in r) if c else r for r, c in zip(p.regions, chosen, strict=True))
    return Position.trusted(regions, p.lives, p.heaps)


def oriented(p: Position) -> Position:
    """What the reader makes of ``p``: each land turned to agree (or refused)."""
    regions = list(p.regions)
    for group in land_groups(p, keep_dead=True):
        agreeing = orient_land([regions[i] for i in group], p.lives)
        if agreeing is not None:
            for i, r in zip(group, agreeing, strict=True):
                regions[i] = r
    return Position.trusted(tuple(regions), p.lives, p.heaps)


# ------------------------------------------------------------------ the examples
SPOTS_EXAMPLE = "1A|BCDE.F|BCDE|AF"  # a land of SPOTS's nimber databases
AGREEING = "1A|BEDC.F|BCDE|AF"  # the same land with its regions turned to agree


def test_a_land_read_region_by_region_is_the_drawing_its_regions_agree_on() -> None:
    assert Position.from_string(SPOTS_EXAMPLE).canonical() == Position.from_string(AGREEING).canonical()
    assert Position.from_string(SPOTS_EXAMPLE) == Position.from_string(AGREEING)
    # a loop through three spots, each side read either way: one position, one name
    assert Position.from_string("ABC|ABC").canonical() == "ABC|ABC"
    assert Position.from_string("ABC|ACB").canonical() == "ABC|ABC"


@pytest.mark.parametrize("text", [SPOTS_EXAMPLE, "ABC|ABC", "0.ABCD|0.DABC+1a1a"])
def test_every_command_reads_a_string_whose_regions_disagree(text: str) -> None:
    exact = Position.from_string(text).canonical()
    r = run("canonical", text)
    assert r.exit_code == 0 and r.stdout.strip() == exact, r.output
    for args in (["children", text], ["solve", "--no-db", text], ["bounds", text], ["moves", text]):
        r = run(*args)
        assert r.exit_code == 0, (args, r.output)
    assert ApiPosition(text).canonical() == exact  # the API reads it alike


def test_the_reduced_form_the_tool_writes_is_read_back() -> None:
    reduced = run("canonical", "--reduced", "ABC|ACB").stdout.strip()
    assert reduced == "ABC|ABC"  # each region's direction chosen on its own
    r = run("canonical", reduced)
    assert r.exit_code == 0 and r.stdout.strip() == "ABC|ABC", r.output


@pytest.mark.parametrize(
    "text",
    [
        "1abab",  # two spots whose visits cross on one boundary
        "ABCD|ACBD",  # four pinches in an order neither direction draws
        "AB|CD|ACBD",
        "AB.CD|AC.BD",  # a nesting that is not a tree
    ],
)
def test_strings_no_drawing_has_are_still_refused(text: str) -> None:
    with pytest.raises(NotationError, match="cannot be drawn on the plane"):
        Position.from_string(text)
    r = run("canonical", text)
    assert r.exit_code == 2 and "cannot be drawn on the plane" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_layout_draws_a_string_whose_regions_disagree(tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    r = run("layout", "ABC|ABC", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert run("canonical", str(out)).stdout.strip() == "ABC|ABC"
    svg = tmp_path / "g.svg"
    r = run("render", SPOTS_EXAMPLE, "-o", str(svg))
    assert r.exit_code == 0 and svg.stat().st_size > 0, r.output


# ------------------------------------------------------------------ against the picture layer
def _facts_of_spots_databases() -> list[tuple[str, int]]:
    lines = (DATA / "spots-lands.txt").read_text().splitlines()
    return [(line.split()[0], int(line.split()[1])) for line in lines if line.strip() and line[0] != "#"]


def test_lands_spots_writes_are_read_with_spots_nimbers() -> None:
    facts = _facts_of_spots_databases()
    solver = NormalSolver()
    turned_count = 0
    for text, nimber in facts:
        p = Position.from_string(text)  # never refused
        assert drawn(p), text  # the reader's position is drawn as it stands
        if "+" not in text:
            turned_count += not drawn(Position.trusted(*_as_written(text)))
        assert solver.nimber(p) == nimber, text
    assert turned_count > 100  # SPOTS writes these lands with regions that disagree


def _as_written(text: str) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], tuple[int, ...]]:
    """A land string read with no turning (the notation's numbering of spots)."""
    from sprouts_cli.solve.children import read_land

    p = read_land(text)
    return p.regions, p.lives


@pytest.mark.parametrize("n", [2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_the_verdict_is_the_picture_layers_on_every_reversal_of_small_positions(n: int) -> None:
    rng = random.Random(n)
    for form in reachable(n):
        p = Position.from_string(form)
        for _ in range(3):
            q = turned(p, [rng.random() < 0.5 for _ in p.regions])
            assert drawing_problem_of(q) is None  # some direction draws it: the original's
            r = oriented(q)
            if drawn(q):
                assert r.regions == q.regions  # a string that can be drawn as written is kept
            assert drawn(r)
            assert r.canonical() == q.canonical() == form  # one name however it is read


def drawing_problem_of(p: Position) -> str | None:
    for group in land_groups(p, keep_dead=True):
        problem = drawing_problem([p.regions[i] for i in group], p.lives)
        if problem:
            return problem
    return None


@st.composite
def late_positions(draw) -> Position:
    """Positions of random games from 3 to 9 spots, late enough to solve in a moment."""
    spots = draw(st.integers(3, 9))
    left = draw(st.integers(2, 9))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_game_position(spots, max(0, 3 * spots - left), seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(late_positions(), st.integers(0, 2**32 - 1))
def test_reversing_regions_keeps_the_position(p: Position, seed: int) -> None:
    rng = random.Random(seed)
    original = Position.from_string(p.notation())
    q = turned(original, [rng.random() < 0.5 for _ in original.regions])
    text = q.notation()
    read = Position.from_string(text)  # accepted
    assert drawn(read)
    assert realise(read.with_heaps(())).position().canonical() == read.canonical()
    assert read.canonical() == original.canonical() == q.canonical()
    solver = NormalSolver()
    assert solver.nimber(read) == solver.nimber(original) == NormalSolver().nimber(q)
    assert misere_outcome(read) == misere_outcome(original) == misere_outcome(q)
    r = run("canonical", text)
    assert r.exit_code == 0 and r.stdout.strip() == read.canonical()
    for args in (["children", text], ["moves", text], ["solve", "--no-db", text]):
        assert run(*args).exit_code == 0, args
