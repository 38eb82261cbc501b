"""Pictures of Dots-and-Boxes positions (SVG or PNG, by matplotlib).

Dots in black; a drawn line in the colour of the player who drew it (dark grey when
not known, as for a bare position string); an undrawn line as a faint dotted guide;
a taken box filled with its owner's light colour and initial (grey when the owner
is not known).  Dots are labelled a, b, … and 1, 2, … as moves name them.  The
output is deterministic: the same picture gives the same bytes.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SproutsError
from ..files import write_atomic
from .board import DotsPosition
from .game import INITIALS

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.typing import RcKeyType

LINE_COLOURS = {1: "#2b6cb0", 2: "#c53030", None: "#1d2733"}
BOX_COLOURS = {1: "#bee3f8", 2: "#fed7d7", None: "#d9d9d9"}


def render_dots(
    position: DotsPosition,
    path: str | os.PathLike,
    line_owner: dict[int, int] | None = None,
    box_owner: dict[int, int] | None = None,
    title: str | None = None,
    scale: float = 1.0,
) -> None:
    """Draw the position to ``path``; the format follows the extension (.svg or .png).

    ``scale`` enlarges the whole picture, its lines, dots and text (2: twice as wide).
    """
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise SproutsError(f"{path}: cannot tell the format; the file name should end in .svg or .png")
    write_atomic(path, render_dots_bytes(position, fmt, line_owner, box_owner, title, scale))


def render_dots_bytes(
    position: DotsPosition,
    fmt: str,
    line_owner: dict[int, int] | None = None,
    box_owner: dict[int, int] | None = None,
    title: str | None = None,
    scale: float = 1.0,
) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Rectangle

    line_owner = line_owner or {}
    box_owner = box_owner or {}
    board = position.board
    rc: dict[RcKeyType, Any] = {
        "svg.hashsalt": "dots",
        "svg.fonttype": "none",
        "path.simplify": False,
        "font.family": "DejaVu Sans",
    }
    with matplotlib.rc_context(rc):
        inch = 0.9 * scale
        fig = plt.figure(
            figsize=(inch * (board.cols + 1.2), inch * (board.rows + 1.2 + (0.4 if title else 0)))
        )
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(-0.6, board.cols + 0.6)
        ax.set_ylim(board.rows + 0.6, -0.6 - (0.4 if title else 0))
        ax.set_aspect("equal")
        ax.axis("off")
        for box in position.taken():
            r, c = divmod(box, board.cols)
            owner = box_owner.get(box)
            ax.add_patch(
                Rectangle((c, r), 1, 1, facecolor=BOX_COLOURS.get(owner, BOX_COLOURS[None]), edgecolor="none")
            )
            if owner in INITIALS:
                ax.text(
                    c + 0.5,
                    r + 0.5,
                    INITIALS[owner],
                    ha="center",
                    va="center",
                    fontsize=16 * scale,
                    color=LINE_COLOURS[owner],
                    fontweight="bold",
                )
        for line in range(board.num_lines):
            (r1, c1), (r2, c2) = board.endpoints(line)
            if position.drawn(line):
                colour = LINE_COLOURS.get(line_owner.get(line), LINE_COLOURS[None])
                ax.plot(
                    [c1, c2], [r1, r2], color=colour, linewidth=4 * scale, solid_capstyle="round", zorder=2
                )
            else:
                ax.plot([c1, c2], [r1, r2], color="#c8c8c8", linewidth=0.8 * scale, linestyle=":", zorder=1)
        for r in range(board.rows + 1):
            ax.text(-0.4, r, str(r + 1), ha="center", va="center", fontsize=9 * scale, color="#666666")
            for c in range(board.cols + 1):
                ax.plot([c], [r], marker="o", markersize=7 * scale, color="black", zorder=3)
        for c in range(board.cols + 1):
            ax.text(
                c,
                board.rows + 0.4,
                chr(ord("a") + c),
                ha="center",
                va="center",
                fontsize=9 * scale,
                color="#666666",
            )
        if title:
            ax.text(board.cols / 2, -0.75, title, ha="center", va="center", fontsize=9 * scale)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=100, metadata={"Date": None} if fmt == "svg" else {"Software": None})
        plt.close(fig)
    return buf.getvalue()
