"""The error raised when no usable Dask cluster can be started or reached."""

from __future__ import annotations

from ..errors import DGraphError


class ClusterError(DGraphError, RuntimeError):
    """A Dask cluster could not be started, reached, or has no workers.

    The message names the target (``'cuda'``, ``'tcp://host:8786'``, ...) and
    says what to do: which package to install, which command starts a
    scheduler or a worker.
    """
