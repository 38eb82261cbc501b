"""The compiled core's children: CPU per move with and without the cache of flat forms.

The lands are those misère ``0*n``'s search meets (``--start``, default 10) with at least
``--lives`` lives, shuffled, the first ``--lands``; every child of each is made in one fresh
numbering of the core (``CoreChildren``), as the misère search makes them, first with a
cache of one slot (next to no land found by its flat form: every land gets its code), then
with the core's own cache, alternating, ``--passes`` times each.  The children are the same
in both (checked); the table gives the moves made, the lands found by their flat form, and
CPU seconds per pass (median) and per move.

    python benchmarks/bench_children.py
    python benchmarks/bench_children.py --start 9 --lands 5000 --passes 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sprouts_cli.engine import Position
from sprouts_cli.solve import pncore as core
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_core import CoreChildren, core_children_available


def lands_of_search(start: int, lives: int, count: int) -> list[str]:
    solver = MisereSolver()
    solver.outcome(Position.start(start))
    lands = sorted(land for land, n in solver._lives.items() if n >= lives)
    random.Random(1).shuffle(lands)
    return lands[:count]


def one_pass(lands: list[str], slots: int | None) -> tuple[float, list[list[tuple[str, ...]]], int, int]:
    numbering = CoreChildren()
    st = numbering.state
    if slots is not None:
        st.FLAT[0] = core.flat_cache(slots)
        st.S = st.tuple_for(0)
    t = time.process_time()
    kids = [list(numbering.children(land).all()) for land in lands]
    cpu = time.process_time() - t
    return cpu, kids, int(st.T[0][core.T_MOVES]), int(st.T[0][core.T_FLAT_HITS])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", type=int, default=10, help="the misère start whose lands are taken")
    ap.add_argument("--lives", type=int, default=8, help="only lands with at least this many lives")
    ap.add_argument("--lands", type=int, default=20000, help="how many lands")
    ap.add_argument("--passes", type=int, default=3, help="passes of each kind, alternating")
    args = ap.parse_args()
    if not core_children_available():
        print("the compiled core is off here (no numba, or SPROUTS_PURE_PYTHON=1): nothing to measure")
        return 0
    lands = lands_of_search(args.start, args.lives, args.lands)
    rows: dict[str, list[float]] = {"one slot": [], "the core's cache": []}
    counts: dict[str, tuple[int, int]] = {}
    reference = None
    for _ in range(args.passes):
        for name, slots in (("one slot", 1), ("the core's cache", None)):
            cpu, kids, moves, hits = one_pass(lands, slots)
            if reference is None:
                reference = kids
            elif kids != reference:
                print(f"error: the children differ with {name}", file=sys.stderr)
                return 1
            rows[name].append(cpu)
            counts[name] = (moves, hits)
    print(f"children of {len(lands)} lands (lives >= {args.lives}) from misère 0*{args.start}'s search")
    print(f"{'cache':<18} {'moves':>10} {'by flat form':>13} {'CPU s a pass (median)':>22} {'µs a move':>10}")
    for name, cpus in rows.items():
        moves, hits = counts[name]
        median = statistics.median(cpus)
        print(f"{name:<18} {moves:>10,} {hits:>13,} {median:>22.2f} {1e6 * median / max(moves, 1):>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
