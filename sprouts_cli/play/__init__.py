"""Playing Sprouts: games in the terminal, computer players, logs (Alfeld §5 and §7.3)."""

from ..errors import PlayError
from .game import Game, Played
from .session import Outcome, Session

__all__ = ["Game", "Outcome", "PlayError", "Played", "Session"]
