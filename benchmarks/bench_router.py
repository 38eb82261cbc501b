"""Drawing moves into the picture: random games of 10, 20 and 30 spots drawn move by move.

Each game starts from a Z layout of the n lone spots in a 1000×700 area and is
played by the Random player's rule (Alfeld §5.2); every move is drawn into the
previous picture by the router, climbing the ladder M, A, R, Z, • only when there
is no room (``picture/room.py``), and read back as the intended position with the
same spot numbers.  Per size it prints the share of moves drawn at each rung,
seconds per move (median and 95th percentile), the least clearance of the moves
drawn by the router, and how far the old spots moved per move (the mean over
moves of their largest displacement; Z and R move everything).

Goals: at 10 spots at least 90% of moves drawn without A, R or Z; at 30 spots at
least 70%; every move drawn; median under 0.5 s per move at 20 spots.  Measured
figures, with their dates, and what ``--causes`` (why the moves that climbed did so,
from the router's first refusal) found, are in ``docs/performance.md``.

Seconds are wall-clock and CPU (this process and its finished children, Z's workers) per move: on a shared
machine the CPU seconds are the ones to compare.  A game that takes more than
``--game-seconds`` CPU seconds stops after the move that passed it (``cut``).

    python benchmarks/bench_router.py                 # seeds 1-10
    python benchmarks/bench_router.py --seeds 3 --sizes 10,20 --game-seconds 120 --verbose
    python benchmarks/bench_router.py --sizes 10 --causes   # why moves climbed to A, R or Z
    python benchmarks/bench_router.py --sizes 30 --first 6 --save b.json   # seeds 6-10 only, rows kept
    python benchmarks/bench_router.py --join a.json b.json --causes        # one table of both runs
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import re
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move, random_move
from sprouts_cli.engine.naming import numbered_key
from sprouts_cli.errors import NoRoom
from sprouts_cli.picture.analyse import analyse_picture
from sprouts_cli.picture.layout import layout_position
from sprouts_cli.picture.room import DRAWN_BY, draw

WIDTH, HEIGHT = 1000, 700
LOCAL = ("route", "slide", "push")


# drawn_by, wall s, CPU s, clearance, old spots' largest move, why it climbed
Row = tuple[str, float, float, float, float, str]
CLIMBED = ("adjust", "rearrange", "layout", "smaller", "refused")


def move_kind(m) -> str:
    """join (two boundaries), loop, marked (one boundary, others enclosed) or split (nothing enclosed)."""
    if m.joins_boundaries:
        return "join"
    return "loop" if m.is_loop else ("marked" if m.inside else "split")


def cause_of(first_note: str, d0: float = 6.0) -> str:
    """Why the router refused a move, from its first note (``room.draw``'s "route: ..." line)."""
    n = first_note
    found = re.search(r"widest way between \d+ and \d+ is ([\d.]+) px", n)
    if "the widest way between" in n and found and "keeps only" not in n:
        w = float(found.group(1))
        return "no way: sides" if w >= d0 else ("no way: 0 px" if w == 0 else "no way: narrow")
    if "keeps only" in n:
        return "too little clearance"
    if "reads back as" in n:
        return "wrong sides"
    if "crosses itself" in n or "cross near" in n:
        return "curves cross"
    return "other"


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (Z's worker processes)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def play(
    spots: int,
    seed: int,
    limit: float = math.inf,
    jobs: int = 1,
    z_lines: list[str] | None = None,
    save_z: Path | None = None,
) -> tuple[list[Row], bool]:
    """One random game drawn move by move, and whether it ended within ``limit`` CPU seconds.

    A game over its limit stops after the move that passed it (its moves so far count).
    """
    rng = random.Random(seed)
    cpu0 = cpu_seconds()
    pic = layout_position(Position.start(spots), WIDTH, HEIGHT, jobs=1)
    a = analyse_picture(pic)
    out: list[Row] = []
    while True:
        if cpu_seconds() - cpu0 > limit:
            return out, False
        m = random_move(a.position, rng)
        if m is None:
            return out, True
        target = apply_move(a.position, m)
        t0, c0 = time.perf_counter(), cpu_seconds()
        try:
            r = draw(pic, m, analysis=a, layout_jobs=jobs)
        except NoRoom as e:
            why = f"{cause_of('route: ' + str(e))}, {move_kind(m)}"
            out.append(("refused", time.perf_counter() - t0, cpu_seconds() - c0, 0.0, 0.0, why))
            return out, True
        seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        if save_z is not None and r.drawn_by in ("layout", "smaller"):
            _save_case(save_z / f"{spots}-{seed}-{len(out) + 1}.json", pic, a, m)
        zs = [n for n in r.notes if n.startswith("Z, ")]
        if z_lines is not None and zs:
            z_lines.append(f"#   move {len(out) + 1}: {r.drawn_by}, {cpu:.2f} CPU s; " + "; ".join(zs))
        assert numbered_key(r.analysis.position)[:2] == numbered_key(target)[:2]
        n = len(pic.spots)
        moved = float(np.hypot(*(r.picture.spots[:n] - pic.spots).T).max()) if n else 0.0
        why = f"{cause_of(r.notes[0] if r.notes else '')}, {move_kind(m)}" if r.drawn_by in CLIMBED else ""
        out.append((r.drawn_by, seconds, cpu, r.clearance, moved, why))
        pic, a = r.picture, r.analysis


def _save_case(path: Path, pic, a, m) -> None:
    """A move that reached Z: the picture before it, and the move in words (for ``--z-from``)."""
    from sprouts_cli.engine.naming import move_words
    from sprouts_cli.picture import save_game

    path.parent.mkdir(parents=True, exist_ok=True)
    save_game(path, pic, a.position.canonical(), [move_words(a.position, m)])


def z_alone(cases: Path, jobs: int) -> int:
    """Z (and •) alone on saved moves, the router refusing every way: CPU s of the rung itself."""
    from sprouts_cli.engine.naming import moves_from_words, parse_words
    from sprouts_cli.picture import load_game, room

    def refuse(*args, **kwargs):
        raise NoRoom("no way (the router is left out)", 0.0, 6.0)

    room.draw_move = refuse
    cpus, how = [], collections.Counter()
    for path in sorted(cases.glob("*.json")):
        pic = load_game(path)
        a = analyse_picture(pic)
        m = moves_from_words(a.position, parse_words(pic.meta["game"]["move_list"][-1]))[0]
        c0 = cpu_seconds()
        try:
            r = draw(pic, m, ("Z", "."), analysis=a, layout_jobs=jobs)
            got = f"{r.drawn_by}, least clearance {r.clearance:.1f} px"
            how[r.drawn_by] += 1
        except NoRoom as e:
            got = f"refused: {e}"
            how["refused"] += 1
        cpus.append(cpu_seconds() - c0)
        print(f"{path.stem:>12} {len(pic.spots):>3} spots {cpus[-1]:>6.2f} CPU s  {got}", flush=True)
    if cpus:
        print(f"Z alone, jobs {jobs}: {len(cpus)} moves, CPU s median {statistics.median(cpus):.2f}, "
              f"mean {statistics.mean(cpus):.2f}, max {max(cpus):.2f}; {dict(how)}")  # fmt: skip
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10, help="the last seed (games are seeds FIRST..SEEDS)")
    ap.add_argument("--first", type=int, default=1, help="the first seed")
    ap.add_argument("--save", help="write every move's row to this JSON file (to join runs split by seeds)")
    ap.add_argument("--join", nargs="+", metavar="JSON", help="print the table of saved runs, playing none")
    ap.add_argument("--sizes", default="10,20,30")
    ap.add_argument("--verbose", action="store_true", help="a line per game as it ends, and Z's layouts")
    ap.add_argument("--causes", action="store_true", help="why each move climbed to A, R or Z, per size")
    ap.add_argument("--game-seconds", type=float, default=600.0, help="CPU seconds a game may take")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for Z's layouts")
    ap.add_argument("--save-z", type=Path, help="save each move that reached Z here (picture and words)")
    ap.add_argument("--z-from", type=Path, help="only Z on the moves saved by --save-z, the router left out")
    args = ap.parse_args()
    if args.z_from:
        return z_alone(args.z_from, args.jobs)
    sizes = [int(s) for s in args.sizes.split(",")]
    saved: dict[str, list] = {}
    if args.join:
        for name in args.join:
            for k, v in json.loads(Path(name).read_text()).items():
                saved.setdefault(k, []).extend(v)
        sizes = sorted(int(k) for k in saved)
    else:
        play(4, 0)  # compile the kernels (cached on disk after the first run)
    games = f"runs {', '.join(args.join)}" if args.join else f"seeds {args.first}-{args.seeds}"
    print(f"random games drawn move by move, {WIDTH}×{HEIGHT}, {games}, "
          f"at most {args.game_seconds:g} CPU s a game")  # fmt: skip
    head = " ".join(f"{h:>9}" for h in DRAWN_BY)
    print(f"{'spots':>5} {'moves':>5} {'cut':>3} {head} {'refused':>7} {'median s':>8} {'p95 s':>6} "
          f"{'med cpu':>7} {'p95 cpu':>7} {'least px':>8} {'moved px':>8}  without A/R/Z",
          flush=True)  # fmt: skip
    failed = 0
    for spots in sizes:
        rows: list[Row] = []
        cut = 0
        if args.join:
            rows = [tuple(r) for r in saved[str(spots)] if r[0] != "cut"]
            cut = sum(r[0] == "cut" for r in saved[str(spots)])
        for seed in range(args.first, args.seeds + 1) if not args.join else ():
            z_lines: list[str] = []
            got, ended = play(spots, seed, args.game_seconds, args.jobs, z_lines, args.save_z)
            rows.extend(got)
            cut += not ended
            if args.verbose:
                c = collections.Counter(r[0] for r in got)
                print(f"# {spots} spots, seed {seed}: {len(got)} moves{'' if ended else ' (cut)'}, "
                      f"{dict(c)}, CPU {sum(r[2] for r in got):.1f} s", flush=True)  # fmt: skip
                for line in z_lines:
                    print(line, flush=True)
        count = collections.Counter(r[0] for r in rows)
        secs = sorted(r[1] for r in rows)
        cpus = sorted(r[2] for r in rows)
        routed = [r[3] for r in rows if r[0] in LOCAL]
        moved = [r[4] for r in rows if r[0] != "refused"]
        local = sum(count[k] for k in LOCAL) / max(1, len(rows))
        shares = " ".join(f"{100 * count[k] / max(1, len(rows)):>8.1f}%" for k in DRAWN_BY)

        def p95(xs: list[float]) -> float:
            return xs[min(len(xs) - 1, int(0.95 * len(xs)))]

        print(
            f"{spots:>5} {len(rows):>5} {cut:>3} {shares} {count['refused']:>7} "
            f"{statistics.median(secs):>8.2f} {p95(secs):>6.2f} {statistics.median(cpus):>7.2f} "
            f"{p95(cpus):>7.2f} {min(routed, default=0):>8.1f} {statistics.mean(moved):>8.1f}"
            f"  {100 * local:.0f}%",
            flush=True,
        )
        at_z = sorted(r[2] for r in rows if r[0] in ("layout", "smaller"))
        if at_z:
            print(f"      moves that reached Z: {len(at_z)}, CPU s median {statistics.median(at_z):.2f}, "
                  f"mean {statistics.mean(at_z):.2f}, max {at_z[-1]:.2f}", flush=True)  # fmt: skip
        failed += count["refused"]
        if args.save:
            saved[str(spots)] = [list(r) for r in rows] + [["cut", 0, 0, 0, 0, ""]] * cut
            Path(args.save).write_text(json.dumps(saved))
        if args.causes:
            why = collections.Counter(r[5] for r in rows if r[0] in CLIMBED)
            print("      why moves climbed to A/R/Z: " + "; ".join(f"{k} {v}" for k, v in why.most_common()))
    print("goals: without A/R/Z ≥ 90% at 10 spots, ≥ 70% at 30; every move drawn; median < 0.5 s at 20")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
