"""What travels between two computers (Alfeld §6): room codes, keys, moves, and sealed lines.

Only topological moves travel, never pictures: a move is its two end spots, the
spots it encloses on one side (for a move within one boundary), and the key of the
position it gives and of that position's mirror image (the other side may draw it
either way round).  Spot numbers agree on both sides (both start from the same
numbered position and every move adds the next spot).

**The room code** is ``HOST:PORT/SECRET``: where the host listens, and a random
secret (``secrets.token_urlsafe``) that only the two players know.  Every message is
one line of JSON sealed with an HMAC-SHA256 tag under a key derived from the
secret; it names its sender's role and carries a sequence number that only grows,
so a line from someone without the secret, a line sent back to its sender, and a
line recorded and played again are all refused (:class:`Sealer`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
from dataclasses import dataclass
from typing import Any

from ..engine.moves import Move, apply_move
from ..engine.naming import (
    MoveWords,
    lives_text,
    move_shape,
    moves_from_words,
    numbered_text,
    parse_lives,
    parse_numbered,
)
from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import NetError, SproutsError
from .game import Game

#: The protocol's version: both sides must speak the same.
PROTOCOL = 2
TYPES = ("hello", "game", "move", "undo", "ack", "refuse", "resend", "heartbeat", "bye")
#: The one unsealed line: the host's answer to a peer whose first line it could not authenticate.
DENIED = {"type": "denied", "reason": "this room code's secret was not proved"}
#: The longest line accepted (bytes); a longer one is a broken peer.
MAX_LINE = 1 << 20
LOOPBACK = "127.0.0.1"
ROLES = ("host", "guest")


# ---------------------------------------------------------------------- room codes


def new_secret() -> str:
    """A random secret for a room code: 96 bits, URL-safe text."""
    return secrets.token_urlsafe(12)


def room_code(host: str, port: int, secret: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}/{secret}"


def parse_code(code: str) -> tuple[str, int, str]:
    """``HOST:PORT/SECRET`` (``PORT/SECRET`` for this computer) as host, port and secret."""
    text = code.strip()
    where, slash, secret = text.partition("/")
    if not slash or len(secret) < 8 or not all(c.isalnum() or c in "-_" for c in secret):
        raise NetError(
            f"{code!r} is not a room code: write it as HOST:PORT/SECRET, as the host printed it "
            "(e.g. 127.0.0.1:40123/Zr8c0Qm4k1sT9xWq)"
        )
    host, sep, port_text = where.rpartition(":")
    if not sep:
        host, port_text = LOOPBACK, where
    host = host.strip("[]") or LOOPBACK
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise NetError(f"{code!r} is not a room code: its port {port_text!r} is not a number from 1 to 65535")
    if host == "localhost":
        host = LOOPBACK
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise NetError(f"{host!r} in the room code {code!r} is not an IP address") from None
    return str(address), int(port_text), secret


def code_address(bind: str) -> str:
    """The address a room code names for a host listening on ``bind``: ``bind`` itself, or for
    every interface (``0.0.0.0``, ``::``) this computer's address on its default route, which a
    guest on another computer can dial (the loopback address when there is no route).

    The address is read from a UDP socket connected to a documentation address
    (RFC 5737, RFC 3849): connecting a UDP socket sends nothing."""
    address = ipaddress.ip_address(bind)
    if not address.is_unspecified:
        return bind
    if address.version == 6:
        family, probe, fallback = socket.AF_INET6, "2001:db8::1", "::1"
    else:
        family, probe, fallback = socket.AF_INET, "192.0.2.1", LOOPBACK
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            found = str(s.getsockname()[0])
    except OSError:
        return fallback
    return fallback if ipaddress.ip_address(found).is_unspecified else found


def check_bind(address: str) -> str:
    """An address for ``--bind``: an IP address of this computer's interfaces (NetError otherwise)."""
    try:
        return str(ipaddress.ip_address(address.strip().strip("[]")))
    except ValueError:
        raise NetError(
            f"--bind {address!r}: not an IP address (e.g. 0.0.0.0, or this computer's address)"
        ) from None


# ---------------------------------------------------------------------- sealed lines


def _canonical(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")


@dataclass
class Sealer:
    """One side's seal: signs what it sends and opens only what the other side sealed, in order.

    ``last_seen`` is the highest sequence number opened from the peer; it lives as
    long as the game (across rebuilt channels), so a line played again is refused.
    """

    secret: str
    role: str
    sent: int = 0
    last_seen: int = -1

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role {self.role!r}")
        self.key = hmac.new(
            self.secret.encode("utf-8"), b"sprouts network play, key", hashlib.sha256
        ).digest()
        self.peer = "guest" if self.role == "host" else "host"

    def tag(self, body: bytes) -> str:
        return hmac.new(self.key, body, hashlib.sha256).hexdigest()

    def seal(self, message: dict[str, Any]) -> bytes:
        self.sent += 1
        body = {**message, "from": self.role, "seq": self.sent}
        return json.dumps({**body, "mac": self.tag(_canonical(body))}, separators=(",", ":")).encode() + b"\n"

    def open(self, line: bytes) -> dict[str, Any] | None:
        """The message of a line the peer sealed, or None (forged, reflected, replayed or not a message)."""
        try:
            data = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        mac = data.pop("mac", None)
        if not isinstance(mac, str) or not hmac.compare_digest(mac, self.tag(_canonical(data))):
            return None
        seq = data.pop("seq", None)
        if data.pop("from", None) != self.peer or not isinstance(seq, int) or seq <= self.last_seen:
            return None
        message = checked(data)
        if message is not None:
            self.last_seen = seq
        return message


def checked(message: object) -> dict[str, Any] | None:
    """A message of the protocol (a known type and a move count), or None."""
    if not isinstance(message, dict) or message.get("type") not in TYPES:
        return None
    k = message.get("k")
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        return None
    return message


def is_denied(line: bytes) -> bool:
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("type") == "denied" and "mac" not in data


def encode_denied() -> bytes:
    return json.dumps(DENIED).encode() + b"\n"


# ---------------------------------------------------------------------- keys and moves


def position_key(p: Position, mirror: bool = False) -> str:
    """A short key of the numbered position (spots as numbered in the game), or of its mirror image."""
    regions = p.regions if not mirror else tuple(tuple(b[::-1] for b in r) for r in p.regions)
    rotations = tuple(
        sorted(
            tuple(sorted(min((b[i:] + b[:i] for i in range(len(b))), default=()) for b in r)) for r in regions
        )
    )
    text = repr((rotations, p.lives, p.heaps))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def same_position(key: str, p: Position) -> bool:
    return key in (position_key(p), position_key(p, mirror=True))


def move_message(before: Position, m: Move) -> dict[str, Any]:
    """A move as it travels: end spots, spots enclosed on one side, keys of the result (1-based spots)."""
    after = apply_move(before, m, check=False)
    shape = move_shape(before, m)
    enclosed = sorted(s + 1 for s in shape.side_a.spots) if shape.side_a is not None else []
    return {
        "ends": [shape.x + 1, shape.y + 1],
        "enclosed": enclosed,
        "key": position_key(after),
        "mirror": position_key(after, mirror=True),
    }


def find_move(p: Position, data: dict[str, Any]) -> Move | None:
    """The legal move of ``p`` with these end spots and enclosed spots that gives the position keyed."""
    try:
        a, b = (int(s) - 1 for s in data["ends"])
        enclosed = frozenset(int(s) - 1 for s in data.get("enclosed", []))
        keys = {str(data["key"]), str(data.get("mirror", data["key"]))}
    except (KeyError, TypeError, ValueError):
        return None
    n = len(p.lives)
    if not (0 <= a < n and 0 <= b < n) or any(not 0 <= s < n for s in enclosed):
        return None
    try:
        fits = moves_from_words(p, MoveWords(a, b, enclosed, None))
    except SproutsError:
        return None
    for m in fits:
        after = apply_move(p, m, check=False)
        if position_key(after) in keys or position_key(after, mirror=True) in keys:
            return m
    return None


def start_message(game: Game, game_id: str) -> dict[str, Any]:
    p = game.start
    return {
        "type": "game",
        "k": 0,
        "id": game_id,
        "rules": game.rules.value,
        "first": game.first_to_move,
        "numbered": numbered_text(p),
        "lives": lives_text(p),
    }


def game_from_message(message: dict[str, Any]) -> tuple[Game, str]:
    try:
        start = parse_numbered(str(message["numbered"]), parse_lives(str(message["lives"])))
        rules = Rules(str(message["rules"]))
        first = int(message.get("first", 1))
    except (KeyError, TypeError, ValueError, SproutsError) as e:
        raise NetError(f"the host's game cannot be read: {e}") from None
    if rules.players != 2 or first not in (1, 2):
        raise NetError("network play is for two players")
    return Game(start, rules, first_to_move=first), str(message["id"])


__all__ = [
    "MAX_LINE",
    "PROTOCOL",
    "TYPES",
    "Sealer",
    "check_bind",
    "checked",
    "code_address",
    "encode_denied",
    "find_move",
    "game_from_message",
    "is_denied",
    "move_message",
    "new_secret",
    "parse_code",
    "position_key",
    "room_code",
    "same_position",
    "start_message",
]
