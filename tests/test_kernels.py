"""The compiled kernels write the canonical strings the Python code writes, and their codes are complete."""

from __future__ import annotations

import importlib
import pkgutil
import random
import types
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from games import game_positions, mirrored, reachable, renamed, reordered, rotated
from hypothesis import given, settings

from sprouts_cli.engine import Position, aot, kernels
from sprouts_cli.engine import canonical as canonical_module
from sprouts_cli.engine.backend import use_compiled_kernels
from sprouts_cli.engine.canonical import canonical_form, clean_lands, land_code
from sprouts_cli.engine.directions import readings
from sprouts_cli.engine.kernels import flatten_land, land_code_kernel, land_invariant
from sprouts_cli.engine.moves import apply_move, representative_moves
from sprouts_cli.engine.reduce import land_moves, reduced_land, reduced_lands, reduced_lands_after
from sprouts_cli.solve.children import LazyChildren, pack_moves, read_land, symmetric_move_args
from sprouts_cli.solve.session import Session


@cache
def lands_upto(n: int) -> list[tuple[list, tuple[int, ...]]]:
    """Every cleaned land of every position reachable from 1 to ``n`` spots."""
    out = []
    for k in range(1, n + 1):
        for p in reachable(k).values():
            out += [(land, p.lives) for land in clean_lands(p)]
    return out


def assert_complete(lands: list[tuple[list, tuple[int, ...]]]) -> None:
    """Codes and canonical strings determine each other on ``lands``."""
    by_code: dict[bytes, str] = {}
    by_text: dict[str, bytes] = {}
    for land, lives in lands:
        text = land_code(land, lives)[1]
        code = land_invariant(land, lives)
        assert code, text
        assert by_code.setdefault(code, text) == text, (text, by_code[code])
        assert by_text.setdefault(text, code) == code, text


def test_the_invariant_is_complete_on_lands_from_up_to_4_spots() -> None:
    assert_complete(lands_upto(4)[::3])


@pytest.mark.slow
def test_the_invariant_is_complete_on_every_land_from_up_to_5_spots() -> None:
    assert_complete(lands_upto(5))


def assert_same_as_python(lands: list[tuple[list, tuple[int, ...]]]) -> None:
    """The kernels write Python's canonical strings, and order codes as Python orders its codes."""
    coded = []
    for land, lives in lands:
        code, text = land_code(land, lives)
        compiled = kernels.land_code_and_text(land, lives)
        assert compiled is not None and compiled[1] == text, (text, compiled)
        coded.append((code, compiled[0]))
    rng = random.Random(len(lands))
    for _ in range(min(2000, len(coded)) if len(coded) > 1 else 0):
        (a, ka), (b, kb) = rng.sample(coded, 2)
        assert (a < b, a == b) == (ka < kb, ka == kb), (a, b)


def test_the_kernels_write_the_canonical_strings_of_lands_from_up_to_4_spots() -> None:
    assert_same_as_python(lands_upto(4)[::3])


@pytest.mark.slow
def test_the_kernels_write_the_canonical_strings_of_every_land_from_up_to_5_spots() -> None:
    assert_same_as_python(lands_upto(5))


@settings(max_examples=30)
@given(game_positions(min_spots=8, max_spots=16))
def test_the_kernels_write_the_canonical_strings_of_random_lands(p: Position) -> None:
    assert_same_as_python([(land, p.lives) for land in clean_lands(p)])


def test_compiled_and_plain_kernels_agree() -> None:
    for land, lives in lands_upto(4)[::25]:
        flat = np.array(flatten_land(land, lives), dtype=np.int64)
        for write in (False, True):
            compiled, plain = land_code_kernel(flat, write), land_code_kernel.py_func(flat, write)
            assert np.array_equal(compiled[0], plain[0]) and np.array_equal(compiled[1], plain[1])


@given(game_positions(max_spots=11))
def test_the_invariant_ignores_how_a_land_is_written(p: Position) -> None:
    rng = random.Random(len(p.lives))
    for q in (renamed(p, rng), rotated(p, rng), reordered(p, rng), mirrored(p)):
        codes_p = sorted(land_invariant(land, p.lives) for land in clean_lands(p))
        codes_q = sorted(land_invariant(land, q.lives) for land in clean_lands(q))
        assert codes_p == codes_q


@given(game_positions(max_spots=11))
def test_the_invariant_tells_lands_apart_as_the_canonical_form_does(p: Position) -> None:
    q = Position.from_string(p.canonical())  # the same lands, written canonically
    lands = [(land, p.lives) for land in clean_lands(p)] + [(land, q.lives) for land in clean_lands(q)]
    assert_complete(lands)


def test_a_land_that_cannot_be_drawn_gets_no_code() -> None:
    # one piece meeting a region along two boundaries (a ring of regions)
    assert land_invariant([((0, 1), (2, 3)), ((0, 2), (1, 3))], (1, 1, 1, 1)) == b""
    assert land_invariant([((0,), (0,))], (3,)) == b""  # a lone spot met twice


@pytest.mark.parametrize("compiled", [False, True])
def test_reduced_forms_and_answers_do_not_depend_on_the_compiled_keys(compiled: bool) -> None:
    canonical_module.clear_land_cache()
    use_compiled_kernels(compiled)
    try:
        forms = [reduced_lands(p) for p in list(reachable(4).values())[::7]]
        session = Session(None)
        nimber = session.nimber(Position.start(6))
        solved = session.counters().positions_solved
    finally:
        use_compiled_kernels(None)
        canonical_module.clear_land_cache()
    use_compiled_kernels(not compiled)
    try:
        assert forms == [reduced_lands(p) for p in list(reachable(4).values())[::7]]
        other = Session(None)
        assert other.nimber(Position.start(6)) == nimber
        assert other.counters().positions_solved == solved
    finally:
        use_compiled_kernels(None)
        canonical_module.clear_land_cache()


def children_agree(positions: list[Position]) -> None:
    """The compiled children (``reduced_lands_after``) are the Python ones, move by move."""
    pairs = [(p, m) for p in positions for m in representative_moves(p)]
    use_compiled_kernels(False)
    try:
        want = [reduced_lands(apply_move(p, m, check=False)) for p, m in pairs]
    finally:
        use_compiled_kernels(True)
    try:
        assert [reduced_lands_after(p, m) for p, m in pairs] == want
    finally:
        use_compiled_kernels(None)


def test_compiled_children_are_the_python_ones_from_up_to_4_spots() -> None:
    children_agree([p for k in range(1, 5) for p in reachable(k).values()][::4])


@pytest.mark.slow
def test_compiled_children_are_the_python_ones_from_up_to_5_spots() -> None:
    children_agree([p for k in range(1, 6) for p in reachable(k).values()])


@settings(max_examples=30)
@given(game_positions(min_spots=6, max_spots=14))
def test_compiled_children_are_the_python_ones_on_random_positions(p: Position) -> None:
    children_agree([p])


def test_compiled_and_plain_child_kernels_agree() -> None:
    for p in list(reachable(4).values())[::40]:
        flat = np.array(kernels.flatten_position(p.regions), np.int64)
        lives = np.array(p.lives, np.int64)
        for m in representative_moves(p)[:3]:
            mask = sum(1 << k for k in m.inside)
            args = (flat, lives, m.region, m.boundary, m.corner, m.boundary2, m.corner2, mask)
            compiled = kernels.child_lands_kernel(*args)
            plain = kernels.child_lands_kernel.py_func(*args)
            assert all(np.array_equal(a, b) for a, b in zip(compiled, plain, strict=True))


# ------------------------------------------------------------ a land's string, moves, children


@cache
def reduced_lands_upto(n: int) -> list[str]:
    """Every reduced land of every position reachable from 1 to ``n`` spots (the solver's lands)."""
    return sorted({x for k in range(1, n + 1) for p in reachable(k).values() for x in reduced_lands(p)})


def assert_lands_read_and_listed_as_python(lands: list[str], plain: bool = False) -> None:
    """The kernels read each land string as ``read_land`` does and list ``symmetric_move_args``'s
    moves packed as ``pack_moves`` packs them (``plain``: the kernels run as plain Python)."""
    parse = kernels.parse_land_kernel.py_func if plain else kernels.parse_land_kernel
    listing = kernels.list_moves_kernel.py_func if plain else kernels.list_moves_kernel
    for land in lands:
        flat, lives = parse(np.frombuffer(land.encode("ascii"), np.uint8))
        p = read_land(land)
        assert flat.tolist() == kernels.flatten_position(p.regions), land
        assert tuple(lives.tolist()) == p.lives, land
        words, fits = listing(flat, lives)
        assert fits and words.tolist() == list(pack_moves(symmetric_move_args(p))), land


def test_lands_are_read_and_listed_as_python_does_from_up_to_4_spots() -> None:
    assert_lands_read_and_listed_as_python(reduced_lands_upto(4))


@pytest.mark.slow
def test_lands_are_read_and_listed_as_python_does_from_up_to_5_spots() -> None:
    assert_lands_read_and_listed_as_python(reduced_lands_upto(5))


def test_plain_python_kernels_read_and_list_as_python_does() -> None:
    assert_lands_read_and_listed_as_python(reduced_lands_upto(4)[::40], plain=True)


@settings(max_examples=40)
@given(game_positions(min_spots=4, max_spots=20))
def test_random_lands_are_read_and_listed_as_python_does(p: Position) -> None:
    assert_lands_read_and_listed_as_python(reduced_lands(p))


def test_land_strings_the_kernels_do_not_take_go_to_python() -> None:
    for text in ("00*2", "A?", "n(3)", "m(4"):
        flat, _lives = kernels.parse_land_kernel(np.frombuffer(text.encode("ascii"), np.uint8))
        assert len(flat) == 0, text
    # a move enclosing boundary 22 does not fit an int64 word: listed in Python
    use_compiled_kernels(True)
    try:
        assert land_moves("0*24") is None
        assert land_moves("0*20") == pack_moves(symmetric_move_args(read_land("0*20")))
    finally:
        use_compiled_kernels(None)


def assert_lazy_children_as_python(lands: list[str]) -> None:
    """``LazyChildren`` finds the same children in the same order with the kernels on and off."""
    use_compiled_kernels(False)
    try:
        want = [LazyChildren(land).all() for land in lands]
    finally:
        use_compiled_kernels(True)
    try:
        assert [LazyChildren(land).all() for land in lands] == want
    finally:
        use_compiled_kernels(None)


def test_a_lands_children_are_the_python_ones_from_up_to_4_spots() -> None:
    assert_lazy_children_as_python(reduced_lands_upto(4)[::3])


@pytest.mark.slow
def test_a_lands_children_are_the_python_ones_from_up_to_5_spots() -> None:
    assert_lazy_children_as_python(reduced_lands_upto(5))


@settings(max_examples=30)
@given(game_positions(min_spots=6, max_spots=14))
def test_a_lands_children_are_the_python_ones_on_random_lands(p: Position) -> None:
    assert_lazy_children_as_python(reduced_lands(p)[:2])



# ------------------------------------------------------------ every land of a position in one call


def assert_positions_as_python(positions: list[Position], plain: bool = False) -> None:
    """``kernels.position_lands`` (``plain``: its kernel as plain Python) gives the canonical
    strings of the lands that ``canonical.land_code``, the Python reference, gives: the least
    code over the readings ``directions.readings`` leaves."""
    for p in positions:
        least = [min(land_code(r, p.lives) for r in readings(land, p.lives)) for land in clean_lands(p)]
        want = sorted(text for _code, text in least)
        if plain:
            packed = np.array([len(p.lives), *p.lives, *kernels.flatten_position(p.regions)], np.int64)
            text, ok = kernels.position_lands_kernel.py_func(packed)
            got = text.tobytes().decode("ascii").split("+") if ok and len(text) else [] if ok else None
        else:
            got = kernels.position_lands(p.regions, p.lives)
        assert got == want, (p.regions, p.lives)


def test_positions_are_written_as_python_writes_them_from_up_to_4_spots() -> None:
    assert_positions_as_python([p for k in range(1, 5) for p in reachable(k).values()][::2])


@pytest.mark.slow
def test_positions_are_written_as_python_writes_them_from_up_to_5_spots() -> None:
    assert_positions_as_python([p for k in range(1, 6) for p in reachable(k).values()])


def test_plain_python_kernels_write_positions_as_python_does() -> None:
    assert_positions_as_python(list(reachable(4).values())[::30], plain=True)


@settings(max_examples=40)
@given(game_positions(min_spots=6, max_spots=24))
def test_random_positions_are_written_as_python_writes_them(p: Position) -> None:
    assert_positions_as_python([p])


def test_canonical_forms_are_the_same_with_the_kernels_on_and_off() -> None:
    positions = [p for p in reachable(4).values()][::5] + [Position.from_string("0*2+0*3+*2")]
    use_compiled_kernels(False)
    try:
        want = [canonical_form(p) for p in positions]
    finally:
        use_compiled_kernels(True)
    try:
        assert [canonical_form(p) for p in positions] == want
    finally:
        use_compiled_kernels(None)



# ------------------------------------------------------------ the reduced string of a land


def assert_lands_reduced_as_python(lands: list[tuple[list, tuple[int, ...]]], plain: bool = False) -> None:
    """``kernels.reduced_land_kernel`` (``plain``: as plain Python) gives ``reduce.reduced_land``'s
    string on every land of ``lands`` (the Python rules with the kernels off)."""
    run = kernels.reduced_land_kernel.py_func if plain else kernels.reduced_land_kernel
    got = []
    for land, lives in lands:
        text = run(np.array(flatten_land(land, lives), np.int64))
        got.append(text.tobytes().decode("ascii"))
    use_compiled_kernels(False)
    try:
        want = [reduced_land(land, lives) for land, lives in lands]
    finally:
        use_compiled_kernels(None)
    for (land, lives), g, w in zip(lands, got, want, strict=True):
        assert g == w, (land, lives)


def test_lands_are_reduced_as_python_does_from_up_to_4_spots() -> None:
    lands = lands_upto(4)
    assert any(len(land) > 1 for land, _lives in lands)
    assert_lands_reduced_as_python(lands[::2])


@pytest.mark.slow
def test_lands_are_reduced_as_python_does_from_up_to_5_spots() -> None:
    assert_lands_reduced_as_python(lands_upto(5))


def test_plain_python_kernels_reduce_lands_as_python_does() -> None:
    assert_lands_reduced_as_python(lands_upto(4)[::40], plain=True)


@settings(max_examples=40)
@given(game_positions(min_spots=6, max_spots=24))
def test_random_lands_are_reduced_as_python_does(p: Position) -> None:
    assert_lands_reduced_as_python([(land, p.lives) for land in clean_lands(p)])


def test_lands_with_set_regions_both_ways_round_are_reduced_as_python_does() -> None:
    """Lands of three or more regions from random 6-spot games, most with a small region of
    three spots, two or three of them capitals: read both ways round, the least code wins."""
    start = Position.from_string("0*6")
    lands = []
    rng = random.Random(7)
    for _ in range(60):
        p = start
        while True:
            ms = representative_moves(p)
            if not ms:
                break
            p = apply_move(p, rng.choice(ms))
            lands += [(land, p.lives) for land in clean_lands(p) if len(land) > 2]
    assert lands
    assert_lands_reduced_as_python(lands[::3])


# ------------------------------------------------------------ numba's cache cannot go stale


def _names_used(code: types.CodeType) -> set[str]:
    """The global names a function's code (and the code nested in it) refers to."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names_used(const)
    return out


def _kernels_of(module: types.ModuleType) -> dict[str, Any]:
    """The compiled kernels defined in ``module`` (numba dispatchers), by name."""
    return {
        name: value
        for name, value in vars(module).items()
        if hasattr(value, "py_func") and hasattr(value, "signatures")
        and value.py_func.__module__ == module.__name__
    }


def test_every_engine_kernel_is_cached_under_the_stamp_of_all_the_kernel_sources() -> None:
    """numba checks only a kernel's own file before it takes the kernel from its cache, and a
    kernel keeps a compiled copy of the kernels it calls, here in other files of
    ``engine/kernels/``: so each cache is keyed by the hash of every kernel source too."""
    if aot.kernel_path() != "jit":
        pytest.skip("the kernels are not numba's JIT ones (plain Python, or built ahead of time)")
    package = Path(kernels.__file__).parent
    names = [m.name for m in pkgutil.iter_modules([str(package)])]
    modules = [importlib.import_module(f"sprouts_cli.engine.kernels.{name}") for name in names]
    found = {name: k for module in [kernels, *modules] for name, k in _kernels_of(module).items()}
    assert {"land_code_kernel", "child_lands_kernel", "parse_land_kernel", "list_moves_kernel"} <= set(found)
    files = {k.py_func.__code__.co_filename for k in found.values()}
    assert len(files) > 1  # calls across files: what the stamp is for
    sources = {str(p) for p in aot.kernel_sources()}
    assert files <= sources
    for name, k in found.items():
        assert k._cache._impl.locator.get_source_stamp()[1] == aot.sources_stamp(), name


def test_the_sources_stamp_changes_with_any_kernel_file(tmp_path: Path, monkeypatch) -> None:
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("@kernel\ndef f(): pass\n")
    two.write_text("@kernel\ndef g(): pass\n")
    monkeypatch.setattr(aot, "ENGINE_DIR", tmp_path)
    monkeypatch.setattr(aot, "kernel_sources", lambda: [one, two])
    before = aot.sources_hash()
    two.write_text("@kernel\ndef g(): return 1\n")
    assert aot.sources_hash() != before
