"""Drawing pictures to SVG or PNG with matplotlib.

Curves are drawn as their cubic Bézier pieces (matplotlib ``CURVE4`` path codes,
which the SVG backend writes as exact ``C`` commands), spots as discs coloured by
their lives and numbered 1-based, optionally each live region's lives, and a
title with the position string.  The output is deterministic: the same picture
gives the same bytes.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import numpy as np

from .errors import SproutsError
from .picture.gamefile import write_atomic
from .picture.model import Picture

#: Spot colours by lives: seeds, sprouts, links, stumps.
LIFE_COLOURS = {3: "#2a9d55", 2: "#2b6cb0", 1: "#e07b00", 0: "#8a8a8a"}
CURVE_COLOUR = "#1d2733"


def render(
    pic: Picture,
    path: str | os.PathLike,
    numbers: bool = True,
    lives: bool = False,
    title: str | None = None,
) -> None:
    """Draw the picture to ``path``; the format (SVG or PNG) follows the file's extension."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise SproutsError(f"{path}: cannot tell the format; the file name should end in .svg or .png")
    write_atomic(path, render_bytes(pic, fmt, numbers=numbers, lives=lives, title=title))


def render_bytes(
    pic: Picture, fmt: str, numbers: bool = True, lives: bool = False, title: str | None = None
) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Circle, PathPatch
    from matplotlib.path import Path as MPath

    from .picture.analyse import analyse_picture

    analysis = analyse_picture(pic)
    rc = {
        "svg.hashsalt": "sprouts",
        "svg.fonttype": "none",
        "path.simplify": False,
        "font.family": "DejaVu Sans",
    }
    with matplotlib.rc_context(rc):
        w, h = float(pic.width), float(pic.height)
        top = 36.0 if title else 0.0
        dpi = 100
        fig = plt.figure(figsize=(w / dpi, (h + top) / dpi), dpi=dpi)
        ax = fig.add_axes((0, 0, 1, h / (h + top)))
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.add_patch(plt.Rectangle((0, 0), w, h, facecolor="white", edgecolor="#d0d4d9", lw=1.0))
        for c in pic.curves:
            verts = [c.pieces[0, 0]]
            codes = [MPath.MOVETO]
            for pc in c.pieces:
                verts.extend(pc[1:])
                codes.extend([MPath.CURVE4] * 3)
            ax.add_patch(
                PathPatch(MPath(np.array(verts), codes), facecolor="none", edgecolor=CURVE_COLOUR, lw=1.6)
            )
        spot_lives = pic.lives()
        font = max(6.0, min(11.0, 1.6 * float(np.median(pic.sizes)) if len(pic.sizes) else 9.0))
        for i, (x, y) in enumerate(pic.spots):
            r = float(pic.sizes[i])
            ax.add_patch(
                Circle((x, y), r, facecolor=LIFE_COLOURS[spot_lives[i]], edgecolor="white", lw=0.8, zorder=3)
            )
            if numbers:
                ax.text(
                    x + r * 0.9,
                    y - r * 0.9,
                    str(i + 1),
                    fontsize=font,
                    color="#222222",
                    ha="left",
                    va="bottom",
                    zorder=4,
                )
        if lives:
            for (x, y), value in region_labels(pic, analysis):
                ax.text(
                    x, y, str(value), fontsize=font + 1, color="#9b2c2c", ha="center", va="center", zorder=2
                )
        if title:
            fig.text(
                0.5,
                1 - (top / 2) / (h + top),
                title,
                ha="center",
                va="center",
                fontsize=11,
                family="monospace",
            )
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
        plt.close(fig)
    return buf.getvalue()


def region_labels(pic: Picture, analysis) -> list[tuple[tuple[float, float], int]]:
    """A point well inside each live region (the grid point farthest from everything), and its lives."""
    from .picture.analyse import _face_polygon

    pos = analysis.position
    pmap = analysis.map
    step = max(6.0, math.sqrt(pic.width * pic.height / 4000.0))
    xs = np.arange(step / 2, pic.width, step)
    ys = np.arange(step / 2, pic.height, step)
    grid = np.array([(x, y) for y in ys for x in xs])
    # distance from each grid point to every curve polygon and spot
    pts = [pic.spots] + [analysis.certificate.polygon(e) for e in range(len(pic.curves))]
    cloud = np.concatenate(pts) if pts else np.zeros((0, 2))
    if not len(cloud):
        return []
    dist = np.full(len(grid), np.inf)
    for chunk in np.array_split(cloud, max(1, len(cloud) // 500)):
        d = np.hypot(grid[:, None, 0] - chunk[None, :, 0], grid[:, None, 1] - chunk[None, :, 1]).min(axis=1)
        dist = np.minimum(dist, d)
    edge = np.minimum.reduce([grid[:, 0], grid[:, 1], pic.width - grid[:, 0], pic.height - grid[:, 1]])
    dist = np.minimum(dist, edge)
    # each grid point's region: the smallest inner face around it, else the outside
    faces = [(ri, w[1]) for ri, region in enumerate(pmap.regions) for w in region[:1] if w[0] == "cycle"]
    inner = [(ri, f) for ri, f in faces if ri != 0]
    owner = np.zeros(len(grid), dtype=int)
    best = np.full(len(grid), np.inf)
    for ri, f in inner:
        poly = _face_polygon(analysis.certificate, f)
        area = abs(analysis.face_area[f])
        inside = (winding_many(poly, grid) != 0) & (area < best)
        best[inside] = area
        owner[inside] = ri
    out = []
    for ri in range(len(pmap.regions)):
        value = pos.region_lives(ri)
        if value < 2:
            continue
        mask = owner == ri
        if not mask.any():
            continue
        k = int(np.argmax(np.where(mask, dist, -1)))
        out.append(((float(grid[k, 0]), float(grid[k, 1])), value))
    return out


def winding_many(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Winding numbers of a closed polygon around many points at once."""
    out = np.zeros(len(pts), dtype=int)
    for chunk in range(0, len(pts), 256):
        p = pts[chunk : chunk + 256]
        x = poly[None, :, 0] - p[:, None, 0]
        y = poly[None, :, 1] - p[:, None, 1]
        x2, y2 = np.roll(x, -1, axis=1), np.roll(y, -1, axis=1)
        cross = x * y2 - x2 * y
        up = (y <= 0) & (y2 > 0) & (cross > 0)
        down = (y > 0) & (y2 <= 0) & (cross < 0)
        out[chunk : chunk + 256] = up.sum(axis=1) - down.sum(axis=1)
    return out
