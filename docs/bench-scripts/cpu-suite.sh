#!/usr/bin/env bash
# The CPU algorithm table of issue 4 (docs/BENCHMARKS.md), on this 2-core box: every algorithm on rmat
# scale 20 and the 1000x1000 grid against scipy / igraph / networkit, same-run ratios.
# Usage: docs/bench-scripts/cpu-suite.sh > log
b() { echo "\$ dgraph bench $*"; python3 -m dgraph.cli bench "$@" 2>&1 | grep -E "^\s+(time|anchor|supersteps)"; }
b sssp --generate rmat:scale=20,weighted=True --repeat 3
b sssp --generate grid:rows=1000,cols=1000,weighted=True --source corner --repeat 3
b bc --generate rmat:scale=20 --repeat 3
b bc --generate grid:rows=1000,cols=1000 --repeat 3 --source 500500
b wcc --generate rmat:scale=20 --repeat 3
b wcc --generate grid:rows=1000,cols=1000 --repeat 3
b pagerank --generate rmat:scale=20 --iterations 20 --repeat 3
b pagerank --generate grid:rows=1000,cols=1000 --iterations 20 --repeat 3
b cdlp --generate rmat:scale=20 --iterations 10 --repeat 3
b cdlp --generate grid:rows=1000,cols=1000 --iterations 10 --repeat 3
b triangle_count --generate grid:rows=1000,cols=1000 --repeat 3
b lcc --generate grid:rows=1000,cols=1000 --repeat 3
b triangle_count --generate rmat:scale=20 --repeat 1
b lcc --generate rmat:scale=20 --repeat 1
