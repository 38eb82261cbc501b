"""Replay a recorded job trace of ``sprouts solve --cluster ray`` on more cores (a model).

A trace (``benchmarks/traces/*.jsonl``, written by ``bench_cluster.py``) lists every job
the driver handed out: when it was sent and came back, the worker's compute seconds,
and what made it a job: ``done:J`` (job J came back undecided and its node was
expanded), ``start:J`` (a free worker split job J's node while J ran), or nothing (a
root).  This script replays the same jobs on P workers:

* a job can start once what released it has happened (J done, or J started);
* the driver is one process: each job costs it ``d`` seconds (its measured seconds per
  job: expanding nodes, merging facts, choosing leaves), one job after another, plus
  the cost of passing the job's facts on to the workers the trace did not have: each
  fact goes to every other worker, ``--send-us`` microseconds a fact and worker
  (measured: ~1 µs to pickle one; merging one into the table, ~3 µs, is in ``d``);
* a job costs its worker its measured compute: the CPU seconds of the thread that ran
  it (``cpu``; wall seconds in older traces: on a loaded machine they are several times
  the compute), plus ``o``, the measured mean round trip beyond the worker's wall
  seconds (messages, Ray's scheduling, the facts it carries);
* jobs are handed out in the trace's order to the worker free first (list scheduling).

It prints, for P = 1, 2, 8, 64, 512: the modelled seconds and speed-up against the
same jobs on P = 1 (and, when a trace of one worker's run of the same position is
given too, against that run: the helpers' wasted work counts against this one), and
the bounds that limit it: the critical path (the longest chain of jobs each
released by the one before), the driver's serial time (jobs × d), and its load of
facts: the share of each second the driver needs to merge the facts P workers prove
and pass each on to the P − 1 others (``fact_load``; above 100% the driver, not the
workers, sets the pace).  The same jobs
are replayed: with more workers the real driver would split more (more, smaller
jobs, some of them wasted), which this model does not see; docs/cluster.md discusses
what follows.  ``python benchmarks/sim_cluster.py TRACE... [--cores 8 64 512]``.
"""

from __future__ import annotations

import argparse
import heapq
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def compute(job: dict) -> float:
    """A job's compute seconds: its CPU seconds where the trace has them."""
    return float(job.get("cpu", job["seconds"]))


def load(path: Path) -> tuple[dict, list[dict]]:
    meta: dict = {}
    jobs = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "meta" in row:
            meta = row["meta"]
        elif "done" in row:
            jobs.append(row)
    jobs.sort(key=lambda j: j["job"])
    return meta, jobs


def costs(meta: dict, jobs: list[dict], trip: float) -> tuple[float, float]:
    """(o, d): the mean round trip beyond compute per job, the driver's seconds per job.

    A trace recorded in one process (``inline``: the workers ran one after another)
    has no real round trips: ``trip`` (measured on Ray) is used instead.
    """
    trips = [max(0.0, j["done"] - j["sent"] - j["seconds"]) for j in jobs]
    o = sum(trips) / len(trips) if trips and not meta.get("inline") else trip
    d = meta.get("driver_seconds", 0.0) / max(1, len(jobs))
    return o, d


def replay(
    jobs: list[dict], workers: int, o: float, d: float, send: float = 0.0, recorded: int = 1
) -> tuple[float, float]:
    """(seconds, the driver's busy seconds) to run the trace's jobs on ``workers`` workers.

    ``send`` is the driver's seconds to pass one fact to one worker; the trace's
    ``recorded`` workers are paid for in ``d`` already.
    """
    start: dict[int, float] = {}
    finish: dict[int, float] = {}
    free = [0.0] * workers
    heapq.heapify(free)
    driver = busy = 0.0
    for j in jobs:
        after = j.get("after")
        ready = 0.0
        if after:
            kind, _, ref = after.partition(":")
            ref_id = int(ref)
            ready = (finish if kind == "done" else start).get(ref_id, 0.0)
        sent = max(ready, driver)
        cost = d + j.get("facts_out", 0) * max(0, workers - recorded) * send
        driver = sent + cost
        busy += cost
        begin = max(sent, heapq.heappop(free))
        end = begin + compute(j) + o
        heapq.heappush(free, end)
        start[j["job"]], finish[j["job"]] = begin, end
    return max(finish.values(), default=0.0), busy


def fact_load(workers: int, rate: float, merge_us: float, send_us: float) -> float:
    """The driver's share of a second spent on facts when ``workers`` all compute.

    Each worker proves ``rate`` facts a CPU second; the driver merges each into its
    table and passes it on to every other worker: the cost grows as workers squared.
    """
    return workers * rate * (merge_us + (workers - 1) * send_us) / 1e6


def critical_path(jobs: list[dict], o: float) -> float:
    """The longest chain of jobs, each released by the one before (no limit on workers)."""
    start: dict[int, float] = {}
    finish: dict[int, float] = {}
    for j in jobs:
        after = j.get("after")
        ready = 0.0
        if after:
            kind, _, ref = after.partition(":")
            ready = (finish if kind == "done" else start).get(int(ref), 0.0)
        start[j["job"]] = ready
        finish[j["job"]] = ready + compute(j) + o
    return max(finish.values(), default=0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="*", type=Path)
    ap.add_argument("--cores", type=int, nargs="+", default=[1, 2, 8, 64, 512])
    ap.add_argument(
        "--trip-ms", type=float, default=200.0, help="round trip for traces recorded in one process"
    )
    ap.add_argument(
        "--send-us", type=float, default=1.0, help="the driver's microseconds to send one fact to one worker"
    )
    ap.add_argument(
        "--merge-us", type=float, default=3.0, help="the driver's microseconds to merge a fact into its table"
    )
    args = ap.parse_args()
    traces = args.traces or sorted((HERE / "traces").glob("*.jsonl"))
    if not traces:
        print("no traces: run benchmarks/bench_cluster.py first")
        return 1
    loaded = [(path, *load(path)) for path in traces]
    # one worker's run of the same position: the time to beat (its jobs are one chain)
    single = {
        meta.get("n"): sum(compute(j) + costs(meta, jobs, args.trip_ms / 1000)[0] for j in jobs)
        for _, meta, jobs in loaded
        if meta.get("workers") == 1 and jobs
    }
    for path, meta, jobs in loaded:
        if not jobs:
            print(f"{path.name}: no jobs")
            continue
        o, d = costs(meta, jobs, args.trip_ms / 1000)
        work = sum(compute(j) + o for j in jobs)
        cp = critical_path(jobs, o)
        print(
            f"\n{path.name}: {len(jobs)} jobs, work {work:.1f} s, mean job {work / len(jobs):.2f} s, "
            f"round trip beyond compute o = {1000 * o:.1f} ms, driver d = {1000 * d:.1f} ms/job; "
            + (
                f"recorded with {meta.get('workers')} workers run one after another"
                if meta.get("inline")
                else f"measured on {meta.get('workers', '?')} workers: {meta.get('seconds', '?')} s"
            )
        )
        print(f"  critical path {cp:.1f} s, driver serial time {len(jobs) * d:.1f} s")
        cpu = sum(compute(j) for j in jobs)
        facts = meta.get("facts_from_workers") or sum(j.get("facts_out", 0) for j in jobs)
        rate = facts / cpu if cpu else 0.0
        print(
            f"  facts: {rate:.0f} a worker's CPU second; the driver merges each "
            f"({args.merge_us:g} µs) and sends it to every other worker ({args.send_us:g} µs each)"
        )
        send = args.send_us / 1e6
        recorded = int(meta.get("workers", 1))
        one, _ = replay(jobs, 1, o, d, send, recorded)
        base = single.get(meta.get("n"))
        against = f" {'vs 1 worker':>11}" if base else ""
        head = f"  {'cores':>6} {'seconds':>9} {'speed-up':>9} {'efficiency':>10} {'driver busy':>11}"
        print(head + f" {'fact load':>9}" + against)
        for p in args.cores:
            t, busy = replay(jobs, p, o, d, send, recorded)
            vs = f" {base / t:>11.2f}" if base else ""
            busy_facts = fact_load(p, rate, args.merge_us, args.send_us)
            row = f"  {p:>6} {t:>9.1f} {one / t:>9.2f} {one / t / p:>10.0%} {busy / t:>11.0%}"
            print(f"{row} {busy_facts:>9.0%}{vs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
