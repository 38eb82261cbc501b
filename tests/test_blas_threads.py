"""numpy's and scipy's OpenBLAS run one thread under ``sprouts_cli`` unless the user chose a number.

A second BLAS thread only spins on the small systems drawing solves, and on a machine whose other core
is busy that multiplied their CPU many times over (docs/performance.md, 2026-12-06, issue 25).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import os
import sprouts_cli
import numpy as np
from scipy.interpolate import BSpline

a = np.random.default_rng(0).random((600, 600))
a @ a
np.linalg.lstsq(np.random.default_rng(1).random((1400, 200)), np.ones((1400, 2)), rcond=None)
tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else -1
print(os.environ.get("OPENBLAS_NUM_THREADS"), tasks)
"""


def _probe(env_threads: str | None) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_threads is not None:
        env["OPENBLAS_NUM_THREADS"] = env_threads
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    value, tasks = out.stdout.split()
    return value, int(tasks)


def test_importing_sprouts_cli_first_gives_blas_one_thread() -> None:
    value, tasks = _probe(None)
    assert value == "1"
    if tasks < 0:
        pytest.skip("no /proc/self/task to count the threads")
    assert tasks == 1


def test_a_number_of_blas_threads_the_user_chose_is_kept() -> None:
    value, _tasks = _probe("2")
    assert value == "2"
