"""The ``dgraph`` command line: ``info``, the algorithms, ``run``, ``bench``.

Every error that bad input causes is printed as one line
(``dgraph: error: ...``) and the command exits with status 2, leaving no
partial output file behind.  Results go to stdout; progress bars (on a
terminal) and the ``dgraph`` logger's lines (kernels compiled, the cluster
started) go to stderr; ``--quiet`` keeps only warnings and errors there.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .errors import DGraphError, InputError


def _graph_args(p, need_file=True):
    if need_file:
        p.add_argument("file", nargs="?", help="graph file (.mtx .el .wel .csv .e .parquet ...)")
    p.add_argument("--generate", metavar="KIND:K=V,...", help="a generated graph instead, e.g. rmat:scale=20")
    p.add_argument("--format", dest="fmt", help="file format when the extension does not say it")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--directed", dest="directed", action="store_true", default=None)
    g.add_argument("--undirected", dest="directed", action="store_false")
    p.add_argument("--weighted", action="store_true", default=None, help="read or generate edge weights")
    p.add_argument("--backend", default="numpy", choices=["numpy", "cupy"], help="array backend (default numpy)")


ALGORITHMS = {
    "bfs": {"help": "breadth-first search: depth and parent", "source": True, "options": ["direction"],
            "flags": [("--direction", dict(default="auto", choices=["auto", "push", "pull"]))]},
    "sssp": {"help": "single-source shortest paths (delta-stepping): distance and parent", "source": True,
             "options": ["delta"], "flags": [("--delta", dict(type=float, help="bucket width (default: automatic)"))]},
    "pagerank": {"help": "PageRank (Graphalytics rule for dangling vertices)",
                 "options": ["damping", "iterations", "tol", "weight"],
                 "flags": [("--damping", dict(type=float, default=0.85)),
                           ("--iterations", dict(type=int, help="a fixed count (default: until --tol)")),
                           ("--tol", dict(type=float, help="L1 change per vertex to stop at (default 1e-6)")),
                           ("--weight", dict(action="store_const", const="weight", default=None,
                                             help="edge weights as transition weights (the graph's weights: "
                                                  "read or generate them with --weighted)"))]},
    "hits": {"help": "HITS hub and authority scores (NetworkX's power iteration)",
             "options": ["iterations", "tol", "normalized", "weight"],
             "flags": [("--iterations", dict(type=int, help="the most iterations (default 100)")),
                       ("--tol", dict(type=float, help="L1 change of the hub scores to stop at (default 1e-8)")),
                       ("--raw", dict(dest="normalized", action="store_false", default=None,
                                      help="scores scaled to a maximum of 1, not a sum of 1")),
                       ("--weight", dict(action="store_const", const="weight", default=None,
                                         help="edge weights as the entries of the adjacency matrix (read or "
                                              "generate them with --weighted)"))]},
    "wcc": {"help": "weakly connected components (label: the smallest vertex id)", "options": [], "flags": []},
    "scc": {"help": "strongly connected components (label: the smallest vertex id)", "options": [], "flags": []},
    "cdlp": {"help": "community detection by label propagation (LDBC semantics)", "options": ["iterations"],
             "flags": [("--iterations", dict(type=int, default=10))]},
    "louvain": {"help": "communities by the Louvain method (the smallest vertex id of each) and their modularity",
                "options": ["resolution", "seed", "threshold", "max_level"],
                "flags": [("--resolution", dict(type=float, default=1.0, help="gamma (default 1)")),
                          ("--seed", dict(type=int, help="which vertices move when (default: drawn, printed)")),
                          ("--threshold", dict(type=float, default=1e-7,
                                               help="the least modularity gain of a level (default 1e-7)")),
                          ("--max-level", dict(dest="max_level", type=int, help="at most this many levels"))]},
    "lcc": {"help": "local clustering coefficient (LDBC semantics)", "options": [], "flags": []},
    "triangle_count": {"help": "triangles through every vertex, and the total", "options": [], "flags": []},
    "core_number": {"help": "core numbers: the largest k of a k-core holding each vertex (NetworkX's semantics)",
                    "options": ["self_loops"],
                    "flags": [("--self-loops", dict(dest="self_loops", choices=["raise", "ignore"],
                                                    help="a graph with self loops: refuse it (raise, the default, "
                                                         "as NetworkX) or leave them out (ignore)"))]},
    "bc": {"help": "betweenness centrality (Brandes; all sources unless --sources)",
           "options": ["sources", "normalized", "endpoints"],
           "flags": [("--sources", dict(nargs="+", help="source vertex ids (default: all vertices)")),
                     ("--raw", dict(dest="normalized", action="store_false", default=None,
                                    help="do not normalize (NetworkX normalized=False)")),
                     ("--endpoints", dict(action="store_true", default=None, help="count path endpoints"))]},
    "random_walks": {"help": "random walks, uniform or node2vec-biased (--weighted: by edge weight too), one per start",
                     "options": ["starts", "length", "seed", "first_walk", "p", "q", "weighted"],
                     "flags": [("--starts", dict(nargs="+", help="start vertex ids, one walk each (default: one "
                                                                 "walk from every vertex)")),
                               ("--length", dict(type=int, required=True, help="steps per walk")),
                               ("--seed", dict(type=int, default=0, help="the walks' random numbers (default 0)")),
                               ("--first-walk", dict(dest="first_walk", type=int,
                                                     help="the number of the first walk (default 0): with the "
                                                          "same seed, the walks of one run cut in pieces")),
                               ("--p", dict(type=float, help="node2vec return parameter (default 1)")),
                               ("--q", dict(type=float, help="node2vec in-out parameter (default 1)"))]},
    "jaccard": {"help": "Jaccard coefficients (NetworkX's): of the pairs in --pairs FILE, else of every pair at "
                        "distance two (written chunk by chunk with -o)",
                "options": ["pairs", "chunk_size"],
                "flags": [("--pairs", dict(metavar="FILE", help="a text file of vertex pairs, 'u v' (or 'u,v') a "
                                                                "line; '#' starts a comment (default: every pair "
                                                                "at distance two)")),
                          ("--chunk-size", dict(type=int, help="pairs listed at a time without --pairs "
                                                               "(default 1048576)"))]},
    "maximal_matching": {"help": "maximal bipartite matching (randomized request/grant/accept, EMV model)",
                         "options": ["left", "seed"],
                         "flags": [("--left", dict(nargs="+", help="the left side's vertex ids (default: "
                                                                   "2-colour the graph)")),
                                   ("--seed", dict(type=int, default=0, help="random priorities (default 0)"))]},
}


def _dist_args(p):
    p.add_argument("--partitions", type=int, help="split the graph into this many partitions")
    p.add_argument("--method", default="range", choices=["range", "hash", "metis"], help="partitioner")
    p.add_argument("--executor", choices=["local", "tasks", "spmd"],
                   help="local (one process), tasks (a Dask task graph per superstep) or spmd (default with a cluster)")
    p.add_argument("--exchange", default="butterfly", help="butterfly[:FANOUT] or all-to-all")
    p.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--workers", type=int, help="workers of the local Dask cluster (default: cores, or GPUs)")
    p.add_argument("--protocol", default="tcp", choices=["tcp", "ucx"], help="comm protocol of a local cluster")
    p.add_argument("--transport", default="auto", choices=["auto", "dask", "nccl"],
                   help="spmd data path: dask worker comm, or NCCL between GPUs (auto: NCCL where it applies)")


def _client(args):
    """The Dask client a partitioned command needs (None for the local executor)."""
    if args.scheduler is None and args.executor in (None, "local") and not args.workers:
        return None
    import time  # noqa: PLC0415

    from .cluster import connect, dashboard_link  # noqa: PLC0415
    from .display import plural  # noqa: PLC0415
    from .log import logger  # noqa: PLC0415

    t0 = time.perf_counter()
    if args.scheduler:
        client = connect(args.scheduler)
    elif args.backend == "cupy":
        client = connect("cuda", workers=args.workers, protocol=args.protocol)
    else:
        client = connect(workers=args.workers or args.partitions, protocol=args.protocol)
    link = dashboard_link(client)
    logger.info("cluster: %s at %s%s (%.1f s)", plural(len(client.scheduler_info().get("workers", {})), "worker"),
                client.scheduler.address, f", dashboard {link}" if link else "", time.perf_counter() - t0)
    return client


def _exchange(args):
    from .exchange import parse_exchange  # noqa: PLC0415

    return parse_exchange(args.exchange, p=args.partitions or 1)


def _load(args):
    from .bench.spec import load_graph  # noqa: PLC0415

    return load_graph(getattr(args, "file", None), args.generate, fmt=args.fmt, directed=args.directed,
                      weighted=args.weighted, backend=args.backend)


def _vertex_arg(G, text, name):
    """A vertex id typed on the command line, read as the graph's id type."""
    if G.ids.is_integer:
        try:
            return int(text)
        except ValueError:
            raise InputError(f"--{name} {text!r}: this graph's vertex ids are integers") from None
    return text


def cmd_info(args):
    if args.system:
        from .system import show_versions  # noqa: PLC0415

        show_versions()
        return 0
    if getattr(args, "file", None) is None and args.generate is None:
        raise InputError("info: give a graph FILE (or --generate KIND:...), or --system")
    G = _load(args)
    s = G.summary()
    width = max(len(k) for k in s)
    for key, value in s.items():
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else value
        print(f"{key:<{width}}  {shown}")
    return 0


def _summary(name, r, G, args):
    """One line saying what the run found, its supersteps and run time (start-up said apart)."""
    from .display import fmt_seconds, plural  # noqa: PLC0415

    cols = r.to_numpy() if name != "jaccard" else None  # jaccard's pairs may be a stream: not gathered here
    n = G.num_vertices
    if name == "bfs":
        what = f"from {args.source}: reached {int((cols['depth'] >= 0).sum()):,} of {n:,} vertices"
    elif name == "sssp":
        d = cols["distance"]
        fin = d[np.isfinite(d)]
        what = (f"from {args.source}: reached {len(fin):,} of {n:,} vertices, "
                f"max distance {fin.max() if len(fin) else 0:g}")
    elif name == "pagerank":
        top = int(np.argmax(cols["pagerank"])) if n else None
        what = f"top vertex {cols['vertex'][top]} ({cols['pagerank'][top]:.6g})" if n else "empty graph"
    elif name == "hits":
        if n:
            hub, auth = int(np.argmax(cols["hubs"])), int(np.argmax(cols["authorities"]))
            what = (f"top hub {cols['vertex'][hub]} ({cols['hubs'][hub]:.6g}), top authority "
                    f"{cols['vertex'][auth]} ({cols['authorities'][auth]:.6g})")
        else:
            what = "empty graph"
    elif name == "wcc":
        what = plural(len(np.unique(cols["component"])), "component")
    elif name == "scc":
        what = plural(len(np.unique(cols["component"])), "strongly connected component")
    elif name == "cdlp":
        what = plural(len(np.unique(cols["label"])), "community", "communities")
    elif name == "louvain":
        what = (f"{plural(len(np.unique(cols['community'])), 'community', 'communities')}, modularity "
                f"{r.params['modularity']:.6g} (seed {r.params['seed']})")
    elif name == "lcc":
        what = f"mean {cols['lcc'].mean() if n else 0:.6g}"
    elif name == "maximal_matching":
        pairs = int((cols["mate"] != -1).sum()) // 2 if cols["mate"].dtype.kind in "iu" else \
            sum(m is not None and m != -1 for m in cols["mate"]) // 2
        what = plural(pairs, "matched pair")
    elif name == "triangle_count":
        what = plural(r.params.get("total", int(cols["triangles"].sum()) // 3), "triangle")
    elif name == "core_number":
        top = int(cols["core"].max()) if n else 0
        inner = int((cols["core"] == top).sum()) if n else 0
        what = f"largest core number {top}, its {top}-core {plural(inner, 'vertex', 'vertices')}"
    elif name == "random_walks":
        from .backend import to_numpy  # noqa: PLC0415

        steps = (to_numpy(r.raw("paths")) >= 0).sum(axis=1) - 1
        what = (f"{plural(len(steps), 'walk')} of length {r.length}: "
                f"{int((steps < r.length).sum()):,} stopped at a dead end")
    elif name == "jaccard":
        what = (plural(len(r), "pair") if r.params.get("mode") == "pairs" else
                f"{plural(r.total, 'pair')} at distance two ({plural(r.num_chunks, 'chunk')})")
    else:  # bc
        top = int(np.argmax(cols["bc"])) if n else None
        what = f"top vertex {cols['vertex'][top]} ({cols['bc'][top]:.6g})" if n else "empty graph"
    where = r.backend
    if r.params.get("partitions"):
        where += f", {plural(r.params['partitions'], 'partition')}, {r.params['executor']}"
    line = f"{name} {what}, {plural(r.supersteps, 'superstep')}, {r.run_time * 1e3:.2f} ms ({where})"
    startup = r.phases.get("startup_s") or 0.0
    if startup >= 0.0005:  # a new process's kernel loads (or first compilation): said apart, not run time
        line += f"; start-up {fmt_seconds(startup)} apart (kernels loaded or compiled)"
    return line


def cmd_algorithm(args):
    import dgraph  # noqa: PLC0415

    name = args.command
    if args.output is not None:  # -o "" is an error, not "no output"
        from .io import check_output_path  # noqa: PLC0415

        _, fmt = check_output_path(args.output, overwrite=args.overwrite, fmt=args.output_format)
        if name == "jaccard" and fmt == "graphalytics":
            raise InputError(f"{args.output}: a graphalytics file holds one value per vertex; write the jaccard "
                             f"pairs as csv, parquet or npz")
    G = _load(args)
    kwargs = {key: getattr(args, key) for key in ALGORITHMS[name]["options"] if getattr(args, key) is not None}
    if "sources" in kwargs:
        kwargs["sources"] = [_vertex_arg(G, v, "sources") for v in kwargs["sources"]]
    if "left" in kwargs:
        kwargs["left"] = [_vertex_arg(G, v, "left") for v in kwargs["left"]]
    if name == "random_walks":  # no --starts: a walk from every vertex
        kwargs["starts"] = [_vertex_arg(G, v, "starts") for v in kwargs["starts"]] if "starts" in kwargs else None
    lines = None
    if "pairs" in kwargs:
        kwargs["pairs"], lines = _read_pairs(kwargs["pairs"], G)
    positional = []
    if "source" in vars(args):
        positional.append(_vertex_arg(G, args.source, "source"))
    if args.partitions:
        client = _client(args)
        target = G.partition(args.partitions, args.method, client=client or False, backend=args.backend)
        kwargs.update(executor=args.executor, exchange=_exchange(args), transport=args.transport)
    else:
        if args.executor not in (None, "local") or args.scheduler:
            raise InputError("--executor tasks/spmd and --scheduler need --partitions P")
        target = G
    try:
        r = getattr(dgraph, name)(target, *positional, progress=None if not args.quiet else False, **kwargs)
    except InputError as exc:
        _pair_line(exc, lines, args)
        raise
    print(_summary(name, r, G, args))
    if args.output is not None:
        dgraph.write(r, args.output, format=args.output_format, overwrite=args.overwrite,
                     columns=[args.column] if args.column else None)
        print(f"wrote {args.output}")
    return 0


def _read_pairs(path, G):
    """``(pairs, line numbers)`` of a pairs file: two vertex ids a line (space or comma between), ids read
    as the graph's kind; ``#`` and ``%`` start comments."""
    import re  # noqa: PLC0415

    from .errors import FileFormatError, MissingFileError  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise MissingFileError(f"{path}: no such file (--pairs)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileFormatError(path, None, f"cannot read the pairs: {exc}") from None
    pairs, lines = [], []
    integers = G.ids.is_integer
    for k, line in enumerate(text.splitlines(), 1):
        fields = [x for x in re.split(r"[\s,]+", re.split(r"[#%]", line, maxsplit=1)[0].strip()) if x]
        if not fields:
            continue
        if len(fields) != 2:
            raise FileFormatError(path, k, f"expected two vertex ids (u v), got {len(fields)} fields")
        if integers:
            try:
                fields = [int(x) for x in fields]
            except ValueError:
                raise FileFormatError(path, k, f"this graph's vertex ids are integers, got {line.strip()!r}") from None
        pairs.append(tuple(fields))
        lines.append(k)
    return pairs, lines


def _pair_line(exc, lines, args):
    """A pair the API refused (``pairs[i] = ...``), said with its file and line instead."""
    import re  # noqa: PLC0415

    from .errors import FileFormatError  # noqa: PLC0415

    m = re.match(r"pairs\[(\d+)\] = (.*)", str(exc))
    if lines is not None and m and int(m.group(1)) < len(lines):
        raise FileFormatError(args.pairs, lines[int(m.group(1))], m.group(2)) from None


def cmd_bench(args):
    """``dgraph bench``: a progress bar counts the runs (dgraph's and the anchors') on a terminal."""
    from .progress import activity  # noqa: PLC0415

    with activity(f"bench {args.algorithm}", progress=False if args.quiet else None):
        return _bench(args)


def _report(text):
    """Print a benchmark's report, the progress bar cleared first."""
    from .progress import end_activity  # noqa: PLC0415

    end_activity()
    print(text)


def _bench(args):
    from .bench import bench_bfs, format_report  # noqa: PLC0415
    from .bench.algorithms import ALGORITHMS as BENCH_ALGORITHMS  # noqa: PLC0415

    from .bench.breadth import ALGORITHMS as BREADTH  # noqa: PLC0415

    known = ("bfs", *BENCH_ALGORITHMS, *BREADTH, "superstep")
    if args.algorithm not in known:
        raise InputError(f"bench {args.algorithm!r}: available benchmarks: {', '.join(known)}")
    if not args.partitions and (args.executor not in (None, "local") or args.scheduler):
        raise InputError(f"bench {args.algorithm}: --executor {args.executor or ''} and --scheduler run a "
                         f"partitioned graph; add --partitions P")
    if args.build == "stream" and (not args.partitions or args.generate is None):
        raise InputError("--build stream makes each worker generate its own shard: it needs --partitions P and "
                         "--generate KIND:...")
    if args.sources is not None and (args.algorithm != "bc" or args.sources < 1):
        raise InputError(f"--sources {args.sources}: bench bc only, a positive number of sources")
    if args.algorithm == "superstep" and args.file is None and args.generate is None:
        args.generate = "rmat:scale=10"
    if args.json is not None:  # before the benchmark runs, not after
        from .io.writers import check_writable  # noqa: PLC0415

        if not args.json.strip():
            raise InputError("--json '': expected a file name")
        check_writable(args.json, overwrite=True)
    G = _load(args)
    source = args.source
    if source not in (None, "max-degree", "corner"):
        source = _vertex_arg(G, source, "source")
    client = _client(args) if args.partitions else None
    if args.algorithm == "superstep":
        from .bench.superstep import bench_superstep, format_superstep  # noqa: PLC0415

        if not args.partitions:
            raise InputError("bench superstep needs --partitions P")
        PG = G.partition(args.partitions, args.method, client=client or False, backend=args.backend)
        fig = bench_superstep(PG, executor=args.executor or ("spmd" if client else "local"),
                              exchange=_exchange(args), supersteps=args.supersteps, repeat=args.repeat,
                              transport=args.transport)
        _report(format_superstep(fig))
    elif args.algorithm in BREADTH:
        from .bench.algorithms import format_algorithm_report  # noqa: PLC0415
        from .bench.breadth import bench_breadth  # noqa: PLC0415

        if args.partitions:
            raise InputError(f"bench {args.algorithm}: one graph on this process only (no --partitions yet)")
        if args.repeat < 1:
            raise InputError(f"--repeat {args.repeat}: expected at least 1")
        fig = bench_breadth(G, args.algorithm, backend=args.backend, repeat=args.repeat,
                            anchors=not args.no_anchor)
        _report(format_algorithm_report(fig))
    elif args.algorithm in BENCH_ALGORITHMS:
        from .bench.algorithms import bench_algorithm, format_algorithm_report  # noqa: PLC0415

        if args.iterations is not None and args.iterations < 0:
            raise InputError(f"--iterations {args.iterations}: expected a non-negative integer")
        if args.repeat < 1:
            raise InputError(f"--repeat {args.repeat}: expected at least 1")
        fig = bench_algorithm(G, args.algorithm, source=source, iterations=args.iterations, damping=args.damping,
                              delta=args.delta, backend=args.backend, repeat=args.repeat,
                              anchors=not args.no_anchor, sources=args.sources, **_partitioned(args, client))
        _report(format_algorithm_report(fig))
    elif args.partitions:
        from .bench.algorithms import bench_algorithm, format_algorithm_report  # noqa: PLC0415

        fig = bench_algorithm(G, "bfs", source=source, backend=args.backend, repeat=args.repeat,
                              anchors=not args.no_anchor, **_partitioned(args, client))
        _report(format_algorithm_report(fig))
    else:
        fig = bench_bfs(G, source=source, backend=args.backend, direction=args.direction, repeat=args.repeat,
                        anchors=not args.no_anchor)
        _report(format_report(fig))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(fig, fh, indent=2, default=str)
    return 0


def _partitioned(args, client):
    """bench_algorithm's options for a partitioned run (none without --partitions)."""
    if not args.partitions:
        return {}
    generate = None
    if args.generate is not None:
        from .bench.spec import parse_generate  # noqa: PLC0415

        kind, params = parse_generate(args.generate)
        params = {k: v for k, v in params.items() if k not in ("directed", "weighted", "backend")}
        generate = (kind, params, params.pop("seed", 0))
    return dict(partitions=args.partitions, executor=args.executor, exchange=_exchange(args), method=args.method,
                client=client, transport=args.transport, build=args.build, generate=generate)


def cmd_run(args):
    from pathlib import Path  # noqa: PLC0415

    from .pipeline import load_pipeline  # noqa: PLC0415

    p, named = load_pipeline(args.file, args.set or ())
    results = args.results or named or str(Path("results") / Path(args.file).stem)
    if args.dry_run:
        print(p.plan(results))
        p.check_outputs(results, args.overwrite)  # what would stop the run: after the plan, as its error
        print("dry run: nothing was started, read or written")
        return 0
    p.check_outputs(results, args.overwrite)
    from .display import fmt_seconds, plural  # noqa: PLC0415

    run = p.run(results, overwrite=args.overwrite, progress=None if not args.quiet else False)
    for rec in run.manifest["steps"]:
        if rec["run"] == "subgraph":
            print(f"{rec['name']:>12}  subgraph: {plural(rec['vertices'], 'vertex', 'vertices')}, "
                  f"{plural(rec['edges'], 'edge')}")
        else:
            touched = f", {plural(rec['edges_touched'], 'edge')} touched" if rec["edges_touched"] else ""
            startup = (rec.get("phases") or {}).get("startup_s") or 0.0
            apart = f" (start-up {fmt_seconds(startup)} apart)" if startup >= 0.0005 else ""
            print(f"{rec['name']:>12}  {rec['run']}: {plural(rec['supersteps'], 'superstep')}, "
                  f"{rec['time_s'] * 1e3:,.1f} ms{touched}{apart}")
    for out in run.manifest["outputs"]:
        print(f"{'output':>12}  {out['from']} -> {out['to']}")
    plots = [rec["plot"] for rec in run.manifest["steps"] if rec.get("plot")]
    print(f"{'results':>12}  {Path(results) / 'manifest.json'}; plots: {Path(results) / 'plots'}/ ({len(plots)} PNG)")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="dgraph", description="Graph analytics on numpy/CuPy and Dask.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("info", help="sizes and degrees of a graph; --system: what dgraph found on this machine")
    _graph_args(p)
    p.add_argument("--system", action="store_true",
                   help="versions, numba threads, GPUs and their topology, NCCL/UCX, the cluster dgraph would use "
                        "and the knobs set (for bug reports; same as dgraph.show_versions())")
    p.set_defaults(func=cmd_info)

    for name, spec in ALGORITHMS.items():
        p = sub.add_parser(name, help=spec["help"])
        _graph_args(p)
        if spec.get("source"):
            p.add_argument("--source", required=True, help="source vertex id")
        for flag, kw in spec["flags"]:
            p.add_argument(flag, **kw)
        p.add_argument("-o", "--output", help="write the result (.csv .parquet .npz, or graphalytics)")
        p.add_argument("--output-format", help="csv, parquet, npz or graphalytics (default: by extension)")
        p.add_argument("--column", help="the column a graphalytics file holds (default: the first)")
        p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
        p.add_argument("--quiet", action="store_true", help="no progress bar or log lines on stderr")
        _dist_args(p)
        p.set_defaults(func=cmd_algorithm)

    p = sub.add_parser("run", help="run a pipeline file (YAML): steps, outputs, manifest and plots",
                       description="Run a pipeline file. Input paths are read relative to the file's folder; "
                                   "output paths (outputs[].to) are relative to the results folder.")
    p.add_argument("file", help="the pipeline file (.yaml), e.g. pipelines/quickstart.yaml")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a value, e.g. steps.rank.iterations=30 or graph.source.scale=12 (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="print the plan and touch nothing")
    p.add_argument("--results", help="the results folder (default: the file's results: key, else results/<file stem>)")
    p.add_argument("--overwrite", action="store_true", help="replace existing outputs and an earlier run's results")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="benchmarks, printed beside their anchors")
    p.add_argument("algorithm", help="bfs, sssp, pagerank, wcc, cdlp, triangle_count, lcc, bc, core_number, scc, "
                                     "louvain, hits, jaccard, random_walks, or superstep (an empty superstep: "
                                     "executor overhead)")
    _graph_args(p)
    p.add_argument("--source", default=None, help="bfs, sssp, bc: 'max-degree' (default), 'corner' or a vertex id")
    p.add_argument("--sources", type=int, default=None,
                   help="bc: number of sources (default 1: --source alone; the others sampled, seed 0, among the "
                        "vertices with edges)")
    p.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])
    p.add_argument("--iterations", type=int, default=None,
                   help="pagerank (default 20) and cdlp (default 10): a fixed number of iterations")
    p.add_argument("--damping", type=float, default=0.85, help="pagerank: damping factor (default 0.85)")
    p.add_argument("--delta", type=float, default=None, help="sssp: bucket width (default: automatic)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-anchor", action="store_true", help="skip the anchor measurements")
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.add_argument("--supersteps", type=int, default=50, help="bench superstep: supersteps per run")
    p.add_argument("--build", default="cut", choices=["cut", "stream"],
                   help="with --partitions: cut the graph on the client and send the shards (default), or "
                        "stream: each worker generates its own shard (generate_partitioned; needs --generate)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or log lines on stderr")
    _dist_args(p)
    p.set_defaults(func=cmd_bench)
    return parser


def _version():
    from . import __version__  # noqa: PLC0415

    return f"dgraph {__version__}"


def main(argv=None):
    from .log import command_logging  # noqa: PLC0415

    args = build_parser().parse_args(argv)
    try:
        with command_logging(quiet=getattr(args, "quiet", False)):
            return args.func(args)
    except DGraphError as exc:
        print(f"dgraph: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dgraph: interrupted", file=sys.stderr)
        return 130
    finally:
        if "dgraph.cluster.connect" in sys.modules:  # close the client first, then its cluster
            from .cluster import close  # noqa: PLC0415

            close()


if __name__ == "__main__":
    sys.exit(main())
