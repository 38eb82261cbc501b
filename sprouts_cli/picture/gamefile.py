"""Saved games (``game.json``) in the browser program's format (Alfeld §4.2 and §7).

The format::

    {"format": "sprouts-game", "version": 1 | 2,
     "game": {"W0", "H0", "spots": [{"x", "y", "deg"}],
              "edges": [{"a", "b", "pieces": [[[x, y] ×4], …], "h": […], "player"}],
              "player", "moves", "added", "phase", "rules": "normal" | "misere"},
     "route": {…settings…}, "history": […]}

Spots are 0-based in the file (shown 1-based); a move's two curves are edges
``2m`` and ``2m+1``.  We write the same format and add fields of our own: each
spot's ``size``, the position string and the topological move list.  Whatever
else a file holds is kept when it is saved again.  A malformed or inconsistent
file is refused with a :class:`GameFileError` that says what and where, and a
file is written to a temporary file first and then renamed over the old one.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..engine.rules import Rules
from ..errors import GameFileError, PictureError
from ..files import read_json_file, write_atomic
from ..limits import check_game_spots
from .model import SPOT_RADIUS, Curve, Picture

FORMAT = "sprouts-game"
VERSION = 2
_GAME_KEYS = ("W0", "H0", "spots", "edges")
_Bad = Callable[[str, str], GameFileError]  # an error about one place of the file


def load_game(path: str | os.PathLike, check: bool = True) -> Picture:
    """Read a saved game; with ``check`` the picture is analysed and refused if it is not a drawing."""
    p = Path(path)
    obj = read_json_file(p)
    game = obj.get("game") if isinstance(obj, dict) else None
    if isinstance(game, dict) and isinstance(game.get("spots"), list):
        check_game_spots(len(game["spots"]), str(p))
    pic = game_from_json(obj, where=str(p))
    if check:
        from .analyse import analyse_picture

        try:
            analyse_picture(pic)
        except PictureError as e:
            raise GameFileError(f"{p}: {e}") from None
    return pic


def game_from_json(obj: object, where: str = "game") -> Picture:
    """The picture held by a parsed saved game (structure only; the drawing is checked by ``analyse``)."""

    def bad(at: str, what: str) -> GameFileError:
        return GameFileError(f"{where}: {at}: {what}")

    if not isinstance(obj, dict):
        raise bad("top level", "expected a JSON object")
    version, game = _header(obj, bad)
    width = _number(game["W0"], "game.W0", bad)
    height = _number(game["H0"], "game.H0", bad)
    if width <= 0 or height <= 0:
        raise bad("game.W0/H0", f"the drawing area must be positive, found {width} × {height}")
    if not isinstance(game["spots"], list):
        raise bad("game.spots", "expected a list")
    if not isinstance(game["edges"], list):
        raise bad("game.edges", "expected a list")
    spots, sizes, degs = _spots(game["spots"], bad)
    curves = [_curve(e, d, len(spots), bad) for e, d in enumerate(game["edges"])]
    pic = Picture(
        width, height, np.array(spots, dtype=float).reshape(-1, 2), curves, np.array(sizes, dtype=float)
    )
    _check_degrees(pic, degs, bad)
    pic.meta = {
        "version": version,
        "game": {k: v for k, v in game.items() if k not in (*_GAME_KEYS, "position")},
        "top": {k: v for k, v in obj.items() if k not in ("format", "version", "game")},
    }
    return pic


def _header(obj: dict, bad: _Bad) -> tuple[object, dict]:
    """The file's version and its ``game`` object, once the format, version, keys and rules are right."""
    if obj.get("format") != FORMAT:
        raise bad("format", f"expected {FORMAT!r}, found {obj.get('format')!r}")
    version = obj.get("version")
    if version not in (1, 2):
        raise bad("version", f"expected 1 or 2, found {version!r}")
    game = obj.get("game")
    if not isinstance(game, dict):
        raise bad("game", "missing or not an object")
    for key in _GAME_KEYS:
        if key not in game:
            raise bad(f"game.{key}", "missing")
    rules = game.get("rules", "normal")
    if rules not in [r.value for r in Rules]:
        known = " or ".join(f"'{r.value}'" for r in Rules)
        raise bad("game.rules", f"expected {known}, found {rules!r}")
    return version, game


def _spots(items: list, bad: _Bad) -> tuple[list[tuple[float, float]], list[float], list[object]]:
    """The spots' centres, sizes, and the number of curves each says it has (None when not said)."""
    spots, sizes, degs = [], [], []
    for i, s in enumerate(items):
        at = f"game.spots[{i}] (spot {i + 1})"
        if not isinstance(s, dict):
            raise bad(at, "expected an object with x and y")
        for key in ("x", "y"):
            if key not in s:
                raise bad(at, f"missing {key!r}")
        spots.append((_number(s["x"], f"{at}.x", bad), _number(s["y"], f"{at}.y", bad)))
        sizes.append(_number(s.get("size", SPOT_RADIUS), f"{at}.size", bad))
        degs.append(s.get("deg"))
    return spots, sizes, degs


def _curve(e: int, d: object, n: int, bad: _Bad) -> Curve:
    """Curve ``e`` of the file: its two ends among the ``n`` spots, its pieces, lengths and player."""
    at = f"game.edges[{e}] (curve {e + 1})"
    if not isinstance(d, dict):
        raise bad(at, "expected an object with a, b and pieces")
    for key in ("a", "b", "pieces"):
        if key not in d:
            raise bad(at, f"missing {key!r}")
    a, b = d["a"], d["b"]
    for name, s in (("a", a), ("b", b)):
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < n:
            raise bad(f"{at}.{name}", f"{s!r} is not a spot (spots are 0 … {n - 1} in the file)")
    pieces = _pieces(d["pieces"], f"{at}.pieces", bad)
    h = d.get("h")
    if h is not None:
        if not isinstance(h, list) or len(h) != len(pieces):
            raise bad(f"{at}.h", f"expected {len(pieces)} numbers, one per piece")
        h = [_number(v, f"{at}.h", bad) for v in h]
    player = d.get("player")
    lengths = np.asarray(h if h is not None else [], dtype=float)
    return Curve(a, b, pieces, lengths, player if isinstance(player, int) else None)


def _check_degrees(pic: Picture, degs: list[object], bad: _Bad) -> None:
    """Every spot has at most three curves, and as many as the file says (where it says)."""
    deg = pic.degrees()
    for i, dg in enumerate(degs):
        if deg[i] > 3:
            raise bad(f"game.spots[{i}] (spot {i + 1})", f"has {deg[i]} curves; a spot takes at most three")
        if dg is not None and dg != int(deg[i]):
            raise bad(f"game.spots[{i}].deg (spot {i + 1})", f"says {dg} but {int(deg[i])} curves end there")


def _number(v: object, at: str, bad) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise bad(at, f"expected a number, found {v!r}")
    return float(v)


def _pieces(v: object, at: str, bad) -> np.ndarray:
    if not isinstance(v, list) or not v:
        raise bad(at, "expected a non-empty list of pieces")
    out = np.zeros((len(v), 4, 2))
    for k, pc in enumerate(v):
        if not isinstance(pc, list) or len(pc) != 4:
            raise bad(f"{at}[{k}]", "expected four control points")
        for m, pt in enumerate(pc):
            if not isinstance(pt, list) or len(pt) != 2:
                raise bad(f"{at}[{k}][{m}]", "expected a point [x, y]")
            out[k, m] = (_number(pt[0], f"{at}[{k}][{m}]", bad), _number(pt[1], f"{at}[{k}][{m}]", bad))
    return out


def game_to_json(pic: Picture, position: str | None = None, move_list: list | None = None) -> dict:
    """The saved-game object for a picture (the browser format, version 2, with our additions)."""
    meta = pic.meta or {}
    deg = pic.degrees()
    game: dict = {
        "W0": _num(pic.width),
        "H0": _num(pic.height),
        "spots": [
            {"x": _num(x), "y": _num(y), "deg": int(deg[i]), "size": _num(pic.sizes[i])}
            for i, (x, y) in enumerate(pic.spots)
        ],
        "edges": [
            {
                "a": c.a,
                "b": c.b,
                "pieces": [[[_num(x), _num(y)] for x, y in pc] for pc in c.pieces],
                "h": [_num(v) for v in c.h],
                "player": c.player if c.player is not None else 0,
            }
            for c in pic.curves
        ],
    }
    extra = dict(meta.get("game", {}))
    extra.setdefault("player", 0)
    extra.setdefault("moves", len(pic.curves) // 2)
    extra.setdefault("added", 0)
    extra.setdefault("phase", "play")
    extra.setdefault("rules", Rules.NORMAL.value)
    if move_list is not None:
        extra["move_list"] = move_list
    game.update(extra)
    if position is not None:
        game["position"] = position
    obj = {"format": FORMAT, "version": VERSION, "game": game}
    obj.update(meta.get("top", {}))
    return obj


def save_game(
    path: str | os.PathLike, pic: Picture, position: str | None = None, move_list: list | None = None
) -> None:
    """Write a saved game: to a temporary file in the same directory, then rename it over ``path``.

    With ``position`` (a position string, usually its exact canonical form) the picture as it will be written
    (coordinates rounded) is first read back and must give that position, else
    :class:`PictureError` and nothing is written.
    """
    obj = game_to_json(pic, position, move_list)
    if position is not None:
        from ..engine import Position
        from .analyse import analyse

        back = analyse(game_from_json(obj, where=str(path))).canonical()
        if back != position and back != Position.from_string(position).canonical():
            raise PictureError(f"{path}: the picture as written would not read back as {position}; not saved")
    write_atomic(path, json.dumps(obj, indent=1) + "\n")


def _num(v: float) -> float | int:
    """Numbers as written: integers stay integers, others keep 6 decimals (sub-micropixel)."""
    f = float(v)
    r = round(f, 6)
    return int(r) if r == int(r) else r
