"""What dgraph keeps on a Dask worker between its tasks and requests.

A Dask task has no place of its own that outlives it on its worker.  dgraph hangs its containers
on the worker object instead, each under an attribute of its own, made on first use: a ``tasks``
run's shard states and the steps run ahead (:mod:`dgraph.engine.tasks`), the runs it began or let
go, finished shards' results waiting to be claimed, the spmd mailbox and live records
(:mod:`dgraph.engine.spmd`), the runs a lane reports on (:mod:`dgraph.engine.lane`), the runs that
are over for the pushed copies (:mod:`dgraph.engine.push`).
"""

from __future__ import annotations

import collections

#: a record of recent runs (:func:`recent`) keeps the newest this many
RECENT_KEPT = 4096


def kept(worker, name, factory=dict):
    """The container ``worker`` keeps under attribute ``name``, made by ``factory()`` the first time."""
    box = getattr(worker, name, None)
    if box is None:
        box = factory()
        setattr(worker, name, box)
    return box


def recent(worker, name):
    """One of ``worker``'s records of recent runs (attribute ``name``), the newest RECENT_KEPT kept:
    a worker cannot know when a run's last message to it has come, so it remembers the runs it has
    seen instead, for as long as a late one could matter."""
    return kept(worker, name, collections.OrderedDict)


def note(record, key):
    """Add ``key`` to a record of recent runs (an OrderedDict, :func:`recent`'s or another's; its oldest
    go past RECENT_KEPT); -> whether it is new."""
    if key in record:
        return False
    record[key] = None
    while len(record) > RECENT_KEPT:
        record.popitem(last=False)
    return True
