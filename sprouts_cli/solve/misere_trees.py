"""Misère canonical trees of impartial games, kept in a store with integer ids (Alfeld §5.7).

In misère play a part's outcome alone says nothing about how it behaves beside
other parts.  What does is its *misère canonical tree* (Conway, *On Numbers and
Games*, ch. 12; Lemoine and Viennot, arXiv:0908.4407): two games are equal,
``G = H``, when ``G + X`` and ``H + X`` have the same misère outcome for every
game ``X``, and every game is equal to exactly one game in *simplest form*.

A game is written as the set of its options.  The store gives each simplest form
an integer id, so that an option set is a ``frozenset`` of ids and two games are
equal exactly when their ids are.  The rules used (Alfeld §5.7):

* **Equality** (Conway, ONAG ch. 12): ``G = H`` if and only if ``G`` and ``H``
  have the same misère outcome, every option of ``G`` equals an option of ``H``
  or has an option equal to ``H``, and every option of ``H`` equals an option of
  ``G`` or has an option equal to ``G``.
* **Simplification** (the Grundy–Smith rule with its proviso, ONAG ch. 12; see
  also Siegel, "On the structure of misère impartial games", arXiv:2012.08554,
  §2): if ``G = {S}`` and an option ``x`` of ``G`` has an option equal to
  ``{S \\ x}``, then ``G = {S \\ x}`` (``x`` is *reversible*) — except when
  ``S \\ x`` is empty and ``G`` is a misère loss for the player to move (then
  ``G = {x}`` is a loss while ``{}`` is a win, so they differ).  Conway's
  simplest form theorem: a game none of whose options (recursively) can be
  removed this way is in simplest form, and two equal games in simplest form
  are identical.  Simplification only ever *removes* options.
* **Nim heaps** ``*k = {*0, …, *(k-1)}`` are in simplest form, and
  ``*m + *n = *(m xor n)`` when ``m`` or ``n`` is 0 or 1.  A sum of heaps alone
  is decided by the misère nim rule (Bouton): the mover wins iff the xor is not 0,
  except when every heap is 0 or 1, and then iff it is 0.

The reversibility test is local, with no recursion.  For ``y`` in simplest form
and ``T`` a set of simplest forms, ``y = {T}`` holds if and only if
``o(y) = o({T})``, every option of ``y`` is in ``T``, and every ``t`` in ``T``
is an option of ``y`` or has ``y`` as an option.  (This is the equality rule: an
option of ``y`` cannot have an option equal to ``{T} = y``, since a simplest form
is not equal to a game born earlier.)

``tests/test_solve_misere_trees.py`` checks all of this by brute force on the 22
games born by day 4 and their sums: the numbers of distinct games by days 0..4
(1, 2, 3, 5, 22), and that equal ids is the same as "same misère outcome beside
every test game".
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Sequence
from functools import reduce
from operator import xor

from ..errors import MisereTreeError

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))

#: The id of the game with no option, ``0 = *0 = {}``.
ZERO = 0



def misere_nim_win(heaps: Iterable[int]) -> bool:
    """The misère nim rule (Bouton 1901): does the player to move win this sum of heaps?

    The mover wins iff the xor is not 0, except when every heap is 0 or 1, and then
    iff the xor is 0 (an even number of ones: the opponent takes the last counter).
    """
    hs = list(heaps)
    x = reduce(xor, hs, 0)
    if all(h <= 1 for h in hs):
        return x == 0
    return x != 0


def normal_heaps(heaps: Iterable[int]) -> tuple[int, ...]:
    """A sum of heaps written with the fewest heaps the rule ``*1 + *n = *(n xor 1)`` allows.

    Zeros vanish, pairs of ``*1`` cancel, and an odd ``*1`` is folded into the
    largest heap of size 2 or more (any choice gives an equal game).
    """
    big: list[int] = []
    ones = 0
    for h in heaps:
        if h >= 2:
            big.append(h)
        elif h == 1:
            ones ^= 1
    big.sort()
    if ones and big:
        big[-1] ^= 1
        big.sort()
        return tuple(big)
    return (*(1,) * ones, *big) if ones else tuple(big)



class TreeText:
    """The canonical text of trees, shared by every store of misère trees.

    A store using it gives ``options(g)``, ``heap_size(g)``, ``birthday(g)``, ``heap(k)``,
    ``make(options)`` and a dict ``_digests``; two stores holding the same simplest form
    write the same text, so a table written by one is read by the other.
    """

    _digests: dict[int, bytes]

    def options(self, g: int) -> Iterable[int]:
        raise NotImplementedError

    def heap_size(self, g: int) -> int | None:
        raise NotImplementedError

    def birthday(self, g: int) -> int:
        raise NotImplementedError

    def heap(self, k: int) -> int:
        raise NotImplementedError

    def make(self, options: Iterable[int]) -> int:
        raise NotImplementedError

    def digest(self, g: int) -> bytes:
        """A name of ``g``'s tree that does not depend on ids (same in every process)."""
        hit = self._digests.get(g)
        if hit is None:
            k = self.heap_size(g)
            if k is not None:
                data = f"*{k}".encode()
            else:
                data = b"{" + b"".join(sorted(self.digest(o) for o in self.options(g))) + b"}"
            hit = self._digests[g] = hashlib.blake2b(data, digest_size=12).digest()
        return hit

    def _order(self, g: int) -> tuple[int, bytes]:
        return (self.birthday(g), self.digest(g))

    def to_text(self, g: int) -> str:
        """The canonical text of ``g``'s tree: nested braces, ``*k`` for nim heaps.

        A subtree met more than once is written once as an item of its own before
        the tree, separated by ``;``, and named ``#i`` (the i-th item) where it
        recurs: ``{*1,*2};{#0,*3,{#0}}``.  Options are sorted by birthday, then by
        digest, so equal trees have the same text in every process.
        """
        heap_of: dict[int, int] = {}
        k = self.heap_size(g)
        if k is not None:
            return f"*{k}"
        parents: dict[int, int] = {}
        stack = [g]
        seen = {g}
        while stack:
            for o in self.options(stack.pop()):
                if self._heap_into(o, heap_of):
                    continue
                parents[o] = parents.get(o, 0) + 1
                if o not in seen:
                    seen.add(o)
                    stack.append(o)
        shared = {o for o, n in parents.items() if n > 1}
        names: dict[int, int] = {}
        items: list[str] = []

        def body(h: int) -> str:
            parts = []
            for o in sorted(self.options(h), key=self._order):
                if o in heap_of:
                    parts.append(f"*{heap_of[o]}")
                elif o in shared:
                    parts.append(f"#{names[o]}")
                else:
                    parts.append(body(o))
            return "{" + ",".join(parts) + "}"

        def define(h: int) -> None:
            # Every shared node below h is defined before h itself (post-order).
            for o in sorted(self.options(h), key=self._order):
                if o in heap_of:
                    continue
                if o in shared and o not in names:
                    define(o)
                    names[o] = len(items)
                    items.append(body(o))
                elif o not in shared:
                    define(o)

        define(g)
        items.append(body(g))
        return ";".join(items)

    def _heap_into(self, g: int, heap_of: dict[int, int]) -> bool:
        """True (noting its size in ``heap_of``) when ``g`` is a nim heap."""
        k = self.heap_size(g)
        if k is None:
            return False
        heap_of[g] = k
        return True

    def from_text(self, text: str) -> int:
        """Read a tree written by ``to_text`` into this store; its id (MisereTreeError if bad)."""
        items: list[int] = []
        for part in text.strip().split(";"):
            g, end = self._parse_item(part, 0, items, text)
            if end != len(part):
                raise MisereTreeError(
                    f"misère tree text: unexpected {part[end : end + 10]!r} in {text[:60]!r}"
                )
            items.append(g)
        return items[-1]

    def _parse_item(self, s: str, i: int, items: list[int], text: str) -> tuple[int, int]:
        if i >= len(s):
            raise MisereTreeError(f"misère tree text ends too early: {text[:60]!r}")
        c = s[i]
        if c in "*#":
            j = i + 1
            while j < len(s) and s[j].isdigit():
                j += 1
            if j == i + 1:
                raise MisereTreeError(f"misère tree text: '{c}' without a number in {text[:60]!r}")
            n = int(s[i + 1 : j])
            if c == "*":
                return self.heap(n), j
            if n >= len(items):
                raise MisereTreeError(f"misère tree text: #{n} used before it is defined in {text[:60]!r}")
            return items[n], j
        if c != "{":
            raise MisereTreeError(f"misère tree text: unexpected {c!r} in {text[:60]!r}")
        i += 1
        opts: list[int] = []
        if i < len(s) and s[i] == "}":
            return self.make(opts), i + 1
        while True:
            g, i = self._parse_item(s, i, items, text)
            opts.append(g)
            if i < len(s) and s[i] == ",":
                i += 1
            elif i < len(s) and s[i] == "}":
                return self.make(opts), i + 1
            else:
                raise MisereTreeError(f"misère tree text: expected ',' or '}}' in {text[:60]!r}")


class TreeStore(TreeText):
    """Misère canonical trees with integer ids; sums and misère outcomes of sums.

    ``make(options)`` returns the id of the simplest form of the game whose options
    have the given ids.  Id 0 is the empty game; nim heaps are built on demand and
    recognised wherever they arise.
    """

    def __init__(self) -> None:
        self._opts: list[frozenset[int]] = []
        self._win: list[bool] = []
        self._birthday: list[int] = []
        self._index: dict[frozenset[int], int] = {}
        self._raw: dict[frozenset[int], int] = {}
        self._heap_of: dict[int, int] = {}
        self._heaps: list[int] = []
        self._sums: dict[tuple[int, int], int] = {}
        self._outcomes: dict[tuple[tuple[int, ...], tuple[int, ...]], bool] = {}
        self._sizes: dict[int, int] = {}
        self._digests: dict[int, bytes] = {}
        self._new(frozenset())
        self._heap_of[ZERO] = 0
        self._heaps.append(ZERO)

    # ------------------------------------------------------------- reading off
    def __len__(self) -> int:
        """The number of distinct games (simplest forms) in the store."""
        return len(self._opts)

    def options(self, g: int) -> frozenset[int]:
        """The ids of the options of ``g`` (its simplest form)."""
        return self._opts[g]

    def win(self, g: int) -> bool:
        """True when the player to move in ``g`` alone wins in misère play."""
        return self._win[g]

    def birthday(self, g: int) -> int:
        """The length of the longest play of ``g``'s simplest form."""
        return self._birthday[g]

    def heap_size(self, g: int) -> int | None:
        """``k`` when ``g`` is the nim heap ``*k``, else None."""
        return self._heap_of.get(g)

    def size(self, g: int) -> int:
        """The number of distinct games in ``g``'s tree (itself included): its DAG's nodes."""
        hit = self._sizes.get(g)
        if hit is None:
            seen = {g}
            stack = [g]
            while stack:
                for o in self._opts[stack.pop()]:
                    if o not in seen:
                        seen.add(o)
                        stack.append(o)
            hit = self._sizes[g] = len(seen)
        return hit

    # ---------------------------------------------------------------- building
    def _new(self, opts: frozenset[int]) -> int:
        g = len(self._opts)
        self._opts.append(opts)
        self._win.append(not opts or any(not self._win[o] for o in opts))
        self._birthday.append(1 + max(self._birthday[o] for o in opts) if opts else 0)
        self._index[opts] = g
        return g

    def heap(self, k: int) -> int:
        """The id of the nim heap ``*k`` (in simplest form by Alfeld §5.7)."""
        if k < 0:
            raise ValueError("a nim heap cannot be negative")
        while len(self._heaps) <= k:
            opts = frozenset(self._heaps)
            g = self._index.get(opts)
            if g is None:
                g = self._new(opts)
            self._heap_of[g] = len(self._heaps)
            self._heaps.append(g)
        return self._heaps[k]

    def reversible_through(self, x: int, rest: frozenset[int]) -> int | None:
        """An option ``y`` of ``x`` equal to the game ``{rest}``, or None (the local test).

        ``y = {rest}`` iff same outcome, ``options(y) ⊆ rest``, and every ``t`` in
        ``rest`` is an option of ``y`` or has ``y`` as an option (module docstring).
        """
        opts = self._opts
        win = self._win
        rest_win = not rest or any(not win[t] for t in rest)
        for y in opts[x]:
            if win[y] != rest_win:
                continue
            oy = opts[y]
            if len(oy) > len(rest) or not oy <= rest:
                continue
            if all(t in oy or y in opts[t] for t in rest):
                return y
        return None

    def simplify(self, options: Iterable[int]) -> frozenset[int]:
        """The option set of the simplest form of ``{options}`` (reversible options removed).

        Each removal keeps the game equal (Grundy–Smith rule with the proviso);
        when none is left the form is the simplest (Conway).
        """
        s = set(options)
        changed = True
        while changed:
            changed = False
            for x in sorted(s, key=self._birthday.__getitem__, reverse=True):
                rest = frozenset(s - {x})
                if self.reversible_through(x, rest) is None:
                    continue
                if not rest and self._win[x]:
                    continue  # the proviso: {x} is a loss and {} a win
                s.remove(x)
                changed = True
                break
        return frozenset(s)

    def make(self, options: Iterable[int]) -> int:
        """The id of the game whose options are these ids, in simplest form."""
        raw = frozenset(options)
        hit = self._raw.get(raw)
        if hit is not None:
            return hit
        hit = self._index.get(raw)
        if hit is None:
            simple = self.simplify(raw)
            hit = self._index.get(simple)
            if hit is None:
                hit = self._new(simple)
                self._note_heap(hit)
        self._raw[raw] = hit
        return hit

    def _note_heap(self, g: int) -> None:
        """Recognise a new game that is a nim heap ``{*0, …, *(k-1)}``."""
        opts = self._opts[g]
        sizes = {self._heap_of.get(o, -1) for o in opts}
        if -1 not in sizes and sizes == set(range(len(opts))):
            k = len(opts)
            self.heap(k - 1)
            if len(self._heaps) == k:
                self._heaps.append(g)
                self._heap_of[g] = k

    # ----------------------------------------------------------------- memory
    def forget(self) -> None:
        """Empty the caches of sums and of outcomes of sums (they can be made again)."""
        self._sums.clear()
        self._outcomes.clear()
        self._sizes.clear()

    def cached(self) -> int:
        """How many entries the caches hold (what ``forget`` frees)."""
        return len(self._sums) + len(self._outcomes) + len(self._sizes)

    # ------------------------------------------------------------------- sums
    def add(self, a: int, b: int) -> int:
        """The simplest form of ``a + b`` (options ``a' + b`` and ``a + b'``)."""
        if a == ZERO:
            return b
        if b == ZERO:
            return a
        if a > b:
            a, b = b, a
        key = (a, b)
        hit = self._sums.get(key)
        if hit is not None:
            return hit
        ha, hb = self._heap_of.get(a), self._heap_of.get(b)
        if ha is not None and hb is not None and min(ha, hb) <= 1:
            hit = self.heap(ha ^ hb)
        else:
            opts = {self.add(x, b) for x in self._opts[a]}
            opts.update(self.add(a, y) for y in self._opts[b])
            hit = self.make(opts)
        self._sums[key] = hit
        return hit

    def add_all(self, games: Iterable[int]) -> int:
        """The simplest form of a sum of several games."""
        return reduce(self.add, games, ZERO)

    def outcome(self, games: Sequence[int], heaps: Iterable[int] = ()) -> bool:
        """Does the player to move win the sum of these trees and nim heaps (misère play)?

        A memoised search over the sum's positions (never its tree), with the nim
        shortcuts: trees that are heaps join the heaps, heaps are merged by
        ``*1 + *n = *(n xor 1)``, and a sum of heaps alone is settled by the misère
        nim rule.
        """
        trees: list[int] = []
        hs = list(heaps)
        for g in games:
            k = self._heap_of.get(g)
            if k is None:
                trees.append(g)
            elif k:
                hs.append(k)
        return self._outcome(tuple(sorted(trees)), normal_heaps(hs))

    def _outcome(self, trees: tuple[int, ...], heaps: tuple[int, ...]) -> bool:
        if not trees:
            return misere_nim_win(heaps)
        if len(trees) == 1 and not heaps:
            return self._win[trees[0]]
        key = (trees, heaps)
        hit = self._outcomes.get(key)
        if hit is not None:
            return hit
        result = self._search_sum(trees, heaps)
        self._outcomes[key] = result
        return result

    def _search_sum(self, trees: tuple[int, ...], heaps: tuple[int, ...]) -> bool:
        """Win iff some move (in a tree or a heap) leaves a sum that is a loss."""
        heap_of = self._heap_of
        for i, g in enumerate(trees):
            if i and trees[i - 1] == g:
                continue
            others = trees[:i] + trees[i + 1 :]
            # Losing options first: they settle the question at once more often.
            for o in sorted(self._opts[g], key=self._win.__getitem__):
                k = heap_of.get(o)
                if k is None:
                    child = self._outcome(tuple(sorted((*others, o))), heaps)
                else:
                    child = self._outcome(others, normal_heaps((*heaps, k)))
                if not child:
                    return True
        for i, h in enumerate(heaps):
            if i and heaps[i - 1] == h:
                continue
            rest = heaps[:i] + heaps[i + 1 :]
            for k in range(h):
                if not self._outcome(trees, normal_heaps((*rest, k))):
                    return True
        return False
