"""``sprouts replay --svg`` and ``-o``: a logged game drawn move by move, into the previous picture."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np
from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.picture import analyse_picture, load_game


def logged_game(tmp_path: Path, spots: int, seed: int) -> Path:
    """The log of a game of random players, played by ``sprouts play --log``."""
    log = tmp_path / "g.log"
    r = CliRunner().invoke(
        main, ["play", "--spots", str(spots), "--first", "random", "--second", "random", "--seed", str(seed),
               "-q", "--log", str(log)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return log


def test_replay_draws_each_move_into_the_previous_picture(tmp_path) -> None:
    log = logged_game(tmp_path, 3, 5)
    svg = tmp_path / "svg"
    r = CliRunner().invoke(main, ["replay", str(log), "--svg", str(svg)])
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in svg.iterdir())
    assert files[0] == "move-000.svg" and len(files) >= 6
    # early in a 3-spot game there is room: move 2 is routed, and the spots of move 1's picture stay put
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert CliRunner().invoke(main, ["replay", str(log), "--at", "1", "-o", str(one)]).exit_code == 0
    assert CliRunner().invoke(main, ["replay", str(log), "--at", "2", "-o", str(two)]).exit_code == 0
    a, b = load_game(one), load_game(two)
    assert len(b.spots) == len(a.spots) + 1
    assert analyse_picture(b).position.canonical() == json.loads(two.read_text())["game"]["position"]
    assert np.allclose(a.spots, b.spots[: len(a.spots)], atol=1e-5)


def test_replay_area_sizes_the_pictures_of_svg(tmp_path) -> None:
    """``--area WxH`` sizes every picture replay draws, not only ``-o``'s (its help says so)."""
    log = logged_game(tmp_path, 1, 1)
    widths = {}
    for area in ("800x600", "400x300"):
        out = tmp_path / area
        r = CliRunner().invoke(main, ["replay", str(log), "--svg", str(out), "--area", area])
        assert r.exit_code == 0, r.output
        head = (out / "move-000.svg").read_text()[:2000]
        widths[area] = float(head.split('viewBox="0 0 ')[1].split()[0])
    assert widths["400x300"] < 0.75 * widths["800x600"], widths
    command = main.get_command(click.Context(main), "replay")
    assert command is not None
    option = next(p for p in command.params if p.name == "area")
    assert all(name in str(getattr(option, "help", "")) for name in ("-o", "--svg", "--html", "--gif"))
