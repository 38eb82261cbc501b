"""Hard limits: what each command can really do, checked before any work starts.

Beyond these a command would run for minutes to hours or grow past the memory of an
ordinary machine, so it refuses at once, with exit code 2 and one line naming the
limit.  What grows, and so what is limited:

- naming (``canonical``, and every command, since every command names positions) is
  quadratic in the length of one boundary, so the longest boundary is limited for
  every command; many short boundaries are cheap;
- ``children``, ``moves`` and ``bounds`` grow with the number of spots;
- ``layout`` and ``render`` (and ``play`` when it draws) grow with the spots drawn;
- ``solve`` grows exponentially in the lives of one land, and a nim heap ``*k`` adds
  ``k`` children to every node.

The limits were set from measurements on the project's 2-core machine; the figures
are in docs/limits.md.  The reader itself refuses strings of more than ``MAX_TEXT``
characters and more than ``MAX_SPOTS`` spots (``engine/notation.py``), before it
builds anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine.notation import MAX_SPOTS, MAX_TEXT
from .engine.position import Position
from .errors import LimitError

#: The longest boundary any command names (corners met going once round it).
MAX_BOUNDARY = 2_000


@dataclass(frozen=True)
class Limit:
    """What one command accepts: spots in all, lives in one land, the largest nim heap."""

    spots: int = MAX_SPOTS
    land_lives: int | None = None
    heap: int | None = None


LIMITS: dict[str, Limit] = {
    "canonical": Limit(),
    "children": Limit(spots=1_000),
    "moves": Limit(spots=1_000),  # every move in words: as children
    "bounds": Limit(spots=1_000),
    "solve": Limit(land_lives=60, heap=1_000),
    "layout": Limit(spots=200),
    "render": Limit(spots=200),
    "play": Limit(spots=200, heap=1_000),
    "replay": Limit(spots=200),
}

#: Saved games: the file's size and its spots (reading one analyses every curve).
MAX_GAME_FILE_BYTES = 20_000_000
MAX_GAME_SPOTS = 1_000


def check_limits(p: Position, command: str) -> None:
    """Refuse ``p`` with a ``LimitError`` naming the limit when ``command`` cannot handle it."""
    limit = LIMITS[command]
    spots = len(p.lives)
    if spots > limit.spots:
        raise LimitError(f"{spots:,} spots; sprouts {command} takes at most {limit.spots:,}")
    longest = max((len(b) for r in p.regions for b in r), default=0)
    if longest > MAX_BOUNDARY:
        raise LimitError(
            f"a boundary of {longest:,} corners; the longest a position may have is {MAX_BOUNDARY:,}"
        )
    if limit.heap is not None and p.heaps and max(p.heaps) > limit.heap:
        raise LimitError(f"a nim heap *{max(p.heaps):,}; sprouts {command} takes heaps up to *{limit.heap:,}")
    if limit.land_lives is not None:
        most = max(_land_lives(p), default=0)
        if most > limit.land_lives:
            raise LimitError(
                f"a land of {most:,} lives; sprouts {command} takes lands of at most {limit.land_lives} "
                "(0*20 has 60)"
            )


def _land_lives(p: Position) -> list[int]:
    from .engine.parts import land_groups

    lives = []
    for group in land_groups(p):
        spots = {s for ri in group for b in p.regions[ri] for s in b}
        lives.append(sum(p.lives[s] for s in spots))
    return lives


def check_game_size(size: int, where: str) -> None:
    """Refuse a saved game file larger than ``MAX_GAME_FILE_BYTES`` before reading it."""
    if size > MAX_GAME_FILE_BYTES:
        raise LimitError(f"{where}: {size:,} bytes; a saved game may have at most {MAX_GAME_FILE_BYTES:,}")


def check_game_spots(spots: int, where: str) -> None:
    """Refuse a saved game with more than ``MAX_GAME_SPOTS`` spots before analysing its curves."""
    if spots > MAX_GAME_SPOTS:
        raise LimitError(f"{where}: {spots:,} spots; a saved game may have at most {MAX_GAME_SPOTS:,}")


__all__ = [
    "LIMITS",
    "MAX_BOUNDARY",
    "MAX_GAME_FILE_BYTES",
    "MAX_GAME_SPOTS",
    "MAX_SPOTS",
    "MAX_TEXT",
    "Limit",
    "check_game_size",
    "check_game_spots",
    "check_limits",
]
