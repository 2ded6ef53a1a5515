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


def test_a_bfs_finishes_in_the_task_that_receives_its_last_superstep(client, monkeypatch):
    """BFS sends its final pairs beside a superstep that claimed nothing (``Program.final_ready``):
    at the end every shard did, so the task that finds the search over also finishes the shard (no
    "final" level), and the last superstep's record is still there, as the local run's."""
    from dgraph.engine import tasks

    seen = []
    event = tasks._Inbox.event

    def spy(self, msg):
        seen.append((msg["kind"], msg.get("part", 0)))
        return event(self, msg)

    monkeypatch.setattr(tasks._Inbox, "event", spy)
    G = dgraph.generate("rmat", scale=9, seed=5)
    src = int(np.argmax(np.diff(G.indptr)))
    ref = dgraph.bfs(G, src)
    for p in (2, 3):
        seen.clear()
        r = dgraph.bfs(G.partition(p, client=client), src, executor="tasks")
        assert r.parent.tolist() == ref.parent.tolist() and r.depth.tolist() == ref.depth.tolist()
        assert r.stats["frontier"].tolist() == ref.stats["frontier"].tolist()
        assert ("final", 0) not in seen and ("done", 0) in seen, seen
        assert sorted(q for k, q in seen if k == "made") == list(range(1, p))
    # a long tail on one shard: the other, idle for 200 supersteps, sends its final once, then markers
    src_, dst_ = [np.zeros(3000, dtype=np.int64)], [np.arange(1, 3001)]
    chain = np.arange(3001, 3201)
    src_.append(np.concatenate([[3000], chain[:-1]]))
    dst_.append(chain)
    T = dgraph.from_edges(np.concatenate(src_), np.concatenate(dst_), directed=True)
    seen.clear()
    r = dgraph.bfs(T.partition(2, client=client), 0, executor="tasks", direction="push")
    ref_t = dgraph.bfs(T, 0, direction="push")
    assert r.parent.tolist() == ref_t.parent.tolist() and r.supersteps == ref_t.supersteps > 200
    assert ("final", 0) not in seen
    # a program whose finals never come early keeps its "final" level: SSSP
    seen.clear()
    W = dgraph.generate("rmat", scale=8, seed=5, weighted=True)
    r = dgraph.sssp(W.partition(2, client=client), 0, executor="tasks")
    assert r.distance.tolist() == dgraph.sssp(W, 0).distance.tolist()
    assert ("final", 0) in seen


def _kept(client):
    """(run, part) of every result a worker's result stash keeps (spmd's, where a tasks run that
    finished in a step task leaves its results), over the workers."""
    def look(dask_worker):
        return [tuple(k) for k in getattr(dask_worker, "_dgraph_results", {})]

    return sorted(k for ks in client.run(look).values() for k in ks)


def test_a_result_made_in_a_step_task_waits_in_the_box_until_let_go(client):
    """The task that finishes a BFS keeps its result columns in its worker's result stash, not in its output,
    which the tasks submitted past it fetch (on CuPy shards through host memory); the result reads
    there as often as asked, and is let go with the run's Result."""
    import gc
    import time

    G = dgraph.generate("rmat", scale=10, seed=3)
    src = int(np.argmax(np.diff(G.indptr)))
    ref = dgraph.bfs(G, src)
    PG = G.partition(2, client=client)
    before = _kept(client)
    r = dgraph.bfs(PG, src, executor="tasks")
    kept = [k for k in _kept(client) if k not in before]
    assert sorted(q for _, q in kept) == [0, 1], kept  # both shards finished in their step tasks
    remote = r._remote  # where the run left the result: a read lets its futures go, the next makes them again
    first, second = remote.fetch(), remote.fetch()
    assert all(np.array_equal(first[c], second[c]) for c in ("depth", "parent"))
    assert r.parent.tolist() == ref.parent.tolist() and r.depth.tolist() == ref.depth.tolist()
    del r, remote, first, second
    gc.collect()
    deadline = time.time() + 10
    while any(k in _kept(client) for k in kept) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(k in _kept(client) for k in kept), "a let-go result still in a worker's stash"
    # a result never read goes too
    r = dgraph.bfs(PG, src, executor="tasks")
    unread = [k for k in _kept(client) if k not in before]
    assert len(unread) == 2
    del r
    gc.collect()
    deadline = time.time() + 10
    while any(k in _kept(client) for k in unread) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(k in _kept(client) for k in unread), "an unread result still in a worker's stash"


def test_a_kept_result_outlives_its_result_object_while_a_read_waits(client):
    """A frame made from a tasks result whose Result object is already gone still reads every part,
    however late the part's task runs: the kept columns are let go by a task that runs after the
    reads still wanted (the review of 42042f4 reproduced an error here, with part 1's worker busy,
    when the Result's finalizer dropped them at once), and then they are gone."""
    import gc
    import time

    G = dgraph.generate("rmat", scale=10, seed=3)
    src = int(np.argmax(np.diff(G.indptr)))
    ref = dgraph.bfs(G, src)
    PG = G.partition(2, client=client)
    r = dgraph.bfs(PG, src, executor="tasks")
    kept = _kept(client)
    assert kept, "the run did not end in a step task: nothing kept"
    # part 1's worker busy: part 0's frame is made (read for the frame's types), part 1's waits
    busy = client.submit(time.sleep, 2.0, workers=[list(PG.workers)[1]], pure=False, allow_other_workers=False)
    time.sleep(0.2)
    df = r.to_dask()
    del r
    gc.collect()
    got = df.compute(scheduler=client.get)
    assert sorted(got["depth"].tolist()) == sorted(ref.depth.tolist())
    busy.result()
    del df, got
    deadline = time.time() + 10
    while any(k in _kept(client) for k in kept) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(k in _kept(client) for k in kept), "a read result still in a worker's stash"
