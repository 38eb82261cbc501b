"""Compiled or plain: the kernels' decorator, and array views numba does not reference-count.

Plain Python with ``SPROUTS_PURE_PYTHON=1``, without numba, or in the copy of the
package that ``solver.pure_kernels()`` loads (its package module has ``FORCE_PURE``
set before its code runs).

numba's cache (``cache=True``) keeps a compiled kernel while its own file is
unchanged, and a kernel holds the code of the kernels it calls, which live in the
other modules here; so every kernel's cache is keyed by the stamp of the whole
package too (``package_stamp``, through ``jit.stamped_cache``), and a change to any
module compiles them all again.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ... import jit as _jit

_PURE = _jit.PURE_PYTHON or bool(getattr(sys.modules.get(__package__ or ""), "FORCE_PURE", False))

try:  # pragma: no cover - numba is a dependency; this is only a guard
    import numba
except ImportError:  # pragma: no cover
    numba = None  # type: ignore[assignment]  # no numba: every kernel runs as plain Python
    _PURE = True


def package_stamp():
    """The name, modification time and size of every module of this package."""
    here = Path(__file__).parent
    return tuple(sorted((p.name, p.stat().st_mtime, p.stat().st_size) for p in here.glob("*.py")))


#: The key every kernel's cache has beside its own file.
STAMP = repr(package_stamp())


def _stamped(dispatcher):
    """A kernel compiled here by numba directly, its cache keyed by the package's stamp too."""
    dispatcher._cache = _jit.stamped_cache(dispatcher.py_func, STAMP)
    return dispatcher


def kernel(fn):
    """The package's kernel decorator (``sprouts_cli/jit.py``), plain Python in the pure copy."""
    return _jit.kernel(fn, pure=_PURE or numba is None, stamp=STAMP)


def uncounted_kernel(fn):
    """``kernel`` without numba's reference counts (``jit.kernel(refcounts=False)``)."""
    return _jit.kernel(fn, pure=_PURE or numba is None, refcounts=False, stamp=STAMP)


if _PURE or numba is None:

    def unowned(array):
        """The array itself (plain Python has no reference counts to save)."""
        return array

else:
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def _int64_pointer(typingctx, address):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return types.CPointer(types.int64)(address), codegen

    @_stamped
    @numba.njit(cache=True, nogil=True)
    def unowned(array):
        """A view of an int64 array that numba does not reference-count.

        Every array handed to a compiled function, and every view of it, carries a
        count that numba raises and lowers atomically around calls; in the recursive
        search these counts were half the time of a node.  A view made from the bare
        address has none (its owner, the caller's array, stays alive for the call).
        """
        return numba.carray(_int64_pointer(array.ctypes.data), array.shape)
