"""The ``sprouts`` script and ``python -m sprouts_cli``: Ctrl-C and SIGTERM are caught from
the first moment of the package.

Only ``signal`` is imported before the handlers are set: a signal that comes while
the rest loads is noted, and the command line stops on it cleanly (exit 130 or 143,
one line) as soon as ``procs`` is loaded.
"""

import signal

_STOP = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())


def main() -> None:
    noted: list[int] = []
    old = {}
    for signum in _STOP:
        before = signal.getsignal(signum)
        if before is not signal.SIG_IGN:  # a background job's ignored Ctrl-C stays ignored
            old[signum] = before
            signal.signal(signum, lambda signum, frame: noted.append(signum))
    try:
        from . import procs
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP)  # the hand-over loses no signal
        for signum, before in old.items():
            signal.signal(signum, before)
    with procs.stops_cleanly():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP)
        try:
            if noted:
                procs.on_stop_signal(noted[0], None)  # raises as the signal would have
            from .cli import main as cli
        except KeyboardInterrupt as e:
            import sys

            sys.stderr.write(("terminated" if isinstance(e, procs.Terminated) else "interrupted") + "\n")
            procs.forget_handled_interrupt()
            raise SystemExit(procs.interrupted_exit_code(e)) from None
        try:
            cli()
        except SystemExit:  # every way out of a command, an interrupt handled among them
            procs.forget_handled_interrupt()
            raise
