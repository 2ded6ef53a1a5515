"""``connect()``: start or reach the Dask cluster that dgraph runs on.

Targets:

- ``None`` or ``"local"``: a ``distributed.LocalCluster`` of worker
  processes on this machine, one thread each.
- ``"cuda"``: a ``dask_cuda.LocalCUDACluster``, one worker process per GPU.
- a scheduler address: ``"tcp://host:8786"``, ``"ucx://host:8786"`` or
  ``"host:8786"`` (``protocol`` is prefixed), for a cluster started by hand
  (see ``cluster/README.md``).
- a scheduler file written by ``dask scheduler --scheduler-file x.json``
  (any existing path ending in ``.json``).
- a ``distributed.Client`` or a deploy ``Cluster`` object made elsewhere.

dask, distributed and dask-cuda are imported on first use only, so importing
this module stays cheap.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading

from ..errors import InputError
from .errors import ClusterError

__all__ = ["connect", "close", "current_client", "dashboard_link"]

README = "cluster/README.md"

_ADDRESS_SCHEMES = ("tcp", "tls", "ucx", "ucxx", "ws", "wss")
_PROTOCOLS = ("tcp", "ucx", "ucxx")
_HOSTPORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})$")
_SCHEMED = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://(?P<rest>.*)$")

_FORMS = ("None or 'local' (a local CPU cluster of worker processes), "
          "'cuda' (a LocalCUDACluster, one worker per GPU), "
          "a scheduler address such as 'tcp://host:8786', 'ucx://host:8786' or 'host:8786', "
          "or a scheduler file such as 'scheduler.json'")


class _State:
    """What connect() made: the current client, and what close() must close."""

    def __init__(self):
        self.lock = threading.RLock()
        self.client = None          # the client connect() returned last
        self.owns_client = False    # connect() created it (close() closes it)
        self.cluster = None         # the cluster connect() started, if any


_STATE = _State()


# --------------------------------------------------------------------- public


def connect(target=None, *, workers=None, threads_per_worker=1, protocol="tcp",
            memory_limit="auto", dashboard=None, timeout=10, tune=True, **cluster_kwargs):
    """Start or reach a Dask cluster and return a ``distributed.Client`` to it.

    Parameters
    ----------
    target : None, str, Client or Cluster
        ``None``/``"local"``: a local cluster of worker processes;
        ``"cuda"``: a ``LocalCUDACluster`` (needs ``pip install 'dgraph-frontier[cuda]'``);
        ``"tcp://host:8786"``, ``"ucx://host:8786"``, ``"host:8786"``: an
        existing scheduler; ``"path/scheduler.json"``: an existing scheduler
        file; a ``Client`` or ``Cluster`` object: use it as is.
    workers : int, optional
        Local: number of worker processes (default: the number of CPU cores,
        at least 2, so that partitioned runs really are partitioned).
        CUDA: limit the number of GPUs used (default: every GPU in
        ``CUDA_VISIBLE_DEVICES``, or every GPU). Address: wait until this
        many workers are connected (default 1).
    threads_per_worker : int
        Threads in each local/CUDA worker process (default 1).
    protocol : "tcp" or "ucx"
        Protocol of a local/CUDA cluster; for ``"host:8786"`` the scheme put
        in front. UCX needs ``pip install 'dgraph-frontier[ucx]'`` (distributed-ucxx).
    memory_limit : str or int
        Per-worker memory limit of a local/CUDA cluster ("auto": share the
        machine's memory among the workers).
    dashboard : bool or None
        The Dask dashboard of a local/CUDA cluster, on port 8787 (a free port
        when 8787 is taken).  None (the default) follows Dask: on when bokeh is
        installed (``pip install 'dgraph-frontier[dashboard]'``), else off;
        True insists (ClusterError without bokeh) and prints its URL on stderr;
        False: none.  :func:`dashboard_link` gives its URL, or None when there
        is none.
    timeout : float
        Seconds to wait for a scheduler to answer, and then for its workers.
    tune : bool
        For a local/CUDA cluster that connect() starts: Dask's settings for
        dgraph's supersteps (:mod:`dgraph.cluster.tuning`: control messages
        batched with no wait instead of every 2-10 ms, work stealing off).  A
        cluster connect() joins is left as it is (``dgraph.cluster.tune(client)``
        tunes its message batching).
    **cluster_kwargs
        Passed on to ``LocalCluster`` / ``LocalCUDACluster`` (for example
        ``rmm_pool_size="8GB"`` or ``silence_logs=False``).

    Returns
    -------
    distributed.Client
        Also kept as the current client (``current_client()``); the cluster
        and client that connect() made are closed by ``close()`` or by the
        next ``connect()``.

    Raises
    ------
    ClusterError
        Unknown target, missing dask-cuda / distributed-ucxx, no scheduler
        answering at the address, or no worker connected to it.
    """
    workers = _check_count("workers", workers, allow_none=True)
    threads_per_worker = _check_count("threads_per_worker", threads_per_worker)
    timeout = _check_timeout(timeout)
    protocol = _check_protocol(protocol)
    kind, where = _parse_target(target, protocol)
    dask_cuda = _preflight(kind, where, protocol)  # missing packages: fail before closing anything

    with _STATE.lock:
        close()
        level = cluster_kwargs.get("silence_logs", logging.WARNING)
        _quiet_distributed(level)
        cluster = None
        if kind in ("local", "cuda"):
            import dask  # noqa: PLC0415

            from . import tuning  # noqa: PLC0415

            with dask.config.set(tuning.CONFIG if tune else {}):
                if kind == "local":
                    cluster, client = _start_local(workers, threads_per_worker, protocol, memory_limit,
                                                   dashboard, cluster_kwargs)
                else:
                    cluster, client = _start_cuda(dask_cuda, workers, threads_per_worker, protocol,
                                                  memory_limit, dashboard, cluster_kwargs)
            owns = True
            if tune:
                tuning.tune(client)
        elif kind == "client":
            client, owns = where, False
        elif kind == "cluster":
            client, owns = _attach(where, timeout, workers), True
        else:  # "address" or "file"
            client, owns = _attach(where, timeout, workers, scheduler_file=(kind == "file")), True
        _STATE.client, _STATE.owns_client, _STATE.cluster = client, owns, cluster
    if dashboard:
        print(f"dgraph: Dask dashboard at {dashboard_link(client) or client.dashboard_link}", file=sys.stderr)
    if cluster is not None and not getattr(_STATE, "atexit", False):
        # close the client before its cluster at exit, so no worker leaves while data is referenced
        import atexit  # noqa: PLC0415

        atexit.register(close)
        _STATE.atexit = True
    return client


def close():
    """Close the client and the cluster that ``connect()`` created.

    A client or cluster the user made and passed to ``connect()`` is left
    open. Safe to call when nothing is connected.
    """
    with _STATE.lock:
        client, owns, cluster = _STATE.client, _STATE.owns_client, _STATE.cluster
        _STATE.client, _STATE.owns_client, _STATE.cluster = None, False, None
    errors = []
    with _quiet_shutdown(client if cluster is not None else None):
        if client is not None and owns:
            try:
                client.close()
            except Exception as exc:  # pragma: no cover - best effort
                errors.append(exc)
        if cluster is not None:
            try:
                cluster.close()
            except Exception as exc:  # pragma: no cover - best effort
                errors.append(exc)
    if errors:  # pragma: no cover
        raise ClusterError(f"closing the Dask cluster failed: {errors[0]}") from errors[0]


def current_client():
    """The client dgraph should use, or ``None``.

    The client returned by the last ``connect()`` if it is still open, else a
    client the user made with ``distributed.Client(...)`` (or the worker's
    client when called inside a task), else ``None``.
    """
    client = _STATE.client
    if client is not None and _is_open(client):
        return client
    if "distributed" not in sys.modules:  # nobody made a client: do not import it
        return None
    from distributed import get_client
    try:
        client = get_client()
    except (ValueError, OSError):
        return None
    return client if _is_open(client) else None


# ------------------------------------------------------------------ starters


def _preflight(kind, where, protocol):
    """Check the optional packages a target needs; returns dask_cuda for 'cuda'."""
    dask_cuda = None
    if kind == "cuda":
        try:
            import dask_cuda
        except ImportError:
            raise ClusterError("connect('cuda') needs dask-cuda, which is not installed: "
                               "pip install 'dgraph-frontier[cuda]'") from None
    if kind in ("local", "cuda") and protocol in ("ucx", "ucxx"):
        _require_ucx(f"connect({kind!r}, protocol={protocol!r})")
    elif kind in ("address", "file"):
        address = _address_from_file(where) if kind == "file" else where
        if isinstance(address, str) and address.split("://", 1)[0] in ("ucx", "ucxx"):
            _require_ucx(f"connect({where!r})")
    return dask_cuda


def _guard_hint(exc):
    """What usually makes Dask's "Nanny failed to start" happen, added to that error."""
    if "nanny failed to start" not in f"{exc} {exc.__cause__ or ''} {exc.__context__ or ''}".lower():
        return ""
    return ('. The usual cause: a script that starts a cluster without the guard '
            '`if __name__ == "__main__":` (each worker process imports the script again, and '
            'starts a cluster of its own); put the code that connects under it')


def _start_local(workers, threads_per_worker, protocol, memory_limit, dashboard, kwargs):
    from distributed import Client, LocalCluster

    n = workers if workers is not None else max(2, _cpu_count())
    options = dict(n_workers=n, threads_per_worker=threads_per_worker, processes=True,
                   protocol=protocol, memory_limit=memory_limit, silence_logs=logging.WARNING)
    options.update(_dashboard_options(dashboard, kwargs))
    options.update(kwargs)
    try:
        cluster = LocalCluster(**options)
    except TypeError:
        raise
    except Exception as exc:
        raise ClusterError(f"could not start a local Dask cluster of {n} worker processes "
                           f"({protocol}): {exc}{_guard_hint(exc)}") from exc
    try:
        client = Client(cluster)
    except Exception as exc:
        cluster.close()
        raise ClusterError(f"started a local Dask cluster but could not connect to it: "
                           f"{exc}") from exc
    return cluster, client


def _start_cuda(dask_cuda, workers, threads_per_worker, protocol, memory_limit, dashboard,
                kwargs):
    from distributed import Client

    # NVLink SHARP (NVLS) multicast must stay off on shared GPU hosts, the
    # project's GPU machines among them (see cluster/README.md): the worker
    # processes inherit this environment. A value already set is kept.
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    options = dict(protocol=protocol, threads_per_worker=threads_per_worker,
                   memory_limit=memory_limit, silence_logs=logging.WARNING)
    options.update(_dashboard_options(dashboard, kwargs))
    if workers is not None:
        options["n_workers"] = workers
    options.update(kwargs)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    gpus = f"CUDA_VISIBLE_DEVICES={visible}" if visible is not None else "all GPUs"
    try:
        cluster = dask_cuda.LocalCUDACluster(**options)
    except TypeError:
        raise
    except Exception as exc:
        want = f"{workers} worker(s)" if workers is not None else "one worker per GPU"
        raise ClusterError(f"could not start a LocalCUDACluster ({want}, {gpus}, {protocol}): "
                           f"{exc}{_guard_hint(exc)}") from exc
    try:
        client = Client(cluster)
    except Exception as exc:
        cluster.close()
        raise ClusterError(f"started a LocalCUDACluster but could not connect to it: "
                           f"{exc}") from exc
    return cluster, client


def _attach(where, timeout, workers, scheduler_file=False):
    """A client to an existing scheduler (address, scheduler file or Cluster)."""
    from distributed import Client

    if scheduler_file:
        address = _address_from_file(where)
        label = f"{address} (from {where})" if address != where else where
    elif isinstance(where, str):
        label, address = where, where
    else:  # a Cluster object
        address = getattr(where, "scheduler_address", None) or repr(where)
        label = address
    try:
        if scheduler_file:
            client = Client(scheduler_file=where, timeout=timeout)
        else:
            client = Client(where, timeout=timeout)
    except (OSError, TimeoutError):
        raise ClusterError(f"no Dask scheduler answered at {label} within {_secs(timeout)}: "
                           f"start one with `dask scheduler` (see {README}) "
                           f"or check the address") from None
    need = workers or 1
    try:
        client.wait_for_workers(need, timeout=timeout)
    except (OSError, TimeoutError):
        have = _n_workers(client)
        addr = getattr(getattr(client, "scheduler", None), "address", None) or address
        client.close()
        raise ClusterError(f"the Dask scheduler at {label} has {have} worker(s) connected, "
                           f"{need} needed, and no more joined within {_secs(timeout)}: start "
                           f"workers with `dask worker {addr} --nthreads 1` (CPU) or "
                           f"`dask cuda worker {addr}` (GPU), see {README}") from None
    return client


# ------------------------------------------------------------------- parsing


def _parse_target(target, protocol):
    """(kind, normalized target): kind in local, cuda, address, file, client, cluster."""
    if target is None:
        return "local", None
    if not isinstance(target, (str, os.PathLike)):
        kind = _object_kind(target)
        if kind is not None:
            return kind, target
        raise ClusterError(f"unknown cluster target {target!r} ({type(target).__name__}): "
                           f"expected {_FORMS}, or a distributed Client or Cluster")
    text = os.fspath(target).strip()
    low = text.lower()
    if low in ("local", "cpu"):
        return "local", None
    if low in ("cuda", "gpu"):
        return "cuda", None
    if low.endswith(".json"):
        if not os.path.isfile(text):
            raise ClusterError(f"scheduler file {text} does not exist: start a scheduler with "
                               f"`dask scheduler --scheduler-file {text}` (see {README})")
        return "file", text
    m = _SCHEMED.match(text)
    if m:
        scheme = m.group("scheme").lower()
        if scheme not in _ADDRESS_SCHEMES or not _HOSTPORT.match(m.group("rest")):
            raise ClusterError(f"unknown cluster target {text!r}: expected {_FORMS}")
        _check_port(text, m.group("rest"))
        return "address", f"{scheme}://{m.group('rest')}"
    if _HOSTPORT.match(text):
        _check_port(text, text)
        return "address", f"{protocol}://{text}"
    raise ClusterError(f"unknown cluster target {text!r}: expected {_FORMS}")


def _check_port(text, hostport):
    port = int(hostport.rsplit(":", 1)[1])
    if not 0 < port < 65536:
        raise ClusterError(f"cluster target {text!r}: port {port} is not in 1..65535")


def _object_kind(obj):
    if "distributed" not in sys.modules:
        return None
    from distributed import Client
    from distributed.deploy import Cluster
    if isinstance(obj, Client):
        return "client"
    if isinstance(obj, Cluster):
        return "cluster"
    return None


def _check_count(name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"connect(): {name} must be a positive integer, got {value!r}")
    return int(value)


def _check_timeout(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise InputError(f"connect(): timeout must be a positive number of seconds, got {value!r}")
    return value


def _check_protocol(value):
    p = str(value).lower().removesuffix("://") if value is not None else "tcp"
    if p not in _PROTOCOLS:
        raise InputError(f"connect(): protocol must be one of {', '.join(_PROTOCOLS)}, "
                         f"got {value!r}")
    return p


# ------------------------------------------------------------------- helpers


def _require_ucx(what):
    # distributed imports distributed_ucxx itself when it is installed, so
    # this import costs nothing more than distributed's own.
    try:
        import distributed_ucxx  # noqa: F401
    except ImportError:
        raise ClusterError(f"{what} needs UCX support for Dask (distributed-ucxx), which is not "
                           f"installed: pip install 'dgraph-frontier[ucx]'") from None


def _dashboard_options(dashboard, kwargs):
    """The scheduler's dashboard, as Dask does it: on where bokeh is installed (``dashboard=None``),
    on port 8787, or on a free port when 8787 is taken (no warning about it); else none.

    Even without a dashboard the scheduler serves HTTP (health, metrics); it
    goes on a random port then, so that no fixed port (8787) is taken.
    """
    has_bokeh = _bokeh_installed()
    if dashboard and not has_bokeh:
        raise ClusterError("connect(dashboard=True): the Dask dashboard needs bokeh, which is not installed: "
                           "pip install 'dgraph-frontier[dashboard]' (or dashboard=None: on only when bokeh is)")
    if dashboard is None:
        dashboard = has_bokeh
    if dashboard:
        return {"dashboard_address": ":8787" if _port_free(8787) else ":0"}
    user = kwargs.pop("scheduler_kwargs", None) or {}
    return {"dashboard_address": ":0", "scheduler_kwargs": {"dashboard": False, **user}}


def _bokeh_installed():
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("bokeh") is not None


def _port_free(port):
    import socket  # noqa: PLC0415

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def dashboard_link(client=None):
    """The URL of the Dask dashboard of ``client``'s scheduler (default: the current client), or
    None when that scheduler serves none.

    ``client.dashboard_link`` gives a URL whether or not a dashboard is there: a scheduler started
    without one (or without bokeh) answers it with 404 or a page asking for bokeh.
    """
    client = client if client is not None else current_client()
    if client is None:
        return None
    try:
        served = client.run_on_scheduler(_serves_dashboard)
    except Exception:  # noqa: BLE001 - a scheduler we cannot ask: say nothing rather than a wrong link
        return None
    return client.dashboard_link if served else None


def _serves_dashboard(dask_scheduler=None):
    """On the scheduler: whether its HTTP server carries Dask's bokeh dashboard (the application
    ``distributed.dashboard.scheduler.connect`` adds: BokehApplication, DaskBokehTornado in newer
    releases)."""
    app = getattr(dask_scheduler, "http_application", None)
    return any("Bokeh" in type(a).__name__ for a in getattr(app, "applications", ()))


@contextlib.contextmanager
def _quiet_shutdown(client):
    """A cluster that connect() started shuts down without chatter: its workers' loggers and this
    process's (where LocalCluster keeps the nannies) are raised to ERROR for the close, so no
    "worker process still alive, killing" warning and no heartbeat traceback from a worker whose
    scheduler left first follows the results.  ``client`` None: nothing to quiet."""
    if client is None:
        yield
        return
    try:
        client.run(_quiet_worker)
    except Exception:  # noqa: BLE001 - workers already gone: nothing left to quiet there
        pass
    names = ("distributed", "dask_cuda", "tornado", "asyncio")
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)


def _quiet_worker():
    for name in ("distributed", "dask_cuda", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _quiet_distributed(level):
    """Raise distributed's loggers in this process to ``level`` (WARNING)."""
    if level is False or level is None:
        return
    if isinstance(level, str):
        level = logging.getLevelName(level.upper())
        if not isinstance(level, int):
            return
    for name in ("distributed", "dask_cuda"):
        log = logging.getLogger(name)
        if log.getEffectiveLevel() < level:
            log.setLevel(level)


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _is_open(client):
    return getattr(client, "status", None) in ("running", "connecting", "newly-created")


def _n_workers(client):
    try:
        return len(client.scheduler_info(n_workers=-1)["workers"])
    except Exception:
        return 0


def _address_from_file(path):
    import json
    try:
        with open(path) as f:
            return json.load(f).get("address", path)
    except (OSError, ValueError, AttributeError):
        return path


def _secs(t):
    return f"{t:g} s"
