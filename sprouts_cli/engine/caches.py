"""Bounded caches for the canonical forms, and one switch that empties them all.

A ``BoundedCache`` is an ``OrderedDict`` that forgets its oldest entries once it
holds more than ``size``: callers that want least-recently-used order mark a hit
with ``move_to_end`` (the land caches); the small pattern caches, hit far more
often than they grow, skip that and forget in order of arrival.  Lookups are the
dict's own ``get``, so a hit costs no Python call.  Every cache registers itself,
and ``clear_caches`` empties all that are in use (benchmarks time the work itself this way);
``clear_code_caches`` empties those that keep codes, which differ in type between the
plain-Python and the compiled path (``backend.use_compiled_kernels``).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_ALL: list[weakref.ref[BoundedCache[Any, Any]]] = []


class BoundedCache(OrderedDict[K, V]):
    """A dict of at most ``size`` entries; ``remember`` adds one and forgets the oldest."""

    def __init__(self, size: int, holds_codes: bool = False) -> None:
        super().__init__()
        self.size = size
        self.holds_codes = holds_codes
        _ALL.append(weakref.ref(self))

    def remember(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` (forgetting the oldest entry past ``size``) and return it."""
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)
        return value


def clear_caches(codes_only: bool = False) -> None:
    """Empty every ``BoundedCache`` still in use (only those made ``holds_codes``, if asked)."""
    alive = [ref for ref in _ALL if ref() is not None]
    _ALL[:] = alive
    for ref in alive:
        cache = ref()
        if cache is not None and (cache.holds_codes or not codes_only):
            cache.clear()


def clear_code_caches() -> None:
    """Empty the caches that keep codes of lands (``BoundedCache(..., holds_codes=True)``)."""
    clear_caches(codes_only=True)
