"""Partitioning: which worker owns which vertex.

>>> import dgraph
>>> from dgraph.partition import partition_plan
>>> G = dgraph.generate("grid", rows=10, cols=10)
>>> plan = partition_plan(G, 4, method="range")     # or "hash", "metis"
>>> plan.owner_of([0, 17, 42, 99]).tolist()
[0, 0, 1, 3]
>>> plan.balance(G)["vertices"]                     # max / mean vertices per partition
1.04

:func:`partition_plan` makes a :class:`PartitionPlan` (the owner partition of
every vertex); the partitioners live in :mod:`dgraph.partition.methods`, the
plan, its lookups and its ``.npz`` files in :mod:`dgraph.partition.plan`.
"""

from .methods import METHODS, MissingDependencyError, partition_plan
from .plan import PartitionPlan

__all__ = ["METHODS", "MissingDependencyError", "PartitionPlan", "partition_plan"]
