"""Pictures for a room: legend, resolution and scale, numbers off the curves, spread starts."""

from __future__ import annotations

import itertools
import math
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.picture import analyse_picture, layout_position, load_game
from sprouts_cli.picture.layout import spread_spots
from sprouts_cli.render import PT_TO_PX, _text_box, curve_samples, label_places, render_bytes

POSITIONS = Path(__file__).resolve().parents[1] / "positions"


def _pictures():
    yield "game-12-spots", load_game(POSITIONS / "game-12-spots.json")
    yield "browser-3-spots", load_game(POSITIONS / "browser-3-spots.json")
    yield "0*3.AB|1a1a.AB", layout_position("0*3.AB|1a1a.AB", jobs=1)
    yield "crowded", layout_position("0*4.1a1a.AB|AB", 300, 220, jobs=1)


@pytest.mark.parametrize("name,pic", list(_pictures()), ids=lambda v: v if isinstance(v, str) else "")
def test_spot_numbers_meet_no_curve_spot_or_other_number(name, pic) -> None:
    analysis = analyse_picture(pic)
    font_px = 9.0 * PT_TO_PX
    radii = np.asarray(pic.sizes, dtype=float)
    places = label_places(pic, analysis, font_px, radii)
    boxes = [_text_box(p, str(i + 1), font_px) for i, p in enumerate(places)]
    samples = curve_samples(pic, analysis, step=0.5)
    for i, (cx, cy, hw, hh) in enumerate(boxes):
        # no point of any curve inside the box, nor any spot's disc
        inside = (np.abs(samples[:, 0] - cx) <= hw) & (np.abs(samples[:, 1] - cy) <= hh)
        assert not inside.any(), f"{name}: number {i + 1} sits on a curve"
        for j, (sx, sy) in enumerate(pic.spots):
            dx = max(abs(sx - cx) - hw, 0.0)
            dy = max(abs(sy - cy) - hh, 0.0)
            assert math.hypot(dx, dy) > radii[j], f"{name}: number {i + 1} covers spot {j + 1}"
        assert cx - hw >= 0 and cx + hw <= pic.width and cy - hh >= 0 and cy + hh <= pic.height
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        apart = abs(a[0] - b[0]) >= a[2] + b[2] or abs(a[1] - b[1]) >= a[3] + b[3]
        assert apart, f"{name}: numbers {i + 1} and {j + 1} overlap"


@pytest.mark.parametrize("n", range(1, 13))
def test_lone_spots_are_spread_out(n: int) -> None:
    w, h = 800.0, 600.0
    pts = spread_spots(n, w, h)
    assert pts.shape == (n, 2)
    # well inside the area, and no two close together: a regular spread, not a corner
    assert (pts[:, 0] >= 0.1 * h).all() and (pts[:, 0] <= w - 0.1 * h).all()
    assert (pts[:, 1] >= 0.1 * h).all() and (pts[:, 1] <= h - 0.1 * h).all()
    if n > 1:
        gaps = [math.dist(a, b) for a, b in itertools.combinations(pts.tolist(), 2)]
        assert min(gaps) >= 0.6 * math.sqrt(0.6 * w * h / n)  # at least 0.6 of an even share each
    centre = pts.mean(axis=0)
    assert abs(centre[0] - w / 2) < 1e-6  # balanced left to right


def test_a_start_is_laid_out_spread() -> None:
    pic = layout_position("0*5", jobs=1)
    assert analyse_picture(pic).position.canonical() == "0*5"
    assert np.allclose(pic.spots, spread_spots(5, pic.width, pic.height))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG")
    return struct.unpack(">II", data[16:24])


def test_dpi_scale_and_legend() -> None:
    pic = load_game(POSITIONS / "loop.json")
    w, h = _png_size(render_bytes(pic, "png", title=None))
    assert (w, h) == (round(pic.width), round(pic.height))
    w2, h2 = _png_size(render_bytes(pic, "png", title=None, dpi=200))
    assert (w2, h2) == (2 * w, 2 * h)
    plain = render_bytes(pic, "svg", title="x").decode()
    big = render_bytes(pic, "svg", title="x", scale=2, legend=True, lives=True).decode()
    assert "3 lives" not in plain
    for words in ("3 lives", "2 lives", "1 life", "dead", "lives of a region"):
        assert words in big
    assert "stroke-width: 3.2" in big and "stroke-width: 1.6" in plain


def test_render_options_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "room.png"
    args = ["render", str(POSITIONS / "loop.json"), "-o", str(out), "--legend", "--scale", "2", "--dpi", "50"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    w, _ = _png_size(out.read_bytes())
    assert w == round(load_game(POSITIONS / "loop.json").width / 2)
    r = CliRunner().invoke(main, ["render", str(POSITIONS / "loop.json"), "-o", str(out), "--dpi", "5"])
    assert r.exit_code == 2


def _loop(x: float, y: float, r: float, first: int) -> tuple[list, list]:
    """Two spots ``r`` apart joined by two curves: a small closed loop."""
    spots = [(x - r / 2, y), (x + r / 2, y)]
    curves = [(first, first + 1, [(x, y - r / 2)]), (first, first + 1, [(x, y + r / 2)])]
    return spots, curves


def test_a_small_part_beside_a_large_one_is_drawn_larger() -> None:
    from picture_helpers import picture

    from sprouts_cli.picture.layout import SMALL_PART_SHARE, enlarge_small_parts, part_extents

    big_spots, big_curves = _loop(250, 200, 300, 0)
    small_spots, small_curves = _loop(620, 200, 16, 2)
    pic = picture(big_spots + small_spots, big_curves + small_curves, width=800, height=400)
    before = analyse_picture(pic)
    bigger, after = enlarge_small_parts(pic, before.position.canonical(), before)
    assert after.position.canonical() == before.position.canonical()
    assert after.min_clearance >= min(before.min_clearance, SMALL_PART_SHARE * 400)
    sizes = sorted(float(np.hypot(*(hi - lo))) for _, _, lo, hi in part_extents(bigger))
    assert sizes[0] >= 0.99 * SMALL_PART_SHARE * 400 > 2.5 * sizes[0] / 3.0  # grew, up to the goal
    assert np.allclose(bigger.spots[:2], pic.spots[:2])  # the large part did not move


@pytest.mark.parametrize("outer,inner", [(30, 16), (40, 16), (60, 20), (100, 10)])
def test_enlarging_a_nested_part_keeps_the_position_and_its_room(outer: float, inner: float) -> None:
    from picture_helpers import picture

    from sprouts_cli.picture.layout import enlarge_small_parts, part_extents

    # a small loop inside a loop a little larger: it may grow only while it stays clear
    outer_spots, outer_curves = _loop(200, 200, outer, 0)
    inner_spots, inner_curves = _loop(200, 200, inner, 2)
    pic = picture(outer_spots + inner_spots, outer_curves + inner_curves)
    before = analyse_picture(pic)
    kept, after = enlarge_small_parts(pic, before.position.canonical(), before)
    assert after.position.canonical() == before.position.canonical()
    assert analyse_picture(kept).position.canonical() == before.position.canonical()
    assert after.min_clearance >= before.min_clearance
    extents = [float(np.hypot(*(hi - lo))) for _, _, lo, hi in part_extents(kept)]
    assert max(extents) >= min(extents)  # the inner loop is still the smaller one, inside
