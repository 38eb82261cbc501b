"""Run every ``benchmarks/bench_*.py`` in turn; each prints its own table.

``make bench`` runs this.  ``python benchmarks/run_all.py engine solve`` runs only
the scripts whose names contain one of the words given.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main(words: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if words:
        scripts = [s for s in scripts if any(w in s.stem for w in words)]
    failed = 0
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        t = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)])
        print(f"({script.stem}: {time.perf_counter() - t:.1f} s, exit {rc})", flush=True)
        failed += rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
