"""The picture layer's kernel decorator: the package's one (``sprouts_cli/jit.py``).

Every kernel of the picture layer is decorated with :func:`kernel`: compiled by numba
(``cache=True``), or plain Python with ``SPROUTS_PURE_PYTHON=1``; the tests also call
``kernel.py_func`` directly to compare both.
"""

from __future__ import annotations

from ..jit import PURE_PYTHON, kernel

__all__ = ["PURE_PYTHON", "kernel"]
