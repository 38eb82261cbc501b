"""The command line: a thin layer that parses, calls the engine and prints.

Each subcommand lives in its own module and is registered here.  People get rich
output; ``--json`` prints one JSON object per input for pipelines.
"""

from __future__ import annotations

import click

from .. import __version__
from .bounds import bounds_command
from .picture import layout_command, render_command
from .play import play_command, replay_log_command
from .positions import canonical_command, children_command
from .solve import solve_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sprouts")
def main() -> None:
    """Sprouts: solve, analyse, lay out, render and play the game of Sprouts.

    Positions are written in the notation of GLOP and SPOTS (for example ``0*5``
    for the 5-spot start, or ``0.AB|AB``); see the README.
    """


main.add_command(canonical_command)
main.add_command(children_command)
main.add_command(bounds_command)
main.add_command(play_command)
main.add_command(replay_log_command)
main.add_command(replay_log_command, name="replay")
main.add_command(layout_command)
main.add_command(render_command)
main.add_command(solve_command)
