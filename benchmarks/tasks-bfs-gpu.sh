#!/bin/sh
# Issue 24 on the GPU host, one call (about 5 minutes): BFS rmat22 under the `tasks` executor on 2 GPUs,
# before (BEFORE, default bb4d9c6: main before the fifth session's change) and now, alternating on one
# LocalCUDACluster; the run's timeline from Dask's logs (where the time outside the supersteps goes);
# and benchmarks/tasks-floor.py (the empty superstep, BFS pushed and fetched against one GPU, spmd).
#
#     sh benchmarks/tasks-bfs-gpu.sh OUT_DIR        (BEFORE=<commit> to compare with another commit)
#
# Writes OUT_DIR/ab.json, OUT_DIR/timeline.json, OUT_DIR/tasks-floor.json; prints the tables.
set -e
OUT=${1:?usage: sh benchmarks/tasks-bfs-gpu.sh OUT_DIR}
BEFORE=${BEFORE:-bb4d9c6}
mkdir -p "$OUT"
uptime
python3 benchmarks/tasks-ab.py --before "$BEFORE" --bfs 22 --partitions 2 --rounds 7 --backend cupy --json "$OUT/ab.json"
python3 benchmarks/tasks-bfs-timeline.py --backend cupy --scale 22 --partitions 2 --runs 5 --quiet --json "$OUT/timeline.json"
python3 benchmarks/tasks-floor.py "$OUT" --scale 22 --partitions 2 --repeat 5 --no-cpu
