"""The command line starts fast: heavy libraries are imported only by the commands that use them."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("matplotlib", "scipy", "numba", "networkx", "numpy")


def test_importing_the_cli_imports_no_heavy_library() -> None:
    code = f"import sys, sprouts_cli.cli; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"


#: Run a command in-process, then list the heavy libraries it imported.
_PROBE = """
import sys
from sprouts_cli.cli import main
try:
    main({args!r})
except SystemExit as e:
    assert not e.code, e.code
print("HEAVY:" + ",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


PICTURE_LIBRARIES = ("matplotlib", "scipy", "numba", "networkx")


def _heavy_imported_by(args: list[str], heavy: tuple[str, ...] = PICTURE_LIBRARIES) -> str:
    """Which of the modules ``heavy`` the command imported (its stdout a pipe), comma-separated."""
    code = _PROBE.format(args=args, heavy=heavy)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("HEAVY:")]
    assert lines, run.stderr
    return lines[-1].removeprefix("HEAVY:")


def test_commands_that_print_data_lines_do_not_import_rich() -> None:
    # the consoles of cli/common.py are made on first use, rich.table where a table is printed
    assert _heavy_imported_by(["canonical", "0*5", "--reduced"], ("rich",)) == ""
    assert _heavy_imported_by(["children", "0*3"], ("rich",)) == ""  # a pipe gets one child per line
    assert _heavy_imported_by(["bounds", "0*3"], ("rich", "rich.table")) == "rich,rich.table"


def test_solve_imports_the_cluster_only_with_cluster() -> None:
    cluster = ("sprouts_cli.solve.cluster", "sprouts_cli.cli.solve_cluster", "ray")
    assert _heavy_imported_by(["solve", "0*3", "--no-db", "--jobs", "1"], cluster) == ""



def test_a_solve_without_a_table_imports_neither_sqlite3_nor_subprocess(tmp_path) -> None:
    # sqlite3 is imported where a table is opened, subprocess where worker processes start
    assert _heavy_imported_by(["solve", "0*3", "--no-db", "--jobs", "1"], ("sqlite3", "subprocess")) == ""
    with_table = ["solve", "0*3", "--db", str(tmp_path / "t.sqlite"), "--jobs", "1"]
    assert _heavy_imported_by(with_table, ("sqlite3",)) == "sqlite3"

def test_engine_commands_do_not_import_the_picture_layer() -> None:
    # bounds realises a string through picture.planar_map (pure Python): importing it
    # must not run the picture package's heavy modules (benchmarks/bench_startup.py times it)
    assert _heavy_imported_by(["bounds", "0*5", "1a1a.AB|AB"]) == ""
    assert _heavy_imported_by(["children", "0*3"]) == ""
    assert _heavy_imported_by(["solve", "0*3", "--no-db", "--jobs", "1"]) == ""


def test_the_picture_package_imports_its_names_on_first_use() -> None:
    code = (
        "import sys, sprouts_cli.picture as p, sprouts_cli.picture.planar_map\n"
        "assert 'sprouts_cli.picture.layout' not in sys.modules\n"
        "assert p.layout_position.__module__ == 'sprouts_cli.picture.layout'\n"
        "import sprouts_cli.picture.relax, sprouts_cli.render\n"  # imports the module analyse
        "from sprouts_cli.picture import analyse, relax\n"
        "assert callable(analyse) and callable(relax), (analyse, relax)\n"
        "try:\n    p.no_such_name\nexcept AttributeError:\n    print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
