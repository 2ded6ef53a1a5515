#!/usr/bin/env bash
# One-GPU call: the host's share of a GPU SSSP call (cProfile), then the whole GPU test suite.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD || exit
export PYTHONUNBUFFERED=1
timeout 120 python3 docs/bench-scripts/sssp-host-profile.py 20 2>&1 | grep -v -i warn | head -45
timeout 480 python3 -m pytest -q -m gpu tests -p no:cacheprovider --tb=short -W ignore 2>&1 | tail -8
