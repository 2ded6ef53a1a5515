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
timeout 300 python3 -m pytest -q -x -m multigpu tests/test_multigpu.py -p no:cacheprovider 2>&1 | tail -15 | tee "$out/pytest-multigpu.log"
for proto in tcp ucx; do
  for ex in spmd tasks; do
    timeout 120 python3 -m dgraph.cli bench superstep --backend cupy --partitions "$ngpu" --executor $ex \
      --protocol $proto --supersteps 200 --repeat 3 2>&1 | grep -v -i warn | tee -a "$out/superstep.log"
  done
done
timeout 400 python3 -m dgraph.cli bench bfs --generate rmat:scale=$scale --backend cupy --partitions "$ngpu" \
  --executor spmd --protocol ucx --repeat 5 --json "$out/bfs-rmat$scale-p$ngpu.json" 2>&1 | grep -v -i warn | tee "$out/bfs.log"
