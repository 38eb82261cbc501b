"""The computer players (Alfeld §5): random, Monte Carlo, parity search, perfect.

Each works on the position alone (Alfeld §5.1): ``choose(position, rules, rng)``
returns a :class:`~.base.Choice` for the game's ``Rules``.
"""

from __future__ import annotations

from .base import Choice, Player, Settings

#: The players a game can have, ``human`` included.
PLAYER_NAMES = ("human", "random", "montecarlo", "parity", "perfect")
COMPUTER_PLAYERS = PLAYER_NAMES[1:]


def make_player(name: str, settings: Settings | None = None, players: int = 2) -> Player:
    """A fresh computer player by name (each keeps its own tables), for two or three players."""
    if players == 3:
        return _three_player(name, settings)
    if name == "random":
        from .random_player import RandomPlayer

        return RandomPlayer(settings)
    if name == "montecarlo":
        from .montecarlo import MonteCarloPlayer

        return MonteCarloPlayer(settings)
    if name == "parity":
        from .parity_player import ParityPlayer

        return ParityPlayer(settings)
    if name == "perfect":
        from .perfect import PerfectPlayer

        return PerfectPlayer(settings)
    raise ValueError(f"unknown computer player {name!r}; choose one of {', '.join(COMPUTER_PLAYERS)}")


#: The computer players that can play with three players (perfect play is a two-player idea).
THREE_PLAYER_COMPUTERS = ("random", "montecarlo", "parity")


def _three_player(name: str, settings: Settings | None) -> Player:
    if name == "random":
        from .random_player import RandomPlayer

        return RandomPlayer(settings)
    if name == "montecarlo":
        from .montecarlo import MonteCarloPlayer

        return MonteCarloPlayer(settings)
    if name == "parity":
        from .parity3 import ThreeParityPlayer

        return ThreeParityPlayer(settings)
    raise ValueError(
        f"{name} cannot play with three players; choose one of {', '.join(THREE_PLAYER_COMPUTERS)} (or human)"
    )


__all__ = [
    "COMPUTER_PLAYERS",
    "PLAYER_NAMES",
    "THREE_PLAYER_COMPUTERS",
    "Choice",
    "Player",
    "Settings",
    "make_player",
]
