"""The topological position: regions of boundaries of spot corners (Alfeld §2.4).

A position is what the rules care about and nothing else: a list of regions, each a
list of boundaries, each boundary the cyclic list of the spots met when walking once
round it with the region on the same side.  Spots are small integers; ``lives[s]`` is
the number of lines spot ``s`` can still take (3 for a spot with no line, 0 for a
stump).  Positions made from games keep their spots' numbers (0-based here, shown
1-based to people); positions read from strings number their spots in order of
appearance.

Two positions compare equal when they are the same game position: the same up to
renaming spots, rotating boundaries, reordering boundaries, regions and lands, and
mirroring.  That is, when their exact canonical forms (``canonical.py``) agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..unionfind import UnionFind
from .data import CAPITAL, DEAD, ONE, SMALL, TWO, ZERO, Region

if TYPE_CHECKING:  # pragma: no cover
    from .moves import Move


class Position:
    """An immutable Sprouts position, optionally with nim heaps beside it (``+*k``).

    Made from a position string (``Position("0*3")``, as ``from_string``) or from its
    regions and lives (``Position(regions, lives, heaps)``, checked).  ``str(p)`` writes
    it as it is stored; ``p.canonical()`` is its exact canonical form, by which
    positions compare.  Solving and drawing are outside the engine (``sprouts_cli.api``:
    ``solution``, ``bounds``, ``draw``; in Jupyter a position shows as its picture).
    """

    __slots__ = ("_canonical", "_reduced", "heaps", "lives", "regions")

    regions: tuple[Region, ...]
    lives: tuple[int, ...]
    heaps: tuple[int, ...]
    _canonical: str | None  # computed when first asked for
    _reduced: str | None

    def __init__(
        self,
        regions: str | Iterable[Iterable[Iterable[int]]],
        lives: Sequence[int] | None = None,
        heaps: Iterable[int] = (),
    ) -> None:
        if isinstance(regions, str):
            if lives is not None:
                raise TypeError("a Position is made from a position string alone, or from regions and lives")
            read = self.from_string(regions)
            _init(self, read.regions, read.lives, read.heaps)
            return
        if lives is None:
            raise TypeError("a Position made from regions needs the lives of its spots")
        regs = tuple(tuple(tuple(int(s) for s in b) for b in r) for r in regions)
        lvs = tuple(int(v) for v in lives)
        for v in lvs:
            if not 0 <= v <= 3:
                raise ValueError(f"a spot has {v} lives; lives are 0 to 3")
        for r in regs:
            for b in r:
                for s in b:
                    if not 0 <= s < len(lvs):
                        raise ValueError(f"spot {s} has no lives entry")
        hps = tuple(sorted(int(h) for h in heaps if int(h) != 0))
        if any(h < 0 for h in hps):
            raise ValueError("a nim heap cannot be negative")
        _init(self, regs, lvs, hps)

    @classmethod
    def trusted(
        cls, regions: tuple[Region, ...], lives: tuple[int, ...], heaps: tuple[int, ...] = ()
    ) -> Position:
        """Build from tuples that are already a valid position, without checking them.

        The fast path for code that makes positions from positions (moves, parts, the
        solver reading back its own land strings): every spot on a boundary has an entry
        in ``lives``, lives are 0 to 3, heaps are sorted and non-zero.  Nothing here
        checks that; anything read from a person or a file goes through ``Position(...)``
        or ``Position.from_string`` instead.
        """
        p = object.__new__(cls)
        _init(p, regions, lives, heaps)
        return p

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    # ----------------------------------------------------------------- building
    @classmethod
    def start(cls, spots: int) -> Position:
        """The start of an n-spot game: one region holding n lone spots."""
        if spots < 0:
            raise ValueError("the number of spots cannot be negative")
        return cls.trusted((tuple((s,) for s in range(spots)),) if spots else ((),), (3,) * spots)

    @classmethod
    def from_string(cls, text: str) -> Position:
        """Read a position string in either dialect (``notation.py``); NotationError if it
        is malformed or names a land that cannot be drawn on the plane.

        ``notation.read_spots`` gives the spots their numbers; each land is then checked
        for a drawing (``canonical.nesting_problem``) and its regions turned to agree with
        one (``drawing.orient_land``), so that the position is the drawing the string names.
        """
        from ..errors import NotationError
        from .canonical import nesting_problem
        from .drawing import Undrawable, orient_land
        from .notation import read_spots

        read = read_spots(text)
        position = cls(read.regions, read.lives, read.heaps)
        regions = list(position.regions)
        turned = False
        for lo, hi, column in read.lands:
            sub = cls.trusted(position.regions[lo:hi], position.lives)
            problem = nesting_problem(sub)
            if problem:
                raise NotationError(f"this land cannot be drawn on the plane: {problem}", text, column)
            try:
                agreeing = orient_land(sub.regions, position.lives)
            except Undrawable as e:
                raise NotationError(f"this land {e}", text, column) from None
            if agreeing is not None:
                regions[lo:hi] = agreeing
                turned = True
        if turned:  # the regions turned to agree: the drawing the string names
            return cls.trusted(tuple(regions), position.lives, position.heaps)
        return position

    def with_heaps(self, heaps: Iterable[int]) -> Position:
        """The same position with these nim heaps beside it instead of its own."""
        return self.trusted(self.regions, self.lives, tuple(sorted(h for h in heaps if h)))

    # -------------------------------------------------------------- reading off
    def spots(self) -> list[int]:
        """The spots that appear on some boundary, in order of first appearance."""
        seen: dict[int, None] = {}
        for r in self.regions:
            for b in r:
                for s in b:
                    seen.setdefault(s, None)
        return list(seen)

    @property
    def spot_count(self) -> int:
        return len(self.spots())

    @property
    def total_lives(self) -> int:
        """Lives on the board; each move removes exactly one."""
        return sum(self.lives[s] for s in self.spots())

    def region_lives(self, index: int) -> int:
        """The lives of the distinct spots on a region's boundaries."""
        return sum(self.lives[s] for s in {s for b in self.regions[index] for s in b})

    def live_region_indices(self) -> list[int]:
        """Regions where a move is possible (two lives or more)."""
        return [i for i in range(len(self.regions)) if self.region_lives(i) >= 2]

    def is_over(self) -> bool:
        """True when no move is left, in the sprouts part and in the heaps."""
        return not self.heaps and not self.live_region_indices()

    def occurrences(self) -> dict[int, list[tuple[int, int, int]]]:
        """Where each spot occurs: (region, boundary, corner) triples."""
        occ: dict[int, list[tuple[int, int, int]]] = {}
        for ri, r in enumerate(self.regions):
            for bi, b in enumerate(r):
                for ci, s in enumerate(b):
                    occ.setdefault(s, []).append((ri, bi, ci))
        return occ

    def kind_of(self, spot: int, occ: dict[int, list[tuple[int, int, int]]] | None = None) -> str:
        """How the spot is written: ``0``, ``1``, ``2``, ``3``, small or capital letter."""
        lives = self.lives[spot]
        if lives == 3:
            return ZERO
        if lives == 2:
            return ONE
        if lives == 0:
            return DEAD
        where = (occ if occ is not None else self.occurrences()).get(spot, [])
        if len(where) < 2:
            return TWO
        return SMALL if where[0][0] == where[1][0] else CAPITAL

    # ------------------------------------------------------------------- names
    def canonical(self) -> str:
        """The exact canonical form (a true one: equal exactly for equal positions)."""
        if self._canonical is None:
            from .canonical import canonical_form

            text = canonical_form(self)
            object.__setattr__(self, "_canonical", text)
            return text
        return self._canonical

    def reduced(self) -> str:
        """The reduced form: the canonical form after value-preserving simplifications."""
        if self._reduced is None:
            from .reduce import reduced_form

            text = reduced_form(self)
            object.__setattr__(self, "_reduced", text)
            return text
        return self._reduced

    def notation(self, dialect: str = "glop2") -> str:
        """This position written as it is stored (not canonicalised)."""
        from .notation import format_position

        return format_position(self, dialect=dialect)

    def lands(self) -> list[Position]:
        """The independent parts (``parts.py``), each without heaps."""
        from .parts import split_lands

        return split_lands(self)

    # ------------------------------------------------------------------- moves
    def moves(self) -> Iterator[Move]:
        """Every legal move, each way of sharing out the other boundaries included."""
        from .moves import all_moves

        return all_moves(self)

    def distinct_moves(self) -> list[Move]:
        """One move per different outcome up to interchangeable boundaries (Alfeld §2.5)."""
        from .moves import representative_moves

        return representative_moves(self)

    def play(self, move: Move) -> Position:
        """The position after ``move`` (checked: IllegalMoveError if not legal)."""
        from .moves import apply_move

        return apply_move(self, move)

    def children(self) -> set[str]:
        """The exact canonical forms of all positions one move away (heap moves too)."""
        from .moves import child_forms

        return child_forms(self)

    def child_positions(self) -> list[Position]:
        """The distinct positions one move away, sorted by canonical form."""
        return [type(self).from_string(text) for text in sorted(self.children())]

    # ------------------------------------------------------------------ python
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.canonical() == other.canonical()

    def __hash__(self) -> int:
        return hash(self.canonical())

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Position({self.notation()!r})"

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (type(self).trusted, (self.regions, self.lives, self.heaps))


def _init(p: Position, regions: tuple[Region, ...], lives: tuple[int, ...], heaps: tuple[int, ...]) -> None:
    set_ = object.__setattr__
    set_(p, "regions", regions)
    set_(p, "lives", lives)
    set_(p, "heaps", heaps)
    set_(p, "_canonical", None)
    set_(p, "_reduced", None)


# ------------------------------------------------------------------ Euler's counts


def euler_holds(points: int, regions: int, lines: int, parts: int) -> bool:
    """Euler's relation for a drawing: points + regions = lines + parts.

    ``regions`` are the closed areas bounded by lines (the outside is not one), ``parts``
    the separate pieces of the drawing (a spot with no line is a piece of its own).  For a
    plane drawing this is Euler's formula ``V − E + F = 1 + C`` with ``F`` counting the
    outside.
    """
    return points + regions == lines + parts


@dataclass(frozen=True, slots=True)
class EulerCounts:
    """The four numbers of Euler's relation for one drawing."""

    points: int
    regions: int
    lines: int
    parts: int

    @property
    def holds(self) -> bool:
        return euler_holds(self.points, self.regions, self.lines, self.parts)


def euler_counts(p: Position) -> EulerCounts:
    """Euler's counts of a game position that keeps all its spots and regions.

    Points are the spots, lines the curves between spots (each move adds two, as its new
    spot cuts it in two), regions the faces less the outside one, parts the pieces of the
    drawing (spots on one boundary are in one piece).
    """
    spots = p.spots()
    lines = sum(3 - p.lives[s] for s in spots)
    if lines % 2:
        raise ValueError("the lines at the spots do not pair up: the position does not keep every spot")
    index = {s: i for i, s in enumerate(spots)}
    sets = UnionFind(len(spots))
    for r in p.regions:
        for b in r:
            for s in b[1:]:
                sets.union(index[b[0]], index[s])
    parts = sets.count()
    return EulerCounts(points=len(spots), regions=max(len(p.regions) - 1, 0), lines=lines // 2, parts=parts)
