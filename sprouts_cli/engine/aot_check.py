"""The ahead-of-time build's child process: compile the exported kernels, then check them against the JIT.

``aot.build`` runs ``compile_into`` in a child process (on the JIT path); the new module
is put in place only when every exported kernel gives what its JIT twin gives on the
calls a small workload makes (``check_against_jit``).  This is apart from ``aot.py``
because it drives the engine's algorithms, which ``kernels/`` (and so ``aot.py``,
its decorator) sits under.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .aot import (
    EXPORTS,
    MODULE_NAME,
    BuildFailed,
    _last_line,
    _version,
    guarded,
    kernel_path,
    kernel_sources,
    load_built_from,
    stamp_facts,
)


def kernel_modules() -> list[ModuleType]:
    """Every engine module that defines kernels, imported (so each export is declared)."""
    engine = Path(__file__).resolve().parent
    here = {Path(__file__).resolve(), engine / "aot.py"}
    names = []
    for path in kernel_sources():
        if path in here:
            continue
        parts = list(path.relative_to(engine).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join([str(__package__), *parts]))
    return [importlib.import_module(name) for name in names]


def compile_into(folder: str) -> None:
    """The build child: compile the exports with ``numba.pycc`` into ``folder``, then check them.

    Prints the exported names; a failure ends the process with one line on stderr.
    """
    try:
        if kernel_path() != "jit":
            raise BuildFailed("the build needs the JIT path (SPROUTS_AOT=0, no SPROUTS_PURE_PYTHON)")
        kernel_modules()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                from numba.pycc import CC
            except ImportError as e:
                raise BuildFailed(f"numba {_version('numba')} has no numba.pycc ({e})") from None
            cc = CC(MODULE_NAME)  # type: ignore[no-untyped-call]
            cc.output_dir = folder
            cc.verbose = False
            if stamp_facts()["cpu"]:  # the processor is known, and in the stamp
                cc.target_cpu = "host"
            for entry in EXPORTS.values():
                cc.export(entry.name, entry.signature)(entry.function)  # type: ignore[no-untyped-call]
            core = importlib.import_module("sprouts_cli.solve.pncore")
            for name, (signature, function) in core.EXPORTS.items():
                cc.export("core_" + name, signature)(function)  # type: ignore[no-untyped-call]
            try:
                cc.compile()
            except Exception as e:  # distutils' errors: no compiler, a failed link, ...
                raise BuildFailed(f"numba.pycc failed: {_last_line(str(e)) or type(e).__name__}") from None
        built = load_built_from(Path(folder))
        solver = importlib.import_module("sprouts_cli.solve.compiled")
        wrong = check_against_jit(built) or solver.check_built_core(built)
        if wrong:
            raise BuildFailed(f"the built module disagrees with the JIT kernels: {wrong}")
    except BuildFailed as e:
        print(e, file=sys.stderr)
        raise SystemExit(1) from None
    print(" ".join(EXPORTS))


def check_against_jit(built: ModuleType, lands: Sequence[str] = ("0*4", "0*2.AB|AB")) -> str:
    """Compare every exported kernel's results, built against JIT, on the calls a small
    workload makes (the children of ``lands`` two levels down); the first difference, or "".

    A result is what the kernel returns and what it leaves in its array arguments (the
    ``*_into`` kernels write theirs into the caller's buffers).
    """
    calls: list[tuple[str, tuple[Any, ...], Any]] = []
    kernel_modules()
    saved = {name: getattr(importlib.import_module(e.module), name) for name, e in EXPORTS.items()}
    # every module that holds an export (its own, and those that import it) calls it by its name there
    loaded = [m for n, m in list(sys.modules.items()) if n.startswith(f"{__package__}.") and m is not None]
    holders = {name: [m for m in loaded if getattr(m, name, None) is fn] for name, fn in saved.items()}

    def copied(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(a.copy() if hasattr(a, "copy") else a for a in args)

    def recording(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            before = copied(args) if len(calls) < 5000 else ()
            result = fn(*args)
            if before:
                calls.append((name, before, (result, *copied(args))))
            return result

        return call

    _workload(lands)  # compiled first: numba reads the globals a kernel calls when it compiles it
    try:
        for name in EXPORTS:
            for m in holders[name]:
                setattr(m, name, recording(name, saved[name]))
        _workload(lands)
    finally:
        for name in EXPORTS:
            for m in holders[name]:
                setattr(m, name, saved[name])
    seen = {name for name, _a, _r in calls}
    if seen != set(EXPORTS):
        return f"the check's workload never calls {sorted(set(EXPORTS) - seen)}"
    for name, args, want in calls:
        given = copied(args)
        got = guarded(getattr(built, name), EXPORTS[name].function, EXPORTS[name].signature)(*given)
        if not _same((got, *given), want):
            return f"{name}{args!r}"
    return ""


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a), np.asarray(b)
        return x.dtype == y.dtype and bool(np.array_equal(x, y))
    return bool(a == b)


def _workload(lands: Sequence[str]) -> None:
    """The children of ``lands`` two levels down, through the engine's compiled paths; and
    sums of small misère trees, which reduce option sets by the tree rules' kernel."""
    from . import kernels
    from .backend import use_compiled_kernels
    from .caches import clear_caches
    from .canonical import canonical_lands
    from .position import Position
    from .reduce import land_moves, reduced_lands, reduced_lands_after_word

    use_compiled_kernels(True)
    clear_caches()  # every land is computed afresh, not found in a cache
    saved_out = kernels.OUT
    kernels.OUT = kernels.OutBuffers(2, 16)  # small: the calls that must grow them are checked too
    try:
        frontier = [land for text in lands for land in reduced_lands(Position.from_string(text))]
        for _level in range(2):
            nxt: list[str] = []
            for land in frontier:
                for word in land_moves(land) or []:
                    nxt += reduced_lands_after_word(land, word) or []
            frontier = sorted(set(nxt))[:40]
        for land in frontier:  # the exact forms too (a whole position's lands in one call)
            canonical_lands(Position.from_string(land))
        _tree_sums()
        _tree_builds()
    finally:
        kernels.OUT = saved_out
        use_compiled_kernels(None)


def _tree_sums() -> None:
    """Sums of a few reduced misère trees and their sizes (every rule and kernel of
    ``engine.kernels.tree_rules`` is used)."""
    trees = importlib.import_module("sprouts_cli.solve.reduced_trees")  # as the build imports the core
    store = trees.ReducedTreeStore()
    texts = ["{*2,*3}", "{*1,*2,{*2,*3}}", "{*2,*3};{#0,{#0,*1}}", "{*0,*2}", "{{*1}}", "{*2}", "{{*2}}"]
    games = [store.from_text(t) for t in texts] + [store.heap(k) for k in range(4)]
    for a in games:
        for b in games:
            store.size(store.add(a, b))


def _tree_builds() -> None:
    """Trees of small lands built by ``tree_build``'s loop over a core's numbering, its tables at
    their smallest (each grows and is entered again), with nodes the store makes in Python between."""
    import numpy as np

    misere = importlib.import_module("sprouts_cli.solve.misere")
    numbering = importlib.import_module("sprouts_cli.solve.misere_core")
    solver = misere.MisereSolver(core_children=True, core_lives=0, compiled_trees=True)
    solver._core = numbering.CoreChildren(solver._lives)
    store = solver.store
    tables = store.tables()
    tables.rtab = np.zeros(4, np.int64)
    tables.arena = np.zeros(4, np.int32)
    tables.skey = np.zeros(4, np.int64)
    tables.sval = np.zeros(4, np.int64)
    for k, land in enumerate(("0*3", "0.AB|AB", "0*2.AB|AB", "0*4")):
        store.add(solver.tree(land), store.heap(9 + 2 * k))


__all__ = ["check_against_jit", "compile_into", "kernel_modules"]
