#!/usr/bin/env bash
# One-GPU call, review clean-ups of session 4: the whole GPU suite, then before (.whl/before = the
# commit before the clean-ups) against this tree in one process: BFS rmat20 (its push now finds the
# blocks' frontier slots with block_starts too), SSSP rmat20 and grid (same kernels, fewer barriers
# where skip is off, the env read once a run).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
timeout 420 python3 -m pytest -q -m gpu tests -p no:cacheprovider --tb=short -W ignore 2>&1 | tail -6
A=docs/bench-scripts/ab-inprocess.py
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
timeout 120 python3 $A .whl/before bfs rmat:scale=20 15 2>&1 | quiet
timeout 120 python3 $A .whl/before bfs grid:rows=1000,cols=1000 3 2>&1 | quiet
timeout 120 python3 $A .whl/before sssp rmat:scale=20,weighted=True 15 2>&1 | quiet
