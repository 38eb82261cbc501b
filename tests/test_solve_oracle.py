"""An external check: the outcomes of "POSITION + *k" listed by GLOP (Lemoine and Viennot).

``shared/oracle/glop1-position-heap-outcomes.txt.gz`` holds 482,739 lines
``POSITION!k<TAB>r`` in the GLOP 1 dialect, with r = 1 when POSITION + *k is a win
for the player to move in normal play.  The fast test checks a small fixed sample;
the slow one a larger random sample (``SPROUTS_ORACLE_SAMPLE``, ``all`` for every
line).  Both are skipped when the file is absent.
"""

from __future__ import annotations

import gzip
import os
import random
from functools import cache

import pytest
from conftest import SHARED

from sprouts_cli.engine import Position
from sprouts_cli.solve.nimbers import NormalSolver

ORACLE = SHARED / "oracle" / "glop1-position-heap-outcomes.txt.gz"

pytestmark = pytest.mark.skipif(not ORACLE.exists(), reason="the GLOP oracle file is absent")


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


def test_the_file_is_what_we_expect() -> None:
    lines = oracle_lines()
    assert len(lines) == 482_739
    p, win = parse(lines[0])
    assert p.total_lives > 0 and isinstance(win, bool)


def test_a_fast_sample_agrees() -> None:
    rng = random.Random(2024)
    small = [line for line in oracle_lines()[:60000] if parse(line)[0].total_lives <= 12]
    heaps = [line for line in oracle_lines()[:60000] if not line.split("\t")[0].endswith("!0")]
    sample = rng.sample(small, 8) + rng.sample(heaps, 3)
    assert check(sample) == 11


@pytest.mark.slow
def test_a_random_sample_agrees() -> None:
    size = os.environ.get("SPROUTS_ORACLE_SAMPLE", "200")
    lines = oracle_lines()
    sample = lines if size == "all" else random.Random(7).sample(lines, int(size))
    assert check(sample) == len(sample)
