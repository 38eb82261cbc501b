"""The command line starts fast: heavy libraries are imported only by the commands that use them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("matplotlib", "scipy", "numba", "networkx", "numpy")


def test_importing_the_cli_imports_no_heavy_library() -> None:
    code = f"import sys, sprouts_cli.cli; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"
