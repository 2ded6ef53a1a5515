"""The ``dgraph`` command line: ``info``, ``bfs``, ``bench``.

Every error that bad input causes is printed as one line
(``dgraph: error: ...``) and the command exits with status 2, leaving no
partial output file behind.
"""

from __future__ import annotations

import argparse
import json
import sys

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
    G = _load(args)
    s = G.summary()
    width = max(len(k) for k in s)
    for key, value in s.items():
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else value
        print(f"{key:<{width}}  {shown}")
    return 0


def cmd_bfs(args):
    import dgraph  # noqa: PLC0415

    if args.output:
        from .io import check_output_path  # noqa: PLC0415

        check_output_path(args.output, overwrite=args.overwrite, fmt=args.output_format)
    G = _load(args)
    r = dgraph.bfs(G, _vertex_arg(G, args.source, "source"), direction=args.direction)
    reached = int((r.to_numpy()["depth"] >= 0).sum())
    print(f"bfs from {args.source}: reached {reached:,} of {G.num_vertices:,} vertices in "
          f"{r.supersteps} supersteps, {r.run_time * 1e3:.2f} ms ({G.backend})")
    if args.output:
        dgraph.write(r, args.output, format=args.output_format, overwrite=args.overwrite)
        print(f"wrote {args.output}")
    return 0


def cmd_bench(args):
    from .bench import bench_bfs, format_report  # noqa: PLC0415

    if args.algorithm != "bfs":
        raise InputError(f"bench {args.algorithm!r}: available benchmarks: bfs")
    G = _load(args)
    source = args.source
    if source not in (None, "max-degree", "corner"):
        source = _vertex_arg(G, source, "source")
    fig = bench_bfs(G, source=source, backend=args.backend, direction=args.direction,
                    repeat=args.repeat, anchors=not args.no_anchor)
    print(format_report(fig))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(fig, fh, indent=2, default=str)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="dgraph", description="Graph analytics on numpy/CuPy and Dask.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("info", help="sizes and degrees of a graph")
    _graph_args(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("bfs", help="breadth-first search")
    _graph_args(p)
    p.add_argument("--source", required=True, help="source vertex id")
    p.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])
    p.add_argument("-o", "--output", help="write depth and parent (.csv .parquet .npz, or graphalytics)")
    p.add_argument("--output-format", help="csv, parquet, npz or graphalytics (default: by extension)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    p.set_defaults(func=cmd_bfs)

    p = sub.add_parser("bench", help="benchmarks, printed beside their anchors")
    p.add_argument("algorithm", help="bfs")
    _graph_args(p)
    p.add_argument("--source", default=None, help="'max-degree' (default), 'corner' or a vertex id")
    p.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-anchor", action="store_true", help="skip the anchor measurements")
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.set_defaults(func=cmd_bench)
    return parser


def _version():
    from . import __version__  # noqa: PLC0415

    return f"dgraph {__version__}"


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except DGraphError as exc:
        print(f"dgraph: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dgraph: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
