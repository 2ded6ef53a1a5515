#!/bin/bash
# Issue 23 part 8, the algorithms issue 23 added: core_number, scc and jaccard on the 1000 x 1000 grid and
# rmat20, before and after and the peers (networkit, igraph, scipy) interleaved in one process
# (benchmarks/cpu-ab.py), each target in a session of its own whose autogroup has nice -15 (as
# benchmarks/cpu-peers.sh: on the shared 2-core box the benchmark gets the cores as on a quiet one).
# BEFORE_TREE: a checkout of an older commit (`git archive REV | tar -x -C DIR`).
#   bash benchmarks/breadth-ab.sh OUT_DIR BEFORE_TREE [ROUNDS]
# Writes OUT_DIR/<target>.txt (wall and CPU medians) and <target>.load (uptime before and after).
# scc runs on the grid with both arcs of each edge (as benchmarks/breadth.py), and on directed rmat20;
# jaccard times the graph's first 1,000,000 edges as pairs (dgraph.bench.breadth._pairs).
set -u
out=${1:?an output folder}
B=${2:?a checkout of the commit before}
R=${3:-9}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
B=$(cd "$B" && pwd)
PEERS='setup:import numpy as np, networkit as nk, igraph as ig; from dgraph.bench.breadth import _simple_edges, _pairs; from dgraph.bench.algorithms import _networkit_graph, _igraph_graph, _Edges'
run() {  # name args...
  local name=$1; shift
  uptime > "$out/$name.load"
  (cd "$here" && PYTHONPATH=$here setsid bash -c 'echo -15 > /proc/self/autogroup 2>/dev/null; exec "$@"' ab \
    python3 benchmarks/cpu-ab.py "$@" > "$out/$name.txt" 2>&1)
  uptime >> "$out/$name.load"
}
CORE_SETUP='setup:G = G.drop_self_loops(); Gb = dgraph_before.graph.Graph(G.indptr, G.indices, directed=False); Gf = dgraph.Graph(G.indptr, G.indices, directed=False); E = _simple_edges(G); gn = _networkit_graph(nk, E); gi = _igraph_graph(ig, E)'
for g in "grid:rows=1000,cols=1000" "rmat:scale=20"; do
  n=${g%%:*}
  run core-$n "$g" $R --before $B "$PEERS" "$CORE_SETUP" \
    'before=dgraph_before.core_number(Gb, self_loops="ignore")' 'after=dgraph.core_number(G, self_loops="ignore")' \
    'after_unknown_loops=dgraph.core_number(Gf, self_loops="ignore")' \
    'networkit=nk.centrality.CoreDecomposition(gn).run().scores()' 'igraph=gi.coreness(mode="all")'
done
SCC_GRID='setup:s, d, _ = (np.asarray(a) for a in G.coo()); G = dgraph.from_edges(s, d, directed=True, num_vertices=G.num_vertices); Gb = dgraph_before.from_edges(s, d, directed=True, num_vertices=G.num_vertices)'
SCC_SETUP='setup:E = _Edges(G, False); import scipy.sparse as sp; from scipy.sparse.csgraph import connected_components as cc; A = sp.csr_matrix((np.ones(len(E.src)), (E.src, E.dst)), shape=(E.n, E.n)); gn = _networkit_graph(nk, E); gi = _igraph_graph(ig, E)'
NKSCC='networkit=(lambda c: (c.run(), c.getPartition().getVector()))(nk.components.StronglyConnectedComponents(gn))'
run scc-grid "grid:rows=1000,cols=1000" $R --before $B "$PEERS" "$SCC_GRID" "$SCC_SETUP" \
  'before=dgraph_before.scc(Gb)' 'after=dgraph.scc(G)' 'scipy=cc(A, directed=True, connection="strong")' "$NKSCC" \
  'igraph=gi.connected_components(mode="strong").membership'
run scc-rmat "rmat:scale=20,directed=True" $R --before $B "$PEERS" "$SCC_SETUP" \
  'before=dgraph_before.scc(Gb)' 'after=dgraph.scc(G)' 'scipy=cc(A, directed=True, connection="strong")' "$NKSCC" \
  'igraph=gi.connected_components(mode="strong").membership'
JAC_SETUP='setup:G = G.drop_self_loops(); Gb = dgraph_before.graph.Graph(G.indptr, G.indices, directed=False); P = _pairs(G); E = _simple_edges(G); E.directed = False; q = [(int(u), int(v)) for u, v in P]; gi = _igraph_graph(ig, E); gn = _networkit_graph(nk, E)'
run jac-grid "grid:rows=1000,cols=1000" $R --before $B "$PEERS" "$JAC_SETUP" \
  'before=dgraph_before.jaccard(Gb, P)' 'after=dgraph.jaccard(G, P)' 'igraph=gi.similarity_jaccard(pairs=q)' \
  'networkit=nk.linkprediction.JaccardIndex(gn).runOn(q)'
run jac-rmat "rmat:scale=20" 5 --before $B "$PEERS" "$JAC_SETUP" \
  'before=dgraph_before.jaccard(Gb, P)' 'after=dgraph.jaccard(G, P)' 'igraph=gi.similarity_jaccard(pairs=q)'
