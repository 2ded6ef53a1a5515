"""How spmd runs start: the lane (the default), the direct launch (client -> worker RPC) and the task launch give
the same answers; results stay on the workers until read and are dropped when never read; a shard
that fails releases its peers at once with an error that names it."""

import gc
import sys
import time

import cloudpickle

import numpy as np
import pytest

import dgraph
from dgraph.algorithms.bfs import BFS
from dgraph.engine import spmd
from dgraph.engine.program import Contribution
from dgraph.errors import ExecutorError, InputError


def _stashed(client):
    return sum(client.run(lambda dask_worker: len(getattr(dask_worker, "_dgraph_results", {}))).values())


@pytest.mark.parametrize("launch", ["lane", "direct", "task"])
def test_every_launch_equal_local(client, launch, monkeypatch):
    monkeypatch.setattr(dgraph.config, "spmd_launch", launch)
    G = dgraph.generate("rmat", scale=8, seed=5, directed=True)
    for p in (2, 3):
        PG = G.partition(p, client=client)
        for algo in (lambda g: dgraph.bfs(g, 0), lambda g: dgraph.wcc(g), lambda g: dgraph.pagerank(g, iterations=5)):
            got, ref = algo(PG).to_pandas(), algo(G).to_pandas()
            np.testing.assert_allclose(got.drop(columns="vertex").to_numpy(float),
                                       ref.drop(columns="vertex").to_numpy(float), rtol=0, atol=1e-12)
    assert _stashed(client) == 0


def test_direct_results_wait_on_the_workers_until_read(client):
    PG = dgraph.generate("grid", rows=5, cols=9).partition(2, client=client)
    r = dgraph.pagerank(PG, executor="spmd")
    assert _stashed(client) == 1          # shard 0's replicated result, not fetched yet
    assert r.pagerank.sum() == pytest.approx(1.0)
    assert _stashed(client) == 0
    r2 = dgraph.bfs(PG, 0, executor="spmd")  # not replicated: one result per shard
    assert _stashed(client) == 2
    del r2
    gc.collect()
    deadline = time.monotonic() + 60  # only stops a hang
    while _stashed(client) and time.monotonic() < deadline:  # the drop is sent asynchronously
        time.sleep(0.05)
    assert _stashed(client) == 0


cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module


class _FailsOnOne(BFS):
    """A BFS whose partition 1 raises in its third superstep."""

    def superstep(self, shard, st, ctx):
        if shard.part == 1 and ctx.step == 2:
            raise RuntimeError("boom in partition 1")
        return super().superstep(shard, st, ctx)


def test_a_failing_shard_releases_its_peers_and_names_itself(client):
    from dgraph.engine.spmd import run_spmd
    from dgraph.exchange import parse_exchange

    G = dgraph.generate("grid", rows=1, cols=60)
    PG = G.partition(3, client=client)
    with pytest.raises(ExecutorError, match=r"partition 1 .*RuntimeError: boom in partition 1"):
        run_spmd(_FailsOnOne(0), PG, parse_exchange("butterfly", 2, p=3), timeout=600.0)
    # the peers were released, not left to wait 600 s for partition 1: their loops have ended
    assert client.run(_spmd_threads_after, 60.0) == {w: [] for w in client.ncores()}
    r = dgraph.bfs(PG, 0)                 # and the next run is fine
    assert int(r.depth.max()) == 59
    assert _stashed(client) == 0


def _spmd_threads_after(wait_s):
    """The spmd loop threads still alive on this worker after joining each for up to ``wait_s``
    (an event wait: a released loop ends at once; the bound only stops a hang)."""
    import threading

    loops = [t for t in threading.enumerate() if t.name.startswith("dgraph-spmd-")]
    for t in loops:
        t.join(wait_s)
    return [t.name for t in loops if t.is_alive()]


def test_unknown_launch_is_a_clear_error(client):
    with pytest.raises(InputError, match=r"dgraph.config.spmd_launch='carrier-pigeon': expected one of 'lane', 'direct'"):
        dgraph.config.spmd_launch = "carrier-pigeon"
    assert dgraph.config.spmd_launch == "lane"
    PG = dgraph.generate("grid", rows=3, cols=3).partition(2, client=client)
    from dgraph.engine.spmd import run_spmd
    from dgraph.exchange import parse_exchange

    with pytest.raises(InputError, match="launch='carrier-pigeon': expected one of 'lane', 'direct', 'task'"):
        run_spmd(None, PG, parse_exchange("butterfly", None, p=2), launch="carrier-pigeon")


def test_contribution_type_survives_the_wire():
    c = spmd._from_wire(spmd._to_wire(Contribution({"v": np.arange(3)}, {"count": 3})))
    assert c.counters == {"count": 3} and list(c.arrays["v"]) == [0, 1, 2]


def test_profiled_direct_run_splits_its_launch(client):
    """Under profile_supersteps a direct run says where its launch went (the client and the workers
    share this host's clock); without it, the phases stay as they were."""
    PG = dgraph.generate("grid", rows=6, cols=7).partition(2, client=client)
    plain = dgraph.bfs(PG, 0, executor="spmd")
    parts = ("launch_request_s", "launch_dispatch_s", "launch_return_s", "launch_reply_s")
    assert not set(parts) & set(plain.phases)
    with dgraph.config.override(profile_supersteps=True):
        r = dgraph.bfs(PG, 0, executor="spmd")
    np.testing.assert_array_equal(r.raw("depth"), plain.raw("depth"))
    for key in parts:
        assert 0.0 <= r.phases[key] < 60.0, (key, r.phases)
    assert sum(r.phases[k] for k in parts) <= r.run_time + 1e-3


def test_runs_over_nccl_on_one_placement_take_turns():
    """Two threads' runs on the same workers over NCCL never overlap (one communicator); other
    placements and other transports do not wait; a run inside another's turn is refused."""
    import threading

    turns = spmd._Turns()
    inside, overlaps, order = [], [], []

    def run(name, placement, transport, hold_s):
        with turns.take(placement, transport):
            if transport == "nccl" and [p for p, t in inside if p == placement]:
                overlaps.append(name)
            inside.append((placement, transport))
            order.append(name)
            time.sleep(hold_s)
            inside.remove((placement, transport))

    a = ["tcp://w0", "tcp://w1"]
    threads = [threading.Thread(target=run, args=(f"a{i}", a, "nccl", 0.05)) for i in range(4)]
    threads += [threading.Thread(target=run, args=("other", ["tcp://w2", "tcp://w3"], "nccl", 0.0)),
                threading.Thread(target=run, args=("dask", a, "dask", 0.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not overlaps and sorted(order) == ["a0", "a1", "a2", "a3", "dask", "other"]
    with turns.take(a, "nccl"):  # a run started from inside another's (its on_step) is refused
        with pytest.raises(ExecutorError, match="inside another"):
            with turns.take(a, "nccl"):
                pass
        with turns.take(a, "dask"):  # not over NCCL: no turn to take
            pass
