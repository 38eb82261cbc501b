"""numba for the package's numeric kernels, with a plain-Python way out.

One switch for every compiled kernel of the package (the engine's, the picture
layer's, Dots-and-Boxes'): with ``SPROUTS_PURE_PYTHON=1``, or when numba is missing,
kernels are left as plain Python, so the same source is the reference the tests
compare against; otherwise they are compiled by ``numba.njit(cache=True, nogil=True)``
(numba's cache keeps the compiled code beside the source, so a second run loads it).
Either way a kernel has ``.py_func``, its plain-Python source, as numba's kernels do.
The engine's kernels may also come from the ahead-of-time build (``engine/aot.py``),
which builds on this switch.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Plain Python asked for: ``SPROUTS_PURE_PYTHON`` set to anything but ``0``.
PURE_PYTHON = os.environ.get("SPROUTS_PURE_PYTHON", "") not in ("", "0")


def numba_present() -> bool:
    """Can numba be imported (it is a dependency; this is only a guard)?"""
    return importlib.util.find_spec("numba") is not None


def plain(fn: F) -> F:
    """``fn`` as it is, with ``.py_func`` naming it, as a compiled kernel has."""
    fn.py_func = fn  # type: ignore[attr-defined]
    return fn


def stamped_cache(fn: Callable[..., Any], stamp: str, prefix: str = "") -> Any:
    """numba's on-disk cache for ``fn``, fresh only while ``fn``'s own file *and* ``stamp`` are
    unchanged; its files are named with ``prefix`` first.

    numba takes a kernel from its cache while the kernel's own file is unchanged, but a
    compiled kernel holds the code of every kernel it calls: a kernel that calls into
    other files is given the stamp of all of them (a hash of their sources), so that a
    change to any recompiles it.  ``prefix`` keeps a second copy of the same source (a
    module loaded twice under another name) in files of its own.
    """
    from numba.core.caching import CompileResultCacheImpl, FunctionCache

    class _Locator:
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

        def get_source_stamp(self) -> Any:
            return (self._inner.get_source_stamp(), stamp)

    class _Impl(CompileResultCacheImpl):
        def __init__(self, py_func: Any) -> None:
            super().__init__(py_func)
            self._locator = _Locator(self._locator)

        def get_filename_base(self, fullname: str, abiflags: str) -> str:
            base = super().get_filename_base(fullname, abiflags)
            return prefix + str(base)

    class _StampedCache(FunctionCache):
        _impl_class = _Impl

    return _StampedCache(fn)


def kernel(fn: F, *, pure: bool = False, refcounts: bool = True, stamp: str | None = None) -> F:
    """``fn`` compiled by ``numba.njit(cache=True, nogil=True)``, or as plain Python when it
    is asked for (``SPROUTS_PURE_PYTHON``, ``pure``) or numba is missing.

    ``refcounts=False`` compiles it without numba's reference counts (its ``_nrt``
    option): for a hot kernel that allocates nothing and whose arrays outlive the call
    (numba refuses to compile an allocation there); each array it touches then costs no
    count calls.  ``stamp`` (a hash of the sources of the kernels it calls) keys its
    cache as well as its own file does (``stamped_cache``).
    """
    if pure or PURE_PYTHON or not numba_present():
        return plain(fn)
    import numba

    if refcounts:
        compiled = numba.njit(cache=True, nogil=True)(fn)
    else:
        compiled = numba.njit(cache=True, nogil=True, _nrt=False)(fn)  # type: ignore[call-overload]
    if stamp is not None:
        compiled._cache = stamped_cache(fn, stamp)  # type: ignore[attr-defined]  # where enable_caching puts it
    return compiled  # type: ignore[return-value]  # a Dispatcher, called as fn


__all__ = ["PURE_PYTHON", "kernel", "numba_present", "plain", "stamped_cache"]
