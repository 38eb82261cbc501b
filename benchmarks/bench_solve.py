"""The exact solver on the n-spot starts: normal play (outcome and nimber) and misère play.

Each row is one run of ``sprouts solve 0*n`` in a fresh process with a fresh, empty
table (a cold table: nothing known beforehand), then a second run on the table the
first one filled (warm).  Columns: n, outcome for the first player, nimber (normal
play), seconds (cold), positions proved, peak memory (the largest total resident
memory of the process and its workers, sampled every 0.1 s from /proc), seconds warm.

Goals on a 2-core machine (issue 3): normal play n = 1..11 in under 60 s in all and
n = 12 in under 10 minutes; misère n = 1..9 in under 10 minutes in all; memory under
4 GB for every run.

``python benchmarks/bench_solve.py --normal 11 --misere 7 --jobs 2`` changes the
defaults (normal to 12, misère to 9, all cores); ``--timeout`` bounds each run;
``--outcome-only`` runs normal play without ``--nimber``.

Where the time goes (normal play; cProfile of one process, ``0*9 --nimber``):

* child generation is ~90% of it: the reduced canonical forms of children
  (``engine/reduce.py``, ``engine/canonical.py``) ~68%; listing the moves of a land
  (``children.symmetric_move_args``) ~12% and parsing the land's string ~10% (both paid
  once per land expanded: 9,072 lands, 41,500 child forms for 0*9);
* df-pn itself (node evaluation, transposition table) ~8%; SQLite table reads under
  2%, writes are batched and negligible;
* df-pn expands many lands it never proves (0*9 --nimber: 9,632 expanded, 1,800 with
  a fact proved): pricing fresh nodes higher (2 x lives, a children estimate with a
  prior) was measured and expands 10-50% *more*; the cheap breadth finds refutations.
* Workers: before, the root's children were shared out in size order.  A won root needs
  one lost child, and the workers spent their time proving children that turned out
  to be wins: ``0*10 + *0`` cost 31 s of CPU on two workers against 6.5 s in one df-pn.
  Now the first worker runs df-pn on the whole root and the others take its children
  from the other end (they meet once when every child is needed): 10 s of CPU.
* ``--nimber`` on a won start also proves ``0*n + *1`` a loss, every child a win with
  ``*1``; for ``0*11`` one child, ``0*9.1a1a + *1``, is most of it (120,000 facts, over
  90 s alone) unless the first phase happened to prove that child's nimber.
* The pool could hang (a buffered read hid a second message from ``select``): fixed.

Measured on 29 Nov 2026 (2 cores shared with other engineers' runs, so seconds are
noisy), cold table, ``--jobs 2``, wall seconds per run:

    n                      1    2    3    4    5    6    7    8    9   10     11  n=1..11
    outcome only, before  -    -    -    -  0.5  2.0  3.4  8.4 11.9 16.4   26.8   ~70
    outcome only, after  0.2  0.1  0.1  0.2  0.4  1.8  2.6  5.3  1.8  5.9    8.8   27.1
    --nimber, before     0*10: 70 s (52 s CPU); 0*11: 475 s (420 s CPU, one worker
                         busy 258 s on one child while the other idled)
    --nimber, after      0.1  0.1  0.2  0.2  0.5  1.7  2.5  5.1  5.9 12.1  142.0  170.5

(before: the code of commit 58e4d4b; its outcome-only row is the one measured that day
by the issue's owner.)  The ``--nimber`` row for ``0*11`` varies from run to run
(109 s to 245 s seen): it depends on whether the first phase proved the nimber of
``0*9.1a1a``.  ``0*12`` (a loss: its nimber costs nothing more): before 174 s,
after 93 s (97 s with start-up; 185 s of CPU on the two workers), peak memory 709 MB.
Peak memory of every run in the table above: under 650 MB.
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


def run(args: list[str], timeout: float) -> tuple[dict | None, float, int, str]:
    """Run ``sprouts solve ARGS --json``: (its JSON or None, seconds, peak memory, error)."""
    cmd = [sys.executable, "-m", "sprouts_cli", "solve", *args, "--json"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.communicate()
        done.set()
        return None, time.perf_counter() - t, peak, "timeout"
    finally:
        done.set()
        sampler.join()
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        return None, seconds, peak, (err.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.splitlines()[-1]), seconds, peak, ""


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
