import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from dgraph.backend import gpu_available  # noqa: E402

GRAPHALYTICS = os.environ.get("DGRAPH_GRAPHALYTICS",
                              os.path.join(os.path.dirname(__file__), "data", "graphalytics"))

BACKENDS = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "cupy" and not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    return request.param


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of 2 worker processes for the tests of one module (closed after it)."""
    from dgraph.cluster import close, connect

    c = connect(workers=2, timeout=60)
    yield c
    close()
