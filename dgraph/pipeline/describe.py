"""The plan of a pipeline as text (``dgraph run --dry-run``, ``Pipeline.plan()``): nothing is started,
generated, read or written."""

from __future__ import annotations

from . import checks


def _kv(d):
    return ", ".join(f"{k}={v!r}" for k, v in d.items())


def describe_graph(graph):
    if not isinstance(graph, dict):
        return repr(graph)
    src = dict(graph["source"])
    if "generate" in src:
        kind = src.pop("generate")
        text = f"generate {kind}({_kv(src)})"
    else:
        text = f"read {src['path']}" + (f" as {src['format']}" if "format" in src else "")
    flags = [k for k in ("directed", "weighted") if graph.get(k)]
    text += f", {' '.join(flags) if flags else 'undirected'}" if "directed" in graph or flags else ""
    return text + f", backend {graph.get('backend', 'numpy')}"


def describe_cluster(cluster):
    if cluster is None:
        return "none: everything runs in this process"
    if not isinstance(cluster, dict):
        return f"the given client ({getattr(cluster, 'scheduler', None) and cluster.scheduler.address})"
    kind = cluster.get("kind", "local")
    if kind == "address":
        return f"the scheduler at {cluster['address']}"
    workers = cluster.get("workers")
    what = "LocalCUDACluster (one worker per GPU)" if kind == "cuda" else "local Dask cluster"
    return (f"{what}, {workers if workers else 'default'} workers, {cluster.get('protocol', 'tcp')}"
            f" (started for the run, closed after it)")


def describe_plan(p, results):
    lines = [f"pipeline {p.name}",
             f"  cluster    {describe_cluster(p.cluster)}",
             f"  graph      {describe_graph(p.graph)}"]
    if p.partition:
        lines.append(f"  partition  {p.partition['parts']} parts, {p.partition.get('method', 'range')}"
                     f"{' (every step graph is partitioned this way)' if any(s['run'] == 'subgraph' for s in p.steps) else ''}")
    lines.append("  steps")
    width = max((len(s["name"]) for s in p.steps), default=4)
    for i, s in enumerate(p.steps, 1):
        on = s["graph"] or "main"
        if s["run"] == checks.SUBGRAPH:
            (key, value), = s["options"].items()
            if key == "k_core_of":
                cores, k = checks.k_core_of(value)
                what = (f"the main core (largest core number) of {cores}" if k is None
                        else f"the {k}-core (core number >= {k}) of {cores}")
            else:
                what = {"largest_component_of": f"the largest component of {value}",
                        "reachable_from": f"the vertices {value} reached",
                        "vertices": f"{len(value)} listed vertices"}[key]
            lines.append(f"    {i}. {s['name']:<{width}}  subgraph of {on}: {what}")
            continue
        opts = dict(s["options"])
        if isinstance(opts.get("pairs"), list):  # a long list would flood the plan
            opts["pairs"] = f"<{len(opts['pairs'])} pairs>"
        run_opts = {k: opts.pop(k) for k in ("executor", "exchange", "fanout", "transport") if k in opts}
        executor = run_opts.get("executor") or (("spmd" if p.cluster is not None else "local") if p.partition
                                               else "local")
        where = f"on {on}, executor {executor}"
        if p.partition:
            ex = run_opts.get("exchange", "butterfly")
            fanout = run_opts.get("fanout")
            if isinstance(ex, dict):
                ex, fanout = ex["kind"], ex.get("fanout", fanout)
            where += f", exchange {ex}" + (f":{fanout}" if fanout else "")
        lines.append(f"    {i}. {s['name']:<{width}}  {s['run']}({_kv(opts)}) {where}")
    if p.outputs:
        from .folder import describe_state  # noqa: PLC0415

        lines.append("  outputs")
        for o, path in p.output_paths(results):
            fmt = o["format"] or path.suffix.lstrip(".")
            lines.append(f"    {o['from']} -> {path} ({fmt}; {describe_state(p, results, o['rel'])})")
    if results is not None:
        lines.append(f"  results    {results}/ (manifest.json, plots/<step>.png per algorithm step)")
    else:
        lines.append("  results    kept in memory (no folder)")
    return "\n".join(lines)
