#!/usr/bin/env bash
# One-GPU call, 2026-11-23: GPU tests of the changed kernels; PageRank with the row-segment gathers
# issued before the adds (after) and the plain loop (DGRAPH_SEG_PLAIN=1, before), alternated; SSSP with
# the cooperative launch's defaults against the anchors.  Usage: docs/bench-scripts/gpu-pagerank-sssp.sh
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
timeout ${TEST_S:-200} python3 -m pytest -q -m gpu ${TESTS:-tests/test_gpu_sssp_steps.py tests/test_gpu_batched.py tests/test_gpu_algorithms.py tests/test_pagerank.py tests/test_bc.py tests/test_sssp.py} \
  -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -4
b() { echo "\$ $*"; timeout 120 python3 -m dgraph.cli bench "$@" 2>&1 | quiet | grep -E "time|anchor|CuPy|Gunrock|supersteps"; }
for i in 1 2; do
  echo "-- before (plain loop)"; DGRAPH_SEG_PLAIN=1 b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 10
  echo "-- after"; b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 10
done
b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
DGRAPH_SSSP_STEPS=0 b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5 --no-anchor
b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
DGRAPH_SSSP_STEPS=0 b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3 --no-anchor
