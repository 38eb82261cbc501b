"""``sprouts kernels``: build the ahead-of-time engine kernels, or say which kernels a solve uses.

A thin layer over ``engine.aot``: it builds (explicitly, never in the background) and
prints; a failed build is one line and exit code 1, and the JIT kernels stay in use.
"""

from __future__ import annotations

import resource
import time

import click

from .common import err, fail, out, print_json

PATHS = {
    "aot": "the ahead-of-time build (no numba loaded)",
    "jit": "numba's JIT kernels (cache=True)",
    "python": "plain Python (SPROUTS_PURE_PYTHON)",
}


@click.command("kernels")
@click.option("--build", is_flag=True, help="Build the ahead-of-time kernels now, unless they are built.")
@click.option("--force", is_flag=True, help="With --build: build again even when up to date.")
@click.option("--json", "as_json", is_flag=True, help="Print the status as one JSON object.")
def kernels_command(build: bool, force: bool, as_json: bool) -> None:
    """Say which compiled kernels the solver uses, or build the ahead-of-time ones.

    The solver's hot kernels can be compiled ahead of time (numba.pycc, a few minutes
    once, and a C compiler) into a small module that needs only numpy: a solve that uses it
    does not load numba and LLVM: less memory, and no compiling, at the same speed.  It is
    kept in the user's cache directory (or SPROUTS_KERNELS_DIR), used automatically
    while it matches the kernel sources and the numba, numpy and Python versions, and
    ignored otherwise (SPROUTS_AOT=0 ignores it always).

    \b
      sprouts kernels            # which kernels a solve would use, and where
      sprouts kernels --build    # build them (make does it at install)
    """
    from ..engine import aot

    if force and not build:
        fail("--force goes with --build")
    if build:
        t, child = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            folder = aot.build(force=force)
        except aot.BuildFailed as e:
            err.print(f"kernels not built: {e}; the JIT kernels are used", markup=False)
            raise SystemExit(1) from None
        done = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = done.ru_utime + done.ru_stime - child.ru_utime - child.ru_stime
        if not as_json:
            how = f"built in {time.perf_counter() - t:.0f} s ({cpu:.0f} CPU s)" if cpu > 0.5 else "up to date"
            out.print(f"kernels {how}: {folder}", markup=False)
    state = aot.status()
    if as_json:
        print_json(state)
        return
    if not build:
        built = f"built: {state['module']}" if state["built"] else "not built (sprouts kernels --build)"
        out.print(f"kernels: {state['path']}, {PATHS[state['path']]}", markup=False)
        out.print(f"ahead-of-time kernels {built}", markup=False)
        out.print(
            f"  stamp {state['stamp']} (sources {state['sources_hash']}, numba {state['numba_version']}, "
            f"numpy {state['numpy_version']}, {state['python_version']})",
            markup=False,
        )
        if state["stale_builds"]:
            out.print(f"  older builds, ignored: {', '.join(state['stale_builds'])}", markup=False)
