"""One GPU SSSP run on rmat (weighted, max-degree source) between cudaProfilerStart/Stop, for a
timeline of its kernels, copies and syncs:

    nsys profile --capture-range=cudaProfilerApi -o /tmp/sssp python3 docs/bench-scripts/sssp-trace.py 20
    nsys stats -r cuda_gpu_trace,cuda_api_trace -f csv -o /tmp/sssp /tmp/sssp.nsys-rep
"""

import sys

import dgraph
from dgraph.backend import to_numpy
from dgraph.bench.bfs import pick_source
from dgraph.bench.spec import load_graph

import cupy as cp

scale = sys.argv[1] if len(sys.argv) > 1 else "20"
G = load_graph(generate=f"rmat:scale={scale},weighted=True", backend="cupy")
s = pick_source(G, "max-degree")
for _ in range(3):
    to_numpy(dgraph.sssp(G, s).raw("parent"))
cp.cuda.Device().synchronize()
cp.cuda.profiler.start()
r = dgraph.sssp(G, s)
to_numpy(r.raw("parent"))
cp.cuda.profiler.stop()
print(r.stats.to_string())
