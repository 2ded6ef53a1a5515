"""What dgraph keeps on a Dask worker between its tasks and requests.

A Dask task has no place of its own that outlives it on its worker.  dgraph hangs its containers
on the worker object instead, each under an attribute of its own, made on first use: a ``tasks``
run's shard states and the steps run ahead (:mod:`dgraph.engine.tasks`), the runs it began or let
go, finished shards' results waiting to be claimed, the spmd mailbox and live records
(:mod:`dgraph.engine.spmd`), the runs a lane reports on (:mod:`dgraph.engine.lane`).
"""

from __future__ import annotations


def kept(worker, name, factory=dict):
    """The container ``worker`` keeps under attribute ``name``, made by ``factory()`` the first time."""
    box = getattr(worker, name, None)
    if box is None:
        box = factory()
        setattr(worker, name, box)
    return box
