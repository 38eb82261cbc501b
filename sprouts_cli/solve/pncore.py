"""The proof-number core, compiled: df-pn with the 1+ε trick and the sum search over node numbers.

``nimbers.NormalSolver`` is the plain-Python reference; this module runs the same search
(the same questions "is ``L + *k`` a win?", the same thresholds, move order, pricing of
fresh nodes and of sums, the same mex rule on small lands) in one compiled loop
(numba, ``nogil=True``) over arrays, and Python is left at the edges: reading the
question, the table of solved lands (read when a land is first met, written in
batches), progress and the clock (the loop returns every so many nodes).

What the loop holds (``State``):

* **the numbering**: every land (its reduced string, in a byte arena) and every sum of
  lands (its sorted land numbers) met gets a number, through open-addressing hash
  tables; per number, fixed-width fields in two 2-D arrays (lives, nimber, the heaps
  proved won as a bit mask, whether the table was read, the children);
* **the children** of a land, found one at a time as the search asks (a win needs one
  losing child): the moves are listed by the engine's kernels (``list_moves_kernel``),
  each child's lands made and coded (``child_lands_kernel``), looked up by their code
  (a complete invariant: a hash table from code to land number), and a land met for
  the first time is reduced (``reduced_land_kernel``) and numbered by its string;
* **the transposition table**: a fixed-size array of buckets of four entries
  (node, pn, dn, work done below it), the entry with the least work replaced, as in
  SPOTS (Čížek) and the Dots-and-Boxes solver;
* **the stack** of df-pn's frames (node and thresholds): the loop is iterative, so it
  can stop at any frame and go on later (to grow an array, read the table, look at the
  clock) with nothing lost, as each frame's step is recomputed from the table.

The loop's kernels call the engine's kernels (``engine/kernels/``).  numba caches a
kernel until its *own* file changes and keeps a compiled copy of every kernel it calls,
so the caches of this module are stamped with the engine's kernel sources as well
(``jit.stamped_cache``, ``aot.sources_stamp``): a change to the engine recompiles the search.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .. import jit
from ..engine import aot

PURE_PYTHON = aot.PURE_PYTHON

# ------------------------------------------------------------------ constants (as nimbers.py)
INF = 1 << 60
EPSILON = 0.25
DN_PER_LIFE = 1
SMALL_LIVES = 5
NODE_BITS = 32
NODE_MASK = (1 << NODE_BITS) - 1
#: Heaps of a node stay below this (the heaps proved won of a land are a 63-bit mask).
HEAP_LIMIT = 63

# node_of's answers besides a node
LOSS = -1
WIN = -2
STOP = -3

# statuses of a run
RUNNING = 0
DONE = 1
NEED_ROOM = 2
NEED_LOOKUP = 3
PAUSED = 4
UNSUPPORTED = 5

# kinds of numbers
K_LAND = 0
K_SUM = 1

# int64 fields of a number (rows of I64)
L_START = 0  # a land: its string in TEXT; a sum: its lands in SUMS
L_WINS = 1  # bit k: land + *k is a win
L_SAVED_WINS = 2  # the wins already written to the table
L_KIDS = 3  # its children: start in KIDS << 24 | count << 1 | all found (-1: none yet), one word
N64 = 4
# int32 fields (rows of I32)
L_LEN = 0
L_LIVES = 1
L_NIM = 2  # -1: unknown
L_LOOKED = 3  # 0 table not read, 2 read, 1 settled (read, and small lands' mex done)
L_KIND = 4
L_KCAP = 5  # room in its block of KIDS
L_KNEXT = 6  # the next move to try
L_KMOVES = 7
L_SAVED_NIM = 8  # 1: its nimber was written to the table
N32 = 9

# rows of CE, a code kept (its key bytes in CODE): where they start (a code's end is the next's
# start: the row has one more word, the end of the last), and its land
C_START = 0
C_LAND = 1
NC = 2

# shared counters and flags (G)
G_NUMBERS = 0
G_TEXT_TOP = 1
G_SUM_TOP = 2
G_KID_TOP = 3
G_CODE_TOP = 4
G_CODES = 5
G_HCOUNT = 6
G_SCOUNT = 7
G_CCOUNT = 8
G_SOLVED = 9  # facts recorded from Python (the threads count theirs in T_SOLVED)
G_HAS_TABLE = 10
G_SMALL = 11
G_LOCK = 12  # the lock of the numbering and of the lists of children
G_STOP = 13  # 1: every thread returns (the root is decided, or Python asks)
G_PAUSE = 14  # 1: every thread returns, so that Python can grow the arrays
G_THREADS = 15  # threads searching at once (virtual proof numbers when more than one)
G_VIRTUAL = 16  # what another thread at a child adds to its numbers, for the choice of child
G_SPREAD = 17  # 0: threads spread at every land; r > 0: only where the mover looks lost (r * dn <= pn)
NG = 20
CUT_EVERY = 63  # with several threads, a thread looks for decided frames on its stack every 64 nodes

# a thread's own (T)
T_STATUS = 0
T_SP = 1
T_ROOT = 2
T_ROOTK = 3
T_RESULT = 4
T_NPEND = 5
T_STOP_AT = 6
T_TICKS = 7
T_CUR = 8  # the land whose parse and moves are in use (-1: none), at T_POFF in PBUF
T_PF = 9  # its lengths in PBUF: flat, lives, moves
T_PL = 10
T_MV = 11
T_NEED_PBUF = 12
T_SOLVED = 13  # facts this thread proved
T_EXPANDED = 14  # lands this thread opened
T_PARSES = 15  # lands it read and listed the moves of
T_MOVES = 16  # children it made by a move
T_REDUCED = 17  # lands it reduced (met first by their code)
T_CUTS = 18  # times it dropped frames under a land another thread decided
T_EVICTED = 19  # table entries it overwrote with another node's (Python grows the table)
T_FLAT_HITS = 20  # child lands it found in its cache of flat forms (no code made)
T_POFF = 21  # where in PBUF the parse of T_CUR starts
T_PWIDTH = 22  # the width of a slot of PBUF that the slots below were kept for (0: none; -1: keep none)
T_PCLOCK = 23  # parses asked for, the clock of the slots' last use
T_EVICT_STOP = 24  # the thread returns (PAUSED) once T_EVICTED reaches this (0: never): the table grows
T_PSLOT = 25  # PARSE_SLOTS slots of PSLOT_WORDS words: land (-1: none), flat, lives, moves, last use
#: The parses of the last lands read are kept in this many slots of PBUF (``_parse``): a land's
#: children are asked for one at a time, between those of other lands.
PARSE_SLOTS = 32
PSLOT_WORDS = 5
NT = T_PSLOT + PARSE_SLOTS * PSLOT_WORDS

# a frame of the stack (rows of STK)
F_NODE = 0
F_THPN = 1
F_THDN = 2
F_PSHIFT = 3
F_DSHIFT = 4
F_THMIN = 5
F_WORK0 = 6
F_ENTERED = 7
NF = 8

# room kept free before each step that may add numbers (Python grows the arrays to keep it)
ROOM_NUMBERS = 1024
ROOM_TEXT = 1 << 16
ROOM_SUMS = 1 << 13
ROOM_KIDS = 1 << 15
ROOM_CODE = 1 << 16
ROOM_STACK = 8
BUCKET = 4
#: The cache of child lands by their flat forms (``S_FLAT``): a slot is FLAT_WIDTH words (one word
#: for the land's number and the key's length in bytes, ``land << 8 | length``, then the key, eight
#: bytes a word); after the slots, one slot's room for the key being made and FLAT_NAMES words for
#: the spots it has renamed.  A key longer than FLAT_KEY_BYTES is not cached (few are: see
#: docs/performance.md).
FLAT_WIDTH = 8
FLAT_KEY_BYTES = 8 * (FLAT_WIDTH - 1)
FLAT_NAMES = 64
FLAT_SLOTS = 1 << 15


def flat_cache(slots: int = FLAT_SLOTS) -> np.ndarray:
    """An empty cache of child lands by flat form with ``slots`` slots (``S_FLAT``)."""
    return np.zeros(slots * FLAT_WIDTH + FLAT_WIDTH + FLAT_NAMES, np.int64)

#: A small letter's token in a code's key bytes is above this (``land_code._key_bytes``).
SMALL_TOKEN = 1 << 30
#: Rows of TTV, two words an entry: pn << 32 | dn, and work << 32 | check, each number held in
#: 31 bits (``TT_CAP``, read back as INF).  The check is 32 bits of a mix of the node and the
#: other words: an entry torn by two threads writing it at once fails it and is read as absent.
V_NUMBERS = 0
V_WORK_CHECK = 1
NV = 2
TT_CAP = (1 << 31) - 1
LOW32 = (1 << 32) - 1

# the places of the arrays in the state tuple
S_G = 0
S_T = 1
S_I64 = 2
S_I32 = 3
S_TEXT = 4
S_SUMS = 5
S_KIDS = 6
S_HTAB = 7
S_STAB = 8
S_CTAB = 9
S_CE = 10
S_CODE = 11
S_TTK = 12
S_TTV = 13
S_STK = 14
S_PEND = 15
S_PBUF = 16
S_BUSY = 17  # threads at each node, by a hash of the node (no keys: a collision only costs a detour)
S_FLAT = 18  # a thread's cache of child lands by their flat forms (``_flat_key``)


# ------------------------------------------------------------------ the kernels' decorator


#: (dtype, rank) of each array of the state tuple (``State.tuple_for``; their places are the ``S_*``).
_STATE_ARRAYS = [
    (np.dtype(np.int64), 1), (np.dtype(np.int64), 1), (np.dtype(np.int64), 2), (np.dtype(np.int32), 2),
    (np.dtype(np.uint8), 1), (np.dtype(np.int64), 1), *[(np.dtype(np.int32), 1)] * 4, (np.dtype(np.int64), 2),
    (np.dtype(np.uint8), 1),
    (np.dtype(np.int64), 1), (np.dtype(np.int64), 2), (np.dtype(np.int64), 2), *[(np.dtype(np.int64), 1)] * 4,
]  # fmt: skip
#: The state tuple as a numba type (C-contiguous arrays).
S_TYPE = "Tuple((" + ", ".join(f"{d}[{':, ' * (r - 1)}::1]" for d, r in _STATE_ARRAYS) + "))"
#: The kernels Python calls, by name: (numba signature, the function the ahead-of-time build
#: compiles).  The build (``engine/aot.py``) holds each as ``core_<name>``.
EXPORTS: dict[str, tuple[str, Callable[..., Any]]] = {}


def _path() -> tuple[str, ModuleType | None]:
    """The path of this process's kernels (``aot.chosen_path``): python, aot or jit."""
    return aot.chosen_path()


def core_kernel(
    fn: Callable[..., Any] | None = None, *, export: str | None = None, refcounts: bool = True
) -> Any:
    """``numba.njit(nogil=True)`` with a cache stamped by this file and the engine's kernel
    sources; plain Python with ``SPROUTS_PURE_PYTHON=1``; ``.py_func`` is the source.

    ``refcounts=False`` builds it without numba's reference counts (``jit.kernel``'s option):
    for a small kernel that allocates nothing, called for every child, whose every call would
    otherwise count a reference to each array of the state and back.

    ``export`` is the signature (``S`` for the state tuple) of a kernel that Python calls:
    where the engine's ahead-of-time build is loaded (``aot``), such a kernel is the
    build's ``core_<name>`` and every other kernel is plain Python that only the build's
    compiled code calls, so a process that solves loads neither numba nor LLVM.
    """
    if fn is None:
        return lambda f: core_kernel(f, export=export, refcounts=refcounts)
    if export is not None:
        EXPORTS[fn.__name__] = (export.replace("S", S_TYPE, 1), fn)
    path, built = _path()
    if path != "jit":
        compiled = getattr(built, "core_" + fn.__name__, None) if export is not None else None
        if compiled is None:
            return jit.plain(fn)
        return state_guarded(compiled, fn, EXPORTS[fn.__name__][0])
    import numba

    options: dict[str, Any] = {"nogil": True} if refcounts else {"nogil": True, "_nrt": False}
    compiled = numba.njit(**options)(fn)
    compiled._cache = jit.stamped_cache(fn, aot.sources_stamp())  # where enable_caching puts it
    return compiled


def check_state(S: tuple[np.ndarray, ...]) -> None:
    """A TypeError unless ``S`` is a state tuple whose arrays are what ``S_TYPE`` says: a built
    kernel reads them as declared without looking (where numba's dispatcher would compile)."""
    if type(S) is not tuple or len(S) != len(_STATE_ARRAYS):
        raise TypeError(f"the state must be a tuple of {len(_STATE_ARRAYS)} arrays")
    for i, (a, (dtype, rank)) in enumerate(zip(S, _STATE_ARRAYS, strict=True)):
        if type(a) is not np.ndarray or a.dtype != dtype or a.ndim != rank or not a.flags.c_contiguous:
            raise TypeError(f"array {i} of the state must be a contiguous {rank}-d {dtype} array")


#: The state tuples checked last (``state_guarded``), shared by every built kernel.  They hold
#: their arrays: ``forget_checked_states`` lets them go when the arrays are replaced.
_CHECKED: list[tuple[np.ndarray, ...]] = []
CHECKED_KEPT = 4


def forget_checked_states() -> None:
    """Drop the state tuples kept as checked, and with them any arrays only they still hold
    (``compiled.State`` calls it before it replaces its arrays by larger ones: else the older,
    smaller arrays stay alive in the kept tuples, as much memory again as the growth)."""
    _CHECKED.clear()


def state_guarded(compiled: Callable[..., Any], fn: Callable[..., Any], signature: str) -> Callable[..., Any]:
    """A built kernel behind the checks of its arguments: the state tuple (checked once per
    tuple: the last few seen by any built kernel pass at once) and the other arrays (``aot.guarded``)."""
    rest = aot.guarded(compiled, fn, "(S" + signature[signature.index(S_TYPE) + len(S_TYPE) :])
    seen = _CHECKED

    def call(S: Any, *args: Any) -> Any:
        for known in seen:
            if known is S:
                break
        else:
            check_state(S)
            seen.insert(0, S)
            del seen[CHECKED_KEPT:]
        return rest(S, *args)

    call.py_func = fn  # type: ignore[attr-defined]
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def engine_kernels() -> ModuleType:
    """The engine's kernels as numba (JIT) dispatchers, which the core's kernels call.

    The core always compiles against a twin of ``engine/kernels/`` (the same source,
    imported again as ``sprouts_cli.engine._kernels_jit`` with numba's kernels): a
    process that loaded the ahead-of-time build holds plain-Python kernels behind the
    built entry points, which compiled code cannot call, and numba's cached code names
    the module it was compiled against, so one name for every process keeps one cache.
    The twin's kernels cache in files of their own (``twin-`` before the name).  With
    ``SPROUTS_PURE_PYTHON=1`` the engine's own (plain-Python) kernels are used.
    """
    from ..engine import kernels

    if _path()[0] != "jit":
        return kernels
    name = "sprouts_cli.engine._kernels_jit"
    twin = sys.modules.get(name)
    if twin is not None:
        return twin
    assert kernels.__file__ is not None
    spec = importlib.util.spec_from_file_location(
        name, kernels.__file__, submodule_search_locations=list(kernels.__path__)
    )
    assert spec is not None and spec.loader is not None
    twin = importlib.util.module_from_spec(spec)
    exports = dict(aot.EXPORTS)
    chosen = aot.chosen_path
    aot.chosen_path = lambda: ("jit", None)  # type: ignore[assignment]  # only while the twin is made
    try:
        sys.modules[name] = twin
        spec.loader.exec_module(twin)
    except BaseException:
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            sys.modules.pop(loaded, None)
        raise
    finally:
        aot.chosen_path = chosen
        aot.EXPORTS.clear()
        aot.EXPORTS.update(exports)
    parts = [m for n, m in sys.modules.items() if n == name or n.startswith(name + ".")]
    for value in {id(v): v for part in parts for v in vars(part).values()}.values():
        if hasattr(value, "py_func") and hasattr(value, "_cache"):
            value._cache = jit.stamped_cache(value.py_func, aot.sources_stamp(), prefix="twin-")
    return twin


K = engine_kernels()


# ------------------------------------------------------------------ atomics (threads share the arrays)


def _cas_plain(arr, index, old, new):  # type: ignore[no-untyped-def]
    """Compare-and-swap of ``arr[index]`` (a 1-D int32 or int64 array): the value found; ``new`` is stored
    if that was ``old``.  Compiled, one ``cmpxchg`` (sequentially consistent, so it also orders
    the stores around it); as plain Python, the same steps (one thread)."""
    found = arr[index]
    if found == old:
        arr[index] = new
    return found


def _make_cas() -> Any:
    if _path()[0] != "jit":
        return _cas_plain
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def cas(typingctx, arr, index, old, new):  # type: ignore[no-untyped-def]
        if not (isinstance(arr, types.Array) and arr.dtype in (types.int32, types.int64) and arr.ndim == 1):
            return None
        sig = arr.dtype(arr, types.intp, arr.dtype, arr.dtype)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]  # numba is untyped
                context, builder, aryty, ary, [args[1]], wraparound=False
            )
            res = builder.cmpxchg(ptr, args[2], args[3], "seq_cst", "seq_cst")
            return builder.extract_value(res, 0)

        return sig, codegen

    return cas


_cas = _make_cas()


@core_kernel
def _lock(g):  # type: ignore[no-untyped-def]
    while _cas(g, G_LOCK, 0, 1) != 0:
        pass


@core_kernel
def _unlock(g):  # type: ignore[no-untyped-def]
    _cas(g, G_LOCK, 1, 0)


@core_kernel
def _publish(arr, index, value):  # type: ignore[no-untyped-def]
    """Store ``value`` in ``arr[index]`` after every store before it (a compare-and-swap loop)."""
    while True:
        old = arr[index]
        if _cas(arr, index, old, value) == old:
            return


@core_kernel
def _or(arr, index, bits):  # type: ignore[no-untyped-def]
    """``arr[index] |= bits``, with no bit lost to another thread's at the same time."""
    while True:
        old = arr[index]
        if _cas(arr, index, old, old | bits) == old:
            return


# ------------------------------------------------------------------ hashing and numbering


@core_kernel(refcounts=False)
def _mix(x):  # type: ignore[no-untyped-def]
    """A 64-bit mix of a node (splitmix64's finaliser), as an index seed."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64(z >> np.uint64(1))


@core_kernel(refcounts=False)
def _hash_bytes(buf, start, n):  # type: ignore[no-untyped-def]
    h = np.int64(n)
    for i in range(n):
        h = h * np.int64(1099511628211) + np.int64(buf[start + i]) + 1
    return _mix(h)


@core_kernel
def _hash_ints(buf, start, n):  # type: ignore[no-untyped-def]
    h = np.int64(n) + 7
    for i in range(n):
        h = _mix(h ^ np.int64(buf[start + i]))
    return h


@core_kernel
def _lives_of_text(buf, start, n):  # type: ignore[no-untyped-def]
    """A reduced land's lives read off its string (``nimbers.land_lives``)."""
    twice = 0
    i = start
    end = start + n
    while i < end:
        c = buf[i]
        if c == 48 and i + 1 < end and buf[i + 1] == 42:  # 0*k
            j = i + 2
            v = 0
            while j < end and 48 <= buf[j] <= 57:
                v = v * 10 + np.int64(buf[j]) - 48
                j += 1
            twice += 6 * v
            i = j
            continue
        if 48 <= c <= 51:
            twice += 6 - 2 * (np.int64(c) - 48)
        elif (65 <= c <= 89) or (97 <= c <= 108):
            twice += 1
        elif c == 109 or c == 110:  # m(..) or n(..): one letter
            twice += 1
            while i < end and buf[i] != 41:
                i += 1
        i += 1
    return twice // 2


@core_kernel
def _find_text(S, src, s0, n):  # type: ignore[no-untyped-def]
    """The number of the land whose string is ``src[s0:s0+n]``, or ``-1 - slot`` (the free slot)."""
    htab = S[S_HTAB]
    i64 = S[S_I64]
    i32 = S[S_I32]
    text = S[S_TEXT]
    mask = htab.shape[0] - 1
    i = _hash_bytes(src, s0, n) & mask
    while True:
        e = np.int64(htab[i])
        if e == 0:
            return -1 - i
        land = e - 1
        if i32[L_LEN, land] == n:
            t0 = i64[L_START, land]
            same = True
            for j in range(n):
                if text[t0 + j] != src[s0 + j]:
                    same = False
                    break
            if same:
                return land
        i = (i + 1) & mask


@core_kernel
def _new_number(S, kind, start, n, lives):  # type: ignore[no-untyped-def]
    g = S[S_G]
    i64 = S[S_I64]
    i32 = S[S_I32]
    x = g[G_NUMBERS]
    g[G_NUMBERS] = x + 1
    # The rows come zeroed (``compiled.State``) and a number is never given twice, so the fields
    # whose first value is 0 are not written: a row no search of this state uses (the facts
    # written to the table, when there is none) is never touched and costs no memory.
    i64[L_START, x] = start
    i64[L_KIDS, x] = -1
    i32[L_LEN, x] = n
    i32[L_LIVES, x] = lives
    i32[L_NIM, x] = -1
    if kind != K_LAND:
        i32[L_KIND, x] = kind
    return x


@core_kernel
def land_number(S, src, s0, n):  # type: ignore[no-untyped-def]
    """The number of the land whose reduced string is ``src[s0:s0+n]`` (numbered if new)."""
    found = _find_text(S, src, s0, n)
    if found >= 0:
        return found
    g = S[S_G]
    _lock(g)
    found = _find_text(S, src, s0, n)  # again: another thread may have numbered it meanwhile
    if found >= 0:
        _unlock(g)
        return found
    text = S[S_TEXT]
    top = g[G_TEXT_TOP]
    for j in range(n):
        text[top + j] = src[s0 + j]
    g[G_TEXT_TOP] = top + n
    x = _new_number(S, K_LAND, top, n, _lives_of_text(src, s0, n))
    _publish(S[S_HTAB], -1 - found, x + 1)  # after the land's fields: a reader sees all or nothing
    g[G_HCOUNT] += 1
    _unlock(g)
    return x


@core_kernel
def sum_number(S, lands, n):  # type: ignore[no-untyped-def]
    """The number of the sum of ``lands[:n]`` (land numbers, sorted; numbered if new)."""
    stab = S[S_STAB]
    sums = S[S_SUMS]
    i64 = S[S_I64]
    i32 = S[S_I32]
    mask = stab.shape[0] - 1
    g = S[S_G]
    locked = False
    while True:  # found without the lock, or looked for again under it and numbered
        i = _hash_ints(lands, 0, n) & mask
        while True:
            e = np.int64(stab[i])
            if e == 0:
                break
            x = e - 1
            if i32[L_LEN, x] == n:
                s0 = i64[L_START, x]
                same = True
                for j in range(n):
                    if sums[s0 + j] != lands[j]:
                        same = False
                        break
                if same:
                    if locked:
                        _unlock(g)
                    return x
            i = (i + 1) & mask
        if locked:
            break
        _lock(g)
        locked = True
    top = g[G_SUM_TOP]
    for j in range(n):
        sums[top + j] = lands[j]
    g[G_SUM_TOP] = top + n
    x = _new_number(S, K_SUM, top, n, 0)
    _publish(stab, i, x + 1)
    g[G_SCOUNT] += 1
    _unlock(g)
    return x


@core_kernel(refcounts=False)
def _pack_code(code, n, out):  # type: ignore[no-untyped-def]
    """Write a code's key bytes ``code[:n]`` (``land_code._key_bytes``: four big-endian bytes a
    token, each at least 1, so ``n`` is a multiple of four) into ``out`` in about a quarter of
    the room, one to one, and return the length: a token below 128 as one byte, a small
    letter's (2**30 + 1 to 2**30 + 127) as one byte with the high bit set, any other as 0x80
    and its four bytes.  The codes kept are most of the core's memory on the large starts."""
    m = 0
    for i in range(0, n, 4):
        w = (np.int64(code[i]) << 24) | (np.int64(code[i + 1]) << 16) | (np.int64(code[i + 2]) << 8)
        w |= np.int64(code[i + 3])
        if w < 128:
            out[m] = w
            m += 1
        elif w > SMALL_TOKEN and w - SMALL_TOKEN < 128:
            out[m] = 128 | (w - SMALL_TOKEN)
            m += 1
        else:
            out[m] = 128
            for j in range(4):
                out[m + 1 + j] = code[i + j]
            m += 5
    return m


@core_kernel(refcounts=False)
def _code_land(S, code, n):  # type: ignore[no-untyped-def]
    """The land number kept for a land's code (``code[:n]``), or ``-1 - slot``."""
    ctab = S[S_CTAB]
    ce = S[S_CE]
    carena = S[S_CODE]
    mask = ctab.shape[0] - 1
    i = _hash_bytes(code, 0, n) & mask
    while True:
        e = np.int64(ctab[i])
        if e == 0:
            return -1 - i
        c = e - 1
        c0 = ce[C_START, c]
        if ce[C_START, c + 1] - c0 == n:
            same = True
            for j in range(n):
                if carena[c0 + j] != code[j]:
                    same = False
                    break
            if same:
                return ce[C_LAND, c]
        i = (i + 1) & mask


@core_kernel
def _code_put(S, code, n, land):  # type: ignore[no-untyped-def]
    """Keep ``land`` as the reduced land of the code ``code[:n]`` (unless another thread did)."""
    g = S[S_G]
    _lock(g)
    found = _code_land(S, code, n)
    if found >= 0:
        _unlock(g)
        return
    slot = -1 - found
    carena = S[S_CODE]
    ce = S[S_CE]
    top = g[G_CODE_TOP]
    for j in range(n):
        carena[top + j] = code[j]
    g[G_CODE_TOP] = top + n
    c = g[G_CODES]
    g[G_CODES] = c + 1
    ce[C_START, c + 1] = top + n  # its end: the next code's start (written again, the same, by the next)
    ce[C_START, c] = top
    ce[C_LAND, c] = land
    _publish(S[S_CTAB], slot, c + 1)
    g[G_CCOUNT] += 1
    _unlock(g)


@core_kernel(export="void(S)")
def rehash(S):  # type: ignore[no-untyped-def]
    """Fill the (new, empty) hash tables of lands, sums and codes from the numbering."""
    htab = S[S_HTAB]
    stab = S[S_STAB]
    ctab = S[S_CTAB]
    i64 = S[S_I64]
    i32 = S[S_I32]
    text = S[S_TEXT]
    sums = S[S_SUMS]
    g = S[S_G]
    hm = htab.shape[0] - 1
    sm = stab.shape[0] - 1
    for x in range(g[G_NUMBERS]):
        s0 = i64[L_START, x]
        n = i32[L_LEN, x]
        if i32[L_KIND, x] == K_LAND:
            i = _hash_bytes(text, s0, n) & hm
            while htab[i] != 0:
                i = (i + 1) & hm
            htab[i] = x + 1
        else:
            i = _hash_ints(sums, s0, n) & sm
            while stab[i] != 0:
                i = (i + 1) & sm
            stab[i] = x + 1
    ce = S[S_CE]
    carena = S[S_CODE]
    cm = ctab.shape[0] - 1
    for c in range(g[G_CODES]):
        i = _hash_bytes(carena, ce[C_START, c], ce[C_START, c + 1] - ce[C_START, c]) & cm
        while ctab[i] != 0:
            i = (i + 1) & cm
        ctab[i] = c + 1


# ------------------------------------------------------------------ the transposition table


@core_kernel(refcounts=False)
def _tt_check(node, numbers, work):  # type: ignore[no-untyped-def]
    """The 32-bit check of an entry (``V_WORK_CHECK``'s low word)."""
    return _mix(node ^ numbers ^ (work << 32)) & LOW32


@core_kernel(refcounts=False)
def _tt_number(x):  # type: ignore[no-untyped-def]
    """A number as an entry holds it: at most ``TT_CAP``, which stands for INF and above."""
    return np.int64(x) if x < TT_CAP else np.int64(TT_CAP)


@core_kernel(refcounts=False)
def _tt_value(x):  # type: ignore[no-untyped-def]
    """A number read back from an entry (``TT_CAP`` is INF)."""
    return np.int64(INF) if x >= TT_CAP else x


@core_kernel(refcounts=False)
def _tt_get(S, node):  # type: ignore[no-untyped-def]
    """(pn, dn) of an unproved node kept in the table, or (-1, -1).

    An entry whose check fails (torn by two threads writing it at once) is absent, and
    the numbers are at least 1 (a table entry never decides a node: facts do).
    """
    ttk = S[S_TTK]
    ttv = S[S_TTV]
    b = (_mix(node) & (ttk.shape[0] // BUCKET - 1)) * BUCKET
    for i in range(b, b + BUCKET):
        if ttk[i] == node:
            numbers = ttv[V_NUMBERS, i]
            wc = ttv[V_WORK_CHECK, i]
            if wc & LOW32 != _tt_check(node, numbers, wc >> 32):
                break
            pn = _tt_value(numbers >> 32)
            dn = _tt_value(numbers & LOW32)
            return max(pn, 1), max(dn, 1)
    return np.int64(-1), np.int64(-1)


@core_kernel
def _tt_put(S, node, pn, dn, work):  # type: ignore[no-untyped-def]
    """Keep (pn, dn) of a node: in its entry, a free one, or the one with the least work done."""
    ttk = S[S_TTK]
    ttv = S[S_TTV]
    b = (_mix(node) & (ttk.shape[0] // BUCKET - 1)) * BUCKET
    slot = -1
    free = -1
    least = b
    for i in range(b, b + BUCKET):
        if ttk[i] == node:  # its own entry first: a node is never kept twice
            slot = i
            break
        if ttk[i] < 0:
            if free < 0:
                free = i
        elif ttv[V_WORK_CHECK, i] < ttv[V_WORK_CHECK, least]:  # by work: the high word
            least = i
    if slot < 0:
        if free >= 0:
            slot = free
        else:
            slot = least
            S[S_T][T_EVICTED] += 1
    numbers = (_tt_number(pn) << 32) | _tt_number(dn)
    w = _tt_number(work)
    ttk[slot] = node
    ttv[V_NUMBERS, slot] = numbers
    ttv[V_WORK_CHECK, slot] = (w << 32) | _tt_check(node, numbers, w)
    for i in range(b, b + BUCKET):  # a copy another thread wrote at the same time goes
        if i != slot and ttk[i] == node:
            ttk[i] = -1


@core_kernel(export="void(S, int64[::1], int64[:, ::1])")
def tt_move(S, oldk, oldv):  # type: ignore[no-untyped-def]
    """Put the sound entries of an older table (keys ``oldk``, values ``oldv``) into ``S``'s."""
    for i in range(oldk.shape[0]):
        node = oldk[i]
        if node >= 0:
            numbers = oldv[V_NUMBERS, i]
            wc = oldv[V_WORK_CHECK, i]
            if wc & LOW32 == _tt_check(node, numbers, wc >> 32):
                _tt_put(S, node, _tt_value(numbers >> 32), _tt_value(numbers & LOW32), wc >> 32)


@core_kernel
def _tt_del(S, node):  # type: ignore[no-untyped-def]
    ttk = S[S_TTK]
    b = (_mix(node) & (ttk.shape[0] // BUCKET - 1)) * BUCKET
    for i in range(b, b + BUCKET):
        if ttk[i] == node:
            ttk[i] = -1


# ------------------------------------------------------------------ facts


@core_kernel
def _record_win(S, land, k):  # type: ignore[no-untyped-def]
    _or(S[S_I64][L_WINS], land, np.int64(1) << k)
    S[S_T][T_SOLVED] += 1


@core_kernel
def _record_nimber(S, land, k):  # type: ignore[no-untyped-def]
    S[S_I32][L_NIM, land] = k  # the wins left in L_WINS are ignored once the nimber is known
    S[S_T][T_SOLVED] += 1


@core_kernel
def _pend(S, land):  # type: ignore[no-untyped-def]
    """Ask Python to read the table for ``land`` (the run then stops with ``NEED_LOOKUP``)."""
    t = S[S_T]
    pend = S[S_PEND]
    n = t[T_NPEND]
    for i in range(n):
        if pend[i] == land:
            return
    if n < pend.shape[0]:
        pend[n] = land
        t[T_NPEND] = n + 1
    t[T_STATUS] = NEED_LOOKUP


# ------------------------------------------------------------------ children


@core_kernel
def _stop(S, status):  # type: ignore[no-untyped-def]
    S[S_T][T_STATUS] = status
    return -1


@core_kernel(refcounts=False)
def _room(S, land):  # type: ignore[no-untyped-def]
    """True when one more child of ``land`` can be numbered; else the run stops (``NEED_ROOM``)."""
    g = S[S_G]
    if (
        g[G_NUMBERS] + ROOM_NUMBERS > S[S_I32].shape[1]
        or 2 * (g[G_HCOUNT] + ROOM_NUMBERS) > S[S_HTAB].shape[0]
        or 2 * (g[G_SCOUNT] + ROOM_NUMBERS) > S[S_STAB].shape[0]
        or 2 * (g[G_CCOUNT] + ROOM_NUMBERS) > S[S_CTAB].shape[0]
        or g[G_CODES] + 1 + ROOM_NUMBERS > S[S_CE].shape[1]
        or g[G_TEXT_TOP] + ROOM_TEXT > S[S_TEXT].shape[0]
        or g[G_SUM_TOP] + ROOM_SUMS > S[S_SUMS].shape[0]
        or g[G_CODE_TOP] + ROOM_CODE > S[S_CODE].shape[0]
        or g[G_KID_TOP] + max(ROOM_KIDS, 4 * S[S_I32][L_KCAP, land] + 8) > S[S_KIDS].shape[0]
    ):
        S[S_T][T_STATUS] = NEED_ROOM
        return False
    return True


@core_kernel
def _parse(S, land):  # type: ignore[no-untyped-def]
    """Make ``land``'s parse and moves the ones in use (``T_CUR``, at ``T_POFF`` in PBUF): how
    many moves, or -1 when the run stops.

    PBUF holds PARSE_SLOTS parses, the lands read last (a land's string read and its moves
    listed only when none of them is this land; the least recently used slot is taken).  The
    search asks for a land's children one at a time, between the children of other lands.  A
    parse does not depend on when it was made, so a kept one is the one a fresh read would give.
    With ``T_PWIDTH`` -1 (set from Python: the reference the tests compare with) none is kept but
    the one in use, as when PBUF held one parse.
    """
    t = S[S_T]
    if t[T_CUR] == land:
        return t[T_MV]
    pbuf = S[S_PBUF]
    width = pbuf.shape[0] // PARSE_SLOTS
    if t[T_PWIDTH] < 0:
        return _parse_into(S, land, 0, width)
    if t[T_PWIDTH] != width:  # a new buffer (a longer one): the slots kept are void
        for i in range(PARSE_SLOTS):
            t[T_PSLOT + PSLOT_WORDS * i] = -1
            t[T_PSLOT + PSLOT_WORDS * i + 4] = 0
        t[T_PWIDTH] = width
        t[T_CUR] = -1
    t[T_PCLOCK] += 1
    take = 0
    oldest = t[T_PCLOCK]
    for i in range(PARSE_SLOTS):
        o = T_PSLOT + PSLOT_WORDS * i
        if t[o] == land:
            t[o + 4] = t[T_PCLOCK]
            t[T_CUR] = land
            t[T_POFF] = i * width
            t[T_PF] = t[o + 1]
            t[T_PL] = t[o + 2]
            t[T_MV] = t[o + 3]
            return t[T_MV]
        if t[o + 4] < oldest:
            oldest = t[o + 4]
            take = i
    nm = _parse_into(S, land, take * width, width)
    if nm < 0:
        return nm
    o = T_PSLOT + PSLOT_WORDS * take
    t[o] = land
    t[o + 1] = t[T_PF]
    t[o + 2] = t[T_PL]
    t[o + 3] = nm
    t[o + 4] = t[T_PCLOCK]
    return nm


@core_kernel
def _parse_into(S, land, off, width):  # type: ignore[no-untyped-def]
    """Read ``land``'s string and list its moves into PBUF at ``off`` (``width`` words), and make
    it the land in use: how many moves, or -1 when the run stops."""
    t = S[S_T]
    i64 = S[S_I64]
    i32 = S[S_I32]
    s0 = i64[L_START, land]
    text = S[S_TEXT][s0 : s0 + i32[L_LEN, land]]
    t[T_PARSES] += 1
    t[T_CUR] = -1
    flat, lives = K.parse_land_kernel(text)
    if flat.shape[0] == 0:
        return _stop(S, UNSUPPORTED)
    moves, fits = K.list_moves_kernel(flat, lives)
    if not fits:
        return _stop(S, UNSUPPORTED)
    pbuf = S[S_PBUF]
    nf, nl, nm = flat.shape[0], lives.shape[0], moves.shape[0]
    if nf + nl + nm > width:
        t[T_NEED_PBUF] = PARSE_SLOTS * (nf + nl + nm)
        return _stop(S, NEED_ROOM)
    pbuf[off : off + nf] = flat
    pbuf[off + nf : off + nf + nl] = lives
    pbuf[off + nf + nl : off + nf + nl + nm] = moves
    t[T_CUR] = land
    t[T_POFF] = off
    t[T_PF] = nf
    t[T_PL] = nl
    t[T_MV] = nm
    return nm


@core_kernel(refcounts=False)
def _kids_word(start, count, done):  # type: ignore[no-untyped-def]
    return (np.int64(start) << 24) | (np.int64(count) << 1) | (1 if done else 0)


@core_kernel(refcounts=False)
def _kids(S, land):  # type: ignore[no-untyped-def]
    """(start in KIDS, count, all found) of a land's children, read from its one word (so a
    thread never sees a count that another thread's list does not hold yet)."""
    w = S[S_I64][L_KIDS, land]
    if w < 0:
        return np.int64(0), np.int64(0), False
    return w >> 24, (w >> 1) & ((1 << 23) - 1), (w & 1) == 1


@core_kernel
def _open(S, land):  # type: ignore[no-untyped-def]
    """Make ``land``'s (empty) list of children, counting its moves: 0, or -1 when the run stops."""
    i32 = S[S_I32]
    if S[S_I64][L_KIDS, land] >= 0:
        return 0
    nm = _parse(S, land)
    if nm < 0:
        return -1
    g = S[S_G]
    _lock(g)
    if S[S_I64][L_KIDS, land] < 0:
        i32[L_KMOVES, land] = nm
        i32[L_KNEXT, land] = 0
        i32[L_KCAP, land] = 0
        _publish(S[S_I64][L_KIDS], land, _kids_word(0, 0, nm == 0))
        S[S_T][T_EXPANDED] += 1
    _unlock(g)
    return 0


@core_kernel(refcounts=False)
def _flat_token(fc, key, nbytes, token):  # type: ignore[no-untyped-def]
    """Append one byte to the key at ``fc[key:]`` (``nbytes`` long): its new length, or -1 when
    the token is not a byte, the key is full, or it had failed already (``nbytes`` -1)."""
    if nbytes < 0 or token > 255 or nbytes == FLAT_KEY_BYTES:
        return -1
    fc[key + 1 + nbytes // 8] |= np.int64(token) << np.int64(8 * (nbytes % 8))
    return nbytes + 1


@core_kernel(refcounts=False)
def _flat_key(fc, flat, a, b):  # type: ignore[no-untyped-def]
    """Write the key of the land ``flat[a:b]`` (a flat form of ``child_land_flats_kernel``) into
    the cache's scratch slot: the flat form with its spots renamed in the order they first
    appear, a byte a token.  Returns its length in bytes, or -1 when it does not fit.

    Two flat forms with the same key are one land read in the same order under other spot
    names, so they have the same code (a code does not depend on the names).
    """
    slots = (fc.shape[0] - FLAT_WIDTH - FLAT_NAMES) // FLAT_WIDTH
    key = slots * FLAT_WIDTH
    names = key + FLAT_WIDTH
    for w in range(1, FLAT_WIDTH):
        fc[key + w] = 0
    nn = 0
    nbytes = 0
    p = a
    nreg = flat[p]
    p += 1
    nbytes = _flat_token(fc, key, nbytes, nreg)
    for _r in range(nreg):
        nb = flat[p]
        p += 1
        nbytes = _flat_token(fc, key, nbytes, nb)
        for _k in range(nb):
            length = flat[p]
            p += 1
            nbytes = _flat_token(fc, key, nbytes, length)
            if nbytes < 0:
                return -1
            for _c in range(length):
                v = flat[p]
                p += 1
                spot = v >> 2
                j = 0
                while j < nn and fc[names + j] != spot:
                    j += 1
                if j == nn:
                    if nn == FLAT_NAMES:
                        return -1
                    fc[names + nn] = spot
                    nn += 1
                nbytes = _flat_token(fc, key, nbytes, 4 * j + (v & 3))
                if nbytes < 0:
                    return -1
    return nbytes if p == b else -1


@core_kernel(refcounts=False)
def _flat_slot(fc, nbytes):  # type: ignore[no-untyped-def]
    """The slot of the key in the scratch slot (``nbytes`` long)."""
    slots = (fc.shape[0] - FLAT_WIDTH - FLAT_NAMES) // FLAT_WIDTH
    key = slots * FLAT_WIDTH
    h = np.int64(nbytes)
    for w in range((nbytes + 7) // 8):
        h = _mix(h ^ fc[key + 1 + w])
    return h % slots


@core_kernel(refcounts=False)
def _flat_land(fc, nbytes, slot):  # type: ignore[no-untyped-def]
    """The land kept in ``slot`` for the key in the scratch slot, or -1."""
    o = slot * FLAT_WIDTH
    if fc[o] & 255 != nbytes:
        return np.int64(-1)
    key = (fc.shape[0] - FLAT_WIDTH - FLAT_NAMES) // FLAT_WIDTH * FLAT_WIDTH
    for w in range((nbytes + 7) // 8):
        if fc[o + 1 + w] != fc[key + 1 + w]:
            return np.int64(-1)
    return fc[o] >> 8


@core_kernel(refcounts=False)
def _flat_keep(fc, nbytes, slot, land):  # type: ignore[no-untyped-def]
    """Keep ``land`` in ``slot`` for the key in the scratch slot (in place of what was there)."""
    o = slot * FLAT_WIDTH
    key = (fc.shape[0] - FLAT_WIDTH - FLAT_NAMES) // FLAT_WIDTH * FLAT_WIDTH
    fc[o] = (np.int64(land) << 8) | nbytes
    for w in range(1, FLAT_WIDTH):
        fc[o + w] = fc[key + w]


@core_kernel
def _child_of_move(S, word):  # type: ignore[no-untyped-def]
    """The number of the child a packed move gives (a land's, or a sum's), or -1 (unsupported).

    A child land met before in the same flat form (under other spot names) is found in the
    thread's cache without its code; most of a child's cost is its lands' codes, and about
    half of the lands a search makes were made before in the same form.
    """
    t = S[S_T]
    pbuf = S[S_PBUF]
    fc = S[S_FLAT]
    off = t[T_POFF]
    nf = t[T_PF]
    nl = t[T_PL]
    pflat = pbuf[off : off + nf]
    plives = pbuf[off + nf : off + nf + nl]
    b = np.int64(255)
    inside = word >> 41 if word & (np.int64(1) << 40) else np.int64(0)
    t[T_MOVES] += 1
    flat, land_off = K.child_land_flats_kernel(
        pflat, plives, word & b, (word >> 8) & b, (word >> 16) & b, (word >> 24) & b, (word >> 32) & b, inside
    )
    n = land_off.shape[0] - 1
    lands = np.empty(max(n, 1), np.int64)
    for i in range(n):
        a = land_off[i]
        e = land_off[i + 1]
        nbytes = _flat_key(fc, flat, a, e)
        slot = np.int64(-1)
        if nbytes > 0:
            slot = _flat_slot(fc, nbytes)
            x = _flat_land(fc, nbytes, slot)
            if x >= 0:
                t[T_FLAT_HITS] += 1
                lands[i] = x
                continue
        keys, _text = K.land_code_kernel(flat[a:e], False)
        if keys.shape[0] == 0:
            return _stop(S, UNSUPPORTED)
        code = np.empty(keys.shape[0] + keys.shape[0] // 4, np.uint8)  # room for every token escaped
        nc = _pack_code(keys, keys.shape[0], code)
        x = _code_land(S, code, nc)
        known = x >= 0
        if not known:
            t[T_REDUCED] += 1
            text = K.reduced_land_kernel(flat[a:e])
            if text.shape[0] == 0:
                return _stop(S, UNSUPPORTED)
            x = land_number(S, text, 0, text.shape[0])
            _code_put(S, code, nc, x)
            known = True
        if known and slot >= 0:
            _flat_keep(fc, nbytes, slot, x)
        lands[i] = x
    if n == 1:
        return lands[0]
    lands[:n].sort()
    return sum_number(S, lands, n)


@core_kernel
def _more(S, land):  # type: ignore[no-untyped-def]
    """Find one more distinct child of ``land`` (``LazyChildren.more``): 1, 0 when none is left,
    -1 when the run stops (room, unsupported).

    The child of the next move is made without the lock and added under it, if no other
    thread took that move meanwhile (then the next one is tried).
    """
    i32 = S[S_I32]
    i64 = S[S_I64]
    kids = S[S_KIDS]
    g = S[S_G]
    nm = i32[L_KMOVES, land]
    while True:
        _start, _cnt, done = _kids(S, land)
        if done:
            return 0
        idx = i32[L_KNEXT, land]
        if idx < nm:
            if not _room(S, land):
                return -1
            if _parse(S, land) < 0:
                return -1
            t = S[S_T]
            child = _child_of_move(S, S[S_PBUF][t[T_POFF] + t[T_PF] + t[T_PL] + idx])
            if child < 0:
                return -1
        _lock(g)
        if i32[L_KNEXT, land] != idx:  # another thread took this move
            _unlock(g)
            continue
        start, cnt, done = _kids(S, land)
        new = False
        if idx < nm:
            new = True
            for i in range(cnt):
                if kids[start + i] == child:
                    new = False
                    break
            if new:
                if cnt == i32[L_KCAP, land]:  # a block twice as long at the arena's end,
                    # and no longer than the children the moves left can still give
                    cap = min(4 if cnt == 0 else 2 * cnt, cnt + nm - idx)
                    top = g[G_KID_TOP]
                    for i in range(cnt):
                        kids[top + i] = kids[start + i]
                    g[G_KID_TOP] = top + cap
                    i32[L_KCAP, land] = cap
                    start = top
                kids[start + cnt] = child
                cnt += 1
            i32[L_KNEXT, land] = idx + 1
        done = i32[L_KNEXT, land] >= nm
        _publish(i64[L_KIDS], land, _kids_word(start, cnt, done))
        _unlock(g)
        if new:
            return 1
        if done:
            return 0


@core_kernel
def _remaining(S, land):  # type: ignore[no-untyped-def]
    """An estimate of the distinct children not found yet (``LazyChildren.remaining``)."""
    i32 = S[S_I32]
    _start, cnt, done = _kids(S, land)
    if done:
        return 0
    nxt = i32[L_KNEXT, land]
    left = i32[L_KMOVES, land] - nxt
    if nxt == 0:
        return left
    return max(1, left * cnt // nxt)


# ------------------------------------------------------------------ nodes


@core_kernel(refcounts=False)
def _tick(S):  # type: ignore[no-untyped-def]
    S[S_T][T_TICKS] += 1


@core_kernel
def _small_nimber(S, root):  # type: ignore[no-untyped-def]
    """The nimber of a small land by the mex rule over all its children (``NormalSolver._small_nimber``),
    or -1 when the run stops (room, a table lookup)."""
    i32 = S[S_I32]
    i64 = S[S_I64]
    n = i32[L_NIM, root]
    if n >= 0:
        return n
    has_table = S[S_G][G_HAS_TABLE]
    # frames: land, next child, values seen (bit mask), next land of a sum child, xor so far
    fr = np.empty((5, 64), np.int64)
    depth = 0
    fr[0, 0] = root
    fr[1, 0] = -1
    depth = 1
    while depth > 0:
        d = depth - 1
        land = fr[0, d]
        if fr[1, d] < 0:  # entered: all children made
            if i32[L_LOOKED, land] == 0 and has_table:
                _pend(S, land)
                return -1
            _tick(S)
            if _open(S, land) < 0:
                return -1
            while True:
                r = _more(S, land)
                if r < 0:
                    return -1
                if r == 0:
                    break
            fr[1, d] = 0
            fr[2, d] = 0
            fr[3, d] = 0
            fr[4, d] = 0
        i = fr[1, d]
        kstart, kcount, _done = _kids(S, land)
        if i < kcount:
            child = np.int64(S[S_KIDS][kstart + i])
            if i32[L_KIND, child] == K_LAND:
                m = i32[L_NIM, child]
                if m < 0:
                    if depth == 64:
                        return _stop(S, UNSUPPORTED)
                    fr[0, depth] = child
                    fr[1, depth] = -1
                    depth += 1
                    continue
                if m >= HEAP_LIMIT:
                    return _stop(S, UNSUPPORTED)
                fr[2, d] |= np.int64(1) << m
                fr[1, d] = i + 1
            else:
                j = fr[3, d]
                s0 = i64[L_START, child]
                if j < i32[L_LEN, child]:
                    x = S[S_SUMS][s0 + j]
                    m = i32[L_NIM, x]
                    if m < 0:
                        if depth == 64:
                            return _stop(S, UNSUPPORTED)
                        fr[0, depth] = x
                        fr[1, depth] = -1
                        depth += 1
                        continue
                    fr[4, d] ^= m
                    fr[3, d] = j + 1
                else:
                    v = fr[4, d]
                    if v >= HEAP_LIMIT:
                        return _stop(S, UNSUPPORTED)
                    fr[2, d] |= np.int64(1) << v
                    fr[1, d] = i + 1
                    fr[3, d] = 0
                    fr[4, d] = 0
            continue
        values = fr[2, d]
        mex = 0
        while (values >> mex) & 1:
            mex += 1
        _record_nimber(S, land, mex)
        i32[L_LOOKED, land] = 1
        depth -= 1
    return i32[L_NIM, root]


@core_kernel(export="int64(S, int64, int64)")
def node_of(S, child, k):  # type: ignore[no-untyped-def]
    """What ``child`` (a land's or a sum's number) + *k comes to with the known nimbers folded into
    the heap (``NormalSolver._node``): ``WIN``, ``LOSS``, a node ``k << NODE_BITS | number``, or
    ``STOP`` (the run stops: room, a table lookup, unsupported)."""
    i32 = S[S_I32]
    i64 = S[S_I64]
    if i32[L_KIND, child] == K_LAND:
        n = i32[L_NIM, child]
        if n >= 0:
            return WIN if k != n else LOSS
        if i32[L_LOOKED, child] == 1:
            if (i64[L_WINS, child] >> k) & 1:
                return WIN
            return (k << NODE_BITS) | child
        count = 1
        lands = np.empty(1, np.int64)
        lands[0] = child
    else:
        count = i32[L_LEN, child]
        s0 = i64[L_START, child]
        lands = S[S_SUMS][s0 : s0 + count]
    has_table = S[S_G][G_HAS_TABLE]
    small = S[S_G][G_SMALL]
    rest = np.empty(max(count, 1), np.int64)
    nrest = 0
    waiting = False
    for j in range(count):
        x = lands[j]
        n = i32[L_NIM, x]
        if n < 0 and i32[L_LOOKED, x] != 1:
            if i32[L_LOOKED, x] == 0 and has_table:
                _pend(S, x)
                waiting = True
                continue
            if i32[L_LIVES, x] <= small:
                n = _small_nimber(S, x)
                if n < 0:
                    return STOP
            i32[L_LOOKED, x] = 1
        if n >= 0:
            k ^= n
        elif nrest and rest[nrest - 1] == x:
            nrest -= 1  # G + G = 0
        else:
            rest[nrest] = x
            nrest += 1
    if waiting:
        return STOP
    if k >= HEAP_LIMIT:
        _stop(S, UNSUPPORTED)
        return STOP
    if nrest == 0:
        return WIN if k != 0 else LOSS
    if nrest == 1:
        x = rest[0]
        if (i64[L_WINS, x] >> k) & 1:
            return WIN
        return (k << NODE_BITS) | x
    if not _room(S, child):
        return STOP
    return (k << NODE_BITS) | sum_number(S, rest, nrest)


@core_kernel
def _size_less(S, a, b):  # type: ignore[no-untyped-def]
    """(lives, length, string) of land ``a`` before land ``b``'s (``NormalSolver._size_key``)."""
    i32 = S[S_I32]
    if i32[L_LIVES, a] != i32[L_LIVES, b]:
        return i32[L_LIVES, a] < i32[L_LIVES, b]
    na = i32[L_LEN, a]
    nb = i32[L_LEN, b]
    if na != nb:
        return na < nb
    text = S[S_TEXT]
    ta = S[S_I64][L_START, a]
    tb = S[S_I64][L_START, b]
    for j in range(na):
        if text[ta + j] != text[tb + j]:
            return text[ta + j] < text[tb + j]
    return False


@core_kernel
def _node_lives(S, node):  # type: ignore[no-untyped-def]
    """The lives of a node's land, or of all its sum's lands together."""
    i32 = S[S_I32]
    x = node & NODE_MASK
    if i32[L_KIND, x] == K_LAND:
        return np.int64(i32[L_LIVES, x])
    s0 = S[S_I64][L_START, x]
    total = np.int64(0)
    for j in range(i32[L_LEN, x]):
        total += i32[L_LIVES, S[S_SUMS][s0 + j]]
    return total


@core_kernel
def _lands_by_size(S, x):  # type: ignore[no-untyped-def]
    """The lands of number ``x`` (itself, or its sum's), smallest first by ``_size_less`` (a
    stable insertion sort, as Python's ``sorted``)."""
    i32 = S[S_I32]
    if i32[L_KIND, x] == K_LAND:
        out = np.empty(1, np.int64)
        out[0] = x
        return out
    n = i32[L_LEN, x]
    s0 = S[S_I64][L_START, x]
    out = S[S_SUMS][s0 : s0 + n].copy()
    for i in range(1, n):
        y = out[i]
        j = i - 1
        while j >= 0 and _size_less(S, y, out[j]):
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = y
    return out


@core_kernel
def _tried_before(S, a, apn, b, bpn):  # type: ignore[no-untyped-def]
    """Whether child node ``a`` (pn ``apn``) is searched before child node ``b`` (pn ``bpn``) of
    the same disproof number (``NormalSolver._tried_before``).

    The smaller proof number first: of two children that cost the same to prove lost (the
    parent's win), it is the one nearer to being decided either way, whose search is the
    cheapest to settle it (proved lost, the parent is won; proved won, it leaves the choice).
    A child not searched yet has pn 1, so it goes before one already searched that the search
    has not proved won.  Then an order of the nodes themselves: the fewer lives (``_node_lives``),
    the fewer lands, the lands largest first by ``_size_less``, the smaller heap.  So which of two
    equal children found so far is searched depends on what they are, never on the numbers the
    lands got nor on where the moves that made them stand in the list of moves (which a change
    of the reduced strings reorders).  The orders measured are in docs/performance.md.
    """
    if apn != bpn:
        return apn < bpn
    va = _node_lives(S, a)
    vb = _node_lives(S, b)
    if va != vb:
        return va < vb
    x = a & NODE_MASK
    y = b & NODE_MASK
    if x != y:
        i32 = S[S_I32]
        if i32[L_KIND, x] == K_LAND and i32[L_KIND, y] == K_LAND:
            return _size_less(S, x, y)
        la = _lands_by_size(S, x)
        lb = _lands_by_size(S, y)
        n = la.shape[0]
        if n != lb.shape[0]:
            return n < lb.shape[0]
        for j in range(n - 1, -1, -1):  # the largest lands first
            if la[j] != lb[j]:
                return _size_less(S, la[j], lb[j])
    return (a >> NODE_BITS) < (b >> NODE_BITS)


@core_kernel(refcounts=False)
def _lowest_clear(mask):  # type: ignore[no-untyped-def]
    k = 0
    while (mask >> k) & 1:
        k += 1
    return k


@core_kernel
def _sum_parts(S, number):  # type: ignore[no-untyped-def]
    """(question, its cost, the rest's pn, dn) of a sum (``NormalSolver._sum_parts``)."""
    i32 = S[S_I32]
    i64 = S[S_I64]
    n = i32[L_LEN, number]
    order = _lands_by_size(S, number)
    rest_pn = np.int64(0)
    rest_dn = np.int64(0)
    question = np.int64(0)
    first = np.int64(0)
    for i in range(n - 1):
        land = order[i]
        q = (_lowest_clear(i64[L_WINS, land]) << NODE_BITS) | land
        qpn, qdn = _tt_get(S, q)
        if qpn < 0:
            qpn, qdn = np.int64(1), np.int64(DN_PER_LIFE * i32[L_LIVES, land])
        cost = qpn if qpn < qdn else qdn
        if i == 0:
            question = q
            first = cost
        else:
            rest_pn = min(rest_pn + cost, INF)
            rest_dn = min(rest_dn + cost, INF)
    rest_pn += 1
    rest_dn += DN_PER_LIFE * i32[L_LIVES, order[n - 1]]
    return question, first, rest_pn, rest_dn


@core_kernel
def _initial(S, node):  # type: ignore[no-untyped-def]
    """(pn, dn) of a node not searched yet (``NormalSolver._initial``)."""
    number = node & NODE_MASK
    if S[S_I32][L_KIND, number] == K_LAND:
        return np.int64(1), np.int64(DN_PER_LIFE * S[S_I32][L_LIVES, number])
    _q, first, rest_pn, rest_dn = _sum_parts(S, number)
    return first + rest_pn, first + rest_dn


# ------------------------------------------------------------------ df-pn


@core_kernel
def _busy_add(S, node, delta):  # type: ignore[no-untyped-def]
    """Count a thread in (1) or out (-1) of ``node`` (only when several threads search)."""
    if S[S_G][G_THREADS] > 1:
        busy = S[S_BUSY]
        i = _mix(node) & (busy.shape[0] - 1)
        while True:
            old = busy[i]
            if _cas(busy, i, old, old + delta) == old:
                return


@core_kernel
def _push(S, node, thpn, thdn, pshift, dshift, thmin):  # type: ignore[no-untyped-def]
    t = S[S_T]
    stk = S[S_STK]
    sp = t[T_SP]
    stk[F_NODE, sp] = node
    stk[F_THPN, sp] = thpn
    stk[F_THDN, sp] = thdn
    stk[F_PSHIFT, sp] = pshift
    stk[F_DSHIFT, sp] = dshift
    stk[F_THMIN, sp] = thmin
    stk[F_WORK0, sp] = 0
    stk[F_ENTERED, sp] = 0
    t[T_SP] = sp + 1
    _busy_add(S, node, 1)


@core_kernel
def _pop(S, f):  # type: ignore[no-untyped-def]
    """Leave frame ``f`` (the top): the stack ends below it."""
    _busy_add(S, S[S_STK][F_NODE, f], -1)
    S[S_T][T_SP] = f


@core_kernel
def _step_land(S, f):  # type: ignore[no-untyped-def]
    """One turn of ``NormalSolver._mid``'s loop for the land frame ``f`` (the top of the stack).

    With several threads, a child other threads are searching counts ``G_VIRTUAL`` more
    per thread when the child to search is chosen (Kaneko's virtual proof numbers: the
    threads spread over the tree); the numbers kept and the facts are the true ones.
    """
    t = S[S_T]
    stk = S[S_STK]
    i32 = S[S_I32]
    i64 = S[S_I64]
    g = S[S_G]
    node = stk[F_NODE, f]
    land = node & NODE_MASK
    k = node >> NODE_BITS
    thpn = stk[F_THPN, f]
    thdn = stk[F_THDN, f]
    pshift = stk[F_PSHIFT, f]
    dshift = stk[F_DSHIFT, f]
    thmin = stk[F_THMIN, f]
    if i32[L_NIM, land] >= 0 or (i64[L_WINS, land] >> k) & 1:  # decided meanwhile
        _pop(S, f)
        return
    if _open(S, land) < 0:
        return
    start, count, done = _kids(S, land)
    if count == 0 and not done:
        if _more(S, land) < 0:
            return
        start, count, done = _kids(S, land)
    fresh_dn = DN_PER_LIFE * (i32[L_LIVES, land] - 1)
    kids = S[S_KIDS]
    virtual = g[G_VIRTUAL] if g[G_THREADS] > 1 else 0
    busy = S[S_BUSY]
    bmask = busy.shape[0] - 1
    pn = INF
    dn = np.int64(0)
    best = np.int64(0)  # the child to search: least (virtual) dn
    best_pn = np.int64(0)
    best_dn = np.int64(0)
    vbest = INF
    second = INF
    tbest = np.int64(0)  # the child of least true dn, and the second least true dn
    tbest_pn = np.int64(0)
    tsecond = INF
    kinds = i32[L_KIND]
    nims = i32[L_NIM]
    looked = i32[L_LOOKED]
    wins = i64[L_WINS]
    for i in range(count + k):
        x = np.int64(kids[start + i]) if i < count else land
        kx = k if i < count else i - count
        # node_of's first case without the call (a land whose nimber or wins are known): a call
        # counts a reference to every array of the state and back, which costs more than the case
        if kinds[x] == K_LAND and nims[x] >= 0:
            child = WIN if kx != nims[x] else LOSS
        elif kinds[x] == K_LAND and looked[x] == 1:
            child = WIN if (wins[x] >> kx) & 1 else (kx << NODE_BITS) | x
        else:
            child = node_of(S, x, kx)
        if child == STOP:
            return
        if child == WIN:
            continue
        if child == LOSS:
            pn = 0
            break
        cpn, cdn = _tt_get(S, child)
        if cpn < 0:
            cpn, cdn = _initial(S, child)
        if cdn < pn or (cdn == pn and pn < INF and _tried_before(S, child, cpn, tbest, tbest_pn)):
            tsecond = pn
            pn = cdn
            tbest = child
            tbest_pn = cpn
        elif cdn < tsecond:
            tsecond = cdn
        v = cdn + virtual * busy[_mix(child) & bmask] if virtual else cdn
        if v < vbest or (v == vbest and vbest < INF and _tried_before(S, child, cpn, best, best_pn)):
            second = vbest
            vbest = v
            best = child
            best_pn = cpn
            best_dn = cdn
        elif v < second:
            second = v
        dn = min(dn + cpn, INF + 1)
    expand = False  # a new child is the one to search (by virtual numbers; texpand: by true ones)
    texpand = False
    if pn and not done:
        dn = min(dn + _remaining(S, land), INF + 1)
        if fresh_dn < vbest:
            second = vbest
            vbest = fresh_dn
            expand = True
        elif fresh_dn < second:
            second = fresh_dn
        if fresh_dn < pn:
            tsecond = pn
            pn = fresh_dn
            texpand = True
        elif fresh_dn < tsecond:
            tsecond = fresh_dn
    if virtual and g[G_SPREAD] and dn * g[G_SPREAD] > pn:
        virtual = 0  # the mover looks to win: one child will do, and work on another is likely lost
        expand = texpand
        best = tbest
        best_pn = tbest_pn
        second = tsecond
    if pn == 0:
        _tt_del(S, node)
        _record_win(S, land, k)
        _pop(S, f)
        return
    if dn == 0:
        _tt_del(S, node)
        _record_nimber(S, land, k)
        _pop(S, f)
        return
    if dn > INF:
        dn = INF
    if pn >= thpn or dn >= thdn or min(pn + pshift, dn + dshift) >= thmin:
        _tt_put(S, node, pn, dn, t[T_TICKS] - stk[F_WORK0, f])
        _pop(S, f)
        return
    if expand:
        _more(S, land)
        return
    if f + ROOM_STACK >= stk.shape[1]:
        t[T_STATUS] = NEED_ROOM
        return
    child_thpn = thdn - dn + best_pn
    if virtual:
        penalty = vbest - best_dn
        child_thdn = min(thpn, np.int64(second * (1 + EPSILON)) + 1 - penalty) if second < INF else thpn
        if child_thdn <= best_dn or min(dn + dshift, best_dn + pshift) >= thmin:
            # the virtual choice would leave at once (over its dn threshold, or over thmin:
            # the true choice never is), and the step would come back to it while the other
            # thread stays where it is, both threads going round without a node: the true one
            best = tbest
            best_pn = tbest_pn
            child_thpn = thdn - dn + best_pn
            second = tsecond
            child_thdn = min(thpn, np.int64(second * (1 + EPSILON)) + 1) if second < INF else thpn
    else:
        child_thdn = min(thpn, np.int64(second * (1 + EPSILON)) + 1) if second < INF else thpn
    others = dn - best_pn
    _push(S, best, child_thpn, child_thdn, min(dshift + others, INF), pshift, thmin)


@core_kernel
def _step_sum(S, f):  # type: ignore[no-untyped-def]
    """One turn of ``NormalSolver._mid_sum``'s loop for the sum frame ``f``."""
    t = S[S_T]
    stk = S[S_STK]
    node = stk[F_NODE, f]
    number = node & NODE_MASK
    k = node >> NODE_BITS
    thpn = stk[F_THPN, f]
    thdn = stk[F_THDN, f]
    pshift = stk[F_PSHIFT, f]
    dshift = stk[F_DSHIFT, f]
    thmin = stk[F_THMIN, f]
    sub = node_of(S, number, k)
    if sub == STOP:
        return
    if sub in (WIN, LOSS):
        _tt_del(S, node)
        _pop(S, f)
        return
    what = sub & NODE_MASK
    if S[S_I32][L_KIND, what] == K_LAND:
        _tt_del(S, node)
        _busy_add(S, node, -1)
        stk[F_NODE, f] = sub  # the sum is that land's question, under the same thresholds
        stk[F_ENTERED, f] = 0
        _busy_add(S, sub, 1)
        return
    question, first, rest_pn, rest_dn = _sum_parts(S, what)
    spn = first + rest_pn
    sdn = first + rest_dn
    if spn >= thpn or sdn >= thdn or min(spn + pshift, sdn + dshift) >= thmin:
        _tt_put(S, node, spn, sdn, t[T_TICKS] - stk[F_WORK0, f])
        _pop(S, f)
        return
    if f + ROOM_STACK >= stk.shape[1]:
        t[T_STATUS] = NEED_ROOM
        return
    bound = min(thpn - rest_pn, thdn - rest_dn, thmin - min(rest_pn + pshift, rest_dn + dshift))
    _push(S, question, INF, INF, 0, 0, bound)


@core_kernel
def _cut_decided(S):  # type: ignore[no-untyped-def]
    """Drop the frames above the lowest land frame that another thread has decided meanwhile
    (its win or its nimber is known): whatever this thread does below it is wasted.  True
    when frames were dropped; the decided frame stays on top, and its step pops it."""
    t = S[S_T]
    stk = S[S_STK]
    i32 = S[S_I32]
    i64 = S[S_I64]
    sp = t[T_SP]
    for f in range(sp - 1):
        node = stk[F_NODE, f]
        land = node & NODE_MASK
        if i32[L_KIND, land] != K_LAND:
            continue
        if i32[L_NIM, land] >= 0 or (i64[L_WINS, land] >> (node >> NODE_BITS)) & 1:
            for above in range(sp - 1, f, -1):
                _busy_add(S, stk[F_NODE, above], -1)
            t[T_SP] = f + 1
            t[T_CUTS] += 1
            return True
    return False


@core_kernel(export="int64(S)")
def run(S):  # type: ignore[no-untyped-def]
    """Search the root (``T_ROOT`` + *``T_ROOTK``) until it is decided (``DONE``, the answer in
    ``T_RESULT``), ``T_STOP_AT`` nodes are counted or ``T_EVICT_STOP`` entries overwritten or
    another thread or Python asks every thread to return (``PAUSED``), or the run needs Python
    (``NEED_ROOM``, ``NEED_LOOKUP``, ``UNSUPPORTED``); called again, it goes on.  Several
    threads may run it at once, each with its own ``T``, stack, pending lookups and parse
    buffer, sharing everything else."""
    t = S[S_T]
    g = S[S_G]
    stk = S[S_STK]
    t[T_STATUS] = RUNNING
    while True:
        if t[T_STATUS] != RUNNING:
            return t[T_STATUS]
        sp = t[T_SP]
        if sp == 0:
            r = node_of(S, t[T_ROOT], t[T_ROOTK])
            if r == STOP:
                continue
            if r in (WIN, LOSS):
                t[T_RESULT] = 1 if r == WIN else 0
                t[T_STATUS] = DONE
                continue
            _push(S, r, INF, INF, 0, 0, INF)
            continue
        if t[T_TICKS] >= t[T_STOP_AT] or g[G_STOP] or g[G_PAUSE] or 0 < t[T_EVICT_STOP] <= t[T_EVICTED]:
            t[T_STATUS] = PAUSED
            continue
        f = sp - 1
        if not stk[F_ENTERED, f]:
            _tick(S)
            stk[F_ENTERED, f] = 1
            stk[F_WORK0, f] = t[T_TICKS]
            if g[G_THREADS] > 1 and (t[T_TICKS] & CUT_EVERY) == 0 and _cut_decided(S):
                continue
        node = stk[F_NODE, f]
        if S[S_I32][L_KIND, node & NODE_MASK] == K_SUM:
            _step_sum(S, f)
        else:
            _step_land(S, f)


def _gil_calls() -> tuple[Any, Any]:
    """numba intrinsics that call CPython's ``PyEval_SaveThread`` and ``PyEval_RestoreThread``
    (the symbols resolve when the built module is loaded into the interpreter)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    state_ptr = ir.IntType(8).as_pointer()
    declare: Any = cgutils.get_or_insert_function  # a C function of the interpreter, by name

    @intrinsic
    def save_thread(typingctx):  # type: ignore[no-untyped-def]
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            fnty = ir.FunctionType(state_ptr, [])
            return builder.call(declare(builder.module, fnty, "PyEval_SaveThread"), [])

        return types.voidptr(), codegen

    @intrinsic
    def restore_thread(typingctx, state):  # type: ignore[no-untyped-def]
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            fnty = ir.FunctionType(ir.VoidType(), [state_ptr])
            builder.call(declare(builder.module, fnty, "PyEval_RestoreThread"), [args[0]])
            return context.get_dummy_value()

        return types.void(types.voidptr), codegen

    return save_thread, restore_thread


def _run_without_the_gil(S):  # type: ignore[no-untyped-def]
    """``run`` with the GIL released, as the ahead-of-time build's ``core_run``: numba.pycc
    has no ``nogil``, and the threads of one search must run at once."""
    state = _save_thread()
    status = run(S)
    _restore_thread(state)
    return status


if _path()[0] == "jit":
    _save_thread, _restore_thread = _gil_calls()
    EXPORTS["run"] = (EXPORTS["run"][0], _run_without_the_gil)


@core_kernel(export="void(S)")
def leave(S):  # type: ignore[no-untyped-def]
    """Drop a thread's stack (counting it out of every node on it)."""
    t = S[S_T]
    for f in range(t[T_SP] - 1, -1, -1):
        _pop(S, f)


@core_kernel(export="int64(S, int64[:, ::1])")
def new_facts(S, out):  # type: ignore[no-untyped-def]
    """The facts proved since the last call: (land, nimber) pairs with nimber >= 0, and
    (land, -1 - heap) for each new win, into ``out`` (two rows); their count, or -1 if
    ``out`` is too small (nothing is marked written then)."""
    i32 = S[S_I32]
    i64 = S[S_I64]
    n = 0
    cap = out.shape[1]
    for x in range(S[S_G][G_NUMBERS]):
        if i32[L_KIND, x] != K_LAND:
            continue
        if i32[L_NIM, x] >= 0:
            if i32[L_SAVED_NIM, x] == 0:
                if n == cap:
                    return -1
                out[0, n] = x
                out[1, n] = i32[L_NIM, x]
                n += 1
        else:
            new = i64[L_WINS, x] & ~i64[L_SAVED_WINS, x]
            h = 0
            while new >> h:
                if (new >> h) & 1:
                    if n == cap:
                        return -1
                    out[0, n] = x
                    out[1, n] = -1 - h
                    n += 1
                h += 1
    for j in range(n):
        x = out[0, j]
        if out[1, j] >= 0:
            i32[L_SAVED_NIM, x] = 1
        else:
            i64[L_SAVED_WINS, x] |= np.int64(1) << (-1 - out[1, j])
    return n


@core_kernel(export="int64(S, uint8[::1])")
def intern_text(S, src):  # type: ignore[no-untyped-def]
    """``land_number`` of a whole byte string (from Python), or -1 - slot if ``S`` needs room."""
    if not _room(S, 0):
        return -1
    return land_number(S, src, 0, src.shape[0])


@core_kernel(export="int64(S, uint8[::1])")
def find_text(S, src):  # type: ignore[no-untyped-def]
    """The number of a land string if it has one, else -1."""
    x = _find_text(S, src, 0, src.shape[0])
    return x if x >= 0 else -1


@core_kernel(export="int64(S, int64[::1])")
def intern_sum(S, lands):  # type: ignore[no-untyped-def]
    """``sum_number`` of sorted land numbers (from Python), or -1 if ``S`` needs room."""
    if not _room(S, 0):
        return -1
    return sum_number(S, lands, lands.shape[0])


@core_kernel(export="int64[::1](S, int64)")
def children_of(S, land):  # type: ignore[no-untyped-def]
    """Every child of ``land`` (numbers, in the order found), or an empty array if the run stopped."""
    if _open(S, land) < 0:
        return np.zeros(0, np.int64)
    while True:
        r = _more(S, land)
        if r < 0:
            return np.zeros(0, np.int64)
        if r == 0:
            break
    start, n, _done = _kids(S, land)
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = S[S_KIDS][start + i]
    return out


#: ``next_child``'s answers besides a child's number.
NO_CHILD_LEFT = -1
CHILD_STOPPED = -2


@core_kernel(export="int64(S, int64)")
def open_children(S, land):  # type: ignore[no-untyped-def]
    """List ``land``'s moves, its children not made yet (``children_of`` a child at a time):
    0, or -1 when the run stopped (``T[T_STATUS]`` says why: room, or a land it does not take)."""
    return _open(S, land)


@core_kernel(export="int64(S, int64)")
def next_child(S, land):  # type: ignore[no-untyped-def]
    """The number of one more distinct child of ``land`` (a land's or a sum's), in the order
    ``children_of`` lists them; ``NO_CHILD_LEFT`` when every child is found, ``CHILD_STOPPED``
    when the run stopped (``T[T_STATUS]`` says why).  The children found so far stay in the
    land's list (``L_KIDS``), shared with every later call and with the search."""
    if _open(S, land) < 0:
        return CHILD_STOPPED
    r = _more(S, land)
    if r < 0:
        return CHILD_STOPPED
    if r == 0:
        return NO_CHILD_LEFT
    start, cnt, _done = _kids(S, land)
    return np.int64(S[S_KIDS][start + cnt - 1])


__all__ = [
    "CHILD_STOPPED",
    "INF",
    "NO_CHILD_LEFT",
    "K",
    "children_of",
    "core_kernel",
    "engine_kernels",
    "find_text",
    "intern_sum",
    "intern_text",
    "land_number",
    "new_facts",
    "next_child",
    "node_of",
    "open_children",
    "rehash",
    "run",
    "sum_number",
]
