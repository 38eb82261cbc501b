"""Moves in words, and numbered positions in text (``docs/notation.md``, "Numbered spots").

Positions that come from a game keep their spots' numbers (1-based for people), so a
move can be named the way players name it: its two end spots and what it encloses,

    ``3 → 5``                   a line joining spots 3 and 5
    ``3 → 3 enclosing 4, 6-7``  a loop at 3 whose inside holds the boundaries through 4, 6 and 7

A line that joins two boundaries encloses nothing.  A loop encloses what goes inside
it (side A of ``moves.py``).  A line between two spots of one boundary closes a curve
too, and on the sphere neither of its two sides is "the inside": the words list the
spots of one side (the stretch of the boundary it cuts off, and the other boundaries
that go with it), whichever is shorter to write.  A person may name either side, and
may name a boundary by any of its spots.  Where the words still fit moves with
different results (a spot with two corners in the region, say) the resulting
position disambiguates them: ``3 → 5 giving 0.1a1a``.

Words that fit several moves giving one position up to the names of its spots (the
line leaving a spot from one corner or from another, with the same spots on each
side) name the one whose result, spot numbers kept, has the least ``live_key``: the
same move whatever order the position is read in (a game's, its replay's, a
picture's), so that a list of words replays to the very position, spot numbers and
all.  Another of them is named by its numbered result:
``3 → 5 giving [1 6 2 6] [3] | [1 6 2 6]``.

A numbered position is written as its regions separated by `` | ``, each a list of
boundaries in brackets holding the 1-based spots met going once round:
``[1 6 2 6] [3] | [1 6 2 6]``.  Its key (``numbered_key``) is equal for two numbered
positions exactly when they are the same up to rotating boundaries, reordering
boundaries and regions, and mirroring, with the spot numbers kept.

Pure functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import IllegalMoveError, NotationError
from .data import Boundary, Region
from .moves import Move, apply_move, families, live_others, representative_moves
from .position import Position

ARROW = "→"

# ------------------------------------------------------------------ spot lists


def spot_list(spots: Iterable[int]) -> str:
    """0-based spots as people read them: 1-based, sorted, runs written ``6-7``."""
    nums = sorted({s + 1 for s in spots})
    out: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


_ITEM = re.compile(r"^(\d+)(?:\s*[-–]\s*(\d+))?$")


def parse_spot_list(text: str) -> set[int]:
    """``4, 6-7`` (commas or spaces) as 0-based spots; NotationError if it is not such a list."""
    spots: set[int] = set()
    text = re.sub(r"\s*[-–]\s*", "-", text.strip())
    for item in re.split(r"[,\s]+", text):
        if not item:
            continue
        m = _ITEM.match(item)
        if not m:
            raise NotationError(f"{item!r} is not a spot number or a range like 6-7")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if a < 1 or b < a:
            raise NotationError(f"{item!r} is not a spot number or a range like 6-7")
        spots.update(range(a - 1, b))
    return spots


# ------------------------------------------------------------------ numbered positions


def numbered_text(p: Position) -> str:
    """The regions of ``p`` with their boundaries as 1-based spot lists: ``[1 6 2 6] [3] | …``."""
    return " | ".join(" ".join("[" + " ".join(str(s + 1) for s in b) + "]" for b in r) for r in p.regions)


def parse_numbered(text: str, lives: Sequence[int]) -> Position:
    """Read :func:`numbered_text` back, with the lives of every spot (0-based order)."""
    regions: list[Region] = []
    for rtext in text.split("|"):
        rtext = rtext.strip()
        if not rtext:
            regions.append(())
            continue
        if not re.fullmatch(r"(\[[\d\s]*\]\s*)+", rtext):
            raise NotationError(f"a region is written as boundaries in brackets, not {rtext!r}")
        bounds: list[Boundary] = []
        for b in re.findall(r"\[([\d\s]*)\]", rtext):
            bounds.append(tuple(int(s) - 1 for s in b.split()))
        regions.append(tuple(bounds))
    for r in regions:
        for b in r:
            for s in b:
                if not 0 <= s < len(lives):
                    raise NotationError(f"spot {s + 1} has no lives given (there are {len(lives)} spots)")
    try:
        return Position(regions, lives)
    except ValueError as e:
        raise NotationError(str(e)) from None


def lives_text(p: Position) -> str:
    """Every spot's lives as one digit each, in spot order: ``3322…``."""
    return "".join(str(v) for v in p.lives)


def parse_lives(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"[0-3]*", text.strip()):
        raise NotationError(f"lives are written as digits 0 to 3, one per spot, not {text.strip()!r}")
    return tuple(int(c) for c in text.strip())


def _least_rotation(b: tuple[int, ...]) -> tuple[int, ...]:
    return min((b[i:] + b[:i] for i in range(len(b))), default=())


#: The regions of a numbered position in a standard order (``numbered_key``).
SortedRegions = tuple[tuple[Boundary, ...], ...]


def numbered_key(p: Position, mirror: bool = True) -> tuple[SortedRegions, tuple[int, ...], tuple[int, ...]]:
    """Equal exactly for the same numbered position up to rotation, reordering and (if asked) mirroring."""

    def key(regions: Iterable[Iterable[tuple[int, ...]]]) -> SortedRegions:
        return tuple(sorted(tuple(sorted(_least_rotation(tuple(b)) for b in r)) for r in regions))

    forward = key(p.regions)
    if not mirror:
        return (forward, p.lives, p.heaps)
    return (min(forward, key((b[::-1] for b in r) for r in p.regions)), p.lives, p.heaps)


def live_key(p: Position) -> tuple[SortedRegions, tuple[int, ...]]:
    """``numbered_key`` of the position without its dead boundaries: the same position for play.

    A boundary all of whose spots are dead takes no part in any move, and the engine
    puts it on either side of a move that splits its region; a drawing may put it
    on the other.  The two readings are the same position, spots and all.
    """
    lives = p.lives
    regions = [[b for b in r if any(lives[s] for s in b)] for r in p.regions]
    key = numbered_key(Position.trusted(tuple(tuple(r) for r in regions if r), lives))
    return key[0], key[1]


# ------------------------------------------------------------------ the shape of a move


@dataclass(frozen=True)
class Side:
    """One side of a closed line: the boundaries that go with it and the stretch it cuts off."""

    boundaries: frozenset[int]  # indices within the region (live boundaries only)
    stretch: frozenset[int]  # spots of the cut boundary on this side, the ends left out
    spots: frozenset[int]  # everything a person would list: the stretch and the boundaries' spots


@dataclass(frozen=True)
class Shape:
    """What the words of a move say: its ends, its kind, its two sides."""

    x: int
    y: int
    kind: str  # "join", "loop" or "split"
    side_a: Side | None
    side_b: Side | None


def move_shape(p: Position, m: Move) -> Shape:
    """The ends and sides of ``m`` (spots 0-based)."""
    region = p.regions[m.region]
    b1 = region[m.boundary]
    x = b1[m.corner]
    y = region[m.boundary2][m.corner2]
    if m.joins_boundaries:
        return Shape(x, y, "join", None, None)
    ends = {x, y}
    others = live_others(p, m.region, m.boundary)
    inside = frozenset(k for k in others if k in m.inside)
    outside = frozenset(k for k in others if k not in m.inside)
    if m.is_loop:
        stretch_a: frozenset[int] = frozenset()
        stretch_b = frozenset(s for s in b1 if s not in ends)
        kind = "loop"
    else:
        rot = b1[m.corner :] + b1[: m.corner]
        offset = (m.corner2 - m.corner) % len(b1)
        stretch_a = frozenset(s for s in rot[1:offset] if s not in ends)
        stretch_b = frozenset(s for s in rot[offset + 1 :] if s not in ends)
        kind = "split"

    def side(bounds: frozenset[int], stretch: frozenset[int]) -> Side:
        spots = set(stretch)
        for k in bounds:
            spots.update(region[k])
        return Side(bounds, stretch, frozenset(spots - ends))

    return Shape(x, y, kind, side(inside, stretch_a), side(outside, stretch_b))


def base_words(shape: Shape) -> str:
    """The words of a move before any disambiguation."""
    a, b = (shape.x, shape.y) if shape.kind == "loop" else sorted((shape.x, shape.y))
    words = f"{a + 1} {ARROW} {b + 1}"
    if shape.kind == "join":
        return words
    assert shape.side_a is not None and shape.side_b is not None
    if shape.kind == "loop":
        listed = shape.side_a.spots
    else:
        listed = min((shape.side_a.spots, shape.side_b.spots), key=lambda s: (len(s), sorted(s)))
    return f"{words} enclosing {spot_list(listed)}" if listed else words


# ------------------------------------------------------------------ reading words


@dataclass(frozen=True)
class MoveWords:
    """A move as a person wrote it (spots 0-based)."""

    a: int
    b: int
    enclosing: frozenset[int]
    giving: str | None  # a position string, or None


_WORDS = re.compile(
    r"^\s*(\d+)\s*(?:→|->|–>|=>|-|–|to)\s*(\d+)\s*"
    r"(?:(?:enclosing|encloses|enclose|enc|around|inside)\b\s*(.*?))?\s*"
    r"(?:(?:giving|gives|=)\s*(\S.*?))?\s*$",
    re.IGNORECASE,
)


def parse_words(text: str) -> MoveWords:
    """Read ``3 → 3 enclosing 4, 6-7`` (``->`` for the arrow is fine); NotationError if unreadable."""
    m = _WORDS.match(text)
    if not m:
        raise NotationError(
            f"cannot read {text.strip()!r} as a move: write it as '3 → 5' or '3 → 3 enclosing 4, 6-7'"
        )
    a, b = int(m.group(1)), int(m.group(2))
    if a < 1 or b < 1:
        raise NotationError("spots are numbered from 1")
    enclosing = frozenset(parse_spot_list(m.group(3))) if m.group(3) else frozenset()
    return MoveWords(a - 1, b - 1, enclosing, m.group(4))


def moves_from_words(p: Position, words: MoveWords) -> list[Move]:
    """Every move of ``p`` that the words fit (either side named, boundaries by any spot).

    Raises IllegalMoveError saying why when none does.
    """
    a, b = words.a, words.b
    n = len(p.lives)
    for s in (a, b, *words.enclosing):
        if s >= n:
            raise IllegalMoveError(f"there is no spot {s + 1} (the spots are 1 to {n})")
    for s in (a, b):
        if p.lives[s] == 0:
            raise IllegalMoveError(f"spot {s + 1} has no life left")
    if a == b and p.lives[a] < 2:
        raise IllegalMoveError(f"a loop at spot {a + 1} needs two lives; it has {p.lives[a]}")
    found: list[tuple[Move, bool]] = []
    shared_region = False
    for ri, bi, ci, bj, cj in families(p):
        region = p.regions[ri]
        ends = (region[bi][ci], region[bj][cj])
        if sorted(ends) != sorted((a, b)):
            continue
        shared_region = True
        if bi != bj:
            if not (words.enclosing - {a, b}):
                found.append((Move(ri, bi, ci, bj, cj), True))
            continue
        found.extend(_enclosures(p, ri, bi, ci, cj, words.enclosing - {a, b}))
    if not shared_region:
        raise IllegalMoveError(f"spots {a + 1} and {b + 1} do not lie on one region")
    if not found:
        raise IllegalMoveError(f"no move {a + 1} {ARROW} {b + 1} encloses {spot_list(words.enclosing)}")
    exact = [m for m, is_exact in found if is_exact]
    moves = exact or [m for m, _ in found]
    if words.giving is not None and words.giving.lstrip().startswith("["):
        given = _numbered_result(p, moves[0], words.giving)
        moves = [m for m in moves if live_key(apply_move(p, m, check=False)) == given]
        if not moves:
            raise IllegalMoveError(f"no such move gives {words.giving.strip()}")
    elif words.giving is not None:
        want = Position.from_string(words.giving).canonical()
        moves = [m for m in moves if apply_move(p, m, check=False).canonical() == want]
        if not moves:
            raise IllegalMoveError(f"no such move gives {want}")
    return moves


def _numbered_result(p: Position, m: Move, text: str) -> tuple[SortedRegions, tuple[int, ...]]:
    """``live_key`` of the numbered position ``text`` as the result of a move with ``m``'s ends.

    Every move with the same ends leaves the spots the same lives, so they are ``m``'s child's.
    """
    try:
        return live_key(parse_numbered(text, apply_move(p, m, check=False).lives))
    except NotationError as e:
        raise IllegalMoveError(f"the position given cannot be read: {e}") from None


def named_fit(p: Position, fits: Sequence[Move]) -> Move:
    """The move that words fitting ``fits`` name: the first whose result has the least ``live_key``.

    The key does not depend on the order ``p`` is read in, so every reading of one
    numbered position names the same move (up to where dead boundaries go).
    """
    return _least([(m, apply_move(p, m, check=False)) for m in fits])[0]


def _least(fits: Sequence[tuple[Move, Position]]) -> tuple[Move, Position]:
    """``named_fit`` of moves given with their results."""
    if len(fits) == 1:
        return fits[0]
    keys = [live_key(child) for _, child in fits]
    return fits[keys.index(min(keys))]


def _short_words(p: Position, m: Move, want: str | None) -> tuple[str, str, list[tuple[Move, Position]]]:
    """The words of ``m`` (its child's canonical form ``want``) without a numbered result, its
    base words, and the moves they fit with their results (each giving ``want``)."""
    base = base_words(move_shape(p, m))
    if want is None:
        want = apply_move(p, m, check=False).canonical()
    fits = [(f, apply_move(p, f, check=False)) for f in moves_from_words(p, parse_words(base))]
    forms = [child.canonical() for _, child in fits]
    if any(form != want for form in forms):
        kept = [fit for fit, form in zip(fits, forms, strict=True) if form == want]
        return f"{base} giving {want}", base, kept
    return base, base, fits


def named_move(p: Position, m: Move) -> Move:
    """The move of ``p`` that the words of ``m`` name without a numbered result: one giving
    the same position as ``m`` up to the names of spots, which a player may play instead."""
    return _least(_short_words(p, m, None)[2])[0]


def move_from_words(p: Position, text: str) -> Move:
    """The move that the words ``text`` name in ``p``.

    Where the words fit several moves that all give the same position (up to the
    symmetries of the exact form), they are the same move for the game, as
    interchangeable boundaries are (Alfeld §5.9); the move is ``named_fit``'s, the same
    for every reading of ``p``.  Where they give
    different positions the words are refused (IllegalMoveError), naming the positions
    ``giving`` can choose from; :func:`move_words` always adds it in that case.
    """
    fits = moves_from_words(p, parse_words(text))
    kids = sorted({apply_move(p, m, check=False).canonical() for m in fits})
    if len(kids) > 1:
        raise IllegalMoveError(
            f"{text.strip()!r} fits moves giving {len(kids)} different positions; "
            f"add 'giving' and one of: {', '.join(kids)}"
        )
    return named_fit(p, fits)


def _enclosures(
    p: Position, ri: int, bi: int, ci: int, cj: int, named: frozenset[int]
) -> list[tuple[Move, bool]]:
    """The one-boundary moves of a family whose side A or side B the named spots describe.

    Each comes with whether the named spots are exactly the side's spots (as the
    program writes them) rather than some of them.
    """
    region = p.regions[ri]
    where: dict[int, int] = {}
    for k, bound in enumerate(region):
        for s in bound:
            where.setdefault(s, k)
    others = set(live_others(p, ri, bi))
    touched: set[int] = set()
    on_cut: set[int] = set()
    for s in named:
        home = where.get(s)
        if home is None:
            return []
        if home == bi:
            on_cut.add(s)
        elif home in others:
            touched.add(home)
    out: dict[Move, bool] = {}
    for inside, named_side in ((frozenset(touched), "a"), (frozenset(others - touched), "b")):
        m = Move(ri, bi, ci, bi, cj, inside)
        shape = move_shape(p, m)
        side = shape.side_a if named_side == "a" else shape.side_b
        assert side is not None
        if on_cut <= side.stretch:
            out[m] = out.get(m, False) or named == side.spots
    return list(out.items())


# ------------------------------------------------------------------ naming moves


def move_words(p: Position, m: Move, child: str | None = None) -> str:
    """The words of ``m``, with ``giving <position>`` added when the words alone fit other results.

    ``move_from_words`` reads them back as ``m`` or a move giving the very same position,
    spot numbers and all: where the words and the position they give name another such
    move (``named_fit``), the numbered position ``m`` gives is added instead.
    """
    words, base, fits = _short_words(p, m, child)
    if len(fits) > 1:
        after = apply_move(p, m, check=False)
        if live_key(_least(fits)[1]) != live_key(after):
            words = f"{base} giving {numbered_text(after)}"
    return words


@dataclass(frozen=True)
class NamedMove:
    """One distinct move of a position: a move, the position it leads to, and its words."""

    move: Move
    child: Position
    canonical: str
    words: str


def distinct_named_moves(p: Position) -> list[NamedMove]:
    """One move per different resulting position, each named in words, in order of their words."""
    seen: dict[str, tuple[Move, Position]] = {}
    for m in representative_moves(p):
        child = apply_move(p, m, check=False)
        seen.setdefault(child.canonical(), (m, child))
    named = []
    for key, (m, _) in seen.items():
        words, _, fits = _short_words(p, m, key)
        move, child = _least(fits)  # the move the words name
        named.append(NamedMove(move, child, key, words))
    named.sort(key=lambda nm: _words_order(nm.words))
    return named


def words_of_children(p: Position) -> dict[str, str]:
    """The words of one move to each distinct child, by the child's exact form (``p``'s own
    spot numbers: a saved game's as drawn, a string's in order of appearance)."""
    return {nm.canonical: nm.words for nm in distinct_named_moves(p)}


def _words_order(words: str) -> tuple[list[int], int, list[int], str]:
    nums = [int(t) for t in re.findall(r"\d+", words.split(" giving ")[0])]
    return (nums[:2], len(nums), nums, words)


def describe_effect(p: Position, m: Move) -> str:
    """What the move does to the regions, for the log: the region (1-based) it joins in or splits.

    The region's number depends on the order regions are listed in; ``same_effect``
    compares two descriptions without it.
    """
    region_lives = p.region_lives(m.region)
    r = m.region + 1
    if m.joins_boundaries:
        return f"joins two boundaries in region {r} ({region_lives} lives)"
    child = apply_move(p, m, check=False)
    a = child.region_lives(m.region)
    b = child.region_lives(len(child.regions) - 1)
    return f"splits region {r} ({region_lives} lives) into {max(a, b)} + {min(a, b)} lives"


def same_effect(a: str, b: str) -> bool:
    """Do two effects say the same, up to how the regions are numbered?"""
    return re.sub(r"region \d+ ", "region ", a) == re.sub(r"region \d+ ", "region ", b)


__all__ = [
    "ARROW",
    "MoveWords",
    "NamedMove",
    "Shape",
    "Side",
    "base_words",
    "describe_effect",
    "distinct_named_moves",
    "live_key",
    "lives_text",
    "move_from_words",
    "move_shape",
    "move_words",
    "moves_from_words",
    "named_fit",
    "named_move",
    "numbered_key",
    "numbered_text",
    "parse_lives",
    "parse_numbered",
    "parse_spot_list",
    "parse_words",
    "same_effect",
    "spot_list",
    "words_of_children",
]
