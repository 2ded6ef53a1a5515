"""Running a :class:`~dgraph.pipeline.pipeline.Pipeline`: the cluster, the graph, the steps in order,
then the outputs, the per-step plots and ``manifest.json`` in the results folder.

Nothing is written until every step has succeeded; then every file is written
into a staging folder inside the results folder and moved into place, the
manifest last (:mod:`dgraph.pipeline.folder`), so a failed run leaves the
user's files as they were and a killed one is recognised by its rerun.
Progress goes to stderr: one live line per superstep on a terminal, a line
every few seconds otherwise.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import platform
import sys
import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from ..cluster import dashboard_link
from ..errors import DGraphError, PipelineError
from . import checks
from .describe import describe_cluster, describe_graph


class PipelineRun(Mapping):
    """The results of a run by step name (a Result, or a Graph for a subgraph step), the manifest
    (``.manifest``, a dict) and the results folder (``.folder``, or None)."""

    def __init__(self, results, manifest, folder):
        self._results = results
        self.manifest = manifest
        self.folder = folder

    def __getitem__(self, name):
        try:
            return self._results[name]
        except KeyError:
            raise KeyError(f"no step named {name!r}; steps: {', '.join(self._results)}") from None

    def __iter__(self):
        return iter(self._results)

    def __len__(self):
        return len(self._results)

    def __repr__(self):
        steps = ", ".join(f"{s['name']} ({s['run']})" for s in self.manifest["steps"])
        where = f", results in {self.folder}" if self.folder else ""
        return f"<PipelineRun {self.manifest['pipeline']['name']}: {steps}{where}>"


# -- progress --------------------------------------------------------------------------------------

class Progress:
    """The on_step callback of one step: a tqdm bar of its supersteps on stderr (a widget in Jupyter),
    fed superstep by superstep (see :class:`dgraph.progress.SuperstepBar`)."""

    def __init__(self, step, show):
        from ..progress import SuperstepBar  # noqa: PLC0415

        self.step = step
        self.count = 0
        self.bar = SuperstepBar(f"{step['name']} ({step['run']})", progress=bool(show))

    def __call__(self, record):
        self.count += 1
        self.bar(record)

    def close(self):
        self.bar.close()


# -- pieces ------------------------------------------------------------------------------------------

def _start_cluster(cluster):
    """(client or None, whether we started it)."""
    if cluster is None:
        return None, False
    if not isinstance(cluster, dict):
        return cluster, False
    from ..cluster import connect  # noqa: PLC0415

    kind = cluster.get("kind", "local")
    target = {"local": None, "cuda": "cuda"}.get(kind, cluster.get("address"))
    kw = {k: cluster[k] for k in ("workers", "protocol", "threads_per_worker") if k in cluster}
    client = connect(target, **kw)
    return client, kind != "address"


def _build_graph(p):
    try:
        return _make_graph(p)
    except PipelineError:
        raise
    except DGraphError as e:
        raise PipelineError(f"{p._where(('graph', 'source'))}{e}") from None


def _make_graph(p):
    import dgraph  # noqa: PLC0415

    g = p.graph
    if not isinstance(g, dict):
        return g
    src = dict(g["source"])
    backend = g.get("backend", "numpy")
    if "generate" in src:
        kind = src.pop("generate")
        return dgraph.generate(kind, directed=bool(g.get("directed", False)), weighted=bool(g.get("weighted", False)),
                               backend=backend, name=g.get("name"), **src)
    path = checks.resolve(p.base_dir, src["path"])
    G = dgraph.read(path, format=src.get("format"), directed=g.get("directed"), weighted=g.get("weighted"),
                    **(src.get("options") or {}))
    return G.to(backend)


def _subgraph(G, step, done):
    (key, value), = step["options"].items()
    if key == "vertices":
        return G.subgraph(value, name=step["name"])
    k = None
    if key == "k_core_of":
        value, k = checks.k_core_of(value)
    df = done[value].to_pandas()
    if key == "largest_component_of":
        sizes = df.groupby("component").size().sort_index()
        label = sizes.idxmax()  # the first (smallest) label among the largest components
        keep = df["vertex"][df["component"] == label]
    elif key == "k_core_of":  # k None: the main core (NetworkX's k_core default), the largest core number
        keep = df["vertex"][df["core"] >= (k if k is not None else (df["core"].max() if len(df) else 0))]
    elif "depth" in df:
        keep = df["vertex"][df["depth"] >= 0]
    else:
        keep = df["vertex"][df["distance"].map(math.isfinite)]
    return G.subgraph(keep.to_numpy(), name=step["name"])


def max_degree_vertex(G):
    """The vertex of the largest out-degree (the first such in internal order), in the user's ids: a source
    that reaches the graph's big component.  ``dgraph bench`` picks its default source the same way."""
    import numpy as np  # noqa: PLC0415

    from ..backend import to_numpy  # noqa: PLC0415
    from ..errors import InputError  # noqa: PLC0415

    if G.num_vertices == 0:
        raise InputError(f"{checks.MAX_DEGREE}: the graph has no vertices")
    return G.ids.to_user(int(np.argmax(to_numpy(G.out_degree())))).item()


def _resolve_sources(options, G):
    """The step's options with ``source``/``sources: max-degree`` replaced by that vertex of ``G``."""
    out = dict(options)
    if out.get("source") == checks.MAX_DEGREE:
        out["source"] = max_degree_vertex(G)
    if out.get("sources") == checks.MAX_DEGREE:
        out["sources"] = [max_degree_vertex(G)]
    return out


def _graph_info(G):
    return {"name": G.name, "vertices": int(G.num_vertices), "edges": int(G.num_edges), "arcs": int(G.num_arcs),
            "directed": bool(G.directed), "weighted": bool(G.weighted), "backend": G.backend}


def _partition_info(PG):
    sizes = [int(x) for x in PG.plan.sizes()]
    return {"parts": PG.num_parts, "method": PG.plan.method, "vertices_per_part": sizes,
            "workers": list(PG.workers) if getattr(PG, "workers", None) else None}


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if hasattr(x, "item") and getattr(x, "ndim", 1) == 0:
        return _json_safe(x.item())
    return x


def _versions():
    out = {"dgraph": None, "python": platform.python_version()}
    import dgraph  # noqa: PLC0415

    out["dgraph"] = dgraph.__version__
    for mod in ("numpy", "scipy", "numba", "pandas", "dask", "distributed", "cupy", "dask_cuda"):
        m = sys.modules.get(mod)
        if m is None:
            try:
                m = __import__(mod) if mod not in ("cupy", "dask_cuda") else None
            except Exception:  # noqa: BLE001 - a missing optional package is simply not listed
                m = None
        if m is not None:
            out[mod] = getattr(m, "__version__", "?")
    return out


def _write_json(path, data):
    """Write ``data`` as JSON (into the staging folder: the move into place is the atomic step)."""
    with open(path, "w") as f:
        json.dump(_json_safe(data), f, indent=2)
        f.write("\n")


def _count(client):
    from ..display import plural  # noqa: PLC0415

    return plural(len(client.scheduler_info().get("workers", {})), "worker")


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# -- the run ---------------------------------------------------------------------------------------

def execute(p, results, *, overwrite=False, progress=None, source_text=None, log=None):
    from ..cluster import close  # noqa: PLC0415

    from ..log import logger  # noqa: PLC0415

    folder = Path(results) if results is not None else None
    show = sys.stderr.isatty() if progress is None else bool(progress)  # the steps' bars
    log = log or (lambda line: logger.info(line) if progress is not False else None)  # the logger decides
    started_at, t0 = _now(), time.perf_counter()
    client, started = _start_cluster(p.cluster)
    if client is not None:
        link = dashboard_link(client)
        log(f"cluster: {_count(client)} at {client.scheduler.address}{', dashboard ' + link if link else ''} "
            f"({time.perf_counter() - t0:.1f} s)")
    try:
        t_graph = time.perf_counter()
        G = _build_graph(p)
        log(f"graph: {G.num_vertices:,} vertices, {G.num_edges:,} edges ({time.perf_counter() - t_graph:.1f} s)")
        graphs, parted, done, records = {"main": G}, {}, {}, []

        def target(name):
            if p.partition is None:
                return graphs[name]
            if name not in parted:
                PG = graphs[name].partition(p.partition["parts"], p.partition.get("method", "range"),
                                            client=client if client is not None else False,
                                            seed=p.partition.get("seed", 0))
                if show and client is not None and sys.stdout.isatty():  # Dask's bar while shards are placed
                    from distributed import progress  # noqa: PLC0415

                    log(f"partitioning {name} into {PG.num_parts} shards:")
                    progress(list(PG.shards), notebook=False)
                    print(flush=True)
                parted[name] = PG
            return parted[name]

        for s in p.steps:
            on = s["graph"] or "main"
            t = time.perf_counter()
            try:
                if s["run"] == checks.SUBGRAPH:
                    sub = _subgraph(graphs[on], s, done)
                    graphs[s["name"]] = done[s["name"]] = sub
                    rec = {"name": s["name"], "run": s["run"], "graph": on, "options": s["options"],
                           "vertices": sub.num_vertices, "edges": sub.num_edges,
                           "wall_s": time.perf_counter() - t}
                else:
                    options = _resolve_sources(s["options"], graphs[on])
                    graph = target(on)
                    tracker = Progress(s, show)
                    r = checks.algorithm_function(s["run"])(graph, on_step=tracker, **options)
                    tracker.close()
                    done[s["name"]] = r
                    stats = r.stats
                    rec = {"name": s["name"], "run": s["run"], "graph": on, "options": s["options"],
                           "time_s": r.run_time, "wall_s": time.perf_counter() - t, "supersteps": r.supersteps,
                           "edges_touched": r.edges_touched,
                           "bytes_exchanged": int(stats["bytes_exchanged"].sum()) if "bytes_exchanged" in stats else 0,
                           "executor": r.params.get("executor", "local"), "partitions": r.params.get("partitions", 1),
                           "phases": r.phases or None}
                    for key in ("source", "sources"):
                        if options.get(key) != s["options"].get(key):
                            rec[key] = options[key]  # what max-degree picked
                    if "modularity" in r.params:  # louvain: the answer's modularity, and the seed it drew
                        rec.update(modularity=r.params["modularity"], seed=r.params["seed"])
            except PipelineError:
                raise
            except DGraphError as e:
                raise PipelineError(f"{p._where(s['path'])}step {s['name']!r} ({s['run']}) failed: {e}") from None
            records.append(rec)

        manifest = {
            "pipeline": {"name": p.name, "file": getattr(p, "source_name", None),
                         "sha256": hashlib.sha256(source_text.encode()).hexdigest() if source_text else None,
                         "overrides": list(getattr(p, "overrides", []) or [])},
            "versions": _versions(), "started": started_at, "finished": _now(),
            "wall_s": time.perf_counter() - t0,
            "cluster": None if client is None else {
                "kind": p.cluster.get("kind", "local") if isinstance(p.cluster, dict) else "client",
                "description": describe_cluster(p.cluster), "scheduler": client.scheduler.address,
                "workers": len(client.scheduler_info().get("workers", {})), "dashboard": dashboard_link(client)},
            "graph": {**_graph_info(G), "source": describe_graph(p.graph)},
            "partition": _partition_info(parted["main"]) if "main" in parted else None,
            "steps": records,
            "outputs": [],
        }
        if folder is not None or p.outputs:
            _write_files(p, done, records, manifest, folder, overwrite)
        return PipelineRun(done, manifest, folder)
    finally:
        if started:
            close()


def _write_files(p, done, records, manifest, folder, overwrite):
    """Outputs, plots and the manifest, staged inside the results folder and then moved into place."""
    from .folder import Stage  # noqa: PLC0415

    stage = Stage(p, folder, overwrite)
    try:
        rels = []
        for o in p.outputs:
            manifest["outputs"].append(_write_output(p, o, done[o["from"]], stage))
            rels.append(o["rel"])
        if folder is not None:
            for rec in records:
                if rec["run"] != checks.SUBGRAPH:
                    rel = PurePosixPath(checks.PLOTS, f"{rec['name']}.png")
                    _plot(done[rec["name"]], rec, stage.path(rel))
                    rec["plot"] = str(stage.final(rel))
                    rels.append(rel)
            rel = PurePosixPath(checks.MANIFEST)
            _write_json(stage.path(rel), manifest)
            rels.append(rel)
    except OSError as e:  # a plot or the manifest (the outputs say which output failed themselves)
        stage.abort()
        raise PipelineError(f"{p._where(('results',))}writing the results in {stage.root} failed: "
                            f"{e.strerror or e}") from None
    except BaseException:
        stage.abort()
        raise
    stage.commit(rels)


def _write_output(p, o, result, stage):
    import dgraph  # noqa: PLC0415

    try:
        written = dgraph.write(result, stage.path(o["rel"]), format=o["format"], columns=o["columns"])
    except DGraphError as e:
        raise PipelineError(f"{p._where(o['path'])}{str(e).replace(str(stage.dir) + os.sep, '')}") from None
    except OSError as e:
        raise PipelineError(f"{p._where(o['path'])}writing {stage.final(o['rel'])} failed: {e.strerror or e}") from None
    return {"from": o["from"], "to": str(stage.final(o["rel"])), "format": o["format"] or written.suffix.lstrip("."),
            "bytes": _size(written)}


def _plot(result, rec, path):
    from ..plots import save_superstep_plot  # noqa: PLC0415

    from ..display import plural  # noqa: PLC0415

    title = f"{rec['name']}: {rec['run']} on {rec['graph']} ({plural(rec['supersteps'], 'superstep')})"
    return save_superstep_plot(result.stats, path, title, result.phases.get("startup_s"))


def _size(path):
    """Bytes of an output: a file, or a Parquet dataset folder written by the workers."""
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return path.stat().st_size
