"""Dots-and-Boxes, the toolkit's second game: positions, solver, players, log and pictures.

Both forms of the rules: the free form (a player may decline a box) and the
must-complete form (Holladay 1966).  ``board`` has the notation (OpenSpiel's line
order, little-golem dot names), ``solver`` the alpha-beta solver and the
brute-force reference, ``players`` the computer players, ``log`` the game log and
``render`` the pictures.
"""

from __future__ import annotations

from ..errors import DotsLogError, DotsMoveError, DotsNotationError, OutOfTime
from .board import Board, DotsPosition
from .game import DotsGame
from .solver import Result, Solver, retrograde, solve

__all__ = [
    "Board",
    "DotsGame",
    "DotsLogError",
    "DotsMoveError",
    "DotsNotationError",
    "DotsPosition",
    "OutOfTime",
    "Result",
    "Solver",
    "retrograde",
    "solve",
]
