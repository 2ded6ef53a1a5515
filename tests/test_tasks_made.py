"""The tasks executor's end for a result that is not replicated (11d491d: "made" events).

Shows a hang: a shard whose ``finish`` returns None sends no "made" event, and ``_wait_made``
never looks at the "done" future's status ("finished"), so the client waits forever (28c3010's
``wait_or_lost`` returned at once)."""

import threading

import numpy as np

import dgraph
from dgraph.engine.idle import Idle
from dgraph.engine.tasks import run_tasks
from dgraph.exchange import parse_exchange


class _Two(Idle):
    """Two empty supersteps, then each shard's own column; none from ``empty_part``."""

    name = "two"
    replicated_result = False

    def __init__(self, empty_part):
        super().__init__(2)
        self.empty_part = empty_part

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
