"""The local executor's batched supersteps (Program.run_steps): records, limits and progress."""

import numpy as np

import dgraph
from dgraph.engine.local import run_local
from dgraph.engine.program import Contribution, Program
from dgraph.partition.shard import whole_graph_shard


class Countdown(Program):
    """Counts ``start`` down to 0, one per superstep; ``batch`` supersteps at a time through
    run_steps when ``batch`` > 0 (as a GPU program would on one shard)."""

    name = "countdown"
    replicated_result = True

    def __init__(self, start, batch):
        self.start, self.batch = start, batch

    def init(self, shard):
        return {"left": self.start, "batches": []}

    def initial_report(self, shard, st):
        return {"left": st["left"]}

    def converged(self, report, step):
        return report["left"] == 0

    def superstep(self, shard, st, ctx):
        return Contribution({}, {})

    def receive(self, shard, st, contributions, ctx):
        st["left"] -= 1
        return {"left": st["left"]}

    def run_steps(self, shard, st, ctx, limit):
        if not self.batch:
            return None
        k = min(self.batch, limit, st["left"])
        st["batches"].append(k)
        steps = []
        for _ in range(k):
            st["left"] -= 1
            steps.append(({"left": st["left"]}, 0.001))
        return steps

    def finish(self, shard, st):
        return {"batches": np.asarray(st["batches"])}


def _shard():
    return whole_graph_shard(dgraph.from_edges([0], [1]))


def test_batches_give_one_record_per_superstep():
    seen = []
    (res,), records = run_local(Countdown(10, 4), [_shard()], on_step=seen.append)
    assert [r["superstep"] for r in records] == list(range(10))
    assert [r["left"] for r in records] == list(range(9, -1, -1))
    assert seen == records
    assert list(res["batches"]) == [4, 4, 2]
    assert all(r["time_s"] >= 0.001 for r in records)


def test_batches_respect_max_supersteps():
    (res,), records = run_local(Countdown(10, 4), [_shard()], max_supersteps=6)
    assert len(records) == 6 and records[-1]["left"] == 4
    assert list(res["batches"]) == [4, 2]


def test_no_batch_runs_ordinary_supersteps():
    (res,), records = run_local(Countdown(5, 0), [_shard()])
    assert [r["left"] for r in records] == [4, 3, 2, 1, 0]
    assert list(res["batches"]) == []


def test_several_shards_never_batch():
    shards = [_shard(), _shard()]
    results, records = run_local(Countdown(3, 4), shards)
    assert len(records) == 3
    assert all(list(r["batches"]) == [] for r in results)
