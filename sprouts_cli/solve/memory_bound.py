"""The memory bound of a misère solver: what ``sprouts solve --memory`` says, and what the process holds.

A misère solver past its bound forgets what it can make again (``MisereSolver.forget``);
the bound is given in bytes or as a size (``512M``, ``4G``), is carried to every solver
(worker processes too) through ``$SPROUTS_MEMORY``, and is otherwise a share of the
machine's memory.
"""

from __future__ import annotations

import os

#: The share of the machine's memory one misère solver may use when no bound is given.
MEMORY_SHARE = 0.125
#: The environment variable that carries ``sprouts solve --memory`` to every solver (workers too).
MEMORY_ENV = "SPROUTS_MEMORY"


def parse_memory(text: str) -> int:
    """Bytes from ``4G``, ``512M``, ``1.5G``, ``800K`` or a plain number of bytes (ValueError if not)."""
    t = text.strip().upper().removesuffix("B")
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(t[-1:], 1)
    number = t[:-1] if scale > 1 else t
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"memory {text!r}: give bytes or a size such as 512M or 4G") from None
    if value <= 0:
        raise ValueError(f"memory {text!r}: must be more than 0")
    return int(value * scale)


def default_memory() -> int:
    """The memory bound of a solver: ``$SPROUTS_MEMORY`` if set, else a share of the machine's memory."""
    env = os.environ.get(MEMORY_ENV)
    if env:
        return parse_memory(env)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 8 * 2**30
    return int(total * MEMORY_SHARE)


def solver_memory(base: int) -> int:
    """The bound of a solver given none: ``$SPROUTS_MEMORY`` if set (the process's bound, as
    ``--memory`` gives it), else ``base`` (what the process held when the solver was made) plus
    the machine's share.  The share is for the search: a solver made in a process that already
    holds more than the share (the test suite's one process, a notebook) would otherwise be past
    its bound before it starts, and forget at every reading of its memory."""
    if os.environ.get(MEMORY_ENV):
        return default_memory()
    return base + default_memory()


def rss_bytes() -> int:
    """The memory this process holds now (resident set), in bytes."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


__all__ = ["MEMORY_ENV", "MEMORY_SHARE", "default_memory", "parse_memory", "rss_bytes", "solver_memory"]
