"""Solving on a cluster: a driver keeps the top of the proof tree and hands out jobs with a budget.

The question at the root is "is this a win?" (normal play: ``land + *k``; misère play:
a position).  As in the master/worker proof-number solvers (SPOTS's master tree handing
out jobs with a budget; Kishimoto and Kotani's parallel df-pn), ``SplitSearch`` keeps
an explicit AND/OR tree of the top questions in the driver and sends its leaves as
*jobs* to workers, each with its own solver and memory (``jobs.JobSolver``):

* a leaf goes out with a node budget; a worker answers it, or says "not within the
  budget" and the driver expands the leaf (its children become leaves: the tree
  grows where the work is), or sends a sum of lands again with twice the budget;
* a worker that comes free when no leaf is waiting splits the most-proving leaf in
  flight (its children go out beside it), so at the start the root goes to one
  worker as a whole and its children to the others, as in the local pool;
* leaves are chosen best first: proof and disproof numbers (negamax form) over the
  driver's tree, the numbers of a leaf priced by its lives;
* every job brings back the facts proved while answering it (nimbers, wins, misère
  trees and outcomes); the driver merges them into its own solver and its SQLite
  table (so a cluster run leaves the same table a local one does) and passes them on
  to the workers with their next jobs;
* when a node is decided, the jobs under it that nothing else needs are stopped
  (their facts still come back).

The answer does not depend on the workers or the budget: every node is decided by a
worker's exact search or by its children, and facts are true whatever their order.

Runners carry the jobs: ``RayRunner`` on Ray actors (a local Ray started for the run,
or a cluster joined by address), ``InlineRunner`` in this process (for tests and the
trace of a run).  Ray is an optional dependency (``pip install "sprouts-cli[cluster]"``).

The modules: ``base`` (the constants, ``ClusterStats`` and the ``Runner`` and
``Rules`` protocols), ``inline`` and ``ray_runner`` (the runners; the latter also
the protocols of the part of Ray it uses), ``rules`` (normal and misère play),
``split`` (``SplitSearch``), ``backend`` (``ClusterBackend``).
"""

from __future__ import annotations

from ...errors import ClusterError
from .backend import ClusterBackend
from .base import (
    DN_PER_LIFE,
    EXCHANGE_SECONDS,
    INSTALL_HINT,
    JOB_NODES,
    MAX_BUDGET_FACTOR,
    STOP_GRACE_SECONDS,
    ClusterStats,
    Rules,
    Runner,
)
from .inline import InlineRunner
from .ray_runner import RayRunner, import_ray
from .rules import MisereRules, NormalRules
from .split import SplitSearch

__all__ = [
    "DN_PER_LIFE",
    "EXCHANGE_SECONDS",
    "INSTALL_HINT",
    "JOB_NODES",
    "MAX_BUDGET_FACTOR",
    "STOP_GRACE_SECONDS",
    "ClusterBackend",
    "ClusterError",
    "ClusterStats",
    "InlineRunner",
    "MisereRules",
    "NormalRules",
    "RayRunner",
    "Rules",
    "Runner",
    "SplitSearch",
    "import_ray",
]
