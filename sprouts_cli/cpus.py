"""How many worker processes ``--jobs`` starts when it is not given."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on, not the machine's count.

    A batch scheduler (Slurm, ``taskset``, a container's cpuset) limits a job to some
    of the machine's cores through the process's CPU affinity; ``os.cpu_count()``
    ignores it, so a job given 2 of 64 cores would start 64 workers.  Where the
    affinity cannot be read (macOS, Windows) the machine's count is used.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


__all__ = ["usable_cpus"]
