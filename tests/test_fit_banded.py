"""The fit's normal equations assembled by a kernel are those of scipy's sparse reference, bit for bit.

``fit._solve`` builds the banded normal equations of the free de Boor points
straight from the B-splines' values at the sites and solves them by LAPACK's banded
Cholesky; ``fit._solve_reference`` builds scipy's sparse design matrix, its normal
matrix and the same banded Cholesky (or the dense least squares when that fails).
Same bits, so the drawing's pictures stay the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import BSpline

from sprouts_cli.picture import fit
from sprouts_cli.picture.spline import chord_parameters


def _random_fit(
    seed: int, spread: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A random walk of points, random inner knots that keep the fit well posed, random end directions.

    With ``spread`` every knot interval holds two sites or more, as in the drawing's fits
    (whose knots halve intervals with data); without it the knots only keep the fit well
    posed, which may leave it near singular.
    """
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 160))
    Q = np.cumsum(rng.normal(0.0, rng.uniform(0.5, 20.0), (m, 2)), axis=0) + rng.uniform(0, 900, 2)
    u = chord_parameters(Q)
    knots = np.sort(rng.uniform(u[0], u[-1], int(rng.integers(0, max(1, m // 2)))))

    def crowded(knots: np.ndarray) -> bool:
        bounds = np.concatenate([[u[0]], knots, [u[-1]]])
        return spread and bool(np.any(np.diff(np.searchsorted(u, bounds)) < 2))

    while len(knots) and (not fit.well_posed(u, knots) or crowded(knots)):
        knots = np.delete(knots, int(rng.integers(len(knots))))
    return u, Q, knots, fit._unit(rng.normal(size=2)), fit._unit(rng.normal(size=2))


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_the_compiled_solve_is_the_sparse_reference_bit_for_bit(seed: int, spread: bool) -> None:
    """Bit for bit, even for fits so near singular that two exact solvers' points would differ."""
    u, Q, knots, d0, d1 = _random_fit(seed, spread)
    fast = fit._solve(u, Q, knots, d0, d1)
    ref = fit._solve_reference(u, Q, knots, d0, d1)
    assert fast.shape == ref.shape
    assert np.array_equal(fast, ref)


@pytest.mark.parametrize("seed", range(40))
def test_the_band_is_the_sparse_normal_matrix(seed: int) -> None:
    u, Q, knots, d0, d1 = _random_fit(seed)
    T = np.concatenate([[u[0]] * 4, knots, [u[-1]] * 4])
    n = len(T) - 4
    if n <= 4:
        return
    C = fit._ends(Q, T, n, d0, d1)
    band, rhs = fit._normal_band(u, Q, T, C)
    B = BSpline.design_matrix(u, T, 3).tocsc()
    free = B[:, 2 : n - 2]
    N = (free.T @ free).toarray()
    for k in range(4):
        assert np.array_equal(band[3 - k, k:], np.diagonal(N, k))
    known = [0, 1, n - 2, n - 1]
    assert np.array_equal(rhs, free.T @ (Q - B[:, known] @ C[known]))


def test_repeated_knots_and_sites_on_knots_are_the_reference() -> None:
    x = np.linspace(0.0, 100.0, 41)
    Q = np.stack([x, 10 * np.sin(x / 9.0)], axis=1)
    u = chord_parameters(Q)
    knots = np.array([u[10], u[10], u[20], u[30]])  # a double knot, every knot on a site
    d = np.array([1.0, 0.0])
    assert np.array_equal(fit._solve(u, Q, knots, d, d), fit._solve_reference(u, Q, knots, d, d))


def test_a_singular_system_goes_to_the_reference_and_its_dense_least_squares() -> None:
    u = np.array([0.0, 1.0, 2.0, 3.0, 50.0, 97.0, 98.0, 99.0, 100.0])
    Q = np.stack([u, np.cos(u / 10.0)], axis=1)
    knots = np.array([10.0, 20.0, 30.0, 40.0, 60.0, 70.0])  # B-splines with no site under them
    assert not fit.well_posed(u, knots)
    d = np.array([1.0, 0.0])
    assert np.array_equal(fit._solve(u, Q, knots, d, d), fit._solve_reference(u, Q, knots, d, d))


def test_the_plain_python_band_is_the_compiled_one() -> None:
    u, Q, knots, d0, d1 = _random_fit(11)
    T = np.concatenate([[u[0]] * 4, knots, [u[-1]] * 4])
    C = fit._ends(Q, T, len(T) - 4, d0, d1)
    compiled = fit._normal_band(u, Q, T, C)
    plain = fit._normal_band.py_func(u, Q, T, C)  # type: ignore[attr-defined]
    assert np.array_equal(compiled[0], plain[0]) and np.array_equal(compiled[1], plain[1])
