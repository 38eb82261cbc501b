"""The game log (Alfeld §7.3): written line by line, and replayed.

A log is a plain UTF-8 text file, one record per line, written and flushed a whole
line at a time, so that the log of a game that crashed is usable up to its last
line.  Since it names every move in words (by its spots, ``naming.py``) with the
position after it, the positions of every game in it can be rebuilt, and checked.

The grammar (docs/log.md has it with examples)::

    log     := header record*
    header  := "sprouts-log 1"
    record  := kind " " number (" ; " key " " value)*      (one line; blank lines and
                                                            lines starting with "#" are skipped)
    kind    := "game" | "move" | "think" | "undo" | "end" | "note"

* ``game N`` starts game N: ``rules`` (normal | misere | three-player), ``first``/``second`` (the
  players), ``seed``, ``time`` (seconds per computer move), ``area`` (the drawing
  area ``WxH``, or ``none``), ``spots`` (spot numbers in use), ``start`` (the
  canonical form), ``numbered`` (the regions as 1-based spot lists, ``naming.py``),
  ``spot-lives`` (one digit per spot), ``to-move`` (1 or 2), ``date``; in a
  ``three-player`` game also ``third``, and ``to-move`` may be 3.
* ``move K`` is the K-th move of the current game: ``player`` (1 | 2), ``by``
  (human | random | montecarlo | parity | perfect), ``play`` (the move in words),
  ``effect`` (the region it joined boundaries in or split, and its lives; checked up
  to the region's number), ``position`` (canonical form after
  it), ``numbered`` (the numbered position after it), ``lives``, ``upper`` and
  ``lower`` (the bounds on the moves left).
* ``think K`` is the computer's reasoning before move K: ``player``, ``by``, and
  ``candidates``, ``depth``, ``value``, ``verdict``, ``best``, ``seconds``… (free
  keys), or one ``candidate`` with its ``value``.
* ``undo K`` takes back move K (the last one): ``position``, ``numbered`` after it.
* ``end N`` ends game N: ``moves``, ``winner`` (1 | 2 | none), ``reason``.
* ``note K`` is free text about move K (drawing: how long, ``drawn-by``, the spots drawn
  ``smaller``, a ``layout`` line per layout Z tried); it is not checked.

Replaying checks every ``move`` (legal, and leading to the recorded numbered and
canonical position), every ``undo`` and every ``game`` start; the first line that
fails is reported with its number (``LogError``), and a last line with no end of
line is reported as truncated.  Everything before the bad line is kept.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .engine.moves import apply_move
from .engine.naming import (
    describe_effect,
    lives_text,
    moves_from_words,
    numbered_key,
    numbered_text,
    parse_lives,
    parse_numbered,
    parse_words,
    same_effect,
)
from .engine.position import Position
from .engine.rules import Rules
from .errors import LogError, SproutsError
from .files import unreadable

HEADER = "sprouts-log 1"
KINDS = ("game", "move", "think", "undo", "end", "note")
SEP = " ; "
PLAYERS = ("human", "random", "montecarlo", "parity", "perfect")


def shown(text: str) -> str:
    """A value of the log quoted as it is written there."""
    return f"'{text}'"


def _clean_value(value: object) -> str:
    text = str(value).replace("\n", " ").replace("\r", " ")
    return text.replace(SEP, " , ")


def format_record(kind: str, number: int, fields: Iterable[tuple[str, object]]) -> str:
    """One record as a line (without its end of line)."""
    parts = [f"{kind} {number}"]
    parts += [f"{k} {_clean_value(v)}" for k, v in fields if v is not None]
    return SEP.join(parts)


def keeps_everything(p: Position) -> bool:
    """True when ``p`` keeps all its spots and corners (a game's position, not a string's).

    Then each spot occurs as often as it has corners: once for a spot with no line or
    one line, twice with two lines, three times with three; the lower bound may count
    stumps exactly (``bounds.lower_bound(stumps_known=True)``).
    """
    count: dict[int, int] = {}
    for r in p.regions:
        for b in r:
            for s in b:
                count[s] = count.get(s, 0) + 1
    return all(count.get(s, 0) == max(1, 3 - v) for s, v in enumerate(p.lives))


def bounds_of(p: Position, complete: bool) -> tuple[int, int]:
    """The upper and lower bounds on the moves left (``engine/bounds.py``)."""
    from .engine.bounds import lower_bound, upper_bound

    return upper_bound(p), lower_bound(p, stumps_known=complete)


# ------------------------------------------------------------------ writing


class LogWriter:
    """Appends records to a log file, each line flushed as soon as it is written.

    A new (or empty) file gets the header; an existing log is appended to, its games
    counted so that the next game gets the next number.  A file that is not a log, or
    whose last line was cut off, is refused rather than damaged.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.games = 0
        existing = ""
        if self.path.exists():
            try:
                existing = self.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise LogError(f"{self.path}: cannot read the existing log: {e}") from None
        if existing.strip():
            first = existing.lstrip().splitlines()[0].strip()
            if first != HEADER:
                raise LogError(f"{self.path}: is not a sprouts log (it does not start with {HEADER!r})", 1)
            if not existing.endswith("\n"):
                n = existing.count("\n") + 1
                raise LogError(f"{self.path}: its last line is truncated; write the log to another file", n)
            self.games = sum(1 for line in existing.splitlines() if line.startswith("game "))
        try:
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the game
        except OSError as e:
            raise LogError(f"{self.path}: cannot write: {e.strerror or e}") from None
        if not existing.strip():
            self._line(HEADER)

    def _line(self, text: str) -> None:
        self._file.write(text + "\n")
        self._file.flush()

    def record(self, kind: str, number: int, fields: Iterable[tuple[str, object]] = ()) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown record kind {kind!r}")
        self._line(format_record(kind, number, fields))

    def comment(self, text: str) -> None:
        self._line("# " + text.replace("\n", " "))

    def new_game(self, start: Position, fields: Iterable[tuple[str, object]]) -> int:
        """Write a ``game`` record and return the game's number."""
        self.games += 1
        head = list(fields)
        head += [
            ("spots", len(start.lives)),
            ("start", start.canonical()),
            ("numbered", numbered_text(start)),
            ("spot-lives", lives_text(start)),
            ("date", _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")),
        ]
        self.record("game", self.games, head)
        return self.games

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def move_fields(before: Position, after: Position, words: str, effect: str, complete: bool) -> list:
    """The checked part of a ``move`` record: the words and the position after them."""
    upper, lower = bounds_of(after, complete)
    return [
        ("play", words),
        ("effect", effect),
        ("position", after.canonical()),
        ("numbered", numbered_text(after)),
        ("lives", after.total_lives),
        ("upper", upper),
        ("lower", lower),
    ]


def undo_fields(player: int, after: Position) -> list:
    """The checked part of an ``undo`` record: whose move was taken back, and the position after."""
    return [("player", player), ("position", after.canonical()), ("numbered", numbered_text(after))]


# ------------------------------------------------------------------ reading


@dataclass
class Record:
    line: int
    kind: str
    number: int
    fields: dict[str, str]

    def get(self, key: str) -> str:
        if key not in self.fields:
            raise LogError(f"a {self.kind} record needs a '{key}' field", self.line)
        return self.fields[key]


def parse_record(text: str, line: int) -> Record:
    """One line of a log as a record; LogError (with the line number) if it is not one."""
    parts = text.split(SEP)
    head = parts[0].strip().split()
    if len(head) != 2 or head[0] not in KINDS:
        kinds = ", ".join(KINDS)
        raise LogError(f"not a log record (a record starts with one of {kinds} and a number)", line)
    if not head[1].isdigit():
        raise LogError(f"'{head[1]}' is not a number", line)
    fields: dict[str, str] = {}
    for part in parts[1:]:
        part = part.strip()
        key, _, value = part.partition(" ")
        if not key:
            raise LogError("an empty field", line)
        if key in fields:
            raise LogError(f"the field '{key}' is given twice", line)
        fields[key] = value.strip()
    return Record(line, head[0], int(head[1]), fields)


@dataclass
class Step:
    """One position of a replayed game: after move ``move`` (0 = the start), with its words."""

    game: int
    move: int
    text: str  # the words, "start" or "undo"
    position: Position
    line: int
    by: str | None = None


@dataclass
class ReplayedGame:
    number: int
    line: int
    rules: Rules
    players: tuple[str, ...]
    start: Position
    complete: bool  # the start keeps every spot (stumps known to the lower bound)
    first_to_move: int = 1
    fields: dict[str, str] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)  # every move, undo and the start, in log order
    line_of_play: list[Step] = field(default_factory=list)  # the start and the moves standing at the end
    ended: dict[str, str] | None = None

    @property
    def position(self) -> Position:
        return self.line_of_play[-1].position

    @property
    def moves(self) -> int:
        return len(self.line_of_play) - 1


@dataclass
class Replay:
    games: list[ReplayedGame]
    error: LogError | None
    lines: int


def replay_log(source: str | os.PathLike, text: str | None = None) -> Replay:
    """Rebuild every position of every game in a log, stopping at the first bad line.

    Returns the games rebuilt so far and the error (``LogError`` with its line
    number), if any; a last line without an end of line is reported as truncated.
    """
    if text is None:
        try:
            raw = Path(source).read_bytes()
        except OSError as e:  # the caller names the file: the message does not name it again
            return Replay([], LogError(unreadable(e)), 0)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw[: e.start].count(b"\n") + 1
            if not raw.lstrip().startswith(HEADER.encode()):
                binary = LogError(f"not a sprouts log: binary data, not text (byte {e.start + 1})", 1)
                return Replay([], binary, 0)
            return Replay([], LogError("not UTF-8 text", line), 0)
    # Lines end at "\n" only: str.splitlines would also break at control characters
    # (\x1c, \x85, …) and count lines that no editor shows.
    lines = [line + "\n" for line in text.split("\n")]
    if lines[-1] == "\n":
        lines.pop()  # the text ended with a newline (or was empty)
    else:
        lines[-1] = lines[-1][:-1]  # the last line has no newline: it may be cut off
    games: list[ReplayedGame] = []
    state = _ReplayState(games)
    seen_header = False
    for number, raw_line in enumerate(lines, start=1):
        stripped = raw_line.strip()
        if not seen_header and stripped and not stripped.startswith("#") and stripped != HEADER:
            not_ours = LogError(f"not a sprouts log: the first line should be {HEADER!r}", number)
            return Replay(games, not_ours, 0)
        if number == len(lines) and not raw_line.endswith(("\n", "\r")):
            kept = sum(g.moves for g in games)
            return Replay(
                games,
                LogError(
                    f"the last line is truncated (the log ends in the middle of it); "
                    f"the {len(games)} game(s) and {kept} move(s) before it are kept",
                    number,
                ),
                number,
            )
        if not stripped or stripped.startswith("#"):
            continue
        if not seen_header:
            if stripped != HEADER:
                return Replay(
                    games, LogError(f"not a sprouts log: the first line should be {HEADER!r}", number), 0
                )
            seen_header = True
            continue
        try:
            state.apply(parse_record(stripped, number))
        except LogError as e:
            return Replay(games, e, number)
        except ValueError as e:  # a SproutsError, or a position that cannot exist
            return Replay(games, LogError(f"the log and the game part here: {e}", number), number)
    if not seen_header:
        return Replay(games, LogError("the log is empty", 1 if not lines else len(lines)), len(lines))
    return Replay(games, None, len(lines))


class _ReplayState:
    def __init__(self, games: list[ReplayedGame]) -> None:
        self.games = games

    def current(self, r: Record) -> ReplayedGame:
        if not self.games:
            raise LogError(f"a {r.kind} record before any game record", r.line)
        g = self.games[-1]
        if g.ended is not None and r.kind in ("move", "undo", "end"):
            raise LogError(f"game {g.number} has already ended (line {g.ended['line']})", r.line)
        return g

    def apply(self, r: Record) -> None:
        getattr(self, "on_" + r.kind)(r)

    # -------------------------------------------------------------- records
    def on_game(self, r: Record) -> None:
        if self.games and r.number <= self.games[-1].number:
            raise LogError(f"game {r.number} follows game {self.games[-1].number}", r.line)
        word = r.get("rules")
        if word not in [r.value for r in Rules]:
            known = " or ".join(f"'{r.value}'" for r in Rules)
            raise LogError(f"the rules are {known}, not '{word}'", r.line)
        rules = Rules(word)
        players: tuple[str, ...] = (r.get("first"), r.get("second"))
        if Rules(word).players == 3:
            players = (*players, r.get("third"))
        elif "third" in r.fields:
            raise LogError(f"a third player in a game of {word} play (three-player play has three)", r.line)
        for p in players:
            if p not in PLAYERS:
                raise LogError(f"unknown player '{p}' (players are {', '.join(PLAYERS)})", r.line)
        try:
            lives = parse_lives(r.get("spot-lives"))
            start = parse_numbered(r.get("numbered"), lives)
            stated = Position.from_string(r.get("start")).canonical()
        except SproutsError as e:
            raise LogError(f"the start position cannot be read: {e}", r.line) from None
        if start.canonical() != stated:
            raise LogError(
                f"the numbered start {shown(r.fields['numbered'])} is {start.canonical()}, but the "
                f"record says start {shown(r.fields['start'])}",
                r.line,
            )
        if "spots" in r.fields and r.fields["spots"] != str(len(lives)):
            raise LogError(f"spots {r.fields['spots']} but {len(lives)} spot lives are given", r.line)
        to_move = r.fields.get("to-move", "1")
        if to_move not in [str(k) for k in range(1, len(players) + 1)]:
            raise LogError(f"to-move is a player from 1 to {len(players)}, not '{to_move}'", r.line)
        g = ReplayedGame(
            r.number, r.line, rules, players, start, keeps_everything(start), int(to_move), r.fields
        )
        step = Step(r.number, 0, "start", start, r.line)
        g.steps.append(step)
        g.line_of_play.append(step)
        self.games.append(g)

    def on_move(self, r: Record) -> None:
        g = self.current(r)
        if r.number != g.moves + 1:
            raise LogError(f"move {r.number} cannot follow move {g.moves} of game {g.number}", r.line)
        _check_player(r, g)
        before = g.position
        words = r.get("play")
        try:
            fits = moves_from_words(before, parse_words(words))
        except SproutsError as e:
            raise LogError(f"move {r.number} '{words}' is not legal here: {e}", r.line) from None
        after = _recorded_position(r, before, fits, g)
        step = Step(g.number, r.number, words, after, r.line, r.fields.get("by"))
        g.steps.append(step)
        g.line_of_play.append(step)

    def on_undo(self, r: Record) -> None:
        g = self.current(r)
        if g.moves == 0:
            raise LogError(f"undo {r.number}: game {g.number} has no move to take back", r.line)
        if r.number != g.moves:
            raise LogError(f"undo {r.number}: the last move of game {g.number} is move {g.moves}", r.line)
        g.line_of_play.pop()
        back = g.position
        if "position" in r.fields:
            _check_same(r, back, "after the undo")
        g.steps.append(Step(g.number, g.moves, "undo", back, r.line))

    def on_end(self, r: Record) -> None:
        g = self.current(r)
        if r.number != g.number:
            raise LogError(f"end {r.number} in game {g.number}", r.line)
        if "moves" in r.fields and r.fields["moves"] != str(g.moves):
            raise LogError(
                f"the game is said to end after {r.fields['moves']} moves; it has {g.moves}", r.line
            )
        winner = r.fields.get("winner")
        if r.fields.get("reason", "").startswith("no move left"):
            if not g.position.is_over():
                raise LogError("the game is said to be over, but moves are left", r.line)
            expected = g.rules.winner(g.first_to_move, g.moves)
            if winner is not None and winner != str(expected):
                raise LogError(f"the winner is player {expected}, not {winner}", r.line)
        g.ended = {**r.fields, "line": str(r.line)}

    def on_think(self, r: Record) -> None:
        self.current(r)

    def on_note(self, r: Record) -> None:
        self.current(r)


def _check_player(r: Record, g: ReplayedGame) -> None:
    """The move's ``player`` (and ``by``) fields must name the player whose turn it is."""
    to_move = g.rules.to_move(g.first_to_move, g.moves)
    if "player" in r.fields and r.fields["player"] != str(to_move):
        raise LogError(
            f"the log and the game part here: move {r.number} is player {to_move}'s, "
            f"the log says player {r.fields['player']}",
            r.line,
        )
    by = r.fields.get("by")
    if by is not None and 1 <= to_move <= len(g.players) and by != g.players[to_move - 1]:
        raise LogError(
            f"the log and the game part here: player {to_move} is {g.players[to_move - 1]}, "
            f"the log says move {r.number} was by {by}",
            r.line,
        )


def _recorded_position(r: Record, before: Position, fits: list, g: ReplayedGame) -> Position:
    """The position the move leads to, checked against the record."""
    results = [apply_move(before, m, check=False) for m in fits]
    if "numbered" in r.fields:
        try:
            want = parse_numbered(r.fields["numbered"], _lives_after(before))
        except SproutsError as e:
            raise LogError(f"the numbered position cannot be read: {e}", r.line) from None
        except ValueError as e:  # well written, but no position that follows the one before
            got = sorted({a.canonical() for a in results})
            raise LogError(
                f"the log and the game part here: move {r.number} '{r.fields.get('play')}' gives "
                f"{' or '.join(got)}, but the recorded position {r.fields['numbered']} cannot follow "
                f"the position before it ({e})",
                r.line,
            ) from None
        for mirror in (False, True):  # the very position written, else its mirror image
            key = numbered_key(want, mirror)[0]
            for after, m in zip(results, fits, strict=True):
                if numbered_key(after, mirror)[0] == key:
                    _check_same(r, after, f"after move {r.number}")
                    _check_effect(r, before, m)
                    return after
        got = sorted({a.canonical() for a in results})
        raise LogError(
            f"move {r.number} '{r.fields['play']}' does not lead to the recorded position: "
            f"it gives {' or '.join(got)}, the log records numbered {shown(r.fields['numbered'])}",
            r.line,
        )
    stated = _stated(r)
    for after, m in zip(results, fits, strict=True):
        if after.canonical() == stated:
            _check_effect(r, before, m)
            return after
    got = sorted({a.canonical() for a in results})
    raise LogError(
        f"move {r.number} '{r.get('play')}' does not lead to the recorded position: it gives "
        f"{' or '.join(got)}, the log records position {shown(r.fields['position'])}",
        r.line,
    )


def _lives_after(before: Position) -> tuple[int, ...]:
    """The lives after some move, with the new spot: only the count matters to the parser."""
    return (*before.lives, 1)


def _stated(r: Record) -> str:
    try:
        return Position.from_string(r.get("position")).canonical()
    except SproutsError as e:
        raise LogError(f"the recorded position cannot be read: {e}", r.line) from None


def _check_same(r: Record, p: Position, when: str) -> None:
    stated = _stated(r)
    if p.canonical() != stated:
        raise LogError(
            f"the position {when} is {p.canonical()}, but the log records position "
            f"{shown(r.fields['position'])}",
            r.line,
        )
    if "lives" in r.fields and r.fields["lives"] != str(p.total_lives):
        raise LogError(
            f"the position {when} has {p.total_lives} lives, but the log records lives "
            f"{shown(r.fields['lives'])}",
            r.line,
        )


def _check_effect(r: Record, before: Position, m) -> None:
    if "effect" in r.fields:
        effect = describe_effect(before, m)
        if not same_effect(r.fields["effect"], effect):
            raise LogError(f"the move {effect}, not '{r.fields['effect']}'", r.line)


__all__ = [
    "HEADER",
    "LogWriter",
    "Replay",
    "ReplayedGame",
    "Step",
    "bounds_of",
    "format_record",
    "keeps_everything",
    "move_fields",
    "parse_record",
    "replay_log",
    "shown",
]
