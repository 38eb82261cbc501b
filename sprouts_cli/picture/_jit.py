"""numba for the numeric kernels, with a plain-Python way out.

Every kernel of the picture layer is decorated with :func:`kernel`.  With the
environment variable ``SPROUTS_PURE_PYTHON=1`` (or when numba is missing) the
decorator returns the function untouched, so the same code runs as plain Python;
the tests also call ``kernel.py_func`` directly to compare both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)

PURE_PYTHON = os.environ.get("SPROUTS_PURE_PYTHON", "") not in ("", "0")

try:  # pragma: no cover - numba is a dependency, this is only a guard
    import numba
except ImportError:  # pragma: no cover
    numba = None  # type: ignore[assignment]  # no numba: every kernel runs as plain Python
    PURE_PYTHON = True


def kernel(fn: F) -> F:
    """Compile ``fn`` with ``numba.njit(cache=True)`` unless plain Python is asked for."""
    if PURE_PYTHON or numba is None:
        fn.py_func = fn  # type: ignore[attr-defined]
        return fn
    return numba.njit(cache=True, nogil=True)(fn)  # type: ignore[return-value]
