"""The picture layer: saved games, picture → position, Z layouts, relaxation (Alfeld §2–4).

The position is the authority and the picture serves it: every operation here is
checked by reading the position back from the picture (``analyse``) and comparing
exact canonical forms (Alfeld §1.2).

The API other parts use::

    layout_position(position, width, height, outer=None, jobs=None) -> Picture
    analyse(picture) -> Position          # spots numbered as the picture's spots
    relax(picture, mode="adjust" | "rearrange") -> Picture
    load_game(path) -> Picture;  save_game(path, picture, position=None, move_list=None)
    sprouts_cli.render.render(picture, path, numbers=True, lives=False, title=None)

The names are imported lazily (PEP 562): importing a light module of this package,
such as ``planar_map`` (pure Python, used by ``sprouts bounds`` to give a string its
dead spots back), must not pull in numba, scipy, networkx and matplotlib, which take
about a second to import.  Two names are also names of modules (``analyse``,
``relax``); Python sets a package's attribute to a submodule when it first imports
it, so the package's class keeps the function there instead (as the eager imports
did).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from ..engine import Position
from ..errors import GameFileError, PictureError

if TYPE_CHECKING:  # pragma: no cover
    from .analyse import Analysis, analyse, analyse_picture
    from .gamefile import load_game, save_game
    from .layout import layout_map, layout_position
    from .model import Curve, Picture
    from .relax import relax

#: Where each public name lives; the module is imported on first use of the name.
_LAZY = {
    "Analysis": "analyse",
    "analyse": "analyse",
    "analyse_picture": "analyse",
    "load_game": "gamefile",
    "save_game": "gamefile",
    "layout_map": "layout",
    "layout_position": "layout",
    "Curve": "model",
    "Picture": "model",
    "relax": "relax",
}


class _Package(types.ModuleType):
    """This package: a submodule named like one of its functions does not replace the function."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and _LAZY.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def position_argument(text: str) -> Position:
    """A command-line argument as a position: an existing ``.json`` file is a saved game."""
    if text.lower().endswith(".json"):
        from .analyse import analyse
        from .gamefile import load_game

        try:
            return analyse(load_game(text, check=False))
        except PictureError as e:
            message = str(e)
            raise GameFileError(message if message.startswith(f"{text}:") else f"{text}: {message}") from None
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
