"""Make the example saved games and pictures in this folder (run from the repository root).

    .venv/bin/python positions/make_examples.py

Every file is checked by reading its position back.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sprouts_cli.engine import Position  # noqa: E402
from sprouts_cli.engine.moves import apply_move, random_move  # noqa: E402
from sprouts_cli.picture import analyse, layout_map, load_game, save_game  # noqa: E402
from sprouts_cli.picture.gamefile import game_to_json, write_atomic  # noqa: E402
from sprouts_cli.picture.planar_map import realise  # noqa: E402
from sprouts_cli.render import render  # noqa: E402


def played(spots: int, moves: int, seed: int) -> tuple[Position, list[tuple[int, int]]]:
    """A random game: its position (spot numbers kept) and each move's two end spots."""
    rng = random.Random(seed)
    p = Position.start(spots)
    ends = []
    for _ in range(moves):
        m = random_move(p, rng)
        if m is None:
            break
        region = p.regions[m.region]
        ends.append((region[m.boundary][m.corner], region[m.boundary2][m.corner2]))
        p = apply_move(p, m)
    return p, ends


def in_move_order(pic, spots: int, ends: list[tuple[int, int]]) -> None:
    """Order the curves as the browser program does: move m's curves are edges 2m (x → z) and 2m+1 (z → y)."""
    left = list(range(len(pic.curves)))
    order = []
    for m, (x, y) in enumerate(ends):
        z = spots + m
        for a, b in ((x, z), (z, y)):
            k = next(k for k in left if {pic.curves[k].a, pic.curves[k].b} == {a, b})
            left.remove(k)
            c = pic.curves[k]
            order.append(c if (c.a, c.b) == (a, b) else c.reversed())
            order[-1].player = m % 2
    pic.curves = order + [pic.curves[k] for k in left]


def laid_out(p: Position, width: float, height: float):
    pmap = realise(p)
    return layout_map(pmap, p.canonical(), width, height).picture


def main() -> None:
    # the 5-spot start and a loop round a seed, from position strings
    for name, text in (("start-5", "0*5"), ("loop", "0.AB|AB")):
        p = Position.from_string(text)
        pic = laid_out(p, 600, 400)
        save_game(HERE / f"{name}.json", pic, position=p.canonical())
    # a 12-spot game in progress, spots numbered as played, with its move list
    p, ends = played(12, 16, seed=4)
    pic = laid_out(p, 900, 600)
    in_move_order(pic, 12, ends)
    moves = [{"from": x, "to": y, "spot": 12 + m} for m, (x, y) in enumerate(ends)]
    pic.meta = {"game": {"player": len(ends) % 2, "moves": len(ends), "phase": "play", "rules": "normal"}}
    save_game(HERE / "game-12-spots.json", pic, position=p.canonical(), move_list=moves)
    back = load_game(HERE / "game-12-spots.json")
    render(back, HERE / "game-12-spots.svg", lives=True, legend=True, title=p.canonical())
    # the browser program's exact format (version 1, no fields of ours): 3 spots, 4 moves
    p, ends = played(3, 4, seed=7)
    pic = laid_out(p, 640, 480)
    in_move_order(pic, 3, ends)
    obj = game_to_json(pic)
    game = obj["game"]
    for s in game["spots"]:
        del s["size"]
    game.update(player=len(ends) % 2, moves=len(ends), added=0, phase="play", rules="normal")
    browser = {
        "format": "sprouts-game",
        "version": 1,
        "game": game,
        "route": {"minClearance": 6, "comfort": 40, "roomVsLength": 0},
        "history": [],
    }
    write_atomic(HERE / "browser-3-spots.json", json.dumps(browser) + "\n")
    for f in sorted(HERE.glob("*.json")):
        print(f.name, analyse(load_game(f)).canonical())


if __name__ == "__main__":
    main()
