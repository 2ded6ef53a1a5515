"""Medusa's edge-message-vertex (EMV) model: write a graph algorithm as small sequential-looking
functions over one vertex, edge or message; dgraph traces them once into array expressions and runs
them vectorized (numpy or CuPy) on every executor, partition count and backend.

>>> import dgraph
>>> @dgraph.emv.edge_list
... def send_rank(v, edges): edges.send(v.rank / v.out_degree)
>>> @dgraph.emv.vertex
... def update(v, msg): v.rank = 0.15 / v.graph.num_vertices + 0.85 * msg
>>> prog = dgraph.emv.Program(vertex_state={"rank": "f8"}, message="f8", combiner="sum",
...                           steps=[send_rank, update], max_iterations=30)
>>> G = dgraph.generate("grid", rows=3, cols=3)
>>> r = prog.run(G, init={"rank": 1.0 / G.num_vertices})
>>> r.supersteps, round(float(r.rank.sum()), 9)   # no dangling vertex: the ranks still sum to 1
(30, 1.0)

See docs/EMV.md for the API kinds, queue mode, halting, replicas and multi-hop replication.
"""

from .api import Step, edge, edge_list, message, message_list, vertex
from .program import Program
from .trace import where, minimum, maximum

__all__ = ["Program", "Step", "edge", "edge_list", "message", "message_list", "vertex", "where", "minimum",
           "maximum"]
