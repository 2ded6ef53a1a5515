"""Partitioning: which worker owns which vertex.

>>> from dgraph.partition import partition_plan
>>> plan = partition_plan(G, 4, method="range")     # or "hash", "metis"
>>> plan.owner_of([0, 17, 42]), plan.balance(G)

:func:`partition_plan` makes a :class:`PartitionPlan` (the owner partition of
every vertex); the partitioners live in :mod:`dgraph.partition.methods`, the
plan, its lookups and its ``.npz`` files in :mod:`dgraph.partition.plan`.
"""

from .methods import METHODS, MissingDependencyError, partition_plan
from .plan import PartitionPlan

__all__ = ["METHODS", "MissingDependencyError", "PartitionPlan", "partition_plan"]
