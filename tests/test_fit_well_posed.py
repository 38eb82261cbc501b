"""Spline fits whose data has gaps stay well posed: the banded solve never needs its dense fallback.

A least-squares spline fit has one solution when the data sites can be matched to
the B-splines' supports (the Schoenberg–Whitney condition).  The refinement thins
given knots that break it and inserts knots only where it holds, and a push samples
its curves by arc length, so its knot intervals all have data (docs/performance.md,
2026-12-06, night, issue 25).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.interpolate import BSpline

from sprouts_cli.picture import fit
from sprouts_cli.picture.fit import refine_clamped, well_posed, well_posed_reference
from sprouts_cli.picture.spline import chord_parameters, sample_by_length, sample_polyline


@pytest.fixture
def no_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any fit falls back to the dense least squares (its banded Cholesky failed)."""

    def refuse(B, rhs):
        raise AssertionError(f"dense fallback on a {B.shape[0]} x {B.shape[1]} system")

    monkeypatch.setattr(fit, "least_squares_dense", refuse)


def _gappy(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A wavy curve sampled densely but for gaps with one or two sites, and knots every 10 px of it."""
    rng = np.random.default_rng(seed)
    x = np.arange(0.0, 400.0, 0.8)
    keep = np.ones(len(x), dtype=bool)
    for _ in range(rng.integers(1, 4)):
        a = rng.uniform(20, 330)
        gap = (x > a) & (x < a + rng.uniform(30, 70))
        lone = np.flatnonzero(gap)[:: max(1, int(gap.sum()) // int(rng.integers(1, 3)))][:2]
        keep &= ~gap
        keep[lone] = True
    x = x[keep]
    points = np.stack([x, 40 * np.sin(x / rng.uniform(12, 30)) + 10 * np.sin(x / 7.0)], axis=1)
    u = chord_parameters(points)
    return points, np.arange(10.0, u[-1] - 5.0, 10.0)


EAST = np.array([1.0, 0.0])


def _design(u: np.ndarray, knots: np.ndarray) -> np.ndarray:
    T = np.concatenate([[u[0]] * 4, np.sort(knots), [u[-1]] * 4])
    return BSpline.design_matrix(u, T, 3).toarray()[:, 2 : len(T) - 6]


@given(st.integers(0, 10_000))
def test_well_posed_agrees_with_its_reference_and_with_the_rank(seed: int) -> None:
    rng = np.random.default_rng(seed)
    u = np.sort(rng.choice(np.arange(0.0, 100.0, 0.5), int(rng.integers(3, 30)), replace=False))
    u[0], u[-1] = 0.0, 100.0
    u = np.unique(u)
    knots = np.sort(rng.choice(np.arange(1.25, 99.0, 2.5), int(rng.integers(0, 25)), replace=False))
    fast = well_posed(u, knots)
    assert fast == well_posed_reference(u, knots)
    # sites on a half-step grid, knots between them: no site is near a support's end, the rank is plain
    B = _design(u, knots)
    assert fast == (B.shape[1] == 0 or np.linalg.matrix_rank(B) == B.shape[1])


@pytest.mark.parametrize("seed", range(12))
def test_knots_over_a_gap_are_thinned_and_the_fit_keeps_its_tolerance(no_dense: None, seed: int) -> None:
    points, knots = _gappy(seed)
    u = chord_parameters(points)
    assert not well_posed(u, knots)  # the example has a gap the knots leave without data
    spline, u, bounds, fits = refine_clamped(points, knots, EAST, EAST, 1.5, 24)
    assert fits
    assert well_posed(u, bounds[1:-1])
    assert np.hypot(*(spline(u) - points).T).max() <= 1.5


@pytest.mark.parametrize("seed", range(12))
def test_knots_inserted_into_data_with_gaps_never_leave_the_fit_singular(no_dense: None, seed: int) -> None:
    points, _knots = _gappy(seed)
    spline, u, bounds, fits = refine_clamped(points, np.zeros(0), EAST, EAST, 0.5)
    assert fits
    assert well_posed(u, bounds[1:-1])
    assert np.hypot(*(spline(u) - points).T).max() <= 0.5


def test_a_fit_that_needs_no_care_is_the_midpoint_refinement() -> None:
    x = np.linspace(0.0, 300.0, 400)
    points = np.stack([x, 30 * np.sin(x / 20.0)], axis=1)
    _spline, u, bounds, fits = refine_clamped(points, np.zeros(0), np.array([1.0, 1.5]), np.array([1.0, 1.5]))
    assert fits
    # every knot halves an interval of the one before: dyadic fractions of the parameter's range
    frac = (bounds[1:-1] - u[0]) / (u[-1] - u[0]) * 2**12
    assert np.allclose(frac, np.round(frac))


def test_sampling_by_length_gives_long_pieces_their_share_of_points() -> None:
    long_piece = np.array([[0.0, 0.0], [100.0, 0.0], [200.0, 0.0], [300.0, 0.0]])
    short_piece = np.array([[300.0, 0.0], [301.0, 1.0], [302.0, 1.0], [303.0, 0.0]])
    pieces = np.stack([long_piece, short_piece])
    pts = sample_by_length(pieces, 4.0, 12)
    legs = np.hypot(*np.diff(pts, axis=0).T)
    assert legs.max() <= 4.0 + 1e-9
    assert np.allclose(pts[0], pieces[0, 0]) and np.allclose(pts[-1], pieces[-1, 3])
    # with a step longer than every piece it is the sampling with the same count in every piece
    assert np.allclose(sample_by_length(pieces, 1e6, 12), sample_polyline(pieces, 12))
