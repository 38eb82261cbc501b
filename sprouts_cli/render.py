"""Drawing pictures to SVG or PNG with matplotlib.

Curves are drawn as their cubic Bézier pieces (matplotlib ``CURVE4`` path codes,
which the SVG backend writes as exact ``C`` commands), spots as discs coloured by
their lives and numbered 1-based, optionally each live region's lives, a legend of
the spot colours, and a title with the position string.  The output is
deterministic: the same picture gives the same bytes.

For a room: ``scale`` thickens curves and enlarges spots and text (2 reads well on
a projector), ``dpi`` sets a PNG's resolution (100 dpi: one pixel per unit of the
drawing area).  A spot's number is put where its box meets no curve, no spot and no
other number (``label_places``).
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .errors import SproutsError
from .files import write_atomic
from .picture.model import Picture

#: Spot colours by lives: seeds, sprouts, links, stumps.
LIFE_COLOURS = {3: "#2a9d55", 2: "#2b6cb0", 1: "#e07b00", 0: "#8a8a8a"}
CURVE_COLOUR = "#1d2733"
#: The colour of the curves a move has just drawn (``highlight``), so a viewer sees the new curve.
NEW_CURVE_COLOUR = "#d9480f"


#: Words for the legend.
LIFE_NAMES = {3: "3 lives", 2: "2 lives", 1: "1 life", 0: "dead"}
#: Resolution that makes one unit of the drawing area one pixel.
BASE_DPI = 100


def render(
    pic: Picture,
    path: str | os.PathLike,
    numbers: bool = True,
    lives: bool = False,
    title: str | None = None,
    legend: bool = False,
    scale: float = 1.0,
    dpi: float = BASE_DPI,
    highlight: Sequence[int] = (),
) -> None:
    """Draw the picture to ``path``; the format (SVG or PNG) follows the file's extension.

    ``highlight``: indices of curves drawn in the new-curve colour (the last move's two curves).
    """
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise SproutsError(f"{path}: cannot tell the format; the file name should end in .svg or .png")
    data = render_bytes(
        pic, fmt, numbers=numbers, lives=lives, title=title, legend=legend, scale=scale, dpi=dpi,
        highlight=highlight,
    )  # fmt: skip
    write_atomic(path, data)


def render_bytes(
    pic: Picture,
    fmt: str,
    numbers: bool = True,
    lives: bool = False,
    title: str | None = None,
    legend: bool = False,
    scale: float = 1.0,
    dpi: float = BASE_DPI,
    highlight: Sequence[int] = (),
) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Circle, PathPatch
    from matplotlib.path import Path as MPath

    from .picture.analyse import analyse_picture

    analysis = analyse_picture(pic)
    with matplotlib.rc_context(
        {
            "svg.hashsalt": "sprouts",
            "svg.fonttype": "none",
            "path.simplify": False,
            "font.family": "DejaVu Sans",
        }
    ):
        w, h = float(pic.width), float(pic.height)
        top = 36.0 * scale if title else 0.0
        rows = legend_rows(w, scale, lives) if legend else 0
        bottom = (12.0 + 22.0 * rows) * scale if legend else 0.0
        total = h + top + bottom
        fig = plt.figure(figsize=(w / BASE_DPI, total / BASE_DPI), dpi=BASE_DPI)
        ax = fig.add_axes((0, bottom / total, 1, h / total))
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.add_patch(plt.Rectangle((0, 0), w, h, facecolor="white", edgecolor="#d0d4d9", lw=1.0))
        marked = set(highlight)
        for e, c in enumerate(pic.curves):
            verts = [c.pieces[0, 0]]
            codes = [MPath.MOVETO]
            for pc in c.pieces:
                verts.extend(pc[1:])
                codes.extend([MPath.CURVE4] * 3)
            ax.add_patch(
                PathPatch(
                    MPath(np.array(verts), codes),
                    facecolor="none",
                    edgecolor=NEW_CURVE_COLOUR if e in marked else CURVE_COLOUR,
                    lw=(2.4 if e in marked else 1.6) * scale,
                )
            )
        spot_lives = pic.lives()
        font = scale * max(6.0, min(11.0, 1.6 * float(np.median(pic.sizes)) if len(pic.sizes) else 9.0))
        radii = np.asarray(pic.sizes, dtype=float) * min(scale, 2.0)
        for i, (x, y) in enumerate(pic.spots):
            colour = LIFE_COLOURS[spot_lives[i]]
            ax.add_patch(
                Circle((x, y), radii[i], facecolor=colour, edgecolor="white", lw=0.8 * scale, zorder=3)
            )
        region_texts = region_labels(pic, analysis) if lives else []
        region_font = font + scale
        for (x, y), value in region_texts:
            ax.text(
                x, y, str(value), fontsize=region_font, color="#9b2c2c", ha="center", va="center", zorder=2
            )
        if numbers:
            taken = [_text_box((x, y), str(value), region_font * PT_TO_PX) for (x, y), value in region_texts]
            for i, (x, y) in enumerate(label_places(pic, analysis, font * PT_TO_PX, radii, taken)):
                ax.text(x, y, str(i + 1), fontsize=font, color="#222222", ha="center", va="center", zorder=4)
        if title:
            fig.text(
                0.5,
                1 - (top / 2) / total,
                title,
                ha="center",
                va="center",
                fontsize=11 * scale,
                family="monospace",
            )
        if legend:
            _legend(fig, scale, lives, (bottom / 2) / total, rows)
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
        plt.close(fig)
    return buf.getvalue()


#: Points to pixels of the drawing area (one unit per pixel at ``BASE_DPI``).
PT_TO_PX = BASE_DPI / 72.0


def _legend_labels(lives: bool) -> list[str]:
    return [*LIFE_NAMES.values(), *(["lives of a region"] if lives else [])]


def legend_rows(width: float, scale: float, lives: bool) -> int:
    """How many rows the legend needs to fit the picture's width (entries' widths estimated)."""
    em = 9 * scale * PT_TO_PX
    entries = [(2.6 + 0.6 * len(label)) * em for label in _legend_labels(lives)]
    for rows in range(1, len(entries) + 1):
        per_row = math.ceil(len(entries) / rows)
        widest = max(sum(entries[i : i + per_row]) for i in range(0, len(entries), per_row))
        if widest <= 0.95 * width:
            return rows
    return len(entries)


def _legend(fig, scale: float, lives: bool, y: float, rows: int) -> None:
    """The spot colours (and the region lives' colour) in a band under the drawing."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], marker="o", linestyle="none", markersize=7 * scale, markerfacecolor=colour,
               markeredgecolor="white", label=LIFE_NAMES[k])
        for k, colour in LIFE_COLOURS.items()
    ]  # fmt: skip
    if lives:
        handles.append(
            Line2D([], [], marker="$7$", linestyle="none", markersize=8 * scale, color="#9b2c2c",
                   label="lives of a region")
        )  # fmt: skip
    fig.legend(
        handles=handles,
        loc="center",
        bbox_to_anchor=(0.5, y),
        ncol=math.ceil(len(handles) / max(rows, 1)),
        frameon=False,
        fontsize=9 * scale,
        handletextpad=0.3,
        columnspacing=1.4,
    )


Box = tuple[float, float, float, float]  # centre x, centre y, half width, half height


def _text_box(centre: tuple[float, float], text: str, font_px: float) -> Box:
    """The box a short text of digits takes, centred at ``centre`` (DejaVu digits are 0.64 em wide)."""
    return (centre[0], centre[1], 0.5 * (0.64 * font_px * len(text)) + 1.0, 0.5 * 0.8 * font_px + 1.0)


def curve_samples(pic: Picture, analysis, step: float = 2.0) -> np.ndarray:
    """Points along every curve no more than ``step`` apart (the refined control polygons, resampled).

    A refined control polygon lies within a small distance of its curve (it is what the
    certificate tests crossings on), so a box clear of these points is clear of the curve.
    """
    out = [np.zeros((0, 2))]
    for e in range(len(pic.curves)):
        poly = analysis.certificate.polygon(e)
        for k in range(len(poly) - 1):
            a, b = poly[k], poly[k + 1]
            n = max(1, math.ceil(float(np.hypot(*(b - a))) / step))
            t = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
            out.append(a + t * (b - a))
        out.append(poly[-1:])
    return np.concatenate(out)


def _box_distance(box: Box, pts: np.ndarray) -> np.ndarray:
    """Distance from a box to each point (0 inside)."""
    dx = np.maximum(np.abs(pts[:, 0] - box[0]) - box[2], 0.0)
    dy = np.maximum(np.abs(pts[:, 1] - box[1]) - box[3], 0.0)
    return np.hypot(dx, dy)


def _boxes_apart(a: Box, b: Box) -> float:
    """The gap between two boxes (0 when they touch or overlap)."""
    gx = abs(a[0] - b[0]) - a[2] - b[2]
    gy = abs(a[1] - b[1]) - a[3] - b[3]
    return max(gx, gy, 0.0) if max(gx, gy) > 0 else 0.0


def label_places(
    pic: Picture, analysis, font_px: float, radii: np.ndarray, taken: list[Box] | None = None
) -> list[tuple[float, float]]:
    """The centre of each spot's number: a box that meets no curve, no spot disc and no other label.

    Candidates lie round the spot in 16 directions on rings a little farther out each
    time; the nearest ring with a free box wins, and within it the freest box (up to a
    few pixels, then the upper right first, as numbers are usually written).  When no
    candidate is free (a very crowded picture) the one farthest from everything is used.
    """
    samples = curve_samples(pic, analysis)
    spots = np.asarray(pic.spots, dtype=float)
    boxes: list[Box] = list(taken or [])
    places: list[tuple[float, float]] = []
    angles = [math.radians(a) for a in (-45, 0, -90, 45, 90, 135, 180, -135, -22.5, 22.5, -67.5, 67.5,
                                        112.5, 157.5, -112.5, -157.5)]  # fmt: skip
    margin = 1.5
    for i, (x, y) in enumerate(spots):
        text = str(i + 1)
        best: tuple[tuple, tuple[float, float], Box] | None = None
        for ring, gap in enumerate((2.0, 5.0, 9.0, 14.0, 21.0, 30.0)):
            for order, a in enumerate(angles):
                ux, uy = math.cos(a), math.sin(a)
                _, _, hw, hh = _text_box((0.0, 0.0), text, font_px)
                d = radii[i] + gap + min(hw / max(abs(ux), 1e-9), hh / max(abs(uy), 1e-9))
                box = _text_box((x + ux * d, y + uy * d), text, font_px)
                clear = float(_box_distance(box, samples).min()) if len(samples) else math.inf
                dist = _box_distance(box, spots) - radii
                own = float(dist[i])  # at least ``gap`` by construction, less at a slant
                dist[i] = math.inf
                clear = min(clear, float(dist.min()))
                clear = min([clear, *(_boxes_apart(box, b) for b in boxes)])
                inside = (
                    box[0] - box[2] >= 0 and box[1] - box[3] >= 0
                    and box[0] + box[2] <= pic.width and box[1] + box[3] <= pic.height
                )  # fmt: skip
                free = inside and clear >= margin and own >= 1.0
                key = (0 if free else 1, ring if free else 0, -min(clear, 4.0) if free else -clear, order)
                if best is None or key < best[0]:
                    best = (key, (box[0], box[1]), box)
            if best is not None and best[0][0] == 0:
                break
        assert best is not None
        places.append(best[1])
        boxes.append(best[2])
    return places


def region_labels(pic: Picture, analysis) -> list[tuple[tuple[float, float], int]]:
    """A point well inside each live region (the grid point farthest from everything), and its lives."""
    from .picture.analyse import face_polygon
    from .picture.geometry import winding_numbers

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
        poly = face_polygon(analysis.certificate, f)
        area = abs(analysis.face_area[f])
        inside = (winding_numbers(poly, grid) != 0) & (area < best)
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
