"""The bulk-synchronous Program model that every executor runs.

A Program is written once, per shard (see :mod:`dgraph.partition.shard`):

- ``init(shard) -> state``: allocate the shard's arrays.
- ``initial_report(shard, state) -> dict``: the report before superstep 0.
- ``superstep(shard, state, ctx) -> contribution``: run the frontier kernels
  of one superstep; return what the other shards must see (a
  :class:`Contribution`: arrays plus a few counters).
- ``receive(shard, state, contributions, ctx) -> report``: merge the
  contributions of *all* shards (this one's included, in partition order)
  and return the superstep's report: a small dict of numbers that is the
  same on every shard, so global decisions (convergence, push or pull) need
  no extra reduction.
- ``converged(report, step) -> bool`` and ``finish(shard, state) -> {column: array}``
  (the shard's owned vertices, or all vertices when ``replicated_result``).
- optionally ``run_steps(shard, state, ctx, limit) -> [(report, seconds), ...]``:
  several supersteps in one call, for the ``local`` executor on one shard
  (no exchange between them): a GPU runs the levels of a deep graph
  without returning to the host.  None runs the ordinary superstep.  The
  list may be a :class:`dgraph.engine.records.StepBatch` (the reports as
  columns), which the executor keeps as columns until the records are read.
  ``steps_timed``: its batches are timed by the program (see the attribute).
  ``ctx.tick(report, seconds)``, when the executor sets it, is for ``run_steps``
  to call as each superstep of a batch ends, so progress shows while the batch
  runs (the returned list is still the record).
- optionally ``final_contribution(shard, state)`` and ``final_receive(shard,
  state, contributions)``: one more exchange after convergence, for state
  that is cheaper to reconcile once than every superstep (BFS parents).
  ``final_min(shard, state) -> array or None``, where a transport can reduce
  on the devices (NCCL), replaces that exchange: the array becomes the
  element-wise minimum of every shard's (on shard 0 alone for a replicated
  result; otherwise each shard's own vertex range on it where the shards are
  ranges, the whole array on every shard where they are not).

Executors (``local`` here; ``tasks`` and ``spmd`` on Dask) differ only in
where shards live and how contributions travel (an exchange schedule:
butterfly or all-to-all).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StepContext:
    step: int
    report: dict = field(default_factory=dict)
    num_parts: int = 1
    #: set by the local executor when someone watches: ``run_steps`` calls ``tick(report, seconds)``
    #: as each superstep of a batch ends (None: nobody watches)
    tick: object = None
    #: set where the exchange moves :attr:`Contribution.fixed` contributions without first telling
    #: the peers their sizes (NCCL between GPUs): a Program may then keep its counters on the device
    fixed_exchange: bool = False
    #: where the shards can swap a few bytes at once (the spmd executor over NCCL): ``share(data)``
    #: -> every shard's ``data`` (the same length on each), in partition order; a collective that every
    #: shard calls in the same superstep (None elsewhere)
    share: object = None
    #: set where the exchange delivers :attr:`Contribution.routes` (the spmd executor over NCCL): a
    #: Program may then send each shard only what that shard owns
    routed_exchange: bool = False
    #: where the shards are vertex ranges and the devices can swap them (the spmd executor over
    #: NCCL): ``gather_ranges(array)``, a collective, fills every shard's ``array`` (one entry a
    #: vertex) outside its own range with the owners' entries, in place (None elsewhere)
    gather_ranges: object = None


@dataclass
class Contribution:
    """What one shard sends in one superstep: named arrays and small counters.

    ``fixed``: every shard's arrays have the same names, dtypes and lengths in this superstep and
    there are no counters, so a transport that knows (:attr:`StepContext.fixed_exchange`) skips the
    round that tells sizes and the host wait it costs.

    ``routes`` (only where :attr:`StepContext.routed_exchange`): one dict of arrays a shard, the
    same names and dtypes in each; shard j receives ``routes[j]`` (with the counters) instead of
    ``arrays``, which stay here (this shard's own entry of ``routes`` is not sent).  What a shard
    owns goes to it alone, where the other contributions go to every shard.  ``sent``: the bytes
    the contribution's shard sent in a routed exchange (set by the transport, for the records)."""

    arrays: dict
    counters: dict = field(default_factory=dict)
    fixed: bool = False
    routes: list = None
    sent: int = None

    def nbytes(self) -> int:
        return int(sum(getattr(a, "nbytes", 0) for a in self.arrays.values()))


class Program:
    """Base class; see the module docstring for the contract."""

    name = "program"
    #: when True, every shard holds the full result and shard 0's is the answer
    replicated_result = False
    #: when True, ``run_steps`` times its supersteps itself (each ends in a read from the device) and
    #: may leave the next superstep's first kernels queued: the ``local`` executor then does not wait
    #: for the device after a batch (that wait would stall the work queued ahead)
    steps_timed = False
    #: when True, the spmd executor offers ``run_steps`` partitioned shards too (with ``ctx.share``
    #: set): every shard must then return a batch of the same length, or None, in the same superstep
    partitioned_steps = False

    def init(self, shard):
        raise NotImplementedError

    def initial_report(self, shard, state) -> dict:
        return {}

    def superstep(self, shard, state, ctx: StepContext) -> Contribution:
        raise NotImplementedError

    def receive(self, shard, state, contributions, ctx: StepContext) -> dict:
        raise NotImplementedError

    def converged(self, report: dict, step: int) -> bool:
        raise NotImplementedError

    def finish(self, shard, state) -> dict:
        raise NotImplementedError

    def run_steps(self, shard, state, ctx: StepContext, limit: int):
        """Up to ``limit`` supersteps at once on a single shard: a list of (report, seconds) (or a
        :class:`~dgraph.engine.records.StepBatch`), or None."""
        return None

    def final_contribution(self, shard, state):
        """What to exchange once after the last superstep (None: nothing)."""
        return None

    def final_receive(self, shard, state, contributions) -> None:
        pass

    def final_ready(self, shard, state, contribution) -> bool:
        """Whether :meth:`final_contribution` would be final if this superstep were the last, so an
        executor may send it with this superstep's ``contribution`` (``tasks``: when every shard's
        came so and the program then converged, the task that finds it finishes too, one dependent
        task level fewer).  The final contribution may change only in supersteps where this is
        False: a shard that stays ready sends it once, then a marker (:data:`SAME_FINAL`).  It must
        hold on every shard in the superstep after which the program converges, or it is of no
        use.  Default False."""
        return False

    def tally(self, shard, state, result) -> dict:
        """Counts about this shard's part of the finished ``result`` ({name: int}), summed over the
        shards and handed to the client with the run's end (spmd: in each shard's reply; ``tasks``:
        with each shard's "done" or "made" event), kept as the result's ``RemoteColumns.tallies``:
        what a caller would otherwise learn by a task on every worker after the run.  None: {}."""
        return {}


#: in :class:`WithFinal`, "the final contribution this shard sent last" (it has not changed since)
SAME_FINAL = "same-final"


@dataclass
class WithFinal:
    """A superstep's contribution with the shard's final contribution beside it
    (:meth:`Program.final_ready`), or :data:`SAME_FINAL`, travelling through the exchange as one part."""

    step: Contribution
    final: object

    def nbytes(self) -> int:
        return self.step.nbytes() + (self.final.nbytes() if isinstance(self.final, Contribution) else 0)


def sum_counts(counts):
    """Dicts of counts (the shards' :meth:`Program.tally`, a check's counts a shard) summed name by name."""
    out = {}
    for c in counts:
        for k, v in c.items():
            out[k] = out.get(k, 0) + int(v)
    return out
