"""How much memory a process may still take: what sizes a default table to the machine."""

from __future__ import annotations

import os
from pathlib import Path

#: The free memory assumed where none can be read (neither ``/proc/meminfo`` nor ``sysconf``).
UNKNOWN_FREE = 2 * 2**30


def free_memory() -> int:
    """Bytes this process may still take: the machine's available memory, bounded by its
    control group's limit when there is one (a container's or a batch job's).

    The available memory is Linux's ``MemAvailable`` (free pages and the cache that can
    be given back), else ``sysconf``'s free pages, else ``UNKNOWN_FREE``.
    """
    free = _available() or UNKNOWN_FREE
    room = _cgroup_room()
    return min(free, room) if room is not None else free


def _available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


#: Where the control groups' files are (cgroup v2 at the top, v1 under ``memory/``).
CGROUP_ROOT = Path("/sys/fs/cgroup")


def _cgroup_room(root: Path = CGROUP_ROOT) -> int | None:
    """The control group's limit less what it uses (cgroup v2, then v1), or None: no limit."""
    for limit_file, usage_file in (
        ("memory.max", "memory.current"),
        ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"),
    ):
        try:
            limit = (root / limit_file).read_text(encoding="ascii").strip()
            if limit == "max":
                return None
            cap = int(limit)
            used = int((root / usage_file).read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            continue
        if cap >= 2**60:  # v1 writes "no limit" as a huge number
            return None
        return max(0, cap - used)
    return None


__all__ = ["UNKNOWN_FREE", "free_memory"]
