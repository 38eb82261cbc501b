"""Normal play on the compiled proof-number core (``pncore``), with ``NormalSolver``'s interface.

``CompiledNormalSolver`` asks the questions ``NormalSolver`` asks and gets the same
answers (``tests/test_solve_compiled.py`` compares them), with the search in compiled
code.  This file is its Python edge: the arrays the core works in (grown when the core
asks for room), the table of solved lands (read for each land when first met, written
in batches), the clock, progress and stopping (the core returns every so many nodes).

Loading the core (the ahead-of-time build, or numba compiling it) costs a process time and
memory that small questions do not repay: so questions on fewer than ``COMPILE_LIVES`` lives
go to the reference until the core is loaded, and everything goes to the core after.
``search.normal_solver`` picks the solver for this process: this one unless
``SPROUTS_PURE_PYTHON=1`` or ``SPROUTS_COMPILED_SEARCH=0`` (then the reference alone).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import aot
from ..errors import OutOfTime, SolveInterrupted
from .clock import Deadline
from .memory_bound import default_memory
from .nimbers import (
    SMALL_LIVES,
    Lands,
    NormalSolver,
    NormalTable,
    PositionQuestions,
    land_lives,
)

#: ``pncore``, once loaded (``_load_core``): importing it loads numba.
core: Any = None

#: The transposition table's first size (entries, in buckets of four; a power of two) for the
#: largest questions (``first_table_entries``), and below which it also doubles with the nodes.
TT_ENTRIES = 1 << 20
#: The table's first size for the smallest questions.
TT_FIRST_MIN = 1 << 14
#: The table doubles once it has overwritten 1/TT_GROW_SHARE of its entries since it last grew.
TT_GROW_SHARE = 8
#: The bytes of codes the state keeps (``CODE``; the child lands' codes, by which a child land
#: met again is found without being reduced): past this the older codes are forgotten
#: (``State.forget_codes``).  A code forgotten costs a reduction when its land is met again,
#: and never an answer (the land is found by its reduced string).
CODE_BYTES = 1 << 23
#: The share of the codes kept (the newest) when the older are forgotten.
CODE_KEEP = 0.5
#: Bytes an entry of the transposition table takes (its key and ``pncore.NV`` numbers).
TT_ENTRY_BYTES = 8 * 3
#: The share of the solver's memory bound the transposition table may grow to.
TT_MEMORY_SHARE = 0.5
#: What another thread at a child adds to its numbers when a thread chooses the child to search
#: (``pncore.G_VIRTUAL``).
VIRTUAL = 1
#: Where the threads spread (``pncore.G_SPREAD``).
SPREAD = 0
#: Nodes the threads of one search may visit, all together, with no land numbered and no fact
#: proved, before the search goes on without virtual proof numbers (``_spreading_stalled``).
STALL_NODES = 2_000_000
#: Aim for a return to Python (clock, progress, table) about this often.
RETURN_SECONDS = 0.02
#: Facts are written to the table at least this often while a search runs.
WRITE_SECONDS = 0.5
#: Questions on fewer lives than this go to the reference while numba has not compiled the
#: core (``jit`` path; the ahead-of-time build loads in milliseconds, so then none do).
COMPILE_LIVES = 30
_WINS_MASK = (1 << 63) - 1
#: As ``pncore.HEAP_LIMIT`` (heaps of a node stay below it).
HEAP_LIMIT = 63


def first_table_entries(lives: int) -> int:
    """The table's first size for a search whose first question has ``lives`` lives: about
    what such a search keeps (a small question touches few entries, but every page of a table
    it spreads them over), ``TT_FIRST_MIN`` to ``TT_ENTRIES``; it doubles when it is short."""
    return max(TT_FIRST_MIN, min(TT_ENTRIES, 1 << (lives // 2)))


def _set_huge_pages(on: bool) -> bool:
    """Whether numpy asks the kernel for transparent huge pages for the large arrays it makes
    from now on (``madvise``, arrays of 4 MB and more): set to ``on``; the setting before."""
    multiarray = getattr(getattr(np, "_core", None), "multiarray", None)  # numpy 2
    if multiarray is None:  # pragma: no cover - numpy 1.x
        multiarray = getattr(getattr(np, "core", None), "multiarray", None)
    setting = getattr(multiarray, "_set_madvise_hugepage", None)
    return bool(setting(on)) if setting is not None else False


def filled_from_the_front(shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
    """Zeros for an array the core fills from its front (the numbering's rows, the arenas of
    strings, sums, children and codes), in small pages: its unused end is never touched and
    so costs no memory.  numpy would ask for huge pages for a large one, and a huge page makes
    2 MB resident at the front edge of every row.  (The hashed tables are touched all over
    whatever the pages, and keep numpy's choice: fewer TLB misses.)"""
    before = _set_huge_pages(False)
    try:
        return np.zeros(shape, dtype)
    finally:
        _set_huge_pages(before)


#: glibc's ``M_MMAP_THRESHOLD`` (``mallopt``), and the size it is fixed at (glibc's first one).
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 1 << 17
_malloc_fixed = False
#: The C library's ``malloc_trim`` once found (``give_back_free_heap``), or None where there is none.
_malloc_trim: Any = None


def fix_mmap_threshold() -> None:
    """Fix glibc's threshold above which ``malloc`` maps fresh memory at its first value (once a
    process).  glibc raises it to the size of each mapped block freed, up to 32 MB: once a
    growth of the core's arrays frees its old ones, the next arrays of a few MB come from the
    heap, where what is freed stays in the process (docs/performance.md).  With
    the threshold fixed every such array is mapped, and freed back to the system."""
    global _malloc_fixed, _malloc_trim
    if _malloc_fixed or not sys.platform.startswith("linux"):
        return
    _malloc_fixed = True
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _malloc_trim = libc.malloc_trim
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def give_back_free_heap() -> None:
    """Give the pages of the heap that ``malloc`` holds free back to the system (glibc's
    ``malloc_trim``; nothing elsewhere).  Loading the modules of a solve leaves megabytes free
    in the middle of the heap, where glibc does not give them back by itself, and the search's
    own small allocations then grow the heap's top: trimmed when a ``State`` is made and after
    each growth, the heap is that much smaller at the search's peak.  A trim costs well under a
    millisecond, and a search grows its arrays a few dozen times."""
    fix_mmap_threshold()
    if _malloc_trim is not None:
        _malloc_trim(0)


def _load_core() -> Any:
    global core
    if core is None:
        from . import pncore

        core = pncore
    return core


class _Shared:
    """What the threads of one search share in Python: the answer, an error, the lands whose
    table entries the helpers asked for, and the barrier of a pause to grow the arrays."""

    def __init__(self, threads: int) -> None:
        self.result: bool | None = None
        self.error: BaseException | None = None
        self.barrier = threading.Barrier(threads)
        self._asked: list[int] = []
        self._lock = threading.Lock()

    def ask(self, lands: list[int]) -> None:
        with self._lock:
            self._asked.extend(lands)

    def take(self) -> list[int]:
        with self._lock:
            out, self._asked = self._asked, []
        return out


class Unsupported(Exception):
    """The core met a land it does not take (a move past the packing's limits); the reference answers."""


class State:
    """The arrays the core works in, and their growth (doubling, keeping ``pncore``'s room free).

    Every thread has its own ``T`` (status, stack pointer, counters), stack, pending
    lookups and parse buffer; everything else is shared.  ``S`` is thread 0's tuple.
    """

    def __init__(
        self,
        small_lives: int,
        has_table: bool,
        tt_entries: int = TT_ENTRIES,
        threads: int = 1,
        tt_max_entries: int | None = None,
    ) -> None:
        give_back_free_heap()
        self.G = np.zeros(core.NG, np.int64)
        self.G[core.G_SMALL] = small_lives
        self.G[core.G_HAS_TABLE] = 1 if has_table else 0
        self.G[core.G_VIRTUAL] = VIRTUAL
        self.G[core.G_SPREAD] = SPREAD
        n = 1 << 12
        self.I64 = filled_from_the_front((core.N64, n), np.int64)
        self.I32 = filled_from_the_front((core.N32, n), np.int32)
        self.TEXT = filled_from_the_front(1 << 17, np.uint8)
        self.SUMS = filled_from_the_front(1 << 14, np.int64)
        self.KIDS = filled_from_the_front(1 << 16, np.int32)
        self.HTAB = np.zeros(1 << 14, np.int32)
        self.STAB = np.zeros(1 << 14, np.int32)
        self.CTAB = np.zeros(1 << 14, np.int32)
        self.CE = filled_from_the_front((core.NC, n), np.int64)
        self.CODE = filled_from_the_front(1 << 17, np.uint8)
        size = 1 << max(2, (tt_entries - 1).bit_length())
        self.TTK = np.full(size, -1, np.int64)
        self.TTV = np.zeros((core.NV, size), np.int64)
        #: The table doubles (``grow_table``) up to this many entries.
        self.tt_max_entries = size if tt_max_entries is None else max(size, tt_max_entries)
        self._evicted_at_growth = 0
        self.table_wanted = False
        self.BUSY = np.zeros(1 << 16, np.int64)
        #: The codes kept are forgotten once they would take more than this (``CODE_BYTES``).
        self.code_bytes = CODE_BYTES
        #: Times the codes were forgotten.
        self.codes_forgotten = 0
        self.T: list[np.ndarray] = []
        self.STK: list[np.ndarray] = []
        self.PEND: list[np.ndarray] = []
        self.PBUF: list[np.ndarray] = []
        self.FLAT: list[np.ndarray] = []
        self.threads = 0
        self.add_threads(threads)
        self.S = self.tuple_for(0)

    def add_threads(self, threads: int) -> None:
        """Arrays for ``threads`` threads in all."""
        while self.threads < threads:
            t = np.zeros(core.NT, np.int64)
            t[core.T_CUR] = -1
            self.T.append(t)
            self.STK.append(np.zeros((core.NF, 512), np.int64))
            self.PEND.append(np.zeros(1 << 12, np.int64))
            self.PBUF.append(np.zeros(1 << 12, np.int64))
            self.FLAT.append(core.flat_cache())
            self.threads += 1

    def tuple_for(self, i: int) -> tuple[np.ndarray, ...]:
        """The state as thread ``i``'s kernels take it."""
        return (
            self.G, self.T[i], self.I64, self.I32, self.TEXT, self.SUMS, self.KIDS, self.HTAB, self.STAB,
            self.CTAB, self.CE, self.CODE, self.TTK, self.TTV, self.STK[i], self.PEND[i], self.PBUF[i],
            self.BUSY, self.FLAT[i],
        )  # fmt: skip

    def total(self, field: int) -> int:
        """A per-thread counter summed over the threads."""
        return sum(int(t[field]) for t in self.T)

    def table_full(self) -> bool:
        """Should the transposition table double (and may it)?  Below ``TT_ENTRIES`` entries, once
        the nodes visited are half its size (before it overwrites much: a search whose table was
        made for fewer nodes than it visits keeps its entries); at any size, once it has
        overwritten an eighth of its size since it last grew (then the search forgets what it
        would search again)."""
        left = (self.nodes_before_growth(), self.evictions_before_growth())
        return any(n is not None and n <= 0 for n in left)

    def nodes_before_growth(self) -> int | None:
        """Nodes the threads may visit before the half-its-size rule asks for a larger table
        (``None`` if that rule does not apply): a call of the core stops there, so the table grows
        at the same node on every run, not at the first return after (whose chunk of nodes is
        fitted to the machine's speed)."""
        size = self.TTK.shape[0]
        if size >= TT_ENTRIES or 2 * size > self.tt_max_entries:
            return None
        return size // 2 + 1 - self.total(core.T_TICKS)

    def evictions_before_growth(self) -> int | None:
        """Entries the threads may overwrite before the overwrite rule asks for a larger table
        (``None`` if the table may not grow): a call of the core stops there (``T_EVICT_STOP``),
        as with ``nodes_before_growth``."""
        size = self.TTK.shape[0]
        if 2 * size > self.tt_max_entries:
            return None
        evicted = self.total(core.T_EVICTED) - self._evicted_at_growth
        return size // TT_GROW_SHARE + 1 - evicted

    def set_stops(self, i: int, chunk: int) -> int:
        """Thread ``i``'s next call of the core stops after ``chunk`` nodes, or sooner where the table
        is to grow (``nodes_before_growth``, ``evictions_before_growth``, shared out among the
        threads); the nodes it may visit."""
        t = self.T[i]
        left = self.nodes_before_growth()
        if left is not None:
            chunk = min(chunk, -(-max(1, left) // self.threads))
        t[core.T_STOP_AT] = t[core.T_TICKS] + chunk
        evictions = self.evictions_before_growth()
        if evictions is None:
            t[core.T_EVICT_STOP] = 0
        else:
            t[core.T_EVICT_STOP] = t[core.T_EVICTED] + -(-max(1, evictions) // self.threads)
        return chunk

    def stopped_for_growth(self, i: int) -> bool:
        """Did thread ``i``'s last call stop at the overwrites before the table's growth?"""
        t = self.T[i]
        return 0 < int(t[core.T_EVICT_STOP]) <= int(t[core.T_EVICTED])

    def grow_table(self) -> None:
        """Double the transposition table, keeping its entries.  No thread may be in the core."""
        old_keys, old_values = self.TTK, self.TTV
        size = 2 * old_keys.shape[0]
        self.TTK = np.full(size, -1, np.int64)
        self.TTV = np.zeros((core.NV, size), np.int64)
        core.forget_checked_states()
        self.S = self.tuple_for(0)
        core.tt_move(self.S, old_keys, old_values)
        self._evicted_at_growth = self.total(core.T_EVICTED)

    def grow(self) -> None:
        """Make the room ``pncore._room`` (and a frame or a parse that did not fit) asks for, and
        the transposition table's when it is wanted.  No thread may be in the core meanwhile."""
        if self.table_wanted:
            self.table_wanted = False
            self.grow_table()
        # No tuple may hold the arrays being replaced: each old array goes as soon as its
        # successor is made, not all of them at the end (the peak of a growth is then one array's).
        core.forget_checked_states()
        self.S = ()
        g = self.G
        numbers = int(g[core.G_NUMBERS])
        if int(g[core.G_CODE_TOP]) + core.ROOM_CODE > max(self.CODE.shape[0], self.code_bytes):
            self.forget_codes()

        def longer(a: np.ndarray, need: int) -> np.ndarray:
            size = a.shape[-1]
            if need <= size:
                return a
            while size < need:
                size *= 2
            out = filled_from_the_front((*a.shape[:-1], size), a.dtype)
            out[..., : a.shape[-1]] = a
            return out

        self.I64 = longer(self.I64, numbers + core.ROOM_NUMBERS)
        self.I32 = longer(self.I32, numbers + core.ROOM_NUMBERS)
        self.CE = longer(self.CE, int(g[core.G_CODES]) + 1 + core.ROOM_NUMBERS)
        self.TEXT = longer(self.TEXT, int(g[core.G_TEXT_TOP]) + core.ROOM_TEXT)
        self.SUMS = longer(self.SUMS, int(g[core.G_SUM_TOP]) + core.ROOM_SUMS)
        self.CODE = longer(self.CODE, int(g[core.G_CODE_TOP]) + core.ROOM_CODE)
        kcap = int(self.I32[core.L_KCAP].max()) if numbers else 0
        self.KIDS = longer(self.KIDS, int(g[core.G_KID_TOP]) + max(core.ROOM_KIDS, 4 * kcap + 8))
        for i, t in enumerate(self.T):
            self.STK[i] = longer(self.STK[i], int(t[core.T_SP]) + 2 * core.ROOM_STACK)
            self.PBUF[i] = longer(self.PBUF[i], int(t[core.T_NEED_PBUF]))
        rehash = False
        for name, count in (("HTAB", core.G_HCOUNT), ("STAB", core.G_SCOUNT), ("CTAB", core.G_CCOUNT)):
            table = getattr(self, name)
            need = 2 * (int(g[count]) + core.ROOM_NUMBERS)
            if need > table.shape[0]:
                size = table.shape[0]
                while size < need:
                    size *= 2
                setattr(self, name, np.zeros(size, np.int32))
                rehash = True
        self.S = self.tuple_for(0)
        if rehash:
            self.HTAB[:] = 0
            self.STAB[:] = 0
            self.CTAB[:] = 0
            core.rehash(self.S)
        give_back_free_heap()

    def forget_codes(self) -> None:
        """Forget the older half of the codes kept (``CODE``, ``CE``, ``CTAB``): the newer half
        moves to the front of the same room, which stops growing.  A search works on the lands
        it met last, so those codes are the ones met again.  The codes are only a lookup:
        every land keeps its number, string and facts.  No thread may be in the core."""
        g = self.G
        codes = int(g[core.G_CODES])
        first = codes - int(codes * CODE_KEEP)  # the first code kept
        ce, start = self.CE, core.C_START
        s0, top = int(ce[start, first]), int(g[core.G_CODE_TOP])
        kept = codes - first
        self.CODE[: top - s0] = self.CODE[s0:top]
        ce[:, : kept + 1] = ce[:, first : codes + 1]
        ce[start, : kept + 1] -= s0
        g[core.G_CODE_TOP] = top - s0
        g[core.G_CODES] = kept
        g[core.G_CCOUNT] = kept
        self.HTAB[:] = 0
        self.STAB[:] = 0
        self.CTAB[:] = 0
        core.rehash(self.tuple_for(0))
        self.codes_forgotten += 1

    def text(self, number: int) -> str:
        start = int(self.I64[core.L_START, number])
        return self.TEXT[start : start + int(self.I32[core.L_LEN, number])].tobytes().decode("ascii")

    def members(self, number: int) -> list[int]:
        start = int(self.I64[core.L_START, number])
        return [int(x) for x in self.SUMS[start : start + int(self.I32[core.L_LEN, number])]]

    def is_land(self, number: int) -> bool:
        return bool(self.I32[core.L_KIND, number] == core.K_LAND)

    def lands_of(self, number: int) -> Lands:
        """A number's lands as sorted reduced strings."""
        if self.is_land(number):
            return (self.text(number),)
        return tuple(sorted(self.text(x) for x in self.members(number)))


class CompiledNormalSolver(PositionQuestions):
    """``NormalSolver``'s questions answered by the compiled core (same arguments, same answers).

    ``table``, ``abort``, ``progress``, ``progress_seconds`` and ``refresh_seconds`` mean
    what they mean for ``NormalSolver``; ``tt_entries`` is the transposition table's first
    size (by default ``first_table_entries`` of each question's lives: the first size, then
    doubled before a larger question), and it doubles while what it overwrites is many and
    it fits in ``TT_MEMORY_SHARE`` of ``memory`` (bytes; default
    ``memory_bound.default_memory()``, which ``--memory`` sets).
    """

    def __init__(
        self,
        table: NormalTable | None = None,
        *,
        abort: Callable[[], bool] | None = None,
        progress: Callable[[dict[str, int]], None] | None = None,
        progress_seconds: float = 0.25,
        refresh_seconds: float | None = None,
        small_lives: int | None = None,
        tt_entries: int | None = None,
        compile_lives: int | None = None,
        threads: int = 1,
        memory: int | None = None,
        interleave: int = 0,
        **_ignored: Any,
    ) -> None:
        self.abort = abort
        self.progress = progress
        self.progress_seconds = progress_seconds
        self.refresh_seconds = refresh_seconds
        self.small_lives = SMALL_LIVES if small_lives is None else small_lives
        self.tt_entries = tt_entries
        self._fit_tables = tt_entries is None
        bound = default_memory() if memory is None else memory
        self.tt_max_entries = 1 << max(2, int(bound * TT_MEMORY_SHARE / TT_ENTRY_BYTES).bit_length() - 1)
        if compile_lives is None:
            compile_lives = COMPILE_LIVES if aot.kernel_path() == "jit" else 0
        self.compile_lives = compile_lives
        self.threads = max(1, threads)
        self.interleave = interleave
        self._state: State | None = None
        self._table = table
        self._hits = 0
        self._deadline = Deadline(message="the solver ran out of time")
        self._chunks = [256] * self.threads
        self._last_progress = time.monotonic()
        self._last_refresh = time.monotonic()
        self._last_write = time.monotonic()
        self._reference_solver: NormalSolver | None = None
        self._facts = np.zeros((2, 1 << 14), np.int64)
        self._stall_mark: tuple[tuple[int, int], int] | None = None

    # ============================================================ the table, the statistics
    @property
    def state(self) -> State:
        """The core's arrays (loading the core the first time)."""
        if self._state is None:
            _load_core()
            entries = TT_ENTRIES if self.tt_entries is None else self.tt_entries
            has_table = self._table is not None
            self._state = State(self.small_lives, has_table, entries, self.threads, self.tt_max_entries)
        return self._state

    @property
    def loaded(self) -> bool:
        """Whether this solver searches on the core (else, so far, on the reference)."""
        return self._state is not None

    @property
    def table(self) -> NormalTable | None:
        return self._table

    @table.setter
    def table(self, table: NormalTable | None) -> None:
        self.write_facts()
        self._table = table
        if self._reference_solver is not None:
            self._reference_solver.table = table
        if self._state is not None:
            self._state.G[core.G_HAS_TABLE] = 1 if table is not None else 0

    @property
    def stats(self) -> dict[str, int]:
        out = {"positions_solved": 0, "table_hits": 0, "lands_expanded": 0, "nodes": 0}
        if self._state is not None:
            out.update(self._core_stats(self._state))
        if self._reference_solver is not None:
            for key, value in self._reference_solver.stats.items():
                out[key] = out.get(key, 0) + value
        return out

    def thread_counts(self, field: str = "nodes") -> list[int]:
        """What each thread has done so far (thread 0 first): ``"nodes"`` visited or ``"moves"``
        made (children computed, where most of the time goes)."""
        if self._state is None:
            return [0] * self.threads
        index = {"nodes": core.T_TICKS, "moves": core.T_MOVES}[field]
        return [int(t[index]) for t in self._state.T]

    def _core_stats(self, st: State) -> dict[str, int]:
        return {
            "positions_solved": int(st.G[core.G_SOLVED]) + st.total(core.T_SOLVED),
            "table_hits": self._hits,
            "lands_expanded": st.total(core.T_EXPANDED),
            "nodes": st.total(core.T_TICKS),
            "lands_read": st.total(core.T_PARSES),
            "moves_made": st.total(core.T_MOVES),
            "lands_reduced": st.total(core.T_REDUCED),
            "lands_by_flat_form": st.total(core.T_FLAT_HITS),
            "stacks_cut": st.total(core.T_CUTS),
            "table_entries": int(st.TTK.shape[0]),
            "table_overwrites": st.total(core.T_EVICTED),
        }

    # ========================================== public (and those of PositionQuestions)
    def known_nimber(self, land: str) -> int | None:
        """The nimber of a land if it is known (memory or table), without searching."""
        if not self.loaded:
            return self._reference().known_nimber(land)
        x = self._land_number(land)
        st = self.state
        if st.I32[core.L_NIM, x] < 0 and st.I32[core.L_LOOKED, x] == 0:
            self._lookup([x])
        n = int(st.I32[core.L_NIM, x])
        return None if n < 0 else n

    def node_of(self, lands: Lands, k: int) -> bool | tuple[str | Lands, int]:
        """What ``lands + *k`` comes to with the known nimbers folded into the heap (as ``NormalSolver``)."""
        if not self.loaded:
            return self._reference().node_of(lands, k)
        node = self._node(self._child_number(sorted(lands)), k)
        if node is True or node is False:
            return node
        number, heap = node & core.NODE_MASK, node >> core.NODE_BITS
        if self.state.is_land(number):
            return self.state.text(number), heap
        return self.state.lands_of(number), heap

    def children_of(self, land: str) -> list[Lands]:
        """Every distinct child of a land (each its sorted reduced lands), in the order found."""
        if not self.loaded:
            return self._reference().children_of(land)
        x = self._land_number(land)
        numbers = self._retry(core.children_of, x)
        return [self.state.lands_of(int(c)) for c in numbers]

    def remembered(self, land: str) -> tuple[int | None, int]:
        """(nimber or None, win mask) of a land as this solver holds it (no table lookup)."""
        if not self.loaded:
            return self._reference().remembered(land)
        st = self.state
        x = int(core.find_text(st.S, _bytes(land)))
        if x < 0:
            return None, 0
        n = int(self.state.I32[core.L_NIM, x])
        return (None, int(self.state.I64[core.L_WINS, x])) if n < 0 else (n, 0)

    def record_win(self, land: str, k: int) -> None:
        """Keep the fact "land + *k is a win" (proved elsewhere)."""
        if not self.loaded or k >= HEAP_LIMIT:
            self._reference().record_win(land, k)
            return
        x = self._land_number(land)
        st = self.state
        if st.I32[core.L_NIM, x] < 0:
            st.I64[core.L_WINS, x] |= 1 << k
            st.G[core.G_SOLVED] += 1
        self.write_facts()

    def record_nimber(self, land: str, k: int) -> None:
        """Keep the fact "land has nimber k" (proved elsewhere)."""
        if not self.loaded:
            self._reference().record_nimber(land, k)
            return
        x = self._land_number(land)
        st = self.state
        st.I32[core.L_NIM, x] = k
        st.I64[core.L_WINS, x] = 0
        st.G[core.G_SOLVED] += 1
        self.write_facts()

    def forget_lookups(self) -> None:
        """Read the table again for every land when next met (it holds what other processes proved)."""
        if self._reference_solver is not None:
            self._reference_solver.forget_lookups()
        if self._state is not None:
            self._state.I32[core.L_LOOKED, :] = 0

    # ============================================================ the questions
    def sum_wins(self, lands: Lands, k: int) -> bool:
        """Is ``lands[0] + lands[1] + … + *k`` a win for the player to move?"""
        lives = sum(land_lives(x) for x in lands)
        if not self.loaded and lives < self.compile_lives:
            return self._reference().sum_wins(lands, k)
        self._fit_table(lives)
        if k >= HEAP_LIMIT:  # beyond the cores' masks: by the nimbers
            for land in lands:
                k ^= self.land_nimber(land)
            return k != 0
        what = self._child_number(sorted(lands))
        try:
            return self._search(what, k)
        except Unsupported:
            return self._reference().sum_wins(lands, k)

    def _fit_table(self, lives: int) -> None:
        """Unless the caller chose the table's size: the first size, or doubling before a search
        larger than the table was made for (a table that doubles only once it overwrites loses
        what it overwrote, and a search that outgrows a small table badly can take twice the
        nodes)."""
        if not self._fit_tables:
            return
        want = first_table_entries(lives)
        if self._state is None:
            self.tt_entries = max(self.tt_entries or 0, want)
            return
        st = self._state
        while st.TTK.shape[0] < want and 2 * st.TTK.shape[0] <= st.tt_max_entries:
            st.grow_table()

    def land_nimber(self, land: str) -> int:
        """The nimber of one land: the least k for which land + *k is a loss (the mex rule)."""
        n = self.known_nimber(land)
        if n is not None:
            return n
        k = 0
        while k < HEAP_LIMIT and self.sum_wins((land,), k):
            k += 1
        if k == HEAP_LIMIT:  # pragma: no cover - no land of Sprouts has a nimber this large
            return self._reference().land_nimber(land)
        return k

    def write_facts(self) -> None:
        """Write the facts proved since the last call to the table (in one batch)."""
        table = self._table
        self._last_write = time.monotonic()
        if table is None or self._state is None:
            return
        st = self.state
        while True:
            n = int(core.new_facts(st.S, self._facts))
            if n >= 0:
                break
            self._facts = np.zeros((2, 2 * self._facts.shape[1]), np.int64)
        lands, values = self._facts[0, :n].tolist(), self._facts[1, :n].tolist()
        for x, v in zip(lands, values, strict=True):
            text = st.text(x)
            if v >= 0:
                table.put_nimber(text, v)
            else:
                table.put_win(text, -1 - v)

    # ============================================================== internals
    def _reference(self) -> NormalSolver:
        if self._reference_solver is None:
            self._reference_solver = NormalSolver(self._table, abort=self.abort, small_lives=self.small_lives)
        self._reference_solver.table = self._table
        return self._reference_solver

    def _search(self, what: int, k: int) -> bool:
        """Is ``what`` + *k a win?  Thread 0 (this one) searches alone first; a question it does not
        settle within its first return gets ``threads - 1`` more threads of the same search."""
        if self.interleave and self.threads > 1:
            return self._search_interleaved(what, k)
        st = self._begin(what, k, threads=1)
        g = st.G
        helpers: list[threading.Thread] = []
        shared = _Shared(self.threads)
        try:
            while True:
                status = self._run(0)
                if status == core.DONE:
                    return bool(st.T[0][core.T_RESULT])
                if status == core.NEED_ROOM:
                    g[core.G_PAUSE] = 1
                if st.table_full():
                    st.table_wanted = True
                    g[core.G_PAUSE] = 1
                self._serve(shared)
                if g[core.G_PAUSE]:
                    if helpers:
                        self._pause(shared, 0)
                    else:
                        st.grow()
                        g[core.G_PAUSE] = 0
                if shared.error is not None:
                    raise shared.error
                if shared.result is not None:
                    return shared.result
                if g[core.G_STOP]:  # pragma: no cover - a helper ends only with an answer or an error
                    raise RuntimeError("the search's threads stopped without an answer")
                if status in (core.NEED_LOOKUP, core.UNSUPPORTED):
                    self._handle(0, status)
                self._clock(time.monotonic())
                if helpers and g[core.G_THREADS] > 1 and self._spreading_stalled():
                    g[core.G_THREADS] = 1  # each thread searches as one alone would, and gets on
                if not helpers and self.threads > 1:
                    g[core.G_THREADS] = self.threads
                    helpers = [
                        threading.Thread(target=self._helper, args=(i, shared), daemon=True)
                        for i in range(1, self.threads)
                    ]
                    for h in helpers:
                        h.start()
        finally:
            g[core.G_STOP] = 1
            shared.barrier.abort()
            for h in helpers:
                h.join()
            self._stall_mark = None
            self._end()

    def _search_interleaved(self, what: int, k: int) -> bool:
        """``_search`` with the threads' searches taken in turns of ``interleave`` nodes each, all
        in this OS thread: the same shared arrays and virtual proof numbers as real threads, but
        the same nodes on every run, whatever the machine's load.  For tests and benchmarks
        of how the threads share the work (real threads' node counts vary twofold from run to
        run); it runs no faster than one thread."""
        st = self._begin(what, k, threads=self.threads)
        try:
            while True:
                for i in range(self.threads):
                    t = st.T[i]
                    t[core.T_STOP_AT] = t[core.T_TICKS] + self.interleave
                    t[core.T_EVICT_STOP] = 0  # (turns of a fixed length: the growth waits for a turn's end)
                    status = int(core.run(st.tuple_for(i)))
                    if status == core.DONE:
                        return bool(t[core.T_RESULT])
                    if st.table_full():
                        st.table_wanted = True
                    if status == core.NEED_ROOM or st.table_wanted:
                        st.grow()
                    elif status in (core.NEED_LOOKUP, core.UNSUPPORTED):
                        self._handle(i, status)
                    self._clock(time.monotonic())
        finally:
            st.G[core.G_STOP] = 1
            self._end()

    def _begin(self, what: int, k: int, threads: int) -> State:
        """Every thread set to search ``what`` + *k from an empty stack, ``threads`` of them at once."""
        st = self.state
        g = st.G
        g[core.G_STOP] = 0
        g[core.G_PAUSE] = 0
        g[core.G_THREADS] = threads
        for t in st.T:
            t[core.T_ROOT] = what
            t[core.T_ROOTK] = k
            t[core.T_SP] = 0
            t[core.T_NPEND] = 0
        return st

    def _end(self) -> None:
        """Every thread's stack dropped, and the facts proved written (also when stopped)."""
        st = self.state
        for i in range(st.threads):
            core.leave(st.tuple_for(i))
        st.G[core.G_THREADS] = 1
        if st.threads > 1:  # one thread never counts itself in: its BUSY stays untouched (no memory)
            st.BUSY[:] = 0  # no thread is anywhere (counts left while spreading was off go too)
        self.write_facts()

    def _spreading_stalled(self) -> bool:
        """True when the threads have visited ``STALL_NODES`` nodes since a land was last numbered
        or a fact last proved.  Virtual proof numbers send a thread away from the child another
        thread searches; should the threads keep sending each other round without a step
        forward, the search is better off without them (``G_THREADS`` 1: the true choices)."""
        st = self.state
        seen = (int(st.G[core.G_NUMBERS]), st.total(core.T_SOLVED))
        nodes = st.total(core.T_TICKS)
        if self._stall_mark is None or self._stall_mark[0] != seen:
            self._stall_mark = (seen, nodes)
            return False
        return nodes - self._stall_mark[1] >= STALL_NODES

    def _run(self, i: int) -> int:
        """One call of the core by thread ``i`` (its chunk of nodes fitted to ``RETURN_SECONDS``)."""
        st = self.state
        chunk = st.set_stops(i, self._chunks[i])
        start = time.monotonic()
        status = int(core.run(st.tuple_for(i)))
        if status == core.PAUSED and chunk == self._chunks[i] and not st.stopped_for_growth(i):
            # (a call cut short for the table's growth says nothing of the machine's speed)
            spent = time.monotonic() - start
            if spent < RETURN_SECONDS / 2 and self._chunks[i] < 1 << 22:
                self._chunks[i] *= 2
            elif spent > RETURN_SECONDS * 2 and self._chunks[i] > 16:
                self._chunks[i] //= 2
        return status

    def _helper(self, i: int, shared: _Shared) -> None:
        """Thread ``i`` (> 0): the same search until the root is decided or every thread is stopped.
        Its table lookups are made by thread 0 (SQLite's connection belongs to it)."""
        st = self.state
        g = st.G
        try:
            while not g[core.G_STOP]:
                status = self._run(i)
                if status == core.DONE:
                    shared.result = bool(st.T[i][core.T_RESULT])
                    break
                if status == core.UNSUPPORTED:
                    shared.error = Unsupported()
                    break
                if status == core.NEED_ROOM or st.table_full():
                    g[core.G_PAUSE] = 1  # (thread 0 grows the table when every thread is out)
                elif status == core.NEED_LOOKUP:
                    t = st.T[i]
                    n = int(t[core.T_NPEND])
                    t[core.T_NPEND] = 0
                    shared.ask([int(x) for x in st.PEND[i][:n]])
                    time.sleep(0.001)  # thread 0 reads the table at its next return
                if g[core.G_PAUSE]:
                    self._pause(shared, i)
        except threading.BrokenBarrierError:
            pass
        except BaseException as error:  # pragma: no cover - a bug in a helper: thread 0 raises it
            shared.error = error
        g[core.G_STOP] = 1  # whatever ended this thread ends the others' search
        shared.barrier.abort()

    def _pause(self, shared: _Shared, i: int) -> None:
        """Every thread out of the core; thread 0 grows the arrays; every thread goes on.  (A
        thread that ends breaks the barrier, and stops the others: then nothing is grown.)"""
        try:
            shared.barrier.wait()
            if i == 0:
                self.state.grow()
                self.state.G[core.G_PAUSE] = 0
            shared.barrier.wait()
        except threading.BrokenBarrierError:
            if i:
                raise

    def _serve(self, shared: _Shared) -> None:
        """Thread 0 reads the table for the lands the helpers asked about."""
        lands = shared.take()
        if lands:
            self._lookup(lands)

    def _handle(self, i: int, status: int) -> None:
        st = self.state
        if status == core.NEED_ROOM:
            st.grow()
        elif status == core.NEED_LOOKUP:
            t = st.T[i]
            n = int(t[core.T_NPEND])
            t[core.T_NPEND] = 0
            self._lookup([int(x) for x in st.PEND[i][:n]])
        elif status == core.UNSUPPORTED:
            raise Unsupported

    def _retry(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(S, *args)`` for a kernel that may stop for room or a lookup: again until it does not."""
        st = self.state
        while True:
            t = st.T[0]
            t[core.T_STATUS] = core.RUNNING
            result = fn(st.S, *args)
            status = int(t[core.T_STATUS])
            if status == core.RUNNING:
                return result
            self._handle(0, status)

    def _clock(self, now: float) -> None:
        if self._deadline.passed(now):
            raise OutOfTime(self._deadline.message)
        if self.abort is not None and self.abort():
            raise SolveInterrupted("the solver was asked to stop")
        if self.progress is not None and now - self._last_progress >= self.progress_seconds:
            self._last_progress = now
            self.progress(self.stats)
        if self.refresh_seconds is not None and now - self._last_refresh >= self.refresh_seconds:
            self._last_refresh = now
            self.forget_lookups()
        if self._table is not None and now - self._last_write >= WRITE_SECONDS:
            self.write_facts()

    def _lookup(self, numbers: list[int]) -> None:
        """Read what the table knows of these lands (and mark them read)."""
        st = self.state
        table = self._table
        for x in numbers:
            if st.I32[core.L_LOOKED, x] == 0:
                st.I32[core.L_LOOKED, x] = 2
            if table is None:
                continue
            hit = table.get_normal(st.text(x))
            if hit is None:
                continue
            nimber, wins = hit
            if nimber is not None:
                if st.I32[core.L_NIM, x] < 0:
                    self._hits += 1
                st.I32[core.L_NIM, x] = nimber
                st.I32[core.L_SAVED_NIM, x] = 1
                st.I64[core.L_WINS, x] = 0
            elif st.I32[core.L_NIM, x] < 0:
                wins &= _WINS_MASK
                if wins & ~int(st.I64[core.L_WINS, x]):
                    self._hits += 1
                st.I64[core.L_WINS, x] |= wins
                st.I64[core.L_SAVED_WINS, x] |= wins

    def _land_number(self, land: str) -> int:
        data = _bytes(land)
        st = self.state  # loads the core
        while True:
            x = int(core.intern_text(st.S, data))
            if x >= 0:
                return x
            self.state.grow()

    def _child_number(self, lands: list[str] | Lands) -> int:
        numbers = [self._land_number(x) for x in lands]
        if len(numbers) == 1:
            return numbers[0]
        array = np.array(sorted(numbers), np.int64)
        st = self.state
        while True:
            x = int(core.intern_sum(st.S, array))
            if x >= 0:
                return x
            self.state.grow()

    def _node(self, number: int, k: int) -> int | bool:
        r = int(self._retry(core.node_of, number, k))
        if r == core.WIN:
            return True
        if r == core.LOSS:
            return False
        return r


def _bytes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("ascii"), np.uint8)


class _ListTable:
    """A table in memory that keeps what it is given (for the build's check)."""

    def __init__(self) -> None:
        self.facts: list[tuple[str, str, int]] = []

    def get_normal(self, land: str) -> tuple[int | None, int] | None:
        return None

    def put_nimber(self, land: str, nimber: int) -> None:
        self.facts.append(("nimber", land, nimber))

    def put_win(self, land: str, heap: int) -> None:
        self.facts.append(("win", land, heap))


def _core_workload() -> list[Any]:
    """What a small search leaves, through every kernel Python calls: answers, facts, children
    (all at once and one at a time), statistics and the arrays themselves.  What depends on
    the clock is held still: facts are written when each search ends (not every
    ``WRITE_SECONDS``), and the table is doubled once by hand (``tt_move``), not when it fills.
    The hash tables are refilled once (``rehash``)."""
    global WRITE_SECONDS
    every, WRITE_SECONDS = WRITE_SECONDS, float("inf")
    try:
        table = _ListTable()
        solver = CompiledNormalSolver(table, compile_lives=0, tt_entries=1 << 14, memory=0)
        out: list[Any] = [solver.outcome("0*6"), solver.nimber("0*2.AB|AB")]
        st = solver.state
        st.tt_max_entries *= 2
        st.grow_table()
        for name in ("HTAB", "STAB", "CTAB"):
            getattr(st, name)[:] = 0
        core.rehash(st.S)
        out += [solver.outcome("0*3.AB|AB|0*2"), solver.children_of("0*4"), solver.remembered("0*6")]
        x = solver._land_number("0*2.AB.CD|CD")
        out.append(solver._retry(core.open_children, x))
        while (child := int(solver._retry(core.next_child, x))) >= 0:
            out.append(st.lands_of(child))
        out += [solver.stats, table.facts]
        out += [a.copy() for a in solver.state.S if a is not st.BUSY]
    finally:
        WRITE_SECONDS = every
    return out


def check_built_core(built: Any) -> str:
    """Compare the built module's ``core_*`` kernels with the JIT ones on ``_core_workload``:
    the first difference, or "" (the build's check, ``engine/aot_check.py``, on the JIT path)."""
    _load_core()
    want = _core_workload()
    saved = {name: getattr(core, name) for name in core.EXPORTS}
    try:
        for name, (signature, fn) in core.EXPORTS.items():
            setattr(core, name, core.state_guarded(getattr(built, "core_" + name), fn, signature))
        got = _core_workload()
    finally:
        for name, fn in saved.items():
            setattr(core, name, fn)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        same = np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
        if not same:
            return f"the core's workload differs at item {i}"
    return ""


def compiled_available() -> bool:
    """Whether this process may solve normal play on the compiled core (numba, not plain Python)."""
    if aot.PURE_PYTHON or os.environ.get("SPROUTS_COMPILED_SEARCH", "1") == "0":
        return False
    return importlib.util.find_spec("numba") is not None


__all__ = ["CompiledNormalSolver", "State", "Unsupported", "check_built_core", "compiled_available"]
