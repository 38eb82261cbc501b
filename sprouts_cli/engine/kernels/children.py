"""A child of a land, compiled: the regions a move makes, cleaned and cut into lands (``child_lands_kernel``).
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .land_code import _read_parent, land_code_kernel


@kernel
def _walk_into(out, pos, spots, b0, b1, c, lives):  # type: ignore[no-untyped-def]
    """``moves.walk``: the boundary ``spots[b0:b1]`` read once round from corner ``c``, then
    that spot again unless it was alone (3 lives); returns the next position in ``out``."""
    x = spots[b0 + c]
    if lives[x] == 3:
        out[pos] = x
        return pos + 1
    n = b1 - b0
    for j in range(n):
        k = c + j
        if k >= n:
            k -= n
        out[pos] = spots[b0 + k]
        pos += 1
    out[pos] = x
    return pos + 1


@kernel
def _copy_round(out, pos, spots, b0, n, c, j0, j1):  # type: ignore[no-untyped-def]
    """Corners ``c + j0`` to ``c + j1 - 1`` (round the boundary of ``n`` corners at ``spots[b0]``)
    into ``out`` from ``pos``; returns the next position."""
    for j in range(j0, j1):
        k = c + j
        if k >= n:
            k -= n
        out[pos] = spots[b0 + k]
        pos += 1
    return pos


@kernel
def _copy_side(  # type: ignore[no-untyped-def]
    out, pos, spots, bstart, rb, nbr, bi, inside_mask, inside, b_from, b_to, nb
):
    """The region's boundaries other than ``bi`` on one side of a one-boundary move (``inside``:
    1 those in ``inside_mask``, 0 the others) copied as new boundaries; returns (pos, nb)."""
    for k in range(nbr):
        if k != bi and (inside_mask >> k) & 1 == inside:
            b_from[nb] = pos
            for g in range(bstart[rb + k], bstart[rb + k + 1]):
                out[pos] = spots[g]
                pos += 1
            b_to[nb] = pos
            nb += 1
    return pos, nb


@kernel
def _split_lands(nr, keep, r_first, b_from, b_to, corners, lives):  # type: ignore[no-untyped-def]
    """The kept regions joined into lands by their shared live spots (union-find, a land's
    least region its root), each land flattened for ``land_code_kernel`` (regions in order,
    dead spots and empty boundaries dropped, as ``canonical.clean_lands`` leaves them).

    Region r's boundaries are ``r_first[r]`` to ``r_first[r + 1] - 1``, boundary b's corners
    ``corners[b_from[b]:b_to[b]]``.  Returns the flat forms one after another and the offset
    of each land (and of the end).
    """
    parent = np.arange(nr)
    owner = np.full(lives.shape[0], -1, np.int64)
    for r in range(nr):
        if not keep[r]:
            continue
        for b in range(r_first[r], r_first[r + 1]):
            for g in range(b_from[b], b_to[b]):
                s = corners[g]
                if lives[s] == 0:
                    continue
                o = owner[s]
                if o < 0:
                    owner[s] = r
                    continue
                u = o
                while parent[u] != u:
                    u = parent[u]
                w = r
                while parent[w] != w:
                    w = parent[w]
                if u < w:
                    parent[w] = u
                elif w < u:
                    parent[u] = w
    root = np.full(nr, -1, np.int64)
    for r in range(nr):
        if keep[r]:
            u = r
            while parent[u] != u:
                u = parent[u]
            root[r] = u
    out_flat = np.zeros(corners.shape[0] + 2 * r_first[nr] + 2 * nr + 8, np.int64)
    land_off = np.zeros(nr + 1, np.int64)
    nlands = 0
    fp = 0
    for lead in range(nr):
        if not keep[lead] or root[lead] != lead:
            continue
        land_off[nlands] = fp
        start = fp
        fp += 1
        count = 0
        for r in range(lead, nr):
            if not keep[r] or root[r] != lead:
                continue
            count += 1
            nbp = fp
            fp += 1
            nbr = 0
            for b in range(r_first[r], r_first[r + 1]):
                lp = fp
                fp += 1
                n = 0
                for g in range(b_from[b], b_to[b]):
                    s = corners[g]
                    if lives[s]:
                        out_flat[fp] = 4 * s + lives[s]
                        fp += 1
                        n += 1
                if n:
                    out_flat[lp] = n
                    nbr += 1
                else:
                    fp = lp
            out_flat[nbp] = nbr
        out_flat[start] = count
        nlands += 1
    land_off[nlands] = fp
    return out_flat, land_off[: nlands + 1]


@kernel
def child_land_flats_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask):  # type: ignore[no-untyped-def]
    """The cleaned lands of the position after one move (``moves.apply_move`` then
    ``canonical.clean_lands``), each flattened for ``land_code_kernel``.

    ``inside_mask`` has bit k set for each boundary k of the region that goes to side A
    of a one-boundary move.  Regions and boundaries keep the order ``apply_move`` and
    ``clean_lands`` give them.  Returns the lands' flat forms one after another (in an
    array that may run past the last land) and the offset of each land and of the end.
    """
    nreg, reg_first, bstart, spots = _read_parent(pflat)
    z = lives.shape[0]
    new_lives = np.empty(z + 1, np.int64)
    for s in range(z):
        new_lives[s] = lives[s]
    rb = reg_first[region]
    x = spots[bstart[rb + bi] + ci]
    y = spots[bstart[rb + bj] + cj]
    new_lives[x] -= 1
    new_lives[y] -= 1
    new_lives[z] = 1
    # the regions after the move: each a list of boundaries, each a run of corners in `cs`
    total = spots.shape[0] + 8
    cs = np.zeros(total, np.int64)
    nb_all = bstart.shape[0] - 1 + 2
    b_from = np.zeros(nb_all, np.int64)
    b_to = np.zeros(nb_all, np.int64)
    r_first = np.zeros(nreg + 2, np.int64)
    pos = 0
    nb = 0
    nr = 0
    side_b_pending = False
    for r in range(nreg):
        r_first[nr] = nb
        if r != region:
            for b in range(reg_first[r], reg_first[r + 1]):
                b_from[nb] = pos
                for g in range(bstart[b], bstart[b + 1]):
                    cs[pos] = spots[g]
                    pos += 1
                b_to[nb] = pos
                nb += 1
            nr += 1
            continue
        b1s = bstart[rb + bi]
        b1e = bstart[rb + bi + 1]
        if bi != bj:
            for k in range(reg_first[r + 1] - rb):
                if k == bj:
                    continue
                b_from[nb] = pos
                if k == bi:
                    pos = _walk_into(cs, pos, spots, b1s, b1e, ci, lives)
                    cs[pos] = z
                    pos += 1
                    pos = _walk_into(cs, pos, spots, bstart[rb + bj], bstart[rb + bj + 1], cj, lives)
                    cs[pos] = z
                    pos += 1
                else:
                    for g in range(bstart[rb + k], bstart[rb + k + 1]):
                        cs[pos] = spots[g]
                        pos += 1
                b_to[nb] = pos
                nb += 1
            nr += 1
            continue
        # one boundary: side A here (with the boundaries inside), side B as a new last region
        n = b1e - b1s
        offset = (cj - ci) % n
        b_from[nb] = pos
        if offset == 0:
            cs[pos] = x
            cs[pos + 1] = z
            pos += 2
        else:
            pos = _copy_round(cs, pos, spots, b1s, n, ci, 0, offset)
            cs[pos] = y
            cs[pos + 1] = z
            pos += 2
        b_to[nb] = pos
        nb += 1
        pos, nb = _copy_side(
            cs, pos, spots, bstart, rb, reg_first[r + 1] - rb, bi, inside_mask, 1, b_from, b_to, nb
        )
        nr += 1
        side_b_pending = True
    if side_b_pending:
        r_first[nr] = nb
        rb1s = bstart[rb + bi]
        n = bstart[rb + bi + 1] - rb1s
        offset = (cj - ci) % n
        b_from[nb] = pos
        if offset == 0:
            pos = _walk_into(cs, pos, spots, rb1s, rb1s + n, ci, lives)
            cs[pos] = z
            pos += 1
        else:
            pos = _copy_round(cs, pos, spots, rb1s, n, ci, offset, n)
            cs[pos] = x
            cs[pos + 1] = z
            pos += 2
        b_to[nb] = pos
        nb += 1
        pos, nb = _copy_side(
            cs, pos, spots, bstart, rb, reg_first[region + 1] - rb, bi, inside_mask, 0, b_from, b_to, nb
        )
        nr += 1
    r_first[nr] = nb
    # clean: drop regions with fewer than two lives, dead spots and empty boundaries
    keep = np.zeros(nr, np.bool_)
    for r in range(nr):
        first = -1
        for b in range(r_first[r], r_first[r + 1]):
            for g in range(b_from[b], b_to[b]):
                s = cs[g]
                v = new_lives[s]
                if v:
                    if first < 0:
                        if v >= 2:
                            keep[r] = True
                            break
                        first = s
                    elif s != first:
                        keep[r] = True
                        break
            if keep[r]:
                break
    # lands: kept regions joined by a shared spot, each flattened, then coded
    return _split_lands(nr, keep, r_first, b_from, b_to, cs, new_lives)


@kernel
def child_lands_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask):  # type: ignore[no-untyped-def]
    """``child_land_flats_kernel``'s lands and their codes: the flat forms one after another
    with their offsets, and the codes (as bytes) with theirs."""
    out_flat, land_off = child_land_flats_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask)
    nlands = land_off.shape[0] - 1
    key_parts = []
    for i in range(nlands):
        code, _text = land_code_kernel(out_flat[land_off[i] : land_off[i + 1]], False)
        key_parts.append(code)
    key_off = np.zeros(nlands + 1, np.int64)
    for i in range(nlands):
        key_off[i + 1] = key_off[i] + key_parts[i].shape[0]
    keys = np.empty(key_off[nlands], np.uint8)
    for i in range(nlands):
        keys[key_off[i] : key_off[i + 1]] = key_parts[i]
    return out_flat[: land_off[nlands]].copy(), land_off.copy(), keys, key_off
