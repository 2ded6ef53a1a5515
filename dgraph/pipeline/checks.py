"""What a pipeline may say: its sections, the algorithms a step can run and the type of every option.

Each check takes ``fail(path, message)``, which raises a PipelineError
naming where the value came from (``file:line:col`` for a YAML file, the
step and key for a Python Pipeline), so both front ends share one set of
rules.  Values are checked for type and range here, before anything runs;
the algorithm functions check the rest when they are called.
"""

from __future__ import annotations

import inspect
import numbers
from pathlib import Path

#: the algorithms a step can run (dgraph function names) and their aliases
ALGORITHMS = ("bfs", "sssp", "pagerank", "wcc", "cc", "cdlp", "lcc", "triangle_count", "bc", "maximal_matching")
SUBGRAPH = "subgraph"
SUBGRAPH_KEYS = ("largest_component_of", "reachable_from", "vertices")
#: which step kinds each subgraph selector reads
SUBGRAPH_NEEDS = {"largest_component_of": ("wcc", "cc"), "reachable_from": ("bfs", "sssp")}

STEP_KEYS = ("name", "run", "graph")
#: graph-level settings, not step options
NOT_STEP_OPTIONS = ("G", "on_step", "backend")

ENUMS = {
    "direction": ("auto", "push", "pull"),
    "variant": ("pull", "push"),
    "executor": ("local", "tasks", "spmd"),
    "transport": ("auto", "dask", "nccl"),
    "kernels": ("fused", "generic"),
}
OUTPUT_FORMATS = ("csv", "parquet", "npz", "graphalytics")
CLUSTER_KINDS = ("local", "cuda", "address")
PROTOCOLS = ("tcp", "ucx")
PARTITION_METHODS = ("range", "hash", "metis")
BACKENDS = ("numpy", "cupy")
READ_FORMATS = ("edgelist", "csv", "mtx", "graphalytics", "parquet")


def algorithm_function(run):
    import dgraph  # noqa: PLC0415

    return getattr(dgraph, run)


def step_options(run):
    """The keyword options of an algorithm step (its function's keywords, less the graph-level ones)."""
    sig = inspect.signature(algorithm_function(run))
    return tuple(n for n in sig.parameters if n not in NOT_STEP_OPTIONS)


# -- value checks ------------------------------------------------------------------------------

def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_vertex(v):
    return _is_int(v) or isinstance(v, str)


def _type_name(v):
    return "null" if v is None else {"bool": "true/false", "str": "text", "dict": "a mapping",
                                     "list": "a list"}.get(type(v).__name__, type(v).__name__)


def check_option(fail, path, key, value):
    """Type and range of one algorithm option."""
    def need(ok, what):
        if not ok:
            fail(path, f"expected {what}, got {_type_name(value)} {value!r}")

    if key in ENUMS:
        need(value in ENUMS[key], "one of " + ", ".join(ENUMS[key]))
    elif key == "source":
        need(_is_vertex(value), "a vertex id (an integer or a text label)")
    elif key == "sources":
        need(value is None or _is_vertex(value) or (isinstance(value, list) and value
                                                     and all(_is_vertex(x) for x in value)),
             "null (every vertex), a vertex id, or a non-empty list of vertex ids")
    elif key in ("iterations",):
        need(value is None or (_is_int(value) and value >= 0), "a non-negative integer (or null)")
    elif key in ("max_iterations", "batch_size"):
        need(value is None or (_is_int(value) and value >= 1), "a positive integer")
    elif key == "fanout":
        need(value is None or (_is_int(value) and value >= 1), "a positive integer (or null)")
    elif key == "damping":
        need(_is_number(value) and 0 <= value <= 1, "a number in [0, 1]")
    elif key in ("tol", "alpha", "beta"):
        need(_is_number(value) and value > 0, "a number > 0")
    elif key == "delta":
        need(value is None or (_is_number(value) and value > 0), "a number > 0 (.inf for Bellman-Ford), or null")
    elif key in ("normalized", "endpoints"):
        need(isinstance(value, bool), "true or false")
    elif key == "exchange":
        if isinstance(value, dict):
            extra = sorted(set(value) - {"kind", "fanout"})
            if extra:
                fail(path + (extra[0],), "unknown key; allowed: kind, fanout")
            if "kind" not in value:
                fail(path, "a mapping needs kind: butterfly or all-to-all")
        else:
            need(isinstance(value, str), "butterfly, butterfly:<fanout>, all-to-all, or {kind: ..., fanout: ...}")
    elif key == "left":
        need(value is None or (isinstance(value, list) and all(_is_vertex(x) for x in value)),
             "a list of vertex ids (the left side), or null (2-colour the graph)")
    elif key == "seed":
        need(_is_int(value) and value >= 0, "a non-negative integer")
    elif key == "hops":
        need(value == "auto" or (_is_int(value) and 1 <= value <= 16), "an integer 1..16 or auto")
    elif key == "personalization":
        need(isinstance(value, dict) and value and all(_is_vertex(k) for k in value)
             and all(_is_number(x) for x in value.values()),
             "a mapping {vertex: weight}")


def check_mapping(fail, path, value, allowed, what):
    if not isinstance(value, dict):
        fail(path, f"expected a mapping ({what}), got {_type_name(value)}")
    for key in value:
        if key not in allowed:
            fail(path + (key,), f"unknown key in {what}; allowed: {', '.join(allowed)}")


def check_choice(fail, path, value, choices):
    if value not in choices:
        fail(path, f"expected one of {', '.join(choices)}, got {value!r}")


def check_int(fail, path, value, low=None):
    if not _is_int(value) or (low is not None and value < low):
        fail(path, f"expected an integer{f' >= {low}' if low is not None else ''}, got {_type_name(value)} {value!r}")


def check_bool(fail, path, value):
    if not isinstance(value, bool):
        fail(path, f"expected true or false, got {_type_name(value)} {value!r}")


def check_text(fail, path, value, what="text"):
    if not isinstance(value, str) or not value:
        fail(path, f"expected {what}, got {_type_name(value)} {value!r}")


# -- sections --------------------------------------------------------------------------------

def check_cluster(fail, path, cluster):
    check_mapping(fail, path, cluster, ("kind", "workers", "protocol", "address", "threads_per_worker"),
                  "cluster")
    kind = cluster.get("kind", "local")
    check_choice(fail, path + ("kind",), kind, CLUSTER_KINDS)
    if "workers" in cluster:
        check_int(fail, path + ("workers",), cluster["workers"], 1)
    if "threads_per_worker" in cluster:
        check_int(fail, path + ("threads_per_worker",), cluster["threads_per_worker"], 1)
    if "protocol" in cluster:
        check_choice(fail, path + ("protocol",), cluster["protocol"], PROTOCOLS)
    if kind == "address":
        if "address" not in cluster:
            fail(path, "kind: address needs address: tcp://host:8786 (or a scheduler file)")
        check_text(fail, path + ("address",), cluster["address"], "a scheduler address")
    elif "address" in cluster:
        fail(path + ("address",), "only with kind: address")


def check_graph(fail, path, graph, base_dir):
    check_mapping(fail, path, graph, ("source", "directed", "weighted", "backend", "name"), "graph")
    if "source" not in graph:
        fail(path, "needs source: {generate: rmat, scale: 16} or {path: FILE}")
    for key in ("directed", "weighted"):
        if key in graph and graph[key] is not None:
            check_bool(fail, path + (key,), graph[key])
    if "backend" in graph:
        check_choice(fail, path + ("backend",), graph["backend"], BACKENDS)
    src = graph["source"]
    spath = path + ("source",)
    if not isinstance(src, dict) or ("generate" in src) == ("path" in src):
        fail(spath, "expected {generate: KIND, ...parameters} or {path: FILE, format: ...}")
    if "generate" in src:
        from ..generators import WEIGHT_PARAMS, _module  # noqa: PLC0415
        from ..errors import InputError  # noqa: PLC0415

        try:
            mod = _module(src["generate"])
        except InputError as e:
            fail(spath + ("generate",), str(e))
        allowed = ("generate", "seed", "self_loops", *mod.PARAMS, *WEIGHT_PARAMS)
        check_mapping(fail, spath, src, allowed, f"a {src['generate']} generator")
        if "seed" in src:
            check_int(fail, spath + ("seed",), src["seed"])
    else:
        check_mapping(fail, spath, src, ("path", "format", "options"), "a file source")
        check_text(fail, spath + ("path",), src["path"], "a file path")
        if "format" in src:
            check_choice(fail, spath + ("format",), src["format"], READ_FORMATS)
        p = resolve(base_dir, src["path"])
        if not p.exists():
            fail(spath + ("path",), f"no such file: {p}")


def check_partition(fail, path, partition):
    check_mapping(fail, path, partition, ("parts", "method", "seed"), "partition")
    if "parts" not in partition:
        fail(path, "needs parts: N")
    check_int(fail, path + ("parts",), partition["parts"], 1)
    if "method" in partition:
        check_choice(fail, path + ("method",), partition["method"], PARTITION_METHODS)
    if "seed" in partition:
        check_int(fail, path + ("seed",), partition["seed"])


def resolve(base_dir, p):
    p = Path(p).expanduser()
    return p if p.is_absolute() or base_dir is None else Path(base_dir) / p
