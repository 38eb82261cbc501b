"""Picture quality: random games drawn move by move, beside their last position drawn fresh.

Each game starts from a Z layout of n lone spots in a 1000×700 area and is played
by the Random player's rule; every move is drawn into the previous picture by the
router and its ladder (``room.draw``), as ``play --save`` and ``replay`` draw it.
The last position is also drawn afresh (Z and its polish, ``layout_position``).
For both pictures the table gives, as the median over the games of a size:

* room: the least room of any region (the radius of the largest disc inside
  it, clear of curves, spots and the window), in units of the clearance d0;
* length and turning: total curve length (px) and total turning (the sum of
  ``|curvature| ds`` over all curves, radians);
* infl: inflections per curve; label: the largest spot-to-label distance (px);

and for the move-by-move drawing the CPU seconds per move (median, p95, max over
all moves of the size).  ``thin`` counts the games whose move-by-move picture has
a region with room below d0 while the fresh drawing has more.  Goals (issue 25):
thin 0, length and turning within 1.5× of the fresh drawing's, p95 under 2 CPU s
at 20 spots and under 4 at 30.

A game that has used more than ``--game-seconds`` CPU seconds stops after the
move that passed it (its moves so far count; ``cut``); its last position is then
the one drawn fresh.

    python benchmarks/bench_picture_quality.py                     # 10, 20, 30 spots, seeds 1-10
    python benchmarks/bench_picture_quality.py --sizes 10 --seeds 3
    python benchmarks/bench_picture_quality.py --save rows.json    # every game's row kept
    python benchmarks/bench_picture_quality.py --join a.json b.json
    python benchmarks/bench_picture_quality.py --sizes 20 --verbose   # and the slowest moves, by rung
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import random_move
from sprouts_cli.errors import NoRoom, PictureError
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.layout import layout_position
from sprouts_cli.picture.model import MIN_CLEARANCE
from sprouts_cli.picture.quality import quality
from sprouts_cli.picture.room import draw

WIDTH, HEIGHT = 1000, 700
MEASURES = ("room", "length", "turning", "infl", "label")


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measures(pic) -> dict[str, float]:
    q = quality(pic)
    return {
        "room": q.least_room / MIN_CLEARANCE,
        "length": q.length,
        "turning": q.turning,
        "infl": q.inflections,
        "label": q.label_distance,
    }


def play(spots: int, seed: int, limit: float, jobs: int) -> dict:
    """One random game drawn move by move: its measures, its last position's drawn fresh, CPU s a move."""
    rng = random.Random(seed)
    pic = layout_position(Position.start(spots), WIDTH, HEIGHT, jobs=jobs)
    a = analyse_picture(pic)
    cpu: list[float] = []
    rungs: list[str] = []
    spent: list[dict[str, float]] = []
    work: list[dict[str, int]] = []
    notes: list[list[str]] = []
    drawn_by: dict[str, int] = {}
    cpu0 = cpu_seconds()
    cut = refused = False
    while True:
        m = random_move(a.position, rng)
        if m is None:
            break
        if cpu_seconds() - cpu0 > limit:
            cut = True
            break
        c0 = cpu_seconds()
        try:
            r = draw(pic, m, analysis=a, layout_jobs=jobs)
        except NoRoom:
            refused = True
            break
        cpu.append(cpu_seconds() - c0)
        rungs.append(r.drawn_by)
        spent.append({k: round(v, 3) for k, v in r.rung_seconds.items()})
        work.append(dict(r.rung_work))
        notes.append(list(r.notes))
        drawn_by[r.drawn_by] = drawn_by.get(r.drawn_by, 0) + 1
        pic, a = r.picture, r.analysis
    row: dict = {"spots": spots, "seed": seed, "moves": len(cpu), "cpu": cpu, "cut": cut, "refused": refused}
    row["drawn_by"] = drawn_by
    row["rungs"] = rungs
    row["rung_seconds"] = spent
    row["rung_work"] = work
    row["notes"] = notes
    row["move_by_move"] = measures(pic)
    try:
        fresh = layout_position(a.position, WIDTH, HEIGHT, jobs=jobs)
        row["fresh"] = measures(fresh)
    except PictureError as e:
        row["fresh"] = None
        row["fresh_error"] = str(e)
    return row


def p95(xs: list[float]) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    return s[min(len(s) - 1, math.ceil(0.95 * len(s)) - 1)]


def table(rows: list[dict]) -> None:
    print(
        f"{'spots':>5} {'games':>5} {'moves':>5} {'cut':>3} {'thin':>4}  "
        + " ".join(f"{m + ' mbm/fresh':>19}" for m in MEASURES)
        + f"  {'cpu s/move med':>14} {'p95':>6} {'max':>6}"
    )
    for n in sorted({r["spots"] for r in rows}):
        rs = [r for r in rows if r["spots"] == n]
        cpu = [c for r in rs for c in r["cpu"]]
        with_fresh = [r for r in rs if r["fresh"]]
        thin = sum(
            1
            for r in with_fresh
            if r["move_by_move"]["room"] < 1.0 and r["fresh"]["room"] > r["move_by_move"]["room"]
        )
        cells = []
        for m in MEASURES:
            a = statistics.median(r["move_by_move"][m] for r in rs)
            b = statistics.median(r["fresh"][m] for r in with_fresh) if with_fresh else math.nan
            cells.append(f"{a:9.1f}/{b:<9.1f}" if m not in ("room", "infl") else f"{a:9.2f}/{b:<9.2f}")
        cut = sum(r["cut"] for r in rs)
        med = statistics.median(cpu) if cpu else math.nan
        print(
            f"{n:>5} {len(rs):>5} {len(cpu):>5} {cut:>3} {thin:>4}  " + " ".join(f"{c:>19}" for c in cells)
            + f"  {med:>14.2f} {p95(cpu):>6.2f} {max(cpu, default=math.nan):>6.2f}"
        )  # fmt: skip
    ratios = [
        (
            r["move_by_move"]["length"] / r["fresh"]["length"],
            r["move_by_move"]["turning"] / r["fresh"]["turning"],
        )
        for r in rows
        if r["fresh"] and r["fresh"]["length"] > 0 and r["fresh"]["turning"] > 0
    ]
    if ratios:
        length = statistics.median(x for x, _ in ratios)
        turning = statistics.median(y for _, y in ratios)
        print(f"move-by-move / fresh, median over games: length {length:.2f}x, turning {turning:.2f}x")
    by_rung: dict[str, list[float]] = {}
    for r in rows:
        for rung, c in zip(r.get("rungs", ()), r["cpu"], strict=False):
            by_rung.setdefault(rung, []).append(c)
    if by_rung:
        print(
            "CPU s per move by the rung that drew it (moves, median, max): "
            + ", ".join(
                f"{k} {len(v)} {statistics.median(v):.2f} {max(v):.2f}" for k, v in sorted(by_rung.items())
            )
        )


def slowest(rows: list[dict], k: int) -> None:
    """The ``k`` slowest moves over all games, each with the CPU seconds of every rung it tried."""
    moves = [
        (c, r["spots"], r["seed"], i + 1, r["rungs"][i], r.get("rung_seconds", [{}] * len(r["cpu"]))[i])
        for r in rows
        for i, c in enumerate(r["cpu"])
    ]
    moves.sort(key=lambda m: -m[0])
    print(f"the {min(k, len(moves))} slowest moves (CPU s; drawn by; CPU s in each rung tried):")
    for c, n, seed, i, by, spent in moves[:k]:
        rungs = ", ".join(f"{name} {t:.2f}" for name, t in spent.items())
        print(f"  {c:6.2f}  {n} spots seed {seed} move {i}: {by}; {rungs}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,20,30")
    ap.add_argument("--seeds", type=int, default=10, help="the last seed (games are seeds FIRST..SEEDS)")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--game-seconds", type=float, default=300.0, help="CPU seconds a game may take")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for Z's layouts")
    ap.add_argument("--save", help="write every game's row to this JSON file")
    ap.add_argument("--join", nargs="+", metavar="JSON", help="print the table of saved runs, playing none")
    ap.add_argument("--verbose", action="store_true", help="a line per game, the slowest moves")
    ap.add_argument("--slowest", type=int, default=12, help="slowest moves listed")
    args = ap.parse_args()
    if args.join:
        rows = [r for f in args.join for r in json.loads(Path(f).read_text())]
        table(rows)
        if args.verbose:
            slowest(rows, args.slowest)
        return 0
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        for seed in range(args.first, args.seeds + 1):
            row = play(n, seed, args.game_seconds, args.jobs)
            rows.append(row)
            if args.verbose:
                mb, fr = row["move_by_move"], row["fresh"] or {}
                print(
                    f"# {n} spots seed {seed}: {row['moves']} moves, {sum(row['cpu']):.1f} CPU s, "
                    f"room {mb['room']:.2f}/{fr.get('room', math.nan):.2f} d0, {row['drawn_by']}"
                    + (" (cut)" if row["cut"] else ""),
                    flush=True,
                )
            if args.save:
                Path(args.save).write_text(json.dumps(rows))
    table(rows)
    if args.verbose:
        slowest(rows, args.slowest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
