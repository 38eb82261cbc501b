"""Property tests: random and mutated strings, saved games and logs through the readers.

Whatever the input, a command answers with a value or with one line on stderr and
exit code 2: never a traceback, never another exit code.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sprouts_cli.cli import main
from sprouts_cli.errors import SproutsError
from sprouts_cli.log import replay_log

POSITIONS = Path(__file__).resolve().parent.parent / "positions"
SEEDS = ["0*5", "0.AB|AB", "1a1a.1a2a", "1a1a.1aAa|22A", "0*4.A|0*4.A+0.1a2a", "0.0.0.}]!2", "0*2+*3"]
SEEDS += ["ABC|ACB", "1abab"]
ALPHABET = "0123abcABC.|+*!}]mn()9 \t"

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mutated(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each (kind, place, character) edit applied: 0 insert, 1 delete, 2 replace."""
    chars = list(text)
    for kind, place, c in edits:
        i = place % (len(chars) + 1)
        if kind == 0:
            chars.insert(i, c)
        elif chars:
            i = min(i, len(chars) - 1)
            if kind == 1:
                del chars[i]
            else:
                chars[i] = c
    return "".join(chars)


edits = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10_000), st.sampled_from(ALPHABET)), max_size=4)
strings = st.one_of(
    st.text(alphabet=ALPHABET, max_size=30),
    st.builds(mutated, st.sampled_from(SEEDS), edits),
)


def answered_or_refused(args: list[str]) -> None:
    r = CliRunner().invoke(main, args, catch_exceptions=False)
    assert "Traceback" not in r.output
    if r.exit_code != 0:
        assert r.exit_code == 2, (args, r.output)
        assert len([line for line in r.stderr.splitlines() if line.strip()]) == 1, (args, r.stderr)


@FUZZ
@given(strings)
def test_any_string_is_read_or_refused_in_one_line(text: str) -> None:
    from sprouts_cli.cli.common import read_position

    try:
        p = read_position(text, "canonical")
    except SproutsError:
        pass
    else:
        assert read_position(p.canonical(), "canonical").canonical() == p.canonical()
    answered_or_refused(["canonical", "--", text])


def _mutate_json(obj: object, path: list[int], value: object) -> object:
    """``obj`` with the item reached by following ``path`` replaced by ``value``."""
    if not path or not isinstance(obj, (dict, list)) or not obj:
        return value
    keys = list(obj) if isinstance(obj, dict) else list(range(len(obj)))
    key = keys[path[0] % len(keys)]
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[key] = _mutate_json(obj[key], path[1:], value)  # type: ignore[index]
    return copy


json_values = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 1000), st.floats(allow_nan=True), st.text(max_size=5),
    st.just([]), st.just({}), st.just([[0, 0]] * 4),
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(["loop.json", "browser-3-spots.json", "start-5.json"]),
    st.lists(st.integers(0, 50), min_size=1, max_size=6),
    json_values,
    st.integers(0, 3),
)
def test_any_mutated_saved_game_is_read_or_refused_in_one_line(name: str, path, value, cut: int) -> None:
    text = json.dumps(_mutate_json(json.loads((POSITIONS / name).read_text()), path, value))
    if cut:
        text = text[: len(text) * cut // 4]  # cut off part way
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "game.json"
        f.write_text(text)
        answered_or_refused(["canonical", str(f)])


@functools.cache
def seed_log() -> str:
    """A real log of a short game (played once per test session)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "seed.log"
        args = ["play", "--spots", "3", "--first", "random", "--second", "random", "--seed", "5", "-q"]
        r = CliRunner().invoke(main, [*args, "--jobs", "1", "--log", str(log)], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return log.read_text(encoding="utf-8")


junk = st.binary(max_size=200).map(lambda b: b.decode("latin-1"))


@FUZZ
@given(st.one_of(st.tuples(st.just("log"), edits), junk))
def test_any_mutated_log_is_replayed_or_refused_in_one_line(case) -> None:
    text = mutated(seed_log(), case[1]) if isinstance(case, tuple) else case
    result = replay_log("fuzz.log", text)  # never raises: the games so far and the error
    assert result.error is None or isinstance(result.error, SproutsError)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "fuzz.log"
        f.write_text(text, encoding="utf-8")
        answered_or_refused(["replay", str(f)])


def test_the_seed_log_replays() -> None:
    result = replay_log("seed.log", seed_log())
    assert result.error is None and result.games[-1].moves >= 6
