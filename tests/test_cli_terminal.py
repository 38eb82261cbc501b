"""What a person sees on a terminal: no spinner left on a result line; CPUs for --jobs."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from sprouts_cli.cpus import usable_cpus

SPROUTS = str(Path(sys.executable).with_name("sprouts"))
_CSI = re.compile(r"\x1b\[(\??)(\d*)([A-Za-z])")


def screen(stream: str) -> list[str]:
    """The lines a terminal shows after ``stream``: \\r, \\n, cursor up (CSI A), erase line (CSI 2K)."""
    lines: list[list[str]] = [[]]
    row = col = 0
    i = 0
    while i < len(stream):
        m = _CSI.match(stream, i)
        if m:
            private, number, command = m.groups()
            if not private and command == "A":
                row = max(0, row - int(number or 1))
            elif not private and command == "K" and number == "2":
                lines[row] = []
            i = m.end()
            continue
        ch = stream[i]
        i += 1
        if ch == "\r":
            col = 0
        elif ch == "\n":
            row += 1
            while len(lines) <= row:
                lines.append([])
        elif ch.isprintable():
            line = lines[row]
            line.extend(" " * (col - len(line)))
            line[col : col + 1] = [ch]
            col += 1
    return ["".join(line).rstrip() for line in lines]


@pytest.mark.skipif(not os.path.exists(SPROUTS), reason="the sprouts script is installed with the package")
def test_the_spinner_is_not_left_on_the_result_line() -> None:
    child = pexpect.spawn(
        SPROUTS,
        ["solve", "0*6", "0*5", "--no-db", "--jobs", "1"],
        encoding="utf-8",
        timeout=120,
        dimensions=(24, 160),
    )
    child.expect(pexpect.EOF)
    shown = [line for line in screen(child.before) if line]
    results = [line for line in shown if "first player" in line]
    assert len(results) == 2, shown
    assert results[0].startswith("0*6: first player loses"), results
    assert results[1].startswith("0*5: first player wins"), results
    assert not any("solving" in line for line in shown), shown


def test_screen_emulation_sees_a_left_spinner() -> None:
    # the old output: the status emptied but not erased, the result printed after its frame
    old = "\x1b[?25l\r\x1b[2K\x1b[32m⠹\x1b[0m solving 0*7: 10 positions, 3.4 s\r\x1b[2K⠹ \r\n0*7: x"
    assert screen(old) == ["⠹", "0*7: x"]
    left = "\r\x1b[2K⠹ solving 0*7: 3.4 s0*7: first player loses\n"
    assert screen(left)[0].startswith("⠹ solving")


def test_jobs_default_to_the_cpus_this_process_may_use(monkeypatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3}, raising=False)
    assert usable_cpus() == 2
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert usable_cpus() == 8


def test_no_command_counts_the_machines_cores_itself() -> None:
    package = Path(__file__).resolve().parents[1] / "sprouts_cli"
    users = [p.name for p in package.rglob("*.py") if "cpu_count()" in p.read_text() and p.name != "cpus.py"]
    assert users == []


def test_a_lazy_console_answers_as_rich_does_and_is_made_on_first_use(monkeypatch) -> None:
    import io

    from rich.console import Console

    from sprouts_cli.cli.common import LazyConsole

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for env in ({}, {"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "0"}, {"TTY_COMPATIBLE": "1"}):
        for stream in (io.StringIO(), Tty()):
            for name in ("TTY_COMPATIBLE", "FORCE_COLOR", "FORCE_TERMINAL"):
                monkeypatch.delenv(name, raising=False)
            for name, value in env.items():
                monkeypatch.setenv(name, value)
            monkeypatch.setattr(sys, "stdout", stream)
            lazy = LazyConsole()
            assert lazy.is_terminal == Console().is_terminal, (env, type(stream).__name__)
            # a pipe with nothing in the environment is answered without making the console
            assert (lazy._console is None) == (not env and not stream.isatty())
    lazy = LazyConsole()
    lazy.print("[b]x[/b]", markup=False)  # any of the console's own methods makes it
    assert lazy._console is not None and stream.getvalue().endswith("[b]x[/b]\n")
