"""``sprouts solve --players 3``: which player, if any, can force making the last move."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine import Position
from ..errors import SproutsError
from .common import Reporter, err, fail, out, print_json, read_items, read_position

if TYPE_CHECKING:  # pragma: no cover
    from ..solve.three import ThreeResult

#: How people read the offsets of the three players.
WHO = ("the player to move (0)", "the next player (1)", "the player after (2)")


def solve_three(
    positions: tuple[str, ...],
    misere: bool,
    nimber: bool,
    imports: tuple[Path, ...],
    moves: bool,
    as_json: bool,
) -> None:
    """Solve each position for three players and print one line (or JSON object) per input."""
    from ..solve.three import ThreeSolver

    if misere:
        fail(
            "misère play is not defined for three players (the last mover loses, but which of the "
            "other two wins?); "
            "--players 3 is normal play only"
        )
    if nimber:
        fail("--nimber is for two players; three players have no nimbers")
    if imports:
        fail("--import fills the table of two-player results; it cannot be used with --players 3")
    if not positions:
        fail("give at least one position (or - to read them from stdin)")
    report = Reporter(as_json)
    solver = ThreeSolver()
    try:
        for item in read_items(positions):
            try:
                p = read_position(item.text, "solve")  # the limits, and a drawable string
            except SproutsError as e:
                report.bad(item, e)
                continue
            t0 = time.perf_counter()
            result = solver.solve(p)
            forcing = None
            if moves and result.forced_winner == 0:
                forcing = solver.forcing_children(p)
            seconds = time.perf_counter() - t0
            _print(item.text, p, result, forcing, seconds, as_json)
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (procs.Terminated)
        from ..procs import Terminated, interrupted_exit_code

        err.print("terminated" if isinstance(e, Terminated) else "interrupted", markup=False)
        raise SystemExit(interrupted_exit_code(e)) from None
    report.exit()


def _print(
    text: str, p: Position, result: ThreeResult, forcing: list[str] | None, seconds: float, as_json: bool
) -> None:
    if as_json:
        obj: dict[str, object] = {
            "input": text,
            "position": text,
            "canonical": p.canonical(),
            "players": 3,
            "forced_winner": result.forced_winner,
            "can_force": list(result.can_force),
        }
        if forcing is not None:
            obj["forcing_moves"] = forcing
        obj["seconds"] = round(seconds, 3)
        obj["positions_searched"] = result.positions
        print_json(obj)
        return
    w = result.forced_winner
    if w is None:
        verdict = "nobody can force making the last move (three players)"
    else:
        verdict = f"{WHO[w]} can force making the last move (three players)"
    out.print(f"{text}: {verdict}, {seconds:.1f} s", markup=False)
    if forcing is not None:
        keep = "child keeps" if len(forcing) == 1 else "children keep"
        out.print(f"  forcing moves: {len(forcing)} {keep} the force", markup=False)
        for child in forcing:
            out.print(f"    {child}", markup=False)


__all__ = ["WHO", "solve_three"]
