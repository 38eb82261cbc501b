"""``sprouts replay LOG --html game.html --gif game.gif``: a game to watch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import SproutsError
from .common import err, fail

if TYPE_CHECKING:  # pragma: no cover
    from ..log import ReplayedGame


def show_progress(text: str) -> None:
    """A progress report on stderr: one line rewritten in place on a terminal, a plain line otherwise
    (a log or a pipe keeps every report, each on its own line)."""
    if err.is_terminal:
        sys.stderr.write(f"\r\033[K{text}")
    else:
        sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def progress_line(what: str) -> Callable[[int, int], None]:
    """Progress through numbered items on stderr ("drawing position 3 of 27"), by ``show_progress``."""

    def progress(i: int, total: int) -> None:
        show_progress(f"{what} {i + 1} of {total}")

    return progress


def end_progress() -> None:
    """Clear the progress line (a terminal only: plain lines stay)."""
    if err.is_terminal:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def write_watch(
    game: ReplayedGame,
    html_path: str | None,
    gif_path: str | None,
    source: str,
    width: float,
    height: float,
    fresh: bool = False,
    stopped: str | None = None,
) -> None:
    """Draw every position of ``game`` once and write the page and/or the animation.

    ``fresh``: every position drawn afresh (Z and polish) rather than move by move.
    ``stopped`` says where a log that does not replay to its end stops: the part
    kept is drawn, and the page and the terminal say so.
    """
    from ..replay_html import draw_frames, frames_of, write_gif, write_html

    frames = frames_of(game)
    progress = progress_line("drawing position")
    try:
        try:
            pictures = draw_frames(game, width, height, progress=progress, fresh=fresh)
        finally:
            end_progress()
        kept = f"; {stopped}" if stopped else ""
        if html_path:
            write_html(html_path, game, pictures, source=f"replayed from {source}{kept}")
            err.print(f"wrote {html_path} ({len(frames)} positions{kept})", markup=False)
        if gif_path:
            count = write_gif(gif_path, game, pictures)
            err.print(f"wrote {gif_path} ({count} frames{kept})", markup=False)
    except SproutsError as e:
        fail(str(e))


__all__ = ["write_watch"]
