#!/usr/bin/env bash
# The multi-GPU checks and figures of docs/BENCHMARKS.md (run on nvidia-h200-x2 / -x4).
# Usage: docs/bench-scripts/multigpu.sh OUTDIR [RMAT_SCALE]
set -uo pipefail
out=${1:?usage: multigpu.sh OUTDIR [RMAT_SCALE]}
scale=${2:-24}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
nvidia-smi topo -m > "$out/topo.txt" 2>&1
ngpu=$(nvidia-smi -L | wc -l)
quiet() { grep -v -i -E "warn|CUDA context|Please make sure"; }
timeout 300 python3 -m pytest -q -x -m multigpu tests/test_multigpu.py -p no:cacheprovider 2>&1 | tail -15 | tee "$out/pytest-multigpu.log"
for spec in "spmd nccl tcp" "spmd dask tcp" "spmd dask ucx" "tasks dask tcp" "tasks dask ucx"; do
  set -- $spec
  timeout 120 python3 -m dgraph.cli bench superstep --backend cupy --partitions "$ngpu" --executor $1 \
    --transport $2 --protocol $3 --supersteps 200 --repeat 3 2>&1 | quiet | tee -a "$out/superstep.log"
done
for spec in "nccl tcp" "dask ucx"; do
  set -- $spec
  timeout 300 python3 -m dgraph.cli bench bfs --generate rmat:scale=$scale --backend cupy --partitions "$ngpu" \
    --executor spmd --transport $1 --protocol $2 --repeat 5 --json "$out/bfs-rmat$scale-p$ngpu-$1.json" 2>&1 | quiet | tee -a "$out/bfs.log"
done
