"""Dots-and-Boxes notation: OpenSpiel's line order, little-golem moves, and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sprouts_cli.dots import Board, DotsMoveError, DotsNotationError, DotsPosition
from sprouts_cli.errors import SproutsError

boards = st.builds(Board, st.integers(1, 4), st.integers(1, 4))


@st.composite
def positions(draw) -> DotsPosition:
    board = draw(boards)
    return DotsPosition(board, draw(st.integers(0, board.full)))


def test_openspiel_line_order_on_2x3() -> None:
    b = Board(2, 3)
    assert b.num_lines == 17 and b.num_boxes == 6
    assert b.horizontal(0, 0) == 0 and b.horizontal(2, 2) == 8  # r*C + c
    assert b.vertical(0, 0) == 9 and b.vertical(1, 3) == 16  # (R+1)*C + r*(C+1) + c
    assert b.line_name(0) == "a1-b1" and b.line_name(9) == "a1-a2" and b.line_name(16) == "d2-d3"
    assert b.box_lines(0) == (0, 3, 9, 10)


@given(boards)
def test_every_line_is_named_and_read_back(board: Board) -> None:
    for line in range(board.num_lines):
        name = board.line_name(line)
        assert board.parse_line(name) == line
        a, b = name.split("-")
        assert board.parse_line(f"{b}-{a}") == line  # either order
        assert board.parse_line(str(line)) == line  # the index


@given(positions())
def test_positions_are_written_and_read_back(p: DotsPosition) -> None:
    text = str(p)
    assert DotsPosition.parse(text) == p
    if p.lines == 0:
        assert text == str(p.board)
    else:
        assert len(text.split(":")[1]) == p.board.num_lines


@given(positions())
def test_symmetries_and_corner_pairs_map_boxes_to_boxes(p: DotsPosition) -> None:
    board = p.board
    for perm in board.symmetries:
        image = DotsPosition(board, sum(1 << perm[i] for i in range(board.num_lines) if p.drawn(i)))
        assert len(image.taken()) == len(p.taken())
        assert sorted(image.sides(b) for b in range(board.num_boxes)) == sorted(
            p.sides(b) for b in range(board.num_boxes)
        )
    for a, b in board.corner_pairs:  # both sides of one corner box, both on the edge
        assert len(board.line_boxes[a]) == len(board.line_boxes[b]) == 1
        assert board.line_boxes[a] == board.line_boxes[b]


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("3x", 1, "not a board"),
        ("0x3", None, "at least one row"),
        ("2x2:10102", 9, "'2' is not a line"),
        ("2x2:1010", 9, "has 12 lines but 4"),
        ("2x2:1111111111111", 17, "has 12 lines but 13"),
        ("9x9", None, "at most 62"),
    ],
)
def test_bad_positions_say_what_and_where(text: str, column: int | None, words: str) -> None:
    with pytest.raises(DotsNotationError) as e:
        DotsPosition.parse(text)
    assert words in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, SproutsError)
    if column is not None:
        assert e.value.column == column


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a1-c1", "not next to each other"),
        ("a1-z1", "no dot z1"),
        ("17", "no line 17"),
        ("xyz", "not a move"),
        ("", "no move"),
    ],
)
def test_bad_moves_say_what(text: str, words: str) -> None:
    with pytest.raises(DotsNotationError, match=words):
        Board(2, 3).parse_line(text)


def test_illegal_moves() -> None:
    p = DotsPosition.parse("1x1:1110")
    with pytest.raises(DotsMoveError, match="drawn already"):
        p.play(0)
    q = DotsPosition.parse("1x2:1010000")  # box 0 has top and bottom: not capturable
    q, _ = q.play(4)  # its left side: now box 0 can be completed
    assert q.legal_lines(must_complete=True) == [5]
    with pytest.raises(DotsMoveError, match="must-complete"):
        q.play(6, must_complete=True)
    assert q.play(6)[1] == 0  # the free form allows it
    assert q.play(5, must_complete=True)[1] == 1
