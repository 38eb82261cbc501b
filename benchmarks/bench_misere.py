"""Misère play: the n-spot starts solved cold by ``sprouts solve --misere``, one process and ``--jobs 2``.

Each row is one run of the command line on a fresh SQLite table (cold), n = 9 … 12
by default, and 13 … 15 as well with ``--large`` (hours each; without it their rows
say they were not run). It shows the outcome (and whether it agrees with the published value:
Lemoine and Viennot, arXiv:0908.4407, and OEIS A164950), the CPU seconds of the
command and its workers (user + sys, from ``wait4``), wall seconds, peak memory (the
largest process), the trees stored (rows of the table's ``misere`` table: lands
whose trees were built) and the positions solved (the command's count). A run that
passes its budget is stopped and the larger n of that mode are skipped.

Goals (issue 28): ``0*12`` under 60 s on the 2-core machine; ``0*13``, ``0*14`` and
``0*15`` solved (first player loses all three) within a few hours; memory under 8 GB.

    python benchmarks/bench_misere.py                    # n = 9..12, jobs 1 and 2 (make bench)
    python benchmarks/bench_misere.py --large            # n = 9..15, a budget of hours a run
    python benchmarks/bench_misere.py 12 --first 12 --jobs 1
    python benchmarks/bench_misere.py 11 --first 9 --in-process [--trees full] [--profile | --sample]

``--in-process`` solves in this process instead (no table, one solver for all n in
turn), with ``--trees full`` for the reference store of full simplest forms,
``--profile`` for a cProfile summary on stderr, and ``--sample`` for where the CPU
seconds go: the Python stack is sampled every 5 ms of the process's CPU time
(``ITIMER_PROF``), so a machine loaded by other runs does not move the shares, as it
moves cProfile's (its clock is the wall's, and a loaded machine's waits pile up in
system calls); time in compiled code is counted at the Python line that called it.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import json
import os
import pstats
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sprouts_cli.engine.position import Position
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_trees import TreeStore
from sprouts_cli.solve.reduced_trees import ReducedTreeStore

#: Lemoine and Viennot (arXiv:0908.4407, figure 1), OEIS A164950: W = the first player wins.
PUBLISHED = "WLLLWWLLLWWWLLLWWWLL"


def run_cli(n: int, jobs: int, budget: float) -> dict:
    """One cold ``sprouts solve 0*n --misere`` on a fresh table: outcome, CPU, wall, peak, trees, solved."""
    with tempfile.TemporaryDirectory(prefix="bench-misere-") as tmp:
        db = Path(tmp) / "facts.sqlite"
        cmd = [sys.executable, "-m", "sprouts_cli", "solve", f"0*{n}", "--misere", "--json"]
        cmd += ["--db", str(db), "--jobs", str(jobs)]
        out = Path(tmp) / "out.json"
        t0 = time.perf_counter()
        with out.open("w") as fh:
            proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.DEVNULL, start_new_session=True)
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > budget:
                os.killpg(proc.pid, signal.SIGTERM)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        row = {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "peak_mb": usage.ru_maxrss / 1024}
        text = out.read_text().strip().splitlines()
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and text:
            obj = json.loads(text[-1])
            row["result"] = "W" if obj["outcome"] == "win" else "L"
            row["positions"] = obj.get("positions_solved", 0)
        else:
            row["result"] = "timeout" if wall > budget else "failed"
            row["positions"] = None
        try:
            with sqlite3.connect(db) as con:
                row["trees"] = con.execute("SELECT count(*) FROM misere").fetchone()[0]
        except sqlite3.Error:
            row["trees"] = None
    return row


def cli_table(first: int, last: int, jobs_list: list[int], budget: float, shown: int) -> int:
    """Rows for n = first … shown; those past ``last`` say they were not run."""
    table = Table(title=f"misère 0*n, cold, `sprouts solve --misere` (budget {budget:.0f} s wall a run)")
    for col in ("n", "jobs", "outcome", "published", "cpu s", "wall s", "peak MB", "trees", "positions"):
        table.add_column(col, justify="right")
    failed = False
    for jobs in jobs_list:
        stopped = False
        for n in range(first, max(last, shown) + 1):
            published = PUBLISHED[n - 1] if n <= len(PUBLISHED) else "?"
            if n > last:
                table.add_row(str(n), str(jobs), "not run (--large)", published, "", "", "", "", "")
                continue
            if stopped:
                table.add_row(str(n), str(jobs), "skipped", published, "", "", "", "", "")
                continue
            r = run_cli(n, jobs, budget)
            print(f"n={n} jobs={jobs}: {r['result']} {r['cpu']:.1f} s cpu", file=sys.stderr, flush=True)
            if r["result"] in "WL" and r["result"] != published:
                failed = True
            stopped = r["result"] not in ("W", "L")
            table.add_row(
                str(n),
                str(jobs),
                r["result"],
                published,
                f"{r['cpu']:.1f}",
                f"{r['wall']:.1f}",
                f"{r['peak_mb']:.0f}",
                "" if r["trees"] is None else f"{r['trees']:,}",
                "" if r["positions"] is None else f"{r['positions']:,}",
            )
    Console().print(table)
    return 1 if failed else 0


class CpuSampler:
    """Where the CPU seconds go: every 5 ms of the process's CPU time, the Python stack is read
    (``ITIMER_PROF``); a function's share is the share of samples it was on the stack for
    (inclusive) or at the top of (own)."""

    def __init__(self) -> None:
        self.own: collections.Counter[str] = collections.Counter()
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.samples = 0

    @staticmethod
    def _name(frame) -> str:  # type: ignore[no-untyped-def]
        code = frame.f_code
        return f"{code.co_filename.rsplit('sprouts_cli/', 1)[-1]}:{code.co_name}"

    def _take(self, _signum, frame) -> None:  # type: ignore[no-untyped-def]
        self.samples += 1
        self.own[self._name(frame)] += 1
        seen = set()
        while frame is not None:
            name = self._name(frame)
            if name not in seen:
                seen.add(name)
                self.inclusive[name] += 1
            frame = frame.f_back

    def enable(self) -> None:
        signal.signal(signal.SIGPROF, self._take)
        signal.setitimer(signal.ITIMER_PROF, 0.005, 0.005)

    def disable(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)

    def report(self, rows: int = 30) -> None:
        total = max(self.samples, 1)
        for title, counts in (("own", self.own), ("inclusive", self.inclusive)):
            print(f"--- CPU samples: {title} ({self.samples} samples of 5 ms)", file=sys.stderr)
            for name, n in counts.most_common(rows):
                print(f"{100 * n / total:5.1f}%  {name}", file=sys.stderr)


def in_process(first: int, last: int, trees: str, budget: float, profile: bool, sample: bool = False) -> int:
    solver = MisereSolver(store=ReducedTreeStore() if trees == "reduced" else TreeStore(), timed=True)
    table = Table(title=f"misère n-spot starts, cold, one solver in this process ({trees} trees)")
    for col in ("n", "outcome", "published", "cpu s", "positions", "trees", "peak MB", "engine %"):
        table.add_column(col, justify="right")
    prof: cProfile.Profile | CpuSampler | None = None
    if sample or profile:
        prof = CpuSampler() if sample else cProfile.Profile()
    deadline = time.monotonic() + budget
    failed = False
    for n in range(first, last + 1):
        cpu0, eng0 = time.process_time(), solver.timing["children"]
        if prof:
            prof.enable()
        try:
            result = "W" if solver.outcome(Position.start(n), deadline=deadline) else "L"
        except Exception as e:  # OutOfTime: the budget is spent
            result = type(e).__name__
        finally:
            if prof:
                prof.disable()
        cpu = time.process_time() - cpu0
        published = PUBLISHED[n - 1] if n <= len(PUBLISHED) else "?"
        failed |= result in "WL" and result != published
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        engine = 100 * (solver.timing["children"] - eng0) / max(cpu, 1e-9)
        table.add_row(
            str(n),
            result,
            published,
            f"{cpu:.2f}",
            f"{solver.positions_solved:,}",
            f"{len(solver.store):,}",
            f"{peak:.0f}",
            f"{engine:.0f}",
        )
        if result not in ("W", "L"):
            break
    Console().print(table)
    print(f"stats: {solver.stats}")
    if isinstance(prof, CpuSampler):
        prof.report()
    elif prof:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("last", nargs="?", type=int, help="largest n (default 12, or 15 with --large)")
    ap.add_argument("--large", action="store_true", help="n up to 15, a budget of 4 hours a run")
    ap.add_argument("--first", type=int, default=9, help="smallest n (default 9)")
    ap.add_argument("--jobs", type=int, action="append", help="jobs of a run (repeat; default 1 and 2)")
    ap.add_argument("--budget", type=float, help="wall seconds a run (default 900, 14400 with --large)")
    ap.add_argument("--in-process", action="store_true", help="solve here, one solver, no table")
    ap.add_argument("--trees", choices=("reduced", "full"), default="reduced", help="with --in-process")
    ap.add_argument("--profile", action="store_true", help="with --in-process: cProfile summary on stderr")
    ap.add_argument("--sample", action="store_true", help="with --in-process: CPU-time samples on stderr")
    args = ap.parse_args()
    last = args.last if args.last is not None else (15 if args.large else 12)
    budget = args.budget if args.budget is not None else (14400.0 if args.large else 900.0)
    if args.in_process:
        return in_process(args.first, last, args.trees, budget, args.profile, args.sample)
    return cli_table(args.first, last, args.jobs or [1, 2], budget, shown=15 if args.last is None else last)


if __name__ == "__main__":
    raise SystemExit(main())
