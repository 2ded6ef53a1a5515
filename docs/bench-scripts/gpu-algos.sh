#!/usr/bin/env bash
# The algorithm suite on one GPU: the CuPy correctness tests and the figures of
# docs/BENCHMARKS.md ("Algorithms on one GPU"), in one device call.
# Usage: docs/bench-scripts/gpu-algos.sh OUTDIR [quick]
set -uo pipefail
out=${1:?usage: gpu-algos.sh OUTDIR [quick]}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$out/gpu.txt"
timeout 420 python3 -m pytest -v -m gpu tests -p no:cacheprovider -k "not ucx" --tb=short -W ignore \
  --durations=12 > "$out/pytest-gpu.log" 2>&1
tail -3 "$out/pytest-gpu.log"
b() { echo "\$ dgraph bench $*"; timeout 120 python3 -m dgraph.cli bench "$@" 2>&1 | quiet; }
{
  b pagerank --generate rmat:scale=20 --iterations 20 --backend cupy --repeat 5
  b sssp --generate rmat:scale=20,weighted=True --backend cupy --repeat 5
  b sssp --generate grid:rows=1000,cols=1000,weighted=True --backend cupy --source corner --repeat 3
  b wcc --generate rmat:scale=20 --backend cupy --repeat 5
  b wcc --generate grid:rows=1000,cols=1000 --backend cupy --repeat 3
  b cdlp --generate rmat:scale=20 --iterations 10 --backend cupy --repeat 3
} > "$out/bench.log" 2>&1
cat "$out/bench.log" | cut -c1-220
