"""The Dots-and-Boxes game log: written a line at a time, replayed and checked move by move.

Same shape as the Sprouts log (``sprouts_cli/log.py``), with its own header so the
two are never confused::

    log     := "dots-log 1" NL (record NL)*        blank lines and "# ..." lines are skipped
    record  := kind " " number (" ; " key " " value)*
    kind    := game | move | think | end | note

* ``game N``: ``board`` (RxC), ``rules`` (free | must-complete), ``first``,
  ``second`` (human | random | greedy | perfect), ``seed``, ``to-move``, ``start``
  (the position), ``date``.
* ``move K``: ``player`` (1 | 2), ``by``, ``line`` (its dots, a1-b1), ``index``,
  ``boxes`` (completed by it), ``score`` (player 1-player 2 after it), ``position``.
* ``think K``: what a computer player knew before move K (``value``…); not checked.
* ``end N``: ``moves``, ``score``, ``winner`` (1 | 2 | none), ``reason``.
* ``note K``: free text; not checked.

Replaying rebuilds every game and checks every move: the line exists and is legal
under the game's rules, it is the turn of the player named, and the boxes, score
and position after it are the ones recorded; and the end's score and winner.  The
first line that fails is reported with its number; everything before it is kept.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DotsLogError, SproutsError
from .board import Board, DotsPosition
from .game import DotsGame

HEADER = "dots-log 1"
KINDS = ("game", "move", "think", "end", "note")
SEP = " ; "
RULES = {"free": False, "must-complete": True}


def rules_name(must_complete: bool) -> str:
    return "must-complete" if must_complete else "free"


def is_dots_log(path: str | os.PathLike) -> bool:
    """True when the file starts with the Dots-and-Boxes log header."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().strip() == HEADER
    except OSError:
        return False


def format_record(kind: str, number: int, fields: list[tuple[str, object]]) -> str:
    parts = [f"{kind} {number}"]
    for key, value in fields:
        if value is not None:
            text = str(value).replace("\n", " ").replace("\r", " ").replace(SEP, " , ")
            parts.append(f"{key} {text}")
    return SEP.join(parts)


class DotsLogWriter:
    """Appends games to a log, one flushed line per record; refuses a file that is not a dots log."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.games = 0
        existing = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        if existing.strip():
            if existing.splitlines()[0].strip() != HEADER:
                raise DotsLogError(f"{self.path}: not a Dots-and-Boxes log (no '{HEADER}' header)", 1)
            if not existing.endswith("\n"):
                raise DotsLogError(f"{self.path}: the last line is cut off; not appending to it")
            self.games = sum(1 for line in existing.splitlines() if line.startswith("game "))
        self.file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        if not existing.strip():
            self._write(HEADER)

    def _write(self, line: str) -> None:
        self.file.write(line + "\n")
        self.file.flush()

    def record(self, kind: str, number: int, fields: list[tuple[str, object]]) -> None:
        self._write(format_record(kind, number, fields))

    def start_game(self, game: DotsGame, first: str, second: str, seed: int | None) -> int:
        self.games += 1
        date = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        self.record(
            "game",
            self.games,
            [
                ("board", game.board),
                ("rules", rules_name(game.must_complete)),
                ("first", first),
                ("second", second),
                ("seed", seed if seed is not None else "none"),
                ("to-move", game.to_move),
                ("start", game.position),
                ("date", date),
            ],
        )
        return self.games

    def move(self, game: DotsGame, player: int, by: str, line: int, boxes: int) -> None:
        self.record(
            "move",
            len(game.moves),
            [
                ("player", player),
                ("by", by),
                ("line", game.board.line_name(line)),
                ("index", line),
                ("boxes", boxes),
                ("score", game.score_text()),
                ("position", game.position),
            ],
        )

    def end(self, game: DotsGame, reason: str) -> None:
        winner = game.winner()
        self.record(
            "end",
            self.games,
            [
                ("moves", len(game.moves)),
                ("score", game.score_text()),
                ("winner", winner if winner else "none"),
                ("reason", reason),
            ],
        )

    def close(self) -> None:
        self.file.close()


# ------------------------------------------------------------------ replaying


@dataclass
class Step:
    """The game after move ``move`` (0: the start)."""

    move: int
    text: str  # the line by its dots ("" for the start)
    line: int | None
    player: int | None
    position: DotsPosition
    score: tuple[int, int]
    to_move: int
    line_owner: dict[int, int]
    box_owner: dict[int, int]


@dataclass
class ReplayedGame:
    number: int
    board: Board
    must_complete: bool
    players: tuple[str, str]
    steps: list[Step] = field(default_factory=list)
    ended: dict[str, str] | None = None

    @property
    def moves(self) -> int:
        return len(self.steps) - 1

    @property
    def rules(self) -> str:
        return rules_name(self.must_complete)


@dataclass
class DotsReplay:
    games: list[ReplayedGame]
    error: DotsLogError | None


def _fields(text: str, number: int) -> tuple[str, int, dict[str, str]]:
    parts = text.split(SEP)
    head = parts[0].split()
    if len(head) != 2 or head[0] not in KINDS or not head[1].isdigit():
        raise DotsLogError(
            f"not a record: {parts[0]!r} (expected one of {', '.join(KINDS)} and a number)", number
        )
    fields: dict[str, str] = {}
    for part in parts[1:]:
        key, _, value = part.strip().partition(" ")
        fields[key] = value.strip()
    return head[0], int(head[1]), fields


def _need(fields: dict[str, str], key: str, number: int) -> str:
    if key not in fields:
        raise DotsLogError(f"the record has no '{key}'", number)
    return fields[key]


def _snapshot(game: DotsGame, move: int, text: str, line: int | None, player: int | None) -> Step:
    return Step(
        move,
        text,
        line,
        player,
        game.position,
        (game.score[1], game.score[2]),
        game.to_move,
        dict(game.line_owner),
        dict(game.box_owner),
    )


def replay_dots_log(source: str | os.PathLike, text: str | None = None) -> DotsReplay:
    """Rebuild every game of a log, stopping at the first line that does not replay."""
    if text is None:
        try:
            text = Path(source).read_bytes().decode("utf-8")
        except OSError as e:  # the caller names the file once
            from ..files import unreadable

            return DotsReplay([], DotsLogError(unreadable(e)))
        except UnicodeDecodeError:
            return DotsReplay([], DotsLogError("not UTF-8 text"))
    lines = text.splitlines(keepends=True)
    games: list[ReplayedGame] = []
    game: DotsGame | None = None
    seen_header = False
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if number == len(lines) and not raw.endswith(("\n", "\r")) and stripped:
            return DotsReplay(
                games, DotsLogError("the last line is truncated (the log ends in the middle of it)", number)
            )
        if not stripped or stripped.startswith("#"):
            continue
        if not seen_header:
            if stripped != HEADER:
                return DotsReplay(
                    games,
                    DotsLogError(f"not a Dots-and-Boxes log: the first line should be '{HEADER}'", number),
                )
            seen_header = True
            continue
        try:
            game = _replay_record(stripped, number, game, games)
        except DotsLogError as e:
            return DotsReplay(games, e)
        except SproutsError as e:
            return DotsReplay(games, DotsLogError(str(e), number))
    if not seen_header:
        return DotsReplay(games, DotsLogError(f"not a Dots-and-Boxes log: no '{HEADER}' line", 1))
    return DotsReplay(games, None)


def _replay_record(
    text: str, number: int, game: DotsGame | None, games: list[ReplayedGame]
) -> DotsGame | None:
    """Replay one record (a game, a move, an end) onto ``games``; the game being played after it."""
    kind, k, fields = _fields(text, number)
    if kind == "game":
        game, replayed = _start_game(k, fields, number)
        games.append(replayed)
    elif kind == "move":
        if game is None:
            raise DotsLogError("a move before any game", number)
        games[-1].steps.append(_replay_move(game, k, fields, number))
    elif kind == "end":
        if game is None:
            raise DotsLogError("an end before any game", number)
        _check_end(game, fields, number)
        games[-1].ended = fields
        game = None
    return game


def _start_game(k: int, fields: dict[str, str], number: int) -> tuple[DotsGame, ReplayedGame]:
    """The game a ``game`` record starts (its rules, board, start and player to move), and its record."""
    rules = _need(fields, "rules", number)
    if rules not in RULES:
        raise DotsLogError(f"unknown rules {rules!r} (free or must-complete)", number)
    start = DotsPosition.parse(_need(fields, "start", number))
    board = Board.parse(_need(fields, "board", number))
    if start.board != board:
        raise DotsLogError(f"the start {start} is not on the board {board}", number)
    game = DotsGame(start, RULES[rules])
    to_move = fields.get("to-move", "1")
    if to_move not in ("1", "2"):
        raise DotsLogError(f"to-move should be 1 or 2, not {to_move!r}", number)
    game.to_move = int(to_move)
    replayed = ReplayedGame(k, board, RULES[rules], (fields.get("first", "?"), fields.get("second", "?")))
    replayed.steps.append(_snapshot(game, 0, "", None, None))
    return game, replayed


def _replay_move(game: DotsGame, k: int, fields: dict[str, str], number: int) -> Step:
    """Play move ``k`` of a ``move`` record, checking its number, player, line and what it records."""
    if k != len(game.moves) + 1:
        raise DotsLogError(f"move {k} where move {len(game.moves) + 1} was expected", number)
    player = _need(fields, "player", number)
    if player != str(game.to_move):
        raise DotsLogError(f"player {player} moves, but it is player {game.to_move}'s turn", number)
    name = _need(fields, "line", number)
    try:
        line = game.board.parse_line(name)
    except SproutsError as e:
        raise DotsLogError(f"line {name!r}: {e}", number) from None
    if "index" in fields and fields["index"] != str(line):
        raise DotsLogError(f"{name} is line {line}, not line {fields['index']}", number)
    try:
        boxes = game.play(line)
    except SproutsError as e:
        raise DotsLogError(f"move {k} ({name}) is illegal: {e}", number) from None
    for key, actual in (
        ("boxes", str(boxes)),
        ("score", game.score_text()),
        ("position", str(game.position)),
    ):
        if key in fields and fields[key] != actual:
            raise DotsLogError(f"after move {k} ({name}) the {key} is {actual}, not {fields[key]}", number)
    return _snapshot(game, k, name, line, int(player))


def _check_end(game: DotsGame, fields: dict[str, str], number: int) -> None:
    """An ``end`` record agrees with the game: its number of moves, score and winner, where given."""
    moves = fields.get("moves")
    if moves is not None and moves != str(len(game.moves)):
        raise DotsLogError(f"the game has {len(game.moves)} moves, not {moves}", number)
    score = fields.get("score")
    if score is not None and score != game.score_text():
        raise DotsLogError(f"the score is {game.score_text()}, not {score}", number)
    winner = fields.get("winner")
    if winner is not None and game.finished:
        actual = str(game.winner() or "none")
        if winner != actual:
            raise DotsLogError(f"the winner is {actual}, not {winner}", number)
