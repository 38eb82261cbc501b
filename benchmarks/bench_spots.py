"""Who wins the n-spot start, against the C++ solver SPOTS: seconds, peak memory, ratio.

Each cell is one run of ``sprouts solve 0*n --no-db --json`` (outcome only, cold: no
table) in a fresh process, with ``--jobs 1`` (one process) and ``--jobs 2``; the last
column is the kernels it ran on, as the run reports them (``aot``: the ahead-of-time
build, no numba in the process; ``jit``: numba's; ``sprouts kernels``); peak
memory is the largest total resident memory of the process and its workers, sampled
every 0.1 s; CPU seconds are those of the process and its workers (steadier than
wall seconds on a shared machine).  The ratio is our seconds over SPOTS's recorded
seconds for the same number of threads (``SPOTS_SECONDS``): CPU seconds for one
process (SPOTS on one thread used one core throughout, so its seconds were CPU
seconds, and ours stay comparable when the machine is busy), wall seconds for
``--jobs 2``; and our peak memory over SPOTS's where it was recorded.

The SPOTS figures are references recorded once on the project's 2-core machine
(SPOTS by T. Čížek, ``cizektom/spots``: C++ df-pn with a nimber database, outcome
only, cold, measured side by side with sprouts; issue 11 of this project): they are
not re-measured here.  Goals of issue 11 (2 cores): ``0*12`` normal play in one
process in at most 31 s (3x SPOTS) and 100 MB; ``0*13`` and ``0*14`` solved; misère
``0*12`` in under 10 minutes.

    python benchmarks/bench_spots.py                       # the whole table: normal 9-14, misère 9-12
    python benchmarks/bench_spots.py --quick               # normal 9-12, misère 9-10 (a few minutes)
    python benchmarks/bench_spots.py --normal 12 --misere 0 --jobs 1

The whole table, which ``make bench`` prints, takes about an hour on the 2-core
machine (``0*14`` and misère ``0*12``, each with ``--jobs 1`` and ``2``, are most of
it).  The machine is shared, so wall seconds are noisy: compare runs made under the
same load.

The tables this script printed, with their dates and the commits they ran on, are in
``docs/performance.md`` ("The n-spot starts against SPOTS, as bench_spots printed them").
"""

from __future__ import annotations

import argparse
import os
import resource
import sys

from bench_solve import KNOWN_MISERE, run

#: SPOTS, outcome only, cold, on the 2-core machine: (n, threads) -> seconds.
SPOTS_SECONDS: dict[tuple[int, int], float] = {
    (9, 1): 0.17,
    (10, 1): 0.68,
    (11, 1): 0.55,
    (12, 1): 10.4,
    (12, 2): 3.4,
    (13, 1): 19.0,
    (14, 1): 95.0,
}
#: SPOTS's peak memory (MB) where it was recorded.
SPOTS_MB: dict[tuple[int, int], float] = {(12, 1): 24.0}
#: sprouts before issue 11 (commit 737f6a0), recorded beside SPOTS: (n, jobs) -> seconds, MB.
BEFORE: dict[tuple[int, int], tuple[float, float | None]] = {
    (9, 1): (1.31, None),
    (10, 1): (4.9, None),
    (11, 1): (6.6, None),
    (12, 1): (127.0, 400.0),
}


def sizes(text: str) -> list[int]:
    """``9-12`` or ``9,11`` or ``12`` (``0``: none)."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part or part == "0":
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def expected_win(n: int, misere: bool) -> bool | None:
    """Published outcomes: normal play wins for n mod 6 in 3, 4, 5; misère from OEIS A164950."""
    if misere:
        known = KNOWN_MISERE.get(n)
        return None if known is None else bool(known)
    return n % 6 in (3, 4, 5)


def cell(n: int, misere: bool, jobs: int, timeout: float) -> tuple[list[str], bool]:
    args = [f"0*{n}", "--no-db", "--jobs", str(jobs)] + (["--misere"] if misere else [])
    before_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    result, seconds, peak, error = run(args, timeout)
    after_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after_cpu.ru_utime + after_cpu.ru_stime - before_cpu.ru_utime - before_cpu.ru_stime
    mb = peak / 2**20
    if result is None:
        shown = f">{seconds:.0f}" if error == "timeout" else "-"
        return [str(n), str(jobs), error, shown, f"{cpu:.1f}", f"{mb:.0f}", "-", "-", "-", "-", "-"], False
    win = result["outcome"] == "win"
    want = expected_win(n, misere)
    outcome = ("win" if win else "loss") + (" (WRONG)" if want is not None and want != win else "")
    ref = None if misere else SPOTS_SECONDS.get((n, jobs))
    ref_mb = None if misere else SPOTS_MB.get((n, jobs))
    before = None if misere else BEFORE.get((n, jobs))
    return [
        str(n),
        str(jobs),
        outcome,
        f"{seconds:.1f}",
        f"{cpu:.1f}",
        f"{mb:.0f}",
        f"{result['positions_solved']:,}",
        f"{(cpu if jobs == 1 else seconds) / ref:.1f}x" if ref else "-",
        f"{mb / ref_mb:.1f}x" if ref_mb else "-",
    ] + ([f"{before[0]:.1f}"] if before else ["-"]) + [result.get("kernels", "-")], "WRONG" not in outcome


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--normal", default=None, help="sizes in normal play, e.g. 9-14 or 12 (0: none; default 9-14)"
    )
    ap.add_argument(
        "--misere", default=None, help="sizes in misère play, e.g. 9-12 (0: none; default 9-12)"
    )
    ap.add_argument("--quick", action="store_true", help="default sizes normal 9-12 and misère 9-10")
    ap.add_argument("--jobs", default="1,2", help="--jobs values to run (default 1,2)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per run (default 1800)")
    a = ap.parse_args()
    a.normal = a.normal or ("9-12" if a.quick else "9-14")
    a.misere = a.misere or ("9-10" if a.quick else "9-12")
    jobs = sizes(a.jobs)
    head = [
        "n",
        "jobs",
        "outcome",
        "seconds",
        "CPU s",
        "peak MB",
        "proved",
        "x SPOTS s",
        "x SPOTS MB",
        "before s",
        "kernels",
    ]
    print(f"sprouts solve 0*n --no-db (outcome only), {os.cpu_count()} cores, against SPOTS (recorded)")
    ok = True
    for rules, ns in (("normal", sizes(a.normal)), ("misère", sizes(a.misere))):
        if not ns:
            continue
        print(f"\n{rules} play")
        print("  ".join(f"{h:>10}" for h in head))
        for n in ns:
            for j in jobs:
                cells, good = cell(n, rules == "misère", j, a.timeout)
                print("  ".join(f"{c:>10}" for c in cells), flush=True)
                ok &= good
    print(
        "\nSPOTS (1 thread): 0*9 0.17 s, 0*10 0.68 s, 0*11 0.55 s, 0*12 10.4 s / 24 MB, 0*13 19 s, 0*14 95 s;"
        " 2 threads: 0*12 3.4 s.  Goals: 0*12 one process <= 31 s and 100 MB; misère 0*12 < 600 s."
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
