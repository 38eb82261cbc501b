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

Recorded 2026-12-02 at 05:18-06:00 UTC (issue 11, built kernels, kernels writing into the
caller's buffers and every land's reduction compiled; commit b0ab98d for the normal rows
and the one-process misère rows, run as two processes of this script side by side, one
core each, ``--jobs 1``; then ``--jobs 2`` alone).  That day's machine ran plain Python
about 1.5 times slower than the one of the rows further down (``bench_engine.py`` prints
a loop's time), so compare within a table:

    n  jobs  outcome   wall s   CPU s  peak MB   proved   x SPOTS (CPU, 1 thread)
    9    1   win          1.3     1.3       43      583   7.6x
   10    1   win          2.1     2.0       46    1,237   2.9x
   11    1   win          2.3     2.2       45    1,297   4.0x
   12    1   loss        21.8    20.9       85    8,430   2.0x (MB: 3.5x)
   13    1   loss        36.4    34.8      103   14,665   1.8x
   14    1   loss       233.5   223.4      288  130,865   2.4x
    9    2   win          1.8     2.8      117      884   -
   10    2   win          3.3     5.8      124    1,764   -
   11    2   win          3.3     5.8      124    2,037   -
   12    2   loss        20.7    39.9      177   11,016   6.1x (wall, against 2 threads)
   13    2   loss        38.3    74.1      225   18,516   -
   14    2   loss       185.0   359.3      484  139,454   -

    misère
    9    1   loss         7.9     7.6       83    3,248
   10    1   win         16.2    15.6      147    7,566
   11    1   win         31.2    30.3      191   11,893
   12    1   win        365.7   353.8      592   88,728
   10    2   win         28.4    54.6      364   11,981   (commit f7f75a9)
   11    2   win         71.5   138.4      491   14,129   (commit f7f75a9; 110.6 s wall before it)
    9    2   loss        12.5    23.4      211    3,478   (commit f7f75a9)
   12    2   win        534.1  1039.0     1202  100,953   (commit f7f75a9)

``--jobs 2`` does not pay on these starts: the normal rows take about twice the CPU for
the same wall time, and misère ones more (the workers share facts through a table, and
the misère search with a table costs ~30% more: ``0*10`` 19 -> 25 CPU s in one process).

Normal play, recorded 2026-12-01 at 09:20-09:45 UTC on main after the compiled move
listing and the numbered search tables of issue 11 (commit 8aa9bff and its parent
5cd3898), ``--normal 9-13`` by this script and ``0*14`` by ``/usr/bin/time -v``; the
2-core machine was shared (load average 10-50), so wall seconds mean little and the
ratio for one process is taken on CPU seconds.  Peak MB is the sum over the process and
its workers: every process that loads the kernels holds ~175-210 MB before it searches
(numba and LLVM; README "Memory"), so ``--jobs 2`` is three of them.

    n  jobs  outcome   CPU s  peak MB   proved   x SPOTS (CPU, 1 thread)   before (CPU s)
    9    1   win         1.2      187      583   7.3x                      1.3
    9    2   win         2.7      550      741   -                         2.3
   10    1   win         2.0      190    1,237   2.9x                      4.4
   10    2   win         4.0      570    1,422   -                         7.7
   11    1   win         1.9      197    1,297   3.5x                      4.8
   11    2   win         4.4      570    1,696   -                         8.6
   12    1   loss       14.0      241    8,430   1.3x (MB: 10x)            22.8 (297 MB)
   12    2   loss       22.3      630    8,248   -                         ~62
   13    1   loss       25.1      260   14,665   1.3x                      37.7 (322 MB)
   13    2   loss       45.4      681   15,058   -                         -
   14    1   loss      139.1      468  130,865   1.5x                      not run
   14    2   loss      213.6    393 *  133,381   -                         not run

(* ``0*14 --jobs 2``: the largest single process, from ``/usr/bin/time``.)  ``--jobs 2``
costs 1.5-2 times the CPU of one process: the root's children are split between the
workers, but in ``0*12`` one child (``0*11.AB|AB``) alone is 26 of the root's 27 CPU s
and shares most of its lands with the others, so both workers expand ~45,000 lands
where one process expands 48,000 (sharing facts every 0.25 s instead of 1 s costs more
in lookups: 28.4 CPU s against 22.3).  CPU seconds include the interpreter's start and
loading the kernels (~1 s), most of the small rows.  ``before`` is the same row measured
earlier on 2026-12-01, in CPU seconds: after the sum search (``0*12`` and ``0*13`` one
process after the compiled canonical core too, commit aaaa574; ``0*12 --jobs 2`` at
commit 09c9441).  Before issue 11 (commit 737f6a0): ``0*12`` 127 s and 400 MB.

The kernels (issue 11, ``engine/aot.py``): the rows above ran on numba's JIT kernels, so
each process held ~175-210 MB before it searched.  With the kernels built ahead of time
(``sprouts kernels --build``; the ``kernels`` column says ``aot``) no numba is loaded:
measured 2026-12-01 ~23:00 UTC by ``/usr/bin/time -v``, one process, load 8-15 (CPU s,
peak MB): ``0*12`` JIT 20.5 s / 233 MB, AOT 21.8 s / 98 MB, and 19.0 s / 87 MB once the
exact-land cache stopped keeping reduced forms' variants (commit "canonical: a reduced
form's variant ..."); misère ``0*10`` JIT 16.4 s / 293 MB, AOT 16.4 s / 158 MB; ``0*14``
JIT 271.1 s / 440 MB (with that change), AOT 297.5 s / 311 MB (without it, beside a
``make test``: its CPU seconds are not comparable); 130,865 positions proved on both.

``0*12`` one process after the whole-position canonical call and the compiled reduction
rules of one-region lands (branch i11forms, 2026-12-01 22:50 UTC, ``/usr/bin/time -v
sprouts solve 0*12 --no-db --jobs 1``, load average 12-14, the old and new code run one
after the other): 22.6 -> 18.7 CPU s, peak 263 -> 266 MB, the same answer (a loss).  At
that load the old code took 22.6 s where it took 14.0 s above, so the figures compare
only with each other.

The misère rows are in the 2026-12-02 table at the top.
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
