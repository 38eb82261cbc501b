"""The compiled proof-number core (``solve/pncore.py``, ``solve/compiled.py``) against the reference.

``CompiledNormalSolver`` runs ``NormalSolver``'s search in compiled code: these tests ask
it every question the reference's tests ask (brute force to 4 spots, the published
values, the GLOP sample, sums, random lands) and check that it follows the reference
step by step (the same nodes, lands and facts on the n-spot starts).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from brute import brute_children, brute_nimber
from games import game_positions, reachable
from hypothesis import given, settings

from sprouts_cli.engine import Position, aot
from sprouts_cli.errors import OutOfTime, SolveInterrupted
from sprouts_cli.solve.compiled import CompiledNormalSolver, compiled_available
from sprouts_cli.solve.nimbers import NormalSolver
from sprouts_cli.solve.search import normal_solver
from sprouts_cli.solve.store import Table

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core needs numba")

SAMPLE = Path(__file__).parent / "data" / "glop-oracle-sample.txt"


def compiled(**options: object) -> CompiledNormalSolver:
    """A solver that takes every question to the core (none to the reference)."""
    return CompiledNormalSolver(compile_lives=0, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_position_from_n_spots_matches_brute_force(n: int) -> None:
    solver = compiled()
    for key, p in sorted(reachable(n).items()):
        nimber = brute_nimber(key)
        assert solver.nimber(p) == nimber, key
        for heap in (0, 1, 2):
            assert solver.outcome(p.with_heaps((heap,))) == (nimber != heap), (key, heap)
    assert solver.stats["nodes"] > 0 and solver.loaded


@pytest.mark.parametrize("small_lives", [0, 12])
def test_df_pn_alone_and_the_mex_alone_match_brute_force(small_lives: int) -> None:
    solver = compiled(small_lives=small_lives)
    for key, p in sorted(reachable(3).items()):
        assert solver.nimber(p) == brute_nimber(key), key


def test_winning_moves_are_the_children_brute_force_calls_losses() -> None:
    solver = compiled()
    for key in sorted(reachable(3))[::7]:
        losses = sorted(c for c in brute_children(key) if brute_nimber(c) == 0)
        assert solver.winning_moves(key) == losses, key


@pytest.mark.parametrize(
    ("text", "nimber"),
    [("0", 0), ("1", 1), ("1a1a", 2), ("0.12", 3), ("0*3", 1), ("!", 0), ("*5", 5), ("3+*6", 6)],
)
def test_published_nimbers(text: str, nimber: int) -> None:
    assert compiled().nimber(text) == nimber


@pytest.mark.parametrize(
    ("text", "win"),
    [("0*4.A|0*4.A+0*3", False), ("0*4.A|0*4.A+0.1a2a", False), ("0*8.AB|0*3.AB", True), ("0*3+*1", False)],
)
def test_published_outcomes(text: str, win: bool) -> None:
    assert compiled().outcome(text) is win


@pytest.mark.parametrize("n", range(1, 12))
def test_n_spot_starts_follow_the_sprouts_conjecture(n: int) -> None:
    assert compiled().outcome(Position.start(n)) is (n % 6 in (3, 4, 5))


@pytest.mark.parametrize("n", [5, 7, 9])
def test_the_core_searches_exactly_as_the_reference(n: int) -> None:
    # the same nodes visited, lands expanded and facts proved: the same search, step by step.
    # The reference's table forgets nothing; the core's, at its default size, overwrites a few
    # entries on 0*7, and which ones depends on the numbers the lands get (the lands of one child
    # are numbered in another order), so the core is given a table that overwrites none.
    fast, reference = compiled(tt_entries=1 << 20), NormalSolver()
    assert fast.outcome(Position.start(n)) is reference.outcome(Position.start(n))
    for key in ("nodes", "lands_expanded", "positions_solved"):
        assert fast.stats[key] == reference.stats[key], key
    assert fast.stats["table_overwrites"] == 0


def test_the_search_does_not_depend_on_the_numbers_its_lands_get() -> None:
    # children of equal numbers are searched in an order of what they are (pncore._tried_before):
    # the same lands numbered the other way round before the search change no node
    from sprouts_cli.solve import pncore

    keys = ("nodes", "lands_expanded", "positions_solved")
    first = compiled(tt_entries=1 << 20)
    assert first.outcome(Position.start(8)) is False
    st = first.state
    lands = [st.text(x) for x in range(int(st.G[pncore.G_NUMBERS])) if st.is_land(x)]
    again = compiled(tt_entries=1 << 20)
    for land in reversed(lands):
        again._land_number(land)
    assert again.outcome(Position.start(8)) is False
    assert [again.stats[key] for key in keys] == [first.stats[key] for key in keys]
    reference = NormalSolver()
    assert reference.outcome(Position.start(7)) is False
    shuffled = NormalSolver()
    for land in reversed([x for x in reference._what if isinstance(x, str)]):
        shuffled._land_number(land)
    assert shuffled.outcome(Position.start(7)) is False
    assert [shuffled.stats[key] for key in keys] == [reference.stats[key] for key in keys]


def test_the_glop_sample_agrees() -> None:
    solver = compiled()
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    for line in lines:
        position, r = line.split("\t")
        body, _, heap = position.rpartition("!")
        p = Position.from_string(body + "!").with_heaps((int(heap),))
        assert solver.outcome(p) is (r == "1"), line
    assert len(lines) == 80


@pytest.mark.parametrize("heap", [0, 1, 3])
def test_sums_searched_inside_df_pn_match_the_xor_of_brute_force_nimbers(heap: int) -> None:
    lands = sorted(k for k, p in reachable(4).items() if len(p.lands()) == 1 and p.total_lives >= 6)
    solver = compiled(small_lives=0)
    for a, b, c in zip(lands[::37], lands[5::41], lands[11::53], strict=False):
        for parts in ((a, b), (a, b, c)):
            want = heap
            for part in parts:
                want ^= brute_nimber(part)
            text = "+".join(parts) + f"+*{heap}"
            assert solver.outcome(text) == (want != 0), text


@settings(max_examples=15, deadline=None)
@given(game_positions(max_spots=6))
def test_random_positions_have_the_references_nimber(p: Position) -> None:
    assert compiled().nimber(p) == NormalSolver().nimber(p)


def test_heaps_past_the_cores_masks_go_by_the_nimbers() -> None:
    solver = compiled()
    assert solver.outcome("0*3+*70") is True  # nimber 1 xor 70
    assert solver.outcome("0*3+*70+*71") is False
    assert solver.nimber("1a1a+*100") == 102


def test_a_tiny_transposition_table_changes_the_work_not_the_answers() -> None:
    tiny = compiled(tt_entries=1 << 14, memory=0)  # too small to keep what 0*7 meets, and kept so
    for n in range(1, 8):
        assert tiny.outcome(Position.start(n)) is (n % 6 in (3, 4, 5))
    for key, p in sorted(reachable(3).items())[::5]:
        assert tiny.nimber(p) == brute_nimber(key), key


def test_a_table_that_overflows_doubles_within_its_memory_and_keeps_the_answers() -> None:
    """The transposition table doubles while it overwrites many entries, up to half the memory
    bound; the answers are the published ones whatever its size.  (A table far too small makes
    df-pn search the same nodes again and again: ``0*7`` in 2**13 entries takes minutes.)"""
    from sprouts_cli.solve.compiled import TT_ENTRY_BYTES

    growing = compiled(tt_entries=1 << 8)
    for n in range(1, 11):
        assert growing.outcome(Position.start(n)) is (n % 6 in (3, 4, 5))
    assert growing.stats["table_entries"] >= 1 << 14
    bounded = compiled(tt_entries=1 << 8, memory=(1 << 15) * TT_ENTRY_BYTES)  # at most 2**14 entries
    for n in range(1, 8):
        assert bounded.outcome(Position.start(n)) is (n % 6 in (3, 4, 5))
        assert 1 << 8 <= bounded.stats["table_entries"] <= 1 << 14
    assert bounded.stats["table_entries"] > 1 << 8


def test_the_table_is_sized_for_the_first_question_and_doubles_before_a_larger_one() -> None:
    from sprouts_cli.solve.compiled import TT_ENTRIES, first_table_entries

    solver = compiled()
    assert solver.outcome(Position.start(5)) is True
    assert solver.stats["table_entries"] == first_table_entries(15) < TT_ENTRIES
    assert solver.outcome(Position.start(11)) is True
    assert solver.stats["table_entries"] >= first_table_entries(33) > first_table_entries(15)
    chosen = compiled(tt_entries=1 << 16)
    assert chosen.outcome(Position.start(11)) is True
    assert chosen.stats["table_entries"] < TT_ENTRIES  # the caller's size, doubled only when it overflowed


def test_a_table_below_its_usual_size_doubles_with_the_nodes_before_it_overwrites() -> None:
    small = compiled(tt_entries=1 << 12)
    assert small.outcome(Position.start(8)) is False
    stats = small.stats
    assert stats["table_entries"] > stats["nodes"]  # grown while the nodes were half its size
    assert stats["table_overwrites"] < stats["nodes"] / 100  # (grown on overwrites only: about a sixth)


def test_the_table_grows_at_the_same_node_whatever_the_machines_speed() -> None:
    """A call of the core runs a chunk of nodes fitted to the clock; the table's growth must not
    wait for the end of a chunk, or a slower machine would overwrite more and search otherwise."""
    runs = [_eight_spots_in_chunks_of(chunk, tt_entries=1 << 12) for chunk in (16, 1 << 22)]
    assert runs[0] == runs[1]


def test_a_table_that_overwrites_grows_at_the_same_node_whatever_the_machines_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same for the growth of a table at its usual size (by the entries it overwrote): the
    core stops at the overwrite that asks for it."""
    from sprouts_cli.solve import compiled as compiled_module

    monkeypatch.setattr(compiled_module, "TT_ENTRIES", 1 << 8)  # the overwrite rule alone, on a small table
    runs = [_eight_spots_in_chunks_of(chunk, tt_entries=1 << 8) for chunk in (16, 1 << 22)]
    assert runs[0]["table_entries"] > 1 << 8  # it grew by the overwrite rule
    assert runs[0] == runs[1]


def _eight_spots_in_chunks_of(chunk: int, tt_entries: int) -> dict[str, int]:
    """``0*8`` solved with every call of the core held at ``chunk`` nodes (the clock's fitting
    undone): its nodes, table entries and overwrites."""
    solver = compiled(tt_entries=tt_entries)
    run = solver._run

    def fixed(i: int) -> int:
        solver._chunks[i] = chunk
        return run(i)

    solver._run = fixed  # type: ignore[method-assign]
    assert solver.outcome(Position.start(8)) is False
    return {k: solver.stats[k] for k in ("nodes", "table_entries", "table_overwrites")}


def test_codes_are_packed_one_to_one_and_alike_compiled_and_plain() -> None:
    import numpy as np

    from sprouts_cli.solve import pncore

    rng = np.random.default_rng(1)
    tokens = [1, 2, 127, 128, 300, (1 << 30) + 1, (1 << 30) + 127, (1 << 30) + 128, 5_000_000]
    seen: dict[bytes, bytes] = {}
    for _ in range(400):
        picked = rng.choice(tokens, size=int(rng.integers(1, 10)))
        code = np.array([(int(t) >> shift) & 255 for t in picked for shift in (24, 16, 8, 0)], np.uint8)
        room = code.size + code.size // 4  # what _child_of_move gives: every token escaped fits
        out, plain = np.zeros(room, np.uint8), np.zeros(room, np.uint8)
        m = pncore._pack_code(code, code.size, out)
        assert m == pncore._pack_code.py_func(code, code.size, plain) and (out[:m] == plain[:m]).all()
        assert m <= 5 * len(picked)
        assert seen.setdefault(bytes(out[:m]), bytes(code)) == bytes(code)  # no two codes packed alike
    assert len(seen) > 300


def test_the_state_grows_as_the_search_needs() -> None:
    solver = compiled()
    assert solver.outcome(Position.start(10)) is True
    from sprouts_cli.solve import pncore

    st = solver.state
    numbers, lands = int(st.G[pncore.G_NUMBERS]), int(st.G[pncore.G_HCOUNT])
    assert numbers > 4096  # more numbers than the arrays first held
    assert st.I32.shape[1] >= numbers and st.HTAB.shape[0] >= 2 * lands


@pytest.mark.parametrize("keep", [0.0, 0.5])
def test_forgotten_codes_change_no_answer_and_no_node(monkeypatch, keep: float) -> None:
    """The codes kept only find a child land again without reducing it: a state that forgets
    all or the older half of them whenever they fill their first room finds the very same
    children, in more reductions."""
    from sprouts_cli.solve import compiled as module

    plain = compiled(tt_entries=1 << 17)  # a table that does not grow: else it would grow at
    assert plain.state.code_bytes == module.CODE_BYTES  # other returns to Python, which changes the nodes
    monkeypatch.setattr(module, "CODE_BYTES", 0)
    monkeypatch.setattr(module, "CODE_KEEP", keep)
    forgetful = compiled(tt_entries=1 << 17)
    for n in (9, 10):
        assert forgetful.outcome(Position.start(n)) is plain.outcome(Position.start(n))
    assert forgetful.nimber("0*3.1a2a") == plain.nimber("0*3.1a2a")
    assert forgetful.stats["nodes"] == plain.stats["nodes"]
    assert forgetful.stats["table_entries"] == plain.stats["table_entries"] == 1 << 17
    assert forgetful.stats["lands_reduced"] > plain.stats["lands_reduced"]
    assert forgetful.state.codes_forgotten > 0 and plain.state.codes_forgotten == 0
    assert forgetful.state.CODE.shape[0] < plain.state.CODE.shape[0]


def test_a_growth_leaves_no_replaced_array_alive() -> None:
    """The built kernels' guard remembers the state tuples it checked: a growth must not leave
    the arrays it replaced alive in them (as much memory again as the arrays that grew)."""
    import weakref

    from sprouts_cli.solve import compiled as module

    solver = compiled()
    assert solver.outcome(Position.start(5)) is True
    st = solver.state
    core = module.core
    signature, fn = core.EXPORTS["rehash"]
    core.state_guarded(lambda S: None, fn, signature)(st.S)  # a built kernel's guard, on a stand-in
    old, size = weakref.ref(st.TEXT), st.TEXT.shape[0]
    top = int(st.G[core.G_TEXT_TOP])
    st.G[core.G_TEXT_TOP] = size  # as if the strings filled it: the growth doubles it
    st.grow()
    st.G[core.G_TEXT_TOP] = top
    assert st.TEXT.shape[0] > size and old() is None
    assert solver.outcome(Position.start(8)) is False


def test_without_a_table_the_rows_of_what_was_written_stay_untouched() -> None:
    from sprouts_cli.solve import pncore

    solver = compiled()
    assert solver.outcome(Position.start(9)) is True
    st = solver.state
    assert not st.I64[pncore.L_SAVED_WINS].any() and not st.I32[pncore.L_SAVED_NIM].any()


def test_a_lands_block_of_children_is_never_longer_than_its_moves_can_fill() -> None:
    """A land's block of children doubles as it fills, but never past the children its moves
    can give (the lands with one to three moves took blocks of four)."""
    from sprouts_cli.solve import pncore

    solver = compiled()
    assert solver.outcome(Position.start(9)) is True
    st = solver.state
    n = int(st.G[pncore.G_NUMBERS])
    opened = st.I64[pncore.L_KIDS, :n] >= 0
    cap, moves = st.I32[pncore.L_KCAP, :n][opened], st.I32[pncore.L_KMOVES, :n][opened]
    counts = (st.I64[pncore.L_KIDS, :n][opened] >> 1) & ((1 << 23) - 1)
    assert (counts <= cap).all() and (cap <= moves).all()
    assert ((moves > 0) & (moves < 4) & (cap > 0)).any()  # blocks shorter than the first four


def test_children_and_nodes_as_the_reference_gives_them() -> None:
    fast, reference = compiled(), NormalSolver()
    for land in ["0*4", "0.AB|0*3.AB", "1a1a.0*2", "0*3.1a2a"]:
        assert sorted(fast.children_of(land)) == sorted(reference.children_of(land)), land
        assert fast.node_of((land, land), 1) == reference.node_of((land, land), 1)
        assert fast.node_of((land,), 0) == reference.node_of((land,), 0)
    assert fast.node_of(("0*2", "0*3"), 0) == reference.node_of(("0*2", "0*3"), 0)


def test_a_deadline_in_the_past_stops_the_search_and_keeps_what_was_proved() -> None:
    solver = compiled()
    with pytest.raises(OutOfTime):
        solver.outcome("0*9", deadline=time.monotonic() - 1)
    solved = solver.stats["positions_solved"]
    assert solver.outcome("0*4") is True
    assert solver.stats["positions_solved"] >= solved


def test_an_abort_request_stops_the_search() -> None:
    with pytest.raises(SolveInterrupted):
        compiled(abort=lambda: True).outcome("0*9")


def test_the_table_is_written_and_read(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    with Table(path) as table:
        first = compiled(table=table)
        assert first.nimber("0*6") == 0
        assert first.stats["positions_solved"] > 0
        first.write_facts()
    with Table(path) as table:
        second = compiled(table=table)
        assert second.nimber("0*6") == 0
        assert second.stats["lands_expanded"] == 0
        assert second.stats["table_hits"] >= 1
        reference = NormalSolver(table)  # what the core wrote, the reference reads
        assert reference.nimber("0*6") == 0 and reference.stats["lands_expanded"] == 0


def test_known_nimber_and_recorded_facts() -> None:
    solver = compiled()
    assert solver.known_nimber("0*4") is None
    assert solver.nimber("0*4") == 1
    assert solver.known_nimber("0*4") == 1
    solver.record_win("0*3.1a2a", 2)
    assert solver.remembered("0*3.1a2a") == (None, 4)
    solver.record_nimber("0*3.1a2a", 0)
    assert solver.remembered("0*3.1a2a") == (0, 0)


def test_small_questions_go_to_the_reference_until_the_core_is_loaded() -> None:
    solver = CompiledNormalSolver()
    assert solver.outcome("0*4") is True
    assert not solver.loaded
    assert solver.outcome(Position.start(10)) is True
    assert solver.loaded


def test_the_process_solver_is_the_compiled_one_unless_told() -> None:
    assert isinstance(normal_solver(), CompiledNormalSolver)
    env = {**os.environ, "SPROUTS_COMPILED_SEARCH": "0"}
    code = "from sprouts_cli.solve.search import normal_solver; print(type(normal_solver()).__name__)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "NormalSolver"


def test_the_core_runs_as_plain_python_too() -> None:
    # the kernels unchanged as Python (SPROUTS_PURE_PYTHON=1): slow, but the same search
    code = (
        "from sprouts_cli.solve.compiled import CompiledNormalSolver\n"
        "s = CompiledNormalSolver(compile_lives=0)\n"
        "print(s.outcome('0*4'), s.nimber('0*3'), s.stats['nodes'])\n"
    )
    env = {**os.environ, "SPROUTS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    reference = NormalSolver()
    want = (reference.outcome("0*4"), reference.nimber("0*3"), reference.stats["nodes"])
    assert out.stdout.split() == [str(x) for x in want]


def test_the_cores_cache_is_stamped_with_the_engines_kernel_sources(tmp_path: Path, monkeypatch) -> None:
    # the core's kernels compile the engine's into themselves: numba's cache must go stale
    # when an engine kernel file changes, not only when pncore.py does
    from sprouts_cli.solve import pncore

    if aot.kernel_path() == "python":
        pytest.skip("plain Python: nothing cached")
    locator = pncore.run._cache._impl.locator
    assert locator.get_source_stamp()[1] == aot.sources_stamp()
    for name in dir(pncore):
        k = getattr(pncore, name)
        if hasattr(k, "py_func") and hasattr(k, "signatures"):
            assert type(k._cache).__name__ == "_StampedCache", name
    twin = [v for v in vars(pncore.K).values() if hasattr(v, "py_func") and hasattr(v, "_cache")]
    assert twin and all(k._cache._impl.filename_base.startswith("twin-") for k in twin)


@pytest.mark.parametrize("threads", [2, 4])
def test_the_answers_do_not_depend_on_the_threads(threads: int, tmp_path: Path) -> None:
    # N threads of one search share the arrays: the answers are those of one thread
    one = compiled()
    many = compiled(threads=threads)
    for n in range(1, 11):
        assert many.outcome(Position.start(n)) is one.outcome(Position.start(n)) is (n % 6 in (3, 4, 5))
    lands = sorted(k for k, p in reachable(4).items() if len(p.lands()) == 1 and p.total_lives >= 8)
    for land in lands[::29]:
        assert many.nimber(land) == brute_nimber(land), land
    with Table(tmp_path / "t.sqlite") as table:
        shared = compiled(table=table, threads=threads)
        assert shared.nimber("0*9") == one.nimber("0*9")
        assert shared.outcome("0*10") is True


@pytest.mark.parametrize(("threads", "turns"), [(2, 1), (2, 16), (3, 4)])
def test_threads_taking_turns_give_the_same_answers_and_nodes_on_every_run(threads: int, turns: int) -> None:
    # the threads' searches interleaved in one OS thread: the answers of one thread, and
    # the same nodes every time (what bench_interleaved.py relies on)
    one = compiled()
    runs = [compiled(threads=threads, interleave=turns) for _ in range(2)]
    for n in range(6, 10):
        assert [s.outcome(Position.start(n)) for s in runs] == [one.outcome(Position.start(n))] * 2
    assert runs[0].thread_counts() == runs[1].thread_counts()
    assert runs[0].thread_counts("moves") == runs[1].thread_counts("moves")
    assert all(nodes > 0 for nodes in runs[0].thread_counts())  # every thread searched
    land = "0*3.AB|0*2.AB"
    assert runs[0].nimber(land) == one.nimber(land)


def test_threads_stop_with_the_deadline() -> None:
    solver = compiled(threads=2)
    with pytest.raises(OutOfTime):
        solver.outcome("0*12", deadline=time.monotonic() + 0.5)
    assert solver.outcome("0*5") is True  # and the solver goes on afterwards


TABLE_ENTRIES = """
import json, warnings
warnings.simplefilter("ignore")  # plain Python's hashes overflow as the compiled ones wrap
from sprouts_cli.solve import compiled
core = compiled._load_core()
st = compiled.State(0, False, tt_entries=core.BUCKET)  # one bucket: every node meets every other
S = st.S
out = []
core._tt_put(S, 5, 3, 7, 10)
core._tt_put(S, 6, core.INF, 1 << 40, 1 << 40)  # past 31 bits: read back as INF
out += [[int(x) for x in core._tt_get(S, 5)], [int(x) for x in core._tt_get(S, 6)]]
core._tt_put(S, 5, 4, 9, 12)  # its own entry again, never a second one
out.append([int(x) for x in core._tt_get(S, 5)] + [int((st.TTK == 5).sum())])
core._tt_put(S, 7, 2, 2, 50)
core._tt_put(S, 8, 2, 2, 1)
core._tt_put(S, 9, 2, 2, 30)  # the bucket is full: the entry with the least work (8) goes
out.append(sorted(int(k) for k in st.TTK))
slot = int((st.TTK == 7).nonzero()[0][0])
st.TTV[core.V_NUMBERS, slot] ^= 1 << 33  # half of an entry written by another thread
out.append([int(x) for x in core._tt_get(S, 7)])
print(json.dumps(out))
"""


@pytest.mark.parametrize("plain", [False, True])
def test_a_table_entry_keeps_its_numbers_in_two_words_and_a_torn_one_is_absent(plain: bool) -> None:
    env = {**os.environ, **({"SPROUTS_PURE_PYTHON": "1"} if plain else {})}
    run = [sys.executable, "-c", TABLE_ENTRIES]
    out = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    from sprouts_cli.solve.pncore import INF

    assert json.loads(out.stdout) == [[3, 7], [INF, INF], [4, 9, 1], [5, 6, 7, 9], [-1, -1]]


VIRTUAL_CHOICE = """
import json, warnings
warnings.simplefilter("ignore")  # plain Python's hashes overflow as the compiled ones wrap
from sprouts_cli.solve import compiled
solver = compiled.CompiledNormalSolver(None, compile_lives=0)
st = solver.state  # loads the core
core = compiled.core
land = solver._land_number("0*4")
first, second = [int(core.node_of(st.S, c, 0)) for c in solver._retry(core.children_of, land)][:2]
core._tt_put(st.S, first, 3, 3, 1)  # the true choice: the least dn
core._tt_put(st.S, second, 3, 5, 1)
st.G[core.G_THREADS], st.G[core.G_VIRTUAL] = 2, 4
st.BUSY[core._mix(first) & (st.BUSY.shape[0] - 1)] = 1  # another thread searches the true choice
core._push(st.S, land, core.INF, core.INF, 0, 0, 4)  # thmin 4: dn 5 is over it, dn 3 is not
core._step_land(st.S, 0)
print(json.dumps([int(st.T[0][core.T_SP]), int(st.STK[0][core.F_NODE, 1]), first, second]))
"""


def test_a_virtual_choice_that_would_leave_at_once_gives_way_to_the_true_one() -> None:
    # Two threads once went round for ever, neither entering a node: each step chose, by the
    # virtual numbers, a child over thmin that left at once, while the other thread stayed
    # at the true choice.  The step now pushes the true choice then.
    env = {**os.environ, "SPROUTS_PURE_PYTHON": "1"}
    out = subprocess.run(
        [sys.executable, "-c", VIRTUAL_CHOICE], env=env, capture_output=True, text=True, check=True
    )
    sp, pushed, first, second = json.loads(out.stdout)
    assert first != second and sp == 2 and pushed == first


def test_spreading_stalls_are_seen_and_the_search_goes_on_without_it(monkeypatch) -> None:
    from sprouts_cli.solve import compiled as module

    solver = compiled(threads=2)
    st = solver.state
    core = module.core
    assert not solver._spreading_stalled()  # the first look only marks where the search is
    st.T[1][core.T_TICKS] += module.STALL_NODES - 1
    assert not solver._spreading_stalled()
    st.T[0][core.T_TICKS] += 1
    assert solver._spreading_stalled()  # that many nodes, no land numbered, no fact proved
    st.T[0][core.T_SOLVED] += 1
    assert not solver._spreading_stalled()  # a fact: a step forward
    # spreading switched off as soon as the helper runs: the same answers, and the state is
    # left clean for the next question
    looks: list[bool] = []
    monkeypatch.setattr(CompiledNormalSolver, "_spreading_stalled", lambda self: looks.append(True) or True)
    one = compiled()
    for n in (9, 10, 11):
        assert solver.outcome(Position.start(n)) is one.outcome(Position.start(n))
    assert solver.nimber("0*8") == one.nimber("0*8")
    assert looks  # the helper ran, and spreading was switched off
    assert st.G[core.G_THREADS] == 1 and not st.BUSY.any()
