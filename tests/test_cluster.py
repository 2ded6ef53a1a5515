"""dgraph.cluster: connect() to a local cluster, a (fake) LocalCUDACluster, a
scheduler started by hand in subprocesses; errors for bad targets."""

import os
import subprocess
import sys
import time
import types

import pytest

distributed = pytest.importorskip("distributed")

from dgraph import cluster  # noqa: E402
from dgraph.cluster import ClusterError  # noqa: E402
from dgraph.cluster.connect import _bokeh_installed  # noqa: E402
from dgraph.errors import DGraphError, InputError  # noqa: E402

from procs import ROOT, connect_when_ready, free_port, spawner  # noqa: E402

spawn = pytest.fixture(spawner)


@pytest.fixture(autouse=True)
def _close_after():
    yield
    cluster.close()


def pinned_pids(client):
    """os.getpid() run as a task pinned to each worker: {address: pid}."""
    addresses = cluster.worker_addresses(client)
    futures = [client.submit(os.getpid, workers=[a], allow_other_workers=False, pure=False)
               for a in addresses]
    return dict(zip(addresses, client.gather(futures)))


# ------------------------------------------------------------------ local


def _streams(dask_scheduler=None):
    return {"workers": sorted({bc.interval for bc in dask_scheduler.stream_comms.values()}),
            "clients": sorted({bc.interval for bc in dask_scheduler.client_comms.values()}),
            "stealing": "stealing" in dask_scheduler.extensions}


def test_issue24_2_connect_tunes_the_clusters_it_starts_and_joined_ones_on_request():
    """connect(): every control stream batched with no wait, stealing off; tune=False: Dask's own
    (5 ms to workers, 2 ms to clients, 2 ms from workers, 10 ms from the client); tune(client) on a
    running cluster sets the intervals, and a worker that joins later gets them too."""
    from dgraph.cluster import tuning

    client = cluster.connect(workers=2, tune=False)
    assert client.run_on_scheduler(_streams) == {"workers": [0.005], "clients": [0.002], "stealing": True}
    assert set(client.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {0.002}
    assert cluster.tune(client, 0.001) == 0.001
    assert client.run_on_scheduler(_streams) == {"workers": [0.001], "clients": [0.001], "stealing": True}
    assert set(client.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {0.001}
    assert client.scheduler_comm.interval == 0.001
    with pytest.raises(InputError, match="interval"):
        cluster.tune(client, -1)

    client = cluster.connect(workers=1)
    want = tuning.BATCH_INTERVAL_S
    assert client.run_on_scheduler(_streams) == {"workers": [want], "clients": [want], "stealing": False}
    assert set(client.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {want}
    assert client.scheduler_comm.interval == want
    lc = cluster.connect.__globals__["_STATE"].cluster
    lc.scale(2)  # a worker that joins after tune()
    client.wait_for_workers(2, timeout=60)
    assert client.run_on_scheduler(_streams)["workers"] == [want]
    assert set(client.run(lambda dask_worker: dask_worker.batched_stream.interval).values()) == {want}



def test_local_two_workers_run_tasks_in_two_processes():
    client = cluster.connect(workers=2)
    assert isinstance(client, distributed.Client)
    assert cluster.current_client() is client
    pids = pinned_pids(client)
    assert len(pids) == 2
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    info = client.scheduler_info(n_workers=-1)["workers"]
    assert all(w["nthreads"] == 1 for w in info.values())

    devices = cluster.worker_devices()  # uses the current client
    assert [d.address for d in devices] == cluster.worker_addresses(client)
    assert {d.address: d.pid for d in devices} == pids
    assert all(d.host and (d.gpu is None or isinstance(d.gpu, cluster.GPUInfo)) for d in devices)

    cluster.close()
    assert client.status == "closed"
    assert cluster.current_client() is None
    cluster.close()  # a second close does nothing


def test_connect_again_closes_the_previous_cluster():
    first = cluster.connect("local", workers=1, threads_per_worker=2, dashboard=False)
    assert cluster.dashboard_link(first) is None  # (first.dashboard_link would name a page that is not there)
    (worker,) = first.scheduler_info(n_workers=-1)["workers"].values()
    assert worker["nthreads"] == 2
    second = cluster.connect("LOCAL", workers=1)
    assert first.status == "closed"
    assert cluster.current_client() is second


def test_current_client_falls_back_to_a_client_the_user_made():
    assert cluster.current_client() is None
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as lc, \
            distributed.Client(lc) as user_client:
        assert cluster.current_client() is user_client
        # connect() adopts a client object as is, and close() leaves it open
        assert cluster.connect(user_client) is user_client
        assert cluster.worker_addresses() == list(lc.scheduler_info["workers"])
        cluster.close()
        assert user_client.status == "running"
        # a Cluster object: connect() makes (and close() closes) a client, not the cluster
        client = cluster.connect(lc)
        assert client is not user_client and cluster.current_client() is client
        cluster.close()
        assert client.status == "closed" and lc.status.name == "running"
    assert cluster.current_client() is None


def test_missing_package_does_not_close_the_current_cluster(monkeypatch):
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as lc:
        client = cluster.connect(lc)
        monkeypatch.setitem(sys.modules, "dask_cuda", None)
        with pytest.raises(ClusterError):
            cluster.connect("cuda")
        with pytest.raises(ClusterError):
            cluster.connect("nowhere")
        assert cluster.current_client() is client and client.status == "running"


def test_no_client_is_a_cluster_error():
    with pytest.raises(ClusterError, match="connect"):
        cluster.worker_addresses()


def test_import_does_not_import_distributed():
    code = "import sys, dgraph.cluster; assert 'distributed' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": ROOT})


# ----------------------------------------------------------------- errors


def test_unanswered_address_is_a_quick_cluster_error(monkeypatch):
    given = []
    real = distributed.Client

    def client(*args, **kw):  # Dask gives up after the timeout it is given (not its 30 s default)
        given.append(kw.get("timeout"))
        return real(*args, **kw)

    monkeypatch.setattr(distributed, "Client", client)
    with pytest.raises(ClusterError) as info:
        cluster.connect("tcp://127.0.0.1:1", timeout=2)
    assert given == [2]  # the user's, not a wall-clock bound: a loaded box may take longer to say it
    msg = str(info.value)
    assert "tcp://127.0.0.1:1" in msg and "2 s" in msg and "dask scheduler" in msg
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert isinstance(info.value, DGraphError) and isinstance(info.value, RuntimeError)
    assert cluster.current_client() is None


@pytest.mark.parametrize("target", ["nowhere", "http://host:8786", "tcp://host", "tcp://:8786",
                                    "host:99999", "cuda:0", 42])
def test_unknown_target(target):
    with pytest.raises(ClusterError) as info:
        cluster.connect(target)
    msg = str(info.value)
    assert "'local'" in msg or "port" in msg
    if "port" not in msg:
        assert "'cuda'" in msg and "tcp://host:8786" in msg


def test_missing_scheduler_file(tmp_path):
    with pytest.raises(ClusterError, match="scheduler-file"):
        cluster.connect(str(tmp_path / "scheduler.json"))


@pytest.mark.parametrize("kw", [dict(workers=0), dict(workers=1.5), dict(threads_per_worker=0),
                                dict(timeout=0), dict(protocol="udp")])
def test_bad_arguments(kw):
    with pytest.raises(InputError):
        cluster.connect(**kw)


def test_cuda_without_dask_cuda(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask_cuda", None)  # import dask_cuda -> ImportError
    with pytest.raises(ClusterError, match=r"pip install 'dgraph-frontier\[cuda\]'") as info:
        cluster.connect("cuda")
    assert info.value.__cause__ is None


def test_ucx_without_distributed_ucxx(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed_ucxx", None)
    monkeypatch.setitem(sys.modules, "dask_cuda", types.ModuleType("dask_cuda"))
    for call in (lambda: cluster.connect("cuda", protocol="ucx"),
                 lambda: cluster.connect("local", protocol="ucx"),
                 lambda: cluster.connect("ucx://127.0.0.1:8786", timeout=1),
                 lambda: cluster.connect("127.0.0.1:8786", protocol="ucx", timeout=1)):
        with pytest.raises(ClusterError, match=r"pip install 'dgraph-frontier\[ucx\]'"):
            call()


# ------------------------------------------------- cuda, with a stand-in


def test_cuda_starts_local_cuda_cluster_with_nvls_off(monkeypatch):
    """A fake dask_cuda whose LocalCUDACluster is a 1-process LocalCluster:
    checks what connect('cuda') passes and that workers see NCCL_NVLS_ENABLE=0."""
    seen = {}

    class FakeLocalCUDACluster(distributed.LocalCluster):
        def __init__(self, **kw):
            seen.update(kw)
            kw.pop("n_workers", None)
            kw.pop("rmm_pool_size", None)
            super().__init__(n_workers=1, processes=True, **kw)

    fake = types.ModuleType("dask_cuda")
    fake.LocalCUDACluster = FakeLocalCUDACluster
    monkeypatch.setitem(sys.modules, "dask_cuda", fake)
    monkeypatch.delenv("NCCL_NVLS_ENABLE", raising=False)

    client = cluster.connect("cuda", workers=1, rmm_pool_size=None)
    try:
        assert seen["n_workers"] == 1 and seen["protocol"] == "tcp"
        assert seen["threads_per_worker"] == 1
        # the dashboard as Dask does it: on where bokeh is installed, else off
        assert ("scheduler_kwargs" not in seen) == _bokeh_installed()
        assert "rmm_pool_size" in seen  # extra keywords go to LocalCUDACluster
        env = client.run(lambda: os.environ.get("NCCL_NVLS_ENABLE"))
        assert list(env.values()) == ["0"]
    finally:
        cluster.close()
        os.environ.pop("NCCL_NVLS_ENABLE", None)


def test_cuda_keeps_all_gpus_when_workers_not_given(monkeypatch):
    seen = {}

    class Refusing:
        def __init__(self, **kw):
            seen.update(kw)
            raise ValueError("Can not scale beyond visible devices")

    fake = types.ModuleType("dask_cuda")
    fake.LocalCUDACluster = Refusing
    monkeypatch.setitem(sys.modules, "dask_cuda", fake)
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")  # a value the user set is kept
    with pytest.raises(ClusterError, match="LocalCUDACluster.*scale beyond"):
        cluster.connect("cuda")
    assert "n_workers" not in seen
    assert os.environ["NCCL_NVLS_ENABLE"] == "1"


# ---------------------------------- a scheduler and a worker started by hand


def test_scheduler_and_worker_started_by_hand(spawn):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = spawn("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                      str(port), "--no-dashboard")

    # the scheduler alone: once it answers, connect() says that no worker joined
    deadline = time.monotonic() + 120  # only stops a hang: a scheduler starts in seconds, later on a busy box
    while True:
        with pytest.raises(ClusterError) as info:
            cluster.connect(address, timeout=1)
        if "0 worker(s) connected" in str(info.value) or time.monotonic() > deadline:
            break
    assert "dask worker tcp://127.0.0.1:" in str(info.value), str(info.value)
    assert scheduler.poll() is None

    worker = spawn("distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
                   "--no-dashboard", "--host", "127.0.0.1", "--death-timeout", "60")
    client = connect_when_ready(f"127.0.0.1:{port}", timeout=120)  # "host:port" form; waits for the worker
    assert client.scheduler.address == address
    assert cluster.current_client() is client
    assert client.submit(os.getpid, pure=False).result(timeout=120) == worker.pid
    (device,) = cluster.worker_devices(client)
    assert device.pid == worker.pid

    cluster.close()  # closes our client only: the scheduler and worker keep running
    assert client.status == "closed"
    assert scheduler.poll() is None and worker.poll() is None


# ------------------------------------------- the real LocalCUDACluster (GPU)


def _has(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


@pytest.mark.gpu
@pytest.mark.parametrize("protocol", ["tcp", "ucx"])
def test_cuda_cluster_one_worker_per_gpu(protocol):
    from dgraph.backend import gpu_available

    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    if not _has("dask_cuda"):
        pytest.skip("dask-cuda is not installed")
    if protocol == "ucx" and not _has("distributed_ucxx"):
        pytest.skip("distributed-ucxx is not installed")
    import cupy

    n_gpus = cupy.cuda.runtime.getDeviceCount()
    client = cluster.connect("cuda", protocol=protocol, timeout=60)
    assert client.scheduler.address.startswith(f"{protocol}://")
    devices = cluster.worker_devices(client)
    assert len(devices) == n_gpus
    assert all(d.gpu is not None for d in devices)
    assert len({d.gpu.index for d in devices}) == n_gpus  # one GPU per worker
    assert len({d.pid for d in devices}) == n_gpus
    env = client.run(lambda: os.environ.get("NCCL_NVLS_ENABLE"))
    assert set(env.values()) == {os.environ.get("NCCL_NVLS_ENABLE", "0")}
    cluster.close()
    if n_gpus > 1:  # workers= limits the GPUs used
        client = cluster.connect("cuda", workers=1, protocol=protocol, timeout=60)
        assert len(cluster.worker_addresses(client)) == 1


def test_dashboard_follows_dask_and_its_link_exists_only_with_it():
    """connect() starts the dashboard where bokeh is installed (Dask's convention); dashboard_link
    names it then, and is None when the scheduler serves none."""
    import urllib.request

    pytest.importorskip("bokeh")
    client = cluster.connect(workers=1)
    try:
        link = cluster.dashboard_link(client)
        assert link is not None and link.startswith("http://")
        with urllib.request.urlopen(link, timeout=10) as page:  # the scheduler on this machine
            assert page.status == 200 and b"bokeh" in page.read().lower()
    finally:
        cluster.close()
    client = cluster.connect(workers=1, dashboard=False)
    try:
        assert cluster.dashboard_link(client) is None
    finally:
        cluster.close()


def test_issue24_3_connect_dashboard_true_prints_the_link(capsys):
    pytest.importorskip("bokeh")
    client = cluster.connect(workers=1, dashboard=True)
    try:
        err = capsys.readouterr().err
        assert f"Dask dashboard at {cluster.dashboard_link(client)}" in err
    finally:
        cluster.close()
    cluster.connect(workers=1)  # dashboard=None: no line (the CLI says it in its own)
    assert "Dask dashboard" not in capsys.readouterr().err


def test_dashboard_true_without_bokeh_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "bokeh", None)
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "bokeh" else real(name, *a))
    with pytest.raises(ClusterError, match=r"needs bokeh.*pip install 'dgraph-frontier\[dashboard\]'"):
        cluster.connect(workers=1, dashboard=True)
    assert cluster.current_client() is None


_BUSY_CLOSE = """
import time
from dgraph import cluster

def busy(seconds):
    import time
    t = time.time()
    while time.time() - t < seconds:
        pass

if __name__ == "__main__":
    client = cluster.connect(workers=2, dashboard=False)
    tasks = [client.submit(busy, 30, pure=False) for _ in range(2)]
    time.sleep(1)
    assert not any(f.done() for f in tasks)
    cluster.close()
    time.sleep(0.5)
    print("closed")
"""


@pytest.mark.slow  # the nanny waits 4 s before it kills a busy worker
def test_shutdown_is_quiet(tmp_path):
    """Closing the cluster connect() started says nothing, even with tasks still running on it (Dask
    warns there: each cancelled task, and "Worker process still alive after 4.0 seconds, killing")."""
    script = tmp_path / "busy_close.py"
    script.write_text(_BUSY_CLOSE)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0 and p.stdout.strip() == "closed", p.stderr
    assert "WARNING" not in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_partition_on_a_scheduler_without_workers_says_so():
    """A cluster whose scheduler lists no worker (none started, or all restarting): the build waits
    a moment for one (dgraph.cluster.workers.RECONNECT_WAIT_S), then says what is wrong."""
    from distributed import Client, LocalCluster

    import dgraph
    from dgraph.cluster.workers import worker_addresses

    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as c:
        assert worker_addresses(c, wait=0.2) == []
        with pytest.raises(InputError, match="no workers"):
            dgraph.from_edges([0, 1], [1, 2]).partition(2, client=c)
