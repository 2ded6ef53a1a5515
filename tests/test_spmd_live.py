"""spmd runs seen while and after they go: superstep records reach on_step during the run (each
once, in order), and every shard's run shows in the Dask dashboard's task stream.  Waits are on
events (a file the client writes, the scheduler's event log), never on time."""

import os
import sys
import time

import cloudpickle
import numpy as np
import pytest

import dgraph
from dgraph.algorithms.bfs import BFS
from dgraph.engine.run import run_program

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module

#: the most a shard waits for the client's sign before it gives up (a bound on a hang, not a timing)
WAIT_S = 60.0


class _WaitsForTheClient(BFS):
    """A BFS whose partition 0 waits, before its superstep 2, until ``flag`` exists: the test's
    on_step writes it on seeing superstep 1's record.  A run that passed its records on only at
    its end would never get there (partition 0 gives up after WAIT_S and the run fails)."""

    def __init__(self, source, flag):
        super().__init__(source)
        self.flag = flag

    def superstep(self, shard, st, ctx):
        if shard.part == 0 and ctx.step == 2:
            deadline = time.monotonic() + WAIT_S
            while not os.path.exists(self.flag):
                if time.monotonic() > deadline:
                    raise RuntimeError("superstep 1's record never reached the client during the run")
                time.sleep(0.005)
        return super().superstep(shard, st, ctx)


@pytest.mark.parametrize("launch", ["lane", "direct", "task"])
def test_records_reach_on_step_while_the_run_goes(client, tmp_path, monkeypatch, launch):
    monkeypatch.setattr(dgraph.config, "spmd_launch", launch)
    G = dgraph.generate("grid", rows=2, cols=12)
    PG = G.partition(2, client=client)
    flag = tmp_path / "seen-superstep-1"
    seen = []

    def on_step(rec):
        seen.append(rec)
        if rec["superstep"] == 1:
            flag.write_text("")

    r = run_program(lambda ids: _WaitsForTheClient(0, str(flag)), PG, executor="spmd", on_step=on_step)
    assert flag.exists()
    assert [rec["superstep"] for rec in seen] == list(range(r.supersteps))  # each once, in order
    assert all(rec["transport"] == "dask" for rec in seen)
    assert [rec["frontier"] for rec in seen] == list(r.stats["frontier"])
    np.testing.assert_array_equal(r.depth, dgraph.bfs(G, 0).depth)  # the same answer as without a watcher


def test_an_on_step_that_raises_stops_the_run_everywhere(client):
    PG = dgraph.generate("grid", rows=1, cols=200).partition(2, client=client)

    def on_step(rec):
        if rec["superstep"] == 3:
            raise KeyboardInterrupt  # as a user stopping a long run from its progress callback

    with pytest.raises(KeyboardInterrupt):
        dgraph.bfs(PG, 0, executor="spmd", on_step=on_step)
    assert client.run(_spmd_threads_after, WAIT_S) == {w: [] for w in client.ncores()}
    assert client.run(lambda dask_worker: len(getattr(dask_worker, "_dgraph_live", {}))) == \
        {w: 0 for w in client.ncores()}
    assert int(dgraph.bfs(PG, 0).depth.max()) == 199  # and the next run is fine


def _spmd_threads_after(wait_s):
    """The spmd loop threads still alive on this worker after joining each for up to ``wait_s``."""
    import threading

    loops = [t for t in threading.enumerate() if t.name.startswith("dgraph-spmd-")]
    for t in loops:
        t.join(wait_s)
    return [t.name for t in loops if t.is_alive()]


@pytest.mark.parametrize("launch", ["lane", "direct"])
def test_a_direct_run_shows_in_the_task_stream(client, monkeypatch, launch):
    import threading

    from dask.utils import key_split
    from distributed import get_task_stream
    from distributed.diagnostics.task_stream import rectangles

    monkeypatch.setattr(dgraph.config, "spmd_launch", launch)
    PG = dgraph.generate("grid", rows=3, cols=10).partition(2, client=client)
    seen = {e[1]["run"] for e in client.get_events("dgraph-spmd")}

    def this_run():
        """The events of the run below, from the scheduler's event log (a subscription made just
        before the run could reach the scheduler after the workers' events: they do not travel on
        the client's stream, the direct launch does not go through the scheduler)."""
        return [e[1] for e in client.get_events("dgraph-spmd") if e[1]["run"] not in seen]

    with get_task_stream(client) as ts:
        r = dgraph.triangle_count(PG, executor="spmd")  # not replicated: both shards' loops matter
        done = threading.Event()
        deadline = time.monotonic() + WAIT_S
        while len(this_run()) < 2 and time.monotonic() < deadline:
            done.wait(0.05)  # they come on the workers' batched streams, a few ms after the run
        events = this_run()
    assert len(events) == 2, events
    [run] = {e["run"] for e in events}
    assert sorted(e["key"] for e in events) == [f"triangles-spmd-p0-{run}", f"triangles-spmd-p1-{run}"]
    assert {e["worker"] for e in events} == set(PG.workers)
    assert all(e["status"] == "OK" and e["stop"] >= e["start"] for e in events)
    bars = {d["key"]: d for d in ts.data if d["key"].endswith(run)}  # the task stream got them as they came
    assert set(bars) == {e["key"] for e in events}
    assert {key_split(k) for k in bars} == {"triangles-spmd"}
    assert {bars[e["key"]]["worker"] for e in events} == set(PG.workers)
    drawn = rectangles(list(bars.values()))  # what the dashboard draws from them
    assert sorted(drawn["name"]) == ["triangles-spmd", "triangles-spmd"] and min(drawn["duration"]) >= 0
    assert int(r.to_pandas()["triangles"].sum()) == 0  # a grid has no triangles
