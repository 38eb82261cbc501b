"""Make ``drawn-move-by-move.png``: a game drawn move by move, as a strip of small pictures.

    .venv/bin/python positions/make_strip.py

A 4-spot game by the Random player's rule (seed 3) in a 500×360 area: the start is
laid out once (Z), then every move is drawn into the previous picture by the router
(``sprouts_cli/picture/router.py``), climbing the ladder only when there is no room.
Every picture is read back and must be the game's position with the same spot numbers.
"""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sprouts_cli.engine import Position  # noqa: E402
from sprouts_cli.engine.moves import apply_move, random_move  # noqa: E402
from sprouts_cli.engine.naming import move_words, numbered_key  # noqa: E402
from sprouts_cli.picture.analyse import analyse_picture  # noqa: E402
from sprouts_cli.picture.layout import layout_position  # noqa: E402
from sprouts_cli.picture.room import draw  # noqa: E402
from sprouts_cli.render import render_bytes  # noqa: E402


def main(spots: int = 4, seed: int = 3, shown: int = 8) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    rng = random.Random(seed)
    pic = layout_position(Position.start(spots), 500, 360, jobs=1)
    a = analyse_picture(pic)
    frames = [(pic, "start")]
    while len(frames) < shown:
        m = random_move(a.position, rng)
        if m is None:
            break
        words = move_words(a.position, m)
        target = apply_move(a.position, m)
        r = draw(pic, m, analysis=a)
        assert numbered_key(r.analysis.position)[:2] == numbered_key(target)[:2]
        pic, a = r.picture, r.analysis
        frames.append((pic, f"{len(frames)}. {words} ({r.drawn_by})"))
    cols = 4
    rows = (len(frames) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows))
    for ax in axes.ravel():
        ax.axis("off")
    for ax, (p, title) in zip(axes.ravel(), frames, strict=False):
        png = render_bytes(p, "png", numbers=True, scale=1.0)
        ax.imshow(plt.imread(io.BytesIO(png)))
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(HERE / "drawn-move-by-move.png", dpi=70, metadata={"Software": None})
    print("wrote", HERE / "drawn-move-by-move.png")


if __name__ == "__main__":
    main()
