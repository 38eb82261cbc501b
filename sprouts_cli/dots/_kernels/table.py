"""The transposition table: buckets of entries keyed by canonical line sets."""

from __future__ import annotations

from ._switch import kernel

#: entries per bucket of the transposition table (the table size is a multiple of it)
BUCKET = 4
#: int64 words per entry: the canonical line set complemented (``~key``: a word 0 is an empty
#: entry, as no line set is -1, so a table of zeros is empty), then bounds, best line and
#: search size packed
WORDS = 2


@kernel
def _slot(tt, key):
    """The first entry of the key's bucket (a bucket is one 64-byte cache line)."""
    return ((key ^ (key >> 29)) * 0x9E3779B1) & ((tt.shape[0] >> 1) - BUCKET)


@kernel
def probe(tt, key):
    """The table entry holding ``key``, or -1."""
    slot = _slot(tt, key)
    stored = ~key
    for i in range(slot, slot + BUCKET):
        if tt[2 * i] == stored:
            return i
    return -1


@kernel
def entry_bounds(tt, i):
    """The (lower, upper) bound of entry i."""
    data = tt[2 * i + 1]
    return (data & 255) - 128, ((data >> 8) & 255) - 128


@kernel
def entry_move(tt, i):
    """The best line of entry i in the canonical frame, or -1."""
    return ((tt[2 * i + 1] >> 16) & 255) - 1


@kernel
def _entry_work(tt, i):
    return (tt[2 * i + 1] >> 24) & 255


@kernel
def store(tt, i, key, lo, hi, move, work):
    """Write entry i: the key (complemented), then the bounds, best line and search size in one word."""
    tt[2 * i] = ~key
    tt[2 * i + 1] = (lo + 128) | ((hi + 128) << 8) | ((move + 1) << 16) | (work << 24)


@kernel
def _victim(tt, slot):
    """The entry of the bucket to overwrite: the one whose search was smallest."""
    victim = slot
    for i in range(slot + 1, slot + BUCKET):
        if _entry_work(tt, i) < _entry_work(tt, victim):
            victim = i
    return victim
