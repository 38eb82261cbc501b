"""The command line: a thin layer that parses, calls the engine and prints.

Each subcommand lives in its own module and is registered here.  People get rich
output; ``--json`` prints one JSON object per input for pipelines.
"""

from __future__ import annotations

from typing import ClassVar

import click

from .. import __version__
from .bounds import bounds_command
from .dots import dots_group
from .kernels import kernels_command
from .moves import move_command, moves_command
from .picture import layout_command, render_command
from .play import play_command, replay_log_command
from .positions import canonical_command, children_command
from .solve import solve_command


class AliasedGroup(click.Group):
    """A click group whose commands may have short aliases, shown once in the help."""

    aliases: ClassVar[dict[str, str]] = {"replay": "replay-log"}

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, self.aliases.get(name, name))

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name, cmd, rest = super().resolve_command(ctx, args)
        return (cmd.name if cmd else name), cmd, rest

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


@click.group(cls=AliasedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sprouts")
def main() -> None:
    """Sprouts: solve, analyse, lay out, render and play the game of Sprouts.

    Positions are written in the notation of GLOP and SPOTS (for example ``0*5``
    for the 5-spot start, or ``0.AB|AB``); see the README.
    """


main.add_command(canonical_command)
main.add_command(children_command)
main.add_command(moves_command)
main.add_command(move_command)
main.add_command(bounds_command)
main.add_command(play_command)
main.add_command(replay_log_command)
main.add_command(layout_command)
main.add_command(render_command)
main.add_command(solve_command)
main.add_command(dots_group)
main.add_command(kernels_command)
