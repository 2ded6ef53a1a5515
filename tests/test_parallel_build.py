"""Shards built on the workers (dgraph.partition.stream): the same shards and results as the whole graph.

Every build path: generated slices, Parquet files, edge-list files, dask
DataFrames; numpy shards here (CuPy shards with NCCL: tests/test_multigpu.py).
The build itself is first checked in one process, its ranks as threads.
"""

import numpy as np
import pytest
from threads_collective import run_ranks

import dgraph
from dgraph.backend import to_numpy
from dgraph.generators import rmat, uniform
from dgraph.generators.weights import parse_weights
from dgraph.partition.plan import PartitionPlan
from dgraph.partition.shard import shard_from_graph
from dgraph.partition.sources import GeneratedEdges
from dgraph.partition.stream import BuildSpec, build_rank, hash_plan


def _check_same_shard(got, ref, what):
    np.testing.assert_array_equal(got.indptr, ref.indptr, err_msg=what)
    np.testing.assert_array_equal(got.indices, ref.indices, err_msg=what)
    if ref.weights is None:
        assert got.weights is None, what
    else:
        np.testing.assert_array_equal(got.weights, ref.weights, err_msg=what)
        assert got.weights.dtype == ref.weights.dtype, what
    np.testing.assert_array_equal(got.degree, ref.degree, err_msg=what)
    np.testing.assert_array_equal(got.global_rows(), ref.global_rows(), err_msg=what)
    if ref.directed:
        for a, b in zip(got.csc(edge_ids=False)[:2], ref.csc(edge_ids=False)[:2]):
            np.testing.assert_array_equal(a, b, err_msg=what + " csc")


def _plan_of(summary, n, p, seed=0):
    if summary["bounds"] is not None:
        return PartitionPlan.from_bounds(np.asarray(summary["bounds"]))
    return hash_plan(n, p, seed)


CASES = [  # kind, params, directed, weights, self_loops
    ("rmat", {"scale": 9, "edgefactor": 4}, False, None, True),
    ("rmat", {"scale": 9, "edgefactor": 4}, True, None, True),
    ("rmat", {"scale": 8, "edgefactor": 8}, False, {}, True),
    ("rmat", {"scale": 8, "edgefactor": 8}, True, {"weights": "int", "max_weight": 3}, False),
    ("uniform", {"num_vertices": 300, "num_edges": 1500}, False, {"weights": "int", "max_weight": 2}, False),
    ("uniform", {"num_vertices": 50, "num_edges": 2000}, True, None, True),   # many duplicates
]


def _case(case, backend):
    """CASES[case]: (kind, parsed params, weight spec, n, m, directed, self_loops, the Graph, seed 5)."""
    kind, params, directed, weights, self_loops = CASES[case]
    mod = {"rmat": rmat, "uniform": uniform}[kind]
    prm = mod.parse(dict(params))
    wspec = parse_weights(weights is not None, dict(weights or {}))
    n, m = mod.size(prm)
    G = dgraph.generate(kind, seed=5, directed=directed, weighted=weights is not None, self_loops=self_loops,
                        backend=backend, **params, **(weights or {}))
    return kind, prm, wspec, n, m, directed, self_loops, G


@pytest.mark.parametrize("backend", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("method", ["range", "hash"])
def test_ranks_build_the_shards_of_the_whole_graph(case, method, backend):
    """The ranks as threads of this process (on one GPU with CuPy): the shards G.partition cuts."""
    from dgraph.backend import get_xp, gpu_available

    if backend == "cupy" and not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    xp = get_xp(backend)
    kind, prm, wspec, n, m, directed, self_loops, G = _case(case, "numpy")
    for p in (1, 2, 3, 4):
        cuts = np.linspace(0, m, p + 1).astype(int)
        spec = BuildSpec(num_parts=p, directed=directed, method=method, seed=3, self_loops=self_loops,
                         num_vertices=n, weighted=wspec is not None, batch=97)

        def rank(coll):
            src = [GeneratedEdges(kind, prm, 5, cuts[coll.rank], cuts[coll.rank + 1], wspec)]
            return build_rank(coll, src, spec, xp)

        results, errors = run_ranks(p, rank)
        assert errors == [None] * p
        assert sum(s.num_arcs for s, _ in results) == G.num_arcs
        plan = _plan_of(results[0][1], n, p, seed=3)
        for q, (shard, summary) in enumerate(results):
            assert shard.backend == backend
            _check_same_shard(shard.to("numpy"), shard_from_graph(G, plan, q), f"{kind} {method} p={p} q={q}")
            assert summary["arcs"] == shard.num_arcs and summary["slots"] >= shard.num_arcs


def test_a_bad_id_on_one_rank_stops_every_rank():
    """The rank that read the bad id raises its own error; the others stop (no one waits forever)."""
    from dgraph.exchange.collective import PeerFailed

    class Bad(GeneratedEdges):
        def batches(self, xp, size, cache):
            yield np.array([0, 1]), np.array([1, -4]), None

    prm = rmat.parse({"scale": 5})
    spec = BuildSpec(num_parts=3, directed=False, num_vertices=32)

    def rank(coll):
        src = Bad("rmat", prm, 0, 0, 1) if coll.rank == 1 else GeneratedEdges("rmat", prm, 0, 0, 100)
        return build_rank(coll, [src], spec, np)

    _, errors = run_ranks(3, rank)
    assert isinstance(errors[1], dgraph.InputError) and "target id -4 < 0" in str(errors[1])
    assert all(isinstance(errors[q], PeerFailed) for q in (0, 2))


# -- on a Dask cluster ----------------------------------------------------------------------------

ALGORITHMS = [
    ("bfs", {"source": "hub"}),
    ("sssp", {"source": "hub"}),
    ("pagerank", {"iterations": 12}),
    ("wcc", {}),
    ("cdlp", {"iterations": 4}),
    ("lcc", {}),
    ("triangle_count", {}),
    ("bc", {"sources": "hubs"}),
]


def _hub(G):
    return int(np.argmax(to_numpy(G.out_degree())))


def _run(name, target, G, opts):
    kw = dict(opts)
    if kw.get("source") == "hub":
        kw["source"] = _hub(G)
    if kw.get("sources") == "hubs":
        kw["sources"] = [int(v) for v in np.argsort(-to_numpy(G.out_degree()), kind="stable")[:3]]
    if name == "triangle_count" and G.directed:
        return None
    if name == "sssp" and not G.weighted:
        return None
    return getattr(dgraph, name)(target, **kw)


def _check_same_results(PG, G, what):
    assert PG.num_arcs == G.num_arcs, what
    for name, opts in ALGORITHMS:
        ref = _run(name, G, G, opts)
        if ref is None:
            continue
        got = _run(name, PG, G, opts)
        for col in ref.columns:
            np.testing.assert_array_equal(to_numpy(got.raw(col)), to_numpy(ref.raw(col)),
                                          err_msg=f"{what}: {name} {col}")


@pytest.mark.parametrize("directed", [False, True])
def test_generate_partitioned_gives_the_same_results(client, directed):
    G = dgraph.generate("rmat", scale=8, edgefactor=6, seed=2, directed=directed, weighted=True)
    for p, method in ((2, "range"), (3, "hash")):
        PG = dgraph.generate_partitioned("rmat", p, client=client, scale=8, edgefactor=6, seed=2,
                                         directed=directed, weighted=True, method=method, chunks=3)
        assert PG.build_stats["transport"] == "dask" and len(PG.build_stats["partitions"]) == p
        _check_same_results(PG, G, f"generated p={p} {method}")


def _edges(G):
    s, d, w = G.edges()
    return to_numpy(s), to_numpy(d), None if w is None else to_numpy(w)


def test_read_partitioned_parquet_and_text(client, tmp_path):
    import pandas as pd

    G = dgraph.generate("uniform", num_vertices=400, num_edges=2400, seed=4, directed=True, weighted=True,
                        weights="int", max_weight=5)
    s, d, w = _edges(G)
    pieces = np.array_split(np.arange(len(s)), 5)
    (tmp_path / "pq").mkdir()
    (tmp_path / "el").mkdir()
    for i, idx in enumerate(pieces):
        pd.DataFrame({"src": s[idx], "dst": d[idx], "weight": w[idx]}).to_parquet(tmp_path / "pq" / f"part-{i}.parquet")
        with open(tmp_path / "el" / f"part-{i}.wel", "w") as f:
            f.write("# an edge list piece\n")
            f.writelines(f"{a} {b} {c}\n" for a, b, c in zip(s[idx], d[idx], w[idx]))
    (tmp_path / "pq" / "_SUCCESS").write_text("")
    PG = dgraph.read_partitioned(tmp_path / "pq", 3, directed=True, num_vertices=400, client=client)
    _check_same_results(PG, G, "parquet folder")
    PG = dgraph.read_partitioned(str(tmp_path / "el" / "part-*.wel"), 2, directed=True, num_vertices=400,
                                 client=client, method="hash")
    assert PG.weighted
    _check_same_results(PG, G, "edge-list glob")


def test_read_partitioned_errors_name_the_file(client, tmp_path):
    import pandas as pd

    pd.DataFrame({"src": [0, 1], "dst": [1, 2]}).to_parquet(tmp_path / "a.parquet")
    pd.DataFrame({"src": [0, 1], "dst": [1, -2]}).to_parquet(tmp_path / "b.parquet")
    with pytest.raises(dgraph.InputError, match=r"b\.parquet: target id -2 < 0"):
        dgraph.read_partitioned(tmp_path, 2, client=client)
    pd.DataFrame({"src": ["x", "y"], "dst": [1, 2]}).to_parquet(tmp_path / "b.parquet")
    with pytest.raises(dgraph.FileFormatError, match="integer vertex ids"):
        dgraph.read_partitioned(tmp_path, 2, client=client)
    with pytest.raises(dgraph.MissingFileError, match="no such file"):
        dgraph.read_partitioned(tmp_path / "nothing-*.parquet", 2, client=client)
    (tmp_path / "c.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    with pytest.raises(dgraph.InputError, match="extension '.mtx'"):
        dgraph.read_partitioned(tmp_path / "c.mtx", 1, client=client)
    # the cluster is fine after the failed builds
    PG = dgraph.read_partitioned(tmp_path / "a.parquet", 2, client=client)
    assert PG.num_vertices == 3 and PG.num_arcs == 4


def test_from_dask_dataframe_weighted(client):
    import dask.dataframe as dd
    import pandas as pd

    G = dgraph.generate("rmat", scale=7, edgefactor=5, seed=8, weighted=True)
    s, d, w = _edges(G)
    ddf = dd.from_pandas(pd.DataFrame({"a": s, "b": d, "w": w}), npartitions=4)
    PG = dgraph.from_dask_dataframe(ddf, 2, src="a", dst="b", weight="w", num_vertices=G.num_vertices,
                                    client=client)
    _check_same_results(PG, G, "dask dataframe")


def test_a_lost_shard_is_rebuilt_alone_from_the_sources(client):
    """What ensure_shards does for a shard lost with its worker: the same shard, built by one worker."""
    PG = dgraph.generate_partitioned("rmat", 3, client=client, scale=8, seed=6, weighted=True, method="hash")
    before = PG.local_shards()
    for q in range(3):
        again = PG._rebuild(q, PG.workers[(q + 1) % 3]).result()
        _check_same_shard(again, before[q], f"rebuilt shard {q}")


# -- results that stay on the workers ---------------------------------------------------------------

@pytest.mark.parametrize("executor", ["spmd", "tasks"])
def test_to_dask_makes_each_partition_on_its_worker(client, executor):
    G = dgraph.from_edges(["b", "c", "d", "e", "c"], ["c", "d", "b", "f", "f"], directed=True)
    ref_bfs = dgraph.bfs(G, "c").to_pandas()
    ref_pr = dgraph.pagerank(G, iterations=5).to_pandas()
    for method in ("range", "hash"):
        PG = G.partition(2, method=method, client=client)
        r = dgraph.bfs(PG, "c", executor=executor)
        assert r.on_workers
        ddf = r.to_dask()
        assert ddf.npartitions == 2 and r.on_workers   # nothing was fetched to the client
        got = client.compute(ddf).result().sort_values("vertex").reset_index(drop=True)
        want = ref_bfs.sort_values("vertex").reset_index(drop=True)
        for col in want.columns:
            assert got[col].tolist() == want[col].tolist(), f"{method} {col}"
        r = dgraph.pagerank(PG, iterations=5, executor=executor)
        got = client.compute(r.to_dask()).result().sort_values("vertex").reset_index(drop=True)
        want = ref_pr.sort_values("vertex").reset_index(drop=True)
        np.testing.assert_array_equal(got["pagerank"].to_numpy(), want["pagerank"].to_numpy())
        # read after to_dask: the client fetch still works, and then to_dask cuts the fetched frame
        assert r.to_pandas().shape == (5, 2) and not r.on_workers
        assert r.to_dask().npartitions == 2


def test_partitioned_result_to_a_parquet_dataset(client, tmp_path):
    import pandas as pd

    PG = dgraph.generate_partitioned("rmat", 3, client=client, scale=8, seed=3)
    r = dgraph.wcc(PG)
    out = dgraph.write(r, tmp_path / "wcc.parquet")
    assert out.is_dir() and sorted(f.name for f in out.iterdir()) == [f"part.{q}.parquet" for q in range(3)]
    got = pd.read_parquet(out).sort_values("vertex")
    np.testing.assert_array_equal(got["component"].to_numpy(),
                                  to_numpy(dgraph.wcc(dgraph.generate("rmat", scale=8, seed=3)).raw("component")))
    with pytest.raises(dgraph.OutputExistsError):
        dgraph.write(dgraph.wcc(PG), tmp_path / "wcc.parquet")


@pytest.mark.parametrize("backend", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_streamed_whole_graph_equals_generate(backend, case):
    """What dgraph.generate does on a GPU too small for its one-sort build: the same graph, bit for bit."""
    from dgraph.backend import gpu_available
    from dgraph.generators import _streamed

    if backend == "cupy" and not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    from dgraph.backend import get_xp

    kind, prm, wspec, n, m, directed, self_loops, G = _case(case, backend)
    S = _streamed(kind, prm, 5, wspec, n, m, directed, self_loops, G.name, get_xp(backend))
    assert S.name == G.name and S.backend == backend and S.directed == directed
    for a, b in ((S.indptr, G.indptr), (S.indices, G.indices), (S.weights, G.weights)):
        if b is None:
            assert a is None
        else:
            np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
            assert a.dtype == b.dtype
    if directed:
        for a, b in zip(S.csc(edge_ids=False)[:2], G.csc(edge_ids=False)[:2]):
            np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
        np.testing.assert_array_equal(to_numpy(dgraph.bfs(S, 0, direction="pull").raw("parent")),
                                      to_numpy(dgraph.bfs(G, 0, direction="pull").raw("parent")))
