"""from_scipy and from_networkx: directedness, weights, labels, isolated nodes."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dgraph
from dgraph.errors import InputError


def test_from_scipy_asymmetric_is_directed():
    m = sp.csr_matrix(np.array([[0, 2.5, 0], [0, 0, 1.0], [0, 0, 0]]))
    G = dgraph.from_scipy(m)
    assert G.directed and G.weighted and G.num_vertices == 3
    assert np.array_equal(G.to_scipy().toarray(), m.toarray())


def test_from_scipy_symmetric_is_undirected():
    a = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]])
    G = dgraph.from_scipy(sp.coo_array(a))
    assert not G.directed and not G.weighted  # all ones -> unweighted
    assert G.num_vertices == 4 and G.num_edges == 3
    assert np.array_equal(G.to_scipy().toarray(), a)


def test_from_scipy_explicit_options():
    a = np.array([[0, 3], [0, 0]])
    U = dgraph.from_scipy(sp.csr_array(a), directed=False)
    assert not U.directed and U.to_scipy().toarray().tolist() == [[0, 3], [3, 0]]
    W = dgraph.from_scipy(sp.csr_array(a), weighted=False)
    assert not W.weighted
    D = dgraph.from_scipy(sp.csr_array(np.ones((2, 2))), directed=True)
    assert D.directed and D.num_arcs == 4


def test_from_scipy_rejects_non_square():
    with pytest.raises(InputError, match="square"):
        dgraph.from_scipy(sp.csr_matrix((2, 3)))
    with pytest.raises(InputError, match="scipy.sparse"):
        dgraph.from_scipy([[0, 1], [1, 0]])


def test_from_networkx_keeps_labels_isolated_and_direction():
    g = nx.DiGraph()
    g.add_nodes_from(["x", "y", "z", "lonely"])
    g.add_edge("x", "y", weight=2.0)
    g.add_edge("y", "z", weight=0.5)
    G = dgraph.from_networkx(g)
    assert G.directed and G.weighted and G.num_vertices == 4
    assert sorted(G.vertex_ids().tolist()) == ["lonely", "x", "y", "z"]
    s, d, w = G.edges()
    assert set(zip(s.tolist(), d.tolist(), w.tolist())) == {("x", "y", 2.0), ("y", "z", 0.5)}
    back = G.to_networkx()
    assert set(back.edges) == set(g.edges) and set(back.nodes) == set(g.nodes)


def test_from_networkx_int_labels_undirected():
    g = nx.path_graph(4)
    g.add_node(10)
    G = dgraph.from_networkx(g)
    assert not G.directed and not G.weighted
    assert G.vertex_ids().tolist() == [0, 1, 2, 3, 10]
    assert G.num_edges == 3


def test_from_networkx_weight_only_if_every_edge_has_it():
    g = nx.Graph()
    g.add_edge(0, 1, weight=3)
    g.add_edge(1, 2)
    assert not dgraph.from_networkx(g).weighted
    with pytest.raises(InputError, match=r"\(1, 2\).*'weight'"):
        dgraph.from_networkx(g, weight="weight")
    g.add_edge(1, 2, cost=1.5)
    g.add_edge(0, 1, cost=2.5)
    G = dgraph.from_networkx(g, weight="cost")
    assert sorted(G.weights.tolist()) == [1.5, 1.5, 2.5, 2.5]
    assert not dgraph.from_networkx(g, weight=None).weighted


def test_from_networkx_bad_weight_and_labels():
    g = nx.Graph()
    g.add_edge(0, 1, weight="heavy")
    with pytest.raises(InputError, match=r"\(0, 1\).*weight='heavy'"):
        dgraph.from_networkx(g)
    h = nx.Graph()
    h.add_edge(0, "a")
    with pytest.raises(InputError, match="all integers or all strings"):
        dgraph.from_networkx(h)


def test_from_networkx_empty():
    G = dgraph.from_networkx(nx.Graph())
    assert G.num_vertices == 0 and G.num_edges == 0
