"""Position strings: the notation of GLOP and SPOTS (``docs/notation.md``).

Two dialects are read.  The SPOTS / GLOP 2 dialect puts separators between items::

    boundary := vertex+          region := boundary ("." boundary)*
    land     := region ("|" region)*
    position := land ("+" land)* ("+" "*" k)*      "0*k" is k boundaries "0"

The older GLOP 1 dialect ends every boundary with ``.``, every region with ``}``,
every land with ``]`` and the position with ``!`` (optionally followed by a nim heap
``k``).  Input holding ``}`` or ``]`` is read in that dialect; anything that belongs
to neither is an error naming its column, never a silent misreading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..errors import NotationError
from .data import CAPITAL, DEAD, ONE, SMALL, TWO, ZERO

if TYPE_CHECKING:  # pragma: no cover
    from .position import Position

SMALL_LETTERS = "abcdefghijkl"  # then m(13), m(14), ...
CAPITAL_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"  # then n(26), n(27), ...
DIALECTS = ("glop2", "glop1")

LIVES_OF = {"0": 3, "1": 2, "2": 1, "3": 0}

#: The reader refuses longer strings and more spots before building anything (``0*99999999``
#: would otherwise grow past 4 GB); each command has its own, lower limits (``limits.py``).
MAX_TEXT = 100_000
MAX_SPOTS = 20_000
#: Digits in one number (a heap, a count, a letter number): more is never a real position.
MAX_DIGITS = 9


# ------------------------------------------------------------------ writing
def small_letter(index: int) -> str:
    """The name of the ``index``-th small letter of a region (1-based)."""
    return SMALL_LETTERS[index - 1] if index <= len(SMALL_LETTERS) else f"m({index})"


def capital_letter(index: int) -> str:
    """The name of the ``index``-th capital letter of a land (1-based)."""
    return CAPITAL_LETTERS[index - 1] if index <= len(CAPITAL_LETTERS) else f"n({index})"


WrittenLand = list[list[list[str]]]  # regions of boundaries of vertex tokens


def join_written(lands: list[WrittenLand], heaps: tuple[int, ...], dialect: str = "glop2") -> str:
    """Join lands already spelled token by token into one position string."""
    if dialect == "glop2":
        parts = [_join_land_glop2(land) for land in lands]
        parts += [f"*{h}" for h in heaps]
        return "+".join(parts) if parts else "!"
    if dialect == "glop1":
        if len(heaps) > 1:
            raise ValueError("the GLOP 1 dialect can write only one nim heap")
        body = "".join(
            "".join("".join("".join(b) + "." for b in region) + "}" for region in land) + "]"
            for land in lands
        )
        return body + "!" + (str(heaps[0]) if heaps else "")
    raise ValueError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}")


def _join_land_glop2(land: WrittenLand) -> str:
    regions = []
    for region in land:
        items: list[str] = []
        zeros = 0
        for b in region:
            if b == ["0"]:
                zeros += 1
                continue
            if zeros:
                items.append(_zeros(zeros))
                zeros = 0
            items.append("".join(b))
        if zeros:
            items.append(_zeros(zeros))
        regions.append(".".join(items))
    return "|".join(regions)


def _zeros(k: int) -> str:
    return "0" if k == 1 else f"0*{k}"


def format_position(p: Position, dialect: str = "glop2") -> str:
    """Write a position as it is stored: its own order of regions, boundaries, corners.

    Regions are grouped into lands; letters are named in order of first appearance
    (capitals per land; small letters distinct across a region, which reads back
    the same although the reader takes small letters as local to their boundary).
    """
    from .parts import land_groups

    occ = p.occurrences()
    kinds = {s: p.kind_of(s, occ) for s in occ}
    lands: list[WrittenLand] = []
    for group in land_groups(p, keep_dead=True):
        capitals: dict[int, str] = {}
        land: WrittenLand = []
        for ri in group:
            smalls: dict[int, str] = {}
            region = []
            for b in p.regions[ri]:
                written = []
                for s in b:
                    kind = kinds[s]
                    if kind == SMALL:
                        written.append(smalls.setdefault(s, small_letter(len(smalls) + 1)))
                    elif kind == CAPITAL:
                        written.append(capitals.setdefault(s, capital_letter(len(capitals) + 1)))
                    else:
                        written.append(kind)
                region.append(written)
            land.append(region)
        lands.append(land)
    return join_written(lands, p.heaps, dialect)


# ------------------------------------------------------------------ reading
@dataclass
class _Vertex:
    kind: str  # "0" "1" "2" "3" "small" "capital"
    letter: int  # letter index for small/capital, else 0
    column: int
    text: str


@dataclass
class _Parsed:
    lands: list[list[list[list[_Vertex]]]] = field(default_factory=list)
    land_columns: list[int] = field(default_factory=list)
    heaps: list[int] = field(default_factory=list)


class _Reader:
    """A cursor over the non-blank characters, remembering their original columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.chars = [(c, i + 1) for i, c in enumerate(text) if not c.isspace()]
        self.i = 0
        self.spots = 0

    def count_spots(self, k: int, column: int) -> None:
        """Count ``k`` more spots, refusing a string with more than ``MAX_SPOTS``."""
        self.spots += k
        if self.spots > MAX_SPOTS:
            raise self.fail(
                f"more than {MAX_SPOTS:,} spot corners; a position string may have at most that", column
            )

    def peek(self) -> str:
        return self.chars[self.i][0] if self.i < len(self.chars) else ""

    def column(self) -> int:
        if self.i < len(self.chars):
            return self.chars[self.i][1]
        return len(self.text) + 1

    def take(self) -> str:
        c = self.peek()
        self.i += 1
        return c

    def at_end(self) -> bool:
        return self.i >= len(self.chars)

    def fail(self, message: str, column: int | None = None) -> NotationError:
        return NotationError(message, self.text, column if column is not None else self.column())

    def number(self, what: str) -> int:
        start = self.column()
        digits = ""
        while self.peek().isdigit():
            digits += self.take()
        if not digits:
            found = f"'{self.peek()}'" if self.peek() else "the end"
            raise self.fail(f"expected {what} (digits), found {found}", start)
        if len(digits) > MAX_DIGITS:
            raise self.fail(f"a number of {len(digits):,} digits; numbers have at most {MAX_DIGITS}", start)
        return int(digits)

    def vertex(self) -> _Vertex | None:
        """Read one vertex token, or return None if the next character is not one."""
        v = self._vertex()
        if v is not None:
            self.count_spots(1, v.column)
        return v

    def _vertex(self) -> _Vertex | None:
        c = self.peek()
        col = self.column()
        if not c:
            return None
        if c in "0123":
            self.take()
            return _Vertex(c, 0, col, c)
        if c in ("m", "n"):
            self.take()
            if self.peek() != "(":
                raise self.fail(f"'{c}' must be followed by '(' and a number, as in {c}(13)", col)
            self.take()
            if not self.peek().isdigit():
                raise self.fail(f"unbalanced '{c}(': expected a number and ')'", col)
            k = self.number("a letter number")
            if self.peek() != ")":
                raise self.fail(f"unbalanced '{c}(': expected ')' to close it", col)
            self.take()
            if k < 1:
                raise self.fail(f"letter numbers start at 1, not {k}", col)
            if k > MAX_SPOTS:
                raise self.fail(f"letter number {k:,}; a position has at most {MAX_SPOTS:,} spots", col)
            return _Vertex(SMALL if c == "m" else CAPITAL, k, col, f"{c}({k})")
        if c in SMALL_LETTERS:
            self.take()
            return _Vertex(SMALL, SMALL_LETTERS.index(c) + 1, col, c)
        if c in CAPITAL_LETTERS:
            self.take()
            return _Vertex(CAPITAL, CAPITAL_LETTERS.index(c) + 1, col, c)
        return None

    def unknown(self, expected: str) -> NotationError:
        c = self.peek()
        if not c:
            return self.fail(f"unexpected end of the string; expected {expected}")
        if c in SMALL_LETTERS + CAPITAL_LETTERS + "0123mn.|+*!}]":
            return self.fail(f"unexpected '{c}'; expected {expected}")
        return self.fail(f"unknown character '{c}'; expected {expected}")


class Spots(NamedTuple):
    """A position string read and its spots numbered, before the position is made of it
    (``Position.from_string``): the regions, the lives, the heaps, and each land's regions
    as ``(first, end, column)``, the column where the land starts in the text."""

    regions: list[tuple[tuple[int, ...], ...]]
    lives: list[int]
    heaps: list[int]
    lands: list[tuple[int, int, int]]


def read_spots(text: str) -> Spots:
    """Read a position string in either dialect; NotationError says what and where."""
    if len(text) > MAX_TEXT:
        raise NotationError(
            f"{len(text):,} characters; a position string may have at most {MAX_TEXT:,}", "", MAX_TEXT + 1
        )
    reader = _Reader(text)
    if reader.at_end():
        raise NotationError("empty position string (the position with no move is '!')", text, 1)
    glop1 = any(c in "}]" for c, _ in reader.chars)
    parsed = _parse_glop1(reader) if glop1 else _parse_glop2(reader)
    return _build(parsed, text)


def _parse_glop2(r: _Reader) -> _Parsed:
    out = _Parsed()
    if r.peek() == "!":
        r.take()
        if not r.at_end():
            raise r.unknown("nothing after '!'")
        return out
    while True:
        if r.peek() == "*":
            r.take()
            out.heaps.append(r.number("the size of a nim heap after '*'"))
        else:
            out.land_columns.append(r.column())
            out.lands.append(_parse_land2(r))
        if r.peek() == "+":
            r.take()
            continue
        break
    if r.peek() == "!":
        r.take()
    if not r.at_end():
        raise r.unknown("'.', '|', '+', a spot, or the end")
    return out


def _parse_land2(r: _Reader) -> list[list[list[_Vertex]]]:
    regions = [_parse_region2(r)]
    while r.peek() == "|":
        r.take()
        regions.append(_parse_region2(r))
    return regions


def _parse_region2(r: _Reader) -> list[list[_Vertex]]:
    if r.peek() in ("|", "+", "!", ""):
        raise r.fail("empty region: expected a spot (0, 1, 2, 3 or a letter)")
    boundaries = _parse_boundary2(r)
    while r.peek() == ".":
        r.take()
        boundaries += _parse_boundary2(r)
    return boundaries


def _parse_boundary2(r: _Reader) -> list[list[_Vertex]]:
    """One boundary, or several when it is the abbreviation ``0*k``."""
    start = r.column()
    first = r.vertex()
    if first is None:
        if r.peek() in (".", "|", "+", "!", ""):
            raise r.fail("empty boundary: expected a spot (0, 1, 2, 3 or a letter)")
        raise r.unknown("a spot (0, 1, 2, 3 or a letter)")
    if first.kind == ZERO and r.peek() == "*":
        r.take()
        k = r.number("how many boundaries '0' (0*k)")
        if k < 1:
            raise r.fail("'0*k' needs k of at least 1", start)
        r.count_spots(k - 1, start)
        if r.vertex() is not None:
            raise r.fail("'0*k' stands for k whole boundaries '0'; end it with '.', '|' or '+'", start)
        return [[_Vertex(ZERO, 0, start, "0")] for _ in range(k)]
    vertices = [first]
    while True:
        v = r.vertex()
        if v is None:
            break
        vertices.append(v)
    _check_zero_alone(r, vertices)
    if r.peek() == "*":
        raise r.fail("'*' follows '0' in '0*k' or '+' in '+*k' only")
    return [vertices]


def _check_zero_alone(r: _Reader, vertices: list[_Vertex]) -> None:
    if len(vertices) > 1:
        for v in vertices:
            if v.kind == ZERO:
                raise r.fail(
                    "a '0' (a spot with no line) is a boundary of its own; "
                    "it cannot be inside a longer boundary",
                    v.column,
                )


def _parse_glop1(r: _Reader) -> _Parsed:
    out = _Parsed()
    land: list[list[list[_Vertex]]] = []
    region: list[list[_Vertex]] = []
    boundary: list[_Vertex] = []
    land_col = r.column()
    while not r.at_end():
        c = r.peek()
        col = r.column()
        v = r.vertex()
        if v is not None:
            if not land and not region and not boundary:
                land_col = col
            boundary.append(v)
            continue
        r.take()
        if c == ".":
            if not boundary:
                raise r.fail("empty boundary: '.' ends a boundary, and this one has no spot", col)
            _check_zero_alone(r, boundary)
            region.append(boundary)
            boundary = []
        elif c == "}":
            if boundary:
                raise r.fail("in the GLOP 1 dialect every boundary ends with '.' before '}'", col)
            if not region:
                raise r.fail("empty region: '}' ends a region, and this one has no boundary", col)
            land.append(region)
            region = []
        elif c == "]":
            if boundary or region:
                raise r.fail("a region is still open: end it with '.}' before ']'", col)
            if not land:
                raise r.fail("empty land: ']' ends a land, and this one has no region", col)
            out.lands.append(land)
            out.land_columns.append(land_col)
            land = []
        elif c == "!":
            if boundary or region:
                raise r.fail("a region is still open: end it with '.}' before '!'", col)
            if land:
                out.lands.append(land)
                out.land_columns.append(land_col)
                land = []
            if not r.at_end():
                out.heaps.append(r.number("a nim heap after '!'"))
            if not r.at_end():
                raise r.unknown("the end after '!'")
            return out
        elif c in "|+*":
            raise r.fail(
                f"'{c}' belongs to the GLOP 2 dialect, but this string uses '}}' and ']' "
                "(GLOP 1); write it in one dialect",
                col,
            )
        else:
            r.i -= 1
            raise r.unknown("a spot, '.', '}', ']' or '!'")
    if boundary or region:
        raise r.fail("the string ends inside a region: end it with '.}' and '!'")
    if land:
        out.lands.append(land)
        out.land_columns.append(land_col)
    return out


def _build(parsed: _Parsed, text: str) -> Spots:
    """Give spots their numbers and check that every letter is used as the notation says."""
    lives: list[int] = []
    regions: list[tuple[tuple[int, ...], ...]] = []
    land_ranges: list[tuple[int, int, int]] = []
    for land, land_col in zip(parsed.lands, parsed.land_columns, strict=True):
        first_region = len(regions)
        capitals: dict[int, list[tuple[int, int, _Vertex]]] = {}
        capital_spot: dict[int, int] = {}
        for region in land:
            ri = len(regions)
            out_region = []
            for bi, boundary in enumerate(region):
                # Small letters are local to their boundary: the same letter on another
                # boundary (of this region or another) is another spot.
                smalls: dict[int, list[_Vertex]] = {}
                small_spot: dict[int, int] = {}
                out_b = []
                for v in boundary:
                    if v.kind == SMALL:
                        smalls.setdefault(v.letter, []).append(v)
                        if v.letter not in small_spot:
                            small_spot[v.letter] = len(lives)
                            lives.append(1)
                        out_b.append(small_spot[v.letter])
                    elif v.kind == CAPITAL:
                        capitals.setdefault(v.letter, []).append((ri, bi, v))
                        if v.letter not in capital_spot:
                            capital_spot[v.letter] = len(lives)
                            lives.append(1)
                        out_b.append(capital_spot[v.letter])
                    else:
                        out_b.append(len(lives))
                        lives.append(LIVES_OF[v.kind])
                for seen in smalls.values():
                    _check_small(seen, text)
                out_region.append(tuple(out_b))
            regions.append(tuple(out_region))
        for seen3 in capitals.values():
            _check_capital(seen3, text)
        land_ranges.append((first_region, len(regions), land_col))
    return Spots(regions, lives, parsed.heaps, land_ranges)


def _check_small(seen: list[_Vertex], text: str) -> None:
    v = seen[0]
    if len(seen) == 1:
        raise NotationError(
            f"small letter '{v.text}' occurs once on its boundary; a one-life spot seen once is "
            "written 2 (small letters are local to their boundary)",
            text,
            v.column,
        )
    if len(seen) > 2:
        raise NotationError(
            f"small letter '{v.text}' occurs {len(seen)} times on one boundary; a small letter "
            "names one spot with both corners on that boundary, so it occurs exactly twice",
            text,
            seen[2].column,
        )


def _check_capital(seen: list[tuple[int, int, _Vertex]], text: str) -> None:
    v = seen[0][2]
    if len(seen) == 1:
        raise NotationError(
            f"capital letter '{v.text}' occurs once in its land; a one-life spot seen once is written 2",
            text,
            v.column,
        )
    if len(seen) > 2:
        raise NotationError(
            f"letter '{v.text}' occurs {len(seen)} times in its land; a letter names one spot "
            "with two corners, so it occurs exactly twice",
            text,
            seen[2][2].column,
        )
    if seen[0][0] == seen[1][0]:
        raise NotationError(
            f"capital letter '{v.text}' occurs twice in one region; a spot with both corners in "
            "one region is written with a small letter",
            text,
            seen[1][2].column,
        )


__all__ = [
    "CAPITAL",
    "DEAD",
    "DIALECTS",
    "ONE",
    "TWO",
    "ZERO",
    "Spots",
    "capital_letter",
    "format_position",
    "join_written",
    "read_spots",
    "small_letter",
]
