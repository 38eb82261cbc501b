"""The command line: a thin layer that parses, calls the engine and prints.

Each subcommand lives in its own module, named here as ``"module:attribute"`` and
imported only when the command runs (click's lazy group), so ``sprouts canonical``
never loads the picture layer, the players or the solvers' command modules.  The
help listing imports them all, to show each command's own short help.  People get
rich output; ``--json`` prints one JSON object per input for pipelines.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import click

from .. import __version__

#: Every subcommand: its name, and where it is defined (a module of this package, its attribute).
COMMANDS: dict[str, str] = {
    "canonical": "positions:canonical_command",
    "children": "positions:children_command",
    "moves": "moves:moves_command",
    "move": "moves:move_command",
    "bounds": "bounds:bounds_command",
    "play": "play:play_command",
    "replay-log": "play:replay_log_command",
    "layout": "picture:layout_command",
    "render": "picture:render_command",
    "solve": "solve:solve_command",
    "dots": "dots:dots_group",
    "kernels": "kernels:kernels_command",
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module when the command is asked for.

    Commands may have short aliases (``replay`` for ``replay-log``), shown once in
    the help beside their command.
    """

    aliases: ClassVar[dict[str, str]] = {"replay": "replay-log"}

    def __init__(self, *args: object, lazy: dict[str, str] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # click's own keyword arguments
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        name = self.aliases.get(name, name)
        if name in self.lazy and name not in self.commands:
            self.add_command(self._load(name), name)
        return super().get_command(ctx, name)

    def _load(self, name: str) -> click.Command:
        module, _, attr = self.lazy[name].partition(":")
        cmd = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        if not isinstance(cmd, click.Command):  # pragma: no cover - a wrong entry in COMMANDS
            raise TypeError(f"{self.lazy[name]} is not a click command")
        return cmd

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, cmd, rest = super().resolve_command(ctx, args)
        return (cmd.name if cmd else name), cmd, rest

    def invoke(self, ctx: click.Context) -> Any:
        """Every command stops cleanly on SIGINT (exit 130), SIGTERM (143) and SIGHUP (129), never with a
        traceback or click's ``Aborted!`` (``procs.stops_cleanly``)."""
        from ..procs import Terminated, interrupted_exit_code, stops_cleanly

        with stops_cleanly():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt as e:  # not handled by the command itself
                from .common import err

                err.print("terminated" if isinstance(e, Terminated) else "interrupted", style="red")
                raise SystemExit(interrupted_exit_code(e)) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        labelled = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            also = [a for a, target in self.aliases.items() if target == name]
            labelled.append((f"{name} ({', '.join(also)})" if also else name, cmd))
        if labelled:
            limit = formatter.width - 6 - max(len(label) for label, _ in labelled)
            rows = [(label, cmd.get_short_help_str(limit=limit)) for label, cmd in labelled]
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sprouts")
def main() -> None:
    """Sprouts: solve, analyse, lay out, render and play the game of Sprouts.

    Positions are written in the notation of GLOP and SPOTS (for example '0*5'
    for the 5-spot start, or '0.AB|AB'); see the README.
    """
