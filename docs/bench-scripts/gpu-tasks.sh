set -uo pipefail
out=$1; export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
quiet() { grep -v -i -E "warn|CUDA context|Please make sure|NAT = np"; }
timeout 200 python3 -m pytest -q -x -m multigpu tests/test_multigpu.py -p no:cacheprovider -k tcp 2>&1 | tail -3 | tee "$out/pytest-multigpu.log"
timeout 80 python3 -m dgraph.cli bench superstep --backend cupy --partitions 2 --executor tasks --supersteps 100 --repeat 3 2>&1 | quiet | tee -a "$out/bench.log"
timeout 120 python3 -m dgraph.cli bench bfs --generate rmat:scale=24 --backend cupy --partitions 2 --executor tasks --repeat 3 2>&1 | quiet | tee -a "$out/bench.log"
