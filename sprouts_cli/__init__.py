"""sprouts: solve, analyse, lay out, render and play the game of Sprouts."""

__version__ = "0.1.0"
