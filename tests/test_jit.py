"""One kernel decorator for the package: the engine, the picture layer and Dots-and-Boxes share it."""

from __future__ import annotations

import subprocess
import sys

from sprouts_cli import jit


def _add(a: int, b: int) -> int:
    return a + b


def test_plain_python_when_asked_for() -> None:
    k = jit.kernel(_add, pure=True)
    assert k is _add and k.py_func is _add and k(2, 3) == 5


def test_the_picture_layer_and_the_engine_use_the_one_switch() -> None:
    from sprouts_cli.engine import aot
    from sprouts_cli.picture import band, geometry, grid_planner, relax_kernels, route_curve, route_search

    for module in (band, geometry, grid_planner, relax_kernels, route_curve, route_search):
        assert module.kernel is jit.kernel, module.__name__
    assert jit.PURE_PYTHON is aot.PURE_PYTHON


#: Which kind of object each layer's kernels are, in a fresh process with the environment given.
_PROBE = """
from sprouts_cli.dots import _kernels
from sprouts_cli.dots.solver import pure_kernels
from sprouts_cli.engine import aot
from sprouts_cli.picture import geometry
kinds = [type(k).__name__ for k in (geometry.segment_foot, _kernels.planes, pure_kernels().planes)]
print(aot.kernel_path() if aot.PURE_PYTHON else "compiled", *kinds)
"""


def _kinds(**env: str) -> list[str]:
    import os

    run = subprocess.run(
        [sys.executable, "-c", _PROBE], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return run.stdout.split()


def test_one_environment_variable_turns_every_kernel_to_plain_python() -> None:
    assert _kinds(SPROUTS_PURE_PYTHON="1") == ["python", "function", "function", "function"]
    compiled = _kinds(SPROUTS_PURE_PYTHON="0")
    assert compiled[0] == "compiled" and compiled[1] == compiled[2] == "CPUDispatcher"
    assert compiled[3] == "function"  # the reference copy of the Dots-and-Boxes kernels stays plain
