"""``sprouts replay LOG --html game.html --gif game.gif``: a game to watch."""

from __future__ import annotations

from ..errors import SproutsError
from .common import err, fail


def write_watch(
    game, html_path: str | None, gif_path: str | None, source: str, width: float, height: float
) -> None:
    """Draw every position of ``game`` once and write the page and/or the animation."""
    from ..replay_html import draw_frames, frames_of, write_gif, write_html

    frames = frames_of(game)
    live = err.is_terminal

    def progress(i: int, total: int) -> None:
        if live:
            err.print(f"\rdrawing position {i + 1} of {total}", end="", markup=False)

    try:
        pictures = draw_frames(game, width, height, progress=progress)
        if live:
            err.print("", markup=False)
        if html_path:
            write_html(html_path, game, pictures, source=f"replayed from {source}")
            err.print(f"wrote {html_path} ({len(frames)} positions)", markup=False)
        if gif_path:
            count = write_gif(gif_path, game, pictures)
            err.print(f"wrote {gif_path} ({count} frames)", markup=False)
    except SproutsError as e:
        fail(str(e))


__all__ = ["write_watch"]
