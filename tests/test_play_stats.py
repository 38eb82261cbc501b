"""``sprouts play --batch``: games in parallel, a CSV row per game, a plot."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from click.testing import CliRunner

from sprouts_cli.cli import main
from sprouts_cli.engine.rules import Rules
from sprouts_cli.play.stats import BatchSpec, GameRow, play_batch, win_rates


def run(*args: str):
    return CliRunner().invoke(main, [*args, "--no-db"], catch_exceptions=False)


def test_batch_in_parallel_repeats_the_serial_batch() -> None:
    spec = BatchSpec(("random", "montecarlo"), Rules.NORMAL, 4, games=2)
    serial = sorted(play_batch(spec, 6, seed=10, jobs=1), key=lambda r: r.game)
    parallel = sorted(play_batch(spec, 6, seed=10, jobs=2), key=lambda r: r.game)
    assert [(r.seed, r.winner, r.length) for r in serial] == [(r.seed, r.winner, r.length) for r in parallel]
    assert [r.seed for r in serial] == list(range(10, 16))
    for r in serial:
        assert 8 <= r.length <= 11  # 2n ≤ moves ≤ 3n − 1
        assert r.winner in (1, 2) and r.winner_kind == spec.kinds[r.winner - 1]


def test_win_rates_have_intervals_round_the_share() -> None:
    rows = [GameRow(i, i, 1 if i % 4 else 2, "", 10, 0.0, [0.0, 0.0]) for i in range(40)]
    a, b = win_rates(rows, ("random", "parity"))
    assert (a.wins, b.wins) == (30, 10)
    assert a.low < 0.75 < a.high and b.low < 0.25 < b.high
    assert a.low >= 0 and a.high <= 1


def test_cli_writes_csv_and_plot(tmp_path: Path) -> None:
    stats, png = tmp_path / "stats.csv", tmp_path / "stats.png"
    r = run(
        "play",
        "--batch",
        "5",
        "--first",
        "random",
        "--second",
        "random",
        "--third",
        "montecarlo",
        "--games",
        "2",
        "--spots",
        "3",
        "--seed",
        "1",
        "--jobs",
        "2",
        "--stats",
        str(stats),
        "--plot",
        str(png),
    )
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(stats.open()))
    assert len(rows) == 5
    assert {"seed", "winner", "length", "seconds_per_move", "player3"} <= set(rows[0])
    assert all(6 <= int(row["length"]) <= 8 for row in rows)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "5 games from 3 spots" in r.output and "player 3 (montecarlo)" in r.output
    assert not list(tmp_path.glob(".stats-*")) and not list(tmp_path.glob(".plot-*"))


def test_cli_refusals(tmp_path: Path) -> None:
    r = run("play", "--spots", "3", "--stats", str(tmp_path / "s.csv"), "--first", "random")
    assert r.exit_code == 2 and "--batch" in r.output
    r = run("play", "--batch", "2", "--spots", "3", "--first", "human")
    assert r.exit_code == 2 and "computer players" in r.output
    r = run("play", "--batch", "2", "--spots", "3", "--first", "random", "--stats", str(tmp_path / "s.txt"))
    assert r.exit_code == 2 and ".csv" in r.output
    r = run("play", "--batch", "2", "--spots", "3", "--first", "random", "--stats", "/no/such/dir/s.csv")
    assert r.exit_code == 2 and "no such directory" in r.output


def test_an_interrupted_batch_keeps_the_finished_games(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    stats = tmp_path / "stats.csv"
    args = [
        sys.executable,
        "-m",
        "sprouts_cli",
        "play",
        "--batch",
        "400",
        "--first",
        "random",
        "--second",
        "montecarlo",
        "--games",
        "20",
        "--spots",
        "8",
        "--seed",
        "1",
        "--jobs",
        "2",
        "--no-db",
        "--stats",
        str(stats),
    ]
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    _, errors = proc.communicate(timeout=60)
    assert proc.returncode == 130, errors
    assert "interrupted after" in errors and "Traceback" not in errors
    m = re.search(r"interrupted after (\d+) of 400 games", errors)
    assert m
    if int(m.group(1)):
        assert len(list(csv.DictReader(stats.open()))) == int(m.group(1))
