#!/usr/bin/env bash
# One-GPU call, 2026-11-23: the cooperative SSSP launch (dgraph/algorithms/sssp/solver.py) tests, and its sweep over blocks
# per SM x the edge limit (big supersteps to the host-driven kernels) x delta; BFS levels blocks per SM.
# Usage: docs/bench-scripts/gpu-sssp-steps.sh  (logs to stdout)
export PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -m gpu tests/test_gpu_sssp_steps.py tests/test_gpu_batched.py tests/test_gpu_frontier.py tests/test_gpu_algorithms.py -p no:cacheprovider --tb=short -W ignore -x 2>&1 | tail -6
python3 -c "
from dgraph.algorithms.sssp import solver as g; from dgraph.algorithms.bfs import solver as l; import cupy as cp
for m, n in ((g, 'sssp_steps_i32'), (l, 'push_levels_i32')):
    k=m.kernel(n); print(n, 'regs', k.num_regs, 'resident blocks/SM', cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(k.kernel.ptr,256,0))"
for b in 1 2 4 8; do for el in 4611686018427387904 262144 1048576; do
  DGRAPH_SSSP_BLOCKS_PER_SM=$b DGRAPH_SSSP_STEPS_EDGE_LIMIT=$el HOST_DELTAS=4 timeout 60 python3 docs/bench-scripts/sssp-steps-sweep.py 0.03,0.125,0.5,4 8,32 2>&1 | grep -v -i warn | sed "s/^/b=$b el=$el /"; done; done
for b in 1 2 4; do echo "BFS grid levels blocks/SM $b"; DGRAPH_LEVELS_BLOCKS_PER_SM=$b timeout 60 python3 -m dgraph.cli bench bfs --generate grid:rows=1000,cols=1000 --backend cupy --source corner --repeat 5 --no-anchor 2>&1 | grep -E "time|level"; done
