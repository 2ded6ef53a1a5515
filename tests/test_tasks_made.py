"""The tasks executor's end for a result that is not replicated (11d491d: "made" events).

Shows a hang: a shard whose ``finish`` returns None sends no "made" event, and ``_wait_made``
never looks at the "done" future's status ("finished"), so the client waits forever (28c3010's
``wait_or_lost`` returned at once)."""

import threading

import numpy as np

import dgraph
from dgraph.engine.program import Contribution, Program
from dgraph.engine.tasks import run_tasks
from dgraph.exchange import parse_exchange


class _Two(Program):
    name = "two"
    replicated_result = False

    def __init__(self, empty_part):
        self.empty_part = empty_part

    def init(self, shard):
        return {"left": 2}

    def initial_report(self, shard, st):
        return {"left": 2}

    def converged(self, report, step):
        return report["left"] == 0

    def superstep(self, shard, st, ctx):
        return Contribution({}, {})

    def receive(self, shard, st, contributions, ctx):
        st["left"] -= 1
        return {"left": st["left"]}

    def finish(self, shard, st):
        return None if shard.part == self.empty_part else {"x": np.full(shard.num_rows, shard.part)}


def _ends_within(client, program, seconds):
    PG = dgraph.generate("grid", rows=4, cols=4).partition(2, client=client)
    box = {}

    def go():
        fetch, _ = run_tasks(program, PG, parse_exchange("butterfly", None, p=2))
        box["results"] = [f.result() for f in fetch()]

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(seconds)
    return box


def test_a_part_with_no_columns_does_not_hang_the_run(client):
    assert "results" in _ends_within(client, _Two(empty_part=-1), 30)  # the ordinary case ends
    box = _ends_within(client, _Two(empty_part=1), 15)
    assert "results" in box, "run_tasks still waiting for part 1's 'made' event after 15 s"
