"""The canonical code and string of a land, compiled (numba) over flat integer arrays.

``canonical.py`` writes the exact canonical form in Python, and writing it was most of
a solver's time.  ``land_code_kernel`` does the same work in compiled code and gives
the same string, byte for byte, and a code ordered exactly as the Python code is:

* the regions and the pieces (boundaries joined by capitals) form a tree, rooted at its
  centre (the region, when the centre is a region and a piece side by side);
* a region's code is its child pieces' codes, sorted; a piece's code, entered through
  its boundary in the parent region, is the least breadth-first reading over the
  corners of that boundary (each capital's other corner fixes where the next boundary
  is read from), each boundary's tokens followed by the code of its region;
* both orientations are coded (mirroring reads every boundary backwards), the lesser
  wins, and the land is written from it as ``canonical._Coder.write`` does.

The Python code is a nested tuple; here it is flat: every tuple's elements followed by
END, a value below every token, so flat sequences compare as the tuples do (a tuple that
is a prefix of another ends where the other goes on).  The code is given as bytes that
compare the same way (``_key_bytes``).  Since the canonical form is a true one, the code
is a *complete invariant*: equal for two lands exactly when their canonical strings are,
so it can key caches that every way of writing a land shares (``reduce.py``).

Input: ``flat`` = ``[regions, (boundaries, (corners, spot*4 + lives, ...)...)...]``
(``flatten_land``).  A land that is not a cleaned, drawable one (a spot with no life, a
spot met more than twice, a small letter on two boundaries, pieces that do not nest as
a tree) gives empty results: the caller then takes the Python path, which explains the
problem.

The same flat arrays serve a solver expanding a land (``reduce.land_moves`` and
``reduce.reduced_lands_after_word``), so no Python object is made between a land's
string and its children's codes:

* ``parse_land_kernel`` reads a land string written by the engine into the flat form
  ``child_lands_kernel`` takes (``solve.children.read_land`` is the reference: the same
  spots in the same order);
* ``list_moves_kernel`` lists ``moves.symmetric_move_args``'s moves, in the same order,
  packed in 64-bit words as ``solve.children.pack_moves`` packs them (a move past the
  packing's limits gives no list, and the caller lists in Python);
* ``child_lands_kernel`` makes a child's cleaned lands and their codes.

Every kernel of the engine is in this one file, on purpose: numba keeps a compiled kernel
in its cache until the kernel's *own* file changes, and a kernel that calls a kernel of
another file keeps a compiled copy of the callee, so a change to the callee's file alone
would leave a stale caller behind (``tests/test_kernels.py`` checks that no kernel of the
package calls one of another file).

The kernels run under numba (``cache=True``) or, with ``SPROUTS_PURE_PYTHON=1`` or no
numba, unchanged as plain Python (the tests compare both).  The engine imports this
module (and numba) only once a command has coded a few hundred lands
(``backend.COMPILE_AFTER``), so small commands start as fast as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from .aot import kernel

# Kinds of spots, as in canonical.py (K_*): written 0, 1, 2, a capital (3), a small letter (4).

#: Token values, as in ``canonical.py``: digits 0-2, capital n is 3 + n, small letter n is
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
    """The code of a piece read from corner ``c0`` of boundary ``b0`` (``canonical._walk``).

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
    """The land written from its code, as ``canonical._Coder.write`` does (ASCII bytes).

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
            # the entry boundary read afresh (letters share one counter, as canonical._renamed)
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
        # write the region (canonical._write_boundaries)
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


def flatten_land(regions: Land, lives: Lives) -> list[int]:
    """A land as the flat list ``land_code_kernel`` reads (module docstring)."""
    flat = [len(regions)]
    for r in regions:
        flat.append(len(r))
        for b in r:
            flat.append(len(b))
            flat.extend([4 * s + lives[s] for s in b])
    return flat


def int64_array(values: list[int] | np.ndarray) -> np.ndarray:
    """``np.array(values, np.int64)`` (contiguous), through ``bytes`` when every value of a list
    fits in a byte.

    The flat forms of positions are small non-negative numbers (counts, spot numbers,
    lives); ``bytes`` reads a list of them in C about three times as fast as numpy reads
    Python ints, and a 10-spot position's canonical call spent ~3 µs of its ~17 µs there.
    """
    if isinstance(values, np.ndarray):
        return np.ascontiguousarray(values, np.int64)
    try:
        return np.frombuffer(bytes(values), np.uint8).astype(np.int64)
    except ValueError:  # a value outside 0-255
        return np.array(values, np.int64)


def land_invariant(regions: Land, lives: Lives) -> bytes:
    """The canonical code of a cleaned land as bytes (a complete invariant), or ``b""``."""
    return invariant_of_flat(flatten_land(regions, lives))


def invariant_of_flat(flat: list[int] | np.ndarray) -> bytes:
    """``land_invariant`` of a land already flattened (``flatten_land``)."""
    n = call_into(land_code_into, int64_array(flat), False)
    return OUT.chars[:n].tobytes() if n > 0 else b""


def land_code_and_text(regions: Land, lives: Lives) -> tuple[bytes, str] | None:
    """The canonical code (as bytes, ordered as ``canonical.land_code``'s codes) and the canonical
    string of a cleaned land of several regions, or None if it cannot be coded."""
    n = call_into(land_code_into, int64_array(flatten_land(regions, lives)), True)
    if n < 0:
        return None
    raw = OUT.chars[: n + int(OUT.words[0])].tobytes()
    return raw[:n], raw[n:].decode("ascii")


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
def child_lands_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask):  # type: ignore[no-untyped-def]
    """The cleaned lands of the position after one move (``moves.apply_move`` then
    ``canonical.clean_lands``), each flattened for ``land_code_kernel``, and their codes.

    ``inside_mask`` has bit k set for each boundary k of the region that goes to side A
    of a one-boundary move.  Regions and boundaries keep the order ``apply_move`` and
    ``clean_lands`` give them.  Returns the lands' flat forms one after another with
    their offsets, and their codes (as bytes) with their offsets.
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
    out_flat, land_off = _split_lands(nr, keep, r_first, b_from, b_to, cs, new_lives)
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


def flatten_position(regions: Land, head: Sequence[int] = ()) -> list[int]:
    """A position's regions as the flat list ``child_lands_kernel`` reads (spot numbers as they
    are), after ``head``."""
    flat = [*head, len(regions)]
    for r in regions:
        flat.append(len(r))
        for b in r:
            flat.append(len(b))
            flat.extend(b)
    return flat


#: The last position whose children were asked for, flattened: its regions (compared by
#: identity), the flat array and its lives (a search asks for a land's children one by one).
_LAST: list[Any] = [None, None, None]


def child_lands(
    regions: Land, lives: Sequence[int], move: tuple[int, int, int, int, int, int]
) -> tuple[list[bytes], np.ndarray, list[int]]:
    """The codes of the cleaned lands after a move (``child_lands_kernel``), their flat forms
    one after another, and the offsets of each (``lands_after``); ``move`` is (region,
    boundary, corner, boundary2, corner2, mask of the boundaries inside)."""
    if _LAST[0] is not regions:
        _LAST[:] = [regions, int64_array(flatten_position(regions)), int64_array(list(lives))]
    return lands_after(_LAST[1], _LAST[2], *move)


def lands_after(
    pflat: np.ndarray, lives: np.ndarray, region: int, bi: int, ci: int, bj: int, cj: int, inside_mask: int
) -> tuple[list[bytes], np.ndarray, list[int]]:
    """``child_lands_kernel``'s results through the buffers (``child_lands_into``): the lands'
    codes, their flat forms one after another (a view of ``OUT.words``: copy it before the
    next compiled call), and the offsets of each in it."""
    n = call_into(child_lands_into, pflat, lives, region, bi, ci, bj, cj, inside_mask)
    words = OUT.words
    ends = words[n + 1 : 2 * n + 2].tolist()
    raw = OUT.chars[: ends[n]].tobytes()
    codes = [raw[ends[i] : ends[i + 1]] for i in range(n)]
    offsets = words[: n + 1].tolist()
    return codes, words[2 * n + 2 : 2 * n + 2 + offsets[n]], offsets


def unflatten_land(flat: np.ndarray) -> list[tuple[tuple[int, ...], ...]]:
    """The regions of a land flattened by ``flatten_land`` (spot numbers back from the corners)."""
    values = flat.tolist()
    regions = []
    p = 1
    for _r in range(values[0]):
        nb = values[p]
        p += 1
        boundaries = []
        for _b in range(nb):
            n = values[p]
            boundaries.append(tuple([v >> 2 for v in values[p + 1 : p + 1 + n]]))
            p += 1 + n
        regions.append(tuple(boundaries))
    return regions


def unflatten_land_and_lives(flat: np.ndarray) -> tuple[list[tuple[tuple[int, ...], ...]], tuple[int, ...]]:
    """``unflatten_land`` and the lives of its spots (indexed by spot number; 0 for the others)."""
    values = flat.tolist()
    top = max([v >> 2 for v in values[1:]], default=0)
    lives = [0] * (top + 1)
    p = 1
    for _r in range(values[0]):
        nb = values[p]
        p += 1
        for _b in range(nb):
            n = values[p]
            for v in values[p + 1 : p + 1 + n]:
                lives[v >> 2] = v & 3
            p += 1 + n
    return unflatten_land(flat), tuple(lives)


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


# ------------------------------------------------------------------ every land of a position


@kernel
def position_lands_kernel(packed):  # type: ignore[no-untyped-def]
    """The canonical strings of the lands of a position (``canonical.canonical_lands``), in one call.

    ``packed`` is the number of spots, their lives, then the position as ``flatten_position``
    writes it (one array: converting a list costs about as much as coding a small land).
    Cleans as ``canonical.clean_lands`` does (regions without a move dropped, then dead spots
    and empty boundaries), joins the regions that share a spot into lands, writes each land
    with ``land_code_kernel`` and returns the strings sorted and joined by ``+`` (ASCII), and
    True; or an empty array and False when a land cannot be coded (the caller then takes
    the Python path, which explains the problem).
    """
    nspots = packed[0]
    lives = packed[1 : 1 + nspots]
    nreg, reg_first, bstart, spots = _read_parent(packed[1 + nspots :])
    # regions where a move can be made: two different live spots, or one with two lives
    alive = np.zeros(nreg, np.bool_)
    for r in range(nreg):
        first = -1
        for g in range(bstart[reg_first[r]], bstart[reg_first[r + 1]]):
            s = spots[g]
            v = lives[s]
            if v:
                if v >= 2 or (first >= 0 and s != first):
                    alive[r] = True
                    break
                first = s
    # lands: live regions joined by a shared live spot, each flattened, then written
    out_flat, land_off = _split_lands(nreg, alive, reg_first, bstart[:-1], bstart[1:], spots, lives)
    nlands = land_off.shape[0] - 1
    texts = np.empty(0, np.uint8)
    parts = []
    for i in range(nlands):
        _code, text = _least_reading_code(out_flat[land_off[i] : land_off[i + 1]], True)
        if not len(text):
            return texts, False
        parts.append(text)
    # sorted (as Python sorts the strings: ASCII bytes in order), joined by +
    order = np.empty(nlands, np.int64)
    size = nlands - 1 if nlands else 0
    for i in range(nlands):
        size += parts[i].shape[0]
        j = i
        while j > 0:
            a = parts[order[j - 1]]
            if _compare(a, 0, a.shape[0], parts[i], 0, parts[i].shape[0]) <= 0:
                break
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    texts = np.empty(size, np.uint8)
    pos = 0
    for i in range(nlands):
        if i:
            texts[pos] = 43  # +
            pos += 1
        part = parts[order[i]]
        texts[pos : pos + part.shape[0]] = part
        pos += part.shape[0]
    return texts, True


def position_lands_text(regions: Land, lives: Sequence[int]) -> str | None:
    """The canonical strings of a position's lands, sorted and joined by ``+``, in one compiled
    call (``position_lands_into``); None when a land cannot be coded."""
    n = call_into(position_lands_into, int64_array(flatten_position(regions, (len(lives), *lives))))
    return OUT.chars[:n].tobytes().decode("ascii") if n >= 0 else None


def position_lands(regions: Land, lives: Sequence[int]) -> list[str] | None:
    """``canonical.canonical_lands`` of a position (``position_lands_text``, split), or None
    when a land cannot be coded."""
    text = position_lands_text(regions, lives)
    if text is None:
        return None
    return text.split("+") if text else []


# ------------------------------------------------------------------ the reduced string of a land


#: ``reduce.MAX_SET_CHOICES``: at most this many variants settle the order of set regions.
MAX_SET_CHOICES = 64


@kernel
def _merge_adjacent_corners(out, start, n):  # type: ignore[no-untyped-def]
    """Rule 2 (``reduce.merge_adjacent_corners``) on the boundary ``out[start:start+n]``, in
    place: drop the second corner of the first one-life spot met twice in a row (cyclically),
    again from the start until none is; the new length."""
    changed = True
    while changed and n > 1:
        changed = False
        for i in range(n):
            j = i + 1 if i + 1 < n else 0
            x = out[start + i]
            if x == out[start + j] and x & 3 == 1:
                for k in range(j, n - 1):
                    out[start + k] = out[start + k + 1]
                n -= 1
                changed = True
                break
    return n


@kernel
def reduced_land_kernel(flat):  # type: ignore[no-untyped-def]
    """The reduced string of a cleaned land (``reduce._reduced_land_checked``), ASCII, and
    whether every order of its set regions was tried; an empty string for a land that
    cannot be coded.

    ``flat`` as ``flatten_land`` writes it.  Rule 2 on every boundary; rule 3: a region of
    at most three lives becomes one boundary of its live spots, once each: the spots met
    in no other region by lives from most to least (as first met among equals), then the
    capitals as first met; three spots of which two or more are capitals can go round
    either way, and the least code over those choices wins (``MAX_SET_CHOICES`` variants
    at most, halved by each region that has two, as ``reduce.py`` counts them).
    """
    empty = np.zeros(0, np.uint8)
    nreg = flat[0]
    # rule 2, boundary by boundary, into ``merged`` (the same layout)
    merged = np.empty(flat.shape[0], np.int64)
    reg_at = np.empty(nreg + 1, np.int64)
    merged[0] = nreg
    p = 1
    q = 1
    maxspot = 0
    for r in range(nreg):
        nb = flat[p]
        p += 1
        reg_at[r] = q
        merged[q] = nb
        q += 1
        for _b in range(nb):
            n = flat[p]
            p += 1
            for c in range(n):
                v = flat[p + c]
                merged[q + 1 + c] = v
                if v >> 2 > maxspot:
                    maxspot = v >> 2
            p += n
            n = _merge_adjacent_corners(merged, q + 1, n)
            merged[q] = n
            q += 1 + n
    reg_at[nreg] = q
    # the distinct spots of each region as met, its lives, and in how many regions each spot is
    distinct = np.empty(q, np.int64)
    dist_at = np.empty(nreg + 1, np.int64)
    occurs = np.zeros(maxspot + 1, np.int64)
    last = np.full(maxspot + 1, -1, np.int64)
    total = np.zeros(nreg, np.int64)
    d = 0
    for r in range(nreg):
        dist_at[r] = d
        p = reg_at[r] + 1
        for _b in range(merged[reg_at[r]]):
            n = merged[p]
            for c in range(n):
                v = merged[p + 1 + c]
                if last[v >> 2] != r:
                    last[v >> 2] = r
                    occurs[v >> 2] += 1
                    total[r] += v & 3
                    distinct[d] = v
                    d += 1
            p += 1 + n
    dist_at[nreg] = d
    # rule 3: each set region's spots in their order (at most three: every spot has a life)
    order = np.zeros((nreg, 3), np.int64)
    size = np.zeros(nreg, np.int64)
    two_ways = np.zeros(nreg, np.bool_)
    budget = MAX_SET_CHOICES
    complete = True
    nways = 0
    e = np.empty(3, np.int64)
    for r in range(nreg):
        if total[r] > 3:
            continue
        ns = dist_at[r + 1] - dist_at[r]
        if ns > 3:
            return empty, True  # a dead spot: not a cleaned land
        ncap = 0
        for i in range(ns):
            v = distinct[dist_at[r] + i]
            if v & 3 == 0:
                return empty, True
            if occurs[v >> 2] >= 2:
                ncap += 1
            order[r, i] = v
        # singles first, stably by lives, most first; then capitals as met
        k = 0
        for lv in range(3, 0, -1):
            for i in range(ns):
                v = order[r, i]
                if occurs[v >> 2] < 2 and v & 3 == lv:
                    e[k] = v
                    k += 1
        for i in range(ns):
            v = order[r, i]
            if occurs[v >> 2] >= 2:
                e[k] = v
                k += 1
        for i in range(ns):
            order[r, i] = e[i]
        size[r] = ns
        if ns == 3 and ncap >= 2:
            if budget < 2:
                complete = False
            else:
                budget //= 2
                two_ways[r] = True
                nways += 1
    # every variant coded; the least code's text
    variant = np.empty(q, np.int64)
    best_code = empty
    best_text = empty
    for choice in range(1 << nways):
        variant[0] = nreg
        w = 1
        bit = 0
        for r in range(nreg):
            if total[r] > 3:
                n = reg_at[r + 1] - reg_at[r]
                variant[w : w + n] = merged[reg_at[r] : reg_at[r + 1]]
                w += n
                continue
            variant[w] = 1
            variant[w + 1] = size[r]
            swap = False
            if two_ways[r]:
                swap = (choice >> bit) & 1 == 1
                bit += 1
            for i in range(size[r]):
                j = i if not swap or i == 0 else 3 - i
                variant[w + 2 + i] = order[r, j]
            w += 2 + size[r]
        code, text = _land_code(variant[:w], True, nways > 0)
        if not len(text):
            return empty, True
        if choice == 0 or _compare(code, 0, code.shape[0], best_code, 0, best_code.shape[0]) < 0:
            best_code = code
            best_text = text
    return best_text, complete


@kernel(export="int64(int64[::1], int64[::1], uint8[::1])")
def reduced_land_into(flat, words, chars):  # type: ignore[no-untyped-def]
    """``reduced_land_kernel`` into the buffers: the text's length, with ``words[0]`` 1 if every
    order was tried; or ``NOT_CODED``, or ``TOO_SMALL``."""
    text, complete = reduced_land_kernel(flat)
    n = text.shape[0]
    if n == 0:
        return NOT_CODED
    if n > chars.shape[0]:
        return _too_small(words, 2, n)
    chars[:n] = text
    words[0] = 1 if complete else 0
    return n


def reduced_land(flat: np.ndarray | list[int]) -> tuple[str, bool] | None:
    """``reduced_land_kernel`` of a flat land (``flatten_land``): its reduced string and whether
    every order of its set regions was tried, or None when it cannot be coded."""
    n = call_into(reduced_land_into, int64_array(flat))
    if n < 0:
        return None
    return OUT.chars[:n].tobytes().decode("ascii"), bool(OUT.words[0])


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


def parse_land(land: str) -> tuple[np.ndarray, np.ndarray]:
    """``parse_land_kernel`` of a string (through ``parse_land_into``): ``(flat, lives)``, copied out."""
    n = call_into(parse_land_into, np.frombuffer(land.encode("ascii"), np.uint8))
    words = OUT.words
    return words[1 : 1 + n].copy(), words[1 + n : 1 + n + words[0]].copy()


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


# ------------------------------------------------------------------ results into the caller's buffers
#
# A kernel called from Python that returns arrays pays for each one: an allocation that
# the caller's numpy object then owns, and in the ahead-of-time build an unpickling of
# ``numpy.ndarray`` per array boxed (numba.pycc's wrapper does not cache it: ~7,000
# instructions, 5% of a 10-spot position's canonical form and 7% of a whole ``0*9``
# solve, by valgrind).  So the hot entry points write their results into two buffers
# the caller keeps (``OUT``) and return one number.  A buffer that is too small is
# never written past: the kernel stores the sizes it needs in ``words[0]`` and
# ``words[1]`` and returns ``TOO_SMALL``; the caller grows the buffers and calls again.

#: ``*_into`` kernels: the buffers were too small (``words[:2]`` hold the sizes needed).
TOO_SMALL = -2
#: ``*_into`` kernels: a land that cannot be coded (the Python path explains why).
NOT_CODED = -1


@kernel
def _too_small(words, nwords, nchars):  # type: ignore[no-untyped-def]
    """Store the sizes needed in ``words[:2]`` and return ``TOO_SMALL``."""
    words[0] = nwords
    words[1] = nchars
    return TOO_SMALL


@kernel(export="int64(int64[::1], int64[::1], uint8[::1])")
def position_lands_into(packed, words, chars):  # type: ignore[no-untyped-def]
    """``position_lands_kernel`` with its text written to ``chars``: the text's length, or
    ``NOT_CODED``, or ``TOO_SMALL``."""
    text, ok = position_lands_kernel(packed)
    if not ok:
        return NOT_CODED
    n = text.shape[0]
    if n > chars.shape[0]:
        return _too_small(words, 2, n)
    chars[:n] = text
    return n


@kernel(export="int64(int64[::1], boolean, int64[::1], uint8[::1])")
def land_code_into(flat, write, words, chars):  # type: ignore[no-untyped-def]
    """``land_code_kernel`` with the code then the text written to ``chars``: the code's
    length, the text's in ``words[0]``; or ``NOT_CODED``, or ``TOO_SMALL``."""
    code, text = land_code_kernel(flat, write)
    nc = code.shape[0]
    if nc == 0:
        return NOT_CODED
    nt = text.shape[0]
    if nc + nt > chars.shape[0]:
        return _too_small(words, 2, nc + nt)
    chars[:nc] = code
    chars[nc : nc + nt] = text
    words[0] = nt
    return nc


@kernel(
    export="int64(int64[::1], int64[::1], int64, int64, int64, int64, int64, int64, int64[::1], uint8[::1])"
)
def child_lands_into(pflat, lives, region, bi, ci, bj, cj, inside_mask, words, chars):  # type: ignore[no-untyped-def]
    """``child_lands_kernel`` into the buffers: returns the number of lands n; ``words`` holds
    the n + 1 land offsets, the n + 1 code offsets, then the lands' flat forms; ``chars``
    the codes.  Or ``TOO_SMALL``."""
    flat, land_off, keys, key_off = child_lands_kernel(pflat, lives, region, bi, ci, bj, cj, inside_mask)
    n = land_off.shape[0] - 1
    nwords = 2 * (n + 1) + flat.shape[0]
    if nwords > words.shape[0] or keys.shape[0] > chars.shape[0]:
        return _too_small(words, nwords, keys.shape[0])
    words[: n + 1] = land_off
    words[n + 1 : 2 * n + 2] = key_off
    words[2 * n + 2 : nwords] = flat
    chars[: keys.shape[0]] = keys
    return n


@kernel(export="int64(uint8[::1], int64[::1], uint8[::1])")
def parse_land_into(text, words, chars):  # type: ignore[no-untyped-def]
    """``parse_land_kernel`` into the buffers: returns the length n of ``flat`` (0 for a string
    it cannot read); ``words`` holds the length of ``lives``, ``flat``, then ``lives``.  Or
    ``TOO_SMALL``."""
    flat, lives = parse_land_kernel(text)
    n, nl = flat.shape[0], lives.shape[0]
    if 1 + n + nl > words.shape[0]:
        return _too_small(words, 1 + n + nl, 0)
    words[0] = nl
    words[1 : 1 + n] = flat
    words[1 + n : 1 + n + nl] = lives
    return n


@kernel(export="int64(int64[::1], int64[::1], int64[::1], uint8[::1])")
def list_moves_into(pflat, lives, words, chars):  # type: ignore[no-untyped-def]
    """``list_moves_kernel`` into ``words``: the number of moves, or ``NOT_CODED`` when a move
    does not fit the packing, or ``TOO_SMALL``."""
    moves, fits = list_moves_kernel(pflat, lives)
    if not fits:
        return NOT_CODED
    n = moves.shape[0]
    if n > words.shape[0]:
        return _too_small(words, n, 0)
    words[:n] = moves
    return n


class OutBuffers:
    """The two buffers the ``*_into`` kernels write to, grown when one is too small.

    One per process (``OUT``): a result is read out (or copied) before the next call, and
    the engine's compiled paths are not called from two threads at once.
    """

    def __init__(self, nwords: int = 1 << 12, nchars: int = 1 << 14) -> None:
        self.words = np.empty(nwords, np.int64)
        self.chars = np.empty(nchars, np.uint8)

    def grow(self) -> None:
        """Make room for the sizes a ``TOO_SMALL`` call left in ``words[:2]``."""
        nwords, nchars = int(self.words[0]), int(self.words[1])
        if nwords > self.words.shape[0]:
            self.words = np.empty(2 * nwords, np.int64)
        if nchars > self.chars.shape[0]:
            self.chars = np.empty(2 * nchars, np.uint8)


OUT = OutBuffers()


def call_into(fn: Any, *args: Any) -> int:
    """``fn(*args, OUT.words, OUT.chars)`` for a ``*_into`` kernel, again after growing the
    buffers while it says ``TOO_SMALL``; its result."""
    out = OUT
    result: int = fn(*args, out.words, out.chars)
    while result == TOO_SMALL:
        out.grow()
        result = fn(*args, out.words, out.chars)
    return result


def warm_up() -> None:
    """Compile the kernels, or load them from numba's cache, on a tiny land (about a second
    the first time after an install, a fraction of it afterwards)."""
    land = np.array(flatten_land([((0,), (1,))], (3, 3)), np.int64)
    land_code_into(land, True, OUT.words, OUT.chars)
    land_code_into(land, False, OUT.words, OUT.chars)
    position = np.array(flatten_position([((0,), (1,))]), np.int64)
    child_lands_into(position, np.array([3, 3], np.int64), 0, 0, 0, 1, 0, 0, OUT.words, OUT.chars)
    position_lands_into(np.concatenate((np.array([2, 3, 3], np.int64), position)), OUT.words, OUT.chars)
    reduced_land_into(land, OUT.words, OUT.chars)
    flat, lives = parse_land("0.0")
    list_moves_into(flat, lives, OUT.words, OUT.chars)
