"""SIGTERM and SIGINT end every command cleanly, wherever they land (``procs.stops_cleanly``).

A signal's handler runs wherever the interpreter next looks for signals, and that may
be the Python code numba's compiled code calls back; an exception raised there comes
out as a ``SystemError`` with a long traceback.  These tests send the signals at
random moments to real commands (``play --save``, ``layout``, ``replay --html``,
``dots solve``) and find exit code 143 or 130, one line, no traceback, no half-written
file and no process left; and, in this process, drive a numba kernel in a loop while
signals arrive.
"""

from __future__ import annotations

import _thread
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import FrameType

import numpy as np
import pytest
from click.testing import CliRunner
from signal_helpers import stop_signals_as_at_a_terminal

from sprouts_cli import procs
from sprouts_cli.cli import main

ON_LINUX = Path("/proc").is_dir()
EXIT = {signal.SIGTERM: 143, signal.SIGINT: 130, signal.SIGHUP: 129}
WORD = {signal.SIGTERM: "terminated", signal.SIGINT: "interrupted", signal.SIGHUP: "terminated"}


# ------------------------------------------------------------------ in this process


@pytest.fixture(autouse=True)
def _stop_signals_as_python_sets_them():
    """Each test starts with Python's own Ctrl-C handler and SIGTERM and SIGHUP at their
    defaults: an earlier test may leave SIGINT ignored, ``nohup`` leaves SIGHUP ignored, and an
    ignored signal stays ignored inside ``stops_cleanly``."""
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if before[signum] is signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


@pytest.fixture(scope="module")
def boxing_kernel():
    """A compiled kernel that works a moment and returns a tuple holding an array: boxing it
    calls back into numba's Python code (the place a raised signal turned into a SystemError)."""
    numba = pytest.importorskip("numba")

    @numba.njit(nogil=True)
    def busy(n):
        s = 0.0
        for i in range(n):
            s += (i % 7) * 0.5
        return s, np.zeros(3), 1.0

    busy(10)
    return busy


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_during_kernel_calls_comes_out_as_itself(boxing_kernel, sig: signal.Signals) -> None:
    """Without the deferral about nine in ten of these end in ``SystemError``."""
    want = KeyboardInterrupt if sig == signal.SIGINT else procs.Terminated
    rng = random.Random(sig)
    for _ in range(25):
        caught: BaseException | None = None
        timer = threading.Timer(rng.uniform(0.001, 0.01), _thread.interrupt_main, (sig,))
        with procs.stops_cleanly():
            try:
                timer.start()
                end = time.monotonic() + 5
                while time.monotonic() < end:
                    boxing_kernel(300_000)
            except BaseException as e:
                caught = e
            timer.join()
        assert type(caught) is want, repr(caught)
        assert getattr(caught, "signum", signal.SIGINT) == sig  # and its exit code is 128 + it


def test_a_signal_kept_for_a_frame_that_never_runs_again_is_not_lost(monkeypatch, tmp_path: Path) -> None:
    """A signal that lands in numba's Python code waits for the caller's next line; should
    that frame never run again (it returned through C code, say), the signal comes anyway."""
    fake = tmp_path / "fakenumba"
    fake.mkdir()
    (fake / "inner.py").write_text("import sys\ndef here():\n    return sys._getframe()\n")
    monkeypatch.syspath_prepend(str(fake))
    import inner  # type: ignore[import-not-found]

    def finished() -> object:
        return inner.here()  # its frame's caller, this function, has returned when it is used

    frame = finished()
    monkeypatch.setattr(procs, "_compiled_dirs", lambda: (str(fake) + os.sep,))
    with procs.stops_cleanly(), pytest.raises(KeyboardInterrupt):
        procs.on_stop_signal(signal.SIGINT, frame)  # kept back: "inside numba"
        end = time.monotonic() + 10 * procs.DEFERRED_SECONDS
        while time.monotonic() < end:
            time.sleep(0.01)
    assert not procs._waiting
    assert sys.gettrace() is not procs._quiet  # the tracer that waited for the frame is off


_WRAPPING_IMPORT = """
import sys, time
from sprouts_cli.procs import interrupted_exit_code, stops_cleanly
try:
    with stops_cleanly():
        print("ready", flush=True)
        import wrapping  # its initialisation turns what is raised inside it into ImportError
        time.sleep(30)
except KeyboardInterrupt as e:
    print("imported" if "wrapping" in sys.modules else "cut short", flush=True)
    sys.exit(interrupted_exit_code(e))
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_during_an_import_waits_for_the_import(sig: signal.Signals, tmp_path: Path) -> None:
    """A compiled module's initialisation (pybind11's, in scipy) reports what is raised in
    the Python it calls as ``ImportError: initialization failed``: a signal landing there
    is kept until the import is done, then ends the command as itself."""
    (tmp_path / "slow_part.py").write_text("import time\ntime.sleep(1.5)\n")
    (tmp_path / "wrapping.py").write_text(
        "try:\n    import slow_part\nexcept BaseException as e:\n"
        "    raise ImportError('initialization failed') from e\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    child = subprocess.Popen(
        [sys.executable, "-c", _WRAPPING_IMPORT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=stop_signals_as_at_a_terminal,
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    time.sleep(0.5)  # inside slow_part's sleep
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert child.returncode == EXIT[sig], err
    assert out == "imported\n" and "Traceback" not in err and "ImportError" not in err


def test_a_signal_in_a_fork_hook_waits_for_the_code_that_forked() -> None:
    """``os.fork`` runs logging's lock hooks around a fork and prints, then drops, what is
    raised in them ("Exception ignored in: _releaseLock"): a signal landing there is kept
    for the frame that forked, as one landing in numba's code is."""
    import logging

    hooks: list[FrameType] = []

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name in ("_acquireLock", "_releaseLock"):
            hooks.append(frame)

    def forking_code() -> None:  # stands for multiprocessing's call of os.fork
        logging._acquireLock()  # type: ignore[attr-defined]
        logging._releaseLock()  # type: ignore[attr-defined]

    sys.settrace(tracer)
    try:
        forking_code()
    finally:
        sys.settrace(None)
    assert [f.f_code.co_name for f in hooks] == ["_acquireLock", "_releaseLock"]
    for hook in hooks:
        assert procs.outermost_compiled(hook) is hook
        assert hook.f_back is not None and hook.f_back.f_code.co_name == "forking_code"
        assert procs.outermost_compiled(hook.f_back) is None


def test_a_signal_in_a_finaliser_or_a_weakref_callback_waits_for_the_code_around_it() -> None:
    """CPython prints and drops what a finaliser or a weak-reference callback raises
    ("Exception ignored in: ... WeakKeyDictionary ... remove"): a SIGTERM landing there was
    lost and the command ran on to its end.  It is kept for the code that freed the object."""
    import weakref

    class Freed:
        def __del__(self) -> None:
            procs.on_stop_signal(signal.SIGTERM, sys._getframe())  # the signal lands in here

    def freeing_code() -> int:
        x = Freed()
        del x  # __del__ runs here: the signal comes out at the next line, as itself
        return 1

    with procs.stops_cleanly((signal.SIGTERM,)), pytest.raises(procs.Terminated):
        freeing_code()
    table: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
    key = Freed.__new__(Freed)
    table[key] = 1
    frames: list[FrameType] = []

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name == "remove":
            frames.append(frame)

    sys.settrace(tracer)
    try:
        Freed.__del__ = lambda self: None  # type: ignore[method-assign]
        del key
    finally:
        sys.settrace(None)
    assert frames and procs.outermost_compiled(frames[0]) is frames[0]


def test_handlers_are_put_back_and_an_ignored_signal_stays_ignored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with procs.stops_cleanly():
            assert signal.getsignal(signal.SIGTERM) is procs.on_stop_signal
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # a background job's Ctrl-C
            with procs.stops_cleanly():  # nested: nothing changes, nothing is put back early
                pass
            assert signal.getsignal(signal.SIGTERM) is procs.on_stop_signal
        assert signal.getsignal(signal.SIGTERM) is before
    finally:
        signal.signal(signal.SIGINT, old_int)


def test_run_stoppable_stops_the_kernel_and_passes_the_interrupt_on() -> None:
    flag = threading.Event()
    finished = threading.Event()

    def work() -> int:  # a kernel that polls its stop flag
        while not flag.is_set():
            time.sleep(0.001)
        finished.set()
        return 1

    timer = threading.Timer(0.05, _thread.interrupt_main, (signal.SIGTERM,))
    with procs.stops_cleanly(), pytest.raises(procs.Terminated) as stopped:
        timer.start()
        procs.run_stoppable(work, flag.set)
    assert finished.is_set(), f"the kernel was left running: {stopped.getrepr()}"
    flag.clear()
    assert procs.run_stoppable(lambda: 7, flag.set) == 7
    deadline = time.monotonic() + 0.05
    assert procs.run_stoppable(work, flag.set, deadline) == 1  # stopped at the deadline, its answer kept


def test_an_interrupt_no_command_handles_exits_130_not_click_aborted(monkeypatch, tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    play = ["play", "--spots", "2", "--first", "random", "--second", "random", "-q", "--seed", "1"]
    assert CliRunner().invoke(main, [*play, "--log", str(log), "--no-db"]).exit_code == 0

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("sprouts_cli.cli.watch.write_watch", stopped)
    r = CliRunner().invoke(main, ["replay", str(log), "--html", str(tmp_path / "g.html")])
    assert r.exit_code == 130, r.output
    assert "Aborted" not in r.output and "interrupted" in r.output
    monkeypatch.setattr("sprouts_cli.play.drawing.draw_line_of_play", stopped)
    r = CliRunner().invoke(main, ["replay", str(log), "--svg", str(tmp_path)])
    assert r.exit_code == 130 and "Aborted" not in r.output, r.output


# ------------------------------------------------------------------ real commands, real signals


def _group_alive(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (the command and its workers)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def _leftovers(d: Path) -> list[str]:
    """Temporary files left in ``d`` (a write cut short)."""
    return [str(p) for p in d.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]


def _check_outputs(d: Path) -> None:
    """Every file written is whole: JSON parses, pages end, pictures are XML."""
    for p in d.rglob("*"):
        if p.suffix == ".json":
            json.loads(p.read_text(encoding="utf-8"))
        elif p.suffix == ".html":
            assert p.read_text(encoding="utf-8").rstrip().endswith("</html>"), p
        elif p.suffix == ".svg":
            ET.parse(p)


def stop_at_random(args: list[str], sig: signal.Signals, cwd: Path, moments: int, latest: float) -> None:
    """Run ``sprouts ARGS`` ``moments`` times, sending ``sig`` after a random moment each time."""
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    for _ in range(moments):
        delay = rng.uniform(0.25, latest)  # not the interpreter's own start, before any of our code
        proc = subprocess.Popen(
            [sys.executable, "-m", "sprouts_cli", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group: its workers can be found
            preexec_fn=stop_signals_as_at_a_terminal,
        )
        where = f"sprouts {' '.join(args)}: {sig.name} after {delay:.2f} s (seed {seed})"
        try:
            time.sleep(delay)
            assert proc.poll() is None, f"{where}: it finished first; give it more work"
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        end = time.monotonic() + 5
        while _group_alive(proc.pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert not _group_alive(proc.pid), f"{where}: processes left {_group_alive(proc.pid)}"
        assert "Traceback" not in err and "Error" not in err, f"{where}:\n{err}"
        assert proc.returncode == EXIT[sig], f"{where}: exit {proc.returncode}\n{err}"
        assert WORD[sig] in err.strip().splitlines()[-1], f"{where}:\n{err}"
        assert not _leftovers(cwd), f"{where}: {_leftovers(cwd)}"
        _check_outputs(cwd)


SIGNALS = pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
needs_proc = pytest.mark.skipif(not ON_LINUX, reason="finds processes through /proc")

#: a position whose layout takes several seconds (tries outer regions, relaxes curves)
BIG = "0+0+0+0.2+0.AB|AB+0.AB|ABCD|CE|DE+0.A|A1B2|B2"


@pytest.fixture(scope="module")
def game_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("log") / "game.log"
    play = ["play", "--spots", "8", "--first", "random", "--second", "random", "-q", "--seed", "1"]
    r = CliRunner().invoke(main, [*play, "--log", str(log), "--no-db"])
    assert r.exit_code == 0, r.output
    return log


@needs_proc
@SIGNALS
def test_play_save_stops_cleanly(sig: signal.Signals, tmp_path: Path) -> None:
    # 12 spots: about 13 s of drawing here (10 spots, 6 s, could end before a late signal on a fast machine)
    args = ["play", "--spots", "12", "--first", "random", "--second", "random", "--save", "st.json"]
    stop_at_random([*args, "-q", "--seed", "3", "--no-db"], sig, tmp_path, 2, 5.0)


@needs_proc
@SIGNALS
def test_layout_stops_cleanly(sig: signal.Signals, tmp_path: Path) -> None:
    # the layout itself takes a little over 3 s on an idle 2-core machine: stop it before that
    stop_at_random(["layout", BIG, "-o", "big.json", "--jobs", "2"], sig, tmp_path, 2, 2.5)


@needs_proc
@SIGNALS
def test_replay_html_stops_cleanly(sig: signal.Signals, tmp_path: Path, game_log: Path) -> None:
    stop_at_random(["replay", str(game_log), "--html", "game.html"], sig, tmp_path, 2, 4.0)


@needs_proc
@SIGNALS
def test_dots_solve_stops_cleanly(sig: signal.Signals, tmp_path: Path) -> None:
    stop_at_random(["dots", "solve", "3x3", "4x4"], sig, tmp_path, 2, 4.0)


@pytest.mark.slow
@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_many_moments_in_every_command(sig: signal.Signals, tmp_path: Path, game_log: Path) -> None:
    play = ["play", "--spots", "14", "--first", "random", "--second", "random", "--save", "st.json"]
    stop_at_random([*play, "-q", "--seed", "3", "--no-db"], sig, tmp_path, 8, 15.0)
    stop_at_random(["layout", BIG, "-o", "big.svg"], sig, tmp_path, 6, 3.5)  # 5.5-10 s of work here
    stop_at_random(["replay", str(game_log), "--html", "g.html", "--svg", "."], sig, tmp_path, 6, 15.0)
    stop_at_random(["dots", "solve", "4x4", "--must-complete"], sig, tmp_path, 6, 20.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_neither_keeps_the_parents_waiting_signals_nor_raises_on_a_stop() -> None:
    """A worker stopped while it starts (a pool ended as its workers were forked) ends silently:
    before its own handlers are set, the parent's would raise ``Terminated`` in
    multiprocessing's start-up code, which prints a traceback."""
    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, procs.on_stop_signal)
    procs._waiting[signal.SIGTERM] = object()  # a delivery the parent kept back
    try:
        pid = os.fork()
        if pid == 0:  # the child: report what it holds, then be stopped
            ok = not procs._waiting and signal.getsignal(signal.SIGTERM) is procs._quiet_exit
            if not ok:
                os._exit(3)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
            os._exit(4)
        _, status = os.waitpid(pid, 0)
        in_parent = signal.getsignal(signal.SIGTERM), set(procs._waiting)
    finally:
        procs._waiting.pop(signal.SIGTERM, None)
        signal.signal(signal.SIGTERM, before)
    assert os.waitstatus_to_exitcode(status) == 0
    assert in_parent == (procs.on_stop_signal, {signal.SIGTERM})  # the parent's are untouched
