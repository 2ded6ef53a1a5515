#!/usr/bin/env bash
# One-GPU call (nvidia-h100-x1): the compiled sends of the EMV device path (dgraph/emv/device_send.py)
# checked and timed against a copy of the tree before them.  The EMV gpu tests, then emv-bench on
# rmat 20 and the BFS-Q phases, alternating after / before in one call.
# Usage: gpu-emv-sends.sh OUTDIR BEFORE_SITE   (BEFORE_SITE: a folder holding the old dgraph/)
set -uo pipefail
out=${1:?usage: gpu-emv-sends.sh OUTDIR BEFORE_SITE}
before=${2:?usage: gpu-emv-sends.sh OUTDIR BEFORE_SITE}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  timeout "${TEST_S:-240}" python3 -m pytest -q -m gpu tests/test_emv_device.py tests/test_emv_gpu.py tests/test_emv_fuse.py \
    -p no:cacheprovider --tb=short -W ignore -x --durations=5 2>&1 | tail -40 > "$out/pytest-emv.log"
  grep -E "passed|failed|FAILED|ERROR|Error" "$out/pytest-emv.log" | tail -15
fi
for round in 1 2; do
  for which in after before; do
    site=$PWD; [ "$which" = before ] && site=$before
    echo "== round $round: $which"
    PYTHONPATH=$site:${SITE:-} timeout "${BENCH_S:-100}" python3 docs/bench-scripts/emv-bench.py rmat --scale 20 \
      --backend cupy --repeat 5 2>&1 | quiet | tee "$out/emv-bench-$which-$round.log" | tail -6
  done
done
for which in after before; do
  site=$PWD; [ "$which" = before ] && site=$before
  echo "== phases: $which"
  PYTHONPATH=$site:${SITE:-} timeout 60 python3 docs/bench-scripts/emv-bfs-phases.py 20 5 2>&1 | quiet | tee "$out/phases-$which.log"
done
if [ "${PROFILE:-0}" = 1 ]; then
  PYTHONPATH=$PWD:${SITE:-} timeout 80 python3 docs/bench-scripts/emv-gpu-profile.py 20 40 2>&1 | quiet > "$out/emv-profile.log"
  sed -n '/==== emv-bfs-q/,$p' "$out/emv-profile.log" | head -60
fi
