"""The bare data of a position, shared by the engine's modules: boundaries, regions, kinds of spot.

A position (``position.py``) is a tuple of regions, each a tuple of boundaries, each
boundary the cyclic tuple of the spots met walking once round it (Alfeld §2.4), with a
tuple of lives beside it.  The algorithms (``notation``, ``canonical``, ``moves``,
``parts``, ``reduce``) are functions over this data; they know the ``Position`` class
only as a type and make new positions through the class of the one they are given, so
nothing in the engine imports its way back to ``position.py``.
"""

from __future__ import annotations

Boundary = tuple[int, ...]
Region = tuple[Boundary, ...]

#: Kinds of spot occurrence, as written in position strings.
ZERO, ONE, TWO, DEAD, SMALL, CAPITAL = "0", "1", "2", "3", "small", "capital"

__all__ = ["CAPITAL", "DEAD", "ONE", "SMALL", "TWO", "ZERO", "Boundary", "Region"]
