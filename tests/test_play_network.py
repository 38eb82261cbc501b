"""Network play (Alfeld §6): the protocol's pieces, and host and guest as two processes through pexpect.

Between the two processes sits a small TCP relay run by the test: it can drop the
connection (both sides must rebuild it and go on), corrupt the key of a heartbeat
(the guest must report a divergence), and go silent (the channel must be rebuilt).
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
    decode,
    encode,
    find_move,
    move_message,
    parse_code,
    position_key,
)

SPROUTS = [sys.executable, "-m", "sprouts_cli"]


# ---------------------------------------------------------------------- the pieces


def test_room_codes_are_loopback_only() -> None:
    assert parse_code("127.0.0.1:4000") == ("127.0.0.1", 4000)
    assert parse_code("4000") == ("127.0.0.1", 4000)
    assert parse_code("localhost:4000") == ("127.0.0.1", 4000)
    for bad in ("10.0.0.1:4000", "example.com:4000", "127.0.0.1:x", "127.0.0.1:70000", ""):
        with pytest.raises(NetError):
            parse_code(bad)


def test_messages_round_trip_and_junk_is_ignored() -> None:
    m = {"type": "move", "k": 3, "ends": [1, 4], "enclosed": [2], "key": "ab", "mirror": "cd", "id": "host-1"}
    assert decode(encode(m)) == m
    for junk in (b"not json\n", b"[1,2]\n", b'{"type":"move"}\n', b'{"type":"dance","k":1}\n', b"\xff\n"):
        assert decode(junk) is None


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
        host.expect(r"room code 127\.0\.0\.1:(\d+)")
        relay = Relay(int(host.match.group(1)))
        guest = spawn(
            ["play", "--join", f"127.0.0.1:{relay.port}", "--log", str(guest_log), *FAST],
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
        # a heartbeat whose key was changed on the way: the guest reports a divergence
        relay.corrupt.set()
        guest.expect(r"!! divergence at move 4", timeout=20)
        assert relay.corrupted
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

    r = CliRunner().invoke(main, ["play", "--join", "10.1.2.3:4000"])
    assert r.exit_code == 2 and "loopback" in r.output
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
    r = CliRunner().invoke(main, ["play", "--join", f"127.0.0.1:{port}", "--wait", "1"])
    assert r.exit_code == 2 and "cannot reach the host" in r.output
    assert time.monotonic() - t0 < 20
    assert re.search(r"127\.0\.0\.1:\d+", r.output)


# ---------------------------------------------------------------------- the rules of Alfeld §6, in process


class _Recording:
    """A NetPlay whose messages are kept instead of sent."""

    @staticmethod
    def make(role: str, game):
        from sprouts_cli.play.network import NetPlay, Ui

        said: list[str] = []
        play = NetPlay(role, game, Ui(said.append))
        play.sent = []

        async def send(message: dict) -> None:
            play.sent.append(message)

        play.send = send  # type: ignore[method-assign]
        play.show_turn = lambda: None  # type: ignore[method-assign]
        play.said = said
        return play


def _game(n: int = 3):
    from sprouts_cli.play import Game

    return Game(Position.start(n))


def test_the_host_wins_a_clash_and_duplicates_are_acknowledged_again() -> None:
    import asyncio

    async def scenario() -> None:
        host = _Recording.make("host", _game())
        guest = _Recording.make("guest", _game())
        # the host moves; the guest applies it and acknowledges
        await host.act_move(host.game.named_moves()[0].move, None)
        move = host.sent[-1]
        await guest.on_message(move)
        ack = guest.sent[-1]
        assert ack["type"] == "ack" and ack["id"] == move["id"] and guest.k == 1
        await host.on_message(ack)
        assert host.pending is None
        # the same move again (after a reconnection): acknowledged again, not played again
        await guest.on_message(move)
        assert guest.k == 1 and guest.sent[-1] == ack
        # both act at once at k = 1: the guest moves, the host takes its own move back
        await guest.act_move(guest.game.named_moves()[0].move, None)
        guest_move = guest.sent[-1]
        await host.act_undo()
        host_undo = host.sent[-1]
        assert guest_move["k"] == host_undo["k"] == 1
        await host.on_message(guest_move)  # the host refuses the guest's action
        assert host.sent[-1]["type"] == "refuse" and host.sent[-1]["id"] == guest_move["id"]
        await guest.on_message(host_undo)  # the guest takes its move back and applies the host's undo
        assert guest.k == 0 and guest.pending is None
        assert guest.sent[-1]["type"] == "ack" and guest.sent[-1]["id"] == host_undo["id"]
        await guest.on_message(host.sent[-2])  # the refusal, now about nothing pending: ignored
        await host.on_message(guest.sent[-1])
        assert host.pending is None and host.k == guest.k == 0
        assert position_key(host.game.position) == position_key(guest.game.position)

    asyncio.run(scenario())


def test_a_message_ahead_asks_for_a_resend_and_a_refusal_takes_back() -> None:
    import asyncio

    async def scenario() -> None:
        host = _Recording.make("host", _game())
        guest = _Recording.make("guest", _game())
        await host.act_move(host.game.named_moves()[0].move, None)
        first = host.sent[-1]
        # the guest never got the first move; a heartbeat says the host is ahead with an action pending
        await guest.on_message({"type": "heartbeat", "k": 1, "key": "x", "pending": True})
        assert guest.sent[-1] == {"type": "resend", "k": 0}
        await host.on_message(guest.sent[-1])
        assert host.sent[-1] == first  # the unacknowledged action again
        # a move the guest cannot find is refused, and the host takes it back
        await guest.on_message({**first, "key": "0" * 20, "mirror": "0" * 20})
        refuse = guest.sent[-1]
        assert refuse["type"] == "refuse" and guest.k == 0
        await host.on_message(refuse)
        assert host.k == 0 and host.pending is None
        # heartbeats at the same k with another key: a divergence is reported, once
        await guest.on_message({"type": "heartbeat", "k": 0, "key": "f" * 20, "pending": False})
        await guest.on_message({"type": "heartbeat", "k": 0, "key": "f" * 20, "pending": False})
        assert sum("divergence" in line for line in guest.said) == 1

    asyncio.run(scenario())


def test_a_whole_game_in_process_ends_alike() -> None:
    import asyncio

    async def scenario() -> None:
        host = _Recording.make("host", _game(3))
        guest = _Recording.make("guest", _game(3))
        sides = {1: (host, guest), 2: (guest, host)}
        rng = random.Random(3)
        while not host.game.is_over():
            actor, other = sides[host.game.to_move]
            moves = actor.game.named_moves()
            await actor.act_move(rng.choice(moves).move, None)
            await other.on_message(actor.sent[-1])
            await actor.on_message(other.sent[-1])
            assert actor.pending is None and actor.k == other.k
        assert guest.game.is_over() and host.game.winner() == guest.game.winner()
        assert position_key(host.game.position) == position_key(guest.game.position)
        assert 6 <= host.k <= 8

    asyncio.run(scenario())
