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
#: ``_fill``'s value for scratch that is written before it is read.
NO_FILL = -(1 << 62)


@kernel
def _fill(ws, top, n, value):  # type: ignore[no-untyped-def]
    """Take ``n`` words of the workspace ``ws`` from ``top``, set to ``value`` unless it is
    ``NO_FILL``; returns the new top.

    A land's scratch arrays all live in one workspace and are reached by their offsets in it
    (``ws[off + i]``): allocating each (about eighty a land) was a third of a land's time, and
    carving them as views made numba count a reference for every view made and passed on.
    """
    if top + n > ws.shape[0]:
        raise IndexError("a kernel's workspace is too small")
    if value != NO_FILL:
        for i in range(top, top + n):
            ws[i] = value
    return top + n


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
def _cmp(ws, a0, na, b0, nb):  # type: ignore[no-untyped-def]
    """``_compare`` of two runs of one workspace: ``ws[a0:a0+na]`` with ``ws[b0:b0+nb]``."""
    return _compare(ws, a0, na, ws, b0, nb)


@kernel
def _cmp_nodes(ws, buf, node_off, node_len, u, w):  # type: ignore[no-untyped-def]
    """``_cmp`` of the codes of nodes ``u`` and ``w`` (each at its offset in the buffer ``buf``)."""
    return _cmp(ws, buf + ws[node_off + u], ws[node_len + u], buf + ws[node_off + w], ws[node_len + w])


@kernel
def _walk_scratch(ws, top, nbnd, nspots):  # type: ignore[no-untyped-def]
    """The scratch ``_walk`` reads and writes, taken from ``ws`` at ``top``: the offsets of
    ``seen``, ``capname``, ``smallname``, ``order_b``, ``order_c``, and the new top."""
    seen = top
    top = _fill(ws, top, nbnd, -1)
    capname = top
    top = _fill(ws, top, 2 * nspots, -1)
    smallname = top
    top = _fill(ws, top, 3 * nspots, -1)
    order_b = top
    top = _fill(ws, top, nbnd, NO_FILL)
    order_c = top
    top = _fill(ws, top, nbnd, NO_FILL)
    return seen, capname, smallname, order_b, order_c, top


@kernel
def _walk(  # type: ignore[no-untyped-def]
    ws, out, b0, c0, step, parent, spot, kind, bstart, blen, breg, corner_b, corner_c, other,
    node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c, best, nbest,
):
    """The code of a piece read from corner ``c0`` of boundary ``b0`` (``land_tree._walk``).

    Every array is a run of the workspace ``ws`` given by its offset (``out``, ``spot``, ...).
    Written into ``out`` as the flat form of the Python code: each boundary's tokens
    and END, then the code of its region unless that is the ``parent``, and END.
    ``step`` is +1 (as written) or -1 (the mirror image).  The boundaries in reading
    order and their starting corners go to ``order_b``/``order_c``; returns
    (length of the code, number of boundaries).

    With ``nbest >= 0`` the code is compared with the one at ``best`` (``nbest`` words) as it
    is written, and the walk gives up, returning length -1, as soon as it cannot come out
    less: a piece tries every starting corner and keeps the least code, and most readings
    differ from the best within a few tokens.
    """
    ws[order_b] = b0
    ws[order_c] = c0
    ws[seen + b0] = stamp
    head = 0
    tail = 1
    ncap = 0
    pos = out
    less = nbest < 0  # known to be less than the best so far (or there is none)
    while head < tail:
        b = ws[order_b + head]
        c = ws[order_c + head]
        head += 1
        n = ws[blen + b]
        nsmall = 0
        base = ws[bstart + b]
        for _j in range(n):
            g = base + c
            s = ws[spot + g]
            k = ws[kind + s]
            if k == 3:  # a capital: its other corner starts the boundary beyond it
                cap = capname + 2 * s
                if ws[cap] != stamp:
                    ws[cap] = stamp
                    ws[cap + 1] = ncap
                    ncap += 1
                    o = ws[other + g]
                    b2 = ws[corner_b + o]
                    if ws[seen + b2] != stamp:
                        ws[seen + b2] = stamp
                        ws[order_b + tail] = b2
                        ws[order_c + tail] = ws[corner_c + o]
                        tail += 1
                ws[pos] = K_CAP_TOKEN + ws[cap + 1]
            elif k == 4:
                sm = smallname + 3 * s
                if ws[sm] != stamp or ws[sm + 2] != b:
                    ws[sm] = stamp
                    ws[sm + 2] = b
                    ws[sm + 1] = nsmall
                    nsmall += 1
                ws[pos] = SMALL_BASE + ws[sm + 1]
            else:
                ws[pos] = k
            if not less:
                i = pos - out
                if i >= nbest or ws[pos] > ws[best + i]:
                    return -1, tail
                less = ws[pos] < ws[best + i]
            pos += 1
            c += step
            if c == n:
                c = 0
            elif c < 0:
                c = n - 1
        ws[pos] = END
        if not less:
            i = pos - out
            if i >= nbest:
                return -1, tail
            less = ws[best + i] != END  # END is the least token
        pos += 1
        r = ws[breg + b]
        if r != parent:
            start = buf + ws[node_off + r]
            m = ws[node_len + r]
            for j in range(m):
                x = ws[start + j]
                ws[pos + j] = x
                if not less:
                    i = pos + j - out
                    if i >= nbest or x > ws[best + i]:
                        return -1, tail
                    less = x < ws[best + i]
            pos += m
    ws[pos] = END
    if not less:
        i = pos - out
        if i >= nbest or (ws[best + i] == END and i + 1 == nbest):
            return -1, tail  # longer than the best with it as a prefix, or the same: the first stays
    return pos + 1 - out, tail


@kernel
def _oriented_words(nbnd, nspots, nnodes, total):  # type: ignore[no-untyped-def]
    """The workspace ``_oriented`` takes (an upper bound)."""
    return total * (nnodes + 2) + 16 + 5 * nnodes + 2 * (total + 16) + 3 * nbnd + 5 * nspots


@kernel
def _oriented(  # type: ignore[no-untyped-def]
    step, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
    spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, nbnd, nspots, ws, top,
):
    """The codes of every node of the tree rooted at ``order[0]``, in one orientation.

    Every array is a run of ``ws`` given by its offset.  Returns the offsets of the buffer,
    of each node's code (offset in the buffer, length) and of each piece's best starting
    corner (boundary, corner), and the root code (offset in the buffer, length: the last
    two in the buffer's end); all taken from ``ws`` from ``top`` (``_oriented_words`` words
    at most).
    """
    buf = top
    top = _fill(ws, top, total * (nnodes + 2) + 16, 0)
    node_off = top
    top = _fill(ws, top, nnodes, 0)
    node_len = top
    top = _fill(ws, top, nnodes, 0)
    best_b = top
    top = _fill(ws, top, nnodes, -1)
    best_c = top
    top = _fill(ws, top, nnodes, -1)
    used = 0
    tmp = top
    top = _fill(ws, top, total + 16, 0)
    best = top
    top = _fill(ws, top, total + 16, 0)
    seen, capname, smallname, order_b, order_c, top = _walk_scratch(ws, top, nbnd, nspots)
    stamp = 0
    children = top
    top = _fill(ws, top, nnodes, NO_FILL)
    for idx in range(nnodes - 1, -1, -1):
        v = ws[order + idx]
        if v < nreg:
            # a region: its child pieces' codes, sorted, then END
            nch = 0
            for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
                w = nreg + ws[piece_of + ws[adj_bnd + a]]
                if w == ws[parent_node + v]:
                    continue
                i = nch
                while i > 0:
                    u = ws[children + i - 1]
                    if _cmp_nodes(ws, buf, node_off, node_len, u, w) <= 0:
                        break
                    ws[children + i] = u
                    i -= 1
                ws[children + i] = w
                nch += 1
            pos = buf + used
            for i in range(nch):
                u = ws[children + i]
                m = ws[node_len + u]
                o = buf + ws[node_off + u]
                for j in range(m):
                    ws[pos + j] = ws[o + j]
                pos += m
            ws[pos] = END
            pos += 1
            ws[node_off + v] = used
            ws[node_len + v] = pos - buf - used
            used = pos - buf
        else:
            # a piece: the least reading over its possible starting corners (the first such)
            pr = ws[parent_node + v]
            nbest = -1
            for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
                b = ws[adj_bnd + a]
                if pr >= 0 and b != ws[parent_edge + v]:
                    continue
                for c in range(ws[blen + b]):
                    stamp += 1
                    ntmp, _nb = _walk(
                        ws, tmp, b, c, step, pr, spot, kind, bstart, blen, breg, corner_b, corner_c,
                        other, node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c,
                        best, nbest,
                    )
                    if ntmp >= 0:  # less than the best so far (``_walk`` gave up otherwise)
                        nbest = ntmp
                        ws[best_b + v] = b
                        ws[best_c + v] = c
                        for j in range(ntmp):
                            ws[best + j] = ws[tmp + j]
            for j in range(nbest):
                ws[buf + used + j] = ws[best + j]
            ws[node_off + v] = used
            ws[node_len + v] = nbest
            used += nbest
    root = ws[order]
    ws[buf + used] = 0 if root < nreg else 1
    m = ws[node_len + root]
    o = buf + ws[node_off + root]
    for j in range(m):
        ws[buf + used + 1 + j] = ws[o + j]
    ws[buf + used + 1 + m] = END
    return buf, node_off, node_len, best_b, best_c, used, m + 2


@kernel
def _key_bytes(ws, start, n):  # type: ignore[no-untyped-def]
    """The code in the ``n`` words of ``ws`` from ``start`` as bytes that compare as the code
    does: 4 big-endian bytes a token, END as 0, small letters moved down from SMALL_BASE to
    2^30 (no capital comes near)."""
    out = np.empty(4 * n, np.uint8)
    for i in range(n):
        v = ws[start + i]
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
    """The workspace ``_write`` takes (an upper bound)."""
    return 5 * (2 * nnodes + 4) + 9 * nspots + 7 * nbnd + 2 * total + 32 + 8 * (nnodes + 2)


@kernel
def _write(  # type: ignore[no-untyped-def]
    step, root, nreg, nnodes, parent_node, parent_edge, adj_start, adj_bnd, piece_of, npiece_bnds,
    spot, kind, bstart, blen, breg, corner_b, corner_c, other,
    buf, node_off, node_len, best_b, best_c, total, ncorner, nbnd, nspots, ws, top,
):
    """The land written from its code, as ``land_tree._Coder.write`` does (ASCII bytes).

    Every array but the text is a run of ``ws`` given by its offset.  Regions in
    depth-first order from the root; in each region the boundary it is entered by and
    its child pieces sorted by (reading, entry first, code); capitals named through the
    land and small letters through the region as they first appear.
    """
    text = np.zeros(8 * ncorner + 4 * nbnd + 2 * nreg + 16, np.uint8)
    tpos = 0
    # tasks: (0, region, parent piece, entry boundary, its corner) or (1, piece, parent region, b0, c0)
    stack = top
    top = _fill(ws, top, 5 * (2 * nnodes + 4), NO_FILL)
    if root < nreg:
        ws[stack + 0] = 0
        ws[stack + 1] = root
        ws[stack + 2] = -1
        ws[stack + 3] = -1
        ws[stack + 4] = 0
    else:
        ws[stack + 0] = 1
        ws[stack + 1] = root
        ws[stack + 2] = -1
        ws[stack + 3] = ws[best_b + root]
        ws[stack + 4] = ws[best_c + root]
    sp = 1
    capital = top
    top = _fill(ws, top, nspots, 0)
    ncapitals = 0
    small = top
    top = _fill(ws, top, 2 * nspots, -1)
    nregions_written = 0
    seen, capname, smallname, order_b, order_c, top = _walk_scratch(ws, top, nbnd, nspots)
    tmp = top
    top = _fill(ws, top, total + 16, 0)
    stamp = 0
    # items of one region: key (reading offset/length in keys, flag, code node), boundary, corner, piece
    keys = top
    top = _fill(ws, top, total + 4 * nbnd + 16, 0)
    item_key = top
    top = _fill(ws, top, nnodes + 2, 0)
    item_keylen = top
    top = _fill(ws, top, nnodes + 2, 0)
    item_flag = top
    top = _fill(ws, top, nnodes + 2, 0)
    item_node = top
    top = _fill(ws, top, nnodes + 2, 0)
    item_b = top
    top = _fill(ws, top, nnodes + 2, 0)
    item_c = top
    top = _fill(ws, top, nnodes + 2, 0)
    sorted_items = top
    top = _fill(ws, top, nnodes + 2, 0)
    names = top
    top = _fill(ws, top, nspots, -1)
    while sp > 0:
        sp -= 1
        frame = stack + 5 * sp
        task = ws[frame + 0]
        v = ws[frame + 1]
        parent = ws[frame + 2]
        b0 = ws[frame + 3]
        c0 = ws[frame + 4]
        if task == 1:
            if parent >= 0 and ws[npiece_bnds + v - nreg] == 1:
                continue  # a free piece: written with its parent region
            stamp += 1
            _n, nb = _walk(
                ws, tmp, b0, c0, step, parent, spot, kind, bstart, blen, breg, corner_b, corner_c,
                other, node_off, node_len, buf, seen, capname, smallname, stamp, order_b, order_c, 0, -1,
            )
            for i in range(nb - 1, -1, -1):
                b = ws[order_b + i]
                if ws[breg + b] != parent:
                    frame = stack + 5 * sp
                    ws[frame + 0] = 0
                    ws[frame + 1] = ws[breg + b]
                    ws[frame + 2] = v
                    ws[frame + 3] = b
                    ws[frame + 4] = ws[order_c + i]
                    sp += 1
            continue
        # a region: gather its items
        nitems = 0
        kpos = 0
        if parent >= 0:
            # the entry boundary read afresh (letters share one counter, as boundary_patterns._renamed)
            n = ws[blen + b0]
            g0 = spot + ws[bstart + b0]
            c = c0
            nnames = 0
            for _j in range(n):
                s = ws[g0 + c]
                k = ws[kind + s]
                if k >= 3:
                    if ws[names + s] < 0:
                        ws[names + s] = nnames
                        nnames += 1
                    ws[keys + kpos] = (K_CAP_TOKEN if k == 3 else SMALL_BASE) + ws[names + s]
                else:
                    ws[keys + kpos] = k
                kpos += 1
                c += step
                if c == n:
                    c = 0
                elif c < 0:
                    c = n - 1
            c = c0
            for _j in range(n):
                ws[names + ws[g0 + c]] = -1
                c += step
                if c == n:
                    c = 0
                elif c < 0:
                    c = n - 1
            ws[keys + kpos] = END
            kpos += 1
            ws[item_key] = keys
            ws[item_keylen] = kpos
            ws[item_flag] = 0
            ws[item_node] = -1
            ws[item_b] = b0
            ws[item_c] = c0
            nitems = 1
        for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
            w = nreg + ws[piece_of + ws[adj_bnd + a]]
            if w == parent:
                continue
            # the reading part of the piece's code: up to its first END
            o = buf + ws[node_off + w]
            m = 0
            while ws[o + m] != END:
                m += 1
            ws[item_key + nitems] = o
            ws[item_keylen + nitems] = m + 1
            ws[item_flag + nitems] = 1
            ws[item_node + nitems] = w
            ws[item_b + nitems] = ws[best_b + w]
            ws[item_c + nitems] = ws[best_c + w]
            nitems += 1
        # insertion sort by (reading, flag, code)
        for i in range(nitems):
            j = i
            while j > 0:
                x = ws[sorted_items + j - 1]
                # compare item x with item i
                cmp = _cmp(ws, ws[item_key + x], ws[item_keylen + x], ws[item_key + i], ws[item_keylen + i])
                if cmp == 0:
                    fx = ws[item_flag + x]
                    fi = ws[item_flag + i]
                    if fx != fi:
                        cmp = -1 if fx < fi else 1
                    elif fx == 1:
                        u = ws[item_node + x]
                        w = ws[item_node + i]
                        cmp = _cmp_nodes(ws, buf, node_off, node_len, u, w)
                if cmp <= 0:
                    break
                ws[sorted_items + j] = x
                j -= 1
            ws[sorted_items + j] = i
        # write the region (land_tree._write_boundaries)
        if nregions_written > 0:
            text[tpos] = 124  # |
            tpos += 1
        nregions_written += 1
        nsmall_region = 0
        zeros = 0
        items = 0
        for ii in range(nitems):
            it = ws[sorted_items + ii]
            b = ws[item_b + it]
            n = ws[blen + b]
            g0 = spot + ws[bstart + b]
            if n == 1:
                kd = ws[kind + ws[g0]]
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
            c = ws[item_c + it]
            for _j in range(n):
                s = ws[g0 + c]
                kd = ws[kind + s]
                if kd == 3:
                    if ws[capital + s] == 0:
                        ncapitals += 1
                        ws[capital + s] = ncapitals
                    tpos = _put_letter(text, tpos, ws[capital + s], 65, 25, 110)
                elif kd == 4:
                    if ws[small + 2 * s] != nregions_written:
                        ws[small + 2 * s] = nregions_written
                        nsmall_region += 1
                        ws[small + 2 * s + 1] = nsmall_region
                    tpos = _put_letter(text, tpos, ws[small + 2 * s + 1], 97, 12, 109)
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
            it = ws[sorted_items + ii]
            if ws[item_flag + it] == 1:
                frame = stack + 5 * sp
                ws[frame + 0] = 1
                ws[frame + 1] = ws[item_node + it]
                ws[frame + 2] = v
                ws[frame + 3] = ws[item_b + it]
                ws[frame + 4] = ws[item_c + it]
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
    """``land_code_kernel``; the code is left empty unless ``coded`` (the text alone is asked for).

    Every scratch array is a run of one workspace ``ws``, named by its offset there
    (``_fill``): ``ws[blen + b]`` is boundary ``b``'s length.
    """
    # --- sizes: regions, boundaries, corners, the largest spot number
    nreg = flat[0]
    nbnd = 0
    ncorner = 0
    maxspot = 0
    p = 1
    for _r in range(nreg):
        nb = flat[p]
        p += 1
        nbnd += nb
        for _b in range(nb):
            n = flat[p]
            p += 1
            ncorner += n
            for i in range(p, p + n):
                if flat[i] // 4 > maxspot:
                    maxspot = flat[i] // 4
            p += n
    # one workspace for every scratch array (bounds: a spot a corner, a piece a boundary)
    nn = nreg + nbnd
    tot = ncorner + 2 * nbnd + 2 * nn + 4
    need = 9 * nbnd + 9 * ncorner + maxspot + 12 * nn + 2 * nreg + 16
    need += 2 * _oriented_words(nbnd, ncorner, nn, tot)
    if write:
        need += _write_words(nbnd, ncorner, nn, tot)
    ws = np.empty(need, np.int64)
    # --- read: boundaries, their regions, their corners (``_read_parent``)
    bstart = 0  # boundary b's corners: bstart[b] .. bstart[b + 1]
    top = _fill(ws, 0, nbnd + 1, NO_FILL)
    raw = top
    top = _fill(ws, top, ncorner, NO_FILL)
    blen = top
    top = _fill(ws, top, nbnd, NO_FILL)
    breg = top
    top = _fill(ws, top, nbnd, NO_FILL)
    corner_b = top
    top = _fill(ws, top, ncorner, NO_FILL)
    corner_c = top
    top = _fill(ws, top, ncorner, NO_FILL)
    p = 1
    b = 0
    g = 0
    for r in range(nreg):
        nb = flat[p]
        p += 1
        for _b in range(nb):
            n = flat[p]
            p += 1
            if n == 0:
                return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
            ws[bstart + b] = g
            ws[blen + b] = n
            ws[breg + b] = r
            for c in range(n):
                ws[raw + g] = flat[p]
                ws[corner_b + g] = b
                ws[corner_c + g] = c
                p += 1
                g += 1
            b += 1
    ws[bstart + nbnd] = g
    # --- spots renumbered; kinds; the two corners of each spot met twice
    ids = top
    top = _fill(ws, top, maxspot + 1, -1)
    spot = top
    top = _fill(ws, top, ncorner, NO_FILL)
    nspots = 0
    for g in range(ncorner):
        s = ws[raw + g] // 4
        if ws[ids + s] < 0:
            ws[ids + s] = nspots
            nspots += 1
        ws[spot + g] = ws[ids + s]
    lives = top
    top = _fill(ws, top, nspots, 0)
    count = top
    top = _fill(ws, top, nspots, 0)
    first = top
    top = _fill(ws, top, nspots, -1)
    other = top
    top = _fill(ws, top, ncorner, -1)
    for g in range(ncorner):
        s = ws[spot + g]
        ws[lives + s] = ws[raw + g] % 4
        ws[count + s] += 1
        if ws[first + s] < 0:
            ws[first + s] = g
        else:
            ws[other + g] = ws[first + s]
            ws[other + ws[first + s]] = g
    kind = top
    top = _fill(ws, top, nspots, NO_FILL)
    for s in range(nspots):
        lv = ws[lives + s]
        cnt = ws[count + s]
        if lv == 0 or cnt > 2 or (lv >= 2 and cnt > 1):
            return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
        if lv == 3:
            ws[kind + s] = 0
        elif lv == 2:
            ws[kind + s] = 1
        elif cnt == 1:
            ws[kind + s] = 2
        else:
            g1 = ws[first + s]
            g2 = ws[other + g1]
            b1 = ws[corner_b + g1]
            b2 = ws[corner_b + g2]
            if ws[breg + b1] == ws[breg + b2]:
                if b1 != b2:
                    return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
                ws[kind + s] = 4
            else:
                ws[kind + s] = 3
    # --- pieces: boundaries joined by capitals (union-find)
    parent = top
    top = _fill(ws, top, nbnd, NO_FILL)
    for b in range(nbnd):
        ws[parent + b] = b
    for s in range(nspots):
        if ws[kind + s] == 3:
            x = ws[corner_b + ws[first + s]]
            y = ws[corner_b + ws[other + ws[first + s]]]
            while ws[parent + x] != x:
                x = ws[parent + x]
            while ws[parent + y] != y:
                y = ws[parent + y]
            if x != y:
                if x < y:
                    ws[parent + y] = x
                else:
                    ws[parent + x] = y
    piece_of = top
    top = _fill(ws, top, nbnd, -1)
    root_piece = top
    top = _fill(ws, top, nbnd, -1)
    npieces = 0
    for b in range(nbnd):
        x = b
        while ws[parent + x] != x:
            x = ws[parent + x]
        if ws[root_piece + x] < 0:
            ws[root_piece + x] = npieces
            npieces += 1
        ws[piece_of + b] = ws[root_piece + x]
    nnodes = nreg + npieces
    if nbnd != nnodes - 1:
        return np.zeros(0, np.uint8), np.zeros(0, np.uint8)  # not a tree (or not one land)
    # --- tree adjacency: node -> boundaries (edges), regions first, then pieces
    deg = top
    top = _fill(ws, top, nnodes, 0)
    for b in range(nbnd):
        ws[deg + ws[breg + b]] += 1
        ws[deg + nreg + ws[piece_of + b]] += 1
    adj_start = top
    top = _fill(ws, top, nnodes + 1, 0)
    for v in range(nnodes):
        ws[adj_start + v + 1] = ws[adj_start + v] + ws[deg + v]
    fill = top
    top = _fill(ws, top, nnodes, NO_FILL)
    for v in range(nnodes):
        ws[fill + v] = ws[adj_start + v]
    adj_bnd = top
    top = _fill(ws, top, 2 * nbnd, NO_FILL)
    for b in range(nbnd):
        v = ws[breg + b]
        ws[adj_bnd + ws[fill + v]] = b
        ws[fill + v] += 1
        v = nreg + ws[piece_of + b]
        ws[adj_bnd + ws[fill + v]] = b
        ws[fill + v] += 1
    # a piece meets each region along one boundary at most
    mark = top
    top = _fill(ws, top, nreg, -1)
    for v in range(nreg, nnodes):
        for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
            r = ws[breg + ws[adj_bnd + a]]
            if ws[mark + r] == v:
                return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
            ws[mark + r] = v
    # --- the centre: peel leaves
    degree = top
    top = _fill(ws, top, nnodes, NO_FILL)
    for v in range(nnodes):
        ws[degree + v] = ws[deg + v]
    alive = top
    top = _fill(ws, top, nnodes, 1)
    leaves = top
    top = _fill(ws, top, nnodes, NO_FILL)
    nleaves = 0
    for v in range(nnodes):
        if ws[degree + v] <= 1:
            ws[leaves + nleaves] = v
            nleaves += 1
    remaining = nnodes
    nxt = top
    top = _fill(ws, top, nnodes, NO_FILL)
    while remaining > 2:
        remaining -= nleaves
        nn = 0
        for i in range(nleaves):
            v = ws[leaves + i]
            ws[alive + v] = 0
            for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
                bb = ws[adj_bnd + a]
                w = ws[breg + bb] if v >= nreg else nreg + ws[piece_of + bb]
                if ws[alive + w] != 0:
                    ws[degree + w] -= 1
                    if ws[degree + w] == 1:
                        ws[nxt + nn] = w
                        nn += 1
        for i in range(nn):
            ws[leaves + i] = ws[nxt + i]
        nleaves = nn
    root = ws[leaves]
    for i in range(nleaves):
        if ws[leaves + i] < root:
            root = ws[leaves + i]  # of a region and a piece side by side, the region
    # --- breadth-first order from the root, with each node's parent and parent edge
    order = top
    top = _fill(ws, top, nnodes, NO_FILL)
    parent_node = top
    top = _fill(ws, top, nnodes, -1)
    parent_edge = top
    top = _fill(ws, top, nnodes, -1)
    visited = top
    top = _fill(ws, top, nnodes, 0)
    ws[order] = root
    ws[visited + root] = 1
    head = 0
    tail = 1
    while head < tail:
        v = ws[order + head]
        head += 1
        for a in range(ws[adj_start + v], ws[adj_start + v + 1]):
            bb = ws[adj_bnd + a]
            w = ws[breg + bb] if v >= nreg else nreg + ws[piece_of + bb]
            if ws[visited + w] == 0:
                ws[visited + w] = 1
                ws[parent_node + w] = v
                ws[parent_edge + w] = bb
                ws[order + tail] = w
                tail += 1
    if tail != nnodes:
        return np.zeros(0, np.uint8), np.zeros(0, np.uint8)
    total = ncorner + 2 * nbnd + 2 * nnodes + 4
    npiece_bnds = top
    top = _fill(ws, top, npieces, 0)
    for b in range(nbnd):
        ws[npiece_bnds + ws[piece_of + b]] += 1
    buf, node_off, node_len, best_b, best_c, root_off, root_len = _oriented(
        1, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
        spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, nbnd, nspots, ws, top,
    )
    top += _oriented_words(nbnd, nspots, nnodes, total)
    step = 1
    # mirroring reads every boundary backwards: a rotation of itself when it has two corners
    # at most, and then the mirror image is the same land
    mirror_same = True
    for b in range(nbnd):
        if ws[blen + b] > 2:
            mirror_same = False
            break
    if not mirror_same:
        buf2, node_off2, node_len2, best_b2, best_c2, root_off2, root_len2 = _oriented(
            -1, order, parent_node, parent_edge, nreg, nnodes, adj_start, adj_bnd, piece_of,
            spot, kind, bstart, blen, breg, corner_b, corner_c, other, total, nbnd, nspots, ws, top,
        )
        top += _oriented_words(nbnd, nspots, nnodes, total)
        if _cmp(ws, buf2 + root_off2, root_len2, buf + root_off, root_len) < 0:
            step = -1
            buf, node_off, node_len, best_b, best_c, root_off, root_len = (
                buf2, node_off2, node_len2, best_b2, best_c2, root_off2, root_len2
            )
    code = _key_bytes(ws, buf + root_off, root_len if coded else 0)
    if not write:
        return code, np.zeros(0, np.uint8)
    text = _write(
        step, root, nreg, nnodes, parent_node, parent_edge, adj_start, adj_bnd, piece_of, npiece_bnds,
        spot, kind, bstart, blen, breg, corner_b, corner_c, other,
        buf, node_off, node_len, best_b, best_c, total, ncorner, nbnd, nspots, ws, top,
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
