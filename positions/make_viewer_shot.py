"""Make docs/images/replay-html.png: the page of ``sprouts replay LOG --html`` in a 1200×800 window.

    .venv/bin/python positions/make_viewer_shot.py              # a 6-spot random game, seed 4
    .venv/bin/python positions/make_viewer_shot.py --spots 8 --seed 1 --at 12

A game of two Random players is played and logged, replayed as a page (drawn move by
move, as ``replay --html`` draws it) and shown in headless Chromium (playwright
driving Debian's ``chromium``, as the tests do) at the position after move ``--at``
(default: the middle of the game); the screenshot is written atomically.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import browser_page, skip_reason  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spots", type=int, default=6)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--at", type=int, default=None, help="the position shown (default: the middle)")
    ap.add_argument("-o", "--output", default=str(ROOT / "docs" / "images" / "replay-html.png"))
    args = ap.parse_args()
    why = skip_reason()
    if why is not None:
        sys.exit(f"error: {why}")
    sprouts = str(Path(sys.executable).with_name("sprouts"))
    with tempfile.TemporaryDirectory() as d:
        log, page = Path(d) / "game.log", Path(d) / "game.html"
        play = [sprouts, "play", "--spots", str(args.spots), "--first", "random", "--second", "random"]
        play += ["--seed", str(args.seed), "--log", log.name, "--no-db", "-q"]
        # run in the folder: the page names the log as given (game.log)
        subprocess.run(play, check=True, cwd=d)
        subprocess.run([sprouts, "replay", log.name, "--html", page.name], check=True, cwd=d)
        moves = sum(1 for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("move "))
        at = moves // 2 if args.at is None else args.at
        with browser_page(1200, 800) as view:
            view.goto(f"{page.as_uri()}#k={at}")
            png = view.screenshot()
    out = Path(args.output)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(png)
    os.replace(tmp, out)
    print(f"wrote {out} (a {args.spots}-spot game of {moves} moves, after move {at})")


if __name__ == "__main__":
    main()
