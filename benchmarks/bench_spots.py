"""Who wins the n-spot start in normal play, side by side with the C++ solver SPOTS.

For each ``0*n`` and each thread count, one run of ``sprouts solve 0*n --no-db --json
--jobs T`` (outcome only, cold: no table) in a fresh process, then, when ``SPOTS_SOLVE``
names a wrapper that runs SPOTS (``$SPOTS_SOLVE POS THREADS``, e.g. the
``spots_solve.sh`` that ``tools/build-spots.sh`` writes: ``--algorithm dfpn``, and
``pdfpn --threads T`` for more than one), one run of SPOTS on the same start, right
after ours: the two are measured in the same run, under the same load.  Without
``SPOTS_SOLVE`` no ratio is printed (a ratio against another machine's, or another
hour's, figures misleads on a shared machine).

Columns: wall and CPU seconds (of the process and its children, from ``getrusage``),
peak memory (the largest resident memory of the process tree, sampled every 0.1 s),
search nodes (ours: df-pn's node visits, ``nodes`` in the JSON; SPOTS: its df-pn
``Iterations``, the same count, and ``Nodes``, the entries of its tree at the end),
positions proved, the speed-up of more threads over one (our wall seconds with one
thread over those with more, when both ran), and the ratios: ours over SPOTS's CPU
seconds for one thread, wall seconds for more (the goals on the 2-core machine: at
most 0.5x on ``0*12`` to ``0*14``, both ways), and peak memory.  The load average before and
after each pair of runs is printed beside it: other engineers share the machine.

    python benchmarks/bench_spots.py                  # 0*10 .. 0*15, threads 1 and 2
    python benchmarks/bench_spots.py --quick          # 0*10 .. 0*12
    python benchmarks/bench_spots.py --normal 0 --lands 40   # the nimbers of 40 mid-size lands only
    python benchmarks/bench_spots.py --normal 0 --lands 40 --first-land 16   # the 16th to the 40th
    python benchmarks/bench_spots.py --normal 0 --land-timeout 300 --spots-land-timeout 60   # bounded
    SPOTS_SOLVE=/work/spots/spots_solve.sh python benchmarks/bench_spots.py --normal 12-14 --threads 1,2

Measured figures go to ``docs/performance.md`` with the date and load they were taken at.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import subprocess
import sys
import time

from bench_solve import ROOT, PeakMemory, compile_package, run


def sizes(text: str) -> list[int]:
    """``10-15`` or ``10,12`` or ``12`` (``0``: none)."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part or part == "0":
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def expected_win(n: int) -> bool:
    """The published outcomes of normal play: the first player wins when n mod 6 is 3, 4 or 5."""
    return n % 6 in (3, 4, 5)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_spots(wrapper: str, n: int, threads: int, timeout: float) -> dict[str, object]:
    """One SPOTS run: outcome, wall and CPU seconds, peak bytes, nodes (or an error)."""
    cpu0 = children_cpu()
    t = time.perf_counter()
    proc = subprocess.Popen(
        [wrapper, f"0*{n}", str(threads)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    with PeakMemory(proc.pid) as memory:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the wrapper and the solver it started
            proc.communicate()
            return {"error": "timeout", "wall": time.perf_counter() - t}
    peak = memory.peak
    wall = time.perf_counter() - t
    found = re.search(r"is (Win|Loss)", out)
    nodes = re.search(r"Nodes:\s*(\d+)", out)
    visits = re.search(r"Iterations:\s*(\d+)", out)
    if proc.returncode != 0 or found is None:
        return {"error": (out.strip().splitlines() or ["failed"])[-1], "wall": wall}
    return {
        "win": found.group(1) == "Win",
        "wall": wall,
        "cpu": children_cpu() - cpu0,
        "peak": peak,
        "nodes": int(nodes.group(1)) if nodes else None,
        "visits": int(visits.group(1)) if visits else None,
    }


def run_ours(n: int, threads: int, timeout: float) -> dict[str, object]:
    cpu0 = children_cpu()
    result, wall, peak, error = run([f"0*{n}", "--no-db", "--jobs", str(threads)], timeout)
    if result is None:
        return {"error": error, "wall": wall}
    return {
        "win": result["outcome"] == "win",
        "wall": wall,
        "cpu": children_cpu() - cpu0,
        "peak": peak,
        "nodes": result.get("nodes"),
        "proved": result["positions_solved"],
    }


def mid_size_lands(count: int, seed: int = 1) -> list[str]:
    """``count`` distinct lands of 24 to 36 lives, each the largest land after two to five
    random moves from ``0*10`` .. ``0*14`` (seeded: the same lands on every run)."""
    import random

    from sprouts_cli.engine.position import Position
    from sprouts_cli.engine.reduce import reduced_lands

    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        p = Position.start(rng.randint(10, 14))
        for _ in range(rng.randint(2, 5)):
            p = p.play(rng.choice(list(p.moves())))
        land = max(reduced_lands(p), key=lambda text: Position.from_string(text).total_lives, default="")
        if land and 24 <= Position.from_string(land).total_lives <= 36 and land not in out:
            out.append(land)
    return out


def group_cpu(group: int) -> float:
    """CPU seconds used so far by the live processes of a process group (Linux's ``/proc``)."""
    ticks = 0
    for stat in os.listdir("/proc"):
        if not stat.isdigit():
            continue
        try:
            with open(f"/proc/{stat}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp; then utime and stime are fields 14 and 15 of stat
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def run_spots_nimber(wrapper: str, land: str, timeout: float) -> dict[str, object]:
    """SPOTS's nimber of a land (``--compute_nimber``: it asks land + *k for k = 0, 1, ...
    until one is a loss) with its CPU seconds and df-pn visits, or an error.  Past ``timeout``
    seconds SPOTS is stopped (its whole process group) and the CPU seconds it had used are
    given as ``at_least``: a lower bound of its time on the land."""
    cpu0 = children_cpu()
    proc = subprocess.Popen(
        [wrapper, land, "1", "--compute_nimber"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        used = group_cpu(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"over {timeout:.0f} s", "at_least": used}
    loss = re.search(r"\+\*(\d+) is Loss", out)
    if proc.returncode != 0 or loss is None:
        return {"error": (out.strip().splitlines() or ["failed"])[-1]}
    visits = sum(int(v) for v in re.findall(r"Iterations:\s*(\d+)", out))
    return {"nimber": int(loss.group(1)), "cpu": children_cpu() - cpu0, "visits": visits}


def run_ours_nimber(land: str, timeout: float) -> dict[str, object]:
    cpu0 = children_cpu()
    result, _wall, _peak, error = run([land, "--nimber", "--no-db", "--jobs", "1"], timeout)
    if result is None:
        return {"error": error}
    return {"nimber": result["nimber"], "cpu": children_cpu() - cpu0, "nodes": result.get("nodes")}


def spots_cells(theirs: dict[str, object]) -> list[str]:
    """SPOTS's nimber, CPU seconds (">" and a lower bound when it was stopped) and visits."""
    cpu = fmt(theirs.get("cpu"), ".2f") if "at_least" not in theirs else f">{theirs['at_least']:.1f}"
    return [str(theirs.get("nimber", theirs.get("error")))[:12], cpu, fmt(theirs.get("visits"), ",")]


def lands_table(
    wrapper: str | None, count: int, timeout: float, spots_timeout: float, first: int = 1
) -> bool:
    """The nimbers of ``count`` mid-size lands, ours and SPOTS's, one process each (one thread),
    from the ``first`` (counted from 1: a long run stopped part way is taken up where it stopped).

    Some of these lands take both solvers many minutes.  SPOTS is stopped after
    ``spots_timeout`` seconds, and the CPU seconds it had used count in its total as a
    lower bound (the ratio is then an upper bound: "at most"); ours is stopped after
    ``timeout`` seconds, and such a land is left out of both totals (and said so), SPOTS
    still run on it: the lands where SPOTS finished and we did not are counted apart."""
    lands = mid_size_lands(count)[first - 1 :]
    print(
        f"\nnimbers of {len(lands)} mid-size lands (24-36 lives; {first} to {count} of {count}),"
        " one thread, a process each"
    )
    head = ["#", "land", "lives", "nimber", "CPU s", "nodes"]
    if wrapper:
        head += ["SPOTS nim", "SPOTS CPU", "SPOTS visits"]
    print("  ".join(f"{h:>12}" for h in head))
    from sprouts_cli.engine.position import Position

    ours_cpu = spots_cpu = 0.0
    stopped = left_out = 0
    lost: list[float] = []  # SPOTS's CPU seconds on the lands where ours was stopped and SPOTS was not
    ok = True
    for number, land in enumerate(lands, first):
        ours = run_ours_nimber(land, timeout)
        ours_stopped = ours.get("error") == "timeout"
        theirs = None
        if wrapper and ("error" not in ours or ours_stopped):
            theirs = run_spots_nimber(wrapper, land, spots_timeout)
        cells = [
            str(number),
            land if len(land) <= 12 else land[:11] + "~",
            str(Position.from_string(land).total_lives),
            str(ours.get("nimber", ours.get("error")))[:12],
            fmt(ours.get("cpu"), ".2f"),
            fmt(ours.get("nodes"), ","),
        ]
        if ours_stopped:
            left_out += 1
            if theirs is not None:
                cells += spots_cells(theirs)
                if "cpu" in theirs:
                    lost.append(float(theirs["cpu"]))  # type: ignore[arg-type]
            print("  ".join(f"{c:>12}" for c in cells), flush=True)
            continue
        ok = ok and "error" not in ours
        ours_cpu += float(ours.get("cpu", 0.0))  # type: ignore[arg-type]
        if theirs is not None:
            cells += spots_cells(theirs)
            spots_cpu += float(theirs.get("cpu", theirs.get("at_least", 0.0)))  # type: ignore[arg-type]
            stopped += "at_least" in theirs
            if "nimber" in theirs and "nimber" in ours and theirs["nimber"] != ours["nimber"]:
                cells[-1] += " (DIFFER)"
                ok = False
        print("  ".join(f"{c:>12}" for c in cells), flush=True)
    line = f"{len(lands) - left_out} lands: ours {ours_cpu:.1f} CPU s"
    if left_out:
        line = f"{left_out} left out (ours stopped after {timeout:.0f} s); " + line
    if wrapper:
        bound = "at most " if stopped else ""
        ratio = f", ratio {bound}{ours_cpu / spots_cpu:.2f}x" if spots_cpu else ""
        more = f" (at least: {stopped} stopped after {spots_timeout:.0f} s)" if stopped else ""
        line += f", SPOTS {spots_cpu:.1f} CPU s{more}{ratio}"
        if left_out:
            line += (
                f"; of the {left_out} left out, SPOTS finished {len(lost)}"
                + (f" (in {min(lost):.1f}-{max(lost):.1f} CPU s)" if lost else "")
                + f" and was stopped on {left_out - len(lost)}"
            )
    print(line)
    return ok


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def fmt(x: object, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--normal", default=None, help="sizes, e.g. 10-15 or 12 (default 10-15)")
    ap.add_argument("--quick", action="store_true", help="sizes 10-12")
    ap.add_argument("--threads", default="1,2", help="thread counts (sprouts --jobs, SPOTS --threads)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds allowed per run (default 3600)")
    ap.add_argument("--lands", type=int, default=40, help="mid-size lands whose nimbers to compare (0: none)")
    ap.add_argument(
        "--first-land", type=int, default=1, help="start at this land of the --lands (from 1; default 1)"
    )
    ap.add_argument(
        "--spots-land-timeout", type=float, default=120,
        help="seconds SPOTS may take on one land before it is stopped (default 120)",
    )
    ap.add_argument(
        "--land-timeout", type=float, default=600,
        help="seconds we may take on one land; a land past it is left out of both totals (default 600)",
    )
    a = ap.parse_args()
    compile_package()
    ns = sizes(a.normal or ("10-12" if a.quick else "10-15"))
    wrapper = os.environ.get("SPOTS_SOLVE")
    print(f"sprouts solve 0*n --no-db (outcome only), normal play, {os.cpu_count()} cores, at {ROOT}")
    spots = f"run side by side ({wrapper})" if wrapper else "not run (SPOTS_SOLVE is not set): no ratio"
    print("SPOTS: " + spots)
    head = ["n", "thr", "outcome", "wall s", "CPU s", "peak MB", "nodes", "proved", "speed-up"]
    if wrapper:
        head += ["SPOTS wall", "SPOTS CPU", "SPOTS MB", "SPOTS visits", "SPOTS tree", "x time", "x MB"]
    head += ["load"]
    print("  ".join(f"{h:>10}" for h in head))
    ok = True
    for n in ns:
        one_thread_wall: float | None = None
        for threads in sizes(a.threads):
            before = load()
            ours = run_ours(n, threads, a.timeout)
            theirs = run_spots(wrapper, n, threads, a.timeout) if wrapper else None
            if "error" in ours:
                outcome = str(ours["error"])
                ok = False
            else:
                outcome = "win" if ours["win"] else "loss"
                if ours["win"] != expected_win(n):
                    outcome += " (WRONG)"
                    ok = False
            peak = ours.get("peak")
            wall = ours.get("wall") if "error" not in ours else None
            if threads == 1:
                one_thread_wall = wall  # type: ignore[assignment]
            speedup = one_thread_wall / wall if threads > 1 and one_thread_wall and wall else None  # type: ignore[operator]
            cells = [
                str(n),
                str(threads),
                outcome,
                fmt(ours.get("wall"), ".1f"),
                fmt(ours.get("cpu"), ".1f"),
                fmt(None if peak is None else peak / 2**20, ".0f"),  # type: ignore[operator]
                fmt(ours.get("nodes"), ","),
                fmt(ours.get("proved"), ","),
                fmt(speedup, ".2f") + ("x" if speedup is not None else ""),
            ]
            if theirs is not None:
                if "error" in theirs:
                    cells += [str(theirs["error"])[:10], "-", "-", "-", "-", "-", "-"]
                else:
                    key = "cpu" if threads == 1 else "wall"
                    ratio = (
                        ours[key] / theirs[key]  # type: ignore[operator]
                        if key in ours and theirs[key]
                        else None
                    )
                    mb = ours["peak"] / theirs["peak"] if "peak" in ours and theirs["peak"] else None  # type: ignore[operator]
                    cells += [
                        fmt(theirs["wall"], ".1f"),
                        fmt(theirs["cpu"], ".1f"),
                        fmt(theirs["peak"] / 2**20, ".0f"),  # type: ignore[operator]
                        fmt(theirs["visits"], ","),
                        fmt(theirs["nodes"], ","),
                        fmt(ratio, ".2f") + ("x" if ratio is not None else ""),
                        fmt(mb, ".1f") + ("x" if mb is not None else ""),
                    ]
                    if theirs["win"] != expected_win(n):
                        cells[-1] += " (SPOTS WRONG)"
            cells.append(f"{before}-{load()}")
            print("  ".join(f"{c:>10}" for c in cells), flush=True)
    print("\nx time: ours over SPOTS's CPU seconds with 1 thread, wall seconds with more.")
    print("speed-up: our wall seconds with 1 thread over those with more (the same n).")
    if a.lands:
        ok = lands_table(wrapper, a.lands, a.land_timeout, a.spots_land_timeout, a.first_land) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
