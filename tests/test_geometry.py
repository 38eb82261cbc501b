"""Winding numbers (``picture/geometry.py``) against the angle a polygon sweeps around a point."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sprouts_cli.picture.geometry import point_segment_distance, winding_number, winding_numbers


def swept_turns(poly: np.ndarray, p: np.ndarray) -> int:
    """The winding number by another road: the angles the polygon's edges sweep around
    ``p`` (each in (-π, π)), added up, in whole turns."""
    total = 0.0
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        ax, ay = a - p
        bx, by = b - p
        total += math.atan2(ax * by - ay * bx, ax * bx + ay * by)
    turns = total / (2 * math.pi)
    assert abs(turns - round(turns)) < 1e-6, turns
    return round(turns)


def on_polygon(poly: np.ndarray, p: np.ndarray) -> bool:
    return any(
        point_segment_distance(p[0], p[1], a[0], a[1], b[0], b[1]) < 1e-9
        for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True)
    )


BOW_TIE = np.array([[0.0, 0.0], [4.0, 4.0], [4.0, 0.0], [0.0, 4.0]])  # two loops, meeting at (2, 2)
SQUARE = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])


@pytest.mark.parametrize(
    ("poly", "point", "expected"),
    [
        (SQUARE, (2.0, 2.0), 1),  # anticlockwise (x right, y up)
        (SQUARE[::-1], (2.0, 2.0), -1),
        (SQUARE, (5.0, 2.0), 0),
        (SQUARE, (2.0, 0.0 + 4.0 + 1.0), 0),
        (SQUARE, (-1.0, 0.0), 0),  # the half-line runs along the bottom edge
        (SQUARE, (-1.0, 4.0), 0),  # ... and along the top one
        (np.concatenate([SQUARE, SQUARE]), (2.0, 2.0), 2),  # twice round
        (BOW_TIE, (1.0, 2.0), 1),  # the left loop
        (BOW_TIE, (3.0, 2.0), -1),  # the right loop, the other way round
        (BOW_TIE, (2.0, 1.0), 0),  # between them
    ],
)
def test_known_winding_numbers(poly: np.ndarray, point: tuple[float, float], expected: int) -> None:
    p = np.array(point)
    assert winding_number(poly, p) == expected == swept_turns(poly, p)


def test_winding_numbers_are_the_swept_angle_on_random_polygons() -> None:
    # corners and points on a small integer grid, so that half-lines through corners and
    # along horizontal edges come up often; polygons that cross themselves included
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        poly = rng.integers(0, 7, size=(int(rng.integers(3, 9)), 2)).astype(float)
        points = np.concatenate([rng.integers(-1, 8, size=(12, 2)), rng.uniform(-1, 8, size=(4, 2))])
        points = np.array([p for p in points.astype(float) if not on_polygon(poly, p)]).reshape(-1, 2)
        many = winding_numbers(poly, points)
        for p, w in zip(points, many, strict=True):
            assert w == winding_number(poly, p) == swept_turns(poly, p), (poly.tolist(), p.tolist())
            checked += 1
    assert checked > 3000


def test_many_points_cross_the_steps_of_the_computation() -> None:
    # more points than one step of winding_numbers holds: every point still gets its own answer
    xs = np.linspace(-1.0, 5.0, 700)
    points = np.stack([xs, np.full_like(xs, 2.0 + 1e-3)], axis=1)
    inside = (xs > 0) & (xs < 4)
    assert (winding_numbers(SQUARE, points) == inside.astype(int)).all()
