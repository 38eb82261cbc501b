"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
import random
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

# On CI (CI=true) the examples are drawn from a fixed seed, so a run there checks exactly the
# examples a developer's `CI=true make test` checked; locally they vary, to keep finding new cases.
settings.register_profile(
    "default",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=bool(os.environ.get("CI")),
)
settings.register_profile("thorough", max_examples=600, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

# The suite runs on numba's JIT kernels, the reference, whether or not the ahead-of-time ones are
# built (``test_aot.py`` compares those with it); SPROUTS_AOT=1 runs it all on the built ones.
os.environ.setdefault("SPROUTS_AOT", "0")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the engine's numba kernels once, before any test (numba caches them): tests
    that time worker processes must not time a first compilation."""
    if os.environ.get("SPROUTS_PURE_PYTHON", "") in ("", "0"):
        from sprouts_cli.engine import kernels

        kernels.warm_up()


@pytest.fixture
def rng() -> random.Random:
    return random.Random(12345)


@pytest.fixture(scope="session")
def reachable():
    """``reachable(n)``: every position reachable from n spots (``games.reachable``, cached)."""
    from games import reachable as positions_from

    return positions_from


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Iterator[None]:
    """Give every test the SIGINT/SIGTERM handlers it started with.

    A handler a test sets in this process must not leak into later tests, or into the
    processes they start (an ignored SIGINT is inherited).
    """
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, handler in saved.items():
        if signal.getsignal(s) is not handler and handler is not None:
            signal.signal(s, handler)
