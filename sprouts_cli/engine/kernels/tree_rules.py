"""Rules 1-3 of the reduced canonical trees, compiled over the tree store's flat arrays.

``solve.reduced_trees.ReducedTreeStore._reduce_plain`` is the reference: it reduces a set of
option values (``2·node + bit``) by rule 1 (nim heaps), rule 2 (the empty reducer) and rule
3 (an option reversible through one of its options, removed until none is; Lemoine and
Viennot, arXiv:0908.4407, as ``docs/misere.md`` numbers them).  ``reduce_options_kernel``
does the same over the store's arrays, with no Python object made per option: a sum of
two trees is reduced once and rule 3 tests every option against every other, which made
rule 3 the largest part of the misère search's sums.

The arrays (read only): ``flat`` (int32) the options of every node, node after node, each
node's sorted; ``start`` (int64) where node ``n``'s run begins (``start[n + 1]`` ends it);
``win`` and ``win1`` (uint8) the misère outcome of node ``n`` alone and beside ``*1``;
``heapk`` (int32) ``2j`` when node ``n`` is the heap ``*2j``, else -1.  The value ``v`` is node
``v >> 1`` plus ``*1`` when ``v & 1``: its options are the node's, or ``v - 1`` and each of the
node's options with its bit flipped.
"""

from __future__ import annotations

import numpy as np

# ``kernel``: numba.njit(cache=True), plain Python, or the ahead-of-time build (aot.py);
# ``@kernel(export=SIGNATURE)`` marks an entry point, a kernel called from Python.
from ..aot import kernel

#: ``info[0]`` after a call: the set was reduced to ``out[:n]`` (the kernel returns ``n``).
KIND_SET = 0
#: ``info[0]``: the game is the nim heap ``*info[2]`` (rule 1).
KIND_HEAP = 1
#: ``info[0]``: the game is ``0`` (rule 2).
KIND_ZERO = 2


@kernel
def _wins(v, win, win1):  # type: ignore[no-untyped-def]
    """Does the mover win the value ``v`` alone (misère)?"""
    if v & 1:
        return win1[v >> 1] != 0
    return win[v >> 1] != 0


@kernel
def _find(a, lo, hi, w):  # type: ignore[no-untyped-def]
    """Where ``w`` is in the sorted run ``a[lo:hi]`` (a binary search), or -1."""
    while lo < hi:
        mid = (lo + hi) >> 1
        c = a[mid]
        if c == w:
            return mid
        if c < w:
            lo = mid + 1
        else:
            hi = mid
    return -1


@kernel
def _own_has(n, w, flat, start):  # type: ignore[no-untyped-def]
    """Is ``w`` among node ``n``'s own options (sorted)?"""
    return _find(flat, start[n], start[n + 1], w) >= 0


@kernel
def _has_option(v, w, flat, start):  # type: ignore[no-untyped-def]
    """Is ``w`` an option of the value ``v``?"""
    if v & 1:
        return w == v - 1 or _own_has(v >> 1, w ^ 1, flat, start)
    return _own_has(v >> 1, w, flat, start)


@kernel
def _n_options(v, start):  # type: ignore[no-untyped-def]
    n = v >> 1
    return start[n + 1] - start[n] + (v & 1)


@kernel
def _option_at(v, i, flat, start):  # type: ignore[no-untyped-def]
    """The ``i``-th option of ``v`` (``v - 1`` first when ``v`` has its ``*1`` bit)."""
    n = v >> 1
    if v & 1:
        if i == 0:
            return v - 1
        return flat[start[n] + i - 1] ^ 1
    return flat[start[n] + i]


@kernel
def _in_set(w, vals, alive):  # type: ignore[no-untyped-def]
    """Is ``w`` in the set: ``vals`` sorted, ``alive`` the ones not removed?"""
    i = _find(vals, 0, len(vals), w)
    return i >= 0 and alive[i] != 0


@kernel
def _heap_rule(vals, alive, heapk):  # type: ignore[no-untyped-def]
    """Rule 1 on the live set: the least heap size missing, or -1 (not every option a heap,
    or neither ``*0`` nor ``*1`` among them)."""
    n = len(vals)
    seen = np.zeros(n + 2, np.uint8)
    low = False
    for i in range(n):
        if alive[i] == 0:
            continue
        v = vals[i]
        k = heapk[v >> 1]
        if k < 0:
            return -1
        k = k | (v & 1)
        if k <= 1:
            low = True
        if k <= n:
            seen[k] = 1
    if not low:
        return -1
    m = 0
    while seen[m]:
        m += 1
    return m


@kernel
def _reversible(x, vals, alive, size, rest_win, flat, start, win, win1):  # type: ignore[no-untyped-def]
    """Has ``x`` an option ``y`` equal to ``{rest}``, ``rest`` the live set but ``x``?
    (``ReducedTreeStore._reversible_through``.)"""
    n_rest = size - 1
    for i in range(_n_options(x, start)):
        y = _option_at(x, i, flat, start)
        if _wins(y, win, win1) != rest_win:
            continue
        ny = _n_options(y, start)
        if ny > n_rest:
            continue
        inside = True
        for j in range(ny):
            o = _option_at(y, j, flat, start)
            if o == x or not _in_set(o, vals, alive):
                inside = False
                break
        if not inside:
            continue
        every = True
        for j in range(len(vals)):
            if alive[j] == 0:
                continue
            t = vals[j]
            if t == x or _has_option(y, t, flat, start) or _has_option(t, y, flat, start):
                continue
            every = False
            break
        if every:
            return True
    return False


#: ``reduce_options_kernel``'s signature: the set, the store's five arrays, ``out`` and ``info``.
REDUCE_SIGNATURE = (
    "int64(int64[::1], int32[::1], int64[::1], uint8[::1], uint8[::1], int32[::1], int64[::1], int64[::1])"
)


@kernel(export=REDUCE_SIGNATURE)
def reduce_options_kernel(order, flat, start, win, win1, heapk, out, info):  # type: ignore[no-untyped-def]
    """Rules 1-3 on the option set ``order`` (distinct values, the order rule 3 tries them in:
    the latest born first).  ``info[0]`` says what the game is (``KIND_SET``, ``KIND_HEAP``
    with the heap's size in ``info[2]``, ``KIND_ZERO``), ``info[1]`` how many options rule 3
    removed; for a set, its values are ``out[:n]`` in ``order``'s order and ``n`` is returned."""
    n = len(order)
    vals = np.sort(order)
    alive = np.ones(n, np.uint8)
    info[0] = KIND_SET
    info[1] = 0
    info[2] = 0
    m = _heap_rule(vals, alive, heapk)
    if m >= 0:
        info[0] = KIND_HEAP
        info[2] = m
        return 0
    g_win = False
    for i in range(n):
        if not _wins(vals[i], win, win1):
            g_win = True
    if n > 0 and g_win:
        every = True
        for i in range(n):
            if not _has_option(vals[i], 0, flat, start):
                every = False
                break
        if every:
            info[0] = KIND_ZERO
            return 0
    at = np.empty(n, np.int64)  # where each of ``order`` sits in ``vals``
    for i in range(n):
        at[i] = np.searchsorted(vals, order[i])
    size = n
    changed = True
    while changed:
        changed = False
        losses = 0
        for i in range(n):
            if alive[i] and not _wins(vals[i], win, win1):
                losses += 1
        for i in range(n):
            p = at[i]
            if alive[p] == 0:
                continue
            x = order[i]
            alone = size == 1
            rest_win = alone or losses - (0 if _wins(x, win, win1) else 1) > 0
            if alone and not g_win:
                continue  # the proviso: {x} is a loss and {} a win
            if _reversible(x, vals, alive, size, rest_win, flat, start, win, win1):
                alive[p] = 0
                size -= 1
                info[1] += 1
                changed = True
                m = _heap_rule(vals, alive, heapk)
                if m >= 0:
                    info[0] = KIND_HEAP
                    info[2] = m
                    return 0
                break
    k = 0
    for i in range(n):
        if alive[at[i]]:
            out[k] = order[i]
            k += 1
    return k


#: ``tree_size_kernel``'s signature: the node, the store's options and starts, ``mark``, ``stack``, the stamp.
SIZE_SIGNATURE = "int64(int64, int32[::1], int64[::1], int64[::1], int64[::1], int64)"


@kernel(export=SIZE_SIGNATURE)
def tree_size_kernel(n0, flat, start, mark, stack, stamp):  # type: ignore[no-untyped-def]
    """The number of distinct nodes reachable from node ``n0``, itself included (a depth-first
    walk; ``ReducedTreeStore._size_plain`` is the reference).  ``mark`` and ``stack`` have an
    entry a node; no entry of ``mark`` equals ``stamp`` (each call passes a new one), and a
    node met is marked with it."""
    mark[n0] = stamp
    stack[0] = n0
    top = 1
    count = 1
    while top:
        top -= 1
        n = stack[top]
        for i in range(start[n], start[n + 1]):
            m = flat[i] >> 1
            if mark[m] != stamp:
                mark[m] = stamp
                stack[top] = m
                top += 1
                count += 1
    return count
