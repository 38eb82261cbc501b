"""The children of misère lands made by the compiled core are the plain-Python ones (``LazyChildren``).

``misere_core.CoreLandChildren`` must give the same children in the same order, with the
same estimates of the children not found yet, so that the misère search on either makes
the same moves: the tests compare the children on every land from 1 to 4 spots, and whole
searches (outcomes, and the counts of states and lands they opened).
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from brute import brute_misere_win
from games import reachable, reachable_upto

from sprouts_cli.engine.position import Position
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.solve.children import LazyChildren
from sprouts_cli.solve.misere import MisereSolver
from sprouts_cli.solve.misere_core import CoreChildren, core_children_available

pytestmark = pytest.mark.skipif(not core_children_available(), reason="the compiled core is off")

PUBLISHED = "WLLLWWLLLWWWLLLWWWLL"


@cache
def lands_from(n: int) -> list[str]:
    return sorted({x for p in reachable(n).values() for x in reduced_lands(p)})


def reference(land: str) -> tuple[list[tuple[str, ...]], list[int]]:
    """A land's children by ``LazyChildren``, with ``remaining()`` before each one and at the end."""
    kids = LazyChildren(land)
    estimates = [kids.remaining()]
    while kids.more():
        estimates.append(kids.remaining())
    return list(kids.found), estimates  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_core_makes_the_same_children_in_the_same_order(n: int) -> None:
    numbering = CoreChildren()
    for land in lands_from(n):
        kids = numbering.children(land)
        estimates = [kids.remaining()]
        while kids.more():
            estimates.append(kids.remaining())
        assert (kids.found, estimates) == reference(land), land
        assert kids.done and not kids.more()


def test_children_made_in_turns_and_asked_for_again_are_the_same() -> None:
    """Lands opened a child at a time in turns, and objects made again on a land the numbering
    has opened before (as the search does once its cache let one go), find the same children."""
    rng = random.Random(3)
    lands = rng.sample(lands_from(4), 60) + ["0*6", "0*7", "0*5.AB|AB"]
    numbering = CoreChildren()
    objects = {land: numbering.children(land) for land in lands}
    want = {land: reference(land)[0] for land in lands}
    while objects:
        land = rng.choice(sorted(objects))
        kids = objects[land]
        if rng.random() < 0.3:  # let this object go: a new one picks up what the numbering holds
            kids = objects[land] = numbering.children(land)
            assert kids.found == want[land][: len(kids.found)], land
        if not kids.more():
            assert kids.found == want[land], land
            del objects[land]


def test_parses_kept_in_slots_give_the_children_of_parses_made_again() -> None:
    """The core keeps the parses of the last lands read (``pncore._parse``); lands opened a child
    at a time in turns, more of them than the slots, with a parse buffer that has to grow on the
    way (the slots kept are then dropped), find the children and estimates of a numbering that
    reads a land again whenever another was read between, with fewer reads."""
    from sprouts_cli.solve import misere_core

    rng = random.Random(5)
    lands = rng.sample(lands_from(4), 40) + ["0*6", "0*7", "0*5.AB|AB", "0*8"]
    kept, plain = CoreChildren(), CoreChildren(keep_parses=False)
    core = misere_core.core
    for numbering in (kept, plain):
        numbering.state.PBUF[0] = numbering.state.PBUF[0][: core.PARSE_SLOTS * 8]  # every land grows it
        numbering.state.S = numbering.state.tuple_for(0)
    pairs = {land: (kept.children(land), plain.children(land)) for land in lands}
    while pairs:
        land = rng.choice(sorted(pairs))
        a, b = pairs[land]
        assert a.remaining() == b.remaining(), land
        more = a.more()
        assert more == b.more() and a.found == b.found, land
        if not more:
            del pairs[land]
    reads = [int(x.state.T[0][core.T_PARSES]) for x in (kept, plain)]
    assert reads[0] < reads[1], reads
    assert kept.state.PBUF[0].shape[0] > core.PARSE_SLOTS * 8


def test_a_search_on_kept_parses_is_the_same_search(monkeypatch) -> None:
    """The misère search with the core's parses kept and read again opens the same states."""
    from sprouts_cli.solve import misere, misere_core

    def solve(keep: bool) -> dict[str, int]:
        monkeypatch.setattr(misere, "CoreChildren", lambda lives: CoreChildren(lives, keep_parses=keep))
        solver = MisereSolver(core_children=True, core_lives=0)
        for n in range(1, 9):
            assert solver.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W")
        assert solver._core is not None
        return {**solver.stats, "parses": int(solver._core.state.T[0][misere_core.core.T_PARSES])}

    kept, plain = solve(True), solve(False)
    assert kept.pop("parses") < plain.pop("parses")
    assert kept == plain


def test_the_list_of_children_grows_in_place() -> None:
    """A search's generator of child states holds ``found`` while the land's tree asks for ``all()``."""
    kids = CoreChildren().children("0*6")
    assert kids.more()
    held = kids.found
    assert kids.all() is held and held == reference("0*6")[0]


def test_the_search_on_core_children_is_the_same_search() -> None:
    """Same outcomes and the same counts of states opened, lands expanded and positions solved."""
    plain = MisereSolver(core_children=False)
    core = MisereSolver(core_children=True, core_lives=0)
    for n in range(1, 9):
        want = PUBLISHED[n - 1] == "W"
        assert plain.outcome(Position.start(n)) == want
        assert core.outcome(Position.start(n)) == want
    assert core.stats == plain.stats


def test_core_children_match_brute_force_with_forgetting_and_tiny_caches() -> None:
    """Search only, caches of two lands, and a memory bound of one byte (a new numbering at each forget)."""
    positions = reachable_upto(4)
    sample = random.Random(17).sample(sorted(positions), 250)
    tiny = MisereSolver(
        core_children=True, core_lives=0, tree_lives=0, combine_limit=0, land_children_cache=2
    )
    forgetful = MisereSolver(core_children=True, core_lives=0, tree_lives=4, memory=1)
    forgetful.memory_step_min = 16
    for k in sample:
        assert tiny.outcome(positions[k]) == brute_misere_win(k), k
        assert forgetful.outcome(positions[k]) == brute_misere_win(k), k
    for n in range(1, 8):
        assert forgetful.outcome(Position.start(n)) == (PUBLISHED[n - 1] == "W"), n
    assert forgetful.stats["forgets"] > 0


def test_two_objects_on_one_land_find_every_child_in_the_cores_order() -> None:
    """A land's children object that left the solver's cache while a newer one on the same land
    went on still finds every child, in the order the core found them (none skipped)."""
    numbering = CoreChildren()
    land = "0*6"
    first = numbering.children(land)
    assert first.more()
    second = numbering.children(land)
    assert second.more() and second.more()
    assert first.more()
    while second.more():
        pass
    while first.more():
        pass
    assert first.found == second.found == reference(land)[0]


def test_a_fresh_search_with_a_land_cache_of_two_is_right() -> None:
    """A position whose search, with lands leaving a cache of two, once lost a land's children."""
    k = "0.2.AB|AB+AB|AB"
    tiny = MisereSolver(
        core_children=True, core_lives=0, tree_lives=0, combine_limit=0, land_children_cache=2
    )
    assert tiny.outcome(reachable_upto(4)[k]) == brute_misere_win(k)


def test_a_land_the_core_does_not_take_gets_its_children_from_the_reference(monkeypatch) -> None:
    """When the core stops on a land (a move past its packing), ``LazyChildren`` makes the rest."""
    numbering = CoreChildren()
    land = "0*6"
    kids = numbering.children(land)
    assert kids.more() and kids.more()
    monkeypatch.setattr(numbering, "next_child", lambda number: -2)  # the core's STOPPED
    assert kids.all() == reference(land)[0]
    monkeypatch.setattr(numbering, "open", lambda number: False)
    fresh = numbering.children("0*5")
    assert fresh.reference is not None and fresh.all() == reference("0*5")[0]


def test_a_solve_reads_the_process_clock_only_when_timed(monkeypatch) -> None:
    """Reading the process's CPU clock is a system call, which a loaded machine often answers
    by running another process first: a plain solve never reads it, a timed one times each child."""
    import time

    real = time.process_time
    reads: list[float] = []

    def counted() -> float:
        reads.append(1.0)
        return real()

    monkeypatch.setattr(time, "process_time", counted)
    plain = MisereSolver(core_children=True, core_lives=0)
    assert plain.outcome(Position.start(6)) == (PUBLISHED[5] == "W")
    assert reads == [] and plain.timing["children"] == 0.0
    # one child at a time, so that lands' children are made one by one (each timed)
    timed = MisereSolver(core_children=True, core_lives=0, timed=True, first_children="one")
    assert timed.outcome(Position.start(6)) == (PUBLISHED[5] == "W")
    assert len(reads) >= 2 * timed.stats["lands_expanded"] and timed.timing["children"] > 0.0


def test_the_lives_the_numbering_reads_are_those_of_the_strings() -> None:
    """The misère search takes a land's lives from the core's numbering when the core made the land
    (``CoreChildren.lives``), and from its string otherwise (``land_shape``): the same counts."""
    from sprouts_cli.solve.children import land_shape

    lives: dict[str, int] = {}
    numbering = CoreChildren(lives)
    for land in lands_from(4) + ["0*9", "0*7.AB|AB"]:
        numbering.children(land).all()
    assert len(lives) > 200
    for land, n in lives.items():
        assert n == land_shape(land)[0], land
    known = dict(numbering._numbers)  # the lands' numbers, kept as the core made them
    assert len(known) >= len(lives)
    fresh = CoreChildren()
    for land, x in known.items():
        assert numbering.state.text(x) == land
        assert fresh.lands(fresh.number(land)) == (land,)
    solver = MisereSolver(core_children=True, core_lives=0)
    assert solver.outcome(Position.start(8)) is False
    assert solver._core is not None and solver._core.lives is solver._lives
    for land, n in solver._lives.items():
        assert n == land_shape(land)[0], land
