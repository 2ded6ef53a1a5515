#!/usr/bin/env bash
# One-GPU calls of the fifth session (SSSP's host-driven supersteps: the tail queued before the read, the
# next relaxation launched ahead of it). $1: what to run.
#   timeline  sssp-timeline.py on this tree and on .whl/before (main before the change)
#   ab        this tree against .whl/before in one process (ab-inprocess.py), rmat20 and the grid
#   limit     EDGE_LIMIT in separate processes; limitab: in one process, plus a cProfile of one call
#   explore   read-latency.py and the delta sweep on rmat20
#   bench     dgraph bench sssp (rmat20, grid) and the rmat A/B; suite: pytest -m gpu tests
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
A=docs/bench-scripts/ab-inprocess.py
case "$1" in
timeline)
  timeout 120 python3 docs/bench-scripts/sssp-timeline.py 20 2>&1 | quiet > $OUT/timeline-after.txt
  head -2 $OUT/timeline-after.txt; tail -28 $OUT/timeline-after.txt
  timeout 120 python3 docs/bench-scripts/sssp-timeline.py 20 .whl/before 2>&1 | quiet > $OUT/timeline-before.txt
  head -2 $OUT/timeline-before.txt
  ;;
ab)
  timeout 200 python3 $A .whl/before sssp rmat:scale=20,weighted=True ${R:-15} 2>&1 | quiet
  timeout 200 python3 $A .whl/before sssp grid:rows=1000,cols=1000,weighted=True 4 2>&1 | quiet
  ;;
limit)
  for L in 65536 262144 1048576 4194304; do
    echo "-- EDGE_LIMIT $L"
    DGRAPH_SSSP_STEPS_EDGE_LIMIT=$L timeout 100 python3 docs/bench-scripts/sssp-timeline.py 20 2>&1 | quiet | head -2
  done
  ;;
limitab)
  timeout 250 python3 docs/bench-scripts/sssp-limit-ab.py ${R:-12} 2>&1 | quiet
  timeout 100 python3 docs/bench-scripts/sssp-host-profile.py 20 2>&1 | quiet | head -45
  ;;
explore)
  timeout 60 python3 docs/bench-scripts/read-latency.py 2>&1 | quiet
  timeout 200 python3 docs/bench-scripts/sssp-delta-sweep.py cupy 20 rmat 2>&1 | quiet
  ;;
bench)
  b() { (cd /tmp && timeout 150 python3 -m dgraph.cli bench sssp "$@" --backend cupy 2>&1 | quiet); }
  b --generate rmat:scale=20,weighted=True --repeat 10
  b --generate grid:rows=1000,cols=1000,weighted=True --source corner --repeat 3
  timeout 200 python3 $A .whl/before sssp rmat:scale=20,weighted=True 15 2>&1 | quiet
  ;;
suite)
  timeout 590 python3 -m pytest -q -p no:cacheprovider -m gpu tests -x 2>&1 | tail -6
  ;;
esac
