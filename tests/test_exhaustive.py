"""Every position reachable from 1–5 spots: counts, and a brute-force isomorphism check."""

from __future__ import annotations

import random

import pytest
from brute import brute_canonical
from games import reachable

from sprouts_cli.engine import Position

# Distinct positions reachable from n spots (the start included), each region read either
# way: exact and reduced forms.
EXACT = {1: 3, 2: 22, 3: 209, 4: 2390, 5: 30619}
REDUCED = {1: 3, 2: 18, 3: 148, 4: 1505, 5: 17467}




def check(n: int, sample: int) -> None:
    seen = reachable(n)
    assert len(seen) == EXACT[n]
    assert len({p.reduced() for p in seen.values()}) == REDUCED[n]
    rng = random.Random(n)
    keys = sorted(seen)
    chosen = keys if len(keys) <= sample else rng.sample(keys, sample)
    names: dict[tuple, str] = {}
    for key in chosen:
        b = brute_canonical(seen[key])
        assert names.setdefault(b, key) == key, f"{key} and {names[b]} are one position"
        assert brute_canonical(Position.from_string(key)) == b


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_reachable_counts_and_isomorphism(n: int) -> None:
    check(n, sample=3000)


@pytest.mark.slow
def test_reachable_from_5_spots() -> None:
    check(5, sample=40000)
