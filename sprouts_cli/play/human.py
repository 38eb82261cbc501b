"""A person at the terminal: the position shown in words, the moves listed, an answer read.

The person sees the position (its canonical form, its regions with their spots and
lives, the bounds on the moves left) and a numbered list of the distinct legal moves
in words (``3 → 5``, ``3 → 3 enclosing 4, 6-7``), and answers with a number or with
the move's words; ``undo``, ``quit``, ``moves`` and ``help`` work too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..engine.moves import Move, apply_move
from ..engine.naming import NamedMove, moves_from_words, parse_words
from ..errors import SproutsError
from .game import Game

HELP = """Answer with the number of a move, or with its words:
  3 → 5                      a line from spot 3 to spot 5 (-> works for the arrow)
  3 → 3 enclosing 4, 6-7     a loop at 3 with the boundaries through 4, 6 and 7 inside
  3 → 5 enclosing 4          a line that closes a curve: list the spots on one side
  … giving 0.1a1a            the position it should give, when the words fit several
Other answers: undo (take back your last move), moves (list them again), quit, help."""


class Terminal:
    """Where a human game is shown and answered: stdout and stdin by default."""

    def __init__(
        self,
        say: Callable[[str], None] | None = None,
        ask: Callable[[str], str | None] | None = None,
        status: Callable[[str], None] | None = None,
    ) -> None:
        import click

        self._say = say or click.echo
        self._ask = ask or _read_line
        if status is None and say is None:
            status = lambda text: click.echo(text, err=True)  # noqa: E731
        self._status = status

    def say(self, text: str = "") -> None:
        self._say(text)

    def ask(self, prompt: str) -> str | None:
        """One answer, or None at the end of the input."""
        return self._ask(prompt)

    def status(self, text: str) -> None:
        """A progress line: on stderr, so that stdout keeps only the game."""
        if self._status is not None:
            self._status(text)


def _read_line(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def spot_lives(game: Game) -> str:
    p = game.position
    live = [s for s in p.spots() if p.lives[s]]
    return "  ".join(f"{s + 1}:{p.lives[s]}" for s in sorted(live))


def moves_left(lower: int, upper: int) -> str:
    """"4 to 6 moves left", "1 move left", "exactly 3 moves left"."""
    if lower == upper:
        if upper == 1:
            return "1 move left"
        return "no move left" if upper == 0 else f"exactly {upper} moves left"
    return f"{lower} to {upper} moves left"


def describe_position(game: Game) -> list[str]:
    """The position for a person: canonical form, lives and bounds, the live regions."""
    p = game.position
    upper, lower = game.bounds()
    lines = [f"Position {p.canonical()}  ({p.total_lives} lives; {moves_left(lower, upper)})"]
    live = p.live_region_indices()
    for i in live:
        bounds = " ".join("[" + " ".join(str(s + 1) for s in b) + "]" for b in p.regions[i])
        lines.append(f"  region {i + 1} ({p.region_lives(i)} lives): {bounds}")
    dead = len(p.regions) - len(live)
    if dead:
        lines.append(f"  ({dead} region{'s' if dead > 1 else ''} with no move left)")
    lines.append(f"  spots with lives (spot:lives): {spot_lives(game)}")
    return lines


def list_moves(moves: list[NamedMove]) -> list[str]:
    width = len(str(len(moves)))
    return [f"  {i:>{width}}. {nm.words}" for i, nm in enumerate(moves, 1)]


@dataclass
class Answer:
    """What the person chose: a move (with its words), or ``undo`` or ``quit``."""

    action: str  # "move", "undo" or "quit"
    move: Move | None = None
    words: str | None = None


def ask_move(game: Game, term: Terminal, label: str) -> Answer:
    """Show the position and the moves, and read answers until one is a move, undo or quit."""
    moves = game.named_moves()
    term.say("")
    for line in describe_position(game):
        term.say(line)
    term.say(f"Moves ({len(moves)}):")
    for line in list_moves(moves):
        term.say(line)
    while True:
        text = term.ask(f"{label}, your move (number or words; undo, quit, help): ")
        if text is None:
            term.say("")
            return Answer("quit")
        answer = read_answer(game, moves, text.strip(), term)
        if answer is not None:
            return answer


def read_answer(game: Game, moves: list[NamedMove], text: str, term: Terminal) -> Answer | None:
    """One answer: a move, undo or quit; None (after saying why) when it is none of them."""
    word = text.lower()
    if not word:
        return None
    if word in ("quit", "q", "exit"):
        return Answer("quit")
    if word in ("undo", "u", "back"):
        return Answer("undo")
    if word in ("help", "h", "?"):
        term.say(HELP)
        return None
    if word in ("moves", "list", "m"):
        for line in list_moves(moves):
            term.say(line)
        return None
    if word.isdigit():
        k = int(word)
        if 1 <= k <= len(moves):
            return Answer("move", moves[k - 1].move, moves[k - 1].words)
        term.say(f"There is no move {k}: choose 1 to {len(moves)}.")
        return None
    p = game.position
    try:
        fits = moves_from_words(p, parse_words(text))
    except SproutsError as e:
        term.say(f"Not a move here: {e}.")
        return None
    results: dict[str, Move] = {}
    for m in fits:
        results.setdefault(apply_move(p, m, check=False).canonical(), m)
    if len(results) == 1:
        m = next(iter(results.values()))
        return Answer("move", m, None)
    term.say(f"'{text}' fits {len(results)} moves with different results; add 'giving' and one of:")
    for key in sorted(results):
        term.say(f"  {text} giving {key}")
    return None
