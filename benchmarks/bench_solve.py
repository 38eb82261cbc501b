"""The exact solver on the n-spot starts: normal play (outcome and nimber) and misère play.

Each row is one run of ``sprouts solve 0*n`` in a fresh process with a fresh, empty
table (a cold table: nothing known beforehand), then a second run on the table the
first one filled (warm).  Columns: n, outcome for the first player, nimber (normal
play), seconds (cold), positions proved, peak memory (the largest total resident
memory of the process and its workers, sampled every 0.1 s from /proc), seconds warm.

Goals on a 2-core machine: normal play n = 1..11 in under 60 s in all and n = 12 in
under 10 minutes; misère n = 1..9 in under 10 minutes in all; memory under 4 GB for
every run.

``python benchmarks/bench_solve.py --normal 11 --misere 7 --jobs 2`` changes the
defaults (normal to 12, misère to 9, all cores); ``--timeout`` bounds each run;
``--outcome-only`` runs normal play without ``--nimber``.  Measured figures, with their
dates and where the time goes, are in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOWN_MISERE = {1: 1, 2: 0, 3: 0, 4: 0, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: 1, 11: 1, 12: 1}  # OEIS A164950



def compile_package() -> None:
    """Write the bytecode of the checkout's ``sprouts_cli`` (its ``__pycache__`` folders), as
    installing a package does, before the runs: each run is a fresh process, and where
    ``PYTHONDONTWRITEBYTECODE`` is set (as in this project's sandboxes) Python would compile every
    module of the package from its source in every one of them (a good third of a small
    solve's CPU, docs/performance.md): a cost of that setting, which a package installed with
    its bytecode does not pay.  A module edited after this is compiled from source again, as it would be."""
    import compileall

    compileall.compile_dir(str(ROOT / "sprouts_cli"), quiet=1)

def tree_rss(pid: int) -> int:
    """Resident memory (bytes) of a process and all its descendants, from /proc."""
    total = 0
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    todo = [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            pass
    return total


class PeakMemory:
    """The largest resident memory (bytes) of a process and its descendants, sampled every
    0.1 s while the ``with`` block runs (``peak``)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self._done.wait(0.1)

    def __enter__(self) -> PeakMemory:
        self._sampler.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._sampler.join()


def run(args: list[str], timeout: float) -> tuple[dict | None, float, int, str]:
    """Run ``sprouts solve ARGS --json``: (its JSON or None, seconds, peak memory, error)."""
    cmd = [sys.executable, "-m", "sprouts_cli", "solve", *args, "--json"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    with PeakMemory(proc.pid) as memory:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.communicate()
            out = err = None
    seconds = time.perf_counter() - t
    if out is None or err is None:
        return None, seconds, memory.peak, "timeout"
    if proc.returncode != 0:
        return None, seconds, memory.peak, (err.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.splitlines()[-1]), seconds, memory.peak, ""


def row(
    n: int, misere: bool, jobs: int, timeout: float, nimber: bool = True
) -> tuple[list[str], float | None]:
    with tempfile.TemporaryDirectory(prefix="bench-solve-") as tmp:
        db = str(Path(tmp) / "table.sqlite")
        args = [f"0*{n}", "--db", db, "--jobs", str(jobs)]
        args += ["--misere"] if misere else (["--nimber"] if nimber else [])
        cold, seconds, peak, error = run(args, timeout)
        if cold is None:
            return [str(n), error, "-", f"{seconds:.1f}", "-", f"{peak / 2**20:.0f} MB", "-", "yes"], None
        warm, warm_seconds, _, _ = run(args, timeout)
    outcome = "win" if cold["outcome"] == "win" else "loss"
    expected = KNOWN_MISERE.get(n) if misere else int(n % 6 in (3, 4, 5))
    if expected is not None and (outcome == "win") != bool(expected):
        outcome += " (WRONG)"
    return [
        str(n),
        outcome,
        str(cold.get("nimber", "-")),
        f"{seconds:.1f}",
        f"{cold['positions_solved']:,}",
        f"{peak / 2**20:.0f} MB",
        f"{warm_seconds:.1f}" if warm is not None else "-",
        "yes",
    ], seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--normal", type=int, default=12, help="largest n in normal play (default 12)")
    ap.add_argument("--misere", type=int, default=9, help="largest n in misère play (default 9)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per run (default 1800)")
    ap.add_argument(
        "--outcome-only", action="store_true", help="normal play without --nimber (who wins, nothing more)"
    )
    a = ap.parse_args()
    compile_package()
    head = ["n", "outcome", "nimber", "seconds", "proved", "peak memory", "warm s", "cold table"]
    print(f"sprouts solve on the n-spot starts, --jobs {a.jobs}, {os.cpu_count()} cores")
    failed = False
    for rules, top in (("normal", a.normal), ("misere", a.misere)):
        if top < 1:
            continue
        print(f"\n{rules} play" + (" (outcome only)" if rules == "normal" and a.outcome_only else ""))
        print("  ".join(f"{h:>11}" for h in head))
        total = 0.0
        for n in range(1, top + 1):
            cells, seconds = row(n, rules == "misere", a.jobs, a.timeout, nimber=not a.outcome_only)
            print("  ".join(f"{c:>11}" for c in cells), flush=True)
            failed |= seconds is None or "WRONG" in cells[1]
            total += seconds or a.timeout
            if rules == "normal" and n == 11:
                print(f"{'':>11}  n = 1..11 in all: {total:.1f} s (goal: under 60 s)", flush=True)
        goal = "" if rules == "normal" else " (goal: n = 1..9 under 600 s in all)"
        print(f"{'':>11}  n = 1..{top} in all: {total:.1f} s{goal}")
    print("\ngoal for n = 12 in normal play: under 600 s; memory: under 4 GB for every run")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
