"""The directions of a land's regions, compiled: which regions may be read either way
(``_land_directions``, as ``engine/directions.py`` decides it in Python).
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .land_code import _compare, _land_code, _read_parent

# ------------------------------------------------------------------ the directions of a land's regions

#: ``directions._SMALL``, ``directions._CAPITAL`` and ``directions.MAX_ROUNDS``.
DIR_SMALL = 3
DIR_CAPITAL = 1 << 20
DIR_ROUNDS = 4
#: ``directions.KEEP``, ``TURN`` and ``BOTH``.
DIR_KEEP = 0
DIR_TURN = 1
DIR_BOTH = 2


@kernel
def _least_rotation_into(tok, n, out, o0):  # type: ignore[no-untyped-def]
    """The least rotation of ``tok[:n]``, written to ``out[o0:o0+n]``."""
    best = 0
    for c in range(1, n):
        for i in range(n):
            x = tok[(c + i) % n]
            y = tok[(best + i) % n]
            if x != y:
                if x < y:
                    best = c
                break
    for i in range(n):
        out[o0 + i] = tok[(best + i) % n]


@kernel
def _reversal_rotates(raw, g0, n):  # type: ignore[no-untyped-def]
    """Whether the boundary ``raw[g0:g0+n]`` read backwards is one of its rotations."""
    for i in range(n):
        same = True
        for j in range(n):
            if raw[g0 + (i + j) % n] != raw[g0 + n - 1 - j]:
                same = False
                break
        if same:
            return True
    return False


@kernel
def _land_directions(flat):  # type: ignore[no-untyped-def]
    """``directions.directions`` of a land flattened as ``flatten_land`` writes it: for each
    region ``DIR_KEEP``, ``DIR_TURN`` or ``DIR_BOTH``, the same choices, by the same signatures."""
    nreg, reg_first, bstart, raw = _read_parent(flat)
    choice = np.zeros(nreg, np.int64)
    nbnd = bstart.shape[0] - 1
    ncorner = raw.shape[0]
    free = np.ones(nreg, np.bool_)
    any_fixed = False
    for r in range(nreg):
        for b in range(reg_first[r], reg_first[r + 1]):
            n = bstart[b + 1] - bstart[b]
            if n > 2 and not _reversal_rotates(raw, bstart[b], n):
                free[r] = False
                any_fixed = True
                break
    if nreg < 2 or not any_fixed:
        return choice
    breg = np.empty(nbnd, np.int64)
    cb = np.empty(ncorner, np.int64)
    maxspot = 0
    for r in range(nreg):
        for b in range(reg_first[r], reg_first[r + 1]):
            breg[b] = r
            for g in range(bstart[b], bstart[b + 1]):
                cb[g] = b
                if raw[g] // 4 > maxspot:
                    maxspot = raw[g] // 4
    first = np.full(maxspot + 1, -1, np.int64)
    second = np.full(maxspot + 1, -1, np.int64)
    for g in range(ncorner):
        s = raw[g] // 4
        if first[s] < 0:
            first[s] = g
        elif second[s] < 0:
            second[s] = g
        else:
            return choice  # a spot met three times: no land (the coder says so)
    # each corner: its token (0, 1, 2), or -1 a small letter (``ahead`` corners to its other
    # corner, 0 on another boundary), or -2 a capital (``beyond``: the region on its other side)
    kind = np.empty(ncorner, np.int64)
    ahead = np.zeros(ncorner, np.int64)
    beyond = np.zeros(ncorner, np.int64)
    for g in range(ncorner):
        s = raw[g] // 4
        lv = raw[g] & 3
        if lv >= 2:
            kind[g] = 3 - lv
        elif second[s] < 0:
            kind[g] = 2
        else:
            o = second[s] if first[s] == g else first[s]
            if breg[cb[o]] != breg[cb[g]]:
                kind[g] = -2
                beyond[g] = breg[cb[o]]
            else:
                kind[g] = -1
                if cb[o] == cb[g]:
                    n = bstart[cb[g] + 1] - bstart[cb[g]]
                    ahead[g] = (o - g) % n
    tok = np.empty(ncorner + 1, np.int64)
    rot = np.empty(2 * ncorner, np.int64)  # each boundary's least rotation, read each way
    slen = np.zeros(nreg, np.int64)
    soff = np.zeros(nreg + 1, np.int64)
    for r in range(nreg):
        slen[r] = (reg_first[r + 1] - reg_first[r]) + (bstart[reg_first[r + 1]] - bstart[reg_first[r]])
        soff[r + 1] = soff[r] + slen[r]
    sig = np.empty(2 * soff[nreg], np.int64)  # direction d of region r at d * soff[nreg] + soff[r]
    pair = np.empty(2 * soff[nreg], np.int64)  # the lesser signature, then the other
    idx = np.empty(nbnd + nreg, np.int64)
    colour = np.zeros(nreg, np.int64)
    fresh = np.zeros(nreg, np.int64)
    classes = 1
    for _round in range(DIR_ROUNDS):
        for b in range(nbnd):
            n = bstart[b + 1] - bstart[b]
            for d in range(2):
                for i in range(n):
                    g = bstart[b] + (i if d == 0 else n - 1 - i)
                    k = kind[g]
                    if k == -2:
                        tok[i] = DIR_CAPITAL + colour[beyond[g]]
                    elif k == -1:
                        a = ahead[g]
                        tok[i] = DIR_SMALL + (a if d == 0 or a == 0 else n - a)
                    else:
                        tok[i] = k
                _least_rotation_into(tok, n, rot, d * ncorner + bstart[b])
        for r in range(nreg):
            for d in range(2):
                # the region's boundaries sorted by (length, least rotation): insertion sort
                m = 0
                for b in range(reg_first[r], reg_first[r + 1]):
                    nb_ = bstart[b + 1] - bstart[b]
                    j = m
                    here = d * ncorner + bstart[b]
                    while j > 0:
                        q = idx[j - 1]
                        nq = bstart[q + 1] - bstart[q]
                        if nq < nb_:
                            break
                        if nq == nb_ and _compare(rot, d * ncorner + bstart[q], nq, rot, here, nb_) <= 0:
                            break
                        idx[j] = q
                        j -= 1
                    idx[j] = b
                    m += 1
                p = d * soff[nreg] + soff[r]
                for j in range(m):
                    b = idx[j]
                    nb_ = bstart[b + 1] - bstart[b]
                    sig[p] = nb_
                    p += 1
                    for i in range(nb_):
                        sig[p] = rot[d * ncorner + bstart[b] + i]
                        p += 1
            half = slen[r]
            lo = 0 if _compare(sig, soff[r], half, sig, soff[nreg] + soff[r], half) <= 0 else 1
            for i in range(half):
                pair[2 * soff[r] + i] = sig[lo * soff[nreg] + soff[r] + i]
                pair[2 * soff[r] + half + i] = sig[(1 - lo) * soff[nreg] + soff[r] + i]
        # ranks of the regions' pairs: the regions sorted by pair, equal pairs one rank
        for r in range(nreg):
            j = r
            while j > 0:
                q = idx[j - 1]
                if _compare(pair, 2 * soff[q], 2 * slen[q], pair, 2 * soff[r], 2 * slen[r]) <= 0:
                    break
                idx[j] = q
                j -= 1
            idx[j] = r
        rank = 0
        for j in range(nreg):
            r = idx[j]
            if j > 0:
                q = idx[j - 1]
                if _compare(pair, 2 * soff[q], 2 * slen[q], pair, 2 * soff[r], 2 * slen[r]) != 0:
                    rank += 1
            fresh[r] = rank
        if rank + 1 == classes:
            break
        classes = rank + 1
        for r in range(nreg):
            colour[r] = fresh[r]
    for r in range(nreg):
        if free[r]:
            continue
        c = _compare(sig, soff[r], slen[r], sig, soff[nreg] + soff[r], slen[r])
        choice[r] = DIR_KEEP if c < 0 else DIR_TURN if c > 0 else DIR_BOTH
    return choice


@kernel
def _turned_land(flat, choice, mask):  # type: ignore[no-untyped-def]
    """A copy of a flat land with the regions ``choice`` turns reversed: every ``DIR_TURN``
    region, and the k-th ``DIR_BOTH`` region when bit k of ``mask`` is set."""
    out = flat.copy()
    p = 1
    k = 0
    for r in range(flat[0]):
        nb = flat[p]
        p += 1
        turn = choice[r] == DIR_TURN
        if choice[r] == DIR_BOTH:
            turn = (mask >> k) & 1 == 1
            k += 1
        for _b in range(nb):
            n = flat[p]
            p += 1
            if turn:
                for i in range(n):
                    out[p + i] = flat[p + n - 1 - i]
            p += n
    return out


@kernel
def _least_reading_code(flat, write):  # type: ignore[no-untyped-def]
    """``_land_code`` of a land at its least reading (``canonical._least_reading_text``):
    every reading ``_land_directions`` leaves is coded and the least code kept."""
    choice = _land_directions(flat)
    both = 0
    plain = True
    for r in range(choice.shape[0]):
        if choice[r] == DIR_BOTH:
            both += 1
        if choice[r] != DIR_KEEP:
            plain = False
    if plain:
        return _land_code(flat, write, True)
    best_code, best_text = _land_code(_turned_land(flat, choice, 0), write, True)
    if not len(best_code):
        return best_code, best_text
    for mask in range(1, 1 << both):
        code, text = _land_code(_turned_land(flat, choice, mask), write, True)
        if not len(code):
            return code, text
        if _compare(code, 0, code.shape[0], best_code, 0, best_code.shape[0]) < 0:
            best_code, best_text = code, text
    return best_code, best_text
