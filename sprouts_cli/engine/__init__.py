"""The topological engine: positions, moves, canonical forms, parts (Alfeld §2).

It knows the rules and nothing about pictures, files or the terminal.
"""

from ..errors import IllegalMoveError, NotationError
from .moves import Move
from .position import Position

__all__ = ["IllegalMoveError", "Move", "NotationError", "Position"]
