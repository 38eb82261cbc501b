"""What a command started by a test sees of the stop signals: as at a terminal.

A child inherits an *ignored* signal as ignored, and the command rightly leaves an
ignored signal alone (a shell's background job ignores Ctrl-C; ``nohup`` ignores
SIGHUP).  pytest's children get SIGINT ignored, and a suite run under ``nohup`` gives
them SIGHUP ignored, so a test that sends one of these must first give it back its
default action in the child.
"""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_signals_as_at_a_terminal() -> None:
    """A ``preexec_fn``: SIGINT, SIGTERM and SIGHUP take their default action in the child."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
