"""What dgraph found on this machine: versions, threads, GPUs, NCCL/UCX, the cluster, the settings.

:func:`show_versions` prints it (``dgraph info --system`` on the command line); paste it into
every bug report.  :func:`system_info` returns the same as a dict.  Nothing here starts a cluster
or allocates GPU memory; every probe that fails says why instead of raising.
"""

from __future__ import annotations

import importlib
import os
import platform
import shutil
import subprocess
import sys

#: the packages dgraph needs, then the optional ones (extras: cuda, ucx, metis, dashboard, bench)
REQUIRED = ("numpy", "scipy", "numba", "pandas", "pyarrow", "networkx", "yaml", "matplotlib", "dask",
            "distributed", "tqdm")
OPTIONAL = ("cupy", "dask_cuda", "distributed_ucxx", "ucxx", "pymetis", "bokeh", "igraph", "networkit", "cudf")

#: environment variables dgraph's GPU and cluster stack reads (dgraph's own settings: :mod:`dgraph.config`)
KNOBS = ("NUMBA_NUM_THREADS", "NUMBA_CACHE_DIR", "NUMBA_THREADING_LAYER", "CUDA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE",
         "NCCL_DEBUG", "UCX_TLS", "DASK_SCHEDULER_ADDRESS")

_PIP_NAMES = {"yaml": "pyyaml", "dask_cuda": "dask-cuda", "distributed_ucxx": "distributed-ucxx"}


def _version(name):
    """The installed version of the distribution that provides module ``name`` (read from its
    metadata, nothing imported), or 'not installed'."""
    from importlib import metadata  # noqa: PLC0415

    global _DISTS
    if _DISTS is None:
        _DISTS = metadata.packages_distributions()
    for dist in _DISTS.get(name, ()):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return _imported_version(name)


_DISTS = None


def _imported_version(name):
    """The version of an importable module, 'not installed', or the import's error."""
    try:
        mod = sys.modules.get(name) or importlib.import_module(name)
    except ImportError:
        return "not installed"
    except Exception as exc:  # noqa: BLE001 - installed but broken (a CUDA library missing): say so
        return f"installed, import failed: {type(exc).__name__}: {exc}"
    return str(getattr(mod, "__version__", None) or getattr(mod, "version", "?"))


def _dgraph():
    import dgraph  # noqa: PLC0415

    try:
        from importlib.metadata import version  # noqa: PLC0415

        dist = f"dgraph-frontier {version('dgraph-frontier')}"
    except Exception:  # noqa: BLE001 - running from a checkout that is not installed
        dist = "dgraph-frontier not installed (running from a source tree)"
    return {"version": dgraph.__version__, "location": os.path.dirname(dgraph.__file__), "distribution": dist}


def _numba():
    try:
        import numba  # noqa: PLC0415
    except ImportError:
        return {"installed": False}
    out = {"threads": int(numba.get_num_threads()), "max threads": int(numba.config.NUMBA_NUM_THREADS)}
    try:
        out["threading layer"] = numba.threading_layer()
    except ValueError:  # chosen on the first parallel call
        out["threading layer"] = f"not chosen yet (configured: {numba.config.THREADING_LAYER})"
    # numba caches each kernel in the __pycache__ beside its module (backend/, algorithms/<name>/, ...)
    root = os.path.dirname(os.path.abspath(__file__))
    out["kernel cache"] = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(root, "**", "__pycache__")
    return out


def _gpus():
    """CuPy's view: runtime and driver, every visible GPU, peer access (the NVLink/PCIe topology as
    CUDA sees it) and ``nvidia-smi topo -m`` where nvidia-smi exists."""
    try:
        import cupy as cp  # noqa: PLC0415
    except ImportError:
        return {"cupy": "not installed (pip install 'dgraph-frontier[cuda]')"}
    except Exception as exc:  # noqa: BLE001
        return {"cupy": f"installed, import failed: {exc}"}
    out = {"cupy": cp.__version__}
    try:
        rt = cp.cuda.runtime
        out["cuda runtime"] = rt.runtimeGetVersion()
        out["cuda driver"] = rt.driverGetVersion()
        n = rt.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - no driver, no device
        out["devices"] = f"none usable: {type(exc).__name__}: {exc}"
        return out
    devices = []
    for i in range(n):
        p = rt.getDeviceProperties(i)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        devices.append(f"{i}: {name}, {p['totalGlobalMem'] / 2**30:.1f} GiB, compute {p['major']}.{p['minor']}, "
                       f"{p['multiProcessorCount']} SMs")
    out["devices"] = devices or "none"
    if n > 1:
        out["peer access"] = [" ".join("-" if i == j else ("P" if rt.deviceCanAccessPeer(i, j) else ".")
                                       for j in range(n)) for i in range(n)]
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            topo = subprocess.run([smi, "topo", "-m"], capture_output=True, text=True, timeout=10)
            if topo.returncode == 0:
                out["nvidia-smi topo -m"] = topo.stdout.rstrip().splitlines()
        except (OSError, subprocess.TimeoutExpired) as exc:
            out["nvidia-smi topo -m"] = f"failed: {exc}"
    return out


def _nccl_ucx():
    out = {}
    try:
        from cupy.cuda import nccl  # noqa: PLC0415

        v = nccl.get_version()
        out["nccl"] = f"{v // 10000}.{v // 100 % 100}.{v % 100} (through CuPy)" if v >= 10000 else str(v)
    except ImportError:
        out["nccl"] = "not available (needs CuPy with NCCL)"
    except Exception as exc:  # noqa: BLE001
        out["nccl"] = f"not available: {type(exc).__name__}: {exc}"
    ucx = _version("distributed_ucxx")
    out["ucx"] = (f"distributed-ucxx {ucx}" if ucx[0].isdigit() else
                  f"distributed-ucxx {ucx} (pip install 'dgraph-frontier[ucx]')")
    return out


def _cluster(client=None):
    """The cluster dgraph would use: the current client's, else the scheduler Dask is configured
    with, else a new local one (nothing is started to find out)."""
    from .cluster import current_client  # noqa: PLC0415

    client = client if client is not None else current_client()
    if client is not None:
        from .cluster import dashboard_link  # noqa: PLC0415

        info = {"connected": client.scheduler.address,
                "workers": len(client.scheduler_info(n_workers=-1).get("workers", {})),
                "dashboard": dashboard_link(client) or "none"}
        try:  # every host must run the same dgraph (cluster/README.md)
            found = client.run(_worker_versions)
            info["dgraph on the workers"] = sorted({f"{v[0]} (python {v[1]})" for v in found.values()})
        except Exception as exc:  # noqa: BLE001
            info["dgraph on the workers"] = f"could not ask: {exc}"
        return info
    import dask  # noqa: PLC0415

    address = dask.config.get("scheduler-address", None)
    if address:
        return {"would connect to": f"{address} (the scheduler Dask is configured with; connect('{address}'))"}
    from .cluster.connect import _bokeh_installed, _cpu_count  # noqa: PLC0415

    return {"would connect to": f"a new local cluster: connect() starts {max(2, _cpu_count())} worker processes "
                                f"on this machine",
            "dashboard": "on (bokeh is installed)" if _bokeh_installed() else
                         "off (bokeh is not installed: pip install 'dgraph-frontier[dashboard]')"}


def _worker_versions():
    try:
        import dgraph  # noqa: PLC0415

        mine = dgraph.__version__
    except ImportError:
        mine = "not installed"
    return mine, platform.python_version()


def system_info(client=None) -> dict:
    """Everything :func:`show_versions` prints, as a dict of sections."""
    return {
        "dgraph": _dgraph(),
        "python": {"version": platform.python_version(), "executable": sys.executable,
                   "platform": platform.platform(), "cpus": os.cpu_count()},
        "dependencies": {_PIP_NAMES.get(m, m): _version(m) for m in REQUIRED},
        "optional": {_PIP_NAMES.get(m, m): _version(m) for m in OPTIONAL if m != "cupy"},
        "numba": _numba(),
        "gpus": _gpus(),
        "communication": _nccl_ucx(),
        "cluster": _cluster(client),
        "configuration": _configuration(),
        "environment": {k: os.environ[k] for k in KNOBS if k in os.environ} or "none set",
    }


def _configuration():
    """Every :mod:`dgraph.config` option in effect; a changed one with its default."""
    from .config import config  # noqa: PLC0415

    out = {}
    for name, value, default, _env, _doc in config.describe():
        out[name] = repr(value) if value == default else f"{value!r} (default {default!r})"
    return out


def format_system_info(info) -> str:
    lines = []
    for section, body in info.items():
        lines.append(f"{section}")
        if not isinstance(body, dict):
            lines.append(f"  {body}")
            continue
        width = max((len(k) for k in body), default=0)
        for key, value in body.items():
            if isinstance(value, list):
                lines.append(f"  {key}:")
                lines += [f"    {v}" for v in value]
            else:
                lines.append(f"  {key:<{width}}  {value}")
    return "\n".join(lines)


def show_versions(client=None, file=None):
    """Print what dgraph found: dgraph and dependency versions, numba's threads and kernel cache,
    CuPy and the GPUs it sees (memory, peer access, ``nvidia-smi topo -m``), NCCL and UCX, the
    cluster it would connect to, every ``dgraph.config`` option in effect, and the stack's
    environment variables set.  Paste it into every bug report.

    ``client``: describe that cluster (default: the current one, if any).  Also ``dgraph info --system``.

    Examples
    --------
    >>> import dgraph
    >>> dgraph.show_versions()     # doctest: +ELLIPSIS
    dgraph
      version       ...
    dependencies
      numpy        ...
    numba
      threads ...
    """
    print(format_system_info(system_info(client)), file=file or sys.stdout)


__all__ = ["show_versions", "system_info"]
