"""Reading and writing position strings in both dialects."""

from __future__ import annotations

import pytest
from games import game_positions
from hypothesis import given

from sprouts_cli.engine import NotationError, Position

NOTE_EXAMPLES = [
    "0*2",
    "0*3",
    "0.AB|AB",
    "1a1a",
    "0*2.AB|AB",
    "0.AB|0.AB",
    "0.1a1a",
    "0*4.A|0*4.A+0*3",
    "0*4.A|0*4.A+0.1a2a",
    "0*8.AB|0*3.AB",
    "0",
    "1",
    "0.12",
    "0*12",
    "11aAa|1aAa",
    "0*4.2",
    "!",
]


@pytest.mark.parametrize("text", NOTE_EXAMPLES)
def test_examples_of_the_note_round_trip(text: str) -> None:
    p = Position.from_string(text)
    assert Position.from_string(p.notation()) == p
    assert Position.from_string(p.canonical()).canonical() == p.canonical()
    assert Position.from_string(p.notation("glop1")) == p


def test_abbreviations_expand() -> None:
    assert Position.from_string("0*3").notation() == "0*3"
    assert Position.from_string("0.0.0").notation() == "0*3"
    p = Position.from_string("0*4.2")
    assert len(p.regions[0]) == 5
    assert p.total_lives == 13


def test_glop1_dialect_reads_the_same_positions() -> None:
    assert Position.from_string("0.0.0.}]!") == Position.from_string("0*3")
    assert Position.from_string("0.AB.}AB.}]!") == Position.from_string("0.AB|AB")
    two_lands = Position.from_string("0.0.}]1a1a.}]!")
    assert two_lands == Position.from_string("0*2+1a1a")
    assert Position.from_string("0*3").notation("glop1") == "0.0.0.}]!"


def test_glop1_heap_after_the_bang() -> None:
    p = Position.from_string("0.ABC.}11D1CE.}ABDE.}!3")
    assert p.heaps == (3,)
    assert p.canonical().endswith("+*3")


def test_heaps_in_dialect_2() -> None:
    p = Position.from_string("0*2+*3+*1")
    assert p.heaps == (1, 3)
    assert Position.from_string("*2").heaps == (2,)
    assert Position.from_string("0*2+*0").heaps == ()


def test_trailing_bang_and_spaces_are_ignored() -> None:
    assert Position.from_string(" 0 . 0 *2 ! ") == Position.from_string("0*3")


def test_long_letters() -> None:
    letters = [chr(ord("A") + i) for i in range(25)] + ["n(26)", "n(27)"]
    text = "".join(letters) + "|" + "".join(letters)
    p = Position.from_string(text)
    assert p.total_lives == 27
    assert "n(27)" in p.canonical()
    small = "1" + "".join("abcdefghijkl") + "m(13)m(13)" + "".join("abcdefghijkl"[::-1]) + "1"
    assert Position.from_string(small).total_lives == 2 + 2 + 13


def test_canonical_output_reads_back_in_glop1() -> None:
    p = Position.from_string("0*4.A|0*4.A+0.1a2a")
    g1 = p.notation("glop1")
    assert "]" in g1 and g1.endswith("!")
    assert Position.from_string(g1) == p


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("0.x", 3, "unknown character 'x'"),
        ("0..0", 3, "empty boundary"),
        ("0||0", 3, "empty region"),
        ("10", 2, "cannot be inside a longer boundary"),
        ("AAA|1", 3, "occurs 3 times"),
        ("1m(13", 2, "unbalanced 'm('"),
        ("1m(x)", 2, "unbalanced 'm('"),
        ("A|2", 1, "occurs once"),
        ("1a|1a", 2, "occurs once"),
        ("AB.AB|0", 4, "twice in one region"),
        ("a2.a2", 1, "occurs once on its boundary"),
        ("1aaa", 4, "occurs 3 times on one boundary"),
        ("0*3A|A", 1, "whole boundaries"),
        ("0*3x", 4, "unknown character 'x'"),
        ("0.}+0", 4, "GLOP 2 dialect"),
        ("0.0}", 4, "ends with '.' before '}'"),
        ("0.0.}", None, None),
        ("", 1, "empty position"),
        ("0*", 3, "digits"),
        ("0+", 3, "expected a spot"),
        ("0.0.}0", 7, "ends inside a region"),
    ],
)
def test_malformed_strings_name_the_column(text: str, column: int | None, words: str | None) -> None:
    if column is None:
        Position.from_string(text)  # well formed
        return
    with pytest.raises(NotationError) as info:
        Position.from_string(text)
    assert info.value.column == column, str(info.value)
    assert words in str(info.value)


def test_undrawable_land_is_refused() -> None:
    # Regions 1 and 2 share two spots on separate boundaries: a ring no drawing has.
    with pytest.raises(NotationError) as info:
        Position.from_string("AB.CD|AC.BD")
    assert "cannot be drawn" in str(info.value)


@given(game_positions())
def test_parse_print_round_trip(p: Position) -> None:
    assert Position.from_string(p.notation()) == p
    assert Position.from_string(p.notation("glop1")) == p
    c = p.canonical()
    assert Position.from_string(c).canonical() == c


# Small letters are local to their boundary: SPOTS writes these, each with two spots 'a'.
SPOTS_STRINGS = [
    # (string, same position with distinct letters, nimber, misère: first player wins)
    ("1a1a.1a2a", "1a1a.1b2b", 1, None),
    ("1a1a.2a2a", "1a1a.2b2b", 0, None),
    ("1a2a.2a2a", "1a2a.2b2b", 1, False),
    ("1a1a.1aAa|22A", "1a1a.1bAb|22A", 0, None),
]


@pytest.mark.parametrize(("spots", "distinct", "nimber", "misere_win"), SPOTS_STRINGS)
def test_small_letters_are_local_to_their_boundary(
    spots: str, distinct: str, nimber: int, misere_win: bool | None
) -> None:
    from sprouts_cli.solve.session import Session

    p = Position.from_string(spots)
    assert p.canonical() == Position.from_string(distinct).canonical()
    assert Position.from_string(p.canonical()) == p  # the canonical form reads back
    assert Position.from_string(p.notation()).canonical() == p.canonical()
    with Session(None) as session:
        assert session.nimber(p) == nimber
    if misere_win is not None:
        with Session(None, misere=True) as session:
            assert session.outcome(p) is misere_win
