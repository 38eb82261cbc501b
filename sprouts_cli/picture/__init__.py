"""The picture layer: saved games, picture → position, Z layouts, relaxation (seed 002, §2–4).

The position is the authority and the picture serves it: every operation here is
checked by reading the position back from the picture (``analyse``) and comparing
exact canonical forms (§1.2).

The API other parts use::

    layout_position(position, width, height, outer=None, jobs=None) -> Picture
    analyse(picture) -> Position          # spots numbered as the picture's spots
    relax(picture, mode="adjust" | "rearrange") -> Picture
    load_game(path) -> Picture;  save_game(path, picture, position=None, move_list=None)
    sprouts_cli.render.render(picture, path, numbers=True, lives=False, title=None)
"""

from __future__ import annotations

import os

from ..engine import Position
from ..errors import GameFileError, PictureError
from .analyse import Analysis, analyse, analyse_picture
from .gamefile import load_game, save_game
from .layout import layout_map, layout_position
from .model import Curve, Picture
from .relax import relax


def position_argument(text: str) -> Position:
    """A command-line argument as a position: an existing ``.json`` file is a saved game."""
    if text.lower().endswith(".json") and os.path.isfile(text):
        try:
            return analyse(load_game(text, check=False))
        except PictureError as e:
            raise GameFileError(f"{text}: {e}") from None
    return Position.from_string(text)


__all__ = [
    "Analysis",
    "Curve",
    "Picture",
    "analyse",
    "analyse_picture",
    "layout_map",
    "layout_position",
    "load_game",
    "position_argument",
    "relax",
    "save_game",
]
