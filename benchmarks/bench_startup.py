"""Start-up time of the engine commands (the picture layer must not be imported).

Each command is run ``--runs`` times as a fresh process (``python -m sprouts_cli``);
the table gives the median and the best wall time, the median CPU time (user + system
of the process, which a loaded machine disturbs less than the wall clock), the median
peak resident memory, and which heavy libraries the command imported (none for the
engine commands: numba, scipy, networkx and matplotlib are for pictures).  The goal is 0.25 s for every engine
command: the command line imports a subcommand's module only when it runs
(``cli/__init__.py``).

``python benchmarks/bench_startup.py --runs 10`` changes the default of 7 runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_solve import compile_package

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "scipy", "networkx", "matplotlib")

COMMANDS = [
    ["bounds", "0*5"],
    ["canonical", "0*5"],
    ["children", "0*3"],
    ["solve", "0*4", "--no-db", "--jobs", "1"],
    ["--version"],
]

#: Runs the command in-process, then reports the heavy modules it imported on stderr.
PROBE = """
import sys
from sprouts_cli.cli import main
try:
    main({args!r})
except SystemExit:
    pass
print("HEAVY:" + ",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


def heavy_imports(args: list[str]) -> str:
    code = PROBE.format(args=args, heavy=HEAVY)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    line = [ln for ln in run.stderr.splitlines() if ln.startswith("HEAVY:")]
    return (line[-1][6:] if line else "?") or "none"


def run_times(args: list[str], runs: int) -> tuple[list[float], list[float], list[float]]:
    """The wall and CPU seconds and the peak resident memory (MB) of ``runs`` fresh processes
    running the command."""
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        command = [sys.executable, "-m", "sprouts_cli", *args]
        quiet = subprocess.DEVNULL
        proc = subprocess.Popen(command, stdout=quiet, stderr=quiet, cwd=ROOT)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # reaped here
        walls.append(time.perf_counter() - t)
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)  # KB on Linux
    return walls, cpus, peaks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per command (default 7)")
    opts = ap.parse_args()
    compile_package()
    head = f"{'command':<36} {'median s':>9} {'best s':>7} {'CPU s':>6} {'peak MB':>7}"
    print(head + "  heavy libraries imported")
    for args in COMMANDS:
        walls, cpus, peaks = run_times(args, opts.runs)
        label = "sprouts " + " ".join(args)
        print(
            f"{label:<36} {statistics.median(walls):9.3f} {min(walls):7.3f} {statistics.median(cpus):6.3f}"
            f" {statistics.median(peaks):7.1f}  {heavy_imports(args)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
