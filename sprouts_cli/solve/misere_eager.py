"""The misère solver's two eager searches, kept as references for its df-pn (``misere.py``).

Both make every child of a state at once (``expand``): depth-first search (``method="dfs"``:
a state wins iff some child loses, settled children first, then the cheapest) and
best-first proof-number search (``method="pns"``: Allis, van der Meulen and van den Herik
1994).  The default search, depth-first proof-number search with lazy children, makes a
state's children one at a time and most states are settled long before all are made; the
tests compare it with these two.  Both run on a ``MisereSolver``'s states, memo and table.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the solver calls these functions with itself
    from .misere import MisereSolver, State

#: An infinite proof or disproof number.
INF = 10**9

#: A proof-number search node, changed in place: ``[pn, dn, open children or None]``.
PnNode = list[Any]


def child_states(solver: MisereSolver, state: State) -> Iterator[State]:
    """Every child of a state: moves in its lands, then in its trees, then in its heaps."""
    lands, trees, heaps = state
    store = solver.store
    for i, land in enumerate(lands):
        if i and lands[i - 1] == land:
            continue
        others = lands[:i] + lands[i + 1 :]
        for cl, ch in solver._children(land):
            yield solver._state(others + cl, trees, heaps + ch)
    for i, t in enumerate(trees):
        if i and trees[i - 1] == t:
            continue
        others_t = trees[:i] + trees[i + 1 :]
        for o in store.options(t):
            yield solver._state(lands, (*others_t, o), heaps)
    for i, h in enumerate(heaps):
        if i and heaps[i - 1] == h:
            continue
        rest = heaps[:i] + heaps[i + 1 :]
        for k in range(h):
            yield solver._state(lands, trees, (*rest, k))


def order_key(solver: MisereSolver, state: State) -> tuple[int, int, int]:
    """Cheapest first: the smallest largest region, then largest land, then fewest lives."""
    shapes = [solver._land_shape(x) for x in state[0]]
    return (
        max((r for _, r in shapes), default=0),
        max((n for n, _ in shapes), default=0),
        sum(n for n, _ in shapes),
    )


def expand(solver: MisereSolver, state: State) -> list[State]:
    """The distinct children of a state, all made at once."""
    solver._deadline.check()
    solver.stats["states_searched"] += 1
    solver.stats["nodes"] += 1
    return list(dict.fromkeys(child_states(solver, state)))


def depth_first(solver: MisereSolver, state: State) -> bool:
    """Depth-first: win iff some child is a loss; settled children first, then the cheapest."""
    open_kids = []
    result = False
    for k in expand(solver, state):
        known = solver._known(k)
        if known is False:
            result = True
            break
        if known is None:
            open_kids.append(k)
    else:
        open_kids.sort(key=lambda k: order_key(solver, k))
        result = any(not solver._win(k) for k in open_kids)
    solver._proved(state, result)
    return result


def proof_number_search(solver: MisereSolver, root: State) -> bool:
    """Proof-number search (Allis, van der Meulen and van den Herik 1994), negamax form.

    ``pn`` is the number of leaves to settle to prove the mover wins, ``dn`` to prove
    the mover loses: ``pn = min dn(child)``, ``dn = Σ pn(child)``.  The most-proving
    leaf is expanded each round and the numbers are updated along the path back.
    Settled states go to the memo as soon as they are proved.
    """
    nodes: dict[State, PnNode] = {root: [1, 1, None]}
    while root in nodes:
        path = [root]
        node = nodes[root]
        while node[2] is not None:
            best = None
            best_dn = INF + 1
            for c in node[2]:
                cn = nodes.get(c)
                if cn is not None and cn[1] < best_dn:
                    best, best_dn = c, cn[1]
            if best is None:
                break  # every child was settled through another parent: update below
            path.append(best)
            node = nodes[best]
        if node[2] is None:
            _pns_expand(solver, nodes, path[-1], node)
            path.pop()
        for state in reversed(path):
            _pns_update(solver, nodes, state)
    return bool(solver._known(root))


def _pns_expand(solver: MisereSolver, nodes: dict[State, PnNode], leaf: State, node: PnNode) -> None:
    open_kids = []
    for k in expand(solver, leaf):
        known = solver._known(k)
        if known is None:
            open_kids.append(k)
            if k not in nodes:
                nodes[k] = [1, 1, None]
        elif not known:
            _settle(solver, nodes, leaf, True)
            return
    if not open_kids:
        _settle(solver, nodes, leaf, False)
        return
    open_kids.sort(key=lambda k: order_key(solver, k))
    node[2] = open_kids
    _pns_update(solver, nodes, leaf)


def _pns_update(solver: MisereSolver, nodes: dict[State, PnNode], state: State) -> None:
    """Recompute a node's numbers from its children; settle it when they decide it."""
    n = nodes.get(state)
    if n is None or n[2] is None:
        return
    pn = INF
    dn = 0
    alive = []
    for c in n[2]:
        cn = nodes.get(c)
        if cn is None:
            if solver._known(c):
                continue  # a child the opponent wins adds nothing to either number
            _settle(solver, nodes, state, True)
            return
        alive.append(c)
        if cn[1] < pn:
            pn = cn[1]
        dn += cn[0]
    if not alive:
        _settle(solver, nodes, state, False)
        return
    n[0], n[1], n[2] = pn, min(dn, INF), alive


def _settle(solver: MisereSolver, nodes: dict[State, PnNode], state: State, win: bool) -> None:
    solver._proved(state, win)
    nodes.pop(state, None)


__all__ = ["INF", "child_states", "depth_first", "expand", "order_key", "proof_number_search"]
