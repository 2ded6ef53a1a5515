"""The Dask executors when a worker dies (issue 21 item 14, issue 25 item 8).

A run that loses a worker either finishes with the exact result (``tasks`` retries on rebuilt
shards) or raises WorkerLostError, and the next run on the same PartitionedGraph rebuilds the lost
shards and is exact.  The default tests kill a worker at an event of the run itself (it exits when
its partition reaches a superstep: ``killers.Dying``) or after its process is seen gone; none
waits on a timer.  The slow test kills workers from outside at random moments.

These tests kill workers, so they run on a cluster of their own (not the session's shared one).
"""

import os
import threading
import time
from collections import Counter

import dask
import numpy as np
import pytest
from killers import Failing, FailingOnce, SickProbe, checked, gone, kill, pid_of, run_killing

import dgraph
from dgraph.backend import to_numpy
from dgraph.errors import ExecutorError, WorkerLostError, WorkerRestartedError

ALGORITHMS = {
    "bfs": lambda T, **k: dgraph.bfs(T, 0, **k),
    "sssp": lambda T, **k: dgraph.sssp(T, 0, **k),
    "pagerank": lambda T, **k: dgraph.pagerank(T, iterations=20, **k),
}


@pytest.fixture(scope="module")
def fault_client():
    """Two worker processes under nannies (a dead one is restarted under a new address).

    ``lost-worker-timeout``: a LocalCluster closes the nanny of a worker that has not come back
    15 s after a removal, and with kills every few seconds such a check can land while the newest
    incarnation restarts; then the cluster stays one worker short."""
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1h"}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


@pytest.fixture
def client2(fault_client):
    """The fault cluster with both workers up, before and after the test."""
    fault_client.wait_for_workers(2, timeout=120)
    yield fault_client
    fault_client.wait_for_workers(2, timeout=120)


def _graph(n):
    """A weighted path: n supersteps for BFS and SSSP, long enough to be interrupted."""
    src = np.arange(n - 1)
    return dgraph.from_edges(src, src + 1, weights=1.0 + (src % 3), num_vertices=n)


def _exact(r, ref):
    return all(np.array_equal(to_numpy(r.raw(c)), to_numpy(ref.raw(c))) for c in ref.columns)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_issue21_14_tasks_worker_dies_mid_run_gives_the_exact_result(client2, algorithm, tmp_path, monkeypatch):
    run = ALGORITHMS[algorithm]
    G = _graph(40)
    ref = run(G)
    PG = G.partition(2, client=client2)
    marker = tmp_path / "died"
    r = run_killing(monkeypatch, lambda: run(PG, executor="tasks"), 1, ("superstep", 3), marker)
    assert marker.exists()  # the worker of partition 1 did die, at superstep 3
    assert _exact(r, ref)   # ... and the run retried on a rebuilt shard
    assert _exact(run(PG, executor="tasks"), ref)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_issue21_14_spmd_worker_dies_mid_run_then_retry_is_exact(client2, algorithm, tmp_path, monkeypatch):
    run = ALGORITHMS[algorithm]
    G = _graph(40)
    ref = run(G)
    PG = G.partition(2, client=client2)
    marker = tmp_path / "died"
    with pytest.raises(WorkerLostError, match=r"partitions \[1\]"):
        run_killing(monkeypatch, lambda: run(PG, executor="spmd"), 1, ("superstep", 3), marker)
    assert marker.exists()
    assert _exact(run(PG, executor="spmd"), ref)  # the lost shard is rebuilt first


@pytest.mark.parametrize("at", ["init", "final"])
def test_issue21_14_worker_dies_at_init_or_final(client2, at, tmp_path, monkeypatch):
    G = _graph(30)
    ref = dgraph.sssp(G, 0)
    PG = G.partition(2, client=client2)
    r = run_killing(monkeypatch, lambda: dgraph.sssp(PG, 0, executor="tasks"), 1, at, tmp_path / "tasks")
    assert (tmp_path / "tasks").exists() and _exact(r, ref)
    client2.wait_for_workers(2, timeout=120)
    with pytest.raises(WorkerLostError):
        run_killing(monkeypatch, lambda: dgraph.sssp(PG, 0, executor="spmd"), 0, at, tmp_path / "spmd")
    assert (tmp_path / "spmd").exists()
    assert _exact(dgraph.sssp(PG, 0, executor="spmd"), ref)


@pytest.mark.parametrize("executor", ["spmd", "tasks"])
def test_issue25_8_worker_dead_before_the_run(client2, executor):
    """The worker died between two runs and the client may not know yet; the spmd handlers are
    installed again (the step that raised a raw CommClosedError): WorkerLostError or the exact
    result, then the exact result."""
    G = _graph(30)
    ref = dgraph.bfs(G, 0)
    PG = G.partition(2, client=client2)
    assert _exact(dgraph.bfs(PG, 0, executor=executor), ref)
    assert gone(kill(client2, PG.workers[1]))
    client2._dgraph_spmd_installed = set()
    try:
        r = dgraph.bfs(PG, 0, executor=executor)
    except WorkerLostError:
        r = dgraph.bfs(PG, 0, executor=executor)
    assert _exact(r, ref)


def test_issue21_14_spmd_task_launch_worker_dies_mid_run(client2, tmp_path, monkeypatch):
    """The task launch (a Dask task per shard) notices the loss as the direct launch does."""
    monkeypatch.setattr(dgraph.config, "spmd_launch", "task")
    G = _graph(40)
    ref = dgraph.bfs(G, 0)
    PG = G.partition(2, client=client2)
    with pytest.raises(WorkerLostError):
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="spmd"), 0, ("superstep", 5), tmp_path / "x")
    assert _exact(dgraph.bfs(PG, 0, executor="spmd"), ref)


def test_issue25_8_handlers_on_a_dead_worker_are_worker_lost(client2):
    """Installing the spmd handlers on a worker the scheduler has dropped: WorkerLostError at once
    (a broadcast to its address retried the connection for 30 s, then raised OSError)."""
    from dgraph.engine import spmd

    addresses = sorted(client2.ncores())
    assert gone(kill(client2, addresses[1]))
    client2._dgraph_spmd_installed = set()
    deadline = time.monotonic() + 60  # only stops a hang
    while addresses[1] in client2.ncores() and time.monotonic() < deadline:
        time.sleep(0.01)  # the scheduler drops it as soon as its connection closes (an event)
    with pytest.raises(WorkerLostError, match=r"partitions \[1\]"):
        spmd._install_handlers(client2, addresses)


def test_issue25_8_broken_connection_while_installing_is_worker_lost(monkeypatch):
    """A connection that breaks while the handlers go in, to a worker the scheduler still lists:
    WorkerLostError, not the raw CommClosedError."""
    from distributed.comm.core import CommClosedError

    from dgraph.engine import faults, spmd

    class Client:
        def ncores(self):
            return {"tcp://a:1": 1, "tcp://b:2": 1}

        def run(self, *args, **kwargs):
            raise CommClosedError("in <TCP (closed) ...>: Stream is closed")

    monkeypatch.setattr(faults, "SETTLE_S", 0.05)
    with pytest.raises(WorkerLostError, match="lost the connection to a worker of.*CommClosedError"):
        spmd._install_handlers(Client(), ["tcp://a:1", "tcp://b:2"])


@pytest.mark.parametrize("executor", ["tasks", "spmd"])
def test_issue21_14_graph_built_on_the_workers_is_rebuilt(client2, executor):
    """Shards built on the workers (generate_partitioned): one lost with its worker is built again by
    a surviving worker from the generator (its degrees from a surviving shard), so the run ends
    exact, or raises WorkerLostError and the next run is exact."""
    ref = dgraph.bfs(dgraph.generate("rmat", scale=7, seed=2), 0)
    PG = dgraph.generate_partitioned("rmat", 2, client=client2, scale=7, seed=2)
    assert gone(kill(client2, PG.workers[1]))
    try:
        r = dgraph.bfs(PG, 0, executor=executor)
    except WorkerLostError:
        r = dgraph.bfs(PG, 0, executor=executor)
    assert _exact(r, ref)
    client2.wait_for_workers(2, timeout=120)


# -- issue 20: a failed run that leaves a worker's GPU broken gets that worker restarted ----------

@pytest.mark.parametrize("launch", ["lane", "direct", "task"])
def test_issue20_worker_whose_device_check_fails_is_restarted(client2, launch, tmp_path, monkeypatch):
    """A run fails (partition 1 raises at superstep 2); the device check after it (here a stand-in
    that fails on partition 0's worker as a GPU with a sticky CUDA error would) makes that worker
    restart: the error names it and the CUDA error, its process is a new one, and the next BFS and
    PageRank on the same graph are exact with no user action.  Runs that succeed check nothing."""
    from dgraph.engine import health

    monkeypatch.setattr(dgraph.config, "spmd_launch", launch)
    G = _graph(40)
    ref_bfs, ref_pr = dgraph.bfs(G, 0), dgraph.pagerank(G, iterations=20)
    PG = G.partition(2, client=client2)
    sick = PG.workers[0]
    before = set(client2.run(os.getpid).values())
    log = tmp_path / "checked"
    monkeypatch.setitem(health.PROBES, "numpy", SickProbe(sick, log))
    with pytest.raises(WorkerRestartedError) as err:
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="spmd"), 1, ("superstep", 2), None,
                    wrapper=Failing)
    said = str(err.value)
    assert "partition 1 fails at ('superstep', 2)" in said  # the run's own error comes first
    assert f"worker {sick} (partitions [0]) was restarted" in said
    assert "CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered" in said
    assert sorted(checked(log)) == sorted(set(PG.workers))  # both of the run's workers were checked, once
    after = client2.run(os.getpid)
    assert sick not in after and len(after) == 2  # the sick worker is back under a new address ...
    assert len(set(after.values()) - before) == 1  # ... as a new process; the other one is untouched
    assert _exact(dgraph.bfs(PG, 0, executor="spmd"), ref_bfs)
    assert _exact(dgraph.pagerank(PG, iterations=20, executor="spmd"), ref_pr)
    assert len(set(PG.workers)) == 2  # the rebuilt shard went to the restarted worker, not beside the other
    assert len(checked(log)) == 2  # the runs that succeeded checked no device


def test_tasks_run_that_broke_a_gpu_restarts_it_and_goes_on(client2, tmp_path, monkeypatch):
    """Under ``tasks`` (resilience is its reason to exist): partition 1's task raises once at
    superstep 2, and the device check after it (a stand-in that fails on partition 0's worker, as a
    GPU with a sticky CUDA error would) restarts that worker; the run starts again on rebuilt shards
    and returns the exact answer with no user action.  A failure whose devices all pass is the
    task's own error, with nobody restarted."""
    from dgraph.engine import health

    G = _graph(40)
    ref = dgraph.bfs(G, 0)
    PG = G.partition(2, client=client2)
    placed = list(PG.workers)
    sick = placed[0]
    before = set(client2.run(os.getpid).values())
    log = tmp_path / "checked"
    monkeypatch.setitem(health.PROBES, "numpy", SickProbe(sick, log))
    r = run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="tasks"), 1, ("superstep", 2),
                    tmp_path / "failed", wrapper=FailingOnce)
    assert (tmp_path / "failed").exists()  # it did fail once
    assert _exact(r, ref)
    assert sorted(checked(log)) == sorted(set(placed))  # the failed run's two workers, checked once
    after = client2.run(os.getpid)
    assert sick not in after and len(after) == 2 and len(set(after.values()) - before) == 1
    # a failure on devices that all pass: the task's error, nobody restarted
    monkeypatch.setitem(health.PROBES, "numpy", SickProbe("tcp://nobody:1", log))
    with pytest.raises(RuntimeError, match=r"partition 1 fails at \('superstep', 2\)") as err:
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="tasks"), 1, ("superstep", 2), None,
                    wrapper=Failing)
    assert not isinstance(err.value, WorkerRestartedError)
    assert client2.run(os.getpid) == after


def test_issue20_failed_run_whose_devices_pass_restarts_nobody(client2, tmp_path, monkeypatch):
    """The same failed run with a device check that passes everywhere: the run's own ExecutorError,
    unchanged, and the same worker processes.  Without a check for the shards' backend (numpy:
    the default), nothing is sent at all."""
    from dgraph.engine import health

    G = _graph(30)
    PG = G.partition(2, client=client2)
    before = client2.run(os.getpid)
    log = tmp_path / "checked"
    monkeypatch.setitem(health.PROBES, "numpy", SickProbe("tcp://nobody:1", log))
    with pytest.raises(ExecutorError, match=r"partition 1 fails at \('superstep', 2\)") as err:
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="spmd"), 1, ("superstep", 2), None,
                    wrapper=Failing)
    assert not isinstance(err.value, WorkerRestartedError)
    assert sorted(checked(log)) == sorted(set(PG.workers))
    monkeypatch.delitem(health.PROBES, "numpy")
    with pytest.raises(ExecutorError) as err:
        run_killing(monkeypatch, lambda: dgraph.bfs(PG, 0, executor="spmd"), 1, ("superstep", 2), None,
                    wrapper=Failing)
    assert not isinstance(err.value, WorkerRestartedError)
    assert len(checked(log)) == 2 and client2.run(os.getpid) == before
    assert _exact(dgraph.bfs(PG, 0, executor="spmd"), dgraph.bfs(G, 0))


# -- the kill loop: 10 kills at random moments per algorithm and executor ---------------------------

#: path lengths that make one run last a few seconds on a loaded 2-core box
SLOW_SIZES = {"tasks": 150, "spmd": 1000}


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["tasks", "spmd"])
@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_issue21_14_ten_kills_at_random_moments(client2, algorithm, executor):
    """SIGKILL one of the graph's workers at a random moment of a run (or just after it), 10 times on
    the same PartitionedGraph: every run ends exact, or with WorkerLostError and an exact retry.
    Prints the outcome counts and the seconds from the kill to the error."""
    run = ALGORITHMS[algorithm]
    rng = np.random.default_rng(sum(map(ord, algorithm + executor)))
    G = _graph(SLOW_SIZES[executor])
    ref = run(G)
    PG = G.partition(2, client=client2)
    assert _exact(run(PG, executor=executor), ref)  # the workers warm (imports, compiled kernels)
    t = time.perf_counter()
    assert _exact(run(PG, executor=executor), ref)
    baseline = time.perf_counter() - t
    outcomes, notice = Counter(), []
    for i in range(10):
        client2.wait_for_workers(2, timeout=120)
        PG.ensure_shards(check=True)  # the placement now (a kill after the last run left a shard lost)
        victim = sorted(set(PG.workers))[int(rng.integers(0, len(set(PG.workers))))]
        pid = pid_of(client2, victim)
        killed_at = []

        def killer(delay=float(rng.uniform(0, 1.1 * baseline))):
            time.sleep(delay)  # the random moment (this test's point; nothing asserts on time)
            killed_at.append(time.perf_counter())
            os.kill(pid, 9)

        th = threading.Thread(target=killer)
        th.start()
        try:
            r = run(PG, executor=executor)
            assert _exact(r, ref), f"kill {i}: wrong result"
            outcomes["exact" + (" (killed during the run)" if killed_at else "")] += 1
        except WorkerLostError:
            if killed_at:
                notice.append(time.perf_counter() - killed_at[0])
            th.join()
            assert _exact(run(PG, executor=executor), ref), f"kill {i}: retry wrong"
            outcomes["lost, retry exact"] += 1
        th.join()
        assert gone(pid)
    print(f"\n{algorithm} {executor}: baseline {baseline:.2f} s, {dict(outcomes)}, kill->error "
          f"{', '.join(f'{s:.2f}' for s in notice)} s")
    assert sum(outcomes.values()) == 10


# -- issue 24 item 4: tasks survives SIGKILLs from outside, with no user action ---------------------

def _killing_on_step(client, PG, at, log):
    """An on_step callback that SIGKILLs the worker of a random partition of ``PG`` when the run reports
    superstep ``at[0]`` (then ``at[1]``, ...): the kill is an event of the run, not a timer."""
    pending = list(at)

    def on_step(rec):
        if pending and rec["superstep"] == pending[0]:
            pending.pop(0)
            victim = PG.workers[log["rng"].integers(0, PG.num_parts)] if "rng" in log else PG.workers[-1]
            pid = kill(client, victim)
            log.setdefault("killed", []).append((rec["superstep"], victim, pid))
    return on_step


def test_issue24_4_tasks_sigkill_at_a_reported_superstep_gives_the_exact_result(client2):
    """A worker SIGKILLed from outside when the run reports superstep 5 (the client reads reports as
    they come, so the run is mid-way): the run itself ends exact, with no error and no user action."""
    G = _graph(40)
    ref = dgraph.bfs(G, 0)
    PG = G.partition(2, client=client2)
    log = {}
    r = dgraph.bfs(PG, 0, executor="tasks", on_step=_killing_on_step(client2, PG, [5], log))
    assert [s for s, _, _ in log["killed"]] == [5]
    assert gone(log["killed"][0][2])
    assert _exact(r, ref) and r.supersteps == ref.supersteps


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_issue24_4_tasks_ten_sigkills_at_random_supersteps_no_user_action(client2, algorithm):
    """10 runs of a `tasks` run per algorithm, each with a worker SIGKILLed at a random superstep
    (seeded; in every third run a second kill later in the same run, on the rebuilt shards'
    workers): every run returns the local executor's result exactly, never WorkerLostError."""
    run = ALGORITHMS[algorithm]
    rng = np.random.default_rng(sum(map(ord, algorithm)) + 24)
    G = _graph(150)
    ref = run(G)  # the local executor
    PG = G.partition(2, client=client2)
    assert _exact(run(PG, executor="tasks"), ref)
    last = ref.supersteps - 1
    kills = 0
    for i in range(10):
        client2.wait_for_workers(2, timeout=120)
        PG.ensure_shards(check=True)
        first = int(rng.integers(0, last - 4))
        at = [first] + ([int(rng.integers(first + 1, last - 2))] if i % 3 == 2 else [])
        log = {"rng": rng}
        r = run(PG, executor="tasks", on_step=_killing_on_step(client2, PG, at, log))
        assert [s for s, _, _ in log["killed"]] == at, f"run {i}: kills {log['killed']}, planned {at}"
        assert _exact(r, ref), f"run {i}: killed at {log['killed']}, wrong result"
        kills += len(at)
        for _, _, pid in log["killed"]:
            assert gone(pid)
    print(f"\n{algorithm} tasks: 10 runs, {kills} SIGKILLs at random supersteps, all exact")


def test_gather_that_a_lost_worker_leaves_waiting_is_worker_lost():
    """gather_or_lost: a gather that would wait for ever (a worker died after the futures were done
    and took their data with it) becomes WorkerLostError once the scheduler no longer lists that
    worker; a gather that ends returns its data, however many looks it took."""
    import asyncio

    from dgraph.engine.faults import gather_or_lost

    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()

    class Client:
        asynchronous = False

        def __init__(self, alive, result=None, after=0.0):
            self.alive, self.result, self.after = alive, result, after
            self.loop = type("Loop", (), {"asyncio_loop": loop})()

        async def _gather(self, futures):
            await asyncio.sleep(self.after) if self.result is not None else await asyncio.Event().wait()
            return self.result

        def ncores(self):
            return {a: 1 for a in self.alive}

    try:
        got = gather_or_lost(Client(["a", "b"], [1, 2], after=0.2), [None, None], ["a", "b"], "a read",
                             check_every=0.05)
        assert got == [1, 2]
        with pytest.raises(WorkerLostError, match=r"worker b \(partitions \[1\]\) left the cluster during a read"):
            gather_or_lost(Client(["a"]), [None, None], ["a", "b"], "a read", check_every=0.05)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        runner.join(5)
