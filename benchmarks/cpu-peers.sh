#!/bin/bash
# Issue 23 part 8: dgraph's CPU path beside the fastest peer (scipy, igraph, networkit, graphblas) on the
# seven targets, each `dgraph bench` run in a session of its own whose autogroup has nice -15, so that on
# the shared 2-core box the benchmark gets the cores as on a quiet one (other sessions' jobs still run).
# With BEFORE_TREE (a checkout of an older commit, e.g. `git archive REV | tar -x -C DIR`) each target
# runs there first, then here: before/after from the same minutes.
#   bash benchmarks/cpu-peers.sh OUT_DIR [BEFORE_TREE]
# Writes OUT_DIR/<target>.after.txt (and .before.txt), and <target>.load (uptime before and after).
set -u
out=${1:?an output folder}
before=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -z "$before" ] || before=$(cd "$before" && pwd)
run() {  # tree name args...
  local tree=$1 name=$2; shift 2
  # in the tree itself: `python3 -m` puts the working directory ahead of PYTHONPATH
  (cd "$tree" && PYTHONPATH=$tree setsid bash -c 'echo -15 > /proc/self/autogroup 2>/dev/null; exec "$@"' bench \
    python3 -m dgraph.cli bench "$@" --quiet > "$out/$name.txt" 2>&1)
}
for spec in "bfs-grid|bfs --generate grid:rows=1000,cols=1000 --repeat 11" \
            "tc-grid|triangle_count --generate grid:rows=1000,cols=1000 --repeat 11" \
            "lcc-grid|lcc --generate grid:rows=1000,cols=1000 --repeat 11" \
            "bfs-rmat|bfs --generate rmat:scale=20 --repeat 7" \
            "pr-rmat|pagerank --generate rmat:scale=20 --iterations 20 --repeat 5" \
            "sssp-rmat|sssp --generate rmat:scale=20,weighted=True --repeat 5" \
            "wcc-rmat|wcc --generate rmat:scale=20 --repeat 5"; do
  name=${spec%%|*}; args=${spec#*|}
  uptime > "$out/$name.load"
  if [ -n "$before" ]; then run "$before" "$name.before" $args; fi
  run "$here" "$name.after" $args
  uptime >> "$out/$name.load"
done
