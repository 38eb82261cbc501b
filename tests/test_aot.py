"""The ahead-of-time kernels (``engine.aot``): same answers as the JIT and plain-Python kernels,
never loaded when stale, no numba in a process that uses them, and ``sprouts kernels``.

The suite itself runs on the JIT kernels (``conftest``: ``SPROUTS_AOT=0``); the tests that
need a built module use the one ``make`` builds (``sprouts kernels --build``) and are
skipped, saying so, where it could not be built (no C compiler, no ``numba.pycc``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from games import reachable

from sprouts_cli.cli import main
from sprouts_cli.engine import Position, aot, aot_check, kernels
from sprouts_cli.engine.canonical import clean_lands
from sprouts_cli.engine.moves import representative_moves
from sprouts_cli.engine.reduce import reduced_lands
from sprouts_cli.solve.session import Session

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built() -> aot.ModuleType:
    module = aot.load_built()
    if module is None:
        pytest.skip(f"no ahead-of-time kernels built in {aot.kernels_dir()}: run `sprouts kernels --build`")
    return module


def entry(built: aot.ModuleType, name: str):
    """The built kernel ``name`` behind the argument checks the AOT path puts it behind."""
    e = aot.EXPORTS[name]
    return aot.guarded(getattr(built, name), e.function, e.signature)


def same(a, b) -> bool:
    return aot_check._same(a, b)


def test_every_module_that_exports_a_kernel_is_in_the_stamp() -> None:
    sources = {str(p.relative_to(aot.ENGINE_DIR)) for p in aot.kernel_sources()}
    assert {"kernels/land_code.py", "kernels/into.py", "aot.py"} <= sources
    entry_points = {"land_code_into", "child_lands_into", "position_lands_into"}
    entry_points |= {"parse_land_into", "list_moves_into"}
    assert set(aot.EXPORTS) >= entry_points
    for e in aot.EXPORTS.values():
        assert str(Path(sys.modules[e.module].__file__).relative_to(aot.ENGINE_DIR)) in sources, e.module


def test_signatures_are_read_as_array_and_scalar_arguments() -> None:
    assert aot.arg_types("Tuple((uint8[::1], uint8[::1]))(int64[::1], boolean)") == [
        ("int64", 1, True),
        (None, 0, False),
    ]
    assert aot.arg_types("float64[:, ::1](int32[:, :], int64)") == [("int32", 2, False), (None, 0, False)]


def test_a_guarded_kernel_refuses_wrong_arrays_instead_of_reading_past_them() -> None:
    seen = []

    def compiled(a, b):
        seen.append(a.flags.c_contiguous)
        return a.sum() + b

    call = aot.guarded(compiled, compiled, "int64(int64[::1], int64)")
    assert call(np.arange(4, dtype=np.int64), 1) == 7
    assert call(np.arange(8, dtype=np.int64)[::2], 0) == 12  # a strided view is copied
    assert seen == [True, True]
    for wrong in (np.arange(4, dtype=np.int32), [1, 2], np.zeros((2, 2), np.int64)):
        with pytest.raises(TypeError):
            call(wrong, 0)
    right = np.arange(3, dtype=np.int64)
    assert call(right, 0) == call(right, 1) - 1 == 3  # a right array, remembered, passes again
    with pytest.raises(TypeError):
        call(np.arange(3, dtype=np.int32), 0)  # and another in its place is checked
    assert call.py_func is compiled


def into(fn, *args, nwords: int = 4096, nchars: int = 16384):
    """A ``*_into`` kernel's result and its two buffers (zeroed first) after the call."""
    words, chars = np.zeros(nwords, np.int64), np.zeros(nchars, np.uint8)
    return fn(*args, words, chars), words, chars


def test_the_built_kernels_code_and_write_lands_as_jit_and_python_do(built) -> None:
    code = entry(built, "land_code_into")
    lands = [(land, p.lives) for k in range(1, 5) for p in reachable(k).values() for land in clean_lands(p)]
    for land, lives in lands[::5]:
        flat = np.array(kernels.flatten_land(land, lives), np.int64)
        for write in (True, False):
            got = into(code, flat, write)
            assert same(got, into(kernels.land_code_into, flat, write)), land
            n, words, chars = got
            want_code, want_text = kernels.land_code_kernel.py_func(flat, write)
            assert n == len(want_code) > 0, land
            assert chars[:n].tobytes() == want_code.tobytes(), land
            assert chars[n : n + words[0]].tobytes() == want_text.tobytes(), land
            small = into(code, flat, write, nwords=2, nchars=n - 1)  # one byte short: nothing written
            assert small[0] == kernels.TOO_SMALL and small[1][1] == n + len(want_text), land
            assert same(small, into(kernels.land_code_into, flat, write, nwords=2, nchars=n - 1)), land


def test_the_built_kernels_make_the_children_jit_and_python_make(built) -> None:
    children = entry(built, "child_lands_into")
    for p in [p for k in range(1, 5) for p in reachable(k).values()][::25]:
        flat = np.array(kernels.flatten_position(p.regions), np.int64)
        lives = np.array(p.lives, np.int64)
        for m in representative_moves(p):
            if any(k > 62 for k in m.inside):
                continue
            mask = sum(1 << k for k in m.inside)
            args = (flat, lives, m.region, m.boundary, m.corner, m.boundary2, m.corner2, mask)
            got = into(children, *args)
            assert same(got, into(kernels.child_lands_into, *args)), (p, m)
            n, words, chars = got
            want_flat, land_off, keys, key_off = kernels.child_lands_kernel.py_func(*args)
            assert n == len(land_off) - 1
            assert words[: n + 1].tolist() == land_off.tolist()
            assert words[n + 1 : 2 * n + 2].tolist() == key_off.tolist()
            assert words[2 * n + 2 : 2 * n + 2 + len(want_flat)].tolist() == want_flat.tolist()
            assert chars[: len(keys)].tobytes() == keys.tobytes()
            small = into(children, *args, nwords=2, nchars=0)
            if n:
                assert small[0] == kernels.TOO_SMALL
                assert small[1][:2].tolist() == [2 * n + 2 + len(want_flat), len(keys)]


def test_the_built_kernels_write_a_positions_lands_as_jit_and_python_do(built) -> None:
    lands = entry(built, "position_lands_into")
    for p in [p for k in range(1, 5) for p in reachable(k).values()][::7]:
        packed = np.array([len(p.lives), *p.lives, *kernels.flatten_position(p.regions)], np.int64)
        got = into(lands, packed)
        assert same(got, into(kernels.position_lands_into, packed)), p
        text, ok = kernels.position_lands_kernel.py_func(packed)
        assert ok and got[0] == len(text) and got[2][: len(text)].tobytes() == text.tobytes(), p


def test_the_built_kernels_read_lands_and_list_moves_as_jit_and_python_do(built) -> None:
    parse, listing = entry(built, "parse_land_into"), entry(built, "list_moves_into")
    lands = sorted({x for k in range(1, 5) for p in reachable(k).values() for x in reduced_lands(p)})
    for land in [*lands[::3], "0*12", "0*3.AB|AB.0", "n(27).1|n(27).2"]:
        text = np.frombuffer(land.encode("ascii"), np.uint8)
        got = into(parse, text)
        assert same(got, into(kernels.parse_land_into, text)), land
        flat, lives = kernels.parse_land_kernel.py_func(text)
        n, words, _chars = got
        assert n == len(flat) and words[0] == len(lives), land
        assert words[1 : 1 + n].tolist() == flat.tolist(), land
        assert words[1 + n : 1 + n + len(lives)].tolist() == lives.tolist(), land
        if 1 + n + len(lives) > 2:
            assert into(parse, text, nwords=2)[0] == kernels.TOO_SMALL, land
        if n:
            listed = into(listing, flat, lives)
            assert same(listed, into(kernels.list_moves_into, flat, lives)), land
            moves, fits = kernels.list_moves_kernel.py_func(flat, lives)
            assert listed[0] == (len(moves) if fits else kernels.NOT_CODED), land
            if fits:
                assert listed[1][: len(moves)].tolist() == moves.tolist(), land


def test_the_build_checks_itself_against_the_jit_kernels(built) -> None:
    assert aot_check.check_against_jit(built) == ""


def _run_python(code: str, kernels_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("SPROUTS_AOT", "SPROUTS_PURE_PYTHON")}
    environ.update({aot.DIR_ENV: str(kernels_dir), **env})
    return subprocess.run(
        [sys.executable, "-c", code], env=environ, cwd=ROOT, capture_output=True, text=True,
        timeout=300, check=True,
    )


SOLVE_AND_REPORT = """
import json, sys
from sprouts_cli.engine import Position, backend
from sprouts_cli.solve.session import Session
s = Session(None, jobs=1)
s2 = Session(None, jobs=1, misere=True)
answers = [s.outcome(Position.from_string("0*8")), s.nimber(Position.from_string("0*5")),
           s2.outcome(Position.from_string("0*5"))]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite"))
print(json.dumps({"answers": answers, "kernels": backend.kernels_in_use(), "loaded": loaded}))
"""


def test_a_solve_on_the_built_kernels_loads_neither_numba_nor_llvmlite(built) -> None:
    done = _run_python(SOLVE_AND_REPORT, aot.kernels_dir())
    report = json.loads(done.stdout.splitlines()[-1])
    s, s2 = Session(None, jobs=1), Session(None, jobs=1, misere=True)  # this process: the JIT path
    jit = [s.outcome(Position.from_string("0*8")), s.nimber(Position.from_string("0*5")),
           s2.outcome(Position.from_string("0*5"))]  # fmt: skip
    assert report == {"answers": jit, "kernels": "aot", "loaded": []}, done.stderr
    assert jit[:2] == [False, 1]  # 0*8 a loss, 0*5 a win (n mod 6 in 3, 4, 5)



#: ``sprouts solve`` in-process, then the modules of its start that a solve with --no-db does not need.
CLI_SOLVE_AND_REPORT = """
import sys
from sprouts_cli.cli import main
try:
    main(["solve", "0*5", "--no-db", "--jobs", "1", "--json"])
except SystemExit as e:
    assert not e.code, e.code
unneeded = ("numba", "llvmlite", "_hashlib", "sqlite3", "subprocess", "sprouts_cli.solve.cluster")
print("LOADED:" + ",".join(m for m in unneeded if m in sys.modules))
"""


def test_a_solve_without_a_table_on_the_built_kernels_loads_only_what_it_uses(built) -> None:
    # the stamp is hashed by Python's own SHA-256, not OpenSSL's (libcrypto: 3.4 MB of the process);
    # sqlite3 is for a table and subprocess for worker processes or a build
    done = _run_python(CLI_SOLVE_AND_REPORT, aot.kernels_dir())
    assert '"kernels": "aot"' in done.stdout and '"outcome": "win"' in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1] == "LOADED:", done.stdout

def test_on_the_built_kernels_even_small_questions_go_to_the_core(built) -> None:
    # loading the build costs milliseconds, not numba's compilation: no question waits for the reference
    code = (
        "from sprouts_cli.solve.compiled import CompiledNormalSolver\n"
        "s = CompiledNormalSolver()\n"
        "print(s.outcome('0*3'), s.loaded)\n"
    )
    done = _run_python(code, aot.kernels_dir())
    assert done.stdout.split() == ["True", "True"], done.stderr


def _copy_build(into: Path) -> Path:
    folder = aot.built_folder()
    if folder is None:
        pytest.skip(f"no ahead-of-time kernels built in {aot.kernels_dir()}: run `sprouts kernels --build`")
    return Path(shutil.copytree(folder, into / folder.name))


def test_a_build_from_other_sources_or_versions_is_ignored(tmp_path: Path, monkeypatch) -> None:
    folder = _copy_build(tmp_path)
    assert aot.built_folder(tmp_path) == folder
    facts = aot.stamp_facts()
    for changed in ({"sources": "0" * 20}, {"numba": "0.0"}, {"python": "another"}):
        monkeypatch.setattr(aot, "stamp_facts", lambda changed=changed: {**facts, **changed})
        assert aot.built_folder(tmp_path) is None  # looked for under another stamp
        shutil.copytree(folder, tmp_path / aot.stamp(), dirs_exist_ok=True)  # the old build renamed
        assert aot.built_folder(tmp_path) is None  # its stamp.json says what it was built from
        assert aot.load_built(tmp_path) is None
        shutil.rmtree(tmp_path / aot.stamp())
    monkeypatch.undo()
    assert aot.built_folder(tmp_path) == folder



@pytest.mark.parametrize(
    ("xdg", "home"),
    [(None, "/home/someone"), ("/tmp/elsewhere/cache", "/home/someone"), ("relative/cache", "/home/someone"),
     ("", "/root"), (None, "relative-home"), (None, None)],
)  # fmt: skip
def test_the_cache_folder_is_the_one_platformdirs_gives(monkeypatch, xdg: str | None, home: str | None):
    for name, value in (("XDG_CACHE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert aot.user_cache_dir() == aot.platformdirs_cache_dir()
    monkeypatch.delenv(aot.DIR_ENV, raising=False)
    assert aot.kernels_dir() == aot.platformdirs_cache_dir() / "kernels"

def test_a_build_whose_file_changed_is_never_loaded(tmp_path: Path) -> None:
    """A module file that is not the one recorded at build time (here: not a module at all,
    so loading it would raise) is passed over before it is loaded."""
    folder = tmp_path / aot.stamp()
    folder.mkdir()
    lib = aot.module_file(folder)
    lib.write_bytes(b"not an extension module")
    record = {"facts": aot.stamp_facts(), aot.FILE_CHECK: "0" * 8}
    (folder / aot.STAMP_FILE).write_text(json.dumps(record))
    assert aot.built_folder(tmp_path) is None
    assert aot.load_built(tmp_path) is None
    record[aot.FILE_CHECK] = aot._file_hash(lib)  # recorded, but it does not load: still the JIT path
    (folder / aot.STAMP_FILE).write_text(json.dumps(record))
    assert aot.load_built(tmp_path) is None and "does not load" in aot.load_problem[0]


def test_a_process_with_a_stale_build_takes_the_jit_path(tmp_path: Path) -> None:
    folder = tmp_path / "0123456789abcdef"  # another stamp's folder
    folder.mkdir()
    aot.module_file(folder).write_bytes(b"garbage")
    (folder / aot.STAMP_FILE).write_text("{}")
    code = "from sprouts_cli.engine import aot, kernels; kernels.warm_up(); print(aot.kernel_path())"
    assert _run_python(code, tmp_path).stdout.split() == ["jit"]
    assert _run_python(code, tmp_path, SPROUTS_PURE_PYTHON="1").stdout.split() == ["python"]


def test_the_kernels_command_tells_which_kernels_are_used(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(aot.DIR_ENV, str(tmp_path))
    runner = CliRunner()
    done = runner.invoke(main, ["kernels", "--json"])
    assert done.exit_code == 0, done.output
    state = json.loads(done.output)
    assert state["built"] is False and state["directory"] == str(tmp_path)
    assert state["path"] == "jit"  # the suite runs with SPROUTS_AOT=0
    assert state["stamp"] == aot.stamp()
    done = runner.invoke(main, ["kernels"])
    assert done.exit_code == 0 and "not built (sprouts kernels --build)" in done.output
    done = runner.invoke(main, ["kernels", "--force"])
    assert done.exit_code == 2 and "--force goes with --build" in done.output


def test_a_failed_build_is_one_line_and_leaves_the_jit_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(aot.DIR_ENV, str(tmp_path))

    def no_compiler(directory=None, force=False):
        raise aot.BuildFailed("numba.pycc failed: command 'gcc' failed: No such file or directory")

    monkeypatch.setattr(aot, "build", no_compiler)
    done = CliRunner().invoke(main, ["kernels", "--build"])
    assert done.exit_code == 1
    assert done.output.strip().splitlines() == [
        "kernels not built: numba.pycc failed: command 'gcc' failed: No such file or directory; "
        "the JIT kernels are used"
    ]


def test_the_build_child_fails_in_one_line_without_pycc(tmp_path: Path) -> None:
    """A numba without ``numba.pycc`` (a future release): the build says so in one line."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\nsys.modules['numba.pycc'] = None\n")
    env = {k: v for k, v in os.environ.items() if k != "SPROUTS_PURE_PYTHON"}
    env.update({"SPROUTS_AOT": "0", "PYTHONPATH": str(tmp_path), "PYTHONWARNINGS": "ignore"})
    code = "import sys; from sprouts_cli.engine.aot_check import compile_into; compile_into(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "out")], env=env, cwd=ROOT, capture_output=True,
        text=True, timeout=300, check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "has no numba.pycc" in done.stderr


def test_building_when_up_to_date_builds_nothing(built, monkeypatch) -> None:
    folder = aot.built_folder()
    monkeypatch.setattr(subprocess, "run", None)  # a build would call it
    assert aot.build() == folder
    done = CliRunner().invoke(main, ["kernels", "--build"])
    assert done.exit_code == 0 and "up to date" in done.output


@pytest.mark.slow
def test_a_build_from_scratch_is_used_and_keeps_only_the_newest_builds(tmp_path: Path) -> None:
    olds = [tmp_path / f"{k:016x}" for k in range(aot.KEEP_BUILDS)]
    for k, old in enumerate(olds):
        old.mkdir()
        (old / aot.STAMP_FILE).write_text("{}")
        os.utime(old / aot.STAMP_FILE, (k, k))
    folder = aot.build(tmp_path)
    assert not olds[0].exists() and all(old.exists() for old in olds[1:])
    assert aot.built_folder(tmp_path) == folder
    assert aot_check.check_against_jit(aot.load_built(tmp_path)) == ""
    assert json.loads(_run_python(SOLVE_AND_REPORT, tmp_path).stdout.splitlines()[-1])["kernels"] == "aot"


def test_the_built_core_leaves_what_the_jit_core_leaves(built) -> None:
    # answers, facts, children, statistics and every array of a small search, table growth included
    from sprouts_cli.solve import compiled

    assert compiled.check_built_core(built) == ""


def test_the_built_core_is_checked_against_its_state_before_it_reads_it() -> None:
    from sprouts_cli.solve import compiled, pncore

    pncore.check_state(compiled.CompiledNormalSolver(None).state.S)  # the solver's own state passes
    size = len(pncore._STATE_ARRAYS)
    state = [np.zeros(4, np.int64) for _ in range(size)]
    with pytest.raises(TypeError, match="array 2 of the state"):
        pncore.check_state(tuple(state))
    with pytest.raises(TypeError, match=f"tuple of {size}"):
        pncore.check_state(tuple(state[:3]))


CORE_WITHOUT_THE_GIL = """
import json, sys, threading, time
import numpy as np
from sprouts_cli.engine import aot, backend
from sprouts_cli.solve import compiled
from sprouts_cli.solve.session import Session
answers = [Session(None, jobs=2).outcome("0*11"), Session(None, jobs=1).nimber("0*9")]
solver = compiled.CompiledNormalSolver(None)
core = compiled._load_core()
st = solver.state
for name, size in (("I64", 18), ("I32", 18), ("CE", 18), ("TEXT", 23), ("SUMS", 20), ("KIDS", 22),
                   ("CODE", 24), ("HTAB", 19), ("STAB", 19), ("CTAB", 19)):
    a = getattr(st, name)
    setattr(st, name, np.zeros((*a.shape[:-1], 1 << size), a.dtype))  # room: long calls of the core
st.S = st.tuple_for(0)
st.T[0][core.T_ROOT] = solver._land_number("0*12")
st.T[0][core.T_STOP_AT] = 1 << 40
ticks = st.T[0]  # the core counts its nodes in ticks[T_TICKS]: Python reads it as the core runs
calls = []  # (nodes counted when a call began, when it returned, its status)
def search():
    while True:
        before = int(ticks[core.T_TICKS])
        status = core.run(st.S)
        calls.append((before, int(ticks[core.T_TICKS]), int(status)))
        if status in (core.DONE, core.PAUSED):
            return
        solver._handle(0, status)
runner = threading.Thread(target=search)
runner.start()
seen = []  # the counts this thread read, each while it held the GIL
while runner.is_alive():
    seen.append(int(ticks[core.T_TICKS]))
    if len(set(seen) - {0}) >= 3:  # the first two are below the third, so below the last count of a call
        st.G[core.G_STOP] = 1  # every thread returns (PAUSED)
        break
    time.sleep(0.001)
runner.join()
inside = [n for n in seen if any(a < n < b for a, b, _ in calls)]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite"))
kernels = aot.kernel_path() if compiled.core is not None else backend.kernels_in_use()  # as `solve --json`
print(json.dumps({"answers": answers, "kernels": kernels, "loaded": loaded,
                  "calls": calls, "seen": seen, "inside": inside}))
"""


def test_the_built_core_solves_with_threads_without_numba_and_leaves_the_gil(built) -> None:
    # A count of nodes read by this thread strictly between the counts at the start and the end
    # of one call of the core was read while the core ran, so the core had let go of the GIL;
    # a core that held it would let this thread run only between calls.  The search (0*12, many
    # seconds to its end) is stopped as soon as three counts were read: no time limit in the test.
    done = _run_python(CORE_WITHOUT_THE_GIL, aot.kernels_dir())
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["answers"] == [True, Session(None, jobs=1).nimber("0*9")], done.stderr
    assert report["kernels"] == "aot" and report["loaded"] == []
    assert report["inside"], report
