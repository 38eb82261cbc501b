"""Network play (Alfeld §6): the protocol's pieces, and host and guest as two processes through pexpect.

Between the two processes sits a small TCP relay run by the test: it can drop the
connection (both sides must rebuild it and go on), change a heartbeat on the way
(its seal no longer fits: the guest ignores it), play a line again (refused), and
go silent (the channel must be rebuilt).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest

from sprouts_cli.engine import Position
from sprouts_cli.engine.moves import apply_move, random_move
from sprouts_cli.engine.naming import distinct_named_moves, numbered_key
from sprouts_cli.log import replay_log
from sprouts_cli.play.network import (
    NetError,
    Sealer,
    find_move,
    move_message,
    parse_code,
    position_key,
)

SPROUTS = [sys.executable, "-m", "sprouts_cli"]


# ---------------------------------------------------------------------- the pieces


SECRET = "Zr8c0Qm4k1sT9xWq"


def test_room_codes_carry_a_secret() -> None:
    assert parse_code(f"127.0.0.1:4000/{SECRET}") == ("127.0.0.1", 4000, SECRET)
    assert parse_code(f"4000/{SECRET}") == ("127.0.0.1", 4000, SECRET)
    assert parse_code(f"localhost:4000/{SECRET}") == ("127.0.0.1", 4000, SECRET)
    assert parse_code(f"10.0.0.1:4000/{SECRET}") == ("10.0.0.1", 4000, SECRET)  # another machine
    assert parse_code(f"[::1]:4000/{SECRET}") == ("::1", 4000, SECRET)
    bad_codes = ["127.0.0.1:4000", f"example.com:4000/{SECRET}", f"127.0.0.1:x/{SECRET}"]
    bad_codes += [f"127.0.0.1:70000/{SECRET}", "127.0.0.1:4000/short", "127.0.0.1:4000/bad secret!", ""]
    for bad in bad_codes:
        with pytest.raises(NetError):
            parse_code(bad)


def test_sealed_lines_round_trip_and_anything_else_is_refused() -> None:
    host, guest = Sealer(SECRET, "host"), Sealer(SECRET, "guest")
    m = {"type": "move", "k": 3, "ends": [1, 4], "enclosed": [2], "key": "ab", "mirror": "cd", "id": "host-1"}
    line = host.seal(m)
    assert guest.open(line) == m
    assert guest.open(line) is None  # the same line again: a replay
    assert host.open(host.seal(m)) is None  # a line sent back to its sender
    stranger = Sealer("another-secret-1234", "host")
    assert guest.open(stranger.seal(m)) is None  # no secret, no message
    tampered = json.loads(host.seal(m))
    tampered["ends"] = [2, 4]
    assert guest.open(json.dumps(tampered).encode()) is None
    for junk in (b"not json\n", b"[1,2]\n", b'{"type":"move"}\n', b'{"type":"dance","k":1}\n', b"\xff\n"):
        assert guest.open(junk) is None
    # a sealed line that is not a message of the protocol is refused too
    assert guest.open(host.seal({"type": "dance", "k": 1})) is None
    assert guest.open(host.seal({"type": "move", "k": -1})) is None


def test_every_move_travels_and_is_found_again() -> None:
    """Along random games, every distinct move is found by its spots and the key of its result."""
    rng = random.Random(7)
    checked = 0
    for n in (2, 3, 5):
        p = Position.start(n)
        while (m := random_move(p, rng)) is not None:
            for nm in distinct_named_moves(p):
                data = json.loads(json.dumps(move_message(p, nm.move)))
                found = find_move(p, data)
                assert found is not None
                want = apply_move(p, nm.move)
                assert numbered_key(apply_move(p, found)) == numbered_key(want)
                checked += 1
            p = apply_move(p, m)
    assert checked > 100
    p = Position.start(3)
    data = move_message(p, distinct_named_moves(p)[0].move)
    assert find_move(p, {**data, "key": "0" * 20, "mirror": "0" * 20}) is None  # another result
    assert find_move(p, {"ends": "x"}) is None


def test_the_key_sees_mirror_images() -> None:
    p = Position.from_string("0.1a1a")
    assert position_key(p) != "" and len(position_key(p)) == 20
    mirrored = Position([tuple(b[::-1] for b in r) for r in p.regions], p.lives)
    assert position_key(mirrored, mirror=True) == position_key(p)


# ---------------------------------------------------------------------- the relay


class Relay:
    """A TCP relay on the loopback: the guest dials it, it dials the host; lines pass through."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        self.corrupt = threading.Event()
        self.corrupted: list[str] = []
        self.earlier = b""
        self.silent = False
        self.stop = threading.Event()
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                guest, _ = self.server.accept()
            except OSError:
                continue
            host = socket.create_connection(("127.0.0.1", self.upstream), timeout=5)
            with self.lock:
                self.pairs.append((guest, host))
                self.connections += 1
                self.silent = False
            threading.Thread(target=self._pump, args=(host, guest, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(guest, host, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, to_guest: bool) -> None:
        buffer = b""
        src.settimeout(0.2)
        while not self.stop.is_set():
            try:
                chunk = src.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if self.silent:
                    continue  # the channel goes quiet: nothing passes
                if to_guest and self.corrupt.is_set() and b'"heartbeat"' in line:
                    m = json.loads(line)
                    if m.get("key"):
                        self.corrupted.append(m["key"])
                        m["key"] = "0123456789abcdef0123"
                        line = json.dumps(m).encode()
                        self.corrupt.clear()
                        with contextlib.suppress(OSError):  # and an earlier line played again
                            dst.sendall(self.earlier + b"\n")
                if to_guest and b'"move"' in line:
                    self.earlier = line
                try:
                    dst.sendall(line + b"\n")
                except OSError:
                    break
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.close()

    def drop(self) -> None:
        """Close every connection at once (as a network that fails would)."""
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for s in pair:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def close(self) -> None:
        self.stop.set()
        self.drop()
        self.server.close()


# ---------------------------------------------------------------------- two processes


def spawn(args: list[str], log: Path, out: Path) -> pexpect.spawn:
    child = pexpect.spawn(SPROUTS[0], [*SPROUTS[1:], *args], encoding="utf-8", timeout=60)
    child.logfile_read = out.open("w")
    return child


FAST = ["--heartbeat", "0.3", "--silence", "2.5", "--wait", "30"]


def test_host_and_guest_over_tcp(tmp_path: Path) -> None:
    host_log, guest_log = tmp_path / "host.log", tmp_path / "guest.log"
    host = spawn(
        ["play", "--host", "--spots", "4", "--log", str(host_log), *FAST], host_log, tmp_path / "host.out"
    )
    relay = None
    guest = None
    try:
        host.expect(r"room code 127\.0\.0\.1:(\d+)/([\w-]+)")
        relay = Relay(int(host.match.group(1)))
        secret = host.match.group(2)
        guest = spawn(
            ["play", "--join", f"127.0.0.1:{relay.port}/{secret}", "--log", str(guest_log), *FAST],
            guest_log,
            tmp_path / "guest.out",
        )
        prompt = r"your move \(number or words"
        # moves in both directions
        host.expect(prompt)
        host.sendline("1")
        guest.expect(r"1\. player 1 \(the other player\): (.+)\r\n")
        guest.expect(prompt)
        guest.sendline("2")
        host.expect(r"2\. player 2 \(the other player\): ")
        host.expect(prompt)
        # an undo of the guest's move, asked by the host
        host.sendline("undo")
        host.expect("took back move 2")
        guest.expect(r"took back move 2 .*asked by the other player")
        guest.expect(prompt)
        guest.sendline("1")
        host.expect(r"2\. player 2 \(the other player\): ")
        host.expect(prompt)
        # a dropped connection: both rebuild it, the game goes on where it was
        relay.drop()
        guest.expect("the channel is being rebuilt")
        guest.expect("connected again; the game goes on at move 2")
        host.sendline("1")
        guest.expect(r"3\. player 1 \(the other player\): ")
        guest.expect(prompt)
        assert relay.connections >= 2
        # a move made while the channel is silent waits, and arrives once it is rebuilt
        relay.silent = True
        guest.sendline("1")
        guest.expect("the channel is being rebuilt")  # the side that noticed closed it, or this one
        host.expect(r"4\. player 2 \(the other player\): ", timeout=30)
        host.expect(prompt)
        # a heartbeat changed on the way and an earlier move played again: neither opens, nothing changes
        relay.corrupt.set()
        deadline = time.monotonic() + 20
        while not relay.corrupted and time.monotonic() < deadline:
            time.sleep(0.1)
        assert relay.corrupted and relay.earlier
        time.sleep(1.0)
        # the host leaves; both print where they stand
        host.sendline("quit")
        guest.expect("The other player left")
        host.expect(r"final position after (\d+) moves: (\S+)\r\n")
        host_end = host.match.groups()
        host.expect(r"numbered (.+)\r\n")
        host_numbered = host.match.group(1)
        guest.expect(r"final position after (\d+) moves: (\S+)\r\n")
        guest_end = guest.match.groups()
        guest.expect(r"numbered (.+)\r\n")
        guest_numbered = guest.match.group(1)
        assert host_end == guest_end and host_end[0] == "4"
        assert host_numbered == guest_numbered
        host.expect(pexpect.EOF)
        guest.expect(pexpect.EOF)
    finally:
        for child in (host, guest):
            if child is not None:
                if child.isalive():
                    child.terminate(force=True)
                child.logfile_read.close()
        if relay is not None:
            relay.close()
    outs = "".join((tmp_path / f"{side}.out").read_text() for side in ("host", "guest"))
    assert "divergence" not in outs  # the changed heartbeat was not taken for the host's
    assert "nothing arrived for 2.5 s" in outs  # the silent channel was noticed and rebuilt
    # both logs replay to the same position, the undo included
    a, b = replay_log(host_log), replay_log(guest_log)
    assert a.error is None and b.error is None, (a.error, b.error)
    ga, gb = a.games[-1], b.games[-1]
    assert ga.moves == gb.moves == 4
    assert numbered_key(ga.position) == numbered_key(gb.position)
    assert any(s.text == "undo" for s in ga.steps) and any(s.text == "undo" for s in gb.steps)


def test_join_refusals(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sprouts_cli.cli import main

    r = CliRunner().invoke(main, ["play", "--join", "127.0.0.1:4000"])
    assert r.exit_code == 2 and "not a room code" in r.output and "SECRET" in r.output
    r = CliRunner().invoke(main, ["play", "--host", "--spots", "3", "--bind", "nowhere"])
    assert r.exit_code == 2 and "--bind" in r.output
    r = CliRunner().invoke(main, ["play", "--host", "--spots", "3", "--second", "parity"])
    assert r.exit_code == 2 and "both players are people" in r.output
    r = CliRunner().invoke(main, ["play", "--join", "127.0.0.1:4000", "--spots", "3"])
    assert r.exit_code == 2 and "room code" in r.output
    # nobody listens on this port: the guest gives up after --wait seconds, with one line
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    t0 = time.monotonic()
    r = CliRunner().invoke(main, ["play", "--join", f"127.0.0.1:{port}/{SECRET}", "--wait", "1"])
    assert r.exit_code == 2 and "cannot reach the host" in r.output
    assert time.monotonic() - t0 < 20
    assert re.search(r"127\.0\.0\.1:\d+", r.output)


def test_a_host_who_leaves_before_anyone_joins_says_no_guest_joined(tmp_path: Path) -> None:
    import subprocess

    r = subprocess.run(
        [*SPROUTS, "play", "--host", "--spots", "3", "--wait", "30"],
        stdin=subprocess.DEVNULL,  # the host's input ends at once: it leaves
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert r.returncode == 0 and "room code" in r.stdout, (r.stdout, r.stderr)
    assert "joined" not in r.stdout and "final position after 0 moves" in r.stdout, r.stdout


def test_the_host_listens_on_loopback_unless_bound_and_its_code_can_be_dialled(tmp_path: Path) -> None:
    """By default no other computer reaches the host; ``--bind 0.0.0.0`` prints this computer's
    address on its default route (not 0.0.0.0), and a guest joins with the code as printed."""
    from sprouts_cli.play.net_messages import code_address

    outward = code_address("0.0.0.0")
    host = spawn(["play", "--host", "--spots", "3", *FAST], tmp_path / "h.log", tmp_path / "host.out")
    try:
        host.expect(r"room code 127\.0\.0\.1:(\d+)/")
        if outward != "127.0.0.1":  # a computer with an address beyond loopback
            with pytest.raises(OSError):
                socket.create_connection((outward, int(host.match.group(1))), timeout=5).close()
    finally:
        host.terminate(force=True)
        host.logfile_read.close()
    bound = ["play", "--host", "--spots", "3", "--bind", "0.0.0.0", *FAST]
    host = spawn(bound, tmp_path / "h2.log", tmp_path / "h2.out")
    guest = None
    try:
        host.expect(r"room code (\S+)  ")
        code = host.match.group(1)
        assert not code.startswith("0.0.0.0") and code.startswith(f"{outward}:"), code
        guest = spawn(["play", "--join", code, *FAST], tmp_path / "g.log", tmp_path / "g.out")
        host.expect("A guest joined")
        guest.expect(r"your move|player 1")
    finally:
        for child in (host, guest):
            if child is not None:
                if child.isalive():
                    child.terminate(force=True)
                child.logfile_read.close()


def test_a_guest_without_the_secret_is_refused(tmp_path: Path) -> None:
    host = spawn(["play", "--host", "--spots", "3", *FAST], tmp_path / "h.log", tmp_path / "host.out")
    guest = None
    try:
        host.expect(r"room code 127\.0\.0\.1:(\d+)/([\w-]+)")
        port, secret = host.match.groups()
        wrong = ("A" if secret[0] != "A" else "B") + secret[1:]
        guest = spawn(
            ["play", "--join", f"127.0.0.1:{port}/{wrong}", *FAST], tmp_path / "g.log", tmp_path / "g.out"
        )
        guest.expect("the host refused this room code")
        guest.expect(pexpect.EOF)
        guest.close()
        assert guest.exitstatus == 2
        host.expect("a connection without this room's secret was refused")
        # a stranger's junk is refused the same way, and the host still waits for its guest
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
            s.sendall(b'{"type":"hello","k":0,"protocol":2}\n')
            assert b"denied" in s.recv(4096)
        host.expect("a connection without this room's secret was refused")
        assert host.isalive()
    finally:
        for child in (host, guest):
            if child is not None:
                if child.isalive():
                    child.terminate(force=True)
                child.logfile_read.close()


# ---------------------------------------------------------------------- the rules of Alfeld §6, in process


class _Recording:
    """A protocol whose messages are kept in ``sent`` as it sends them (no socket anywhere)."""

    @staticmethod
    def make(role: str, game):
        from sprouts_cli.play.network import Protocol, View

        said: list[str] = []
        play = Protocol(role, game, View(said.append))
        play.sent = []

        def send(message: dict) -> None:
            play.sent.append(message)

        play.send = send  # type: ignore[method-assign]
        play.said = said
        return play


def _game(n: int = 3):
    from sprouts_cli.play import Game

    return Game(Position.start(n))


def test_the_host_wins_a_clash_and_duplicates_are_acknowledged_again() -> None:
    def scenario() -> None:
        host = _Recording.make("host", _game())
        guest = _Recording.make("guest", _game())
        # the host moves; the guest applies it and acknowledges
        host.act_move(host.game.named_moves()[0].move, None)
        move = host.sent[-1]
        guest.receive(move)
        ack = guest.sent[-1]
        assert ack["type"] == "ack" and ack["id"] == move["id"] and guest.k == 1
        host.receive(ack)
        assert host.pending is None
        # the same move again (after a reconnection): acknowledged again, not played again
        guest.receive(move)
        assert guest.k == 1 and guest.sent[-1] == ack
        # both act at once at k = 1: the guest moves, the host takes its own move back
        guest.act_move(guest.game.named_moves()[0].move, None)
        guest_move = guest.sent[-1]
        host.act_undo()
        host_undo = host.sent[-1]
        assert guest_move["k"] == host_undo["k"] == 1
        host.receive(guest_move)  # the host refuses the guest's action
        assert host.sent[-1]["type"] == "refuse" and host.sent[-1]["id"] == guest_move["id"]
        guest.receive(host_undo)  # the guest takes its move back and applies the host's undo
        assert guest.k == 0 and guest.pending is None
        assert guest.sent[-1]["type"] == "ack" and guest.sent[-1]["id"] == host_undo["id"]
        guest.receive(host.sent[-2])  # the refusal, now about nothing pending: ignored
        host.receive(guest.sent[-1])
        assert host.pending is None and host.k == guest.k == 0
        assert position_key(host.game.position) == position_key(guest.game.position)

    scenario()


def test_a_message_ahead_asks_for_a_resend_and_a_refusal_takes_back() -> None:
    def scenario() -> None:
        host = _Recording.make("host", _game())
        guest = _Recording.make("guest", _game())
        host.act_move(host.game.named_moves()[0].move, None)
        first = host.sent[-1]
        # the guest never got the first move; a heartbeat says the host is ahead with an action pending
        guest.receive({"type": "heartbeat", "k": 1, "key": "x", "pending": True})
        assert guest.sent[-1] == {"type": "resend", "k": 0}
        host.receive(guest.sent[-1])
        assert host.sent[-1] == first  # the unacknowledged action again
        # a move the guest cannot find is refused, and the host takes it back
        guest.receive({**first, "key": "0" * 20, "mirror": "0" * 20})
        refuse = guest.sent[-1]
        assert refuse["type"] == "refuse" and guest.k == 0
        host.receive(refuse)
        assert host.k == 0 and host.pending is None
        # heartbeats at the same k with another key: a divergence is reported, once
        guest.receive({"type": "heartbeat", "k": 0, "key": "f" * 20, "pending": False})
        guest.receive({"type": "heartbeat", "k": 0, "key": "f" * 20, "pending": False})
        assert sum("divergence" in line for line in guest.said) == 1

    scenario()


def test_a_whole_game_in_process_ends_alike() -> None:
    def scenario() -> None:
        host = _Recording.make("host", _game(3))
        guest = _Recording.make("guest", _game(3))
        sides = {1: (host, guest), 2: (guest, host)}
        rng = random.Random(3)
        while not host.game.is_over():
            actor, other = sides[host.game.to_move]
            moves = actor.game.named_moves()
            actor.act_move(rng.choice(moves).move, None)
            other.receive(actor.sent[-1])
            actor.receive(other.sent[-1])
            assert actor.pending is None and actor.k == other.k
        assert guest.game.is_over() and host.game.winner() == guest.game.winner()
        assert position_key(host.game.position) == position_key(guest.game.position)
        assert 6 <= host.k <= 8

    scenario()


# ---------------------------------------------------------------------- fuzzed lines and messages

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 400), st.integers(0, 255))
def test_a_line_changed_anywhere_does_not_open(junk: bytes, at: int, byte: int) -> None:
    host, guest = Sealer(SECRET, "host"), Sealer(SECRET, "guest")
    assert guest.open(junk) is None
    line = bytearray(host.seal({"type": "move", "k": 1, "ends": [1, 2], "id": "host-1", "key": "k"}))
    i = at % (len(line) - 1)
    if line[i] != byte:
        line[i] = byte
        assert guest.open(bytes(line)) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["move", "ack", "refuse", "resend", "heartbeat", "game", "hello"]),
    st.integers(0, 3),
    st.dictionaries(
        st.sampled_from(["ends", "enclosed", "key", "mirror", "id", "after", "of", "pending", "numbered",
                         "lives", "rules", "first", "protocol", "game", "reason"]),
        _json,
        max_size=6,
    ),
)  # fmt: skip
def test_fuzzed_messages_leave_the_game_unchanged(kind: str, k: int, fields: dict) -> None:
    """Any message a peer could seal but that is not a legal action changes neither side's game."""
    for role in ("host", "guest"):
        play = _Recording.make(role, _game(3))
        step = play.game.named_moves()[0]
        play.game.play(step.move, "human")
        before = (position_key(play.game.position), play.k, play.pending)
        message = {**fields, "type": kind, "k": k}
        if kind == "hello":
            message["protocol"] = 2
        play.receive(message)
        assert (position_key(play.game.position), play.k, play.pending) == before
