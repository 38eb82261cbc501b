"""The canonical code and string of a cleaned land, compiled: ``land_code_kernel`` and what it calls.

The regions and pieces of a land form a tree rooted at its centre; each is coded
from its children's codes, both orientations are coded and the lesser wins, and the
land is written from it as ``land_tree.py`` writes it (the package's docstring has
the whole of it).  Also the flat encoding's helpers every other kernel module uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel

# Kinds of spots, as in boundary_patterns.py (K_*): written 0, 1, 2, a capital (3), a small letter (4).

#: Token values, as in ``boundary_patterns.py``: digits 0-2, capital n is 3 + n, small letter n is
#: SMALL_BASE + n; END closes every tuple of the Python code (less than any token, so a
#: flat sequence of tokens and ENDs compares as the nested tuples it stands for).
K_CAP_TOKEN = 3
SMALL_BASE = 1 << 40
END = -1
#: ``_carve``'s value for scratch that is written before it is read.
NO_FILL = -(1 << 62)


@kernel
def _carve(ws, top, n, value):  # type: ignore[no-untyped-def]
    """``n`` words of the workspace ``ws`` from ``top``, set to ``value`` unless it is ``NO_FILL``;
    returns them (a view) and the new top.  A land's scratch arrays are carved from one
    workspace: allocating each (about eighty a land) was a third of a land's time."""
    if top + n > ws.shape[0]:
        raise IndexError("a kernel's workspace is too small")
    view = ws[top : top + n]
    if value != NO_FILL:
        for i in range(n):
            view[i] = value
    return view, top + n


@kernel
def _compare(buf_a, a0, na, buf_b, b0, nb):  # type: ignore[no-untyped-def]
    """Compare ``buf_a[a0:a0+na]`` with ``buf_b[b0:b0+nb]`` as integer sequences (-1, 0, 1)."""
    n = na if na < nb else nb
    for i in range(n):
        x = buf_a[a0 + i]
        y = buf_b[b0 + i]
        if x != y:
            return -1 if x < y else 1
    if na == nb:
        return 0
    return -1 if na < nb else 1


@kernel
def _walk(  # type: ignore[no-untyped-def]
    out, b0, c0, step, parent, spot, kind, bstart, blen, breg, corner_b, corner_c, other,
    node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c,
):
    """The code of a piece read from corner ``c0`` of boundary ``b0`` (``land_tree._walk``).

    Written into ``out`` as the flat form of the Python code: each boundary's tokens
    and END, then the code of its region unless that is the ``parent``, and END.
    ``step`` is +1 (as written) or -1 (the mirror image).  The boundaries in reading
    order and their starting corners go to ``order_b``/``order_c``; returns
    (length of the code, number of boundaries).
    """
    order_b[0] = b0
    order_c[0] = c0
    seen[b0] = stamp
    head = 0
    tail = 1
    ncap = 0
    pos = 0
    while head < tail:
        b = order_b[head]
        c = order_c[head]
        head += 1
        n = blen[b]
        nsmall = 0
        base = bstart[b]
        for _j in range(n):
            g = base + c
            s = spot[g]
            k = kind[s]
            if k == 3:  # a capital: its other corner starts the boundary beyond it
                if capname[2 * s + 0] != stamp:
                    capname[2 * s + 0] = stamp
                    capname[2 * s + 1] = ncap
                    ncap += 1
                    o = other[g]
                    b2 = corner_b[o]
                    if seen[b2] != stamp:
                        seen[b2] = stamp
                        order_b[tail] = b2
                        order_c[tail] = corner_c[o]
                        tail += 1
                out[pos] = K_CAP_TOKEN + capname[2 * s + 1]
            elif k == 4:
                if smallname[3 * s + 0] != stamp or smallname[3 * s + 2] != b:
                    smallname[3 * s + 0] = stamp
                    smallname[3 * s + 2] = b
                    smallname[3 * s + 1] = nsmall
                    nsmall += 1
                out[pos] = SMALL_BASE + smallname[3 * s + 1]
            else:
                out[pos] = k
            pos += 1
            c += step
            if c == n:
                c = 0
            elif c < 0:
                c = n - 1
        out[pos] = END
        pos += 1
        r = breg[b]
        if r != parent:
            start = node_off[r]
            m = node_len[r]
            for i in range(m):
                out[pos + i] = buf[start + i]
            pos += m
    out[pos] = END
    return pos + 1, tail


@kernel
def _oriented_words(nbnd, nspots, nnodes, total):  # type: ignore[no-untyped-def]
    """The workspace ``_oriented`` carves (an upper bound)."""
    return total * (nnodes + 2) + 16 + 5 * nnodes + 2 * (total + 16) + 3 * nbnd + 5 * nspots


@kernel
def _oriented(  # type: ignore[no-untyped-def]
    step, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
    spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, ws, top,
):
    """The codes of every node of the tree rooted at ``order[0]``, in one orientation.

    Returns the buffer, each node's code (offset, length), each piece's best starting
    corner (boundary, corner), and the root code (the last two in the buffer's end); all
    carved from ``ws`` from ``top`` (``_oriented_words`` words at most).
    """
    nbnd = blen.shape[0]
    nspots = kind.shape[0]
    buf, top = _carve(ws, top, total * (nnodes + 2) + 16, 0)
    node_off, top = _carve(ws, top, nnodes, 0)
    node_len, top = _carve(ws, top, nnodes, 0)
    best_b, top = _carve(ws, top, nnodes, -1)
    best_c, top = _carve(ws, top, nnodes, -1)
    used = 0
    tmp, top = _carve(ws, top, total + 16, 0)
    best, top = _carve(ws, top, total + 16, 0)
    seen, top = _carve(ws, top, nbnd, -1)
    capname, top = _carve(ws, top, 2 * nspots, -1)
    smallname, top = _carve(ws, top, 3 * nspots, -1)
    order_b, top = _carve(ws, top, nbnd, NO_FILL)
    order_c, top = _carve(ws, top, nbnd, NO_FILL)
    stamp = 0
    children, top = _carve(ws, top, nnodes, NO_FILL)
    for idx in range(nnodes - 1, -1, -1):
        v = order[idx]
        if v < nreg:
            # a region: its child pieces' codes, sorted, then END
            nch = 0
            for a in range(adj_start[v], adj_start[v + 1]):
                w = nreg + piece_of[adj_bnd[a]]
                if w == parent_node[v]:
                    continue
                i = nch
                while i > 0:
                    u = children[i - 1]
                    if _compare(buf, node_off[u], node_len[u], buf, node_off[w], node_len[w]) <= 0:
                        break
                    children[i] = u
                    i -= 1
                children[i] = w
                nch += 1
            pos = used
            for i in range(nch):
                u = children[i]
                m = node_len[u]
                o = node_off[u]
                for j in range(m):
                    buf[pos + j] = buf[o + j]
                pos += m
            buf[pos] = END
            pos += 1
            node_off[v] = used
            node_len[v] = pos - used
            used = pos
        else:
            # a piece: the least reading over its possible starting corners (the first such)
            pr = parent_node[v]
            nbest = -1
            for a in range(adj_start[v], adj_start[v + 1]):
                b = adj_bnd[a]
                if pr >= 0 and b != parent_edge[v]:
                    continue
                for c in range(blen[b]):
                    stamp += 1
                    ntmp, _nb = _walk(
                        tmp, b, c, step, pr, spot, kind, bstart, blen, breg, corner_b, corner_c,
                        other, node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c,
                    )
                    if nbest < 0 or _compare(tmp, 0, ntmp, best, 0, nbest) < 0:
                        nbest = ntmp
                        best_b[v] = b
                        best_c[v] = c
                        for j in range(ntmp):
                            best[j] = tmp[j]
            for j in range(nbest):
                buf[used + j] = best[j]
            node_off[v] = used
            node_len[v] = nbest
            used += nbest
    root = order[0]
    buf[used] = 0 if root < nreg else 1
    m = node_len[root]
    o = node_off[root]
    for j in range(m):
        buf[used + 1 + j] = buf[o + j]
    buf[used + 1 + m] = END
    return buf, node_off, node_len, best_b, best_c, used, m + 2


@kernel
def _key_bytes(code):  # type: ignore[no-untyped-def]
    """A code as bytes that compare as the code does: 4 big-endian bytes a token, END as 0,
    small letters moved down from SMALL_BASE to 2^30 (no capital comes near)."""
    out = np.empty(4 * code.shape[0], np.uint8)
    for i in range(code.shape[0]):
        v = code[i]
        if v >= SMALL_BASE:
            v = v - SMALL_BASE + (1 << 30)
        v += 1
        out[4 * i] = (v >> 24) & 255
        out[4 * i + 1] = (v >> 16) & 255
        out[4 * i + 2] = (v >> 8) & 255
        out[4 * i + 3] = v & 255
    return out


@kernel
def _put_number(text, pos, value):  # type: ignore[no-untyped-def]
    """Write ``value`` (positive) in decimal at ``text[pos]``; return the next position."""
    digits = 1
    v = value
    while v >= 10:
        v //= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        text[pos + i] = 48 + value % 10
        value //= 10
    return pos + digits


@kernel
def _put_letter(text, pos, index, first, count, wrap):  # type: ignore[no-untyped-def]
    """The ``index``-th letter (1-based) as ``notation.capital_letter``/``small_letter`` write it."""
    if index <= count:
        text[pos] = first + index - 1
        return pos + 1
    text[pos] = wrap
    text[pos + 1] = 40  # (
    pos = _put_number(text, pos + 2, index)
    text[pos] = 41  # )
    return pos + 1


@kernel
def _put_zeros(text, pos, zeros, items):  # type: ignore[no-untyped-def]
    """A run of lone ``0`` boundaries: ``0`` or ``0*k`` (after a ``.`` unless it is the first item)."""
    if items > 0:
        text[pos] = 46  # .
        pos += 1
    text[pos] = 48
    pos += 1
    if zeros > 1:
        text[pos] = 42  # *
        pos = _put_number(text, pos + 1, zeros)
    return pos


@kernel
def _write_words(nbnd, nspots, nnodes, total):  # type: ignore[no-untyped-def]
    """The workspace ``_write`` carves (an upper bound)."""
    return 5 * (2 * nnodes + 4) + 9 * nspots + 7 * nbnd + 2 * total + 32 + 8 * (nnodes + 2)


@kernel
def _write(  # type: ignore[no-untyped-def]
    step, root, nreg, nnodes, parent_node, parent_edge, adj_start, adj_bnd, piece_of, npiece_bnds,
    spot, kind, bstart, blen, breg, corner_b, corner_c, other,
    buf, node_off, node_len, best_b, best_c, total, ncorner, ws, top,
):
    """The land written from its code, as ``land_tree._Coder.write`` does (ASCII bytes).

    Regions in depth-first order from the root; in each region the boundary it is
    entered by and its child pieces sorted by (reading, entry first, code); capitals
    named through the land and small letters through the region as they first appear.
    """
    nbnd = blen.shape[0]
    nspots = kind.shape[0]
    text = np.zeros(8 * ncorner + 4 * nbnd + 2 * nreg + 16, np.uint8)
    tpos = 0
    # tasks: (0, region, parent piece, entry boundary, its corner) or (1, piece, parent region, b0, c0)
    stack, top = _carve(ws, top, 5 * (2 * nnodes + 4), NO_FILL)
    sp = 0
    if root < nreg:
        stack[0] = 0
        stack[1] = root
        stack[2] = -1
        stack[3] = -1
        stack[4] = 0
    else:
        stack[0] = 1
        stack[1] = root
        stack[2] = -1
        stack[3] = best_b[root]
        stack[4] = best_c[root]
    sp = 1
    capital, top = _carve(ws, top, nspots, 0)
    ncapitals = 0
    small, top = _carve(ws, top, 2 * nspots, -1)
    nregions_written = 0
    seen, top = _carve(ws, top, nbnd, -1)
    capname, top = _carve(ws, top, 2 * nspots, -1)
    smallname, top = _carve(ws, top, 3 * nspots, -1)
    order_b, top = _carve(ws, top, nbnd, NO_FILL)
    order_c, top = _carve(ws, top, nbnd, NO_FILL)
    tmp, top = _carve(ws, top, total + 16, 0)
    stamp = 0
    # items of one region: key (reading offset/length in keys, flag, code node), boundary, corner, piece
    keys, top = _carve(ws, top, total + 4 * nbnd + 16, 0)
    item_key, top = _carve(ws, top, nnodes + 2, 0)
    item_keylen, top = _carve(ws, top, nnodes + 2, 0)
    item_flag, top = _carve(ws, top, nnodes + 2, 0)
    item_node, top = _carve(ws, top, nnodes + 2, 0)
    item_b, top = _carve(ws, top, nnodes + 2, 0)
    item_c, top = _carve(ws, top, nnodes + 2, 0)
    sorted_items, top = _carve(ws, top, nnodes + 2, 0)
    names, top = _carve(ws, top, nspots, -1)
    while sp > 0:
        sp -= 1
        task = stack[5 * sp + 0]
        v = stack[5 * sp + 1]
        parent = stack[5 * sp + 2]
        b0 = stack[5 * sp + 3]
        c0 = stack[5 * sp + 4]
        if task == 1:
            if parent >= 0 and npiece_bnds[v - nreg] == 1:
                continue  # a free piece: written with its parent region
            stamp += 1
            _n, nb = _walk(
                tmp, b0, c0, step, parent, spot, kind, bstart, blen, breg, corner_b, corner_c,
                other, node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c,
            )
            for i in range(nb - 1, -1, -1):
                b = order_b[i]
                if breg[b] != parent:
                    stack[5 * sp + 0] = 0
                    stack[5 * sp + 1] = breg[b]
                    stack[5 * sp + 2] = v
                    stack[5 * sp + 3] = b
                    stack[5 * sp + 4] = order_c[i]
                    sp += 1
            continue
        # a region: gather its items
        nitems = 0
        kpos = 0
        if parent >= 0:
            # the entry boundary read afresh (letters share one counter, as boundary_patterns._renamed)
            n = blen[b0]
            c = c0
            nnames = 0
            for _j in range(n):
                s = spot[bstart[b0] + c]
                k = kind[s]
                if k >= 3:
                    if names[s] < 0:
                        names[s] = nnames
                        nnames += 1
                    keys[kpos] = (K_CAP_TOKEN if k == 3 else SMALL_BASE) + names[s]
                else:
                    keys[kpos] = k
                kpos += 1
                c += step
                if c == n:
                    c = 0
                elif c < 0:
                    c = n - 1
            c = c0
            for _j in range(n):
                names[spot[bstart[b0] + c]] = -1
                c += step
                if c == n:
                    c = 0
                elif c < 0:
                    c = n - 1
            keys[kpos] = END
            kpos += 1
            item_key[0] = 0
            item_keylen[0] = kpos
            item_flag[0] = 0
            item_node[0] = -1
            item_b[0] = b0
            item_c[0] = c0
            nitems = 1
        for a in range(adj_start[v], adj_start[v + 1]):
            w = nreg + piece_of[adj_bnd[a]]
            if w == parent:
                continue
            # the reading part of the piece's code: up to its first END
            o = node_off[w]
            m = 0
            while buf[o + m] != END:
                m += 1
            item_key[nitems] = o
            item_keylen[nitems] = -(m + 1)  # negative: the key lives in buf, not keys
            item_flag[nitems] = 1
            item_node[nitems] = w
            item_b[nitems] = best_b[w]
            item_c[nitems] = best_c[w]
            nitems += 1
        # insertion sort by (reading, flag, code)
        for i in range(nitems):
            j = i
            while j > 0:
                x = sorted_items[j - 1]
                # compare item x with item i
                xa = keys if item_keylen[x] >= 0 else buf
                xl = item_keylen[x] if item_keylen[x] >= 0 else -item_keylen[x]
                ya = keys if item_keylen[i] >= 0 else buf
                yl = item_keylen[i] if item_keylen[i] >= 0 else -item_keylen[i]
                cmp = _compare(xa, item_key[x], xl, ya, item_key[i], yl)
                if cmp == 0:
                    if item_flag[x] != item_flag[i]:
                        cmp = -1 if item_flag[x] < item_flag[i] else 1
                    elif item_flag[x] == 1:
                        u = item_node[x]
                        w = item_node[i]
                        cmp = _compare(buf, node_off[u], node_len[u], buf, node_off[w], node_len[w])
                if cmp <= 0:
                    break
                sorted_items[j] = x
                j -= 1
            sorted_items[j] = i
        # write the region (land_tree._write_boundaries)
        if nregions_written > 0:
            text[tpos] = 124  # |
            tpos += 1
        nregions_written += 1
        nsmall_region = 0
        zeros = 0
        items = 0
        for ii in range(nitems):
            it = sorted_items[ii]
            b = item_b[it]
            n = blen[b]
            if n == 1:
                kd = kind[spot[bstart[b]]]
                if kd == 0:
                    zeros += 1
                    continue
                if zeros > 0:
                    tpos = _put_zeros(text, tpos, zeros, items)
                    items += 1
                    zeros = 0
                if kd < 3:
                    if items > 0:
                        text[tpos] = 46
                        tpos += 1
                    text[tpos] = 48 + kd
                    tpos += 1
                    items += 1
                    continue
            elif zeros > 0:
                tpos = _put_zeros(text, tpos, zeros, items)
                items += 1
                zeros = 0
            if items > 0:
                text[tpos] = 46
                tpos += 1
            items += 1
            c = item_c[it]
            for _j in range(n):
                s = spot[bstart[b] + c]
                kd = kind[s]
                if kd == 3:
                    if capital[s] == 0:
                        ncapitals += 1
                        capital[s] = ncapitals
                    tpos = _put_letter(text, tpos, capital[s], 65, 25, 110)
                elif kd == 4:
                    if small[2 * s + 0] != nregions_written:
                        small[2 * s + 0] = nregions_written
                        nsmall_region += 1
                        small[2 * s + 1] = nsmall_region
                    tpos = _put_letter(text, tpos, small[2 * s + 1], 97, 12, 109)
                else:
                    text[tpos] = 48 + kd
                    tpos += 1
                c += step
                if c == n:
                    c = 0
                elif c < 0:
                    c = n - 1
        if zeros > 0:
            tpos = _put_zeros(text, tpos, zeros, items)
            items += 1
        # push the child pieces, last first (so they are written in sorted order)
        for ii in range(nitems - 1, -1, -1):
            it = sorted_items[ii]
            if item_flag[it] == 1:
                stack[5 * sp + 0] = 1
                stack[5 * sp + 1] = item_node[it]
                stack[5 * sp + 2] = v
                stack[5 * sp + 3] = item_b[it]
                stack[5 * sp + 4] = item_c[it]
                sp += 1
    return text[:tpos].copy()


@kernel
def land_code_kernel(flat, write):  # type: ignore[no-untyped-def]
    """The canonical code of the land in ``flat`` and, if ``write``, its canonical string (ASCII).

    Both empty for a land that cannot be coded (module docstring).
    """
    return _land_code(flat, write, True)


@kernel
def _land_code(flat, write, coded):  # type: ignore[no-untyped-def]
    """``land_code_kernel``; the code is left empty unless ``coded`` (the text alone is asked for)."""
    empty = np.zeros(0, np.uint8)
    empty_text = np.zeros(0, np.uint8)
    # --- read: boundaries, their regions, their corners
    nreg, reg_first, bstart, raw = _read_parent(flat)
    nbnd = bstart.shape[0] - 1
    ncorner = raw.shape[0]
    maxspot = 0
    for g in range(ncorner):
        if raw[g] // 4 > maxspot:
            maxspot = raw[g] // 4
    # one workspace for every scratch array (bounds: a spot a corner, a piece a boundary)
    nn = nreg + nbnd
    tot = ncorner + 2 * nbnd + 2 * nn + 4
    need = 8 * nbnd + 8 * ncorner + maxspot + 12 * nn + nreg + 8
    need += 2 * _oriented_words(nbnd, ncorner, nn, tot)
    if write:
        need += _write_words(nbnd, ncorner, nn, tot)
    ws = np.empty(need, np.int64)
    top = 0
    blen, top = _carve(ws, top, nbnd, NO_FILL)
    breg, top = _carve(ws, top, nbnd, NO_FILL)
    corner_b, top = _carve(ws, top, ncorner, NO_FILL)
    corner_c, top = _carve(ws, top, ncorner, NO_FILL)
    for r in range(nreg):
        for b in range(reg_first[r], reg_first[r + 1]):
            n = bstart[b + 1] - bstart[b]
            if n == 0:
                return empty, empty_text
            blen[b] = n
            breg[b] = r
            for c in range(n):
                g = bstart[b] + c
                corner_b[g] = b
                corner_c[g] = c
    # --- spots renumbered; kinds; the two corners of each spot met twice
    ids, top = _carve(ws, top, maxspot + 1, -1)
    spot, top = _carve(ws, top, ncorner, NO_FILL)
    nspots = 0
    for g in range(ncorner):
        s = raw[g] // 4
        if ids[s] < 0:
            ids[s] = nspots
            nspots += 1
        spot[g] = ids[s]
    lives, top = _carve(ws, top, nspots, 0)
    count, top = _carve(ws, top, nspots, 0)
    first, top = _carve(ws, top, nspots, -1)
    other, top = _carve(ws, top, ncorner, -1)
    for g in range(ncorner):
        s = spot[g]
        lives[s] = raw[g] % 4
        count[s] += 1
        if first[s] < 0:
            first[s] = g
        else:
            other[g] = first[s]
            other[first[s]] = g
    kind, top = _carve(ws, top, nspots, NO_FILL)
    for s in range(nspots):
        lv = lives[s]
        if lv == 0 or count[s] > 2 or (lv >= 2 and count[s] > 1):
            return empty, empty_text
        if lv == 3:
            kind[s] = 0
        elif lv == 2:
            kind[s] = 1
        elif count[s] == 1:
            kind[s] = 2
        else:
            g1 = first[s]
            g2 = other[g1]
            b1 = corner_b[g1]
            b2 = corner_b[g2]
            if breg[b1] == breg[b2]:
                if b1 != b2:
                    return empty, empty_text
                kind[s] = 4
            else:
                kind[s] = 3
    # --- pieces: boundaries joined by capitals (union-find)
    parent, top = _carve(ws, top, nbnd, NO_FILL)
    for b in range(nbnd):
        parent[b] = b
    for s in range(nspots):
        if kind[s] == 3:
            x = corner_b[first[s]]
            y = corner_b[other[first[s]]]
            while parent[x] != x:
                x = parent[x]
            while parent[y] != y:
                y = parent[y]
            if x != y:
                if x < y:
                    parent[y] = x
                else:
                    parent[x] = y
    piece_of, top = _carve(ws, top, nbnd, -1)
    root_piece, top = _carve(ws, top, nbnd, -1)
    npieces = 0
    for b in range(nbnd):
        x = b
        while parent[x] != x:
            x = parent[x]
        if root_piece[x] < 0:
            root_piece[x] = npieces
            npieces += 1
        piece_of[b] = root_piece[x]
    nnodes = nreg + npieces
    if nbnd != nnodes - 1:
        return empty, empty_text  # not a tree (or not one land)
    # --- tree adjacency: node -> boundaries (edges), regions first, then pieces
    deg, top = _carve(ws, top, nnodes, 0)
    for b in range(nbnd):
        deg[breg[b]] += 1
        deg[nreg + piece_of[b]] += 1
    adj_start, top = _carve(ws, top, nnodes + 1, 0)
    for v in range(nnodes):
        adj_start[v + 1] = adj_start[v] + deg[v]
    fill, top = _carve(ws, top, nnodes, NO_FILL)
    for v in range(nnodes):
        fill[v] = adj_start[v]
    adj_bnd, top = _carve(ws, top, 2 * nbnd, NO_FILL)
    for b in range(nbnd):
        v = breg[b]
        adj_bnd[fill[v]] = b
        fill[v] += 1
        v = nreg + piece_of[b]
        adj_bnd[fill[v]] = b
        fill[v] += 1
    # a piece meets each region along one boundary at most
    mark, top = _carve(ws, top, nreg, -1)
    for v in range(nreg, nnodes):
        for a in range(adj_start[v], adj_start[v + 1]):
            r = breg[adj_bnd[a]]
            if mark[r] == v:
                return empty, empty_text
            mark[r] = v
    # --- the centre: peel leaves
    degree, top = _carve(ws, top, nnodes, NO_FILL)
    for v in range(nnodes):
        degree[v] = deg[v]
    alive, top = _carve(ws, top, nnodes, 1)
    leaves, top = _carve(ws, top, nnodes, NO_FILL)
    nleaves = 0
    for v in range(nnodes):
        if degree[v] <= 1:
            leaves[nleaves] = v
            nleaves += 1
    remaining = nnodes
    nxt, top = _carve(ws, top, nnodes, NO_FILL)
    while remaining > 2:
        remaining -= nleaves
        nn = 0
        for i in range(nleaves):
            v = leaves[i]
            alive[v] = False
            for a in range(adj_start[v], adj_start[v + 1]):
                bb = adj_bnd[a]
                w = breg[bb] if v >= nreg else nreg + piece_of[bb]
                if alive[w]:
                    degree[w] -= 1
                    if degree[w] == 1:
                        nxt[nn] = w
                        nn += 1
        for i in range(nn):
            leaves[i] = nxt[i]
        nleaves = nn
    root = leaves[0]
    for i in range(nleaves):
        if leaves[i] < root:
            root = leaves[i]  # of a region and a piece side by side, the region
    # --- breadth-first order from the root, with each node's parent and parent edge
    order, top = _carve(ws, top, nnodes, NO_FILL)
    parent_node, top = _carve(ws, top, nnodes, -1)
    parent_edge, top = _carve(ws, top, nnodes, -1)
    visited, top = _carve(ws, top, nnodes, 0)
    order[0] = root
    visited[root] = True
    head = 0
    tail = 1
    while head < tail:
        v = order[head]
        head += 1
        for a in range(adj_start[v], adj_start[v + 1]):
            bb = adj_bnd[a]
            w = breg[bb] if v >= nreg else nreg + piece_of[bb]
            if not visited[w]:
                visited[w] = True
                parent_node[w] = v
                parent_edge[w] = bb
                order[tail] = w
                tail += 1
    if tail != nnodes:
        return empty, empty_text
    total = ncorner + 2 * nbnd + 2 * nnodes + 4
    npiece_bnds, top = _carve(ws, top, npieces, 0)
    for b in range(nbnd):
        npiece_bnds[piece_of[b]] += 1
    buf, node_off, node_len, best_b, best_c, root_off, root_len = _oriented(
        1, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
        spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, ws, top,
    )
    top += _oriented_words(nbnd, nspots, nnodes, total)
    step = 1
    # mirroring reads every boundary backwards: a rotation of itself when it has two corners
    # at most, and then the mirror image is the same land
    mirror_same = True
    for b in range(nbnd):
        if blen[b] > 2:
            mirror_same = False
            break
    if not mirror_same:
        buf2, node_off2, node_len2, best_b2, best_c2, root_off2, root_len2 = _oriented(
            -1, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
            spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, ws, top,
        )
        top += _oriented_words(nbnd, nspots, nnodes, total)
        if _compare(buf2, root_off2, root_len2, buf, root_off, root_len) < 0:
            step = -1
            buf, node_off, node_len, best_b, best_c, root_off, root_len = (
                buf2, node_off2, node_len2, best_b2, best_c2, root_off2, root_len2
            )
    code = _key_bytes(buf[root_off : root_off + root_len]) if coded else empty
    if not write:
        return code, empty_text
    text = _write(
        step, root, nreg, nnodes, parent_node, parent_edge, adj_start, adj_bnd, piece_of, npiece_bnds,
        spot, kind, bstart, blen, breg, corner_b, corner_c, other,
        buf, node_off, node_len, best_b, best_c, total, ncorner, ws, top,
    )
    return code, text


Land = Sequence[Sequence[Sequence[int]]]
Lives = Sequence[int] | Mapping[int, int]


# ------------------------------------------------------------------ children of a land


@kernel
def _read_parent(pflat):  # type: ignore[no-untyped-def]
    """Regions, boundaries and corners of a position flattened by ``flatten_position``."""
    nreg = pflat[0]
    nbnd = 0
    ncorner = 0
    p = 1
    for _r in range(nreg):
        nb = pflat[p]
        p += 1
        nbnd += nb
        for _b in range(nb):
            n = pflat[p]
            p += 1 + n
            ncorner += n
    reg_first = np.zeros(nreg + 1, np.int64)  # boundaries of region r: reg_first[r] .. reg_first[r+1]
    bstart = np.zeros(nbnd + 1, np.int64)
    spots = np.zeros(ncorner, np.int64)
    p = 1
    b = 0
    g = 0
    for r in range(nreg):
        nb = pflat[p]
        p += 1
        reg_first[r] = b
        for _b in range(nb):
            n = pflat[p]
            p += 1
            bstart[b] = g
            for _c in range(n):
                spots[g] = pflat[p]
                p += 1
                g += 1
            b += 1
    reg_first[nreg] = b
    bstart[nbnd] = g
    return nreg, reg_first, bstart, spots
