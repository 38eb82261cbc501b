"""Dots-and-Boxes boards, positions and moves, in OpenSpiel's line order.

A board ``RxC`` has R rows and C columns of *boxes*, so (R+1)×(C+1) dots and
``(R+1)·C + R·(C+1)`` lines.  Lines are numbered as in OpenSpiel's
``dots_and_boxes``: first the horizontal line (r, c), r = 0..R, c < C, at index
``r·C + c``; then the vertical line (r, c), r < R, c = 0..C, at index
``(R+1)·C + r·(C+1) + c``.  Box (r, c) is number ``r·C + c``.

A position is a board and the set of lines drawn, written ``RxC`` (no line) or
``RxC:LINES`` with one character per line in that order, ``1`` drawn and ``0``
not.  Who drew what and the score are not part of a position: the solver's value
is about the boxes not yet taken.

A move is one line, named by its two dots in the little-golem manner (``a1-b1``:
columns of dots a, b, … from the left, rows 1, 2, … from the top) or by its index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from ..errors import DotsMoveError, DotsNotationError

#: A line set is kept as an int; bit i is line i.  63 bits keep numba's int64 non-negative.
MAX_LINES = 62

_BOARD = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*")


@dataclass(frozen=True)
class Board:
    """R rows and C columns of boxes."""

    rows: int
    cols: int

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise DotsNotationError(f"a board needs at least one row and one column of boxes, not {self}")
        if self.num_lines > MAX_LINES:
            raise DotsNotationError(
                f"the board {self} has {self.num_lines} lines; at most {MAX_LINES} are supported"
            )

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    @classmethod
    def parse(cls, text: str) -> Board:
        m = _BOARD.fullmatch(text)
        if not m:
            raise DotsNotationError(f"{text!r} is not a board like 3x4 (rows x columns of boxes)", text, 1)
        return cls(int(m.group(1)), int(m.group(2)))

    # ------------------------------------------------------------ geometry

    @property
    def num_boxes(self) -> int:
        return self.rows * self.cols

    @property
    def num_horizontal(self) -> int:
        return (self.rows + 1) * self.cols

    @property
    def num_lines(self) -> int:
        return (self.rows + 1) * self.cols + self.rows * (self.cols + 1)

    @property
    def full(self) -> int:
        """The line set with every line drawn."""
        return (1 << self.num_lines) - 1

    def horizontal(self, r: int, c: int) -> int:
        return r * self.cols + c

    def vertical(self, r: int, c: int) -> int:
        return self.num_horizontal + r * (self.cols + 1) + c

    def endpoints(self, line: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The two dots (row, column) a line joins, the upper or left one first."""
        if not 0 <= line < self.num_lines:
            raise DotsMoveError(f"there is no line {line} on a {self} board (lines 0..{self.num_lines - 1})")
        if line < self.num_horizontal:
            r, c = divmod(line, self.cols)
            return (r, c), (r, c + 1)
        r, c = divmod(line - self.num_horizontal, self.cols + 1)
        return (r, c), (r + 1, c)

    @cached_property
    def _line_of_dots(self) -> dict[tuple[tuple[int, int], tuple[int, int]], int]:
        table = {}
        for line in range(self.num_lines):
            a, b = self.endpoints(line)
            table[(a, b)] = table[(b, a)] = line
        return table

    def line_between(self, a: tuple[int, int], b: tuple[int, int]) -> int | None:
        return self._line_of_dots.get((a, b))

    def box_lines(self, box: int) -> tuple[int, int, int, int]:
        """Top, bottom, left and right line of a box."""
        r, c = divmod(box, self.cols)
        return self.horizontal(r, c), self.horizontal(r + 1, c), self.vertical(r, c), self.vertical(r, c + 1)

    @cached_property
    def line_boxes(self) -> tuple[tuple[int, ...], ...]:
        """For each line, the one or two boxes it is a side of."""
        boxes: list[list[int]] = [[] for _ in range(self.num_lines)]
        for b in range(self.num_boxes):
            for line in self.box_lines(b):
                boxes[line].append(b)
        return tuple(tuple(x) for x in boxes)

    @cached_property
    def box_masks(self) -> tuple[int, ...]:
        return tuple(sum(1 << i for i in self.box_lines(b)) for b in range(self.num_boxes))

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as permutations of the lines (identity first): 4, or 8 when square."""
        R, C = self.rows, self.cols
        maps = [
            lambda r, c: (r, c),
            lambda r, c: (R - r, c),
            lambda r, c: (r, C - c),
            lambda r, c: (R - r, C - c),
        ]
        if R == C:
            maps += [
                lambda r, c: (c, r),
                lambda r, c: (C - c, r),
                lambda r, c: (c, R - r),
                lambda r, c: (C - c, R - r),
            ]
        perms = []
        for f in maps:
            perm = []
            for line in range(self.num_lines):
                a, b = self.endpoints(line)
                image = self.line_between(f(*a), f(*b))
                assert image is not None
                perm.append(image)
            perms.append(tuple(perm))
        return tuple(perms)

    @cached_property
    def corner_pairs(self) -> tuple[tuple[int, int], ...]:
        """The two outer sides of each corner box, smaller index first; none on a board one box wide.

        Both join the box to the edge, so positions that differ only in which of them
        is drawn are the same game (Barker and Korf's corner symmetry).
        """
        R, C = self.rows, self.cols
        if R < 2 or C < 2:
            return ()
        pairs = [
            (self.horizontal(0, 0), self.vertical(0, 0)),
            (self.horizontal(0, C - 1), self.vertical(0, C)),
            (self.horizontal(R, 0), self.vertical(R - 1, 0)),
            (self.horizontal(R, C - 1), self.vertical(R - 1, C)),
        ]
        return tuple((min(a, b), max(a, b)) for a, b in pairs)

    @cached_property
    def centre_first(self) -> tuple[int, ...]:
        """The lines, those nearest the centre of the board first (ties by index)."""

        def distance(line: int) -> tuple[float, int]:
            (r1, c1), (r2, c2) = self.endpoints(line)
            dr = (r1 + r2) / 2 - self.rows / 2
            dc = (c1 + c2) / 2 - self.cols / 2
            return (dr * dr + dc * dc, line)

        return tuple(sorted(range(self.num_lines), key=distance))

    # ------------------------------------------------------------ moves

    def dot_name(self, dot: tuple[int, int]) -> str:
        r, c = dot
        return f"{chr(ord('a') + c)}{r + 1}"

    def line_name(self, line: int) -> str:
        """A line by its two dots, little-golem style: ``a1-b1``."""
        a, b = self.endpoints(line)
        return f"{self.dot_name(a)}-{self.dot_name(b)}"

    def parse_line(self, text: str) -> int:
        """A line named by its dots (``a1-b1``, either order) or by its index (``0``)."""
        stripped = text.strip()
        offset = len(text) - len(text.lstrip()) + 1
        if not stripped:
            raise DotsNotationError("no move given (a line like a1-b1, or its index)", text, 1)
        line: int | None  # an index given, or the line between two dots (None: not next to each other)
        if stripped.isdigit():
            line = int(stripped)
            if line >= self.num_lines:
                raise DotsNotationError(
                    f"there is no line {line} on a {self} board (lines 0..{self.num_lines - 1})", text, offset
                )
            return line
        m = re.fullmatch(r"([a-zA-Z])(\d+)\s*[-–]?\s*([a-zA-Z])(\d+)", stripped)
        if not m:
            raise DotsNotationError(
                f"{stripped!r} is not a move: name a line by its two dots (a1-b1) or by its index",
                text,
                offset,
            )
        dots = []
        for k in (1, 3):
            col = ord(m.group(k).lower()) - ord("a")
            row = int(m.group(k + 1)) - 1
            if not (0 <= col <= self.cols and 0 <= row <= self.rows):
                last = f"{chr(ord('a') + self.cols)}{self.rows + 1}"
                raise DotsNotationError(
                    f"there is no dot {m.group(k)}{m.group(k + 1)} on a {self} board (a1 to {last})",
                    text,
                    offset + m.start(k),
                )
            dots.append((row, col))
        line = self.line_between(dots[0], dots[1])
        if line is None:
            raise DotsNotationError(
                f"the dots {self.dot_name(dots[0])} and {self.dot_name(dots[1])} are not next to each other",
                text,
                offset,
            )
        return line


@dataclass(frozen=True)
class DotsPosition:
    """A board and the set of lines drawn (bit i of ``lines`` is line i)."""

    board: Board
    lines: int = 0

    @classmethod
    def parse(cls, text: str) -> DotsPosition:
        """Read ``RxC`` or ``RxC:LINES``; a bad character is reported with its column."""
        head, colon, tail = text.partition(":")
        board = Board.parse(head)
        if not colon:
            return cls(board, 0)
        start = len(head) + 2  # 1-based column of the first line character
        body = tail.strip()
        lead = len(tail) - len(tail.lstrip())
        lines = 0
        for k, ch in enumerate(body):
            if ch == "1":
                lines |= 1 << k
            elif ch != "0":
                raise DotsNotationError(
                    f"{ch!r} is not a line: write 1 for a line drawn and 0 for one not drawn",
                    text,
                    start + lead + k,
                )
        if len(body) != board.num_lines:
            raise DotsNotationError(
                f"a {board} board has {board.num_lines} lines but {len(body)} are given",
                text,
                start + lead + min(len(body), board.num_lines),
            )
        return cls(board, lines)

    def __str__(self) -> str:
        if not self.lines:
            return str(self.board)
        bits = "".join("1" if self.lines >> i & 1 else "0" for i in range(self.board.num_lines))
        return f"{self.board}:{bits}"

    def drawn(self, line: int) -> bool:
        return bool(self.lines >> line & 1)

    def sides(self, box: int) -> int:
        return (self.lines & self.board.box_masks[box]).bit_count()

    def taken(self) -> list[int]:
        """The boxes with all four sides drawn."""
        return [b for b in range(self.board.num_boxes) if self.sides(b) == 4]

    @property
    def boxes_left(self) -> int:
        return self.board.num_boxes - len(self.taken())

    @property
    def finished(self) -> bool:
        return self.lines == self.board.full

    def completes(self, line: int) -> int:
        """How many boxes drawing ``line`` completes (0, 1 or 2)."""
        return sum(1 for b in self.board.line_boxes[line] if self.sides(b) == 3)

    def legal_lines(self, must_complete: bool = False) -> list[int]:
        """The lines that may be drawn: every undrawn line; under the must-complete rule
        only the completing ones when there are any."""
        free = [i for i in range(self.board.num_lines) if not self.lines >> i & 1]
        if must_complete:
            completing = [i for i in free if self.completes(i)]
            if completing:
                return completing
        return free

    def play(self, line: int, must_complete: bool = False) -> tuple[DotsPosition, int]:
        """The position after drawing ``line`` and the number of boxes it completed."""
        self.board.endpoints(line)  # range check
        if self.lines >> line & 1:
            raise DotsMoveError(f"the line {self.board.line_name(line)} (line {line}) is drawn already")
        gained = self.completes(line)
        if must_complete and not gained and any(self.completes(i) for i in self.legal_lines()):
            raise DotsMoveError(
                f"{self.board.line_name(line)} completes no box, but a box can be completed "
                "and the must-complete rule says it must be"
            )
        return DotsPosition(self.board, self.lines | 1 << line), gained

    def text(self, owners: dict[int, str] | None = None) -> str:
        """The board drawn with characters: ``+`` dots, ``---`` and ``|`` lines, box owners inside."""
        b = self.board
        owners = owners or {}
        taken = set(self.taken())
        rows = []
        header = "   " + "".join(f"{chr(ord('a') + c):<4}" for c in range(b.cols + 1))
        rows.append(header.rstrip())
        for r in range(b.rows + 1):
            dots = f"{r + 1:>2} +"
            for c in range(b.cols):
                dots += ("---" if self.drawn(b.horizontal(r, c)) else "   ") + "+"
            rows.append(dots)
            if r == b.rows:
                break
            row = "   "
            for c in range(b.cols + 1):
                row += "|" if self.drawn(b.vertical(r, c)) else " "
                if c < b.cols:
                    box = r * b.cols + c
                    mark = owners.get(box, "#" if box in taken else " ")
                    row += f" {mark} "
            rows.append(row.rstrip())
        return "\n".join(rows)
