#!/usr/bin/env bash
# One-GPU call: before (.whl/before) against this tree in one process, calls interleaved (ab-inprocess.py).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
A=docs/bench-scripts/ab-inprocess.py
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
timeout 200 python3 $A .whl/before sssp rmat:scale=20,weighted=True ${R:-15} 2>&1 | quiet
timeout 200 python3 $A .whl/before sssp grid:rows=1000,cols=1000,weighted=True 4 2>&1 | quiet
timeout 150 python3 $A .whl/before pagerank rmat:scale=20 ${R:-15} 2>&1 | quiet
timeout 150 python3 $A .whl/before sssp rmat:scale=20,weighted=True ${R:-15} 2>&1 | quiet
