"""Bad input to the newer algorithms' public functions (random_walks, core_number, k_core, scc, louvain,
hits, jaccard): each gets a DGraphError subclass naming the argument and what was expected, before
anything runs, never a TypeError from inside an executor.  The algorithm-specific arguments are
tested beside each algorithm (test_random_walks, test_kcore, test_scc, test_louvain, test_hits,
test_jaccard); this file holds what they share.
"""

import networkx as nx
import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError, InputError

UNDIRECTED = dgraph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4])
DIRECTED = dgraph.from_edges([0, 1, 2, 3], [1, 2, 0, 4], directed=True)

#: name -> a call of the function with its graph and the keyword arguments given
CALLS = {
    "random_walks": lambda G, **kw: dgraph.random_walks(G, [0, 3], 4, **kw),
    "core_number": lambda G, **kw: dgraph.core_number(G, **kw),
    "k_core": lambda G, **kw: dgraph.k_core(G, 2, **kw),
    "scc": lambda G, **kw: dgraph.scc(G, **kw),
    "louvain": lambda G, **kw: dgraph.louvain(G, seed=1, **kw),
    "hits": lambda G, **kw: dgraph.hits(G, **kw),
    "jaccard": lambda G, **kw: dgraph.jaccard(G, [(0, 2)], **kw),
    "jaccard-stream": lambda G, **kw: dgraph.jaccard(G, **kw),
}
GRAPHS = {"scc": DIRECTED, "hits": DIRECTED}


def _graph(name):
    return GRAPHS.get(name, UNDIRECTED)


@pytest.mark.parametrize("name", list(CALLS))
def test_the_good_call_runs(name):
    """The calls below differ from this one only in the bad argument."""
    seen = []
    out = CALLS[name](_graph(name), **({} if name == "k_core" else {"on_step": seen.append}))
    assert out is not None
    assert name in ("k_core", "jaccard-stream") or seen   # on_step saw the supersteps


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("bad", [None, [1, 2], nx.path_graph(3), "graph.mtx"], ids=["None", "list", "nx", "str"])
def test_not_a_graph(name, bad):
    with pytest.raises(InputError, match=r"expected a dgraph\.Graph"):
        CALLS[name](bad)


@pytest.mark.parametrize("name", [n for n in CALLS if n != "k_core"])
@pytest.mark.parametrize("bad", [5, "print", [print]])
def test_on_step_not_a_function(name, bad):
    with pytest.raises(InputError, match=r"^on_step=.*: expected a function called with each superstep's record"):
        CALLS[name](_graph(name), on_step=bad)


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_progress_not_true_false_or_none(name, bad):
    with pytest.raises(InputError, match=r"^progress=.*: expected True \(a bar\), False \(none\) or None"):
        CALLS[name](_graph(name), progress=bad)


@pytest.mark.parametrize("name", [n for n in CALLS if n != "k_core"])
def test_bad_executor_and_backend_named(name):
    G = _graph(name)
    with pytest.raises(DGraphError, match=r"executor='nope': expected one of local, tasks, spmd"):
        CALLS[name](G, executor="nope")
    with pytest.raises(DGraphError, match=r"backend='tpu': expected one of numpy, cupy"):
        CALLS[name](G, backend="tpu")


def test_nothing_ran_before_the_error():
    """A bad on_step is refused before a superstep runs: the progress bar never started."""
    seen = []

    class Bad:
        pass

    with pytest.raises(InputError, match="on_step"):
        dgraph.core_number(UNDIRECTED, on_step=Bad())
    ok = dgraph.core_number(UNDIRECTED, on_step=seen.append, progress=np.bool_(False))
    assert seen and ok.core.tolist() == [2, 2, 2, 1, 1]
