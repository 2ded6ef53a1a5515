"""Graph.subgraph: the induced subgraph keeps the user's ids, weights and directedness (against NetworkX)."""

import numpy as np
import pytest
from graphs import corpus, weighted

import dgraph
from dgraph.errors import InputError, VertexNotFoundError


def _nx(G):
    H = G.to_networkx()
    return {(u, v): d.get("weight") for u, v, d in H.edges(data=True)}, set(H.nodes)


@pytest.mark.parametrize("seed", range(3))
def test_matches_networkx_subgraph(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for label, kw in corpus(40, seed=seed):
        G = dgraph.from_edges(**weighted(kw, rng))
        if G.num_vertices == 0:
            continue
        users = G.ids.user_array()
        keep = users[rng.random(len(users)) < 0.6]
        S = G.subgraph(list(keep))
        ref = G.to_networkx().subgraph(list(keep))
        assert S.directed == G.directed and S.weighted == G.weighted, label
        assert set(S.ids.user_array().tolist()) == set(keep.tolist()), label
        got_edges, got_nodes = _nx(S)
        assert got_nodes == set(ref.nodes), label
        assert got_edges.keys() == {(u, v) for u, v in ref.edges} or (
            not G.directed and {frozenset(e) for e in got_edges} == {frozenset(e) for e in ref.edges}), label
        for (u, v), w in got_edges.items():
            rw = ref.edges[u, v].get("weight")
            assert w == rw, (label, u, v)
        checked += 1
    assert checked >= 30


def test_mask_and_errors():
    G = dgraph.from_edges(["a", "b", "c"], ["b", "c", "a"], directed=True)
    S = G.subgraph(np.array([True, True, False]))
    assert S.num_vertices == 2 and S.num_edges == 1 and list(S.ids.user_array()) == ["a", "b"]
    assert dgraph.bfs(S, "a").to_pandas()["depth"].tolist() == [0, 1]
    with pytest.raises(InputError, match="a boolean mask needs 3 entries"):
        G.subgraph(np.array([True]))
    with pytest.raises(VertexNotFoundError, match="zz"):
        G.subgraph(["a", "zz"])
    assert G.subgraph([]).num_vertices == 0
