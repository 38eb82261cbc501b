"""``sprouts solve`` on one process, the local worker pool and Ray: seconds, jobs, facts, overhead.

For ``0*11`` and ``0*12`` (outcome only, cold table: a fresh temporary table each run),
in a fresh process per row:

* ``one process``: ``--jobs 1`` (no workers);
* ``--jobs 2``: the local pool (worker processes on pipes, facts shared through SQLite);
* ``ray, 1 CPU`` and ``ray, 2 CPUs``: ``--cluster ray`` on a local Ray started for the
  run (``--jobs 1``/``2``): the driver hands out jobs with a node budget to actors.

Columns (printed under the table too): wall and CPU seconds (CPU: every process of the
run, Ray's own included, read from ``/proc``), Ray's start-up, jobs handed out, facts
sent by the workers to the driver and passed on by the driver to the workers, the
jobs' own CPU seconds, the busiest worker's CPU seconds and search nodes (what the
wall time on idle cores follows), the mean round trip of a job beyond the worker's
time (messages and scheduling), and Ray's overhead in CPU seconds against the same
CPUs without it (1 CPU: one process; 2 CPUs: ``--jobs 2``).  A row that takes longer
than ``--timeout`` seconds is ended (with its Ray) and says so.  The Ray rows write
their job traces to ``benchmarks/traces/`` for ``sim_cluster.py``, which then runs.

``python benchmarks/bench_cluster.py --sizes 11`` runs fewer sizes; ``--modes`` fewer rows;
``--wide 8 64`` also records traces of the driver keeping 8 and 64 workers busy, the
workers run one after another in one process (``InlineRunner``), for the model of
more cores than this machine has (``sim_cluster.py``); ``--wide-budget`` gives them a
smaller first budget (a small position split as a larger one would be).
Measured figures are in ``docs/cluster.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRACES = HERE / "traces"
MODES = ["one", "jobs2", "ray1", "ray2"]
LABEL = {"one": "one process", "jobs2": "--jobs 2", "ray1": "ray, 1 CPU", "ray2": "ray, 2 CPUs"}


def tree_cpu() -> float:
    """CPU seconds of this process and every process under it (Ray's own processes, the actors).

    Read from ``/proc`` (Linux) while they still run; elsewhere this process and its
    waited-for children only.
    """
    import os
    import resource

    own = time.process_time()
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return own + sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        parent[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    me = os.getpid()
    total = 0.0
    for pid in cpu:
        p = pid
        while p in parent and p != me:
            p = parent[p]
        if p == me and pid != me:
            total += cpu[pid]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + total + children.ru_utime + children.ru_stime


def run_one(mode: str, n: int, trace: str | None, budget: int | None = None) -> dict:
    """One row, in this process: solve 0*n the way ``mode`` says and return the figures."""
    sys.path.insert(0, str(HERE.parent))
    from sprouts_cli.solve.session import Session
    from sprouts_cli.solve.store import Table

    text = f"0*{n}"
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        table = Table(Path(tmp) / "table.sqlite")
        t0 = time.perf_counter()
        start = start_cpu = 0.0
        backend = None
        if mode.startswith("inline"):  # W workers that run one after another here: a wide trace
            from sprouts_cli.solve.cluster import JOB_NODES, ClusterBackend, InlineRunner

            runner = InlineRunner(int(mode[6:]))
            backend = ClusterBackend(runner, budget=budget or JOB_NODES, record_trace=True, name="inline")
        elif mode.startswith("ray"):
            from sprouts_cli.solve.cluster import ClusterBackend, RayRunner

            runner = RayRunner(workers=int(mode[3:]))
            runner.pids()  # the actors are up
            start = time.perf_counter() - t0
            start_cpu = tree_cpu()
            backend = ClusterBackend(runner, record_trace=True)
        jobs = {"one": 1, "jobs2": 2}.get(mode, 1)
        session = Session(table, jobs=jobs, cluster=backend)
        try:
            win = session.outcome(text)
            cpu = tree_cpu()  # before Ray's processes end
            nodes = session.normal.stats["nodes"]
        finally:
            session.close()
            table.close()
        seconds = time.perf_counter() - t0
        if backend is None:
            cpu = tree_cpu()  # the pool's workers have ended: counted as children
    row = {
        "mode": mode,
        "n": n,
        "win": win,
        "seconds": round(seconds, 2),
        "start": round(start, 2),
        "cpu": round(cpu, 2),
        "start_cpu": round(start_cpu, 2),
        "busiest_nodes": nodes if mode == "one" else None,
    }
    if backend is not None:
        st = backend.stats
        trips = [e["done"] - e["sent"] - e["seconds"] for e in st.trace if "done" in e]
        per_worker: dict[int, float] = {}
        worker_nodes: dict[int, int] = {}
        for e in st.trace:
            per_worker[e["worker"]] = per_worker.get(e["worker"], 0.0) + e.get("cpu", 0.0)
            worker_nodes[e["worker"]] = worker_nodes.get(e["worker"], 0) + e.get("nodes", 0)
        row.update(
            jobs=st.jobs_out,
            facts_from_workers=st.facts_received,
            facts_to_workers=st.facts_sent,
            facts_merged=st.facts_merged,
            driver_seconds=round(st.driver_seconds, 2),
            worker_seconds=round(st.worker_seconds, 2),
            worker_cpu=round(st.worker_cpu, 2),
            busiest_cpu=round(max(per_worker.values(), default=0.0), 2),
            busiest_nodes=max(worker_nodes.values(), default=0),
            round_trip_ms=round(1000 * sum(trips) / len(trips), 1) if trips else None,
        )
        if trace is not None:
            meta = {
                "meta": {
                    **row,
                    "workers": backend.workers,
                    "inline": mode.startswith("inline"),
                    "budget": backend.search.budget,
                }
            }
            lines = [json.dumps(meta)] + [json.dumps({**e, "node": str(e["node"])}) for e in st.trace]
            Path(trace).write_text("\n".join(lines) + "\n")
    return row


def run_row(cmd: list[str], timeout: float) -> tuple[dict | None, str]:
    """Run one row in a fresh process (its own process group: a timeout ends Ray's processes too)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, f"timed out after {timeout:.0f} s"
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        last = err.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return None, f"failed: {last[0]}"
    return json.loads(lines[-1]), ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[11, 12])
    ap.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds a row may take (default 900)")
    ap.add_argument(
        "--wide",
        type=int,
        nargs="*",
        default=[],
        metavar="W",
        help="also record traces of the driver with W workers run in this process (for sim_cluster.py)",
    )
    ap.add_argument("--one", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    ap.add_argument(
        "--wide-budget",
        type=int,
        default=None,
        metavar="NODES",
        help="the first job budget of the --wide traces (default the solver's); a smaller one "
        "gives a small position the shape of a larger one",
    )
    ap.add_argument("--trace", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.trace, args.wide_budget)), flush=True)
        return 0
    try:
        import ray  # noqa: F401
    except ImportError:
        print('Ray is not installed (pip install "sprouts-cli[cluster]"): only the local rows run')
        args.modes = [m for m in args.modes if not m.startswith("ray")]
    TRACES.mkdir(exist_ok=True)
    header = (
        f"{'n':>3} {'run':<12} {'outcome':<7} {'wall s':>7} {'CPU s':>7} {'start':>11} {'jobs':>5} "
        f"{'facts out':>9} {'facts in':>8} {'job CPU':>8} {'busiest':>8} {'nodes':>8} {'trip ms':>7} "
        f"{'overhead':>9}"
    )
    print(header)
    print("-" * len(header), flush=True)
    for n in args.sizes:
        rows: dict[str, dict] = {}
        for mode in args.modes:
            cmd = [sys.executable, __file__, "--one", mode, str(n)]
            if mode.startswith("ray"):
                cmd += ["--trace", str(TRACES / f"cluster-0x{n}-{mode}.jsonl")]
            row, why = run_row(cmd, args.timeout)
            if row is None:
                print(f"{n:>3} {LABEL[mode]:<12} {why}", flush=True)
                continue
            rows[mode] = row
            base = rows.get({"ray1": "one", "ray2": "jobs2"}.get(mode, ""))
            overhead = f"{row['cpu'] - base['cpu']:+.1f} s" if base else "—"
            start = f"{row['start']:.1f}/{row['start_cpu']:.1f}" if mode.startswith("ray") else "—"
            nodes = f"{row['busiest_nodes'] / 1000:.1f}k" if row.get("busiest_nodes") else "—"
            print(
                f"{n:>3} {LABEL[mode]:<12} {'win' if row['win'] else 'loss':<7} {row['seconds']:>7.1f} "
                f"{row['cpu']:>7.1f} {start:>11} {row.get('jobs', '—'):>5} "
                f"{row.get('facts_from_workers', '—'):>9} {row.get('facts_to_workers', '—'):>8} "
                f"{row.get('worker_cpu', '—'):>8} {row.get('busiest_cpu', '—'):>8} {nodes:>8} "
                f"{row.get('round_trip_ms', '—') or '—':>7} {overhead:>9}",
                flush=True,
            )
    print(
        "\nwall s: the run's seconds (Ray's start-up included); CPU s: every process of the run;\n"
        "start: Ray's start-up, wall/CPU s; facts out: sent by the workers, in: passed on to them;\n"
        "job CPU: the jobs' own CPU s; busiest: the most CPU s one worker spent on jobs, nodes: its\n"
        "search nodes (one process: all its nodes), which the wall time on idle cores follows;\n"
        "overhead: CPU s beyond the same CPUs without Ray (1 CPU: one process; 2 CPUs: --jobs 2)",
        flush=True,
    )
    for n in args.sizes:
        for w in args.wide:
            path = TRACES / f"cluster-0x{n}-wide{w}.jsonl"
            cmd = [sys.executable, __file__, "--one", f"inline{w}", str(n), "--trace", str(path)]
            if args.wide_budget:
                cmd += ["--wide-budget", str(args.wide_budget)]
            row, why = run_row(cmd, args.timeout)
            done = why or "written"
            print(f"trace of 0*{n} with {w} workers in one process: {path.name} {done}", flush=True)
    ray_modes = [m for m in args.modes if m.startswith("ray")]
    traces = [TRACES / f"cluster-0x{n}-{m}.jsonl" for n in args.sizes for m in ray_modes]
    traces += [TRACES / f"cluster-0x{n}-wide{w}.jsonl" for n in args.sizes for w in args.wide]
    traces = [str(t) for t in traces if t.exists()]
    if traces:  # the model of more cores, from the traces just written
        subprocess.call([sys.executable, str(HERE / "sim_cluster.py"), *traces], timeout=args.timeout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
