"""PageRank in the edge-message-vertex model, in a dozen lines, checked against dgraph.pagerank.

    python3 examples/emv_pagerank.py            # one partition
    python3 examples/emv_pagerank.py 3          # three partitions in this process

A grid has no dangling vertices, so the plain rule below is exactly Graphalytics PageRank there;
dgraph/emv/examples.py:pagerank_program adds the dangling-vertex aggregator for every graph.
"""

import sys

import numpy as np

import dgraph
from dgraph import emv


@emv.edge_list                   # ELIST: per vertex, its out-edges; may send a message along each
def send_rank(v, edges):
    edges.send(v.rank / v.out_degree)


@emv.vertex                      # VERTEX: per vertex, after messages are combined
def update(v, msg):
    v.rank = 0.15 / v.graph.num_vertices + 0.85 * msg


prog = emv.Program(vertex_state={"rank": "f8"}, message="f8", combiner="sum",
                   steps=[send_rank, update], max_iterations=30)

if __name__ == "__main__":
    parts = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    G = dgraph.generate("grid", rows=100, cols=100)
    target = G if parts == 1 else G.partition(parts, client=False)
    r = prog.run(target, init={"rank": 1.0 / G.num_vertices})
    print(r.to_pandas().sort_values("rank", ascending=False).head())
    diff = np.abs(r.rank - dgraph.pagerank(G, iterations=30).pagerank).max()
    print(f"max |EMV - dgraph.pagerank| = {diff:.2e} on {parts} partition(s)")
