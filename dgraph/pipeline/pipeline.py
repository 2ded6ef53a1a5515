"""``dgraph.Pipeline``: a graph, an optional cluster and partitioning, and named steps run in order.

>>> import dgraph
>>> p = dgraph.Pipeline(graph={"generate": "rmat", "scale": 8, "seed": 7})
>>> p = p.bfs("reach", source="max-degree").wcc("comps").subgraph("big", largest_component_of="comps")
>>> p = p.pagerank("rank", graph="big", iterations=20).output("rank", "rank.parquet")
>>> run = p.run(results="results/demo")      # or p.run() to keep everything in memory
>>> sorted(run)
['big', 'comps', 'rank', 'reach']
>>> run["rank"].to_pandas().columns.tolist(), run["rank"].supersteps
(['vertex', 'pagerank'], 20)

A step has a name (a word: letters, digits, ``_``, ``-``; it names the step's
plot) and runs one algorithm (any of :data:`~dgraph.pipeline.checks.ALGORITHMS`,
with the keyword options of its ``dgraph.<name>`` function; a ``source`` may be
``"max-degree"``, the vertex of the largest out-degree) on the main
graph or on the graph of an earlier ``subgraph`` step, or makes a subgraph
from an earlier result (``largest_component_of`` a wcc step,
``reachable_from`` a bfs/sssp step, ``k_core_of`` a core_number step: its
main core, or ``k_core_of={"step": "cores", "k": 3}`` its 3-core, or a
``vertices`` list).  Everything is
checked when the step is added and again before a run starts (steps that
name later or missing steps, outputs that would overwrite files), so a run
fails before it has done any work, not halfway.  ``dgraph run FILE`` builds
the same object from a YAML file (:mod:`dgraph.pipeline.config`).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import PipelineError
from . import checks


class Pipeline:
    def __init__(self, graph, *, cluster=None, partition=None, name="pipeline", base_dir=None, _where=None):
        """graph : a dgraph.Graph, or a mapping {source: {generate: KIND, ...} | {path: FILE, format: ...},
            directed, weighted, backend} (a bare {generate: ...} or {path: ...} is taken as the source).
        cluster : None (run in this process), a distributed.Client, or a mapping
            {kind: local | cuda | address, workers, protocol, address}.
        partition : None, or {parts: N, method: range | hash | metis}.
        base_dir : the folder that relative input paths are read from (default: the current one).
        """
        self.name = name
        self.base_dir = base_dir
        self._where = _where or _python_where
        self.steps = []
        self.outputs = []
        if isinstance(graph, dict) and "source" not in graph and ("generate" in graph or "path" in graph):
            graph = {"source": graph}
        #: vertex ids known to be 0..n-1 before anything runs (a generated graph), else None
        self.num_vertices = None
        if isinstance(graph, dict):
            checks.check_graph(self._fail, ("graph",), graph, base_dir)
            size = checks.generated_size(graph)
            self.num_vertices = size[0] if size else None
        elif not _is_graph(graph):
            self._fail(("graph",), f"expected a dgraph.Graph or a graph mapping, got {type(graph).__name__}")
        self.graph = graph
        if isinstance(cluster, dict):
            checks.check_cluster(self._fail, ("cluster",), cluster)
        elif cluster is not None and not hasattr(cluster, "submit"):
            self._fail(("cluster",), "expected a mapping {kind: local|cuda|address, ...} or a Dask Client")
        self.cluster = cluster
        if partition is not None:
            known = graph.num_vertices if _is_graph(graph) else self.num_vertices
            checks.check_partition(self._fail, ("partition",), partition, known)
        self.partition = partition

    # -- building -----------------------------------------------------------------------------
    def _fail(self, path, message):
        raise PipelineError(f"{self._where(path)}{message}")

    def step(self, name, run, *, graph=None, _index=None, **options):
        """Add a step named ``name`` running ``run`` (an algorithm or 'subgraph') with ``options``."""
        i = len(self.steps) if _index is None else _index
        path = ("steps", i)
        checks.check_step_name(self._fail, path + ("name",), name)
        if name.casefold() == "main":
            self._fail(path + ("name",), f"{name!r} is reserved (the main graph)")
        if any(s["name"].casefold() == name.casefold() for s in self.steps):  # plots/<name>.png, any file system
            self._fail(path + ("name",), f"{name!r} is used by an earlier step")
        if not isinstance(run, str) or run not in (*checks.ALGORITHMS, checks.SUBGRAPH):
            self._fail(path + ("run",), f"unknown algorithm {run!r}; expected one of "
                                        f"{', '.join((*checks.ALGORITHMS, checks.SUBGRAPH))}")
        if graph is not None:
            self._check_graph_ref(path + ("graph",), graph)
        if run == checks.SUBGRAPH:
            self._check_subgraph(path, options)
        else:
            allowed = checks.step_options(run)
            for key, value in options.items():
                if key not in allowed:
                    self._fail(path + (key,), f"unknown option for {run}; allowed: "
                                              f"{', '.join((*checks.STEP_KEYS, *allowed))}")
                checks.check_option(self._fail, path + (key,), key, value, self.num_vertices)
            if options.get("executor") in ("tasks", "spmd") and (self.partition is None or self.cluster is None):
                self._fail(path + ("executor",), f"executor {options['executor']} runs on a partitioned graph on "
                                                 f"a Dask cluster: give partition: {{parts: N}} and cluster: "
                                                 f"{{kind: local}}, or use executor: local")
            if run in ("bfs", "sssp") and "source" not in options:
                self._fail(path, f"{run} needs source: a vertex id, or {checks.MAX_DEGREE}")
            if run == "random_walks" and ("starts" not in options or "length" not in options):
                self._fail(path, "random_walks needs starts: a list of vertex ids (or null: every vertex) and "
                                 "length: steps per walk")
        self.steps.append({"name": name, "run": run, "graph": graph, "options": dict(options), "path": path})
        return self

    def _check_graph_ref(self, path, ref):
        checks.check_text(self._fail, path, ref, "the name of an earlier subgraph step (or main)")
        if ref == "main":
            return
        earlier = {s["name"]: s for s in self.steps}
        if ref not in earlier:
            self._fail(path, f"no earlier step named {ref!r}; a step reads the main graph or the graph of an "
                             f"earlier subgraph step ({', '.join(s['name'] for s in self.steps if s['run'] == 'subgraph') or 'none yet'})")
        if earlier[ref]["run"] != checks.SUBGRAPH:
            self._fail(path, f"step {ref!r} ran {earlier[ref]['run']}, not subgraph: it has no graph to run on")

    def _check_subgraph(self, path, options):
        given = [k for k in options if k in checks.SUBGRAPH_KEYS]
        for key in options:
            if key not in checks.SUBGRAPH_KEYS:
                self._fail(path + (key,), f"unknown option for subgraph; allowed: "
                                          f"{', '.join((*checks.STEP_KEYS, *checks.SUBGRAPH_KEYS))}")
        if len(given) != 1:
            self._fail(path, "subgraph needs exactly one of " + ", ".join(checks.SUBGRAPH_KEYS))
        key = given[0]
        value = options[key]
        if key == "vertices":
            if not isinstance(value, list):
                self._fail(path + (key,), "expected a list of vertex ids")
            for i, v in enumerate(value):
                checks.check_vertex(self._fail, path + (key, i), v, self.num_vertices)
            return
        where = path + (key,)
        if key == "k_core_of":  # a step name (its main core) or {step: NAME, k: K}: the name checked there
            value, _ = checks.check_k_core_of(self._fail, where, value)
            if isinstance(options[key], dict):
                where = where + ("step",)
        else:
            checks.check_text(self._fail, where, value, "the name of an earlier step")
        earlier = {s["name"]: s for s in self.steps}
        if value not in earlier:
            self._fail(where, f"no earlier step named {value!r}")
        if earlier[value]["run"] not in checks.SUBGRAPH_NEEDS[key]:
            self._fail(where, f"step {value!r} ran {earlier[value]['run']}; {key} reads a "
                              f"{' or '.join(checks.SUBGRAPH_NEEDS[key])} step")

    def subgraph(self, name, **options):
        return self.step(name, checks.SUBGRAPH, **options)

    def output(self, step, to, format=None, columns=None, _index=None):
        """Write the result of ``step`` to ``to``: a path relative to the results folder of the run (no
        ``..``, not absolute), which is where every file of a run goes."""
        path = ("outputs", len(self.outputs) if _index is None else _index)
        steps = {s["name"]: s for s in self.steps}
        checks.check_text(self._fail, path + ("from",), step, "the name of a step")
        if step not in steps:
            self._fail(path + ("from",), f"no step named {step!r}; steps: {', '.join(steps) or 'none'}")
        if steps[step]["run"] == checks.SUBGRAPH:
            self._fail(path + ("from",), f"step {step!r} makes a graph, not a result to write")
        rel = checks.output_relpath(self._fail, path + ("to",), to)
        if format is not None:
            checks.check_choice(self._fail, path + ("format",), format, checks.OUTPUT_FORMATS)
            if format == "graphalytics" and steps[step]["run"] in checks.PAIR_ALGORITHMS:
                self._fail(path + ("format",), f"step {step!r} ({steps[step]['run']}) gives values per pair of "
                                               f"vertices; a graphalytics file holds one per vertex: use csv, "
                                               f"parquet or npz")
        elif rel.suffix.lower() not in (".csv", ".parquet", ".pq", ".npz"):
            self._fail(path + ("to",), "cannot tell the format from the file name; add format: "
                                       + " | ".join(checks.OUTPUT_FORMATS))
        if columns is not None and (not isinstance(columns, list) or not columns
                                    or not all(isinstance(c, str) for c in columns)):
            self._fail(path + ("columns",), "expected a non-empty list of column names")
        key = str(rel).casefold()  # one file on a case-insensitive file system too
        for o in self.outputs:
            other = str(o["rel"]).casefold()
            if other == key:
                self._fail(path + ("to",), f"{to!r} is written by an earlier output too")
            if key.startswith(other + "/") or other.startswith(key + "/"):
                self._fail(path + ("to",), f"{to!r} and the earlier output {o['to']!r}: one would be a file "
                                           f"and a folder at once")
        self.outputs.append({"from": step, "to": to, "rel": rel, "format": format, "columns": columns,
                             "path": path})
        return self

    def __getattr__(self, name):
        if name in checks.ALGORITHMS:
            def add(step_name, **options):
                return self.step(step_name, name, **options)
            add.__doc__ = f"Add a step running dgraph.{name} (see its keyword options)."
            return add
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    # -- plan ---------------------------------------------------------------------------------------
    def output_paths(self, results):
        """(output, its path): under ``results``, or the current folder for a run kept in memory."""
        base = Path(results) if results is not None else Path(".")
        return [(o, base / o["rel"]) for o in self.outputs]

    def plan(self, results=None) -> str:
        """What a run would do, as text; touches nothing."""
        from .describe import describe_plan  # noqa: PLC0415

        return describe_plan(self, results)

    def check_outputs(self, results, overwrite):
        """Before any work: the results folder can be made and written, and no file the run would write
        there (an output, a plot, the manifest) exists, unless ``overwrite`` or an unfinished run of this
        same pipeline left it (:mod:`dgraph.pipeline.folder`)."""
        from .folder import check_folder  # noqa: PLC0415

        check_folder(self, results, overwrite)

    # -- run ---------------------------------------------------------------------------------------
    def run(self, results=None, *, overwrite=False, progress=None):
        """Run every step in order; returns a :class:`~dgraph.pipeline.run.PipelineRun`.

        results : a folder for the manifest, the per-step plots and the outputs (relative ``to:``
            paths go there); None keeps everything in memory (outputs are then relative to the
            current folder).
        progress : show per-superstep progress on stderr (default: when stderr is a terminal).
        """
        from .run import execute  # noqa: PLC0415

        if not self.steps:
            self._fail(("steps",), "no steps: add at least one")
        self.check_outputs(results, overwrite)
        return execute(self, results, overwrite=overwrite, progress=progress,
                       source_text=getattr(self, "source_text", None))


def _python_where(path):
    if not path:
        return ""
    if path[0] == "steps" and len(path) > 1:
        rest = ".".join(str(p) for p in path[2:])
        return f"step {path[1]}{' ' + rest if rest else ''}: "
    return ".".join(str(p) for p in path) + ": "


def _is_graph(g):
    from ..graph import Graph  # noqa: PLC0415

    return isinstance(g, Graph)


__all__ = ["Pipeline"]
