"""``sprouts solve`` on one process, the local worker pool and Ray: seconds, jobs, facts, overhead.

For ``0*11`` and ``0*12`` (outcome only, cold table: a fresh temporary table each run),
in a fresh process per row:

* ``one process``: ``--jobs 1`` (no workers);
* ``--jobs 2``: the local pool (worker processes on pipes, facts shared through SQLite);
* ``ray, 1 CPU`` and ``ray, 2 CPUs``: ``--cluster ray`` on a local Ray started for the
  run (``--jobs 1``/``2``): the driver hands out jobs with a node budget to actors.

Columns: wall seconds (Ray's start-up included; ``start`` is that part), jobs handed
out, facts sent by the workers to the driver and by the driver to the workers, the
driver's own seconds, the mean round trip of a job beyond the worker's compute time
(message and scheduling cost), and the overhead of Ray against the row without it
(1 CPU: against one process; 2 CPUs: against ``--jobs 2``).  The 2-CPU Ray runs
write their job trace to ``benchmarks/traces/`` for ``sim_cluster.py``.

``python benchmarks/bench_cluster.py --sizes 11`` runs fewer sizes; ``--modes`` fewer rows;
``--wide 8 64`` also records traces of the driver keeping 8 and 64 workers busy, the
workers run one after another in one process (``InlineRunner``), for the model of
more cores than this machine has (``sim_cluster.py``).
Measured figures are in ``docs/cluster.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRACES = HERE / "traces"
MODES = ["one", "jobs2", "ray1", "ray2"]
LABEL = {"one": "one process", "jobs2": "--jobs 2", "ray1": "ray, 1 CPU", "ray2": "ray, 2 CPUs"}


def run_one(mode: str, n: int, trace: str | None) -> dict:
    """One row, in this process: solve 0*n the way ``mode`` says and return the figures."""
    sys.path.insert(0, str(HERE.parent))
    from sprouts_cli.solve.session import Session
    from sprouts_cli.solve.store import Table

    text = f"0*{n}"
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        table = Table(Path(tmp) / "table.sqlite")
        t0 = time.perf_counter()
        start = 0.0
        backend = None
        if mode.startswith("inline"):  # W workers that run one after another here: a wide trace
            from sprouts_cli.solve.cluster import ClusterBackend, InlineRunner

            backend = ClusterBackend(InlineRunner(int(mode[6:])), record_trace=True, name="inline")
        elif mode.startswith("ray"):
            from sprouts_cli.solve.cluster import ClusterBackend, RayRunner

            runner = RayRunner(workers=int(mode[3:]))
            runner.pids()  # the actors are up
            start = time.perf_counter() - t0
            backend = ClusterBackend(runner, record_trace=trace is not None)
        jobs = {"one": 1, "jobs2": 2}.get(mode, 1)
        session = Session(table, jobs=jobs, cluster=backend)
        try:
            win = session.outcome(text)
        finally:
            session.close()
            table.close()
        seconds = time.perf_counter() - t0
    row = {"mode": mode, "n": n, "win": win, "seconds": round(seconds, 2), "start": round(start, 2)}
    if backend is not None:
        st = backend.stats
        trips = [e["done"] - e["sent"] - e["seconds"] for e in st.trace if "done" in e]
        row.update(
            jobs=st.jobs_out,
            facts_from_workers=st.facts_received,
            facts_to_workers=st.facts_sent,
            facts_merged=st.facts_merged,
            driver_seconds=round(st.driver_seconds, 2),
            worker_seconds=round(st.worker_seconds, 2),
            round_trip_ms=round(1000 * sum(trips) / len(trips), 1) if trips else None,
        )
        if trace is not None:
            meta = {"meta": {**row, "workers": backend.workers, "inline": mode.startswith("inline")}}
            lines = [json.dumps(meta)] + [json.dumps({**e, "node": str(e["node"])}) for e in st.trace]
            Path(trace).write_text("\n".join(lines) + "\n")
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[11, 12])
    ap.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    ap.add_argument(
        "--wide",
        type=int,
        nargs="*",
        default=[],
        metavar="W",
        help="also record traces of the driver with W workers run in this process (for sim_cluster.py)",
    )
    ap.add_argument("--one", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--trace", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.trace)), flush=True)
        return 0
    try:
        import ray  # noqa: F401
    except ImportError:
        print('Ray is not installed (pip install "sprouts-cli[cluster]"): only the local rows run')
        args.modes = [m for m in args.modes if not m.startswith("ray")]
    TRACES.mkdir(exist_ok=True)
    header = (
        f"{'n':>3} {'run':<12} {'outcome':<7} {'seconds':>8} {'start':>6} {'jobs':>6} "
        f"{'facts out':>10} {'facts in':>9} {'driver s':>8} {'trip ms':>8} {'overhead':>9}"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        rows: dict[str, dict] = {}
        for mode in args.modes:
            cmd = [sys.executable, __file__, "--one", mode, str(n)]
            if mode == "ray2":
                cmd += ["--trace", str(TRACES / f"cluster-0x{n}-ray2.jsonl")]
            done = subprocess.run(cmd, capture_output=True, text=True)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode != 0 or not lines:
                print(f"{n:>3} {LABEL[mode]:<12} failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            row = rows[mode] = json.loads(lines[-1])
            base = rows.get({"ray1": "one", "ray2": "jobs2"}.get(mode, ""))
            overhead = f"{row['seconds'] / base['seconds'] - 1:+.0%}" if base else "—"
            print(
                f"{n:>3} {LABEL[mode]:<12} {'win' if row['win'] else 'loss':<7} {row['seconds']:>8.1f} "
                f"{row['start']:>6.1f} {row.get('jobs', '—'):>6} {row.get('facts_from_workers', '—'):>10} "
                f"{row.get('facts_to_workers', '—'):>9} {row.get('driver_seconds', '—'):>8} "
                f"{row.get('round_trip_ms', '—') or '—':>8} {overhead:>9}",
                flush=True,
            )
    for n in args.sizes:
        for w in args.wide:
            path = TRACES / f"cluster-0x{n}-wide{w}.jsonl"
            cmd = [sys.executable, __file__, "--one", f"inline{w}", str(n), "--trace", str(path)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            print(f"trace of 0*{n} with {w} workers in one process: {path.name} (exit {done.returncode})")
    traces = [TRACES / f"cluster-0x{n}-ray2.jsonl" for n in args.sizes if "ray2" in args.modes]
    traces += [TRACES / f"cluster-0x{n}-wide{w}.jsonl" for n in args.sizes for w in args.wide]
    traces = [str(t) for t in traces if t.exists()]
    if traces:  # the model of more cores, from the traces just written
        subprocess.call([sys.executable, str(HERE / "sim_cluster.py"), *traces])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
