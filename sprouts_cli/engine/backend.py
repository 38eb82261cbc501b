"""Which way the engine codes lands: the plain-Python reference, or the compiled kernels once they pay.

Loading numba and the kernels (``engine/kernels/``, in the form ``aot.py`` chooses) costs
about half a second, more than a small command spends in all; so the first
``COMPILE_AFTER`` lands of a process are coded in Python and the kernels are switched
on after them.  The algorithms (``canonical.py``, ``reduce.py``) read ``compiled``:
``engine.kernels`` once switched on, else None.  The codes of the two ways are of
different types (tuples, bytes), so a switch empties the caches that keep codes, and
codes compared with each other always come from one way.
"""

from __future__ import annotations

import os
from types import ModuleType

from .aot import kernel_path
from .caches import clear_code_caches

#: Lands coded in Python before the compiled kernels are switched on.
COMPILE_AFTER = 400
#: ``engine.kernels`` once switched on, else None.
compiled: ModuleType | None = None
_coded_in_python = 0


def _pure_python() -> bool:
    return os.environ.get("SPROUTS_PURE_PYTHON", "") not in ("", "0")


def use_compiled_kernels(enabled: bool | None) -> None:
    """Switch the compiled kernels on (True), off (False) or back to automatic (None).

    Automatic: on once ``COMPILE_AFTER`` lands were coded without them, never with
    ``SPROUTS_PURE_PYTHON=1`` (the kernels would then run as slow plain Python).
    """
    global compiled, _coded_in_python
    clear_code_caches()
    if enabled:
        from . import kernels

        compiled = kernels
        _coded_in_python = 0
    else:
        compiled = None
        _coded_in_python = -(1 << 62) if enabled is False else 0


def prepare_compiled_kernels() -> None:
    """Switch the kernels on and compile (or load) them now, unless plain Python is asked for.

    The solver's worker pool calls it before it starts its workers, and each worker
    before it listens for its parent's end: the first run after an install compiles
    once, in the main process, and the workers load the compiled code from numba's
    cache at start, not in the middle of a search.
    """
    if not _pure_python():
        use_compiled_kernels(True)
        assert compiled is not None
        compiled.warm_up()


def switch_on_when_due() -> None:
    """Count one land coded in Python; switch the kernels on when ``COMPILE_AFTER`` is reached.

    Called once per land before any of its codes is computed (never in the middle of
    comparing the codes of one land's variants).
    """
    global _coded_in_python
    if compiled is None:
        _coded_in_python += 1
        if _coded_in_python >= COMPILE_AFTER and not _pure_python():
            use_compiled_kernels(True)


def compiled_kernels() -> ModuleType | None:
    """The compiled kernels (``engine.kernels``) when switched on, else None."""
    return compiled


def kernels_in_use() -> str:
    """What coded this process's lands so far: ``off`` (plain Python: the kernels are switched
    on only after ``COMPILE_AFTER`` lands), else the kernels' path (``aot.kernel_path``)."""
    return "off" if compiled is None else kernel_path()


__all__ = [
    "COMPILE_AFTER",
    "compiled_kernels",
    "kernels_in_use",
    "prepare_compiled_kernels",
    "switch_on_when_due",
    "use_compiled_kernels",
]
