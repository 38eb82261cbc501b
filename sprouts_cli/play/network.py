"""Two computers (Alfeld §6): two people, each at a computer of their own, play one game.

One side hosts (``sprouts play --host``): it listens (on the loopback address, or
on ``--bind ADDR``) and prints a room code ``HOST:PORT/SECRET``; the other joins
(``sprouts play --join CODE``).  The host is player 1 and alone starts the game.
Only people play over the network.  The work is cut along its seams:

* ``net_messages``: what travels (room codes with their secret, position keys,
  moves, the start) and the seal on every line (HMAC under the secret's key);
* ``net_protocol``: the protocol as a state machine without I/O (acks, clashes,
  resends, heartbeats, refusals), fed messages and actions, answering with an outbox;
* ``net_tcp``: the TCP transport (sealed lines, rebuilt channels, a peer without the
  secret refused) and the terminal that plays over it;
* ``web_net``: the page's side of the same game (``sprouts play --web --host``).

This module names the pieces other modules use.
"""

from __future__ import annotations

from ..errors import NetError
from .net_messages import (
    PROTOCOL,
    Sealer,
    checked,
    find_move,
    move_message,
    new_secret,
    parse_code,
    position_key,
    room_code,
)
from .net_protocol import Protocol, View
from .net_tcp import HEARTBEAT, SILENCE, WAIT, Channel, TerminalView, play_over_network

__all__ = [
    "HEARTBEAT",
    "PROTOCOL",
    "SILENCE",
    "WAIT",
    "Channel",
    "NetError",
    "Protocol",
    "Sealer",
    "TerminalView",
    "View",
    "checked",
    "find_move",
    "move_message",
    "new_secret",
    "parse_code",
    "play_over_network",
    "position_key",
    "room_code",
]
