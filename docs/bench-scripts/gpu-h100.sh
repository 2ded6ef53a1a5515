#!/usr/bin/env bash
# One-GPU call (nvidia-h100-x1), 2026-11-23: the GPU tests of the kernels changed (TESTS=... to choose),
# BFS with and without the multi-level kernel (DGRAPH_LEVELS=0 is "before"), PageRank, SSSP, device
# memory of generate/BFS.  Usage: docs/bench-scripts/gpu-h100.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu-h100.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
timeout "${TEST_S:-200}" python3 -m pytest -q -m gpu ${TESTS:-tests/test_gpu_frontier.py tests/test_gpu_batched.py \
  tests/test_bfs.py tests/test_sssp.py tests/test_pagerank.py tests/test_gpu_algorithms.py tests/test_partitioned.py} \
  -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -25 > "$out/pytest.log"
tail -n 4 "$out/pytest.log"
b() { echo "\$ $*"; timeout 120 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  DGRAPH_LEVELS=0 b bfs --generate rmat:scale=20 --backend cupy --repeat 10 --no-anchor
  b bfs --generate rmat:scale=20 --backend cupy --repeat 10
  DGRAPH_LEVELS=0 b bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 3 --no-anchor
  b bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 5
  b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 5
  b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
  b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
} > "$out/bench.log" 2>&1
grep -E "^\\$|time|MTEPS|supersteps|per arc|memory|anchor.*(CuPy|Gunrock|scipy)" "$out/bench.log" | cut -c1-200
timeout 90 python3 docs/bench-scripts/gpu-memory.py > "$out/memory.log" 2>&1; quiet < "$out/memory.log" | tail -20
