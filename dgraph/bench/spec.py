"""Parse the graph a benchmark or CLI command works on: a file, or ``--generate kind:k=v,...``."""

from __future__ import annotations

import ast

from ..errors import InputError


def parse_generate(spec: str):
    """``"rmat:scale=20,edgefactor=16"`` -> ``("rmat", {"scale": 20, "edgefactor": 16})``."""
    kind, _, rest = spec.partition(":")
    if not kind:
        raise InputError(f"--generate {spec!r}: expected KIND[:key=value,...], e.g. rmat:scale=20")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InputError(f"--generate {spec!r}: {item!r} is not key=value")
        try:
            params[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key.strip()] = value.strip()
    return kind.strip(), params


def load_graph(path=None, generate=None, *, fmt=None, directed=None, weighted=None, backend="numpy", seed=None):
    """The Graph named by a path or a generator spec, on ``backend``."""
    import dgraph  # noqa: PLC0415

    if (path is None) == (generate is None):
        raise InputError("give a graph file or --generate KIND:key=value,... (exactly one)")
    if generate is not None:
        kind, params = parse_generate(generate)
        if seed is not None:
            params.setdefault("seed", seed)
        if directed is not None:
            params.setdefault("directed", directed)
        if weighted is not None:
            params.setdefault("weighted", weighted)
        return dgraph.generate(kind, backend=backend, **params)
    G = dgraph.read(path, format=fmt, directed=directed, weighted=weighted)
    return G if backend in (None, "numpy") else G.to(backend)
