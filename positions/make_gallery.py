"""Make docs/gallery.md: random games of 10, 20 and 30 spots, drawn move by move and afresh.

    .venv/bin/python positions/make_gallery.py                 # 10, 20 and 30 spots
    .venv/bin/python positions/make_gallery.py --sizes 10,20   # a quicker gallery

Each game starts from a Z layout of n lone spots and is played by the Random
player's rule; every move is drawn into the picture as it stands (the router and
its ladder: what ``play --save`` and ``replay`` show), and its last position is
also drawn afresh (Z and its polish: what ``render`` and ``replay --fresh`` show).
Both pictures are read back and must be the game's position with the same spot
numbers.  The PNG files and each size's section (with the measures of
``picture/quality.py``) go to docs/images/; docs/gallery.md is made of the
sections there, so ``--sizes 30`` redoes only the 30-spot game.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from sprouts_cli.engine import Position  # noqa: E402
from sprouts_cli.engine.moves import random_move  # noqa: E402
from sprouts_cli.engine.naming import numbered_key  # noqa: E402
from sprouts_cli.picture import analyse_picture, layout_position  # noqa: E402
from sprouts_cli.picture.model import MIN_CLEARANCE  # noqa: E402
from sprouts_cli.picture.quality import quality  # noqa: E402
from sprouts_cli.picture.room import draw  # noqa: E402
from sprouts_cli.render import render  # noqa: E402

WIDTH, HEIGHT = 1000, 700


def cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def game(spots: int, seed: int):
    """A random game drawn move by move: its last picture, its moves, the CPU seconds of each."""
    rng = random.Random(seed)
    pic = layout_position(Position.start(spots), WIDTH, HEIGHT, jobs=1)
    a = analyse_picture(pic)
    seconds = []
    while (m := random_move(a.position, rng)) is not None:
        c0 = cpu()
        r = draw(pic, m, analysis=a, layout_jobs=1)
        seconds.append(cpu() - c0)
        pic, a = r.picture, r.analysis
        progress(f"{spots} spots: move {len(seconds)}")
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return pic, a, seconds


def progress(text: str) -> None:
    """One line rewritten in place on a terminal; a plain line per report in a log or a pipe."""
    if sys.stderr.isatty():
        print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)
    else:
        print(text, file=sys.stderr, flush=True)


def row(name: str, pic) -> str:
    q = quality(pic)
    return (
        f"| {name} | {q.least_room / MIN_CLEARANCE:.2f} | {q.length:.0f} | {q.turning:.1f} "
        f"| {q.inflections:.2f} | {q.label_distance:.0f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,20,30")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    head = [
        "# Gallery: what the tool draws",
        "",
        "Random games (the Random player's rule, seed "
        f"{args.seed}) in a {WIDTH}×{HEIGHT} drawing area.  On the left each game as it",
        "was drawn move by move (the router and its ladder: `sprouts play --save`, `sprouts replay`),",
        "on the right its last position drawn afresh (Z and its polish: `sprouts render`,",
        "`sprouts replay --fresh`).  Made by `positions/make_gallery.py`; every picture is read back",
        "and is the game's position with the same spot numbers.",
        "",
        "Measures (`sprouts_cli/picture/quality.py`): room is the least room of any region (the radius",
        "of the largest disc inside it) in units of the clearance d0 = 6 px; length is the total",
        "length of the curves (px), turning their total turning (the sum of |curvature| ds, radians),",
        "inflections are per curve, label the largest distance from a spot to its number (px).",
        "",
    ]
    for n in (int(x) for x in args.sizes.split(",")):
        t0 = time.perf_counter()
        pic, a, seconds = game(n, args.seed)
        fresh = layout_position(a.position, WIDTH, HEIGHT, jobs=1)
        if numbered_key(analyse_picture(fresh).position)[:2] != numbered_key(a.position)[:2]:
            raise SystemExit(f"{n} spots: the fresh drawing does not keep the spot numbers")
        mbm_png, fresh_png = f"gallery-{n}-move-by-move.png", f"gallery-{n}-fresh.png"
        render(pic, images / mbm_png, numbers=True, lives=True, title=f"{n} spots, move by move")
        render(fresh, images / fresh_png, numbers=True, lives=True, title=f"{n} spots, drawn afresh")
        med = sorted(seconds)[len(seconds) // 2] if seconds else 0.0
        section = [
            f"## {n} spots: {len(seconds)} moves",
            "",
            f"Last position `{a.position.canonical()}`.  CPU seconds per move: median {med:.2f}, "
            f"largest {max(seconds, default=0.0):.1f}.",
            "",
            f"| {n} spots | move by move | drawn afresh |",
            "| --- | --- | --- |",
            f"| picture | ![{n} spots move by move](images/{mbm_png}) "
            f"| ![{n} spots afresh](images/{fresh_png}) |",
            "",
            "| drawing | room (d0) | length | turning | inflections | label |",
            "| --- | --- | --- | --- | --- | --- |",
            row("move by move", pic),
            row("afresh", fresh),
            "",
        ]
        # each size's section is kept beside its pictures, so a run of one size redoes only that one
        (images / f"gallery-{n}.md").write_text("\n".join(section))
        print(f"{n} spots: {len(seconds)} moves, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        sections = sorted(images.glob("gallery-*.md"), key=lambda p: int(p.stem.split("-")[1]))
        page = head + [p.read_text() for p in sections]
        (ROOT / "docs" / "gallery.md").write_text("\n".join(page))
        print("wrote docs/gallery.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
