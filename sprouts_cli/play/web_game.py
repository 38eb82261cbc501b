"""The game of ``sprouts play --web``: moves drawn by hand, computers' moves, the ladder (Alfeld §3.1, §4).

A :class:`WebGame` keeps one game, its picture after every move, and what the page
shows (status, log, a move waiting for room).  The page's server calls it from its
threads; one lock keeps every change whole, and every change bumps ``version`` so
that a page waiting for news (``wait``) wakes up.

A person's move arrives as its two spots, the point pressed, the spots marked to
be enclosed and the stroke drawn (``move``).  A usable stroke draws the move
itself (``web_pointer.stroke_move``); otherwise the move is the one with these
spots, in the region pressed, enclosing the marked spots, and the router draws it,
climbing the Room ladder as far as the person's boxes allow (``web_settings``).
The computer climbs its own boxes.

The position is the authority: every picture is read back and must be the
intended position with the same spot numbers, or the move is not made.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.moves import Move, apply_move
from ..engine.naming import MoveWords, move_words, moves_from_words, named_fit, named_move, numbered_text
from ..engine.position import Position
from ..errors import IllegalMoveError, PictureError, PlayError, SproutsError
from ..picture.room import RUNGS
from .game import Game, Played
from .human import moves_left
from .web_pointer import find_move, live_key, nearest_live_spot, points, reachable, region_at, stroke_move
from .web_settings import Waiting, WebSettings, human_ladder

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.rules import Rules
    from ..log import LogWriter
    from ..picture.analyse import Analysis
    from ..picture.model import Picture
    from ..players.base import Player, Settings
    from ..solve.store import Table

HUMAN = "human"
REMOTE = "remote"
#: Lines of the log the page is sent (the whole log goes to ``--log``).
LOG_LINES = 400
#: Seconds ``close`` waits for the computers' thread to release the players and the table.
CLOSE_SECONDS = 5.0


class ComputerThread:
    """The one thread on which a game's computers are made, think and are closed.

    Worker processes that a player starts are tied to the thread that started them
    (Linux's ``PR_SET_PDEATHSIG``, ``procs.die_with_parent``, fires when that thread
    ends), and a table of solved positions (SQLite) may be used only on the thread that
    opened it: so both live on this thread for the whole game.  A daemon thread: a
    computer still thinking does not hold the process at its exit.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], Any]) -> Future[Any]:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="computer", daemon=True)
            self._thread.start()
        done: Future[Any] = Future()
        self._jobs.put((job, done))
        return done

    def _run(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, done = item
            if done.set_running_or_notify_cancel():
                try:
                    done.set_result(job())
                except Exception as e:
                    done.set_exception(e)

    def stop(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)


class WebGame:
    """One game played through the page: the game, its pictures, the players and what the page shows."""

    def __init__(
        self,
        start: Position | None,
        kinds: tuple[str, ...],
        rules: Rules | None,  # None: a guest's, given by the host
        width: float = 800,
        height: float = 600,
        first_to_move: int = 1,
        picture: Picture | None = None,
        player_settings: Settings | None = None,
        seed: int | None = None,
        log: LogWriter | None = None,
        save: str | Path | None = None,
        jobs: int = 1,
        settings: WebSettings | None = None,
        open_table: Callable[[], Table | None] | None = None,
    ) -> None:
        """``open_table`` opens the table of solved positions the computers read and write
        (on their thread, see :class:`ComputerThread`); the game closes it."""
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.version = 0
        self.width, self.height = width, height
        self.start, self.rules, self.first = start, rules, first_to_move
        self.kinds = kinds
        self.player_settings = player_settings
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.rng = random.Random(self.seed)
        self.log = log
        self.log_number = 0
        self.save_path = Path(save) if save else None
        self.jobs = jobs
        self.settings = settings or WebSettings()
        self.lines: list[str] = []
        self.pictures: list[Picture] = []
        self.start_picture = picture
        self.waiting: Waiting | None = None
        self.thinking: int | None = None  # the player whose computer is thinking
        self.verdict = ""
        self.last_summary = ""
        self.epoch = 0  # bumped by undo and new game: a computer's late answer is then dropped
        self.stopped = False
        self.error = ""
        self.remote: Any = None  # network play: ``web_net.Remote``
        self._svg: tuple[int, str] | None = None
        self._analysis: tuple[int, Any] | None = None
        self._players: dict[int, Player] = {}
        self._longest: dict[str, int | None] = {}
        self._computers = ComputerThread()
        self._table: Table | None = None
        if open_table is not None:
            self._table = self._computers.submit(open_table).result()
            if self._table is not None and player_settings is not None:
                self.player_settings = dataclasses.replace(player_settings, table=self._table)
        self.game: Game | None = None
        if start is not None:
            assert rules is not None  # a game with a start has its rule (a guest has neither)
            self._begin(Game(start, rules, first_to_move=first_to_move), picture)

    # ------------------------------------------------------------------ set-up
    def _begin(self, game: Game, picture: Picture | None = None) -> None:
        from ..picture import analyse

        self.game = game
        pic = picture if picture is not None else self._layout(game.start)
        if live_key(analyse(pic)) != live_key(game.start):
            raise PlayError(f"the drawing of the start is not {game.start.canonical()}")
        self.pictures = [pic]
        self.waiting = None
        self.verdict = ""
        if self.log is not None and self.remote is None:
            self.log_number = self.log.new_game(
                game.start,
                [
                    ("rules", game.rules.value),
                    ("first", self.kinds[0]),
                    ("second", self.kinds[1]),
                    *([("third", self.kinds[2])] if len(self.kinds) > 2 else []),
                    ("seed", self.seed),
                    ("time", f"{getattr(self.player_settings, 'seconds', 0):g}"),
                    ("area", f"{self.width:g}x{self.height:g}"),
                    ("to-move", game.first_to_move),
                ],
            )
        self.say(
            f"A game from {game.start.canonical()}: "
            + ", ".join(self.label(i + 1) for i in range(len(self.kinds)))
        )
        self._touch()

    def _layout(self, p: Position) -> Picture:
        from ..picture import layout_position

        try:
            return layout_position(p, self.width, self.height, jobs=self.jobs)
        except PictureError as e:
            raise PlayError(f"the position {p.canonical()} cannot be drawn: {e}") from None

    def label(self, player: int) -> str:
        return f"player {player} ({self.kinds[player - 1]})"

    def say(self, text: str) -> None:
        with self.lock:
            self.lines.append(text)
            del self.lines[:-LOG_LINES]
            self._touch()

    def _touch(self) -> None:
        with self.lock:
            self.version += 1
            self.changed.notify_all()

    def _record(self, kind: str, number: int, fields: Iterable[tuple[str, object]]) -> None:
        if self.log is not None and self.remote is None:
            self.log.record(kind, number, fields)

    @property
    def picture(self) -> Picture:
        return self.pictures[-1]

    def analysis(self) -> Analysis:
        from ..picture.analyse import analyse_picture

        if self._analysis is None or self._analysis[0] != id(self.picture):
            self._analysis = (id(self.picture), analyse_picture(self.picture))
        return self._analysis[1]

    def kind_to_move(self) -> str | None:
        g = self.game
        if g is None or g.is_over():
            return None
        return self.kinds[g.to_move - 1]

    # ------------------------------------------------------------------ what the page shows
    def wait(self, since: int, timeout: float) -> None:
        """Until the game changes after ``since`` (or ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.version <= since and not self.stopped:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.changed.wait(left)

    def svg(self) -> str:
        from ..render import render_bytes

        if self._svg is None or self._svg[0] != id(self.picture):
            data = render_bytes(self.picture, "svg", numbers=True, lives=True)
            text = data.decode("utf-8")
            self._svg = (id(self.picture), text[text.index("<svg") :])
        return self._svg[1]

    def state(self) -> dict[str, Any]:
        with self.lock:
            g = self.game
            out: dict[str, Any] = {
                "version": self.version,
                "log": self.lines[-LOG_LINES:],
                "settings": asdict(self.settings),
                "kinds": list(self.kinds),
                "rungs": list(RUNGS),
                "error": self.error,
            }
            if g is None:
                out.update({"status": "waiting for the host's game…", "started": False})
                return out
            pic = self.picture
            lives = pic.lives()
            out.update(
                {
                    "started": True,
                    "width": float(pic.width),
                    "height": float(pic.height),
                    "svg": self.svg(),
                    "spots": [
                        [round(float(x), 2), round(float(y), 2), round(float(r), 2), int(lives[i])]
                        for i, ((x, y), r) in enumerate(zip(pic.spots, pic.sizes, strict=True))
                    ],
                    "last": self._last_curves(),
                    "moves": g.moves_made,
                    "position": g.position.canonical(),
                    "numbered": numbered_text(g.position),
                    "to_move": g.to_move,
                    "to_move_kind": self.kind_to_move(),
                    "over": g.is_over(),
                    "winner": g.winner(),
                    "thinking": self.thinking,
                    "waiting": None
                    if self.waiting is None
                    else {
                        "words": self.waiting.words,
                        "why": self.waiting.why,
                        "offered": self.waiting.offered,
                    },
                    "status": self.status(),
                    "pending": bool(self.remote is not None and self.remote.pending()),
                }
            )
            return out

    def _last_curves(self) -> list[str]:
        """The last move's two curves as SVG path data (picture units), to mark them."""
        pic = self.picture
        g = self.game
        if g is None or not g.played or len(pic.curves) < 2:
            return []
        z = len(pic.spots) - 1
        paths = []
        for c in pic.curves:
            if z in (c.a, c.b):
                d = f"M{c.pieces[0, 0, 0]:.2f},{c.pieces[0, 0, 1]:.2f}" + "".join(
                    "C" + " ".join(f"{x:.2f},{y:.2f}" for x, y in pc[1:]) for pc in c.pieces
                )
                paths.append(d)
        return paths

    def status(self) -> str:
        g = self.game
        assert g is not None
        upper, lower = g.bounds()
        parts = []
        if g.is_over():
            winner = g.winner()
            parts.append(f"game over after {g.moves_made} moves: {self.label(winner or 0)} wins")
        elif self.thinking is not None:
            parts.append(f"{self.label(self.thinking)} is thinking…")
        else:
            parts.append(f"move {g.moves_made + 1}: {self.label(g.to_move)} to move")
        parts.append(f"position {g.position.canonical()}")
        if not g.is_over():
            parts.append(moves_left(lower, upper))
        longest = self._longest_game(g.position)
        if longest is not None:
            parts.append(f"longest game {g.moves_made + longest} moves")
        if self.verdict:
            parts.append(self.verdict)
        return " · ".join(parts)

    def _longest_game(self, p: Position) -> int | None:
        """The longest game from here, when a short search proves it (kept per position)."""
        key = p.canonical()
        if key not in self._longest:
            from ..solve.lengths import LengthOracle

            try:
                self._longest[key] = LengthOracle(max_children=20_000).longest(p, time.monotonic() + 0.2)
            except (SproutsError, RecursionError, MemoryError):
                self._longest[key] = None
        return self._longest[key]

    # ------------------------------------------------------------------ a person's press
    def press(self, x: float, y: float) -> dict[str, Any]:
        with self.lock:
            why = self._why_not_human()
            if why:
                return {"ok": False, "why": why}
            s = nearest_live_spot(self.picture, x, y)
            if s is None:
                return {"ok": False, "why": "no spot has a life left"}
            a = self.analysis()
            lit, region = reachable(a.position, s, region_at(a, x, y))
            return {"ok": True, "spot": s, "lit": lit, "region": region}

    def _why_not_human(self) -> str:
        g = self.game
        if g is None:
            return "the game has not started yet"
        if g.is_over():
            return "the game is over (undo, or a new game)"
        if self.kind_to_move() != HUMAN:
            return f"it is {self.label(g.to_move)}'s turn"
        if self.remote is not None and self.remote.pending():
            return "waiting for the other side to confirm the last action"
        return ""

    # ------------------------------------------------------------------ a person's move
    def move(self, data: dict[str, Any]) -> dict[str, Any]:
        """A move drawn on the page: ``{start, end, press, marks, stroke}`` (spots 0-based, picture units)."""
        with self.lock:
            why = self._why_not_human()
            if why:
                return {"ok": False, "why": why}
            g = self.game
            assert g is not None
            p = self.analysis().position
            n = len(p.lives)
            s, t = int(data["start"]), int(data["end"])
            marks = frozenset(int(v) for v in data.get("marks", []))
            if not (0 <= s < n and 0 <= t < n) or any(not 0 <= v < n for v in marks):
                return {"ok": False, "why": f"the spots are 1 to {n}"}
            stroke = points(data.get("stroke", []))
            press = points([data["press"]])[0] if data.get("press") is not None else None
            self.waiting = None
            got = (
                stroke_move(self.picture, self.analysis(), s, t, stroke, marks, self.settings, g.to_move - 1)
                if len(stroke) >= 2
                else None
            )
            if isinstance(got, str):
                return self._refuse(got, [])
            if got is not None:
                move, pic = got
                return self._commit_human(move, pic)
            try:
                fits = moves_from_words(p, MoveWords(s, t, marks - {s, t}, None))
            except IllegalMoveError as e:
                return self._refuse(str(e), [])
            if press is not None and len(fits) > 1:
                region = region_at(self.analysis(), *press)
                here = [m for m in fits if m.region == region]
                fits = here or fits
            move = named_fit(p, fits)  # the move its words name: they replay to its very position
            return self._ladder(move, None)

    def _refuse(self, why: str, offered: list[str]) -> dict[str, Any]:
        self.say(f"     refused: {why}")
        return {"ok": False, "why": why, "offered": offered}

    def _commit_human(self, move: Move, pic: Picture | None) -> dict[str, Any]:
        if pic is None:
            return self._ladder(move, None)
        return self._play(move, HUMAN, pic, "stroke")

    def _ladder(self, move: Move, start: str | None) -> dict[str, Any]:
        """Draw a person's move, climbing the rungs the person's boxes allow (from ``start``, by hand)."""
        from ..errors import NoRoom
        from ..picture.room import draw

        g = self.game
        assert g is not None
        climb, offered = human_ladder(self.settings.human, self.settings.heroic, start)
        words = move_words(self.analysis().position, move)
        try:
            result = draw(
                self.picture, move, climb, self.analysis(), self.settings.route(), g.to_move - 1, self.jobs
            )
        except NoRoom as e:
            self.waiting = Waiting(move, words, str(e), offered, g.to_move)
            self.say(f"     no room for {words}: {e}")
            self._touch()
            return {"ok": False, "why": str(e), "offered": offered, "waiting": words}
        except PictureError as e:
            return self._refuse(f"{words} cannot be drawn: {e}", offered)
        return self._play(move, HUMAN, result.picture, result.drawn_by)

    def rung(self, name: str) -> dict[str, Any]:
        """A rung pressed by hand: the waiting move tried again from it; else A, R or Z on the picture."""
        with self.lock:
            if name not in RUNGS:
                return {"ok": False, "why": f"{name!r} is not a rung (M, A, R, Z or •)"}
            if self.game is None:
                return {"ok": False, "why": "the game has not started yet"}
            if self.waiting is not None and not self._why_not_human():
                w = self.waiting
                return self._ladder(w.move, name)
            if name == "M":
                return {"ok": False, "why": "M makes room for a move waiting for it; no move is waiting"}
            return self._rearrange(name)

    def _rearrange(self, name: str) -> dict[str, Any]:
        """A, R or Z (•) by hand: the picture changed, never the position (checked)."""
        from ..picture import analyse, relax

        g = self.game
        assert g is not None
        try:
            if name in ("A", "R"):
                pic = relax(self.picture, "adjust" if name == "A" else "rearrange", d0=self.settings.d0)
            else:
                pic = self._layout(g.position)
        except (PictureError, PlayError) as e:
            return self._refuse(f"{name}: {e}", [])
        if live_key(analyse(pic)) != live_key(g.position):
            return self._refuse(f"{name} could not keep the spots' numbers; the picture is kept", [])
        pic.meta = self.picture.meta
        self.pictures[-1] = pic
        self.say(f"     {name}: the picture was drawn again")
        self._touch()
        return {"ok": True}

    # ------------------------------------------------------------------ playing
    def _play(self, move: Move, by: str, pic: Picture, how: str) -> dict[str, Any]:
        from ..log import move_fields

        g = self.game
        assert g is not None
        before = g.position
        # the move is one of the picture's position (its order of regions): the same move in the game's
        here = self.analysis().position
        found = find_move(before, apply_move(here, move), move_words(here, move))
        if found is None:
            return self._refuse("the move drawn is not a move of the game (a bug: please report it)", [])
        move = found
        if self.remote is not None and by == HUMAN:
            why = self.remote.act_move(move, pic)
            if why:
                return self._refuse(why, [])
            return {"ok": True}
        step = g.play(move, by)
        self.pictures.append(pic)
        self.waiting = None
        self._record(
            "move",
            g.moves_made,
            [
                ("player", step.player),
                ("by", by),
                *move_fields(before, step.after, step.words, step.effect, g.complete),
            ],
        )
        self._record("note", g.moves_made, [("drawn-by", how)])
        self._announce(step)
        self._saved()
        self.after_change()
        return {"ok": True}

    def _announce(self, step: Played) -> None:
        g = self.game
        assert g is not None
        note = f" — {self.last_summary}" if step.by not in (HUMAN, REMOTE) and self.last_summary else ""
        self.say(f"{g.moves_made:>3}. {self.label(step.player)}: {step.words}{note}")
        if g.is_over():
            winner = g.winner()
            if g.rules.players == 3:
                rule = f"player {winner} made the last move (three players)"
            elif g.rules.stuck_player_wins:
                rule = f"player {g.to_move} cannot move and wins (misère play)"
            else:
                rule = f"player {g.to_move} cannot move and loses (normal play)"
            self.say(f"Game over: {rule}; {self.label(winner or 0)} wins.")
            self._record(
                "end",
                self.log_number,
                [
                    ("moves", g.moves_made),
                    ("winner", winner or "none"),
                    ("reason", f"player {g.to_move} cannot move"),
                ],
            )

    def undo(self) -> dict[str, Any]:
        """Take back the last move (and the computer's before it, back to a person's turn)."""
        from ..log import undo_fields

        with self.lock:
            g = self.game
            if g is None or not g.played:
                return {"ok": False, "why": "there is no move to take back"}
            self.waiting = None
            self.epoch += 1
            self.thinking = None
            if self.remote is not None:
                why = self.remote.act_undo()
                return {"ok": not why, "why": why}
            while g.played:
                step = g.undo()
                del self.pictures[g.moves_made + 1 :]
                self._record("undo", g.moves_made + 1, undo_fields(step.player, g.position))
                self.say(f"     took back move {g.moves_made + 1} ({step.words})")
                if self.kind_to_move() in (HUMAN, None) or HUMAN not in self.kinds:
                    break
            self._saved()
            self.after_change()
            return {"ok": True}

    def new_game(self) -> dict[str, Any]:
        with self.lock:
            if self.remote is not None or self.start is None:
                return {"ok": False, "why": "over the network the host starts games (start sprouts again)"}
            self.epoch += 1
            self.thinking = None
            assert self.rules is not None  # the host's game, which has its start
            self._begin(Game(self.start, self.rules, first_to_move=self.first), self.start_picture)
            self.after_change()
            return {"ok": True}

    def save(self) -> dict[str, Any]:
        with self.lock:
            if self.save_path is None:
                return {"ok": False, "why": "start with --save FILE.json to keep the game"}
            self._saved(force=True)
            return {"ok": True, "path": str(self.save_path)}

    def _saved(self, force: bool = False) -> None:
        """The picture and the moves in ``--save`` (a temporary file renamed over the old one)."""
        if self.save_path is None or self.game is None:
            return
        from ..picture import save_game

        g = self.game
        pic = self.picture
        meta = pic.meta.setdefault("game", {})
        meta.update({"rules": g.rules.value, "player": g.to_move - 1, "moves": g.moves_made, "phase": "play"})
        try:
            save_game(self.save_path, pic, g.position.canonical(), [s.words for s in g.played])
        except (OSError, SproutsError) as e:
            self.say(f"     the game could not be saved: {e}")

    def set_settings(self, data: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            try:
                self.settings.update(data)
            except ValueError as e:
                return {"ok": False, "why": str(e)}
            if "spot" in data and self.game is not None:
                self._resize_spots()
            self._touch()
            return {"ok": True}

    def _resize_spots(self) -> None:
        """Spots drawn at the size asked for, where the picture still reads back the same."""
        from ..picture.analyse import analyse_picture

        pic = self.picture.copy()
        pic.sizes = np.full(len(pic.spots), self.settings.spot)
        try:
            a = analyse_picture(pic)
        except PictureError as e:
            self.say(f"     spots of size {self.settings.spot:g} do not fit: {e}")
            return
        if live_key(a.position) == live_key(self.game.position):  # type: ignore[union-attr]
            self.pictures[-1] = pic

    # ------------------------------------------------------------------ computers
    def after_change(self) -> None:
        """Start the computer when it is its turn (on the computers' thread: thinking takes its time)."""
        self._touch()
        g = self.game
        kind = self.kind_to_move()
        if g is None or kind in (None, HUMAN, REMOTE) or self.thinking is not None or self.stopped:
            return
        self.thinking = g.to_move
        epoch = self.epoch
        self._computers.submit(functools.partial(self._computer, epoch, g.to_move, kind))

    def _player(self, who: int, kind: str) -> Player:
        from ..players import make_player

        if who not in self._players:
            self._players[who] = make_player(kind, self.player_settings, len(self.kinds))
        return self._players[who]

    def _computer(self, epoch: int, who: int, kind: str) -> None:
        from ..errors import NoRoom
        from ..picture.room import cluster_move, draw

        try:
            with self.lock:
                g = self.game
                assert g is not None
                position, rng = g.position, random.Random(self.rng.random())
            choice = self._player(who, kind).choose(position, g.rules, rng)
            with self.lock:
                if epoch != self.epoch or self.stopped or self.game is not g or g.position is not position:
                    return
                self.thinking = None
                self.last_summary = choice.summary
                if "(won)" in choice.summary or choice.summary.startswith("won"):
                    self.verdict = f"proved: {self.label(who)} had a winning position"
                elif "(lost)" in choice.summary:
                    self.verdict = f"proved: {self.label(who)} was lost against best play"
                # the move its words name (the same position up to spot names): they replay to it
                chosen = named_move(position, cluster_move(self.picture, position, choice.move))
                here = self.analysis().position
                move = find_move(here, apply_move(position, chosen), move_words(position, chosen))
                if move is None:
                    raise PlayError(f"{move_words(position, chosen)} is not a move of the picture")
                try:
                    st = self.settings
                    result = draw(
                        self.picture, move, st.computer, self.analysis(), st.route(), who - 1, self.jobs
                    )
                except (NoRoom, PictureError) as e:
                    self.error = f"the computer's move {move_words(here, move)} cannot be drawn: {e}"
                    self.say(f"!! {self.error}; press A, R or Z to make room, then undo or go on")
                    return
                self._play(move, kind, result.picture, result.drawn_by)
        except Exception as e:  # a failed computer must not kill the page silently
            with self.lock:
                self.thinking = None
                self.error = f"{self.label(who)} failed: {e}"
                self.say(f"!! {self.error}")
        finally:
            with self.lock:
                if self.thinking == who and epoch == self.epoch:
                    self.thinking = None
                self._touch()

    # ------------------------------------------------------------------ network play's drawer
    def draw(self, game: Game) -> None:
        """The pictures made to follow ``game`` after the protocol changed it (PlayError if they cannot)."""
        from ..errors import NoRoom
        from ..picture.room import draw

        with self.lock:
            self.game = game
            k = game.moves_made
            if not self.pictures:
                self.pictures = [self._layout(game.start)]
            if k + 1 < len(self.pictures):
                del self.pictures[k + 1 :]
            elif k + 1 > len(self.pictures):
                step = game.played[-1]
                prev = self.pictures[-1]
                a = self.analysis()
                move = find_move(a.position, step.after, step.words)
                if move is None:
                    raise PlayError(f"{step.words} is not a move of the picture")
                try:
                    result = draw(
                        prev,
                        move,
                        self.settings.computer,
                        a,
                        self.settings.route(),
                        step.player - 1,
                        self.jobs,
                    )
                except (NoRoom, PictureError) as e:
                    raise PlayError(str(e)) from None
                self.pictures.append(result.picture)
            self.waiting = None
            self._saved()
            self._touch()

    def close(self) -> None:
        """Stop: the players and the table are released on the computers' thread (a computer
        still thinking is left to the process's end after ``CLOSE_SECONDS``)."""
        with self.lock:
            self.stopped = True
            self.epoch += 1
            self._touch()

        def release() -> None:
            for p in self._players.values():
                with contextlib.suppress(Exception):
                    p.close()
            if self._table is not None:
                with contextlib.suppress(Exception):
                    self._table.close()

        with contextlib.suppress(Exception):
            self._computers.submit(release).result(timeout=CLOSE_SECONDS)
        self._computers.stop()


__all__ = ["HUMAN", "REMOTE", "WebGame"]
