"""``python -m sprouts_cli`` runs the command line (as the ``sprouts`` script does)."""

from .entry import main

main()
