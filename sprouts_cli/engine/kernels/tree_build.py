"""The reduced canonical trees of small lands, built in one compiled loop over the core's numbering.

``solve/tree_build.py`` says what the loop does and holds its Python side (``TreeTables``);
``solve.misere.MisereSolver._tree`` is the reference.  The arrays: the store's per-node arrays
as ``tree_rules`` reads them (``flat``, ``start``, ``win``, ``win1``, ``heapk``) with each node's
birthday and its value's with ``*1`` (``depth``, ``bday1``), the node of each heap ``*2j``
(``heapnode``), whether its value with ``*1`` was met and the log of those (``flag``,
``flaglog``), its size (-1: not known) and the marks and stack of size walks; the tables of
nodes by options (``itab``: node + 1, 0 empty), of raw option sets (``rtab``: where the set
starts in ``arena`` + 1; in ``arena`` a set is its length, its sorted values, its value) and of
sums (``skey``: ``node_a << 32 | node_b``, ``a < b``; ``sval``); the core's (``pncore``) rows of
I64 and I32, SUMS, KIDS and TEXT.
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel
from . import tree_rules as tr

# counters (C)
C_NODES = 0  # nodes in the store (the kernel's arrays hold them all)
C_FLAT = 1  # options in flat
C_HEAPS = 2  # heap nodes known (*0, *2, *4, ...)
C_INDEX = 3  # entries of the node table
C_RAW = 4  # entries of the raw option sets' table
C_ARENA = 5  # words used in the raw sets' arena
C_SUMS = 6  # entries of the sums' table
C_STAMP = 7  # the last stamp of tree_size's marks
C_FLAGS = 8  # entries in the log of nodes whose value with *1 was met
C_RULE1 = 9  # rule counts: 1, 2, 3, 4, new nodes
C_RULE2 = 10
C_RULE3 = 11
C_RULE4 = 12
C_NEW = 13
C_BUILT = 14  # lands whose trees were built, in the log BUILT
C_FSP = 15  # frames on the stack
C_VSP = 16  # values on the stack of options
C_WANT = 17  # the land whose children are wanted (NEED_KIDS)
C_FULL = 18  # 1: a stack of ``_add`` or the parts of a child were full (NEED_ROOM)
NC = 20

# answers besides a value
NEED_KIDS = -2
NEED_ROOM = -3
#: The core's number of a land (``pncore``: rows of I64 and I32).
_L_START = 0
_L_KIDS = 3
_L_LEN = 0
_L_KIND = 4
_K_LAND = 0
#: Room kept free in the per-node arrays and ``flat`` before a ``make``.
ROOM_NODES = 64
ROOM_FLAT = 1 << 12


@kernel
def _mix(h):  # type: ignore[no-untyped-def]
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@kernel
def _hash_run(a, lo, hi):  # type: ignore[no-untyped-def]
    h = np.uint64(hi - lo) + np.uint64(0x9E3779B97F4A7C15)
    for i in range(lo, hi):
        h = _mix(h ^ np.uint64(a[i] & 0xFFFFFFFF))
    return h


@kernel
def _bday(v, depth, bday1):  # type: ignore[no-untyped-def]
    """The birthday of a value (its node's, or the node's plus ``*1``)."""
    if v & 1:
        return np.int64(bday1[v >> 1])
    return np.int64(depth[v >> 1])


@kernel
def _same_run(a, lo, hi, b, blo, bhi):  # type: ignore[no-untyped-def]
    if hi - lo != bhi - blo:
        return False
    for i in range(hi - lo):  # noqa: SIM110  (a loop, compiled)
        if a[lo + i] != b[blo + i]:
            return False
    return True


@kernel
def index_find(buf, lo, hi, itab, flat, start):  # type: ignore[no-untyped-def]
    """The node whose sorted options are ``buf[lo:hi]``, or -1."""
    mask = np.uint64(itab.shape[0] - 1)
    s = np.int64(_hash_run(buf, lo, hi) & mask)
    while True:
        e = itab[s]
        if e == 0:
            return np.int64(-1)
        n = e - 1
        if _same_run(buf, lo, hi, flat, start[n], start[n + 1]):
            return n
        s = (s + 1) & np.int64(mask)


@kernel(export="void(int64, int64[::1], int32[::1], int64[::1], int64[::1])")
def index_put(n, itab, flat, start, C):  # type: ignore[no-untyped-def]
    """Enter node ``n`` in the node table (the caller keeps it at most half full)."""
    mask = np.uint64(itab.shape[0] - 1)
    s = np.int64(_hash_run(flat, start[n], start[n + 1]) & mask)
    while itab[s] != 0:
        s = (s + 1) & np.int64(mask)
    itab[s] = n + 1
    C[C_INDEX] += 1


@kernel
def _raw_slot(buf, lo, hi, rtab, arena):  # type: ignore[no-untyped-def]
    """The slot of the raw set ``buf[lo:hi]`` in its table: its own, or the empty one it would take."""
    mask = np.uint64(rtab.shape[0] - 1)
    s = np.int64(_hash_run(buf, lo, hi) & mask)
    while True:
        e = rtab[s]
        if e == 0:
            return s
        o = e - 1
        if _same_run(buf, lo, hi, arena, o + 1, o + 1 + arena[o]):
            return s
        s = (s + 1) & np.int64(mask)


@kernel(export="void(int64[::1], int32[::1], int64)")
def rehash_raw(rtab, arena, top):  # type: ignore[no-untyped-def]
    """Enter every set of the arena (``arena[:top]``: a length, then the values) in an empty table."""
    mask = np.uint64(rtab.shape[0] - 1)
    o = np.int64(0)
    while o < top:
        n = arena[o]
        s = np.int64(_hash_run(arena, o + 1, o + 1 + n) & mask)
        while rtab[s] != 0:
            s = (s + 1) & np.int64(mask)
        rtab[s] = o + 1
        o += n + 2


@kernel(export="void(int64[::1], int64, int32[::1], int64[::1])")
def rehash_index(itab, n_nodes, flat, start):  # type: ignore[no-untyped-def]
    """Enter nodes ``0..n_nodes-1`` in an empty node table."""
    mask = np.uint64(itab.shape[0] - 1)
    for n in range(n_nodes):
        s = np.int64(_hash_run(flat, start[n], start[n + 1]) & mask)
        while itab[s] != 0:
            s = (s + 1) & np.int64(mask)
        itab[s] = n + 1


@kernel(export="void(int64[::1], int64[::1], int64[::1], int64[::1])")
def rehash_sums(skey, sval, okey, oval):  # type: ignore[no-untyped-def]
    """Enter the sums of the old table (``okey``, ``oval``) in an empty one."""
    mask = skey.shape[0] - 1
    for i in range(okey.shape[0]):
        k = okey[i]
        if k == 0:
            continue
        s = np.int64(_mix(np.uint64(k)) & np.uint64(mask))
        while skey[s] != 0:
            s = (s + 1) & mask
        skey[s] = k
        sval[s] = oval[i]


@kernel
def _sum_slot(key, skey):  # type: ignore[no-untyped-def]
    mask = skey.shape[0] - 1
    s = np.int64(_mix(np.uint64(key)) & np.uint64(mask))
    while skey[s] != 0 and skey[s] != key:
        s = (s + 1) & mask
    return s


@kernel
def _flag(n, flag, flaglog, C):  # type: ignore[no-untyped-def]
    """Node ``n``'s value with ``*1`` was met (``ReducedTreeStore._flagged``)."""
    if flag[n] == 0:
        flag[n] = 1
        flaglog[C[C_FLAGS]] = n
        C[C_FLAGS] += 1


@kernel
def _new_node(buf, lo, hi, K, itab, C):  # type: ignore[no-untyped-def]
    """A node whose options are ``buf[lo:hi]`` (sorted): ``ReducedTreeStore._new``."""
    flat, start, win, win1, depth, bday1 = K[0], K[1], K[2], K[3], K[4], K[5]
    n = C[C_NODES]
    f = C[C_FLAT]
    w = 0 if hi > lo else 1
    top = np.int64(0)
    for i in range(lo, hi):
        o = buf[i]
        flat[f + i - lo] = o
        if not tr._wins(o, win, win1):
            w = 1
        b = _bday(o, depth, bday1)
        if b > top:
            top = b
    end = f + hi - lo
    start[n + 1] = end
    win[n] = w
    w1 = 1 if w == 0 else 0
    top1 = np.int64(0)
    for i in range(lo, hi):
        o = buf[i] ^ 1
        if w1 == 0 and not tr._wins(o, win, win1):
            w1 = 1
        b = _bday(o, depth, bday1)
        if b > top1:
            top1 = b
    win1[n] = w1
    depth[n] = 1 + top if hi > lo else 0
    d = np.int64(depth[n])
    bday1[n] = 1 + (d if d > top1 else top1)
    C[C_NODES] = n + 1
    C[C_FLAT] = end
    mask = np.uint64(itab.shape[0] - 1)
    s = np.int64(_hash_run(flat, f, end) & mask)
    while itab[s] != 0:
        s = (s + 1) & np.int64(mask)
    itab[s] = n + 1
    C[C_INDEX] += 1
    return n


@kernel
def _heap(k, scratch, K, itab, C):  # type: ignore[no-untyped-def]
    """The value of the heap ``*k`` (``ReducedTreeStore.heap``), making the nodes of heaps not made yet."""
    heapk, heapnode = K[6], K[7]
    j = k >> 1
    while C[C_HEAPS] <= j:
        m = 2 * C[C_HEAPS]
        for i in range(m):
            scratch[i] = 2 * heapnode[i >> 1] | (i & 1)
        scratch[:m].sort()
        n = index_find(scratch, 0, m, itab, K[0], K[1])
        if n < 0:
            n = _new_node(scratch, 0, m, K, itab, C)
        heapnode[C[C_HEAPS]] = n
        heapk[n] = m
        C[C_HEAPS] += 1
    if k & 1:
        _flag(heapnode[j], K[8], K[9], C)
    return 2 * heapnode[j] | (k & 1)


@kernel
def _factor(s, k, flat, start, depth, bday1):  # type: ignore[no-untyped-def]
    """Rule 4 on the sorted set ``s[:k]``: the value ``Z + *1``, or -1 (``ReducedTreeStore._factor``)."""
    if k < 2:
        return np.int64(-1)
    top = np.int64(-1)
    for i in range(k):
        b = _bday(s[i], depth, bday1)
        if b > top:
            top = b
    for i in range(k):
        z = s[i]
        if _bday(z, depth, bday1) != top:
            continue
        nz = tr._n_options(z, start)
        if nz + 1 != k:
            continue
        ok = True
        for j in range(nz):
            c = tr._option_at(z, j, flat, start) ^ 1
            if c == z or tr._find(s, 0, k, c) < 0:
                ok = False
                break
        if ok:
            return z ^ 1
    return np.int64(-1)


@kernel
def _room(need, K, T, C):  # type: ignore[no-untyped-def]
    """Is there room for a ``make`` of ``need`` options (nodes, heaps, table entries) and a sum?"""
    itab, rtab, arena, skey = T[0], T[1], T[2], T[3]
    return not (
        C[C_NODES] + need + ROOM_NODES > K[2].shape[0] - 1
        or C[C_FLAT] + need * need + need + ROOM_FLAT > K[0].shape[0]
        or 2 * (C[C_INDEX] + need + ROOM_NODES) > itab.shape[0]
        or 2 * (C[C_RAW] + 2) > rtab.shape[0]
        or C[C_ARENA] + need + 4 > arena.shape[0]
        or 2 * (C[C_SUMS] + 2) > skey.shape[0]
    )


@kernel
def _birthday_order(buf, lo, hi, depth, bday1):  # type: ignore[no-untyped-def]
    """``buf[lo:hi]``, the latest born first, ties in their order (as ``sorted(reverse=True)``)."""
    m = hi - lo
    order = np.empty(m, np.int64)
    for i in range(m):
        v = buf[lo + i]
        bv = _bday(v, depth, bday1)
        j = i - 1
        while j >= 0 and _bday(order[j], depth, bday1) < bv:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v
    return order


@kernel
def _reduced(buf, lo, hi, scratch, K, itab, C, info):  # type: ignore[no-untyped-def]
    """The value of the option set ``buf[lo:hi]`` (sorted, no repeats), found in no table:
    rules 1-4, or a new node (``ReducedTreeStore.make`` past its lookups)."""
    flat, start, win, win1, depth, bday1, heapk = K[0], K[1], K[2], K[3], K[4], K[5], K[6]
    m = hi - lo
    order = _birthday_order(buf, lo, hi, depth, bday1)
    out = np.empty(m, np.int64)
    r = tr.reduce_options_kernel(order, flat, start, win, win1, heapk, out, info)
    C[C_RULE3] += info[1]
    if info[0] == tr.KIND_HEAP:
        C[C_RULE1] += 1
        return _heap(info[2], scratch, K, itab, C)
    if info[0] == tr.KIND_ZERO:
        C[C_RULE2] += 1
        return np.int64(0)
    red = np.sort(out[:r])
    n = index_find(red, 0, r, itab, flat, start) if r != m else np.int64(-1)
    if n >= 0:
        return 2 * n
    hit = _factor(red, r, flat, start, depth, bday1)
    if hit >= 0:
        C[C_RULE4] += 1
        return hit
    C[C_NEW] += 1
    return 2 * _new_node(red, 0, r, K, itab, C)


@kernel
def _make(buf, lo, hi, scratch, K, T, C, info):  # type: ignore[no-untyped-def]
    """The value of the game whose options are ``buf[lo:hi]`` (in any order, repeats allowed),
    reduced: ``ReducedTreeStore.make``.  ``buf[lo:hi]`` is sorted in place.  -1 when there is
    no room (nothing was changed)."""
    if not _room(hi - lo, K, T, C):
        return np.int64(-1)
    itab, rtab, arena = T[0], T[1], T[2]
    buf[lo:hi].sort()
    k = lo
    for i in range(lo, hi):
        if i == lo or buf[i] != buf[k - 1]:
            buf[k] = buf[i]
            k += 1
    hi = k
    rs = _raw_slot(buf, lo, hi, rtab, arena)
    if rtab[rs] != 0:
        o = rtab[rs] - 1
        return np.int64(arena[o + 1 + arena[o]])
    n = index_find(buf, lo, hi, itab, K[0], K[1])
    hit = 2 * n if n >= 0 else _reduced(buf, lo, hi, scratch, K, itab, C, info)
    if hit & 1:
        _flag(hit >> 1, K[8], K[9], C)
    # the raw set in the arena: its length, its values, then its value
    o = C[C_ARENA]
    arena[o] = hi - lo
    for i in range(lo, hi):
        arena[o + 1 + i - lo] = buf[i]
    arena[o + 1 + hi - lo] = hit
    C[C_ARENA] = o + 2 + hi - lo
    rtab[rs] = o + 1
    C[C_RAW] += 1
    return hit


@kernel
def _known_sum(a, b, skey, sval):  # type: ignore[no-untyped-def]
    """``a + b`` when one is ``0`` or the sum of their nodes is in the table (without the
    bits' ``*1``), else -1; and the key of the pair of nodes."""
    na = a >> 1
    nb = b >> 1
    if na == 0 or nb == 0:
        return 2 * (na | nb), np.int64(0)
    if na > nb:
        na, nb = nb, na
    key = (na << 32) | nb
    s = _sum_slot(key, skey)
    if skey[s] == key:
        return sval[s], key
    return np.int64(-1), key


@kernel
def _add(a, b, astack, avals, scratch, K, T, C, info):  # type: ignore[no-untyped-def]
    """The value of ``a + b`` (``ReducedTreeStore.add``), the recursion on ``astack`` (a frame:
    the key of the two nodes, the next option, where its options start on ``avals``, the bit to
    add to its sum); -1 when an array is full."""
    skey, sval = T[3], T[4]
    flat, start, flag, flaglog = K[0], K[1], K[8], K[9]
    v, key = _known_sum(a, b, skey, sval)
    sp = 0
    vsp = 0
    if v < 0:
        astack[0, 0] = key
        astack[0, 1] = 0
        astack[0, 2] = 0
        astack[0, 3] = (a ^ b) & 1
        sp = 1
    while sp:
        f = sp - 1
        x = 2 * (astack[f, 0] >> 32)
        y = 2 * (astack[f, 0] & 0xFFFFFFFF)
        i = astack[f, 1]
        nx = tr._n_options(x, start)
        if i < nx + tr._n_options(y, start):
            if i < nx:
                p = tr._option_at(x, i, flat, start)
                q = y
            else:
                p = x
                q = tr._option_at(y, i - nx, flat, start)
            v, k2 = _known_sum(p, q, skey, sval)
            if v < 0:
                if sp == astack.shape[0]:
                    C[C_FULL] = 1
                    return np.int64(-1)
                astack[sp, 0] = k2
                astack[sp, 1] = 0
                astack[sp, 2] = vsp
                astack[sp, 3] = (p ^ q) & 1
                sp += 1
                continue
            if (p ^ q) & 1:
                v ^= 1
                _flag(v >> 1, flag, flaglog, C)
            if vsp == avals.shape[0]:
                C[C_FULL] = 1
                return np.int64(-1)
            avals[vsp] = v
            vsp += 1
            astack[f, 1] = i + 1
            continue
        base = astack[f, 2]
        v = _make(avals, base, vsp, scratch, K, T, C, info)
        if v < 0:
            return np.int64(-1)
        k2 = astack[f, 0]
        s = _sum_slot(k2, skey)
        skey[s] = k2
        sval[s] = v
        C[C_SUMS] += 1
        vsp = base
        sp -= 1
        if sp:
            if astack[f, 3]:
                v ^= 1
                _flag(v >> 1, flag, flaglog, C)
            avals[vsp] = v
            vsp += 1
            astack[sp - 1, 1] += 1
    if (a ^ b) & 1:
        v ^= 1
        _flag(v >> 1, flag, flaglog, C)
    return v


@kernel
def _size(v, K, C):  # type: ignore[no-untyped-def]
    """``ReducedTreeStore.size``: the distinct nodes of ``v``'s tree, plus 1 with its ``*1`` bit."""
    n = v >> 1
    size = K[10]
    if size[n] < 0:
        C[C_STAMP] += 1
        size[n] = tr.tree_size_kernel(n, K[0], K[1], K[11], K[12], C[C_STAMP])
    return size[n] + (v & 1)


@kernel
def _text_less(a, b, i64c, i32c, text):  # type: ignore[no-untyped-def]
    """Is land ``a``'s string before land ``b``'s (as Python orders strings)?"""
    sa = i64c[_L_START, a]
    sb = i64c[_L_START, b]
    la = i32c[_L_LEN, a]
    lb = i32c[_L_LEN, b]
    for i in range(min(la, lb)):
        ca = text[sa + i]
        cb = text[sb + i]
        if ca != cb:
            return ca < cb
    return la < lb


@kernel
def _members(child, parts, D, C):  # type: ignore[no-untyped-def]
    """A child's lands into ``parts``, in the order of their strings: how many, or -1 (no room)."""
    i64c, i32c, sums, text = D[0], D[1], D[2], D[4]
    if i32c[_L_KIND, child] == _K_LAND:
        parts[0] = child
        return np.int64(1)
    ms = i64c[_L_START, child]
    nm = np.int64(i32c[_L_LEN, child])
    if nm > parts.shape[0]:
        C[C_FULL] = 1
        return np.int64(-1)
    for j in range(nm):
        m = sums[ms + j]
        q = j - 1
        while q >= 0 and _text_less(m, parts[q], i64c, i32c, text):
            parts[q + 1] = parts[q]
            q -= 1
        parts[q + 1] = m
    return nm


@kernel
def _child_sum(parts, nm, tree, W, K, T, C, info):  # type: ignore[no-untyped-def]
    """The sum of the trees of the lands ``parts[:nm]`` (in the order of their strings), added
    smallest first, ties in that order (``_tree``'s ``add_all(sorted(parts, key=size))``)."""
    for j in range(nm):
        t = tree[parts[j]]
        st = _size(t, K, C)
        q = j - 1
        while q >= 0 and _size(parts[q], K, C) > st:
            parts[q + 1] = parts[q]
            q -= 1
        parts[q + 1] = t
    total = np.int64(0)
    for j in range(nm):
        total = _add(total, parts[j], W[2], W[3], W[5], K, T, C, info)
        if total < 0:
            return total
    return total


@kernel
def build_tree(root, D, tree, W, K, T, C, info):  # type: ignore[no-untyped-def]
    """The tree of land ``root`` (a number of the core's numbering), as ``MisereSolver._tree``
    builds it; ``tree`` holds the trees of lands built (-1: not yet).  ``NEED_KIDS``: the
    children of land ``C[C_WANT]`` are not all found; ``NEED_ROOM``: an array is full.  Call
    again after either: the stack of frames goes on where it stopped.

    ``D``: the core's arrays (I64, I32, SUMS, KIDS, TEXT); ``W``: the loop's own (frames, the
    values of options, ``_add``'s frames and values, the parts of a child, scratch, the log of
    lands built); ``K``: the store's per-node arrays (``TreeTables.build`` names them); ``T``:
    the tables (nodes, raw sets, the raw sets' arena, sums' keys and values)."""
    frames, vstack, parts, built = W[0], W[1], W[4], W[6]
    i64c, kids = D[0], D[3]
    if C[C_FSP] == 0:
        if tree[root] >= 0:
            return tree[root]
        frames[0, 0] = root
        frames[0, 1] = 0
        frames[0, 2] = 0
        C[C_FSP] = 1
        C[C_VSP] = 0
    while C[C_FSP] > 0:
        f = C[C_FSP] - 1
        land = frames[f, 0]
        i = frames[f, 1]
        w = i64c[_L_KIDS, land]
        if w < 0 or (w & 1) == 0:
            C[C_WANT] = land
            return np.int64(NEED_KIDS)
        if i < ((w >> 1) & ((1 << 23) - 1)):
            nm = _members(kids[(w >> 24) + i], parts, D, C)
            if nm < 0:
                return np.int64(NEED_ROOM)
            missing = np.int64(-1)
            for j in range(nm):
                m = parts[j]
                if m >= tree.shape[0]:
                    return np.int64(NEED_ROOM)
                if tree[m] < 0:
                    missing = m
                    break
            if missing >= 0:  # its tree first (the lands of a child in the order of their strings)
                if C[C_FSP] == frames.shape[0]:
                    return np.int64(NEED_ROOM)
                frames[f + 1, 0] = missing
                frames[f + 1, 1] = 0
                frames[f + 1, 2] = C[C_VSP]
                C[C_FSP] += 1
                continue
            total = _child_sum(parts, nm, tree, W, K, T, C, info)
            if total < 0 or C[C_VSP] == vstack.shape[0]:
                return np.int64(NEED_ROOM)
            vstack[C[C_VSP]] = total
            C[C_VSP] += 1
            frames[f, 1] = i + 1
            continue
        base = frames[f, 2]
        if C[C_BUILT] == built.shape[0]:
            return np.int64(NEED_ROOM)
        v = _make(vstack, base, C[C_VSP], W[5], K, T, C, info)
        if v < 0:
            return np.int64(NEED_ROOM)
        tree[land] = v
        C[C_VSP] = base
        C[C_FSP] -= 1
        built[C[C_BUILT]] = land
        C[C_BUILT] += 1
    return tree[root]


#: The types of the store's arrays (``K``), then of the tables (``T``) and the counters and
#: ``info``, as the entry points below take them one by one.
_STORE_AND_TABLES = (
    "int32[::1], int64[::1], uint8[::1], uint8[::1], int32[::1], int32[::1], int32[::1], int64[::1], "
    "uint8[::1], int64[::1], int64[::1], int64[::1], int64[::1], "
    "int64[::1], int64[::1], int32[::1], int64[::1], int64[::1], int64[::1], int64[::1]"
)

#: ``build_tree_entry``'s signature: the root, the core's arrays (``D``), the trees by land, the
#: loop's arrays (``W``), the store's (``K``), the tables (``T``), the counters and ``info``.
BUILD_SIGNATURE = (
    "int64(int64, int64[:, ::1], int32[:, ::1], int64[::1], int32[::1], uint8[::1], int64[::1], "
    "int64[:, ::1], int64[::1], int64[:, ::1], int64[::1], int64[::1], int64[::1], int64[::1], "
    f"{_STORE_AND_TABLES})"
)


@kernel(export=BUILD_SIGNATURE)
def build_tree_entry(  # type: ignore[no-untyped-def]
    root, i64c, i32c, sums, kids, text, tree,
    frames, vstack, astack, avals, parts, scratch, built,
    flat, start, win, win1, depth, bday1, heapk, heapnode, flag, flaglog, size, mark, sstack,
    itab, rtab, arena, skey, sval, C, info,
):  # fmt: skip
    """``build_tree`` with its arrays one by one (an entry point takes no tuples)."""
    D = (i64c, i32c, sums, kids, text)
    W = (frames, vstack, astack, avals, parts, scratch, built)
    K = (flat, start, win, win1, depth, bday1, heapk, heapnode, flag, flaglog, size, mark, sstack)
    T = (itab, rtab, arena, skey, sval)
    return build_tree(root, D, tree, W, K, T, C, info)


#: ``add_entry``'s signature: the two values, ``_add``'s stacks and scratch, the store's arrays
#: (``K``), the tables (``T``), the counters and ``info``.
ADD_SIGNATURE = f"int64(int64, int64, int64[:, ::1], int64[::1], int64[::1], {_STORE_AND_TABLES})"


@kernel(export=ADD_SIGNATURE)
def add_entry(  # type: ignore[no-untyped-def]
    a, b, astack, avals, scratch,
    flat, start, win, win1, depth, bday1, heapk, heapnode, flag, flaglog, size, mark, sstack,
    itab, rtab, arena, skey, sval, C, info,
):  # fmt: skip
    """``ReducedTreeStore.add`` of two values over the tables (``_add``), its arrays one by one:
    the value, or -1 when an array is full (``C[C_FULL]``: a stack; else the store or a table),
    what was made so far kept in the tables."""
    K = (flat, start, win, win1, depth, bday1, heapk, heapnode, flag, flaglog, size, mark, sstack)
    T = (itab, rtab, arena, skey, sval)
    return _add(a, b, astack, avals, scratch, K, T, C, info)
