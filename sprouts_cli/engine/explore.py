"""Walking the game graph: every position reachable from a start, level by level."""

from __future__ import annotations

from .moves import apply_move, representative_moves
from .position import Position


def reachable_positions(start: Position) -> dict[str, Position]:
    """Every position reachable from ``start`` (itself included), keyed by exact form.

    Used for exhaustive checks on small games; the number grows fast (30,619
    positions from 5 spots).
    """
    seen = {start.canonical(): start}
    frontier = [start]
    while frontier:
        nxt = []
        for p in frontier:
            for m in representative_moves(p):
                child = apply_move(p, m, check=False)
                key = child.canonical()
                if key not in seen:
                    seen[key] = child
                    nxt.append(child)
        frontier = nxt
    return seen


def child_parts(p: Position) -> set[tuple[tuple[str, ...], tuple[int, ...]]]:
    """Each distinct child of ``p`` as (sorted reduced lands, heaps).

    This is what a solver needs of a move: the independent parts it leaves, each
    named by its reduced form (the key of the tables of solved positions).  Heap
    moves are included (the lands unchanged, one heap smaller).
    """
    from .moves import heap_children
    from .reduce import reduced_lands

    out: set[tuple[tuple[str, ...], tuple[int, ...]]] = set()
    for m in representative_moves(p):
        child = apply_move(p, m, check=False)
        out.add((tuple(reduced_lands(child)), child.heaps))
    for child in heap_children(p):
        out.add((tuple(reduced_lands(child)), child.heaps))
    return out
