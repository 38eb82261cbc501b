"""Slow, obviously-correct reference implementations the engine is checked against.

Nothing here is used by the program: these are the definitions, written plainly.
"""

from __future__ import annotations

import sys
from itertools import product

from sprouts_cli.engine.parts import clean, land_groups
from sprouts_cli.engine.position import Position

sys.setrecursionlimit(100000)


def _kinds(regions, lives):
    where: dict[int, list[int]] = {}
    for ri, r in enumerate(regions):
        for b in r:
            for s in b:
                where.setdefault(s, []).append(ri)
    kinds = {}
    for s, rs in where.items():
        if lives[s] >= 2:
            kinds[s] = ("0", "1")[3 - lives[s]]
        elif len(rs) == 1:
            kinds[s] = "2"
        else:
            kinds[s] = "small" if rs[0] == rs[1] else "cap"
    return kinds


def _lexmin_land(regions, kinds) -> tuple:
    """The least token sequence over every way of writing the land (branch on all ties)."""
    best: list[tuple | None] = [None]

    def read(b, rot, capnames, smallnames):
        caps = dict(capnames)
        smalls = dict(smallnames)
        toks = []
        for s in b[rot:] + b[:rot]:
            k = kinds[s]
            if k == "cap":
                toks.append(3 + caps.setdefault(s, len(caps)))
            elif k == "small":
                toks.append(10**6 + smalls.setdefault(s, len(smalls)))
            else:
                toks.append(int(k))
        return (*toks, -1), caps, smalls

    def rec(remaining, current, capnames, smallnames, out):
        if best[0] is not None and out > best[0][: len(out)]:
            return
        if current is None:
            if not remaining:
                if best[0] is None or out < best[0]:
                    best[0] = out
                return
            cands = []
            for ri in remaining:
                for bi, b in enumerate(regions[ri]):
                    for rot in range(len(b)):
                        chunk, caps, smalls = read(b, rot, capnames, {})
                        rest = [x for x in range(len(regions[ri])) if x != bi]
                        cands.append(((-2, *chunk), ri, rest, caps, smalls))
        else:
            ri, rest_b = current
            if not rest_b:
                rec(remaining, None, capnames, {}, out)
                return
            cands = []
            for bi in rest_b:
                b = regions[ri][bi]
                for rot in range(len(b)):
                    chunk, caps, smalls = read(b, rot, capnames, smallnames)
                    cands.append((chunk, ri, [x for x in rest_b if x != bi], caps, smalls))
        low = min(c[0] for c in cands)
        for chunk, ri, rest, caps, smalls in cands:
            if chunk != low:
                continue
            new_remaining = [x for x in remaining if x != ri] if current is None else remaining
            rec(new_remaining, (ri, rest), caps, smalls, out + chunk)

    rec(list(range(len(regions))), None, {}, {}, ())
    assert best[0] is not None
    return best[0]


def brute_canonical(p: Position) -> tuple:
    """A canonical key by exhaustive least writing: slow, but plainly a true invariant.

    Each region may be read either way (reversing every boundary of one region names
    the same position), so the key is the least writing over every choice of direction
    per region, mirroring the whole land among them.
    """
    c = clean(p)
    lands = []
    for group in land_groups(c):
        regions = [c.regions[i] for i in group]
        kinds = _kinds(regions, c.lives)
        both = [(r, tuple(b[::-1] for b in r)) for r in regions]
        lands.append(min(_lexmin_land(list(choice), kinds) for choice in product(*both)))
    return (tuple(sorted(lands)), p.heaps)


_children: dict[str, list[str]] = {}


def brute_children(key: str) -> list[str]:
    """Children by plain enumeration of every move (no parts, no tables)."""
    hit = _children.get(key)
    if hit is None:
        from sprouts_cli.engine.moves import all_moves, apply_move, heap_children

        p = Position.from_string(key)
        kids = {apply_move(p, m).canonical() for m in all_moves(p)}
        kids.update(c.canonical() for c in heap_children(p))
        hit = _children[key] = sorted(kids)
    return hit


_nimbers: dict[str, int] = {}
_misere: dict[str, bool] = {}


def brute_nimber(key: str) -> int:
    """The nimber by the mex rule over all children of the whole position."""
    hit = _nimbers.get(key)
    if hit is None:
        seen = {brute_nimber(k) for k in brute_children(key)}
        hit = 0
        while hit in seen:
            hit += 1
        _nimbers[key] = hit
    return hit


def brute_misere_win(key: str) -> bool:
    """True when the player to move wins in misère play (plain minimax)."""
    hit = _misere.get(key)
    if hit is None:
        kids = brute_children(key)
        hit = _misere[key] = (not kids) or any(not brute_misere_win(k) for k in kids)
    return hit
