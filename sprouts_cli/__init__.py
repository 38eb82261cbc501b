"""sprouts: solve, analyse, lay out, render and play the game of Sprouts.

From Python (``sprouts_cli/api.py``)::

    from sprouts_cli import Position, solution, bounds, draw, load

The names are loaded on first use, so that ``import sprouts_cli`` stays light for
the command line and the worker processes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported: the script sets its signal handlers first (entry.py)

__version__ = "0.1.0"

# One thread for numpy's and scipy's OpenBLAS (read when they load, so set before either is imported),
# unless the user chose a number.  Drawing solves small systems (a curve's least-squares fit) where a
# second BLAS thread does nothing useful but spin, which costs most on a machine whose other core is
# busy (docs/performance.md).  The solver's threads are numba's, not BLAS's.
import os as _os  # noqa: E402  (after the version, before anything that may load numpy)

_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .api import Bounds, Position, SavedGame, Solution, bounds, draw, load, solution

_API = ("Bounds", "Position", "SavedGame", "Solution", "bounds", "draw", "load", "solution")


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Bounds", "Position", "SavedGame", "Solution", "__version__", "bounds", "draw", "load", "solution"]
