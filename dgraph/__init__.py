"""dgraph: graph analytics with Gunrock's frontier operators, on numpy or CuPy, scaled out on Dask.

>>> import dgraph
>>> G = dgraph.generate("grid", rows=3, cols=3)
>>> r = dgraph.bfs(G, source=0)
>>> r.depth.tolist()
[0, 1, 2, 1, 2, 3, 2, 3, 4]
>>> r.to_pandas().columns.tolist()
['vertex', 'depth', 'parent']

Heavy modules (numba kernels, CuPy, Dask) are imported on first use, so
``import dgraph`` stays fast.
"""

from __future__ import annotations

import importlib

from .config import config
from .errors import (BackendError, DGraphError, EMVError, ExecutorError, FileFormatError, GraphTooLargeError, InputError,
                     MissingFileError, OutputExistsError, PipelineError, VertexNotFoundError, WorkerLostError,
                     WorkerRestartedError)
from .errors import ConvergenceError
from .graph import Graph, from_edges

__version__ = "0.1.0"

_LAZY = {
    "read": ("dgraph.io", "read"),
    "write": ("dgraph.io", "write_result"),
    "from_scipy": ("dgraph.io", "from_scipy"),
    "from_networkx": ("dgraph.io", "from_networkx"),
    "generate": ("dgraph.generators", "generate"),
    "bfs": ("dgraph.algorithms.bfs", "bfs"),
    "pagerank": ("dgraph.algorithms.pagerank", "pagerank"),
    "hits": ("dgraph.algorithms.hits", "hits"),
    "wcc": ("dgraph.algorithms.wcc", "wcc"),
    "cc": ("dgraph.algorithms.wcc", "wcc"),
    "scc": ("dgraph.algorithms.scc", "scc"),
    "cdlp": ("dgraph.algorithms.cdlp", "cdlp"),
    "louvain": ("dgraph.algorithms.louvain", "louvain"),
    "sssp": ("dgraph.algorithms.sssp", "sssp"),
    "bc": ("dgraph.algorithms.bc", "bc"),
    "betweenness_centrality": ("dgraph.algorithms.bc", "bc"),
    "lcc": ("dgraph.algorithms.lcc", "lcc"),
    "triangle_count": ("dgraph.algorithms.triangles", "triangle_count"),
    "core_number": ("dgraph.algorithms.kcore", "core_number"),
    "k_core": ("dgraph.algorithms.kcore", "k_core"),
    "random_walks": ("dgraph.algorithms.random_walks", "random_walks"),
    "jaccard": ("dgraph.algorithms.jaccard", "jaccard"),
    "Result": ("dgraph.engine.result", "Result"),
    "emv": ("dgraph.emv", None),
    "maximal_matching": ("dgraph.algorithms.matching", "maximal_matching"),
    "Pipeline": ("dgraph.pipeline", "Pipeline"),
    "load_pipeline": ("dgraph.pipeline", "load_pipeline"),
    "PartitionedGraph": ("dgraph.partition.partitioned", "PartitionedGraph"),
    "generate_partitioned": ("dgraph.partition.build", "generate_partitioned"),
    "from_dask_dataframe": ("dgraph.partition.build", "from_dask_dataframe"),
    "read_partitioned": ("dgraph.partition.build", "read_partitioned"),
    "cluster": ("dgraph.cluster", None),
    "partition": ("dgraph.partition", None),
    "exchange": ("dgraph.exchange", None),
    "Frontier": ("dgraph.ops.frontier", "Frontier"),
    "ops": ("dgraph.ops", None),
    "io": ("dgraph.io", None),
    "generators": ("dgraph.generators", None),
    "algorithms": ("dgraph.algorithms", None),
    "engine": ("dgraph.engine", None),
    "backend": ("dgraph.backend", None),
    "show_versions": ("dgraph.system", "show_versions"),
}

__all__ = ["config", "DGraphError", "EMVError", "InputError", "FileFormatError", "MissingFileError", "OutputExistsError",
           "VertexNotFoundError", "PipelineError", "BackendError", "GraphTooLargeError", "ExecutorError", "WorkerLostError", "WorkerRestartedError", "Graph", "from_edges",
           "ConvergenceError",
           *_LAZY]


def __getattr__(name):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'dgraph' has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
