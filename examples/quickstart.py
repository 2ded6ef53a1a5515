"""dgraph in five minutes: build a graph, run algorithms, scale out, write results.

Run it as ``python examples/quickstart.py`` (a few seconds on a laptop CPU).
"""

import os
import tempfile

import dgraph


def main(scale=12):
    # a Graph500 R-MAT graph (the same seed gives the same graph on numpy and CuPy)
    G = dgraph.generate("rmat", scale=scale, edgefactor=16, seed=1)
    print(G)

    # breadth-first search from the highest-degree vertex
    source = int(G.out_degree().argmax())
    r = dgraph.bfs(G, source)
    print(r)
    print(r.stats[["superstep", "direction", "frontier", "edges", "time_s"]])

    # a few more algorithms; every result becomes a pandas DataFrame
    pr = dgraph.pagerank(G, iterations=20)
    comps = dgraph.wcc(G)
    table = pr.to_pandas().merge(comps.to_pandas(), on="vertex")
    print(table.sort_values("pagerank", ascending=False).head())

    # the same BFS on 4 partitions simulated in this process, then on a local Dask cluster
    PG = G.partition(4, method="range", client=False)
    assert (dgraph.bfs(PG, source).depth == r.depth).all()
    client = dgraph.cluster.connect(workers=2)
    PG = G.partition(4, client=client)
    for executor in ("spmd", "tasks"):
        rr = dgraph.bfs(PG, source, executor=executor, exchange="butterfly", fanout=2)
        assert (rr.depth == r.depth).all() and (rr.parent == r.parent).all()
        print(f"{executor}: same depths and parents, {rr.run_time * 1e3:.1f} ms")
    dgraph.cluster.close()

    # results to files: csv, parquet, npz, or the Graphalytics "vertex value" format
    out = os.path.join(tempfile.mkdtemp(), "bfs.parquet")
    dgraph.write(r, out)
    print("wrote", out)


if __name__ == "__main__":
    main()
