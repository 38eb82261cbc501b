"""Each move drawn into the picture, and the picture checked against the intended position (Alfeld §5.9).

The start is laid out once (Z); after that every move is drawn into the picture as
it stands by the router (``picture/router.py``), climbing the ladder of ways of
making room (``picture/room.py``: M, A, R, Z, •) only when there is no room, so
spots keep their places from move to move.  The position is the authority: the
picture's position is read back (``analyse``) and must be the intended one with the
same spot numbers (up to mirroring), or the game stops with a message.  The picture
is saved after every move (a temporary file renamed over the old one), and with
``svg_dir`` a picture of every position is written.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.naming import numbered_key
from ..engine.position import Position
from ..errors import PlayError
from .game import Game

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.moves import Move
    from ..log import Step
    from ..picture.model import Picture


class Drawer:
    """Keeps the picture of a game: drawn after each move, checked, saved and rendered."""

    def __init__(
        self,
        width: float = 800,
        height: float = 600,
        save: str | Path | None = None,
        svg_dir: str | Path | None = None,
        jobs: int | None = None,
        progress: Callable[[str | None], object] | None = None,
    ) -> None:
        """``progress(text)`` is told when a move's drawing starts ("drawing move 12") and
        ``progress(None)`` when it ends: a move of a large game can take seconds."""
        self.width = width
        self.progress = progress
        self.height = height
        self.save_path = Path(save) if save else None
        self.svg_dir = Path(svg_dir) if svg_dir else None
        self.jobs = jobs
        self.picture: Picture | None = None
        self.start_picture: Picture | None = None
        self.seconds = 0.0
        self.drawn_by = "layout"
        self.smaller: tuple[int, ...] = ()  # the spots the last picture draws smaller (0-based)
        self.layouts: list[str] = []  # what became of each of Z's layouts for the last move, if Z ran
        self.pictures: list[Picture] = []  # the picture after each move (index: moves made), for undo

    def begin(self, start: Position, picture: Picture | None = None) -> Position:
        """Draw the start (or take the saved game's picture); the start as the picture numbers it.

        A position read from a string has lost its dead spots; its drawing puts some
        back, numbered after the others, and the game goes on from the drawn position.
        """
        from ..picture import analyse

        if picture is None:
            picture = self._layout(start)
        drawn = analyse(picture)
        if drawn.canonical() != start.canonical():
            raise PlayError(f"the drawing of the start is {drawn.canonical()}, not {start.canonical()}")
        self.picture = self.start_picture = picture
        return drawn

    def _layout(self, p: Position) -> Picture:
        from ..errors import PictureError
        from ..picture import layout_position

        t0 = time.perf_counter()
        try:
            pic = layout_position(p, self.width, self.height, jobs=self.jobs)
        except PictureError as e:
            raise PlayError(f"the position {p.canonical()} cannot be drawn: {e}") from None
        self.seconds = time.perf_counter() - t0
        return pic

    def draw(self, game: Game, title: str | None = None) -> None:
        """Draw the game's position, check it against the intended one, save and render it."""
        from ..picture import analyse

        intended = game.position
        k = game.moves_made
        if k < len(self.pictures):  # a move taken back: its picture is kept
            pic = self.pictures[k]
            del self.pictures[k + 1 :]
        elif not game.played:
            pic = self.start_picture if self.start_picture is not None else self._layout(intended)
        else:
            self.layouts = []
            if self.progress is not None:
                self.progress(f"drawing move {k}")
            try:
                moved = self._draw_move(game) if len(self.pictures) == k else None
                if moved is None:
                    pic = self._layout(intended)
                    self.drawn_by = "layout"
                else:
                    pic = moved
            finally:
                if self.progress is not None:
                    self.progress(None)
        from ..picture.sizes import smaller_spots

        drawn = analyse(pic)
        self.smaller = smaller_spots(pic)
        if numbered_key(drawn)[0] != numbered_key(intended)[0] or drawn.lives != intended.lives:
            what = f"move {game.moves_made} ({game.played[-1].words})" if game.played else "the start"
            raise PlayError(
                f"{what} could not be drawn as intended: the picture reads {drawn.canonical()}, "
                f"the game is at {intended.canonical()}"
            )
        self.picture = pic
        del self.pictures[k:]
        self.pictures.append(pic)
        meta_game = pic.meta.setdefault("game", {})
        meta_game.update(
            {"rules": game.rules.value, "player": game.to_move - 1, "moves": game.moves_made, "phase": "play"}
        )
        if self.save_path is not None:
            from ..picture import save_game

            save_game(self.save_path, pic, intended.canonical(), [p.words for p in game.played])
        if self.svg_dir is not None:
            from ..render import render

            name = self.svg_dir / f"move-{game.moves_made:03d}.svg"
            render(pic, name, numbers=True, lives=True, title=title or intended.canonical())

    def prefer(self, position: Position, move: Move) -> Move:
        """Which of several interchangeable boundaries the computer's move encloses (Alfeld §5.9).

        The search decides only how many; the drawing takes a cluster round the move
        (``room.cluster_move``).  The move gives the same position up to the names of
        its spots, so the game's value is unchanged.
        """
        if not self.pictures:
            return move
        from ..picture.room import cluster_move

        return cluster_move(self.pictures[-1], position, move)

    def _draw_move(self, game: Game) -> Picture | None:
        """The last move drawn into the previous picture (router and ladder), or None if it cannot be."""
        from ..errors import PictureError
        from ..picture.analyse import analyse_picture
        from ..picture.room import draw, same_move

        t0 = time.perf_counter()
        previous = self.pictures[-1]
        step = game.played[-1]
        try:
            a = analyse_picture(previous)
            move = same_move(a.position, step.after, step.words)
            if move is None:
                return None
            result = draw(previous, move, analysis=a, player=step.player - 1, layout_jobs=self.jobs)
        except PictureError:
            return None
        self.seconds = time.perf_counter() - t0
        self.drawn_by = result.drawn_by
        self.layouts = [n for n in result.notes if n.startswith("Z, ")]
        pic = result.picture
        pic.meta = copy.deepcopy(previous.meta)
        return pic


def draw_line_of_play(
    steps: Sequence[Step],
    width: float,
    height: float,
    svg_dir: str | None = None,
    titles: list[str] | None = None,
    jobs: int | None = 1,
    progress: Callable[[int, int], object] | None = None,
    fresh: bool = False,
) -> Picture:
    """A replayed game drawn move by move, each move into the previous picture; the last picture.

    ``steps`` are the start and the moves of a log's line of play (each with its
    ``position`` and ``text``, the move in words).  The start is laid out (Z); each
    move is found again in the picture by its words and the position it gives and
    drawn by the router and its ladder, so a replay shows the same drawing growing
    as the game did.  With ``svg_dir`` a picture of every position is written.
    ``progress(i, total)`` is called before each position; with ``fresh`` every
    position is drawn afresh (Z and polish; only the last one when no ``svg_dir``).
    """
    from ..errors import PictureError
    from ..picture import analyse_picture, layout_position
    from ..picture.room import draw, same_move
    from ..render import render

    if svg_dir is not None:
        Path(svg_dir).mkdir(parents=True, exist_ok=True)
    pic = None
    for k, step in enumerate(steps):
        if fresh and svg_dir is None and k < len(steps) - 1:
            continue
        if progress is not None:
            progress(k, len(steps))
        intended = step.position
        drawn = None
        if pic is not None and not fresh:
            a = analyse_picture(pic)
            move = same_move(a.position, intended, step.text)
            if move is not None:
                try:
                    drawn = draw(pic, move, analysis=a, layout_jobs=jobs).picture
                except PictureError:
                    drawn = None
        if drawn is None:
            try:
                drawn = layout_position(intended, width, height, jobs=jobs)
            except PictureError as e:
                raise PlayError(f"move {k}: the position cannot be drawn: {e}") from None
        back = analyse_picture(drawn).position
        if numbered_key(back)[:2] != numbered_key(intended)[:2]:
            raise PlayError(f"move {k} could not be drawn as recorded: the picture reads {back.canonical()}")
        pic = drawn
        if svg_dir is not None:
            title = titles[k] if titles else intended.canonical()
            render(pic, Path(svg_dir) / f"move-{k:03d}.svg", numbers=True, lives=True, title=title)
    if pic is None:
        raise PlayError("a line of play has at least its start to draw")
    return pic
