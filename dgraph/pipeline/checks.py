"""What a pipeline may say: its sections, the algorithms a step can run and the type of every option.

Each check takes ``fail(path, message)``, which raises a PipelineError
naming where the value came from (``file:line:col`` for a YAML file, the
step and key for a Python Pipeline), so both front ends share one set of
rules.  Values are checked for type and range here, before anything runs
(ranges capped at what a user could mean: MAX_ITERATIONS, MAX_PARTS, ...; a
generated graph's parameters as ``dgraph.generate`` checks them, its size against
this machine's memory, and a source against its vertex ids); step names are
words and output paths stay inside the results folder.  The algorithm functions
check the rest (a file graph's vertex ids) when they are called.
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
import re
from pathlib import Path, PurePosixPath

#: the algorithms a step can run (dgraph function names) and their aliases
ALGORITHMS = ("bfs", "sssp", "pagerank", "wcc", "cc", "cdlp", "lcc", "triangle_count", "bc", "maximal_matching",
              "core_number", "random_walks", "jaccard", "scc", "hits", "louvain")
#: steps whose result is per pair of vertices (written as u, v, value), not per vertex
PAIR_ALGORITHMS = ("jaccard",)
SUBGRAPH = "subgraph"
SUBGRAPH_KEYS = ("largest_component_of", "reachable_from", "vertices", "k_core_of")
#: which step kinds each subgraph selector reads
SUBGRAPH_NEEDS = {"largest_component_of": ("wcc", "cc"), "reachable_from": ("bfs", "sssp"),
                  "k_core_of": ("core_number",)}
#: the keys of ``k_core_of``'s mapping form, ``{step: CORES, k: 3}``
K_CORE_KEYS = ("step", "k")
#: the largest ``k`` a ``k_core_of`` may ask for (the int64 range of the core numbers; a ``k`` above the
#: graph's largest core number gives an empty subgraph, as ``networkx.k_core`` does)
MAX_CORE_K = (1 << 63) - 1

STEP_KEYS = ("name", "run", "graph")
#: graph-level settings, not step options
NOT_STEP_OPTIONS = ("G", "on_step", "backend")

ENUMS = {
    "direction": ("auto", "push", "pull"),
    "variant": ("pull", "push"),
    "executor": ("local", "tasks", "spmd"),
    "transport": ("auto", "dask", "nccl"),
    "kernels": ("fused", "generic"),
    "self_loops": ("raise", "ignore"),
}
OUTPUT_FORMATS = ("csv", "parquet", "npz", "graphalytics")
CLUSTER_KINDS = ("local", "cuda", "address")
PROTOCOLS = ("tcp", "ucx")
PARTITION_METHODS = ("range", "hash", "metis")
BACKENDS = ("numpy", "cupy")
READ_FORMATS = ("edgelist", "csv", "mtx", "graphalytics", "parquet")
EXCHANGE_KINDS = ("butterfly", "all-to-all", "alltoall", "a2a")

#: the word a step's ``source`` (or bc's ``sources``) may be instead of a vertex id: the vertex of the
#: largest out-degree, as ``dgraph bench`` picks it (a source that reaches the graph's big component)
MAX_DEGREE = "max-degree"

# Caps on what a user could mean: past them a value is a typo or an attack, and would run for days
# or allocate more than any machine has, after the plan had said it was fine.
MAX_ITERATIONS = 1_000_000
MAX_PARTS = 4096
MAX_WORKERS = 1024
MAX_THREADS = 1024
MAX_FANOUT = 4096
MAX_BATCH = 1 << 24
MAX_SEED = (1 << 64) - 1
MAX_PAIRS = 1 << 24
MAX_CHUNK = 1 << 30
#: a step name names ``plots/<name>.png`` and a ``--set steps.<name>.key``: a word, not a path
STEP_NAME = re.compile(r"\w[\w-]*")
MAX_STEP_NAME = 64
#: bytes of one part of an output path, and parts of it (the file systems' limit is 255 a part; the
#: atomic writers add ``.<name>.<8 hex>.tmp`` beside it)
MAX_PATH_PART = 200
MAX_PATH_PARTS = 16
#: files a run writes in its results folder itself; an output may not take these names
MANIFEST = "manifest.json"
PLOTS = "plots"
STAGING_PREFIX = ".dgraph-unfinished-"


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


def _is_finite(v):
    return _is_number(v) and math.isfinite(v)


def _int_in(v, lo, hi):
    return _is_int(v) and lo <= v <= hi


def check_vertex(fail, path, value, num_vertices=None, what="a vertex id (an integer or a text label)"):
    """A vertex id; with ``num_vertices`` (a generated graph: ids 0..n-1) an integer below it."""
    if not _is_vertex(value):
        fail(path, f"expected {what}, got {_type_name(value)} {value!r}")
    if num_vertices is not None:
        if isinstance(value, str):
            fail(path, f"this graph's vertex ids are integers 0..{num_vertices - 1:,}, got text {value!r}"
                       f"{f' (or {MAX_DEGREE})' if 'max-degree' in what else ''}")
        if not 0 <= value < num_vertices:
            fail(path, f"vertex {value} is not in the graph: its ids are 0..{num_vertices - 1:,}")


def check_exchange(fail, path, value):
    """``butterfly``, ``butterfly:<fanout>``, ``all-to-all`` or ``{kind: ..., fanout: ...}``."""
    def fanout_ok(f, where):
        if not _int_in(f, 1, MAX_FANOUT):
            fail(where, f"expected a fanout, an integer 1..{MAX_FANOUT}, got {_type_name(f)} {f!r}")

    if isinstance(value, dict):
        extra = sorted((k for k in value if k not in ("kind", "fanout")), key=str)
        if extra:
            fail(path + (extra[0],), "unknown key; allowed: kind, fanout")
        if "kind" not in value:
            fail(path, "a mapping needs kind: butterfly or all-to-all")
        kind, fanout, fpath = value["kind"], value.get("fanout"), path + ("fanout",)
        if not isinstance(kind, str) or kind.strip().lower() not in EXCHANGE_KINDS:
            fail(path + ("kind",), f"expected butterfly or all-to-all, got {_type_name(kind)} {kind!r}")
    elif isinstance(value, str):
        kind, sep, tail = value.strip().partition(":")
        fanout, fpath = None, path
        if kind.strip().lower() not in EXCHANGE_KINDS:
            fail(path, f"expected butterfly, butterfly:<fanout> or all-to-all, got {value!r}")
        if sep:
            if not tail.strip().isdigit() or not tail.strip().isascii():
                fail(path, f"the fanout after ':' is not an integer: {value!r}")
            fanout = int(tail.strip())
    else:
        fail(path, f"expected butterfly, butterfly:<fanout>, all-to-all, or {{kind: ..., fanout: ...}}, "
                   f"got {_type_name(value)} {value!r}")
    if fanout is not None:
        fanout_ok(fanout, fpath)
        if kind.strip().lower() != "butterfly":
            fail(fpath, "a fanout applies only to butterfly; all-to-all has none")


def check_option(fail, path, key, value, num_vertices=None):
    """Type and range of one algorithm option; ``num_vertices`` where the graph's ids are known to be
    0..n-1 (a generated graph), so that a source outside them fails here and not in the run."""
    def need(ok, what):
        if not ok:
            fail(path, f"expected {what}, got {_type_name(value)} {value!r}")

    if key in ENUMS:
        need(isinstance(value, str) and value in ENUMS[key], "one of " + ", ".join(ENUMS[key]))
    elif key == "source":
        if value != MAX_DEGREE:
            check_vertex(fail, path, value, num_vertices, f"a vertex id (an integer or a text label) or {MAX_DEGREE}")
    elif key == "sources":
        if value is None or value == MAX_DEGREE:
            return
        items = value if isinstance(value, list) else [value]
        need(items, f"null (every vertex), {MAX_DEGREE}, a vertex id, or a non-empty list of vertex ids")
        for i, x in enumerate(items):
            check_vertex(fail, path + ((i,) if isinstance(value, list) else ()), x, num_vertices)
    elif key == "iterations":
        need(value is None or _int_in(value, 0, MAX_ITERATIONS), f"an integer 0..{MAX_ITERATIONS:,} (or null)")
    elif key == "max_iterations":
        need(value is None or _int_in(value, 1, MAX_ITERATIONS), f"an integer 1..{MAX_ITERATIONS:,}")
    elif key == "batch_size":
        need(value is None or _int_in(value, 1, MAX_BATCH), f"an integer 1..{MAX_BATCH:,} (or null)")
    elif key == "fanout":
        need(value is None or _int_in(value, 1, MAX_FANOUT), f"an integer 1..{MAX_FANOUT} (or null)")
    elif key == "damping":
        need(_is_finite(value) and 0 <= value <= 1, "a number in [0, 1]")
    elif key in ("tol", "alpha", "beta"):
        need(_is_finite(value) and value > 0, "a finite number > 0")
    elif key == "delta":
        need(value is None or (_is_number(value) and value > 0), "a number > 0 (.inf for Bellman-Ford), or null")
    elif key in ("normalized", "endpoints", "keep_levels"):
        need(isinstance(value, bool), "true or false")
    elif key == "resolution":
        need(_is_finite(value) and value >= 0, "a finite number >= 0")
    elif key == "threshold":
        need(_is_finite(value), "a finite number")
    elif key == "max_level":
        need(value is None or _int_in(value, 1, MAX_ITERATIONS), f"an integer 1..{MAX_ITERATIONS:,} (or null)")
    elif key == "tries":
        need(value is None or _int_in(value, 1, 64), "an integer 1..64 (or null)")
    elif key == "exchange":
        check_exchange(fail, path, value)
    elif key == "left":
        need(value is None or isinstance(value, list), "a list of vertex ids (the left side), or null "
                                                       "(2-colour the graph)")
        for i, x in enumerate(value or ()):
            check_vertex(fail, path + (i,), x, num_vertices)
    elif key == "pairs":
        need(value is None or (isinstance(value, list) and len(value) <= MAX_PAIRS),
             f"a list of [u, v] vertex pairs (at most {MAX_PAIRS:,}), or null (every pair at distance two)")
        for i, pair in enumerate(value or ()):
            if not isinstance(pair, list) or len(pair) != 2:
                fail(path + (i,), f"expected a pair [u, v] of vertex ids, got {_type_name(pair)} {pair!r}")
            for j, x in enumerate(pair):
                check_vertex(fail, path + (i, j), x, num_vertices)
    elif key == "chunk_size":
        need(_int_in(value, 1, MAX_CHUNK), f"an integer 1..{MAX_CHUNK:,} (pairs per chunk)")
    elif key == "seed":
        need(_int_in(value, 0, MAX_SEED), "a non-negative integer below 2**64")
    elif key == "starts":  # random_walks: one walk per entry, or null for one from every vertex
        need(value is None or isinstance(value, list), "a list of vertex ids (one walk each), or null (one walk "
                                                       "from every vertex)")
        for i, x in enumerate(value or ()):
            check_vertex(fail, path + (i,), x, num_vertices)
    elif key == "length":
        need(_int_in(value, 0, MAX_ITERATIONS), f"an integer 0..{MAX_ITERATIONS:,} (steps per walk)")
    elif key == "first_walk":  # random_walks: the number of the first walk
        need(_int_in(value, 0, MAX_SEED >> 1), "a non-negative integer below 2**63 (the number of the first walk)")
    elif key in ("p", "q"):  # random_walks: node2vec's parameters
        need(_is_finite(value) and 0.01 <= value <= 100, "a number in [0.01, 100]")
    elif key == "weighted":
        need(isinstance(value, bool), "true or false")
    elif key == "hops":
        need(value == "auto" or _int_in(value, 1, 16), "an integer 1..16 or auto")
    elif key == "weight":
        need(value is None or isinstance(value, bool) or value == "weight",
             "null or false (every edge 1), or weight or true (the graph's edge weights)")
    elif key in ("personalization", "nstart"):
        need(isinstance(value, dict) and value, "a mapping {vertex: weight}")
        for k, x in value.items():
            check_vertex(fail, path + (k,), k, num_vertices)
            if not (_is_finite(x) and x >= 0):
                fail(path + (k,), f"expected a weight, a finite number >= 0, got {_type_name(x)} {x!r}")
    else:  # an option added to an algorithm without a rule here: refuse what cannot be plain
        need(value is None or isinstance(value, (str, bool, int, float)), "a single value")


def check_results_key(fail, path, value):
    """The file's own ``results:`` folder: relative to the current folder, without ``..`` or ``~`` (a
    pipeline file does not choose to write elsewhere; ``--results DIR`` on the command line may)."""
    check_text(fail, path, value, "a folder path")
    rel = PurePosixPath(value)
    if "\0" in value or "\\" in value or rel.is_absolute() or value.startswith("~") or ".." in rel.parts:
        fail(path, f"{value!r}: the file's results folder is a path relative to the current folder, without "
                   f"'..' or '~' (choose any other folder with --results DIR)")
    if len(rel.parts) > MAX_PATH_PARTS or any(len(q.encode()) > MAX_PATH_PART for q in rel.parts):
        fail(path, f"too long (at most {MAX_PATH_PARTS} folders, {MAX_PATH_PART} bytes a name)")


def check_step_name(fail, path, name):
    """A word (letters, digits, _ and -, at most MAX_STEP_NAME bytes): it names plots/<name>.png."""
    check_text(fail, path, name, "a step name")
    if not STEP_NAME.fullmatch(name) or len(name.encode()) > MAX_STEP_NAME:
        fail(path, f"expected a step name: letters, digits, _ and -, at most {MAX_STEP_NAME} characters "
                   f"(it names plots/<name>.png in the results folder), got {name[:80]!r}"
                   f"{'...' if len(name) > 80 else ''}")


def output_relpath(fail, path, to):
    """``to`` as a checked relative path (a PurePosixPath) inside the results folder.

    Refused: an absolute path, ``~``, a ``..`` part, a backslash or NUL, a part longer than
    MAX_PATH_PART bytes, and the names the run writes itself (manifest.json, plots/, the staging folder)."""
    check_text(fail, path, to, "a file path")
    if "\0" in to or "\\" in to:
        fail(path, f"{to!r}: a NUL or backslash is not allowed in a path (use /)")
    rel = PurePosixPath(to)
    if rel.is_absolute() or to.startswith("~"):
        fail(path, f"{to!r}: an output goes under the results folder; give a path relative to it "
                   f"(choose the folder itself with --results DIR)")
    parts = [q for q in rel.parts if q != "."]
    if not parts:
        fail(path, f"{to!r}: expected a file name")
    if ".." in parts:
        fail(path, f"{to!r}: '..' is not allowed: an output stays inside the results folder")
    if len(parts) > MAX_PATH_PARTS or any(len(q.encode()) > MAX_PATH_PART for q in parts):
        fail(path, f"{to[:80]!r}{'...' if len(to) > 80 else ''}: too long (at most {MAX_PATH_PARTS} folders, "
                   f"{MAX_PATH_PART} bytes a name)")
    first = parts[0].casefold()
    if len(parts) == 1 and first == MANIFEST:
        fail(path, f"{to!r}: the run writes its own {MANIFEST} there; choose another name")
    if first == PLOTS:
        fail(path, f"{to!r}: the run writes its per-step plots in {PLOTS}/; choose another folder")
    if any(q.startswith(STAGING_PREFIX) for q in parts):
        fail(path, f"{to!r}: names starting {STAGING_PREFIX} are the run's own")
    return PurePosixPath(*parts)


def check_mapping(fail, path, value, allowed, what):
    if not isinstance(value, dict):
        fail(path, f"expected a mapping ({what}), got {_type_name(value)}")
    for key in value:
        if key not in allowed:
            fail(path + (key,), f"unknown key in {what}; allowed: {', '.join(allowed)}")


def check_choice(fail, path, value, choices):
    if value not in choices:
        fail(path, f"expected one of {', '.join(choices)}, got {value!r}")


def check_int(fail, path, value, low=None, high=None):
    if not _is_int(value) or (low is not None and value < low) or (high is not None and value > high):
        rng = (f" {low}..{high:,}" if low is not None else f" <= {high:,}") if high is not None else (
            f" >= {low}" if low is not None else "")
        fail(path, f"expected an integer{rng}, got {_type_name(value)} {value!r}")


def check_bool(fail, path, value):
    if not isinstance(value, bool):
        fail(path, f"expected true or false, got {_type_name(value)} {value!r}")


def check_k_core_of(fail, path, value):
    """``k_core_of``: a core_number step's name (its main core) or ``{step: NAME, k: K}`` (its k-core;
    ``k`` a non-negative integer, or null for the main core).  Returns ``(step, k)``."""
    if isinstance(value, dict):
        check_mapping(fail, path, value, K_CORE_KEYS, "k_core_of")
        if "step" not in value:
            fail(path, "k_core_of needs step: the name of an earlier core_number step (e.g. {step: cores, k: 3})")
        k = value.get("k")
        if k is not None and not _int_in(k, 0, MAX_CORE_K):
            fail(path + ("k",), f"expected a non-negative integer below 2**63 (the order of the core; one above "
                                f"the largest core number gives an empty subgraph), or null for the main core, "
                                f"got {_type_name(k)} {k!r}")
        check_text(fail, path + ("step",), value["step"], "the name of an earlier core_number step")
        return value["step"], k
    check_text(fail, path, value, "the name of an earlier core_number step, or {step: NAME, k: K}")
    return value, None


def k_core_of(value):
    """``(step, k)`` of a checked ``k_core_of`` value (``k`` None: the main core)."""
    return (value["step"], value.get("k")) if isinstance(value, dict) else (value, None)


def check_text(fail, path, value, what="text"):
    if not isinstance(value, str) or not value:
        fail(path, f"expected {what}, got {_type_name(value)} {value!r}")


# -- sections --------------------------------------------------------------------------------

def check_cluster(fail, path, cluster):
    check_mapping(fail, path, cluster, ("kind", "workers", "protocol", "address", "threads_per_worker"),
                  "cluster")
    kind = cluster.get("kind", "local")
    check_choice(fail, path + ("kind",), kind, CLUSTER_KINDS)
    if "workers" in cluster and cluster["workers"] is not None:
        check_int(fail, path + ("workers",), cluster["workers"], 1, MAX_WORKERS)
    if "threads_per_worker" in cluster:
        check_int(fail, path + ("threads_per_worker",), cluster["threads_per_worker"], 1, MAX_THREADS)
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
    if "name" in graph and graph["name"] is not None:
        check_text(fail, path + ("name",), graph["name"], "a graph name")
    src = graph["source"]
    spath = path + ("source",)
    if not isinstance(src, dict) or ("generate" in src) == ("path" in src):
        fail(spath, "expected {generate: KIND, ...parameters} or {path: FILE, format: ...}")
    if "generate" in src:
        check_generator(fail, spath, src, bool(graph.get("directed")), bool(graph.get("weighted")))
    else:
        check_mapping(fail, spath, src, ("path", "format", "options"), "a file source")
        check_text(fail, spath + ("path",), src["path"], "a file path")
        if "\0" in src["path"]:
            fail(spath + ("path",), "a NUL is not allowed in a path")
        if "format" in src:
            check_choice(fail, spath + ("format",), src["format"], READ_FORMATS)
        if "options" in src and src["options"] is not None:
            check_mapping(fail, spath + ("options",), src["options"], reader_options(), "reader options")
        p = resolve(base_dir, src["path"])
        if not p.exists():
            fail(spath + ("path",), f"no such file: {p}")
        if not (p.is_file() or p.is_dir()):  # a FIFO or a device would be read forever
            fail(spath + ("path",), f"{p} is not a regular file")


def reader_options():
    """The keyword options ``dgraph.read`` takes for some format (it checks them against the format)."""
    from ..io.read import FORMAT_OPTIONS, GRAPH_OPTIONS  # noqa: PLC0415

    return tuple(sorted(set(GRAPH_OPTIONS).union(*FORMAT_OPTIONS.values())))


def check_generator(fail, spath, src, directed, weighted):
    """A ``{generate: KIND, ...}`` source: every parameter checked as ``dgraph.generate`` would, and the
    graph's size against this machine's memory, before anything is generated."""
    from ..errors import InputError  # noqa: PLC0415
    from ..generators import WEIGHT_PARAMS, _module, parse_weights  # noqa: PLC0415

    try:
        mod = _module(src["generate"])
    except InputError as e:
        fail(spath + ("generate",), str(e))
    allowed = ("generate", "seed", "self_loops", *mod.PARAMS, *WEIGHT_PARAMS)
    check_mapping(fail, spath, src, allowed, f"a {src['generate']} generator")
    if "seed" in src:
        check_int(fail, spath + ("seed",), src["seed"], -MAX_SEED, MAX_SEED)
    if "self_loops" in src:
        check_bool(fail, spath + ("self_loops",), src["self_loops"])
    params = {k: v for k, v in src.items() if k not in ("generate", "seed", "self_loops")}
    try:
        parse_weights(weighted, params)  # pops the weight parameters
        parsed = mod.parse(params)
    except InputError as e:
        # the generators' messages start "name=value: ..." or "generate('kind'): ... 'name' ..."
        text = str(e)
        key = next((k for k in src if isinstance(k, str) and (text.startswith(f"{k}=") or f"'{k}'" in text)),
                   None)
        fail(spath + ((key,) if key is not None else ()), text)
    except Exception as e:  # noqa: BLE001 - a generator's own check that raised something plainer
        fail(spath, f"bad generator parameters: {e}")
    n, m = mod.size(parsed)
    need = estimate_build_bytes(m, directed, weighted) + 16 * n
    have = physical_memory()
    if have and need > have:
        fail(spath, f"generate {mod.__name__.rsplit('.', 1)[1]}: {n:,} vertices and {m:,} edges need about "
                    f"{_fmt_bytes(need)} to build, and this machine has {_fmt_bytes(have)}; use a smaller size, "
                    f"or dgraph.generate_partitioned on a cluster")


def generated_size(graph):
    """(vertices, edges generated) of a checked ``{source: {generate: ...}}`` graph, else None."""
    if not isinstance(graph, dict) or not isinstance(graph.get("source"), dict) or "generate" not in graph["source"]:
        return None
    from ..generators import _module, parse_weights  # noqa: PLC0415

    params = {k: v for k, v in graph["source"].items() if k not in ("generate", "seed", "self_loops")}
    try:
        parse_weights(bool(graph.get("weighted")), params)
        mod = _module(graph["source"]["generate"])
        return mod.size(mod.parse(params))
    except Exception:  # noqa: BLE001 - check_graph has reported it already
        return None


def estimate_build_bytes(num_edges, directed, weighted):
    """Peak bytes of building a generated graph (the GPU build's measured figure per edge; the CPU's is
    of the same order): enough to refuse a size no machine here could build."""
    from ..backend.device_memory import build_bytes  # noqa: PLC0415

    return build_bytes(num_edges, directed, weighted)


def physical_memory():
    """Bytes of RAM of this machine (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _fmt_bytes(b):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if b < 1024 or unit == "PiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{int(b)} B"
        b /= 1024


def check_partition(fail, path, partition, num_vertices=None):
    check_mapping(fail, path, partition, ("parts", "method", "seed"), "partition")
    if "parts" not in partition:
        fail(path, "needs parts: N")
    check_int(fail, path + ("parts",), partition["parts"], 1, MAX_PARTS)
    if num_vertices is not None and partition["parts"] > max(num_vertices, 1):
        fail(path + ("parts",), f"the graph has {num_vertices:,} vertices: at most that many parts")
    if "method" in partition:
        check_choice(fail, path + ("method",), partition["method"], PARTITION_METHODS)
    if "seed" in partition:
        check_int(fail, path + ("seed",), partition["seed"], -MAX_SEED, MAX_SEED)


def resolve(base_dir, p):
    p = Path(p).expanduser()
    return p if p.is_absolute() or base_dir is None else Path(base_dir) / p
