"""The misère search's fast paths give what their references give.

Each fast path of the misère search is checked here against the plain way it stands
for: the cycle collector paused during a search (the search must leave no cyclic
garbage, and the collector comes back as it was).
"""

from __future__ import annotations

import gc

import pytest

from sprouts_cli.engine.position import Position
from sprouts_cli.solve.misere import MisereSolver, State, collector_paused

PUBLISHED = "WLLLWWLLLWWWLLLWWWLL"


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_comes_back_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        with collector_paused():
            assert not gc.isenabled()
            with collector_paused():  # nested: the outer pause holds
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled() == enabled
        with pytest.raises(KeyError), collector_paused():
            raise KeyError("a search stopped by an error")
        assert gc.isenabled() == enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_a_search_leaves_no_cyclic_garbage() -> None:
    """With the collector off during the search, a cycle would stay until it comes back."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        solver = MisereSolver(tree_lives=4, sum_tree_lives=6)
        for n in range(1, 8):
            assert solver.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W")
        solver.forget()
        assert solver.outcome(Position.start(7)) == (PUBLISHED[6] == "W")
        del solver
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_a_solve_runs_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    solver = MisereSolver()
    win = solver._win

    def spy(state: State) -> bool:
        seen.append(gc.isenabled())
        return win(state)

    monkeypatch.setattr(solver, "_win", spy)
    was = gc.isenabled()
    gc.enable()
    try:
        assert solver.outcome(Position.start(5)) == (PUBLISHED[4] == "W")
        assert seen == [False]
        assert gc.isenabled()
    finally:
        if not was:
            gc.disable()
