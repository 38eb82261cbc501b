"""An external check: the outcomes of "POSITION + *k" computed by GLOP (Lemoine–Viennot 2015).

The GLOP oracle file (``docs/references.md``, "External test data") holds 482,739
lines ``POSITION!k<TAB>r`` in GLOP's first dialect, with r = 1 when POSITION + *k is
a win for the player to move in normal play.  A sample of 80 of its lines ships in
``tests/data/glop-oracle-sample.txt`` (``draw_sample`` below, from the whole file), so
the fast test runs in every clone.  The slow tests read the whole file where it is
found (``SPROUTS_ORACLE``, else ``../shared/oracle`` beside the checkout): a larger
random sample (``SPROUTS_ORACLE_SAMPLE``, ``all`` for every line), and that the
shipped sample is the documented draw.
"""

from __future__ import annotations

import gzip
import os
import random
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED

from sprouts_cli.engine import Position
from sprouts_cli.solve.nimbers import NormalSolver

SAMPLE = Path(__file__).parent / "data" / "glop-oracle-sample.txt"
ORACLE = Path(os.environ.get("SPROUTS_ORACLE", SHARED / "oracle" / "glop1-position-heap-outcomes.txt.gz"))
needs_the_file = pytest.mark.skipif(not ORACLE.exists(), reason="the GLOP oracle file is absent")


@cache
def oracle_lines() -> list[str]:
    with gzip.open(ORACLE, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def parse(line: str) -> tuple[Position, bool]:
    position, r = line.split("\t")
    body, _, heap = position.rpartition("!")
    return Position.from_string(body + "!").with_heaps((int(heap),)), r == "1"


def check(lines: list[str]) -> int:
    solver = NormalSolver()
    for line in lines:
        p, win = parse(line)
        assert solver.outcome(p) is win, line
    return len(lines)


def draw_sample(lines: list[str], plain: int = 60, heaps: int = 20, max_lives: int = 10) -> list[str]:
    """The shipped sample: lines in a fixed random order, the first ``plain`` with no heap
    and ``heaps`` with one, of positions with at most ``max_lives`` lives; sorted."""
    rng = random.Random(2024)
    without, with_heap = [], []
    for i in rng.sample(range(len(lines)), len(lines)):
        line = lines[i]
        if parse(line)[0].total_lives > max_lives:
            continue
        (without if line.split("\t")[0].endswith("!0") else with_heap).append(line)
        if len(without) >= plain and len(with_heap) >= heaps:
            break
    return sorted(without[:plain] + with_heap[:heaps])


def test_the_shipped_sample_agrees() -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 80
    wins = sum(parse(line)[1] for line in lines)
    assert 0 < wins < 80  # both answers occur, so a solver that always says one fails
    assert sum(not line.split("\t")[0].endswith("!0") for line in lines) == 20
    assert check(lines) == 80


def test_a_line_is_read_as_written() -> None:
    p, win = parse("0.ABC.}11D1CE.}ABDE.}!3\t0")
    assert p.heaps == (3,) and win is False
    assert p.with_heaps(()) == Position.from_string("0.ABC.}11D1CE.}ABDE.}!")


@needs_the_file
@pytest.mark.slow
def test_the_file_is_what_we_expect() -> None:
    lines = oracle_lines()
    assert len(lines) == 482_739
    assert lines[0] == "0.ABC.}11D1CE.}ABDE.}!0\t1"
    assert draw_sample(lines) == SAMPLE.read_text(encoding="utf-8").splitlines()


@needs_the_file
@pytest.mark.slow
def test_a_random_sample_agrees() -> None:
    size = os.environ.get("SPROUTS_ORACLE_SAMPLE", "200")
    lines = oracle_lines()
    sample = lines if size == "all" else random.Random(7).sample(lines, int(size))
    assert check(sample) == len(sample)
