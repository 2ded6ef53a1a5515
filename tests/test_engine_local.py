"""The local executor's batched supersteps (Program.run_steps): records, limits and progress."""

import numpy as np
import pytest

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


class ColumnCountdown(Countdown):
    """Countdown whose batches come back as columns (a StepBatch), codes for one key."""

    def run_steps(self, shard, st, ctx, limit):
        from dgraph.engine.records import StepBatch

        steps = super().run_steps(shard, st, ctx, limit)
        if not steps:
            return steps
        left = np.array([r["left"] for r, _ in steps], dtype=np.int64)
        return StepBatch({"left": left, "parity": left % 2}, [t for _, t in steps], labels={"parity": ("even", "odd")})


def _rows(left):
    return [{"left": x, "parity": ("even", "odd")[x % 2]} for x in left]


def test_column_batches_read_as_the_same_records():
    (res,), records = run_local(ColumnCountdown(10, 4), [_shard()])
    assert list(res["batches"]) == [4, 4, 2]
    assert len(records) == 10
    want = [dict(superstep=i, **row) for i, row in enumerate(_rows(range(9, -1, -1)))]
    assert [{k: v for k, v in r.items() if k != "time_s"} for r in records] == want
    assert list(records[0]) == ["superstep", "left", "parity", "time_s"]
    assert all(type(r["left"]) is int and type(r["time_s"]) is float and r["time_s"] >= 0.001 for r in records)
    assert records[-1]["left"] == 0 and records[4]["superstep"] == 4 and [r["left"] for r in records[8:]] == [1, 0]
    assert records[3] is records[3]  # a row read twice is one dict
    with pytest.raises(IndexError):
        records[10]


def test_column_batches_with_watchers_and_limits():
    seen = []
    (_,), records = run_local(ColumnCountdown(10, 4), [_shard()], on_step=seen.append)
    assert seen == records and [r["superstep"] for r in seen] == list(range(10))
    assert [r["parity"] for r in seen] == [("even", "odd")[x % 2] for x in range(9, -1, -1)]
    (res,), records = run_local(ColumnCountdown(10, 4), [_shard()], max_supersteps=6)
    assert len(records) == 6 and records[-1]["left"] == 4 and list(res["batches"]) == [4, 2]


def test_records_mix_rows_and_columns_in_a_result():
    from dgraph.engine.records import Records, StepBatch
    from dgraph.engine.result import Result

    recs = Records([{"superstep": 0, "left": 3, "parity": "odd", "time_s": 0.5}])
    recs.add_batch(1, StepBatch({"left": np.array([2, 1]), "parity": np.array([0, 1])}, [0.25, 0.125],
                                labels={"parity": ("even", "odd")}), np.array([0.25, 0.125]))
    recs.append({"superstep": 3, "left": 0, "parity": "even", "time_s": 1.0})
    rows = [{"superstep": 0, "left": 3, "parity": "odd", "time_s": 0.5},
            {"superstep": 1, "left": 2, "parity": "even", "time_s": 0.25},
            {"superstep": 2, "left": 1, "parity": "odd", "time_s": 0.125},
            {"superstep": 3, "left": 0, "parity": "even", "time_s": 1.0}]
    assert recs == rows and len(recs) == 4 and recs[-2] == rows[2] and recs[1:3] == rows[1:3]
    r = Result("countdown", dgraph.from_edges([0], [1]).ids, {}, stats=recs)
    assert r.supersteps == 4 and r.stats_records == rows
    assert r.stats.to_dict("records") == rows
    assert r.stats["left"].dtype == np.int64
