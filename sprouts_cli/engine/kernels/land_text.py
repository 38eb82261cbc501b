"""A land's string and its moves, compiled: reading a land string the engine wrote
(``parse_land_kernel``) and listing its moves packed in 64-bit words (``list_moves_kernel``).
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from .land_code import _read_parent

# ------------------------------------------------------------------ a land's string and its moves

#: The packing of ``solve.children.pack_moves``: region, boundary, corner, boundary2,
#: corner2 in 8 bits each, a flag for a one-boundary move, the boundaries inside from bit 41.
PACK_BYTE = 255
PACK_ONE_BOUNDARY = 1 << 40
PACK_INSIDE_SHIFT = 41
#: Boundaries past this go inside as Python ints only (bit 63 is the sign of an int64).
PACK_INSIDE_LIMIT = 22

_LIVES_OF_DIGIT = (3, 2, 1, 0)


@kernel
def _read_number(text, i):  # type: ignore[no-untyped-def]
    """The decimal number at ``text[i:]`` and the index after it (-1 if there is none)."""
    n = text.shape[0]
    value = 0
    j = i
    while j < n and 48 <= text[j] <= 57:
        value = value * 10 + np.int64(text[j]) - 48
        j += 1
    if j == i:
        return -1, j
    return value, j


@kernel
def parse_land_kernel(text):  # type: ignore[no-untyped-def]
    """A land string (ASCII bytes) as ``(flat, lives)``: ``flat`` as ``kernels.flatten_position``
    writes it, spots numbered as they first appear; both empty for a string it does not take."""
    n = text.shape[0]
    fail = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    # an upper bound on spots, corners and boundaries: every character, and every 0*k
    bound = n + 2
    i = 0
    while i < n:
        if text[i] == 42:  # *
            k, i = _read_number(text, i + 1)
            if k < 0:
                return fail
            bound += k
        else:
            i += 1
    lives = np.zeros(bound, np.int64)
    corners = np.zeros(bound, np.int64)
    bnd_end = np.zeros(bound, np.int64)  # corners of boundary b end here
    reg_end = np.zeros(bound, np.int64)  # boundaries of region r end here
    cap_spot = np.full(n + 2, -1, np.int64)
    small_spot = np.full(n + 2, -1, np.int64)
    small_region = np.full(n + 2, -1, np.int64)
    nspots = 0
    ncorners = 0
    nbnd = 0
    nreg = 0
    open_corners = 0  # corners of the boundary being read
    i = 0
    while i < n:
        c = np.int64(text[i])
        i += 1
        if c == 46 or c == 124:  # . or |
            if open_corners:
                bnd_end[nbnd] = ncorners
                nbnd += 1
                open_corners = 0
            if c == 124:
                reg_end[nreg] = nbnd
                nreg += 1
        elif 48 <= c <= 51:  # a digit
            if c == 48 and i < n and text[i] == 42:  # 0*k: k lone spots, each a boundary
                if open_corners:
                    return fail
                k, i = _read_number(text, i + 1)
                for _ in range(k):
                    lives[nspots] = 3
                    corners[ncorners] = nspots
                    nspots += 1
                    ncorners += 1
                    bnd_end[nbnd] = ncorners
                    nbnd += 1
            else:
                lives[nspots] = _LIVES_OF_DIGIT[c - 48]
                corners[ncorners] = nspots
                nspots += 1
                ncorners += 1
                open_corners += 1
        else:
            capital = True
            if 65 <= c <= 89:
                index = c - 64
            elif 97 <= c <= 108:
                index = c - 96
                capital = False
            elif (c == 109 or c == 110) and i < n and text[i] == 40:  # m( or n(
                index, i = _read_number(text, i + 1)
                if index <= (12 if c == 109 else 25) or i >= n or text[i] != 41:
                    return fail
                i += 1
                capital = c == 110
            else:
                return fail
            if index > n:
                return fail
            if capital:
                s = cap_spot[index]
                if s < 0:
                    s = cap_spot[index] = nspots
                    lives[nspots] = 1
                    nspots += 1
            else:
                s = small_spot[index]
                if s < 0 or small_region[index] != nreg:
                    s = small_spot[index] = nspots
                    small_region[index] = nreg
                    lives[nspots] = 1
                    nspots += 1
            corners[ncorners] = s
            ncorners += 1
            open_corners += 1
    if open_corners:
        bnd_end[nbnd] = ncorners
        nbnd += 1
    reg_end[nreg] = nbnd
    nreg += 1
    flat = np.empty(1 + nreg + nbnd + ncorners, np.int64)
    flat[0] = nreg
    p = 1
    b = 0
    g = 0
    for r in range(nreg):
        flat[p] = reg_end[r] - b
        p += 1
        while b < reg_end[r]:
            flat[p] = bnd_end[b] - g
            p += 1
            while g < bnd_end[b]:
                flat[p] = corners[g]
                p += 1
                g += 1
            b += 1
    return flat, lives[:nspots].copy()


@kernel
def _least_shape(spots, lives, b0, b1, out, tmp, names):  # type: ignore[no-untyped-def]
    """``moves.boundary_shape`` of the live spots of ``spots[b0:b1]`` into ``out``; its length.

    ``names`` is scratch indexed by spot, all -1 on entry and on return.
    """
    n = 0
    for g in range(b0, b1):
        if lives[spots[g]]:
            tmp[n] = spots[g]
            n += 1
    best_set = False
    for start in range(n):
        nn = 0
        less = False
        equal = True
        for j in range(n):
            k = start + j
            if k >= n:
                k -= n
            s = tmp[k]
            lv = lives[s]
            if lv >= 2:
                t = -lv
            else:
                twice = 0
                for q in range(n):
                    if tmp[q] == s:
                        twice += 1
                if twice == 2:
                    if names[s] < 0:
                        names[s] = nn
                        nn += 1
                    t = names[s]
                else:
                    t = -1
            if not best_set:
                out[j] = t
            elif equal and not less:
                if t < out[j]:
                    less = True
                    equal = False
                    out[j] = t
                elif t > out[j]:
                    equal = False
            elif less:
                out[j] = t
            # (greater: the rest of this reading is not needed, but names are reset below)
        for j in range(n):
            names[tmp[j]] = -1
        best_set = True
    return n


@kernel
def _push(words, n, value):  # type: ignore[no-untyped-def]
    """``words[n] = value``, in ``words`` or, when it is full, in a copy twice as long (returned)."""
    if n == words.shape[0]:
        grown = np.zeros(2 * n, np.int64)
        grown[:n] = words
        words = grown
    words[n] = value
    return words


@kernel
def list_moves_kernel(pflat, lives):  # type: ignore[no-untyped-def]
    """``moves.symmetric_move_args`` of a position, packed as ``pack_moves`` packs them.

    Returns the words and True, or an empty array and False when a move does not fit
    the packing (the caller then lists in Python).
    """
    nreg, reg_first, bstart, spots = _read_parent(pflat)
    nbnd = bstart.shape[0] - 1
    ncorner = spots.shape[0]
    nsp = lives.shape[0]
    counts = np.zeros(nsp, np.int64)
    for g in range(ncorner):
        if lives[spots[g]]:
            counts[spots[g]] += 1
    fail = np.zeros(0, np.int64)
    words = np.zeros(64, np.int64)
    nwords = 0
    # scratch
    maxb = 1
    for r in range(nreg):
        if reg_first[r + 1] - reg_first[r] > maxb:
            maxb = reg_first[r + 1] - reg_first[r]
    maxlen = 1
    for b in range(nbnd):
        if bstart[b + 1] - bstart[b] > maxlen:
            maxlen = bstart[b + 1] - bstart[b]
    names = np.full(nsp, -1, np.int64)
    tmp = np.zeros(maxlen, np.int64)
    shape_buf = np.zeros(maxb * maxlen, np.int64)
    shape_len = np.zeros(maxb, np.int64)
    is_live = np.zeros(maxb, np.bool_)
    is_free = np.zeros(maxb, np.bool_)
    class_of = np.full(maxb, -1, np.int64)
    cls_first = np.zeros(maxb, np.int64)  # a class's members, in index order, as a linked list
    cls_second = np.full(maxb, -1, np.int64)
    cls_size = np.zeros(maxb, np.int64)
    next_member = np.full(maxb, -1, np.int64)
    cls_last = np.zeros(maxb, np.int64)
    cls_free = np.zeros(maxb, np.bool_)
    mark = np.full(nsp, -1, np.int64)
    # sharings: classes minus the line's boundary, as (first member, size, members...)
    oth_members = np.zeros(maxb, np.int64)
    oth_start = np.zeros(maxb + 1, np.int64)
    oth_key = np.zeros(maxb, np.int64)
    oth_order = np.zeros(maxb, np.int64)
    counters = np.zeros(maxb, np.int64)
    for ri in range(nreg):
        rb = reg_first[ri]
        nb = reg_first[ri + 1] - rb
        total = 0
        for k in range(nb):
            is_live[k] = False
            for g in range(bstart[rb + k], bstart[rb + k + 1]):
                s = spots[g]
                if lives[s]:
                    is_live[k] = True
                    if mark[s] != ri:
                        mark[s] = ri
                        total += lives[s]
        if total < 2:
            continue
        # interchangeable classes: free boundaries by shape (first seen first), then the others
        ncls = 0
        for k in range(nb):
            class_of[k] = -1
            next_member[k] = -1
            if not is_live[k]:
                continue
            free = True
            for g in range(bstart[rb + k], bstart[rb + k + 1]):
                s = spots[g]
                if lives[s]:
                    here = 0
                    for q in range(bstart[rb + k], bstart[rb + k + 1]):
                        if spots[q] == s:
                            here += 1
                    if here != counts[s]:
                        free = False
                        break
            is_free[k] = free
            if not free:
                continue
            shape_len[k] = _least_shape(
                spots, lives, bstart[rb + k], bstart[rb + k + 1], shape_buf[k * maxlen :], tmp, names
            )
            for c in range(ncls):
                f = cls_first[c]
                if shape_len[f] != shape_len[k]:
                    continue
                same = True
                for j in range(shape_len[k]):
                    if shape_buf[f * maxlen + j] != shape_buf[k * maxlen + j]:
                        same = False
                        break
                if same:
                    class_of[k] = c
                    break
            if class_of[k] < 0:
                c = ncls
                ncls += 1
                class_of[k] = c
                cls_first[c] = k
                cls_size[c] = 0
                cls_second[c] = -1
                cls_free[c] = True
            c = class_of[k]
            if cls_size[c] > 0:
                next_member[cls_last[c]] = k
                if cls_size[c] == 1:
                    cls_second[c] = k
            cls_last[c] = k
            cls_size[c] += 1
        for k in range(nb):
            if is_live[k] and not is_free[k]:
                c = ncls
                ncls += 1
                class_of[k] = c
                cls_first[c] = k
                cls_size[c] = 1
                cls_second[c] = -1
                cls_last[c] = k
                cls_free[c] = False
        # the ends lines may start from: each class's first boundary, in index order
        for bi in range(nb):
            if class_of[bi] < 0 or cls_first[class_of[bi]] != bi:
                continue
            # the ways of sharing out the others for a one-boundary line from bi
            noth = 0
            pos = 0
            # loose classes (their first remaining member free), then tied ones, each in class order;
            # loose sorted by first remaining member (stable)
            for pass_loose in (True, False):
                first_of_pass = noth
                for c in range(ncls):
                    f = cls_first[c]
                    if f == bi:
                        f = next_member[f]
                    if f < 0:
                        continue
                    if is_free[f] != pass_loose:
                        continue
                    oth_start[noth] = pos
                    k = f
                    while k >= 0:
                        if k != bi:
                            oth_members[pos] = k
                            pos += 1
                        k = next_member[k]
                    oth_key[noth] = f
                    oth_order[noth] = noth
                    noth += 1
                if pass_loose:
                    # insertion sort of the loose classes by first member (stable)
                    for x in range(first_of_pass + 1, noth):
                        y = x
                        while y > first_of_pass and oth_key[oth_order[y - 1]] > oth_key[oth_order[x]]:
                            y -= 1
                        v = oth_order[x]
                        for z in range(x, y, -1):
                            oth_order[z] = oth_order[z - 1]
                        oth_order[y] = v
            oth_start[noth] = pos
            for ci in range(bstart[rb + bi + 1] - bstart[rb + bi]):
                s = spots[bstart[rb + bi] + ci]
                if not lives[s]:
                    continue
                base = ri | bi << 8 | ci << 16
                if ri > PACK_BYTE or bi > PACK_BYTE or ci > PACK_BYTE:
                    return fail, False
                # a loop, or a line to another corner of the same boundary, times each sharing
                for cj in range(ci, bstart[rb + bi + 1] - bstart[rb + bi]):
                    t = spots[bstart[rb + bi] + cj]
                    if not lives[t] or (cj == ci and lives[s] < 2) or (cj != ci and t == s):
                        continue
                    if cj > PACK_BYTE:
                        return fail, False
                    word0 = base | bi << 24 | cj << 32 | PACK_ONE_BOUNDARY
                    for x in range(noth):
                        counters[x] = 0
                    while True:
                        mask = 0
                        for x in range(noth):
                            o = oth_order[x]
                            for y in range(counters[x]):
                                k = oth_members[oth_start[o] + y]
                                if k >= PACK_INSIDE_LIMIT:
                                    return fail, False
                                mask |= 1 << k
                        words = _push(words, nwords, word0 | mask << PACK_INSIDE_SHIFT)
                        nwords += 1
                        # the next counts: the last class varies fastest
                        x = noth - 1
                        while x >= 0:
                            o = oth_order[x]
                            if counters[x] < oth_start[o + 1] - oth_start[o]:
                                counters[x] += 1
                                break
                            counters[x] = 0
                            x -= 1
                        if x < 0:
                            break
                # lines to the other ends after this corner (the later corners of later ends)
                for bj in range(bi + 1, nb):
                    if class_of[bj] < 0 or cls_first[class_of[bj]] != bj:
                        continue
                    for cj in range(bstart[rb + bj + 1] - bstart[rb + bj]):
                        t = spots[bstart[rb + bj] + cj]
                        if not lives[t] or t == s:
                            continue
                        if bj > PACK_BYTE or cj > PACK_BYTE:
                            return fail, False
                        words = _push(words, nwords, base | bj << 24 | cj << 32)
                        nwords += 1
                # lines to the second boundary of its own class
                partner = cls_second[class_of[bi]]
                if partner >= 0:
                    for cj in range(bstart[rb + partner + 1] - bstart[rb + partner]):
                        t = spots[bstart[rb + partner] + cj]
                        if not lives[t]:
                            continue
                        if partner > PACK_BYTE or cj > PACK_BYTE:
                            return fail, False
                        words = _push(words, nwords, base | partner << 24 | cj << 32)
                        nwords += 1
    return words[:nwords].copy(), True
