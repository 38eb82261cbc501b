"""The ``sprouts`` script and ``python -m sprouts_cli``: Ctrl-C and SIGTERM are caught from
the first moment of the package.

Only ``signal`` is imported before the handlers are set: a signal that comes while
the rest loads is noted, and ``procs.console_main`` stops on it cleanly (exit 130 or
143, one line) as soon as it can.
"""

import signal

_STOP = (signal.SIGINT, signal.SIGTERM)


def main() -> None:
    noted: list[int] = []
    old = {}
    for signum in _STOP:
        before = signal.getsignal(signum)
        if before is not signal.SIG_IGN:  # a background job's ignored Ctrl-C stays ignored
            old[signum] = before
            signal.signal(signum, lambda signum, frame: noted.append(signum))
    try:
        from .procs import console_main
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP)  # the hand-over loses no signal
        for signum, before in old.items():
            signal.signal(signum, before)
    console_main(noted[0] if noted else None, unblock=_STOP)
