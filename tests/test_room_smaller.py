"""Z and • as rungs of the ladder, spots drawn smaller, and growing back (Alfeld §4.5–4.6)."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sprouts_cli.cli import main
from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move
from sprouts_cli.engine.naming import moves_from_words, numbered_key, parse_words
from sprouts_cli.errors import GivenUp, NoRoom, PictureError
from sprouts_cli.picture import analyse_picture, layout_position, load_game, room, save_game
from sprouts_cli.picture import layout as lay
from sprouts_cli.picture.gamefile import game_from_json, game_to_json
from sprouts_cli.picture.model import SMALLEST_SPOT, SPOT_RADIUS
from sprouts_cli.picture.planar_map import realise
from sprouts_cli.picture.relax import relax
from sprouts_cli.picture.sizes import FULL_SHARE, fit_sizes, room_for, smaller_spots

#: A picture of three spots in a 100 × 80 area, and a move whose position has no layout
#: there with every spot at full size, but has one with some spots drawn smaller.
TIGHT = ("0*3", 100, 80, "1 → 1")


def same(a: Position, b: Position) -> bool:
    return numbered_key(a)[:2] == numbered_key(b)[:2]


def tight_case():
    position, w, h, words = TIGHT
    pic = layout_position(position, w, h, jobs=1)
    a = analyse_picture(pic)
    (move,) = moves_from_words(a.position, parse_words(words))[:1]
    return pic, a, move, apply_move(a.position, move)


@pytest.fixture
def no_router(monkeypatch):
    """The router finds no way for any move, so the ladder goes on to Z (the rungs are tested
    here, not the router)."""

    def refuse(*args, **kwargs):
        raise NoRoom("the widest way between 1 and 4 is 0.0 px, 6 px needed", 0.0, 6.0)

    monkeypatch.setattr(room, "draw_move", refuse)


# --------------------------------------------------------------------------- the size rule


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 40.0), st.floats(0.1, 6.0))
def test_a_spot_takes_the_largest_size_its_gap_allows(gap: float, need: float) -> None:
    """Its disc keeps ``need``, or its own size if that is less; a near-full room counts as full."""
    s = float(room_for(np.array([gap]), need)[0])
    assert s >= gap - need - 1e-9 and s >= gap / 2 - 1e-9
    assert gap - s >= min(need, s) - 1e-9
    # any larger size would keep less than that
    bigger = s + 0.01
    assert gap - bigger < min(need, bigger)
    assert FULL_SHARE < 1


def test_z_draws_every_spot_at_full_size_where_there_is_room() -> None:
    pic = layout_position("0.AB|1a1a.AB", 800, 600, jobs=1)
    assert smaller_spots(pic) == ()
    assert np.allclose(pic.sizes, SPOT_RADIUS)


# --------------------------------------------------------------------------- saved games


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(SMALLEST_SPOT, SPOT_RADIUS), min_size=5, max_size=5))
def test_spot_sizes_round_trip_through_the_game_file(sizes: list[float]) -> None:
    pic = layout_position("0*2.1a1a", 500, 400, jobs=1)
    assert len(pic.spots) == len(sizes)
    pic.sizes = np.array(sizes)
    obj = json.loads(json.dumps(game_to_json(pic)))
    back = game_from_json(obj)
    assert np.allclose(back.sizes, sizes, atol=1e-6)
    assert same(analyse_picture(back).position, analyse_picture(pic).position)


def test_a_saved_game_keeps_the_spots_drawn_smaller(tmp_path) -> None:
    pic, a, _move, target = tight_case()
    z, shrunk = room._layout(pic, a, target, room.RouteSettings(), True, 1, [])
    assert shrunk and z.analysis.min_clearance > 0
    path = tmp_path / "g.json"
    save_game(path, z.picture, target.canonical())
    back = load_game(path)
    assert smaller_spots(back) == shrunk
    assert np.allclose(back.sizes, z.picture.sizes, atol=1e-6)
    assert same(analyse_picture(back).position, target)


# --------------------------------------------------------------------------- Z and • in the ladder


def test_a_picture_that_needs_smaller_spots(no_router) -> None:
    pic, a, move, target = tight_case()
    # at full size the move's position has no layout in this area: Z alone gives up, in one line
    with pytest.raises(NoRoom) as e:
        room.draw(pic, move, ("Z",), a)
    assert "the picture has run out of room" in str(e.value) and "\n" not in str(e.value)
    # with • the layout is kept aside with spots drawn smaller, and taken
    r = room.draw(pic, move, ("Z", "."), a)
    assert r.drawn_by == "smaller" and r.smaller
    assert same(r.analysis.position, target)
    assert same(analyse_picture(r.picture).position, target)
    sizes = r.picture.sizes
    assert (sizes >= SMALLEST_SPOT - 1e-9).all() and (sizes <= SPOT_RADIUS + 1e-9).all()
    assert set(np.nonzero(sizes < SPOT_RADIUS - 1e-6)[0]) == set(r.smaller)
    assert r.clearance > 0
    assert any(n.startswith("Z, region") and "kept aside" in n for n in r.notes)


def test_the_router_sees_a_spot_at_its_smaller_size() -> None:
    pic = layout_position("0*3", 400, 300, jobs=1)
    a = analyse_picture(pic)
    small = pic.copy()
    small.sizes[0] = SMALLEST_SPOT
    b = analyse_picture(small)
    # the certificate measures the smaller disc: every clearance at spot 1 grows by what it lost
    assert b.min_clearance >= a.min_clearance
    from sprouts_cli.picture.route_plan import obstacles_of

    assert obstacles_of(small, b).sizes[0] == SMALLEST_SPOT


def test_z_grows_spots_back_to_their_size(no_router) -> None:
    pic = layout_position("0*3", 500, 400, jobs=1)
    pic.sizes[:] = SMALLEST_SPOT
    a = analyse_picture(pic)
    (move,) = moves_from_words(a.position, parse_words("1 → 2"))[:1]
    r = room.draw(pic, move, ("Z",), a)
    assert r.drawn_by == "layout" and r.smaller == ()
    assert np.allclose(r.picture.sizes, SPOT_RADIUS)
    assert same(r.analysis.position, apply_move(a.position, move))


# --------------------------------------------------------------------------- growing back in A and R


@pytest.mark.parametrize("mode", ["adjust", "rearrange"])
def test_a_spot_drawn_smaller_grows_back_in_a_and_r(mode: str) -> None:
    pic = layout_position("0.AB|1a1a.AB", 600, 450, jobs=1)
    want = analyse_picture(pic).position
    pic.sizes[[0, 2]] = SMALLEST_SPOT
    out = relax(pic, mode)
    assert smaller_spots(out) == ()
    assert np.allclose(out.sizes, SPOT_RADIUS)
    assert same(analyse_picture(out).position, want)


@pytest.mark.parametrize("mode", ["adjust", "rearrange"])
def test_a_spot_without_room_grows_only_as_far_as_its_room(mode: str) -> None:
    """A spot squeezed between two curves grows, but only to what its gap allows, and never shrinks."""
    from picture_helpers import picture

    pic = picture(
        [(100, 200), (300, 200), (200, 209), (200, 380)],
        [(0, 1, [(200, 200)]), (0, 1, [(100, 215), (200, 218), (300, 215)])],
        400,
        400,
    )
    pic.sizes[2] = SMALLEST_SPOT
    a = analyse_picture(pic)
    out = relax(pic, mode)
    assert out.sizes[2] >= SMALLEST_SPOT
    assert same(analyse_picture(out).position, a.position)
    # whatever it grew to, its disc keeps the clearance the rule asks for, or the picture's own
    grown, _ = fit_sizes(out, analyse_picture(out), grow_only=True)
    assert np.allclose(grown.sizes, out.sizes)


def test_seeds_drawn_smaller_grow_back_in_a_picture_with_no_curves() -> None:
    pic = layout_position("0*4", 400, 300, jobs=1)
    pic.sizes[1] = SMALLEST_SPOT
    assert np.allclose(relax(pic, "adjust").sizes, SPOT_RADIUS)


# --------------------------------------------------------------------------- Z's rules, with stand-in layouts


def fake_layouts(monkeypatch, plan: dict[int, tuple]) -> list[int]:
    """Layouts by plan, per candidate's place in Z's order: ("drawn", clearance[, smaller sizes]),
    ("fail", reason) or ("slow", units of work); the regions asked for are recorded in order.
    A layout drawn does ``FAKE_WORK`` units of work; a slow one its units, a thousand at a time,
    asking ``stop`` after each."""
    from sprouts_cli.picture import work

    asked: list[int] = []
    base = layout_position("0*3", 300, 200, jobs=1)

    def one(
        pmap, expected, outer, width, height, polish=True, prepared=None, work_bound=1e9, d0=6.0, stop=None
    ):
        asked.append(outer)
        kind, *args = plan[outer]
        if kind == "fail":
            raise PictureError(args[0])
        if kind == "slow":
            for _ in range(int(args[0]) // 1000):
                work.charge(1000)
                if stop is not None and stop():
                    raise GivenUp("given up")
                time.sleep(0.0005)
            args = [9.0]
        else:
            work.charge(FAKE_WORK)
        pic = base.copy()
        small: tuple[int, ...] = ()
        if len(args) > 1:
            pic.sizes = np.array(args[1], dtype=float)
            small = smaller_spots(pic)
        return lay.LayoutResult(pic, outer, args[0], 0.01, small)

    monkeypatch.setattr(lay, "layout_one", one)
    return asked


@pytest.fixture
def big_map():
    pmap = realise(Position.from_string("0*3.AB|AB.CD|CD.EF|EF"))
    return pmap, lay._ordered(pmap, None)


def run_z(pmap, bar, smaller=False, jobs=1, outside=None):
    lines: list[str] = []
    r = lay.layout_for_move(pmap, "x", 300, 200, bar, smaller, jobs, outside, log=lines.append)
    return r, lines


def test_z_stops_at_the_first_layout_that_keeps_the_clearance(monkeypatch, big_map) -> None:
    pmap, order = big_map
    asked = fake_layouts(
        monkeypatch, {order[0]: ("drawn", 3.0), order[1]: ("drawn", 8.0), order[2]: ("drawn", 9.0)}
    )
    r, lines = run_z(pmap, bar=6.0, jobs=3)
    assert r.outer == order[1] and asked == order[:2] and len(lines) == 2


def test_z_takes_the_best_so_far_once_a_round_is_done(monkeypatch, big_map) -> None:
    pmap, order = big_map
    asked = fake_layouts(
        monkeypatch, {order[0]: ("drawn", 3.0), order[1]: ("drawn", 4.0), order[2]: ("drawn", 9.0)}
    )
    r, _ = run_z(pmap, bar=6.0, jobs=2)
    assert r.outer == order[1] and asked == order[:2]


def test_a_broken_picture_takes_the_first_layout_drawn_at_all(monkeypatch, big_map) -> None:
    pmap, order = big_map
    asked = fake_layouts(monkeypatch, {order[0]: ("fail", "curves cross"), order[1]: ("drawn", 0.5)})
    r, lines = run_z(pmap, bar=None, jobs=4)
    assert r.outer == order[1] and asked == order[:2]
    assert "curves cross" in lines[0]


def test_a_whole_round_failing_gives_up_and_says_why_each_failed(monkeypatch, big_map) -> None:
    pmap, order = big_map
    plan = {
        order[0]: ("fail", "the smooth curves cross"),
        order[1]: ("fail", "too tight"),
        order[2]: ("drawn", 9.0),
    }
    asked = fake_layouts(monkeypatch, plan)
    lines: list[str] = []
    with pytest.raises(PictureError) as e:
        lay.layout_for_move(pmap, "x", 300, 200, 6.0, False, 2, None, log=lines.append)
    assert str(e.value).startswith("the picture has run out of room")
    assert asked == order[:2]
    assert "the smooth curves cross" in lines[0] and "too tight" in lines[1]


def test_a_kept_aside_layout_that_keeps_the_clearance_ends_z(monkeypatch, big_map) -> None:
    pmap, order = big_map
    small = [5.0, 3.0, 5.0]
    plan = {order[0]: ("drawn", 7.0, small), order[1]: ("drawn", 3.0)}
    fake_layouts(monkeypatch, plan)
    r, lines = run_z(pmap, bar=6.0, smaller=True, jobs=2)
    assert r.outer == order[0] and r.smaller == (1,) and "kept aside" in lines[0]
    # without • the same layout is a failure at full size, and the full-size one is taken
    r, lines = run_z(pmap, bar=6.0, smaller=False, jobs=2)
    assert r.outer == order[1] and r.smaller == () and "no room for the full size of spot 2" in lines[0]


def test_a_full_size_layout_wins_over_one_kept_aside(monkeypatch, big_map) -> None:
    pmap, order = big_map
    fake_layouts(monkeypatch, {order[0]: ("drawn", 5.0, [5.0, 4.0, 5.0]), order[1]: ("drawn", 2.0)})
    r, _ = run_z(pmap, bar=6.0, smaller=True, jobs=2)
    assert r.outer == order[1]


def test_of_the_layouts_kept_aside_the_one_that_shrinks_least_is_taken(monkeypatch, big_map) -> None:
    pmap, order = big_map
    plan = {
        order[0]: ("drawn", 5.0, [3.0, 5.0, 5.0]),
        order[1]: ("drawn", 4.0, [4.0, 4.0, 5.0]),
        order[2]: ("drawn", 3.0, [5.0, 4.0, 5.0]),
    }
    fake_layouts(monkeypatch, plan)
    r, _ = run_z(pmap, bar=6.0, smaller=True, jobs=3)
    assert r.outer == order[2]  # smallest spot 4.0 (not 3.0), and one spot shrunk (not two)


def test_z_tries_the_present_outside_first(monkeypatch, big_map) -> None:
    pmap, order = big_map
    last = order[-1]
    asked = fake_layouts(monkeypatch, {k: ("drawn", 9.0) for k in order})
    spots = {pmap.spot_id[v] for w in pmap.regions[last] for v in pmap.walk_spots(w)}
    r, _ = run_z(pmap, bar=6.0, outside=spots)
    assert asked == [last] and r.outer == last


FAKE_WORK = 20_000


def test_stragglers_are_given_up_by_comparison_here(monkeypatch, big_map) -> None:
    """Once half the layouts are done, one that does more than twice their median work gives up,
    just past that work (not after some time: the same layouts are given up under any load)."""
    pmap, order = big_map
    plan = {k: ("drawn", 9.0) for k in order}
    plan[order[len(order) // 2]] = ("slow", 10**8)
    fake_layouts(monkeypatch, plan)
    t0 = time.monotonic()
    got = list(lay.run_layouts(pmap, "x", order, 300, 200, jobs=1, parallel=False))
    assert time.monotonic() - t0 < 10
    slow = next(t for t in got if t.outer == order[len(order) // 2])
    assert slow.result is None and slow.reason.startswith("given up after")
    assert 2 * FAKE_WORK < slow.work <= 2 * FAKE_WORK + 1000
    assert sum(t.result is not None for t in got) == len(order) - 1
    assert all(t.work == FAKE_WORK for t in got if t.result is not None)


def test_the_straggler_limit_is_twice_the_median_work_and_never_below_the_floor() -> None:
    assert lay.straggler_limit([5.0e4, 1.0e5], 5) == math.inf  # not yet half of the layouts done
    assert lay.straggler_limit([5.0e4, 1.0e5, 3.0e5], 5) == 2.0e5
    assert lay.straggler_limit([0.0, 0.0, 10.0], 4) == lay.STRAGGLER_FLOOR


@pytest.mark.skipif(
    __import__("multiprocessing").get_start_method() != "fork",
    reason="the stand-in layouts reach workers by fork",
)
def test_stragglers_are_given_up_by_comparison_in_workers(monkeypatch, big_map) -> None:
    pmap, order = big_map
    plan = {k: ("slow", 20_000) for k in order}
    plan[order[0]] = ("slow", 10**8)
    fake_layouts(monkeypatch, plan)
    t0 = time.monotonic()
    got = list(lay.run_layouts(pmap, "x", order, 300, 200, jobs=2, parallel=True))
    assert time.monotonic() - t0 < 20
    (slow,) = [t for t in got if t.result is None]
    assert slow.outer == order[0] and slow.reason.startswith("given up after")
    assert sorted(t.outer for t in got) == sorted(order)


# --------------------------------------------------------------------------- the command line


def test_move_json_names_the_spots_drawn_smaller(tmp_path, no_router) -> None:
    pic, a, _move, target = tight_case()
    g0, g1 = tmp_path / "g0.json", tmp_path / "g1.json"
    save_game(g0, pic, a.position.canonical())
    args = ["move", str(g0), TIGHT[3], "-o", str(g1), "--json", "--jobs", "1", "--ladder", "Z,."]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["drawn_by"] == "smaller" and obj["smaller"]
    saved = json.loads(g1.read_text())
    sizes = [s["size"] for s in saved["game"]["spots"]]
    assert [k + 1 for k, s in enumerate(sizes) if s < SPOT_RADIUS - 1e-6] == obj["smaller"]
    assert same(analyse_picture(load_game(g1)).position, target)


def test_a_move_z_cannot_draw_leaves_the_file_untouched(tmp_path, no_router) -> None:
    pic, a, _, _ = tight_case()
    path = tmp_path / "g.json"
    save_game(path, pic, a.position.canonical())
    before = path.read_bytes()
    r = CliRunner().invoke(
        main, ["move", str(path), TIGHT[3], "-o", str(path), "--ladder", "Z", "--jobs", "1"]
    )
    assert r.exit_code == 2, r.output
    assert "run out of room" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output
    assert path.read_bytes() == before


def test_the_play_log_names_the_spots_drawn_smaller(tmp_path, monkeypatch, no_router) -> None:
    """Every move of a game in a tiny area goes to Z (no router, no M); the log says which
    spots were drawn smaller and what became of each layout, and the game replays."""
    from sprouts_cli.log import replay_log

    monkeypatch.setattr(room, "_slide_or_push", lambda *args, **kwargs: None)
    monkeypatch.setattr(room, "push_curves", lambda *args, **kwargs: None)
    pic, a, _, _ = tight_case()
    start, log = tmp_path / "start.json", tmp_path / "g.log"
    save_game(start, pic, a.position.canonical())
    args = ["play", str(start), "--first", "random", "--second", "random", "--seed", "2", "--jobs", "1"]
    args += ["--save", str(tmp_path / "end.json")]  # the area is the saved game's
    r = CliRunner().invoke(main, [*args, "--no-db", "--log", str(log), "-q"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    text = log.read_text()
    notes = [line for line in text.splitlines() if line.startswith("note ")]
    assert any(" ; drawn-by smaller ; smaller " in line for line in notes), notes
    assert any(line.split(" ; ")[1].startswith("layout Z, region ") for line in notes)
    assert replay_log(log).games[0].moves >= 1
